"""Regional variants: ten kings, the 4-5-6-7 redeal, mus visto."""

from __future__ import annotations

import json

import numpy as np
import pytest

import naive as ref
from helpers import assert_exit2_one_line, run_cli
from musstats import MusError, Variant
from musstats.analysis.odds import odds
from musstats.engines.exact import exact_table
from musstats.engines.musphase import deals_as_dealt, deck_ids
from musstats.rules.cards import parse_hand
from musstats.rules.variant import make_variant
from musstats.tables.context import make_context
from musstats.tables.hands import hand_tables
from musstats.tables.jokers import joker_tables
from musstats.tables.kernel import lance_table
from musstats.tables.policies import KEEP_ALL, visto_policy

TK = make_variant("ten-kings")
PLAIN = Variant()


def _options(hand: str) -> list[str]:
    t, jt, p = hand_tables(TK), joker_tables(TK), hand_tables(PLAIN)
    h = t.index_of(parse_hand(hand))
    return [p.labels[b] for b in jt.base[h, : jt.n_options[h]]]


def test_three_reyes_and_a_joker_score_duples_or_31():
    p = hand_tables(PLAIN)
    as_rey, as_as = _options("R R R S/o")
    # as a rey: R R R R, four of a kind = duples; as an as: R R R A = 31 (and medias)
    assert p.pares_cat[p.labels.index(as_rey)] == 3
    assert p.points[p.labels.index(as_as)] == 31
    assert len(_options("S/c S/o 7 4")) == 3  # two jokers: RR, RA, AA
    assert len(_options("R R R S/e")) == 1  # the sota de espadas is a plain sota


def test_chosen_identity_is_the_one_hand_calculation_prefers():
    # Mano R R R J; second 4 4 5 6; third 7 6 5 A; postre C C 7 4 (31).
    # J as R (R R R R, 40): grande +1 (mano), chica +1 (third's A-5-6-7), pares +3 (mano's
    #   duples beat the two pars), juego -3 (postre's 31 beats 40): total +2.
    # J as A (R R R A, 31): grande +1, chica +1 (third: A-5 beats mano's A-R), pares +2
    #   (medias), juego +3 (mano's 31 wins the tie with postre's 31): total +7.  So: as.
    from musstats._kernels.jokers import fix_jokers, work_arrays
    from musstats.rules.seats import team_array

    t, jt = hand_tables(TK), joker_tables(TK)
    hands = ["R R R S/o", "4 4 5 6", "7 6 5 A", "C C 7 4"]
    hs = np.array([t.index_of(parse_hand(h)) for h in hands], np.int64)
    out = np.empty(4, np.int64)
    fix_jokers(hs, jt.n_options, jt.base, team_array(4), lance_table(TK), -1, 0, out, work_arrays())
    assert hand_tables(PLAIN).labels[out[0]] == "R R R A"
    # Swap third and postre: mano R R R J; second 4 4 5 6; third C C 7 4 (31); postre 7 6 5 A.
    # J as R: grande +1, chica: postre A-5-6-7 wins (-1), pares: duples 3 + third's par 1 = +4,
    #   juego: third's 31 beats mano's 40, team scores 3 + 2 = +5: total +9.
    # J as A: grande +1, chica -1, pares: medias 2 + par 1 = +3, juego: mano's 31 wins, 3 + 3 = +6:
    #   total +9 as well -> a tie keeps the first option, the rey.
    hands = ["R R R S/o", "4 4 5 6", "C C 7 4", "7 6 5 A"]
    hs = np.array([t.index_of(parse_hand(h)) for h in hands], np.int64)
    fix_jokers(hs, jt.n_options, jt.base, team_array(4), lance_table(TK), -1, 0, out, work_arrays())
    assert hand_tables(PLAIN).labels[out[0]] == "R R R R"


