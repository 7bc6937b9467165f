"""Órdago: lance probabilities (hand-computed), break-evens, advice, CLI output and bad input."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import combinations_with_replacement
from math import comb, prod

import pytest

import naive as ref
from helpers import assert_exit2_one_line, run_cli as _run
from musstats.analysis.game import GameModel, Outcomes, win_probabilities
from musstats.analysis.ordago import break_evens, decide, lance_probability, ordago
from musstats.base.errors import MusError
from musstats.rules import checks
from musstats.rules.variant import Variant
from musstats.tables.context import make_context


#: the kernels of these tests run on one numba thread unless a test asks for more (conftest)
pytestmark = pytest.mark.usefixtures("one_numba_thread")


def lp(hand, seat, lance, variant=Variant(), **conditions):
    """lance_probability of ``hand`` at seat index ``seat`` (0 = mano)."""
    return lance_probability(make_context(variant, hand, seat + 1, **conditions), lance)


# ---------------------------------------------------------------------------
# the lance probability, by hand


def test_grande_postre_four_reyes_by_hand():
    """8 reyes, postre holds R R R R: 4 reyes left among 36 cards.  Our team loses grande only
    if mano or third (nearer to mano, other team) also holds all four: 2 / C(36, 4)."""
    p = lp("R R R R", 3, "grande")["p"]
    assert p == 1 - Fraction(2, comb(36, 4))
    # mano with R R R R can never lose grande: ties go to mano
    assert lp("R R R R", 0, "grande")["p"] == 1


def _juego_second_31_by_hand() -> Fraction:
    """Second holds R R R A (31).  Juego is contested when mano or third (the other team)
    holds juego; we lose only to mano's 31 (ties go to the seat nearer to mano; third's 31
    loses to ours).  So p = 1 - P(mano 31) / P(mano or third holds juego), counted over
    kind multisets weighted by card combinations (postre's hand does not matter)."""
    kinds = ref.DECK_8
    names = [k[0] for k in kinds]
    rem = [k[3] for k in kinds]
    for c in ("R", "R", "R", "A"):
        rem[names.index(c)] -= 1
    assert sum(rem) == 36
    hands = list(combinations_with_replacement(range(len(kinds)), 4))

    def ways(h, r):
        return prod(comb(r[k], h.count(k)) for k in set(h))

    def pts(h):
        return sum(kinds[k][2] for k in h)

    m31 = sum(ways(h, rem) for h in hands if pts(h) == 31)
    contested = 0
    for m in hands:
        wm = ways(m, rem)
        if wm == 0:
            continue
        r2 = [rem[k] - m.count(k) for k in range(len(kinds))]
        for t in hands:
            if pts(m) >= 31 or pts(t) >= 31:
                contested += wm * ways(t, r2)
    p_m31 = Fraction(m31, comb(36, 4))
    p_contested = Fraction(contested, comb(36, 4) * comb(32, 4))
    return 1 - p_m31 / p_contested


def test_juego_conditional_on_contested_by_hand():
    expected = _juego_second_31_by_hand()
    res = lp("R R R A", 1, "juego")
    assert res["p"] == expected
    assert res["basis"] == "p_team_contested / p_contested"
    assert 0.5 < float(expected) < 1
    # mano declared no juego: contested only through third, whose 31 loses to ours: p = 1
    res = lp("R R R A", 1, "juego", declared="mano:no-juego")
    assert res["p"] == 1


def test_mano_31_is_certain_at_juego():
    assert lp("R R R A", 0, "juego")["p"] == 1


def test_never_contested_or_never_played_is_an_error():
    with pytest.raises(MusError, match="no órdago at pares"):
        lp("R R R R", 0, "pares", declared="second:no-pares,postre:no-pares")
    with pytest.raises(MusError, match="no órdago at punto: you hold juego"):
        lp("R R R A", 0, "punto")


# ---------------------------------------------------------------------------
# break-evens and advice


class _Table:
    """A stand-in game model: W(a, b) from a dict."""

    target = 40

    def __init__(self, w):
        self.w = w

    def p_win(self, us, them, mano):
        return self.w[(us, them)]


def test_break_evens_and_decision():
    m = _Table({(20, 30): 0.40, (21, 30): 0.45, (20, 31): 0.35})
    be = break_evens(m, 20, 30, "us")
    assert be == {"p_game": 0.40, "p_game_if_they_refuse": 0.45, "p_game_if_we_refuse": 0.35,
                  "call": 0.40, "accept": 0.35}
    d = decide(0.5, be, "grande")
    assert d["call"] and d["accept"] and d["bluff_max_accept_rate"] is None
    assert d["advice"].startswith("Call the órdago") and "accept" in d["advice"]
    # calling wins p if accepted (0.38 < 0.40), 0.45 if refused: a bluff pays when
    # q * 0.38 + (1 - q) * 0.45 > 0.40, i.e. q < 0.05 / 0.07
    d = decide(0.38, be, "grande")
    assert not d["call"] and d["accept"]
    assert d["bluff_max_accept_rate"] == pytest.approx(5 / 7)
    assert "Don't call" in d["advice"] and "71.4 %" in d["advice"]
    d = decide(0.30, be, "grande")
    assert not d["call"] and not d["accept"] and "refuse" in d["advice"]
    assert "\n" not in d["advice"]


def test_break_evens_at_the_edge_of_the_game():
    class M:
        target = 40

        def p_win(self, us, them, mano):
            if us >= 40:
                return 1.0
            if them >= 40:
                return 0.0
            return 0.5

    # at 39-39 a refused órdago of ours wins the game; refusing theirs loses it
    be = break_evens(M(), 39, 39, "us")
    assert be["p_game_if_they_refuse"] == 1.0 and be["p_game_if_we_refuse"] == 0.0
    assert decide(0.01, be)["accept"]  # any chance beats a certain loss


def _hand_made_model(target=40):
    o = Outcomes.from_list([([(0, 1), (1, 1), (0, 2), (1, 2)], 0.6), ([(1, 1), (0, 1), None, (1, 3)], 0.4)])
    return GameModel(Variant(target=target), o, win_probabilities(o, target))


@pytest.mark.parametrize("seat, m", [("mano", 0), ("second", 1), ("third", 0), ("postre", 1)])
def test_ordago_uses_our_team_as_mano_when_mano_or_third(seat, m):
    model = _hand_made_model()
    res = ordago("R R R R", seat, lance="grande", score="12-25", model=model, equilibrium=False).to_dict()
    assert res["method"] == "random hands"
    res = res["random_hands"]
    assert res["p_game"] == pytest.approx(model.p[m, 12, 25])
    assert res["p_game_if_they_refuse"] == pytest.approx(model.p[m, 13, 25])
    assert res["break_even"]["accept"] == pytest.approx(model.p[m, 12, 26])
    assert res["game_model"]["mano"] == ("us" if m == 0 else "them")


def test_ordago_model_target_must_match():
    with pytest.raises(MusError, match="game to 40"):
        ordago("R R R R", "mano", lance="grande", score="1-2", target=30, model=_hand_made_model(40))


def test_certain_lance_advice_is_to_call():
    """Mano with R R R R at grande wins for sure (ties go to mano): call, and accept."""
    doc = ordago("R R R R", "mano", lance="grande", score="20-35", equilibrium=False).to_dict()
    assert doc["call"] is True and doc["accept"] is True and doc["equilibrium"] is None
    assert doc["recommended"] == {"call": "call", "answer": "accept"}
    assert doc["advice"].startswith("Random hands: Call the órdago")
    res = doc["random_hands"]
    assert res["p_lance"] == 1.0 and res["p_lance_exact"] == "1"
    assert res["call"] is True and res["accept"] is True
    assert res["advice"].startswith("Call the órdago")
    assert 0 < res["p_game"] < 0.2  # 15 stones behind near the end
    assert res["break_even"]["call"] == res["p_game"]
    assert res["p_game_if_we_refuse"] <= res["p_game"] <= res["p_game_if_they_refuse"]


# ---------------------------------------------------------------------------
# parsing


@pytest.mark.parametrize("text, want", [("12-30", (12, 30)), (" 0 - 39 ", (0, 39)), ("5:7", (5, 7))])
def test_parse_score_ok(text, want):
    assert checks.score(text, 40) == want


@pytest.mark.parametrize("text, target, fragment", [
    ("12", 40, "malformed score"), ("12-", 40, "malformed score"), ("a-b", 40, "malformed score"),
    ("-1-3", 40, "malformed score"), ("12-30-1", 40, "malformed score"), ("1.5-3", 40, "malformed score"),
    ("40-0", 40, "0..39"), ("0-45", 40, "0..39"), ("30-0", 30, "0..29"),
])
def test_parse_score_bad(text, target, fragment):
    with pytest.raises(MusError, match=fragment.replace(".", r"\.")):
        checks.score(text, target)


def test_parse_lance():
    assert checks.lance(" Pares ") == "pares"
    assert checks.lance("big") == "grande" and checks.lance("par") == "pares"
    with pytest.raises(MusError, match="grande, chica, pares, juego, punto"):
        checks.lance("envido")


# ---------------------------------------------------------------------------
# CLI


def test_cli_json_shape(capsys):
    code, out, err = _run(capsys, ["ordago", "R", "R", "R", "A", "--seat", "second", "--lance", "juego",
                                   "--score", "30-32", "--format", "json", "--no-equilibrium",
                                   "--declared", "mano:juego,third:juego,postre:juego"])
    assert code == 0, err
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert len(lines) == 1
    doc = json.loads(lines[0])
    assert {"hand", "seat", "lance", "score", "method", "call", "accept", "recommended", "advice", "equilibrium",
            "random_hands", "approximations", "rules", "conditions"} <= set(doc)
    assert doc["method"] == "random hands" and doc["equilibrium"] is None
    assert doc["hand"] == ["R", "R", "R", "A"] and doc["seat"] == "second" and doc["lance"] == "juego"
    assert doc["score"] == {"us": 30, "them": 32, "target": 40}
    rh = doc["random_hands"]
    assert {"p_lance", "p_lance_exact", "p_game", "break_even", "call", "accept", "advice", "game_model"} <= set(rh)
    # every other player declared juego: we lose only to mano's 31, P(mano 31 | mano holds juego, and so do
    # third and postre) -- here the exact figure of the declared conditions (checked by hand above without them)
    want = lp("R R R A", 1, "juego", declared="mano:juego,third:juego,postre:juego")["p"]
    assert Fraction(rh["p_lance_exact"]) == want and 0.5 < want < 1
    assert set(rh["break_even"]) == {"call", "accept"}
    for k in ("p_lance", "p_game", "p_game_if_they_refuse", "p_game_if_we_refuse"):
        assert 0.0 <= rh[k] <= 1.0
    assert isinstance(doc["call"], bool) and isinstance(doc["accept"], bool)
    assert doc["call"] == rh["call"] and doc["accept"] == rh["accept"]
    assert rh["game_model"]["mano"] == "them" and rh["game_model"]["target"] == 40
    assert "assumed" not in doc["conditions"]


def test_undeclared_players_hold_the_lance_by_default(capsys):
    """Pares and juego: a player not named in the declarations is assumed to hold the lance,
    and the result says so (both figures use it)."""
    one = ordago("R R R A", "second", lance="juego", score="30-32", equilibrium=False).to_dict()
    full = ordago("R R R A", "second", lance="juego", score="30-32", equilibrium=False,
                  declared="mano:juego,third:juego,postre:juego").to_dict()
    assert one["random_hands"]["p_lance_exact"] == full["random_hands"]["p_lance_exact"]
    assert "mano, third, postre hold juego" in one["conditions"]["assumed"]
    # mano declared no juego: only third (assumed) contests it, and third's 31 loses to ours (second is
    # nearer to mano): the órdago is won for sure
    res = ordago("R R R A", "second", lance="juego", score="30-32", equilibrium=False,
                 declared="mano:no-juego").to_dict()
    assert res["random_hands"]["p_lance_exact"] == "1"
    assert res["conditions"]["assumed"].startswith("third, postre hold juego")
    code, out, err = _run(capsys, ["ordago", "R", "R", "R", "A", "--seat", "second", "--lance", "juego",
                                   "--score", "30-32", "--no-equilibrium"])
    assert code == 0, err
    assert "assumed mano, third, postre hold juego" in " ".join(out.split())
    # grande: nothing is assumed
    assert "assumed" not in ordago("R R R A", "second", lance="grande", score="30-32",
                                   equilibrium=False).to_dict()["conditions"]


def test_cli_table(capsys):
    code, out, err = _run(capsys, ["ordago", "RRRR", "--lance", "grande", "--score", "0-0", "--target", "30",
                                   "--no-equilibrium"])
    assert code == 0, err
    assert "órdago a grande at 0-0 (a 30)" in out and "Random hands: Call the órdago" in out
    code, out, err = _run(capsys, ["ordago", "7", "6", "5", "4", "--seat", "postre", "--lance", "pares",
                                   "--score", "10-10", "--declared", "mano:pares", "--no-equilibrium"])
    assert code == 0, err
    assert "note: you do not hold pares" in out


@pytest.mark.parametrize("args, fragment", [
    (["--lance", "envido", "--score", "1-2"], "unknown lance 'envido'"),
    (["--lance", "grande", "--score", "12"], "malformed score"),
    (["--lance", "grande", "--score", "12-x"], "malformed score"),
    (["--lance", "grande", "--score", "40-3"], "0..39"),
    (["--lance", "grande", "--score", "29-30", "--target", "30"], "0..29"),
    (["--lance", "grande", "--score", "1-2", "--target", "50"], "'40', '30'"),
    (["--lance", "pares", "--score", "1-2", "--declared", "mano:no-pares"], "contradicts your own hand"),
    (["--lance", "pares", "--score", "1-2", "--declared", "second:no-pares,postre:no-pares"],
     "no órdago at pares"),
    (["--lance", "grande", "--score", "1-2", "--variant", "4-reyes", "--signal", "two-reyes"],
     "no deal satisfies the conditions"),
    (["--lance", "punto", "--score", "1-2"], "no órdago at punto"),
    (["--score", "1-2"], "--lance"),
    (["--lance", "grande"], "--score"),
    (["--lance", "grande", "--score", "1-2", "--seat", "sixth"], "mano|second|third|postre"),
    (["--lance", "grande", "--score", "1-2", "--lance", "chica"], "--lance is given twice"),
    (["--lance", "grande", "--score", "1-2", "--score", "1-2"], "--score is given twice"),
    (["--lance", "grande", "--score", "1-2", "--signal", "31", "--signal", "duples"], "one seña"),
    (["--lance", "grande", "--score", "1-2", "--declared", "second:pares", "--declared", "second:no-pares"],
     "both pares and no-pares"),
])
def test_cli_bad_input(capsys, args, fragment):
    # R R R R: 40 points (juego), four reyes; with 4 reyes they are all the reyes of the deck
    assert_exit2_one_line(capsys, ["ordago", "R", "R", "R", "R", *args], fragment)


def test_cli_bad_hand(capsys):
    assert_exit2_one_line(capsys, ["ordago", "R", "R", "X", "A", "--lance", "grande", "--score", "1-2"],
                          "unknown card")


def test_repeated_declarations_merge(capsys):
    # --declared may be repeated: the items merge (the same as one comma-separated list)
    one = ordago("7 6 5 4", "postre", lance="pares", score="10-10", declared="mano:pares,third:no-juego",
                 equilibrium=False).to_dict()
    code, out, err = _run(capsys, ["ordago", "7", "6", "5", "4", "--seat", "postre", "--lance", "pares",
                                   "--score", "10-10", "--declared", "mano:pares", "--declared", "third:no-juego",
                                   "--format", "json", "--no-equilibrium"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["random_hands"]["p_lance_exact"] == one["random_hands"]["p_lance_exact"]
    # second and third are assumed to hold pares (not declared)
    assert doc["conditions"]["declared"] == "mano:pares,second:pares,third:no-juego,third:pares"
    assert doc["conditions"]["assumed"].startswith("second, third hold pares")


def test_result_object():
    res = ordago("R R R A", "second", lance="juego", score="30-32", equilibrium=False)
    d = res.to_dict()
    assert res.call is d["call"] and res.advice == d["advice"]
    df = res.to_frame()
    assert len(df) == 1 and df.loc[0, "lance"] == "juego"
    assert df.loc[0, "random_hands_p_lance"] == d["random_hands"]["p_lance"]
    assert df.loc[0, "method"] == "random hands" and df.loc[0, "call"] == d["call"]
    assert df.attrs["seat"] == "second" and df.attrs["advice"] == d["advice"]
