"""The órdago at a score against equilibrium opponents: the P(win the game) payoff by hand
(the edge scores of every lance), the nodes, the figures, the sanity a player checks, the
CLI and the chart."""

from __future__ import annotations

import json

import numpy as np
import pytest

from helpers import assert_exit2_one_line, run_cli as _run
from musstats.base.errors import MusError
from musstats.engines.betting.game import GamePayoff, RestOfHand, StonePayoff, hand_end_value, outcome_code
from musstats.engines.betting.tree import ACCEPTED, ALL_SEATS, ORDAGO, PASO, REFUSED, Terminal, betting_tree
from musstats.rules.variant import Variant, make_variant


#: the kernels of these tests run on one numba thread unless a test asks for more (conftest)
pytestmark = pytest.mark.usefixtures("one_numba_thread")


#: small solves for the tests (the defaults are for users)
IT = 100
EVAL = 2_000
#: after the mus (the deal solver: iterations of 20,000 deals; evaluation deals per sample set)
IT_AFTER_MUS = 200
EVAL_AFTER_MUS = 100_000


def _toy_grid(T: int = 40) -> np.ndarray:
    """A made-up P(team 0 wins) at the start of the next hand: 0.5 + (a - b) / 100."""
    a, b = np.meshgrid(np.arange(T), np.arange(T), indexing="ij")
    return 0.5 + (a - b) / 100.0


def _row(tree, kind, **kw):
    for i, t in enumerate(tree.terminals):
        if t.kind == kind and all(getattr(t, k) == v for k, v in kw.items()):
            return i
    raise AssertionError(f"no terminal {kind} {kw}")


# ---------------------------------------------------------------------------
# the payoff, by hand


def test_game_payoff_table_by_hand():
    g = _toy_grid()
    tree = betting_tree("grande", ALL_SEATS)
    gp = GamePayoff(10, 20, Variant(), grid=g)
    U = gp.p_win_table(tree)
    win, lose = outcome_code(1, 0, 0), outcome_code(0, 0, 0)
    # en paso: 1 stone to the best hand's team
    assert U[_row(tree, PASO), win] == pytest.approx(0.5 + (11 - 20) / 100)
    assert U[_row(tree, PASO), lose] == pytest.approx(0.5 + (10 - 21) / 100)
    # an accepted envido of 5: 5 stones
    assert U[_row(tree, ACCEPTED, stake=5), win] == pytest.approx(0.5 + (15 - 20) / 100)
    assert U[_row(tree, ACCEPTED, stake=5), lose] == pytest.approx(0.5 + (10 - 25) / 100)
    # refused first bet of team 1: the deje of 1 stone to team 1 whoever holds the best hand
    r = _row(tree, REFUSED, by=1, deje=1)
    assert U[r, win] == U[r, lose] == pytest.approx(0.5 + (10 - 21) / 100)
    # an accepted órdago decides the game
    assert U[_row(tree, ORDAGO), win] == 1.0 and U[_row(tree, ORDAGO), lose] == 0.0
    # the solver's table is centred: P(win) - 1/2 (exactly zero-sum between the teams)
    assert np.allclose(gp.table(tree), U - 0.5)


def test_game_payoff_target_reached_wins():
    g = _toy_grid()
    tree = betting_tree("grande", ALL_SEATS)
    win, lose = outcome_code(1, 0, 0), outcome_code(0, 0, 0)
    U = GamePayoff(39, 0, Variant(), grid=g).p_win_table(tree)
    assert U[_row(tree, PASO), win] == 1.0  # 39 + 1 = 40: team 0 wins at once
    assert U[_row(tree, PASO), lose] == pytest.approx(0.5 + (39 - 1) / 100)
    U = GamePayoff(0, 36, Variant(), grid=g).p_win_table(tree)
    assert U[_row(tree, ACCEPTED, stake=5), lose] == 0.0  # 36 + 5 >= 40: team 1 wins
    assert U[_row(tree, ACCEPTED, stake=5), win] == pytest.approx(0.5 + (5 - 36) / 100)
    # a game to 30
    v30 = make_variant("8-reyes", target=30)
    U = GamePayoff(29, 29, v30, grid=_toy_grid(30)).p_win_table(tree)
    assert U[_row(tree, PASO), win] == 1.0 and U[_row(tree, PASO), lose] == 0.0


def test_game_payoff_pares_values_by_hand():
    g = _toy_grid()
    tree = betting_tree("pares", ALL_SEATS)
    U = GamePayoff(5, 5, Variant(), grid=g).p_win_table(tree)
    st = StonePayoff().table(tree)
    o = outcome_code(1, 3, 1)  # team 0 best; its holders' values 3 (duples) ... team 1's 1
    assert st[_row(tree, PASO), o] == 3
    assert U[_row(tree, PASO), o] == pytest.approx(0.5 + (8 - 5) / 100)
    # accepted 2 with team 1 best, team 1's values 1 + 2 = 3: 5 stones to team 1
    o = outcome_code(0, 1, 3)
    assert U[_row(tree, ACCEPTED, stake=2), o] == pytest.approx(0.5 + (5 - 10) / 100)