@pytest.mark.slow
def test_dealt_pares_and_juego_rise_with_ten_kings():
    ranks = {k[0]: k[1] for k in ref.DECK_8}
    pts = {k[0]: k[2] for k in ref.DECK_8}
    has_pares = lambda ks: ref.pares_strength([ranks[k] for k in ks]) is not None
    has_juego = lambda ks: sum(pts[k] for k in ks) >= 31
    has_31 = lambda ks: sum(pts[k] for k in ks) == 31
    # exact, from the ten-kings hand table: a hand "can hold" pares/juego if some identity gives it
    t, jt, p = hand_tables(TK), joker_tables(TK), hand_tables(PLAIN)
    can_p = np.array([any(p.pares_cat[jt.base[h, k]] > 0 for k in range(jt.n_options[h])) for h in range(t.n_hands)])
    can_j = np.array([any(p.points[jt.base[h, k]] >= 31 for k in range(jt.n_options[h])) for h in range(t.n_hands)])
    can_31 = np.array([any(p.points[jt.base[h, k]] == 31 for k in range(jt.n_options[h])) for h in range(t.n_hands)])
    exact_p = t.deal_weight[can_p].sum() / 91390
    exact_j = t.deal_weight[can_j].sum() / 91390
    exact_31 = t.deal_weight[can_31].sum() / 91390
    # plain-Python simulation of the physical deck (tests/naive.py): sotas de copas and oros are jokers
    n = 60_000
    freq = ref.ten_kings_hand_frequencies(n, 5, {"pares": has_pares, "juego": has_juego, "31": has_31})
    for name, exact in (("pares", exact_p), ("juego", exact_j), ("31", exact_31)):
        se = np.sqrt(exact * (1 - exact) / n)
        assert abs(freq[name] - exact) < 4 * se, name
    # docs/rules.md reference figures for plain 8 reyes: any pares 56.58 %, 31 9.17 %, juego 26.75 %.
    # Pares and 31 rise.  Juego itself cannot: a joker as a rey has a sota's 10 points and as
    # an as only 1, so no joker turns a hand without juego into juego.
    assert exact_p > 0.5658 + 0.05 and exact_31 > 0.0917 + 0.005
    assert round(100 * exact_j, 2) == 26.75


def test_ten_kings_without_jokers_in_play_is_plain_8_reyes():
    # with both jokers dead the game is 8 reyes with two sotas out
    r = odds("C S 5 A", "second", variant="ten-kings", dead="S/c S/o", trials=300_000, seed=3)
    assert r.method == "mc" and r.trials == 300_000
    ex = exact_table(make_context(PLAIN, "C S 5 A", "second", dead="S S"))
    ok = np.isnan(ex) | (np.abs(r.mean - ex) <= 4 * r.se + 1e-12)
    assert ok.all()


def test_redeal_no_first_dealt_4567_survives():
    t = hand_tables(PLAIN)
    h4567 = t.index_of(parse_hand("4 5 6 7"))
    # the hands as dealt (no mus round) are the first-dealt hands
    with_rule = deals_as_dealt(200_000, 1, make_variant(redeal_4567=True))
    without = deals_as_dealt(200_000, 1, PLAIN)
    assert not (with_rule == h4567).any()
    # without the rule a seat holds 4-5-6-7 with p = 4^4 / 91390
    p = 256 / 91390
    freq = (without == h4567).mean()
    assert abs(freq - p) < 4 * np.sqrt(p * (1 - p) / without.size)


def test_redeal_odds_condition_the_other_hands():
    with pytest.raises(MusError, match="4-5-6-7"):
        odds("4 5 6 7", "mano", redeal_4567=True)
    plain = odds("7 6 5 A", "mano").mean
    redeal = odds("7 6 5 A", "mano", redeal_4567=True).mean
    assert not np.allclose(plain, redeal, equal_nan=True)  # the others' hands are conditioned
    assert np.allclose(plain, redeal, atol=0.01, equal_nan=True)  # ...but barely (p ~ 1 %)


