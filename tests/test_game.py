"""The win-the-game model: outcome table, dynamic programming, cache, export, CLI.

Expected values come from docs/rules.md, hand calculation, or independent plain-Python
code (tests/naive.py: a recursive evaluation of the game, a simulation of dealt hands).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive as ref
from helpers import ROOT, assert_exit2_one_line, run_cli as _run
from musstats.analysis.game import Outcomes, game_model, paso_outcomes, win_probabilities
from musstats.base.errors import MusError
from musstats.engines.musphase import deals_as_dealt
from musstats.rules.cards import parse_hand
from musstats.rules.variant import Variant, make_variant
from musstats.tables.hands import hand_tables


#: the kernels of these tests run on one numba thread unless a test asks for more (conftest)
pytestmark = pytest.mark.usefixtures("one_numba_thread")


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    d = tmp_path_factory.getbasetemp() / "musstats-cache"
    monkeypatch.setenv("MUSSTATS_CACHE", str(d))
    return d


@pytest.fixture(scope="module")
def model40():
    return game_model(Variant(target=40), deals=1_000_000, seed=11, cache=False)


# ---------------------------------------------------------------------------
# dynamic programming on hand-made tables


def test_two_outcomes_target_2_by_hand():
    """Target 2.  X (prob p): grande to mano's team, chica to the other; Y: both to the other.

    By hand (m = 0: A is mano's team; m = 1: B is):
    (1,1): A mano wins at grande in X (both reach 2 in that hand: the count order decides),
           loses in Y: p.  B mano: 1 - p.
    (1,0): A mano: X p, Y B takes 2: p.  B mano: X B grande then A chica → A; Y A → 1.
    (0,1): A mano: X A 1 then B 2 → 0; Y → 0.  B mano: X B wins; Y A takes 2: 1 - p.
    (0,0): A mano: X → (1,1) with B mano: 1 - p; Y: B wins.  p (1 - p).
           B mano: X → (1,1) with A mano: p; Y: A wins.  p² + 1 - p.
    """
    p = 1 / 3
    o = Outcomes.from_list([([(0, 1), (1, 1)], p), ([(1, 1), (1, 1)], 1 - p)])
    P = win_probabilities(o, 2)
    expect = {
        (0, 1, 1): p, (1, 1, 1): 1 - p,
        (0, 1, 0): p, (1, 1, 0): 1.0,
        (0, 0, 1): 0.0, (1, 0, 1): 1 - p,
        (0, 0, 0): p * (1 - p), (1, 0, 0): p * p + 1 - p,
    }
    for (m, a, b), v in expect.items():
        assert P[m, a, b] == pytest.approx(v, abs=1e-15), (m, a, b)


def test_count_order_decides_when_both_reach_target():
    # mano's team takes grande (1) and juego (3), the others chica (1); target 10.
    o = Outcomes.from_list([([(0, 1), (1, 1), None, (0, 3)], 1.0)])
    P = win_probabilities(o, 10)
    # we are mano's team at 7-9: we get 8 at grande, they get 10 at chica and win,
    # although we would score 4 in the hand (juego is counted after chica)
    assert P[0, 7, 9] == 0.0
    # at 9-9 our grande comes first
    assert P[0, 9, 9] == 1.0
    # they are mano's team at (us 9, them 7): they take grande (8), we take chica (10) and win
    assert P[1, 9, 7] == 1.0
    # at us 6 - them 9, mano ours: 7 at grande, they reach 10 at chica although we end on 10
    assert P[0, 6, 9] == 0.0
    # without the chica stone (they have none) we would reach 10 at juego and win
    o2 = Outcomes.from_list([([(0, 1), (0, 1), None, (0, 3)], 1.0)])
    assert win_probabilities(o2, 10)[0, 6, 9] == 1.0


def test_reaching_target_in_the_count_wins():
    # mano's team always takes grande: from target-1 it wins at once, whatever the others have
    o = Outcomes.from_list([([(0, 1), (1, 1), (1, 6), (1, 6)], 1.0)])
    P = win_probabilities(o, 30)
    assert (P[0, 29, :] == 1.0).all()
    # and as the non-mano team, reaching it at chica before mano's team (from 29) wins
    assert P[1, 29, 28] == 1.0


_step = st.tuples(st.integers(0, 1), st.integers(1, 6))


@settings(max_examples=40, deadline=None)
@given(
    outcomes=st.lists(
        st.tuples(st.tuples(st.integers(0, 1), st.integers(0, 1), st.none() | _step, _step),
                  st.integers(1, 5)),
        min_size=1, max_size=4),
    target=st.integers(2, 12),
)
def test_dp_matches_plain_recursion(outcomes, target):
    total = sum(w for _, w in outcomes)
    items = [([(g, 1), (c, 1), pa, ju], Fraction(w, total)) for (g, c, pa, ju), w in outcomes]
    P = win_probabilities(Outcomes.from_list([(s, float(p)) for s, p in items]), target)
    R = ref.game_win_probability(items, target)
    for m in (0, 1):
        for a in range(target):
            for b in range(target):
                assert P[m, a, b] == pytest.approx(float(R(a, b, m)), abs=1e-12)


def test_outcome_table_validation():
    with pytest.raises(MusError, match="at least one stone"):
        Outcomes.from_list([([None, None, None, None], 1.0)])
    with pytest.raises(MusError, match="sum to 1"):
        Outcomes.from_list([([(0, 1), (0, 1)], 0.3)])
    with pytest.raises(MusError, match="team 0|1"):
        Outcomes.from_list([([(2, 1), (0, 1)], 1.0)])


# ---------------------------------------------------------------------------
# properties of the real model


def test_monotone_and_bounds(model40):
    P = model40.p
    assert P.shape == (2, 40, 40)
    assert (P >= 0).all() and (P <= 1).all()
    # non-decreasing in our score, non-increasing in theirs (exactly: a coupling argument)
    assert (np.diff(P, axis=1) >= -1e-12).all()
    assert (np.diff(P, axis=2) <= 1e-12).all()
    # from 39-0 they need at least 3 hands (at most 14 stones a hand) with us scoring nothing
    assert P[0, 39, 0] > 0.9999 and P[1, 39, 0] > 0.9999
    assert P[0, 0, 39] < 1e-4 and P[1, 0, 39] < 1e-4
    assert model40.p_win(40, 10) == 1.0 and model40.p_win(10, 40) == 0.0


def test_mano_swap_identity(model40):
    # A mano at a-b is the mirror of B mano at b-a: P[0, a, b] + P[1, b, a] = 1
    P = model40.p
    assert np.allclose(P[0] + P[1].T, 1.0, atol=1e-12)
    # so the average over who is mano is exactly 1/2 on the diagonal
    assert np.allclose(np.diag(model40.grid("avg")), 0.5, atol=1e-12)
    # being mano helps (docs/rules.md: ties go to the player nearer to mano)
    assert model40.p[0, 0, 0] > 0.5


def test_symmetrised_model_is_symmetric(model40):
    sym = model40.outcomes.symmetrised()
    for target in (40, 30):
        P = win_probabilities(sym, target)
        assert np.allclose(P[0], P[1], atol=1e-12)
        assert np.allclose(P[0] + P[0].T, 1.0, atol=1e-12)
    assert sym.mean_stones()[0] == pytest.approx(sym.mean_stones()[1], abs=1e-12)


# ---------------------------------------------------------------------------
# the outcome table against docs/rules.md and an independent simulation


def test_worked_example_outcome():
    """docs/rules.md worked example: A 7-7-2-As, B 3-3-S-2, C R-R-S-As, D C-C-C-6, all en paso.

    Grande: B (team 1) 1.  Chica: A A 7 7 is lowest → team 0, 1.  Pares: A's duples 3 +
    C's par 1 = 4 to team 0.  Juego: B and C have 31, B nearer to mano → team 1 takes B's
    31 (3) + D's 36 (2) = 5.
    """
    t = hand_tables(Variant())
    deal = np.array([[t.index_of(parse_hand(h)) for h in ("7 7 2 A", "3 3 S 2", "R R S A", "C C C 6")]])
    o = paso_outcomes(Variant(), source=deal)
    assert o.n_outcomes == 1 and o.prob[0] == 1.0
    assert o.signed[0].tolist() == [-1, 1, 4, -5]
    assert o.deals == 1 and o.source == "array"


@pytest.mark.slow
@pytest.mark.parametrize("deck", ["8-reyes", "4-reyes"])
def test_outcomes_against_plain_python_simulation(deck):
    n_ref, n_model = 15_000, 1_000_000
    sim = ref.simulate_paso_deals(deck, n_ref, seed=2024)
    o = paso_outcomes(Variant(deck=deck), deals=n_model, seed=3)
    ts = o.team_stones()  # [K, 4, 2]
    s = o.signed
    model = {
        "stones team 0": (ts[:, :, 0].sum(axis=1), 0),
        "stones team 1": (ts[:, :, 1].sum(axis=1), 1),
        "P(team 0 grande)": ((s[:, 0] > 0).astype(float), 2),
        "P(team 0 pares)": ((s[:, 2] > 0).astype(float), 3),
        "P(pares void)": ((s[:, 2] == 0).astype(float), 4),
        "P(team 0 juego or punto)": ((s[:, 3] > 0).astype(float), 5),
    }
    for name, (x, col) in model.items():
        mean_model = float(o.prob @ x)
        var_model = float(o.prob @ (x - mean_model) ** 2)
        mean_ref = sim[:, col].mean()
        var_ref = sim[:, col].var(ddof=1)
        se = math.sqrt(var_ref / n_ref + var_model / n_model)
        assert abs(mean_model - mean_ref) < 4 * se, (name, mean_model, mean_ref, se)


def test_deals_after_the_mus_decision():
    # one deal per chunk, so that every deal starts from its chunk's own seed whatever the flags:
    # a deal where some player holds a hand he cuts with is played as dealt, any other after one
    # mus round in which everyone discards (RULES: only if all four say mus does everyone discard)
    from musstats.analysis.game.sources import DEAL_SOURCES, deals_and_decisions, source_key
    from musstats.engines.musphase import N_CHUNKS, deals_after_mus
    from musstats.tables.policies import cut_flags

    v = Variant()
    # the model cuts by the mus decision's equilibrium (8 reyes ships it), each hand by its likelier
    # choice: read here from the shipped file's probabilities
    eq = np.load(ROOT / "musstats" / "data" / "cut_equilibrium_8-reyes_off.npz")
    flags = eq["p_cut"] >= 0.5
    assert flags.shape == cut_flags(v).shape and (flags != cut_flags(v)).any()
    none, every = np.zeros_like(flags), np.ones_like(flags)
    seats = np.arange(4)[None, :]
    n_cut = n_mus = 0
    for seed in range(8):
        dealt = deals_after_mus(N_CHUNKS, seed, v, cut=every)  # everybody cuts: the hands as dealt
        mus = deals_after_mus(N_CHUNKS, seed, v, cut=none)
        got = deals_after_mus(N_CHUNKS, seed, v, cut=flags)
        someone_cuts = flags[seats, dealt].any(axis=1)
        assert np.array_equal(got, np.where(someone_cuts[:, None], dealt, mus))
        # which deals had the round: the kernel's fifth column and the source that tells it
        full = deals_after_mus(N_CHUNKS, seed, v, cut=flags, with_rounds=True)
        assert np.array_equal(full[:, :4], got) and np.array_equal(full[:, 4], (~someone_cuts).astype(int))
        hands, played = deals_and_decisions(N_CHUNKS, seed, v)
        assert np.array_equal(hands, got) and np.array_equal(played, ~someone_cuts)
        n_cut, n_mus = n_cut + int(someone_cuts.sum()), n_mus + int((~someone_cuts).sum())
    assert n_cut > 0 and n_mus > 0
    # nobody cutting is the plain mus round, stream for stream; the named source cuts by the equilibrium
    assert np.array_equal(deals_after_mus(3000, 4, v, cut=none), deals_after_mus(3000, 4, v))
    assert np.array_equal(DEAL_SOURCES["mus-decision"](3000, 4, v), deals_after_mus(3000, 4, v, cut=flags))
    assert source_key("mus-decision", v) != source_key("after-mus", v)
    with pytest.raises(MusError, match="cut flags must be bool"):
        deals_after_mus(10, 1, v, cut=flags[:, :5])
    with pytest.raises(MusError, match="accepted deal sources: mus-decision, as-dealt"):
        game_model(v, betting=True, source="after-mus")


def test_model_with_betting_bets_cut_hands_by_the_strategies_that_read_who_cut():
    # where somebody cut, the model's hands as dealt are bet by the mus-read strategies given the seat
    # that cut: in every subgame and for every seat that cut, the stones the played terminals give
    # average to the exact expectation of those strategies on the same deals (another code path: the
    # framework's deal values).  (Bet without reading who cut, juego after a cut by second is 8.7 SE off.)
    from musstats.analysis.betting import played_strategy
    from musstats.analysis.game.betting import play_decided
    from musstats.analysis.game.sources import deals_and_decisions
    from musstats.analysis.play import hand_steps
    from musstats.engines.betting.info import prepare
    from musstats.engines.betting.tree import pattern_mask
    from musstats.engines.solving.dealt import deal_values

    v = Variant()
    d, mus = deals_and_decisions(200_000, 11, v)
    d = d[~mus]
    eq = np.load(ROOT / "musstats" / "data" / "cut_equilibrium_8-reyes_off.npz")
    cuts = (eq["p_cut"] >= 0.5)[np.arange(4)[None, :], d]
    assert cuts.any(axis=1).all()
    cutter = cuts.argmax(axis=1)  # the first seat from mano that cuts
    record: list = []
    hand_steps(d, v, "equilibrium", "equilibrium", 3, record=record, cutter=cutter)
    checked = 0
    for lance, sel, tree, term in record:
        sol = played_strategy(lance, pattern_mask(tree.speakers), "as-dealt", v, read_cut=True)
        st, o, _ = prepare(sol.game, d[sel], v, lance, cutter[sel])
        exact = deal_values(sol.game, sol.sigma, st, o)
        got = sol.game.U[term, o]
        for q in range(4):
            g = cutter[sel] == q
            if g.sum() < 1000:
                continue
            se = got[g].std() / math.sqrt(g.sum())
            assert abs(got[g].mean() - exact[g].mean()) < 4.5 * se + 1e-9, (lance, q, got[g].mean(), exact[g].mean())
            checked += 1
    assert checked >= 40
    # play_decided reads who cut the same way (its own draws)
    s = play_decided(d[:2000], np.zeros(2000, bool), v, 3)
    assert s.shape == (2000, 8)
    with pytest.raises(MusError, match="read who cut"):
        hand_steps(d[:10], v, "equilibrium", "paso", 3, cutter=cutter[:10])


def test_seeded_and_reproducible():
    a = paso_outcomes(Variant(), deals=20_000, seed=5)
    b = paso_outcomes(Variant(), deals=20_000, seed=5)
    c = paso_outcomes(Variant(), deals=20_000, seed=6)
    assert np.array_equal(a.signed, b.signed) and np.array_equal(a.prob, b.prob)
    assert not (a.signed.shape == c.signed.shape and np.array_equal(a.prob, c.prob))
    assert a.seed == 5 and a.deals == 20_000 and a.source == "as-dealt"
    assert paso_outcomes(Variant(), deals=1000, seed=None).seed is not None


def test_pluggable_deal_source():
    calls = []

    def source(n, seed, variant):
        calls.append((n, seed, variant))
        return deals_as_dealt(n, seed, variant)

    v = Variant()
    via_callable = paso_outcomes(v, deals=5000, seed=9, source=source)
    # batch b of the deals is seeded from SeedSequence([seed, b]) (one batch here)
    sub = int(np.random.SeedSequence([9, 0]).generate_state(1, np.uint64)[0] >> np.uint64(1))
    via_array = paso_outcomes(v, source=deals_as_dealt(5000, sub, v))
    default = paso_outcomes(v, deals=5000, seed=9)
    assert calls == [(5000, sub, v)]
    for o in (via_array, default):
        assert np.array_equal(o.signed, via_callable.signed) and np.allclose(o.prob, via_callable.prob)
    with pytest.raises(MusError, match=r"\[N, 4\]"):
        paso_outcomes(v, source=np.zeros((3, 3), np.int64))
    with pytest.raises(MusError, match="out of range"):
        paso_outcomes(v, source=np.full((3, 4), 330))
    with pytest.raises(MusError, match="unknown deal source"):
        paso_outcomes(v, source="after-mus-nope")
    with pytest.raises(MusError, match="deals must be a whole number from 1 to 200,000,000, got 0"):
        paso_outcomes(v, deals=0)
    # the model built on a custom source is not cached but works the same
    m = game_model(v, deals=5000, seed=9, source=source)
    assert np.allclose(m.p, win_probabilities(default, 40))


def test_deals_are_uniform_hands():
    # the sampler deals each hand with its card-combination weight (docs/rules.md reference
    # figures, one hand from the full deck: any pares 56.58 %, juego 26.75 %)
    t = hand_tables(Variant())
    d = deals_as_dealt(200_000, 4, Variant())
    for seat in range(4):
        h = d[:, seat]
        for got, want in (((t.pares_cat[h] > 0).mean(), 0.5658), ((t.points[h] >= 31).mean(), 0.2675)):
            assert abs(got - want) < 4 * math.sqrt(want * (1 - want) / len(h)) + 5e-5


# ---------------------------------------------------------------------------
# cache and export


def _cache_files(folder):
    return sorted(folder.glob("paso-outcomes-*.npz")) if folder.is_dir() else []


def test_disk_cache(_cache):
    from musstats.analysis.game import model as game_mod

    v = Variant(deck="4-reyes")
    before = set(_cache_files(_cache))
    m1 = game_model(v, deals=30_000, seed=123)
    files = [p for p in _cache_files(_cache) if p not in before]
    assert len(files) == 1
    assert "simulate_s" in m1.timings
    game_mod._MEMO.clear()
    # the outcome table does not depend on the target: the same file serves a game to 30
    m2 = game_model(Variant(deck="4-reyes", target=30), deals=30_000, seed=123)
    assert "load_s" in m2.timings and "simulate_s" not in m2.timings
    assert np.array_equal(m2.outcomes.prob, m1.outcomes.prob) and m2.target == 30
    assert set(_cache_files(_cache)) == before | set(files)
    # a corrupt file is recomputed and replaced
    files[0].write_bytes(b"not an npz")
    game_mod._MEMO.clear()
    m3 = game_model(v, deals=30_000, seed=123)
    assert "simulate_s" in m3.timings and np.array_equal(m3.p, m1.p)
    assert not [p for p in _cache.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("switches", [{"variant": "ten-kings"}, {"redeal_4567": True}, {"mus_visto": True},
                                      {"juego_real": "figure"}])
def test_cache_is_keyed_by_every_switch(_cache, switches):
    # the game model's caches (memory and disk) are keyed by every switch: ten kings and the
    # 4-5-6-7 redeal never get the 8-reyes model
    from musstats.analysis.game import model as game_mod

    plain = game_model("8-reyes", deals=40_000, seed=77)
    files = set(_cache_files(_cache))
    other = game_model(**{"variant": "8-reyes", **switches}, deals=40_000, seed=77)  # in memory after plain
    assert other.variant == make_variant(**{"deck": switches.get("variant", "8-reyes"),
                                            **{k: v for k, v in switches.items() if k != "variant"}})
    assert "simulate_s" in other.timings  # not the 8-reyes table from memory...
    new = set(_cache_files(_cache)) - files
    assert len(new) == 1  # ...nor from its file: a file of its own
    assert not (plain.outcomes.signed.shape == other.outcomes.signed.shape
                and np.array_equal(plain.outcomes.prob, other.outcomes.prob))
    # read back from disk, each variant gets its own table
    game_mod._MEMO.clear()
    again = game_model(**{"variant": "8-reyes", **switches}, deals=40_000, seed=77)
    assert "load_s" in again.timings and np.array_equal(again.outcomes.signed, other.outcomes.signed)
    assert np.allclose(again.p, other.p, rtol=0, atol=1e-12)  # the loaded table is renormalised
    assert np.array_equal(game_model("8-reyes", deals=40_000, seed=77).p, plain.p)


def test_the_betting_tables_cache_is_keyed_by_the_plans(monkeypatch):
    """The model with betting plays the pairs' correlated plans where they ship: a change of the
    plans (their digest in betting_key) gives its outcome table and P(win) grid another key in
    memory and on disk, never the table played with the old plans."""
    from musstats.analysis import betting as betting_mod
    from musstats.analysis.game import model as game_mod

    v = Variant()
    before = game_mod.betting_key(v, 1000, 1)
    assert before["plans"]  # plans ship for the hands as dealt
    monkeypatch.setattr(betting_mod, "plans_key", lambda v, deals: {"juego-7 as-dealt": "other plans"})
    after = game_mod.betting_key(v, 1000, 1)
    assert after["strategies"] == before["strategies"] and after["plans"] != before["plans"]
    assert game_mod._betting_memo_key(after) != game_mod._betting_memo_key(before)


def test_cache_off(monkeypatch, tmp_path):
    from musstats.engines.cache import cache_dir

    monkeypatch.setenv("MUSSTATS_CACHE", "off")
    assert cache_dir() is None
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    m = game_model(Variant(), deals=2000, seed=77)
    assert "simulate_s" in m.timings and m.outcomes.deals == 2000 and m.outcomes.seed == 77
    assert 0.5 < m.p_win(0, 0, "us") < 1
    assert list(tmp_path.iterdir()) == []  # nothing written anywhere
    monkeypatch.setenv("MUSSTATS_CACHE", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"


def test_game_model_takes_a_name_or_a_variant():
    # musstats.game_model takes a variant's name as well as a Variant
    import musstats

    by_name = musstats.game_model("4-reyes", deals=20_000, seed=3, cache=False)
    by_variant = musstats.game_model(Variant("4-reyes"), deals=20_000, seed=3, cache=False)
    assert by_name.variant == by_variant.variant == Variant("4-reyes")
    assert np.array_equal(by_name.p, by_variant.p)
    assert musstats.game_model("4-reyes", target=30, deals=20_000, seed=3, cache=False).p.shape == (2, 30, 30)
    with pytest.raises(MusError, match="unknown variant"):
        musstats.game_model("5-reyes")


def test_table_and_heatmap_export(model40, tmp_path):
    import matplotlib

    from musstats.output.files import read_frame
    from musstats.output.plots import save_game

    backend = matplotlib.get_backend()
    df = model40.to_frame()
    assert len(df) == 40 * 40
    assert list(df.columns) == ["us", "them", "p_win_us_mano", "p_win_them_mano", "p_win_avg"]
    save_game(model40, tmp_path / "g.csv")
    text = (tmp_path / "g.csv").read_text(encoding="utf-8")
    assert text.startswith("# ") and "# deals: 1000000\n" in text and "# seed: 11\n" in text
    back = read_frame(tmp_path / "g.csv")
    assert list(back.columns) == list(df.columns)
    assert np.allclose(back["p_win_avg"], df["p_win_avg"])
    row = back[(back.us == 30) & (back.them == 10)].iloc[0]
    assert row.p_win_us_mano == pytest.approx(model40.p[0, 30, 10])
    save_game(model40, tmp_path / "g.parquet")
    assert np.allclose(read_frame(tmp_path / "g.parquet")["p_win_us_mano"], df["p_win_us_mano"])
    save_game(model40, tmp_path / "g.png", mano="us")
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    save_game(model40, tmp_path / "g.svg")
    assert b"<svg" in (tmp_path / "g.svg").read_bytes()[:2000]
    with pytest.raises(MusError, match="FILE.csv"):
        save_game(model40, tmp_path / "g.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.csv", "g.parquet", "g.png", "g.svg"]
    assert matplotlib.get_backend() == backend


_BACKEND_CHILD = """
import matplotlib
matplotlib.use("svg")  # a user's backend (in a notebook: the inline one)
from musstats.analysis.game import game_model
from musstats.output import plots
model = game_model("8-reyes", deals=20_000, seed=1, cache=False)
plots.save_game(model, OUT + "/g.png")
plots.save_figure(plots.plot_totals(__import__("musstats.analysis.totals", fromlist=["x"]).totals_distribution()),
                  OUT + "/t.png")
plots.save_figure(plots.plot_game(model), OUT + "/g.pdf")
print(matplotlib.get_backend())
"""


def test_plotting_never_switches_the_backend(tmp_path):
    # writing the heatmap never calls matplotlib.use("Agg", force=True)
    res = subprocess.run([sys.executable, "-c", f"OUT = {str(tmp_path)!r}\n" + _BACKEND_CHILD], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().splitlines()[-1] == "svg"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.pdf", "g.png", "t.png"]


# ---------------------------------------------------------------------------
# CLI


def test_cli_game_summary_json_and_out(capsys, tmp_path):
    code, out, err = _run(capsys, ["game", "--target", "30", "--deals", "50000", "--seed", "2",
                                   "--format", "json"])
    assert code == 0, err
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert len(lines) == 1
    doc = json.loads(lines[0])
    assert doc["target"] == 30 and doc["deals"] == 50000 and doc["seed"] == 2
    assert doc["rules"]["target"] == 30 and doc["variant"] == "8-reyes"
    assert doc["scores"][0] == 0 and doc["scores"][-1] == 29
    assert len(doc["p_win"]) == len(doc["scores"])
    assert doc["p_win"][0][0] == pytest.approx(0.5)
    code, out, err = _run(capsys, ["game", "--target", "30", "--deals", "50000", "--seed", "2", "--mano", "us"])
    assert code == 0 and "P(win the game)" in out and "From 0-0" in out
    code, out, err = _run(capsys, ["game", "--deals", "50000", "--out", str(tmp_path / "h.pdf")])
    assert code == 0 and (tmp_path / "h.pdf").read_bytes()[:4] == b"%PDF"
    code, out, err = _run(capsys, ["game", "--deals", "50000", "--seed", "2", "--out", str(tmp_path / "h.csv")])
    assert code == 0 and (tmp_path / "h.csv").read_text(encoding="utf-8").startswith("#")


@pytest.mark.parametrize("args, fragment", [
    (["game", "--target", "35"], "'40', '30'"),
    (["game", "--deals", "0"], "deals must be a whole number from 1 to 200,000,000, got 0"),
    (["game", "--deals", "1e6"], "--deals must be a whole number"),
    (["game", "--seed", "-3"], "seed must be a whole number from 0"),
    (["game", "--mano", "nobody"], "'us', 'them', 'avg'"),
    (["game", "--deals", "1000", "--out", "x.txt"], "FILE.csv"),
    (["game", "--deals", "1000", "--deals", "2000"], "--deals is given twice"),
])
def test_cli_game_bad_input(capsys, args, fragment):
    assert_exit2_one_line(capsys, args, fragment)