def test_game_payoff_keys_and_checks():
    v = Variant()
    g, g30 = _toy_grid(), _toy_grid(30)
    g2 = g.copy()
    g2[5, 5] += 0.01
    keys = {GamePayoff(0, 0, v, grid=g).key, GamePayoff(0, 1, v, grid=g).key, GamePayoff(1, 0, v, grid=g).key,
            GamePayoff(0, 0, make_variant("8-reyes", target=30), grid=g30).key,
            GamePayoff(0, 0, make_variant("4-reyes"), grid=g).key,
            GamePayoff(0, 0, v, grid=g2).key, StonePayoff().key}
    assert len(keys) == 7
    assert GamePayoff(3, 4, v, grid=g).key == GamePayoff(3, 4, Variant(), grid=g.copy()).key
    with pytest.raises(MusError, match="0 to 39"):
        GamePayoff(40, 0, v, grid=g)
    with pytest.raises(MusError, match="0 to 29"):
        GamePayoff(0, 30, make_variant("8-reyes", target=30), grid=g30)
    with pytest.raises(MusError, match="grid"):
        GamePayoff(0, 0, v)  # the engine never builds a game model itself
    with pytest.raises(MusError, match="grid"):
        GamePayoff(0, 0, v, grid=g30)


# ---------------------------------------------------------------------------
# the end of the game at the edge scores (docs/rules.md "Scoring at the count", "Game"):
# dejes at once, then the count in lance order grande, chica, pares, juego/punto; the first
# team to reach 40 wins there.  ``rest``: team 0's stones of (grande, chica, pares,
# juego/punto) en paso; the lance's own place is ignored.


def _end(a, b, lance, term, o, rest=(0, 0, 0, 0), T=40):
    g = _toy_grid(T)
    return float(hand_end_value(a, b, T, g, lance, term, np.array([o]), np.array([rest]))[0])


PASO_T, ORD_T = Terminal(PASO), Terminal(ORDAGO)


def _acc(n):
    return Terminal(ACCEPTED, stake=n)


def _ref(by, deje):
    return Terminal(REFUSED, by=by, deje=deje)


W0, W1 = outcome_code(1, 0, 0), outcome_code(0, 0, 0)  # team 0 / team 1 holds the best hand (no values)


def test_edge_grande_is_counted_first():
    # 39-39: grande is the first place of the count, so its winner wins whatever follows
    assert _end(39, 39, "grande", PASO_T, W0, (0, -1, -3, -2)) == 1.0
    assert _end(39, 39, "grande", PASO_T, W1, (0, 1, 3, 2)) == 0.0
    assert _end(38, 39, "grande", _acc(2), W0, (0, -1, 0, 0)) == 1.0   # 38 + 2
    # 38-39, en paso to team 0 (39-39), then chica to team 1: 39-40
    assert _end(38, 39, "grande", PASO_T, W0, (0, -1, 0, 0)) == 0.0
    # a refused first bet of team 1: its deje at once, 39 + 1, though team 0 holds the best grande
    assert _end(0, 39, "grande", _ref(1, 1), W0) == 0.0
    # the deje of a refused raise: 2 at once (38 + 2)
    assert _end(38, 30, "grande", _ref(0, 2), W1, (0, -1, -3, -3)) == 1.0
    # an accepted órdago: the lance decides, whatever the count would say
    assert _end(39, 39, "grande", ORD_T, W1, (0, 1, 3, 3)) == 0.0
    # nobody reaches 40: the next hand's grid at the final score (team 0: 10 + 1 + 1, team 1: 20 + 3)
    assert _end(10, 20, "grande", PASO_T, W0, (0, 1, -3, 0)) == pytest.approx(0.5 + (12 - 23) / 100)


def test_edge_chica_comes_after_grande():
    # 39-39: grande's stone is counted before chica's, so an en-paso chica never decides
    assert _end(39, 39, "chica", PASO_T, W0, (-1, 0, 0, 0)) == 0.0
    assert _end(39, 39, "chica", PASO_T, W1, (1, 0, 0, 0)) == 1.0
    assert _end(39, 39, "chica", _acc(5), W0, (-1, 0, 0, 0)) == 0.0
    # but a refused chica bet gives its deje at once, before the count
    assert _end(39, 39, "chica", _ref(0, 1), W1, (-1, 0, 0, 0)) == 1.0
    assert _end(39, 38, "chica", _ref(1, 2), W0, (1, 0, 0, 0)) == 0.0
    # 38-39: grande to team 0 (39-39), then chica decides
    assert _end(38, 39, "chica", PASO_T, W0, (1, 0, 0, 0)) == 1.0
    assert _end(38, 39, "chica", PASO_T, W1, (1, 0, 0, 0)) == 0.0
    assert _end(39, 39, "chica", ORD_T, W0, (-1, 0, 0, 0)) == 1.0


def test_edge_pares_values_at_their_place():
    # 38-38, grande to team 0 (39-38), chica to team 1 (39-39): pares decides
    r = (1, -1, 0, 0)
    assert _end(38, 38, "pares", PASO_T, outcome_code(1, 2, 1), r) == 1.0   # team 0's medias: 2
    assert _end(38, 38, "pares", PASO_T, outcome_code(0, 3, 1), r) == 0.0   # team 1's par: 1
    # 38-39: chica to team 1 ends it before pares, whatever pares holds
    assert _end(38, 39, "pares", _acc(5), outcome_code(1, 6, 1), (1, -1, 0, 0)) == 0.0
    # a refused bet of team 1 with a deje of 2 ends it at once (38 + 2), before grande's count
    assert _end(38, 38, "pares", _ref(1, 2), outcome_code(1, 3, 1), (1, 1, 0, 0)) == 0.0
    # a refused bet of team 0, deje 1 (39-38); grande to team 1 (39-39); chica to team 0: 40
    assert _end(38, 38, "pares", _ref(0, 1), outcome_code(0, 1, 3), (-1, 1, 0, 0)) == 1.0
    # ... chica to team 1 instead: 39-40 before pares is counted
    assert _end(38, 38, "pares", _ref(0, 1), outcome_code(0, 1, 3), (-1, -1, 0, 0)) == 0.0
    # the refusing team forfeits pares: team 0, which bet and was refused, collects its own 1 at
    # the count though team 1's pares are better (35 + 1 deje, + 1 grande, + 1 chica, + 1 value = 39)
    assert _end(35, 30, "pares", _ref(0, 1), outcome_code(0, 1, 3), (1, 1, 0, 0)) == pytest.approx(
        0.5 + (39 - 30) / 100)
    # pares before juego: 37-36, grande +1, chica -1, pares to team 0 (3): 41-37
    assert _end(37, 36, "pares", PASO_T, outcome_code(1, 3, 2), (1, -1, 0, -6)) == 1.0