def test_mus_visto_keeps_a_hand_one_would_cut_with():
    from musstats._kernels.mus import mus_rounds

    t = hand_tables(PLAIN)
    pol = visto_policy(np.zeros((4, t.n_hands), np.uint8))
    # medias, duples and 31 are kept whole without the table's cut flags; others change
    h31 = t.index_of(parse_hand("R R 7 4"))
    assert (pol[:, h31] == KEEP_ALL).all()
    card_class = deck_ids(PLAIN)
    ids = {lab: [i for i in range(40) if PLAIN.classes[card_class[i]].label == lab] for lab in ("R", "7", "4")}
    hands = np.empty((4, 4), np.int64)
    hands[2] = [ids["R"][0], ids["R"][1], ids["7"][0], ids["4"][0]]  # third holds 31
    rest = [i for i in range(40) if i not in set(hands[2])]
    rng = np.random.default_rng(0)
    for trial in range(200):
        perm = rng.permutation(rest)
        hands[[0, 1, 3]] = perm[:12].reshape(3, 4)
        before = hands[2].copy()
        stock = np.zeros(40, np.int64)
        stock[:24] = perm[12:]
        st = np.random.SeedSequence(trial).generate_state(4, np.uint64)
        mus_rounds(hands, stock, 24, np.zeros(40, np.int64), np.zeros(40, np.int64), 0, 0, 1, -1, 0,
                   pol.astype(np.int64), card_class, t.n_classes, t.idx4.astype(np.int64), st)
        assert sorted(hands[2]) == sorted(before)


def test_mus_visto_offers_changing_nothing(capsys):
    code, out, err = run_cli(capsys, ["discard", "R", "R", "7", "4", "--mus-visto", "--trials", "5000", "--seed",
                                      "1", "--format", "json"])
    assert code == 0, err
    doc = json.loads(out)
    assert any(k["keep"].startswith("all") for k in doc["keep_sets"])
    assert doc["rules"]["mus_visto"] is True


@pytest.mark.parametrize("args, fragment", [
    (["odds", "R", "R", "R", "S/o", "--variant", "ten-kings", "--joker", "S/e=R"], "not a joker"),
    (["odds", "R", "R", "R", "S/o", "--variant", "ten-kings", "--joker", "S/o=C"], "rey or an as"),
    (["odds", "R", "R", "R", "A", "--joker", "S/o=A"], "ten-kings"),
    (["odds", "R", "R", "R", "S/q", "--variant", "ten-kings"], "unknown suit"),
    (["odds", "R", "R", "S/o", "S/o", "--variant", "ten-kings"], "appears 2 times"),
    (["odds", "R", "R", "R", "S/o", "--variant", "ten-kings", "--method", "exact"], "--method mc"),
    (["odds", "R", "R", "S/c", "S/o", "--variant", "ten-kings", "--joker", "S/c=R", "--joker", "S/c=A"],
     "given twice with different values"),
    # the ten-kings path checks the seed like every other path (no traceback)
    (["odds", "R", "R", "R", "S/o", "--variant", "ten-kings", "--seed", "-1"],
     "seed must be a whole number from 0 to 9,223,372,036,854,775,807, got -1"),
    (["odds", "R", "R", "R", "S/o", "--variant", "ten-kings", "--trials", "0"], "trials must be a whole number"),
    (["odds", "R", "R", "R", "S/o", "--variant", "ten-kings", "--threads", "0"], "threads"),
    (["odds", "4", "5", "6", "7", "--redeal-4567"], "4-5-6-7"),
    (["discard", "4", "5", "6", "7", "--redeal-4567"], "4-5-6-7"),
])
def test_bad_variant_input(args, fragment, capsys):
    assert_exit2_one_line(capsys, args, fragment)


def test_ten_kings_seed_is_checked_in_the_api():
    with pytest.raises(MusError, match="seed must be a whole number from 0"):
        odds("R R R S/o", "mano", variant="ten-kings", seed=-1)
    with pytest.raises(MusError, match="seed must be a whole number from 0"):
        odds("R R R S/o", "mano", variant="ten-kings", seed=2**63)


def test_ten_kings_with_4_reyes_is_rejected():
    with pytest.raises(MusError, match="8 reyes"):
        Variant("4-reyes", ten_kings=True)
    with pytest.raises(MusError, match="sota de oros"):
        make_variant("ten-kings", "sota-oros")


def test_every_command_takes_the_switches(capsys):
    for args in (["odds", "R", "R", "7", "A"], ["mus", "R", "R", "7", "A", "--trials", "2000", "--seed", "1"],
                 ["discard", "R", "R", "7", "A", "--trials", "2000", "--seed", "1"],
                 ["ordago", "R", "R", "7", "A", "--lance", "grande", "--score", "0-0"]):
        code, out, err = run_cli(capsys, args + ["--redeal-4567", "--mus-visto", "--format", "json"])
        assert code == 0, err
        doc = json.loads(out)
        assert doc["rules"]["redeal_4567"] and doc["rules"]["mus_visto"], args[0]


def test_ten_kings_in_game_ordago_and_table(capsys, tmp_path):
    import pandas as pd

    from musstats.analysis.game import paso_outcomes
    from musstats.engines.jokers import resolve_deals

    # deals without jokers resolve to the same plain hands
    t, p = hand_tables(TK), hand_tables(PLAIN)
    plain_hands = [h for h in range(t.n_hands) if joker_tables(TK).n_options[h] == 1][:4]
    deals = np.array([plain_hands], np.int64)
    got = resolve_deals(deals, TK)
    assert [p.labels[x] for x in got[0]] == [t.labels[x] for x in plain_hands]
    # the en-paso outcome table with jokers: grande and chica always award one stone
    out = paso_outcomes(TK, deals=20_000, seed=1)
    assert np.all(np.abs(out.signed[:, 0]) == 1) and np.all(np.abs(out.signed[:, 1]) == 1)
    code, text, err = run_cli(capsys, ["ordago", "R", "R", "R", "S/o", "--variant", "ten-kings", "--lance",
                                       "grande", "--score", "0-0", "--format", "json"])
    assert code == 0, err
    doc = json.loads(text)
    # R R R + joker at mano: as a rey (R R R R) grande cannot be lost, but the holder fixes
    # the joker for the most stones over all lances, and sometimes the as (31) pays more
    assert 0.99 < doc["random_hands"]["p_lance"] < 1 and doc["call"] and doc["rules"]["ten_kings"]
    assert doc["random_hands"]["game_model"]["rules"]["ten_kings"]  # the órdago uses the ten-kings game model
    # an independent estimate of the same probability (other deals): the odds' Monte Carlo
    # P(team wins grande), within 4 standard errors
    ind = odds("R R R S/o", "mano", variant="ten-kings", trials=400_000, seed=99)
    assert abs(ind.mean[0, 0] - doc["random_hands"]["p_lance"]) < 4 * np.hypot(ind.se[0, 0], np.sqrt(
        doc["random_hands"]["p_lance"] * (1 - doc["random_hands"]["p_lance"]) / 400_000))
    csv = tmp_path / "tk.csv"
    code, _, err = run_cli(capsys, ["table", "--variant", "ten-kings", "--hands", "R R R S/o", "--trials", "1000",
                                    "--seat", "mano", "--quiet", "--out", str(csv)])
    assert code == 0, err
    df = pd.read_csv(csv, comment="#")
    # the table reports the same lance odds as ordago (both: 400,000 deals, seed 2026)
    assert len(df) == 1 and df.loc[0, "p_team_grande"] == pytest.approx(doc["random_hands"]["p_lance"], abs=1e-6)
    assert df.loc[0, "p_ordago_grande"] == pytest.approx(doc["random_hands"]["p_lance"], abs=1e-6)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tk.csv"]


def test_ten_kings_identities_in_odds(capsys):
    # the user holds both jokers, so nobody else chooses: on the same deals (same seed) the
    # per-deal best identity earns at least as much as any fixed identity
    args = ["odds", "S/c", "S/o", "7", "4", "--variant", "ten-kings", "--trials", "50000", "--seed", "4",
            "--format", "json"]
    code, out, err = run_cli(capsys, args)
    assert code == 0, err
    doc = json.loads(out)
    assert [d["identity"] for d in doc["identities"]] == ["J both as R", "J as R and A", "J both as A"]
    total = lambda lances: sum(v["ev_net"] for v in lances.values())  # noqa: E731
    best = total(doc["lances"])
    for d in doc["identities"]:
        assert best >= total(d["lances"]) - 1e-12
    # fixing an identity with --joker gives that identity's odds (same seed, same deals)
    code, out, err = run_cli(capsys, args + ["--joker", "S/c=R", "--joker", "S/o=A"])
    assert code == 0, err
    fixed = json.loads(out)
    assert fixed["lances"] == doc["identities"][1]["lances"]
    assert fixed["conditions"] == {"joker": "J as R and A"} and fixed["identities"] == []
    # --joker items merge: one comma-separated option is the same
    code, out, err = run_cli(capsys, args + ["--joker", "S/c=R,S/o=A"])
    assert code == 0, err
    assert json.loads(out)["lances"] == fixed["lances"]