def test_edge_juego_after_pares():
    # 37-36: grande +1 (38-36), chica -1 (38-37), pares -2 (38-39); juego decides
    r = (1, -1, -2, 0)
    assert _end(37, 36, "juego", PASO_T, outcome_code(1, 2, 2), r) == 1.0       # team 0's 2
    assert _end(37, 36, "juego", PASO_T, outcome_code(0, 3, 2), r) == 0.0       # team 1's 2: 41
    assert _end(37, 36, "juego", _acc(2), outcome_code(1, 2, 6), r) == 1.0
    # 39-38: grande to team 0 first, though team 1 wins the accepted juego bet
    assert _end(39, 38, "juego", _acc(2), outcome_code(0, 3, 2), (1, -1, 0, 0)) == 1.0
    # 39-38: grande to team 1 (39-39), chica to team 1 (39-40)
    assert _end(39, 38, "juego", _acc(2), outcome_code(1, 3, 2), (-1, -1, 0, 0)) == 0.0
    # a refused juego bet: the deje at once
    assert _end(38, 39, "juego", _ref(1, 1), outcome_code(1, 3, 2), (1, 1, 3, 0)) == 0.0
    assert _end(39, 39, "juego", ORD_T, outcome_code(1, 2, 3), (-1, -1, -3, 0)) == 1.0


def test_edge_punto_last():
    # 38-38: grande +1 (39-38), chica -1 (39-39), no pares; punto en paso decides (1 stone)
    r = (1, -1, 0, 0)
    assert _end(38, 38, "punto", PASO_T, outcome_code(1, 0, 0), r) == 1.0
    assert _end(38, 38, "punto", PASO_T, outcome_code(0, 0, 0), r) == 0.0
    # an accepted 2 at punto: 2 + 1 to the best hand's team
    assert _end(30, 37, "punto", _acc(2), outcome_code(0, 0, 0)) == 0.0      # 37 + 3
    assert _end(30, 35, "punto", _acc(2), outcome_code(0, 0, 0)) == pytest.approx(0.5 + (30 - 38) / 100)
    # refused by team 1's side: team 1 takes 1 at once (38-39 -> 38-40)
    assert _end(38, 39, "punto", _ref(1, 1), outcome_code(1, 0, 0), (1, 1, 0, 0)) == 0.0
    # refused by team 0's side (37-38): the deje (38-38), grande to team 1 (38-39), chica to team 0
    # (39-39), then the bettors' 1 more at punto's count: 40
    assert _end(37, 38, "punto", _ref(0, 1), outcome_code(0, 0, 0), (-1, 1, 0, 0)) == 1.0


def test_game_payoff_averages_the_other_lances_per_outcome():
    # chica at 39-39 en paso is decided by grande: the payoff of team 0 holding the best chica is
    # the share of its deals where team 0 also takes grande (3 of 4 here); an outcome code with
    # no rows gets the other lances as nothing (the chica stone itself decides)
    g = _toy_grid()
    tree = betting_tree("chica", ALL_SEATS)
    rest = RestOfHand("chica", [W0, W0], [[1, 0, 0, 0], [-1, 0, 0, 0]], [3.0, 1.0], "by hand")
    U = GamePayoff(39, 39, Variant(), grid=g, rest=rest).p_win_table(tree)
    assert U[_row(tree, PASO), W0] == pytest.approx(0.75)
    assert U[_row(tree, PASO), W1] == 0.0
    assert U[_row(tree, REFUSED, by=0, deje=1), W0] == 1.0  # the deje at once
    assert U[_row(tree, ORDAGO), W0] == 1.0
    # from samples: identical rows are merged with their counts
    r2 = RestOfHand.from_samples("chica", [W0, W0, W0, W0], [[1, 0, 0, 0]] * 3 + [[-1, 0, 0, 0]], "by hand")
    assert len(r2.o) == 2 and sorted(r2.weight) == [1.0, 3.0] and r2.key == RestOfHand(
        "chica", r2.o, r2.stones, r2.weight, "by hand").key
    U2 = GamePayoff(39, 39, Variant(), grid=g, rest=r2).p_win_table(tree)
    np.testing.assert_allclose(U2, U)
    # the rest enters the key; a rest of another lance is refused
    assert GamePayoff(39, 39, Variant(), grid=g, rest=rest).key != GamePayoff(39, 39, Variant(), grid=g).key
    with pytest.raises(MusError, match="grande"):
        GamePayoff(0, 0, Variant(), grid=g, rest=RestOfHand("grande", [W0], [[0, 0, 0, 0]], [1.0])).p_win_table(tree)


def test_refusing_their_ordago_at_12_39_loses_the_game():
    # they need one stone: a refusal gives them the deje, and the game, whatever the hands
    g = _toy_grid()
    tree = betting_tree("grande", ALL_SEATS)
    U = GamePayoff(12, 39, Variant(), grid=g).p_win_table(tree)
    for i, t in enumerate(tree.terminals):
        if t.kind == REFUSED and t.by == 1:
            assert (U[i] == 0.0).all()


def test_refusing_at_12_39_is_the_teams_refusal():
    """C S 6 5 at third, grande, 12-39: second's órdago is answered by third, then mano; the
    team's refusal (both) gives them the deje and the game: P(win the game) 0."""
    from musstats.analysis.ordago import ordago

    doc = ordago("C S 6 5", "third", lance="grande", score="12-39", eval_samples=EVAL).to_dict()
    a = doc["equilibrium"]["answer"]
    assert a["history"] == ["paso", "órdago"] and a["partners_after"] == ["mano"]
    assert a["p_win_game_if_refuse"] == 0.0
    assert "(your partner refusing too)" in doc["advice"]
    _consistent(doc)


def test_next_hand_grid_is_the_game_model_with_the_other_team_mano():
    from musstats.analysis.game import game_model
    from musstats.analysis.ordago_eq import next_hand_grid

    v = Variant()
    m = game_model(v, betting=True)  # 8 reyes: the model with equilibrium betting ships
    gp = GamePayoff(2, 3, v, grid=next_hand_grid(v))
    # the next hand's mano is team 1: P(team 0 wins) with "them" mano
    assert np.array_equal(gp.next_grid(), m.grid("them"))
    assert gp.value_after(+1) == pytest.approx(m.p_win(3, 3, "them"))
    assert gp.value_after(-2) == pytest.approx(m.p_win(2, 5, "them"))


# ---------------------------------------------------------------------------
# nodes


def test_call_and_answer_nodes_grande():
    from musstats.analysis.ordago_eq import answer_node, call_node

    tree = betting_tree("grande", ALL_SEATS)
    h = lambda n: ",".join(tree.nodes[n].history)  # noqa: E731
    assert [h(call_node(tree, q)) for q in range(4)] == ["", "paso", "paso,paso", "paso,paso,paso"]
    assert [h(answer_node(tree, q)) for q in range(4)] == ["paso,paso,paso,órdago", "órdago", "paso,órdago",
                                                           "paso,paso,órdago"]
    # pares with only mano and second declared: each answers the other's opening órdago
    t2 = betting_tree("pares", 0b0011)
    assert ",".join(t2.nodes[answer_node(t2, 0)].history) == "paso,órdago"
    assert ",".join(t2.nodes[answer_node(t2, 1)].history) == "órdago"


# ---------------------------------------------------------------------------
# the figures and the sanity a player checks


@pytest.fixture(scope="module")
def rc54(tmp_path_factory):
    from musstats.analysis.ordago import ordago

    # a module fixture runs before the autouse cache fixture: keep its solve out of the user's cache too
    mp = pytest.MonkeyPatch()
    mp.setenv("MUSSTATS_CACHE", str(tmp_path_factory.getbasetemp() / "musstats-cache"))
    try:
        # the default solve: warm-started from the shipped anchor nearest to 0-0
        return ordago("R C 5 4", "postre", lance="grande", score="0-0").to_dict()
    finally:
        mp.undo()


def test_rc54_postre_neither_calls_nor_accepts_at_0_0(rc54):
    eq = rc54["equilibrium"]
    c, a = eq["call"], eq["answer"]
    assert c["history"] == ["paso", "paso", "paso"] and a["history"] == ["paso", "paso", "órdago"]
    assert c["p_call"] < 0.5 and c["decision"] == "pass"
    assert a["p_accept"] < 0.5 and a["decision"] == "refuse"
    # the answer at the top level is the equilibrium's (the default method)
    assert rc54["method"] == "equilibrium"
    assert rc54["call"] is False and rc54["accept"] is False
    assert rc54["recommended"] == {"call": "pass", "answer": "refuse"}
    assert rc54["advice"].startswith("Equilibrium: pass") and "refuse" in rc54["advice"]
    # against the callers' range R C 5 4 wins grande far less often than against random hands
    assert a["p_win_lance_if_called"] < rc54["random_hands"]["p_lance"] - 0.1


def _consistent(doc):
    """The answer names the action with the higher P(win the game) of those it shows."""
    c, a = doc["equilibrium"]["call"], doc["equilibrium"]["answer"]
    if c:
        assert (c["p_win_game_if_call"] > c["p_win_game_if_pass"]) == (c["decision"] == "call") == doc["call"]
        assert c["call_minus_pass"] == pytest.approx(c["p_win_game_if_call"] - c["p_win_game_if_pass"], abs=2e-5)
    if a:
        assert (a["p_win_game_if_accept"] > a["p_win_game_if_refuse"]) == (a["decision"] == "accept") \
            == doc["accept"]
    for part, best, other in ((c, "calling", "passing"), (a, "accepting", "refusing")):
        if part:  # the advice names the best action's figure first
            txt = doc["advice"]
            i, j = txt.find(best), txt.find(other)
            assert i >= 0 and j >= 0
            first = best if part["decision"] in ("call", "accept") else other
            assert txt.find(first) == min(i, j), txt


def test_the_answer_is_consistent_with_its_figures(rc54):
    _consistent(rc54)


def test_figures_are_probabilities(rc54):
    eq = rc54["equilibrium"]
    for part in (eq["call"], eq["answer"]):
        for k, x in part.items():
            if k.startswith("p_") and not k.endswith("_se") and x is not None:
                assert 0.0 <= x <= 1.0, k
        assert abs(sum(x["p"] for x in part["actions"].values()) - 1) < 0.01
    nc = eq["nashconv"]
    # the lower bound is an estimate: near 0 it may come out a little below, within its error
    assert nc["units"] == "P(win the game)" and -3 * nc["nashconv_se"] <= nc["nashconv"] < 0.01
    assert 0.3 < nc["value_team0"] < 0.7
    assert eq["score_team0"] == 0 and eq["score_team1"] == 0
    # the random-hands figures are kept, labelled
    rh = rc54["random_hands"]
    assert 0 < rh["p_lance"] < 1 and "random" in rh["what"] and isinstance(rh["call"], bool)
    # the solve is the one of the default game model (shared with the chart and later runs: one key),
    # warm-started from the shipped anchor nearest to 0-0
    from musstats.analysis.ordago_eq import score_solution
    from musstats.engines.solving.store import MEMO

    sol = score_solution("grande", ALL_SEATS, Variant(), 0, 0)
    assert "custom" not in sol.spec.payoff.key and sol.spec.key in MEMO
    assert sol.spec.warm.startswith("score 5-5 (shipped)") and eq["warm_start"] == sol.spec.warm


@pytest.mark.slow
def test_calling_range_widens_when_far_behind():
    """Postre at 0-0 and at 0-35 against his team (mano's team first: 35-0): the hands whose
    órdago frequency at his first turn is above 1/2 (measured at 100 iterations: 21 -> 308)."""
    from musstats.analysis.ordago import ordago, pushfold

    base = pushfold(lance="grande", score="0-0", iterations=IT, eval_samples=EVAL)
    behind = pushfold(lance="grande", score="35-0", iterations=IT, eval_samples=EVAL)

    def calls(df, seat):
        d = df[df["seat"] == seat]
        return int((d["p_call"] > 0.5).sum())

    n0, n35 = calls(base, "postre"), calls(behind, "postre")
    assert n35 >= n0 + 100, (n0, n35)
    # mano far behind (0-35): his team calls far more often too (mano and third mix)
    behind_mano = pushfold(lance="grande", score="0-35", iterations=IT, eval_samples=EVAL)
    for seat in ("mano", "third"):
        m0 = base[base["seat"] == seat]["p_call"].mean()
        m35 = behind_mano[behind_mano["seat"] == seat]["p_call"].mean()
        assert m35 > m0 + 0.1, (seat, m0, m35)
    # and R C 5 4 at postre, told not to call at 0-0, calls at 0-35 (it is at the edge of the range
    # there: an equilibrium mixes where calling and passing are worth the same)
    res = ordago("R C 5 4", "postre", lance="grande", score="0-35", equilibrium=True, iterations=IT,
                 eval_samples=EVAL).to_dict()
    assert res["equilibrium"]["score_team0"] == 35 and res["equilibrium"]["score_team1"] == 0
    c = res["equilibrium"]["call"]
    at_0_0 = ordago("R C 5 4", "postre", lance="grande", score="0-0", equilibrium=True, iterations=IT,
                    eval_samples=EVAL).to_dict()["equilibrium"]["call"]
    assert at_0_0["decision"] == "pass" and not at_0_0["mixed"], at_0_0  # told not to call, not a mix
    assert at_0_0["call_minus_pass"] < -3 * at_0_0["call_minus_pass_se"], at_0_0
    assert c["p_call"] > 0.1 and c["p_win_game_if_call"] >= c["p_win_game_if_pass"] - 0.002, c


def test_after_mus_rc54_postre_neither_calls_nor_accepts_at_0_0():
    """The órdago after the mus (the deal solver on after-mus deals): the same sanity as for
    the hands as dealt, its own solve (not the as-dealt one), and it says what it solved."""
    from musstats.analysis.ordago import ordago
    from musstats.analysis.ordago_eq import score_spec

    res = ordago("R C 5 4", "postre", lance="grande", score="0-0", equilibrium=True, iterations=IT_AFTER_MUS,
                 eval_samples=EVAL_AFTER_MUS, deal="after-mus").to_dict()
    eq = res["equilibrium"]
    assert eq["deal"] == "after-mus" and eq["iterations"] == IT_AFTER_MUS
    c, a = eq["call"], eq["answer"]
    assert c["history"] == ["paso", "paso", "paso"] and a["history"] == ["paso", "paso", "órdago"]
    assert c["decision"] == "pass" and a["decision"] == "refuse"
    # after a round the others hold stronger grande hands still: R C 5 4 wins it against far fewer
    assert a["p_win_lance_if_called"] < res["random_hands"]["p_lance"] - 0.1
    for part in (c, a):
        for k, x in part.items():
            if k.startswith("p_") and not k.endswith("_se") and x is not None:
                assert 0.0 <= x <= 1.0, k
    nc = eq["nashconv"]
    assert nc["samples"] == EVAL_AFTER_MUS and nc["nashconv"] <= nc["nashconv_in"] and nc["nashconv_in"] < 0.05
    assert any("after one mus round" in x for x in res["approximations"])
    assert "after the mus" in eq["method"] or "after-mus" in eq["method"]
    sp = score_spec("grande", ALL_SEATS, Variant(), 0, 0, iterations=IT_AFTER_MUS, deal="after-mus")
    assert sp.solver == "deals" and sp.key != score_spec("grande", ALL_SEATS, Variant(), 0, 0,
                                                          iterations=IT_AFTER_MUS).key


# ---------------------------------------------------------------------------
# CLI


def test_cli_json_and_csv(capsys, rc54):
    args = ["ordago", "R", "C", "5", "4", "--seat", "postre", "--lance", "grande", "--score", "0-0"]
    code, out, err = _run(capsys, args + ["--format", "json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["equilibrium"]["call"]["p_call"] == rc54["equilibrium"]["call"]["p_call"]
    # the contract: call / accept / recommended / advice = the equilibrium answer; the comparison apart
    assert doc["method"] == "equilibrium" and doc["call"] is False and doc["accept"] is False
    assert doc["recommended"] == {"call": "pass", "answer": "refuse"} and doc["advice"] == rc54["advice"]
    assert {"p_lance", "p_game", "call", "accept", "advice", "break_even"} <= set(doc["random_hands"])
    assert "p_lance" not in doc and "eq_call" not in doc
    code, out, err = _run(capsys, args + ["--format", "csv"])
    assert code == 0, err
    body = [ln for ln in out.splitlines() if not ln.startswith("#")]
    head = body[0].split(",")
    assert len(body) == 2 and head[:6] == ["lance", "score_us", "score_them", "method", "call", "accept"]
    row = dict(zip(head, body[1].split(",")))
    assert row["method"] == "equilibrium" and row["call"] == "False" and row["accept"] == "False"
    assert "p_they_accept" in head and "random_hands_p_lance" in head and "random_hands_call" in head
    code, out, err = _run(capsys, args)
    assert code == 0, err
    assert "random hands (comparison)" in out and "equilibrium (the answer)" in out
    assert "P(they accept our órdago)" in out and "NashConv" in out
    lines = out.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("Equilibrium: pass"))
    assert lines[i + 1].startswith("Random hands (comparison):")


@pytest.mark.parametrize("args, fragment", [
    (["--chart", "--lance", "grande", "--score", "0-0"], "--chart needs --out"),
    (["R", "C", "5", "4", "--chart", "--lance", "grande", "--score", "0-0", "--out", "x.png"], "give no CARDS"),
    (["--chart", "--seat", "mano", "--lance", "grande", "--score", "0-0", "--out", "x.png"], "give no --seat"),
    (["--chart", "--lance", "grande", "--score", "0-0", "--out", "/no/such/dir/x.png"], "does not exist"),
    (["--chart", "--lance", "grande", "--score", "0-0", "--out", "x.txt"], "unknown image type"),
    (["--chart", "--lance", "grande", "--score", "0-40", "--out", "x.png"], "0..39"),
    (["--chart", "--lance", "bogus", "--score", "0-0", "--out", "x.png"], "unknown lance"),
    (["--chart", "--lance", "grande", "--score", "0-0", "--out", "x.png", "--variant", "ten-kings"], "ten kings"),
    (["--chart", "--lance", "pares", "--score", "0-0", "--out", "x.png", "--declared",
      "mano:no-pares,third:no-pares"], "no betting on pares"),
    (["R", "C", "5", "4", "--lance", "grande", "--score", "0-0", "--out", "x.png"], "--out goes with --chart"),
    (["R", "C", "5", "4", "--lance", "grande", "--score", "0-0", "--iterations", "0"], "--iterations"),
    (["R", "C", "5", "4", "--lance", "grande", "--score", "0-0", "--iterations", "x"], "--iterations"),
    (["R", "C", "5", "4", "--lance", "grande", "--score", "0-0", "--deal", "after"], "--deal"),
])
def test_cli_bad_input(capsys, args, fragment):
    assert_exit2_one_line(capsys, ["ordago", *args], fragment)


def test_cli_chart_written(capsys, tmp_path):
    out = tmp_path / "pf.png"
    code, so, err = _run(capsys, ["ordago", "--chart", "--lance", "grande", "--score", "0-0", "--out", str(out)])
    assert code == 0, err
    assert out.exists() and out.stat().st_size > 10_000
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "wrote" in so and "NashConv" in so
    assert not [p for p in tmp_path.iterdir() if p.name != "pf.png"]  # no temporary left behind


def test_pushfold_frame_shape():
    from musstats.analysis.ordago import pushfold

    df = pushfold(lance="grande", score="0-0")
    assert set(df["seat"]) == {"mano", "second", "third", "postre"}
    assert len(df) == 4 * 330
    assert df["p_call"].between(0, 1).all() and df["p_accept"].between(0, 1).all()
    assert df.attrs["score"]["us"] == 0 and df.attrs["answer_node"]["second"] == "órdago"
    # R R R R at mano: mano always wins grande ties, so it accepts any órdago
    from musstats.tables.hands import hand_tables

    h = hand_tables(Variant()).index_of(__import__("musstats.rules.cards", fromlist=["parse_hand"]).parse_hand("R R R R"))
    row = df[(df["seat"] == "mano") & (df["hand_index"] == h)].iloc[0]
    assert row["p_accept"] > 0.95


# ---------------------------------------------------------------------------
# push/fold with P(win the game) payoffs: a toy game solved by hand


def test_toy_push_fold_in_game_win_probability_by_hand():
    """Team 0, ahead, holds the best hand of the lance (state 0) or the worst (state 1),
    each with probability 1/2; team 1 holds one class.  Team 0 passes or calls an órdago;
    team 1 refuses or accepts.  P(team 0 wins the game): en paso 0.9 with the best hand
    (its stone) and 0.8 with the worst; refused 0.9 (the deje); accepted 1 or 0.

    By hand: the best hand always calls (1 or 0.9 against 0.9).  Team 1 accepts with y
    making the worst hand indifferent: 0.8 = 0.9 (1 - y), y = 1/9.  The worst hand calls
    with x making team 1 indifferent: 0.9 = P(best | called) = 1 / (1 + x), x = 1/9.
    Value: (1/2)(0.9 (8/9) + 1/9) + (1/2)(0.8) = 77/90."""
    from musstats.engines.solving.cfr import SolveConfig, solve
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.exploit import measure
    from musstats.engines.solving.game import make_custom_game

    tree = dict(is_term=[0, 1, 0, 1, 1], first=[1, -1, 3, -1, -1], n_act=[2, 0, 2, 0, 0],
                term=[-1, 0, -1, 1, 2], owner=[0, -1, 1, -1, -1])
    p_win = np.array([[0.8, 0.9], [0.9, 0.9], [0.0, 1.0]])  # paso, refused, accepted; column 1 = best
    g = make_custom_game(tree, p_win - 0.5, [0, 1], [2, 1])  # centred, as GamePayoff.table
    data = (np.array([[0, 0], [1, 0]], np.int32), np.array([1, 0], np.int32), np.array([0.5, 0.5]))
    gaps = []
    for it in (200, 4000):
        s = solve(DealGame(g, data), SolveConfig.preset("dcfr-simultaneous", it))
        e = measure(DealGame(g, data), s.sigma, team=False)
        gaps.append(e.nashconv)
    assert e.exact and gaps[1] < gaps[0] and gaps[1] < 2e-3  # the bounds close in
    assert e.value + 0.5 == pytest.approx(77 / 90, abs=2e-3)
    assert g.strategy_at(s.sigma, 0, 0)[1] > 0.99                      # the best hand calls
    assert g.strategy_at(s.sigma, 0, 1)[1] == pytest.approx(1 / 9, abs=0.02)  # the bluff
    assert g.strategy_at(s.sigma, 2, 0)[1] == pytest.approx(1 / 9, abs=0.02)  # the accept


# ---------------------------------------------------------------------------
# warm starts (a score not solved before goes on from a neighbour's solve)


def test_ordago_solves_warm_from_a_neighbouring_score(monkeypatch, tmp_path):
    from dataclasses import replace

    from musstats.analysis import ordago_eq as E
    from musstats.engines.betting.vector import vector_game
    from musstats.engines.solving import store
    from musstats.engines.solving.cfr import SolveConfig, solve
    from musstats.engines.solving.exploit import nashconv

    monkeypatch.setenv("MUSSTATS_CACHE", str(tmp_path))
    monkeypatch.setattr(E, "DEFAULT_EQ_ITERATIONS", 60)
    monkeypatch.setattr(E, "WARM_ITERATIONS", 15)
    monkeypatch.setattr(E, "_STATE_MEMO", {})
    monkeypatch.setattr(E, "_anchor_arrays", lambda variant: None)  # no shipped anchors here
    v, g, P = Variant(), _toy_grid(), 3
    s0 = E.score_solution("pares", P, v, 10, 10, grid=g)
    assert s0.spec.warm == "" and s0.iterations == 60  # nothing to start from: cold
    s1 = E.score_solution("pares", P, v, 12, 11, grid=g)
    assert s1.spec.warm == "score 10-10 after 60 iterations" and s1.iterations == 15
    assert s1.exploit["deals"] == E.DEFAULT_EQ_EVAL
    # exactly the solve that goes on from the neighbour's regrets (its strategy sums start
    # afresh) with the new payoff
    vg = vector_game(s1.game, v, P).configure(batch=s1.spec.batch, seed=s1.spec.seed, n_eval=E.DEFAULT_EQ_EVAL)
    st = E.warm_state(s1.spec, s0.state.R, s0.state.t)
    assert not st.S.any() and st.t == 60
    np.testing.assert_allclose(st.sig, vg.layout.normalise(np.maximum(s0.state.R, 0)))
    want = solve(vg, SolveConfig(iterations=15), start=st)
    np.testing.assert_array_equal(s1.sigma, want.sigma)
    # and it is closer to equilibrium than as many iterations from scratch
    cold = solve(vg, SolveConfig(iterations=15))
    e_cold = nashconv(vg, vg.layout.from_game(cold.sigma))
    assert s1.exploit["nashconv_in"] < e_cold.nashconv_in
    # far from every solved score (more than WARM_NEAR points): cold again
    assert E.score_solution("pares", P, v, 30, 30, grid=g).spec.warm == ""
    # given iterations: always cold (reproducible whatever was solved before)
    assert E.score_solution("pares", P, v, 13, 11, grid=g, iterations=15, eval_samples=1_000).spec.warm == ""
    # asked again, from the disk cache: the same warm solve
    monkeypatch.setattr(E, "_STATE_MEMO", {})
    monkeypatch.setattr(store, "MEMO", {})
    again = E.score_solution("pares", P, v, 12, 11, grid=g)
    assert again.source == "cache" and again.spec.warm == s1.spec.warm
    np.testing.assert_allclose(again.sigma, s1.sigma, atol=0.01)  # stored as uint8, rows renormalised
    assert E.pushfold_frame(again, v, "pares", P, 12, 11).attrs["warm_start"] == s1.spec.warm
    assert replace(s1.spec, warm="").key != s1.spec.key  # a warm solve is never the cold one


def test_kept_solver_states_are_bounded(monkeypatch, tmp_path):
    # each solve keeps its regrets for warm starts (about 0.2 MB): only the most recent
    # MAX_KEPT_STATES of a lance and pattern stay, in memory and on disk
    from musstats.analysis import ordago_eq as E

    monkeypatch.setenv("MUSSTATS_CACHE", str(tmp_path))
    monkeypatch.setattr(E, "DEFAULT_EQ_ITERATIONS", 8)
    monkeypatch.setattr(E, "WARM_ITERATIONS", 4)
    monkeypatch.setattr(E, "MAX_KEPT_STATES", 2)
    monkeypatch.setattr(E, "_STATE_MEMO", {})
    monkeypatch.setattr(E, "_anchor_arrays", lambda variant: None)  # no shipped anchors here
    v, g, P = Variant(), _toy_grid(), 3
    for a, b in ((0, 0), (20, 20), (39, 0)):  # far apart: three cold solves, each kept
        E.score_solution("pares", P, v, a, b, grid=g, eval_samples=200)
    fam = E._family("pares", P, v, E.DEFAULT_EQ_SEED, g)
    on_disk = sorted(p.name for p in tmp_path.rglob("eqstate-*"))
    assert len(on_disk) == 2 and not any(n.endswith("-0-0.npz") for n in on_disk)
    assert list(E._STATE_MEMO[fam]) == [(20, 20), (39, 0)]
    monkeypatch.setattr(E, "_STATE_MEMO", {})
    assert E._kept(fam, 0, 0) is None and E._kept(fam, 39, 0) is not None


def test_shipped_anchors_cover_every_score_and_fit_their_games():
    """8 reyes to 40 ships warm starts for every subgame: each score is at most 10 points from
    an anchor of the subgames a question without declarations solves (14 for the others),
    every anchor's regrets have its game's shape, and every anchor was measured close to
    equilibrium when it was built."""
    import json

    from musstats.analysis import ordago_eq as E
    from musstats.engines.betting.deals import SUBGAMES
    from musstats.engines.betting.solve import solver_game

    v = Variant()
    z = E._anchor_arrays(v)
    assert z is not None, "musstats/data/ordago_anchors_8-reyes_off.npz is missing"
    meta = json.loads(bytes(z["meta"]).decode())["anchors"]
    for lance, pat in SUBGAMES:
        scores = E.anchor_scores(lance, pat)
        worst = max(min(abs(a - x) + abs(b - y) for x, y in scores) for a in range(40) for b in range(40))
        assert worst <= (10 if pat == ALL_SEATS else 14), (lance, pat, worst)
        lay = solver_game(E.score_spec(lance, pat, v, 0, 0)).layout
        for a, b in scores:
            R, t = E.shipped_anchor(lance, pat, v, a, b)
            assert R.shape == (lay.n_rows, lay.MS) and np.isfinite(R).all() and t >= E.ANCHOR_ITERATIONS
            assert meta[f"{lance}-{pat}-{a}-{b}"]["nashconv_in"] < 0.01, (lance, pat, a, b)
    # no anchors for other rules
    assert E.shipped_anchor("grande", ALL_SEATS, make_variant("4-reyes"), 5, 5) is None
    assert E.shipped_anchor("grande", ALL_SEATS, make_variant("8-reyes", target=30), 5, 5) is None


def test_a_new_score_warm_starts_from_a_shipped_anchor(monkeypatch, tmp_path):
    """Nothing solved in this process or on disk: a score goes on from the regrets of the
    nearest shipped anchor, and lands close to equilibrium."""
    from musstats.analysis import ordago_eq as E

    monkeypatch.setenv("MUSSTATS_CACHE", str(tmp_path))
    monkeypatch.setattr(E, "_STATE_MEMO", {})
    v = Variant()
    s = E.score_solution("grande", ALL_SEATS, v, 17, 23, eval_samples=EVAL)
    # the nearest anchor to 17-23 is 15-25 (4 points; 15-15 and 25-25 are 10 away)
    assert s.spec.warm.startswith("score 15-25 (shipped) after ") and s.iterations == E.warm_iterations(4) == 18
    assert s.exploit["nashconv_in"] < 0.01
    # a score at an anchor goes on from the anchor itself, with the fewest iterations
    s2 = E.score_solution("grande", ALL_SEATS, v, 36, 39, eval_samples=EVAL)
    assert s2.spec.warm.startswith("score 36-39 (shipped)") and s2.iterations == E.WARM_MIN_ITERATIONS
    # the farther the start, the more iterations (two per point), up to WARM_ITERATIONS
    assert [E.warm_iterations(d) for d in (0, 1, 3, 9, 10, 30)] == [10, 12, 16, 28, 30, 30]


def test_a_player_without_the_lance_has_no_say(capsys):
    """7 6 5 4 holds no pares: at pares its team's answer is its partner's; the answer says so,
    with no call or accept of its own (and nothing is solved)."""
    from musstats.analysis.ordago import ordago

    doc = ordago("7 6 5 4", "postre", lance="pares", score="10-10").to_dict()
    assert doc["method"] == "equilibrium" and doc["call"] is None and doc["accept"] is None
    assert doc["recommended"] == {"call": None, "answer": None}
    assert doc["advice"].startswith("Equilibrium: you have no say in pares")
    assert doc["equilibrium"]["nashconv"] is None  # nothing solved
    code, out, err = _run(capsys, ["ordago", "7", "6", "5", "4", "--seat", "postre", "--lance", "pares",
                                   "--score", "10-10"])
    assert code == 0, err
    assert "you have no say in pares" in out and "Random hands (comparison):" in out


def test_anchor_regrets_ship_rounded_to_three_mantissa_bits():
    """A shipped anchor's regret keeps 3 bits of mantissa: 1.03 -> 1 and 1.07 -> 1.125 (the
    steps of 1/8 between 1 and 2), -3.3 -> -3.25 (steps of 1/4 between 2 and 4), 0 stays 0;
    any regret of float16's normal range lands within 1/16 of itself (the smaller ones within
    2**-18), and the shipped file holds them so."""
    from musstats.analysis import ordago_eq as E

    got = E.coarse_regrets(np.array([1.03, 1.07, -3.3, 0.0, 0.01]))
    assert got.dtype == np.float16
    assert got[:4].tolist() == [1.0, 1.125, -3.25, 0.0]
    assert abs(float(got[4]) - 0.01) <= 0.01 / 16
    x = np.random.default_rng(5).normal(0.0, 0.3, 10_000).astype(np.float16).astype(np.float64)
    y = E.coarse_regrets(x).astype(np.float64)
    normal = np.abs(x) >= 2.0 ** -14  # float16's normal numbers; below, steps of 2**-17
    assert (np.abs(y - x)[normal] <= np.abs(x)[normal] / 16).all()
    assert (np.abs(y - x)[~normal] <= 2.0 ** -18).all()
    R, _ = E.shipped_anchor("grande", ALL_SEATS, Variant(), 15, 25)
    assert (E.coarse_regrets(R) == R.astype(np.float16)).all()
