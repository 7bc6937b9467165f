"""Monte Carlo engine: agreement with the exact engine and with an independent naive
simulation, reproducibility across thread counts, target_se, six players, individual
play, restrictions, interrupts and input validation.

Expected values come from the exact engine, from docs/rules.md, or from the plain-Python
simulation of tests/naive.py (its own card model and lance evaluation, written from the rules).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from math import comb
from pathlib import Path

import numpy as np
import pytest

import naive
from helpers import interruptible
from musstats.base.errors import MusError
from musstats.engines import montecarlo as mc
from musstats.engines.estimate import mean_se, proportion
from musstats.engines.exact import STATS, exact_counts, exact_table, exact_two
from musstats.engines.montecarlo import CHUNK, McResult, simulate
from musstats.engines.random import seed_states
from musstats.rules.cards import parse_cards, parse_hand
from musstats.rules.seats import Seating
from musstats.rules.variant import Variant
from musstats.tables.context import make_context
from musstats.tables.hands import LANCES, hand_tables


#: the kernels of these tests run on one numba thread unless a test asks for more (conftest)
pytestmark = pytest.mark.usefixtures("one_numba_thread")


ROOT = Path(__file__).resolve().parents[1]
CONT = STATS.index("p_contested")
EV = STATS.index("ev_net")
V8 = Variant()
V4 = Variant(deck="4-reyes")


def ctx_at(hand, seat, variant=V8, *, dead=None, players=4, individual=False, allowed=None):
    """The context of ``hand`` at seat index ``seat`` (0 = mano), optionally with a mask of
    allowed hands [players, H]."""
    ctx = make_context(variant, hand, seat + 1, dead=dead or None, seating=Seating(players, individual))
    return ctx if allowed is None else replace(ctx, allowed=allowed)


def sim(hand, seat, variant=V8, *, dead=None, players=4, individual=False, allowed=None, **kw) -> McResult:
    return simulate(ctx_at(hand, seat, variant, dead=dead, players=players, individual=individual,
                           allowed=allowed), **kw)


def assert_close(got: McResult, want: np.ndarray, z: float = 4.0, n_ref: int | None = None) -> None:
    """|got - want| <= z * SE everywhere; exact equality where the SE is 0.

    For probabilities the SE is the larger of the reported one and the binomial SE at the
    expected value (the plug-in SE of a rare event seen a handful of times is too small).
    ``n_ref``: ``want`` is itself a simulation of that many deals; its SE is added, from the
    spread seen by the (much larger) run under test: SE * sqrt(trials / n_ref).
    """
    assert got.mean.shape == want.shape == (5, 5)
    assert np.array_equal(np.isnan(got.mean), np.isnan(want)), (got.mean, want)
    se = got.se.copy()
    with np.errstate(invalid="ignore"):
        null = np.sqrt(np.clip(want * (1 - want), 0, None) / got.trials)
    se[:, :EV] = np.fmax(se[:, :EV], null[:, :EV])
    if n_ref is not None:
        se = np.sqrt(se**2 + got.se**2 * got.trials / n_ref)
    for li, lance in enumerate(LANCES):
        for si, stat in enumerate(STATS):
            m, w, s = got.mean[li, si], want[li, si], se[li, si]
            if np.isnan(w):
                continue
            if s == 0:
                assert m == pytest.approx(w, abs=1e-12), (lance, stat, m, w)
            else:
                assert abs(m - w) <= z * s, (lance, stat, m, w, s, (m - w) / s)


# ---------------------------------------------------------------- agreement with the exact engine

EXACT_CASES = [
    (V8, "R C 7 4", ""),
    (V8, "R R 3 A", ""),  # medias of reyes and 31
    (V8, "S 6 5 A", "R R C 7"),
    (V8, "7 7 A 2", "S S S"),  # duples (7-7, A-A)
    (V4, "R C 7 4", ""),
    (V4, "3 3 2 A", "R 5"),
    (V4, "6 5 4 A", "7 7 7 C C"),
    (Variant(juego_real="sota-oros"), "7 7 7 S/o", "R"),
]


def exact_all_seats(hand, variant, dead) -> np.ndarray:
    """Exact odds [seat, lance, stat] from one exact-engine run (NaN contested as exact_table)."""
    counts, total = exact_counts(ctx_at(hand, 0, variant, dead=dead), seats=range(4))
    den = np.asarray(total, dtype=np.float64)
    out = counts[:, :, :len(STATS)].astype(np.float64) / den[:, None, None]
    out[:, [0, 1, 4], CONT] = np.nan
    return out


def test_exact_all_seats_matches_exact_table():
    assert np.array_equal(exact_all_seats("S 6 5 A", V8, "")[2], exact_table(ctx_at("S 6 5 A", 2)), equal_nan=True)


@pytest.mark.parametrize("variant,hand,dead", EXACT_CASES)
def test_agrees_with_exact_engine(variant, hand, dead):
    want = exact_all_seats(hand, variant, dead)
    for seat in range(4):
        got = sim(hand, seat, variant, dead=dead, trials=600_000, seed=1000 + seat)
        assert got.trials == 600_000 and not got.partial and got.rejected == 0
        assert_close(got, want[seat])


def test_certain_outcomes_have_zero_se():
    # Mano with 31 (R C 7 4 is 10+10+7+4) always wins juego, so punto is never played.
    got = sim("R C 7 4", 0, trials=200_000, seed=3)
    j, p = LANCES.index("juego"), LANCES.index("punto")
    assert got.mean[j, 0] == 1.0 and got.se[j, 0] == 0.0
    assert got.mean[p, 2] == 0.0 and got.se[p, 2] == 0.0 and got.se[p, EV] == 0.0


# ---------------------------------------------------------------- reproducibility

_SNIPPET = """
import json, numpy as np
from dataclasses import replace
from musstats.engines.montecarlo import simulate
from musstats.rules.seats import Seating
from musstats.rules.variant import Variant
from musstats.tables.context import make_context
from musstats.tables.hands import hand_tables
v = Variant()
out = {}
ctx = make_context(v, "R C 7 4", "second")
r = simulate(ctx, trials=1_234_567, seed=42)
out["four"] = [r.mean.tobytes().hex(), r.se.tobytes().hex(), r.trials]
r = simulate(make_context(v, "R C 7 4", 5, dead="A A", seating=Seating(6)), trials=700_001, seed=7)
out["six"] = [r.mean.tobytes().hex(), r.trials]
t = hand_tables(v)
allowed = np.ones((4, t.n_hands), bool)
allowed[2] = t.key[2] > 0  # third holds pares
r = simulate(replace(make_context(v, "R C 7 4", "mano"), allowed=allowed), trials=300_000, seed=9)
out["allowed"] = [r.mean.tobytes().hex(), r.trials, r.rejected]
r = simulate(ctx, target_se=0.004, seed=11)
out["target"] = [r.mean.tobytes().hex(), r.trials]
import numba
out["threads"] = numba.get_num_threads()
print(json.dumps(out))
"""


def _run_with_threads(n: int) -> dict:
    env = dict(os.environ, NUMBA_NUM_THREADS=str(n))
    res = subprocess.run([sys.executable, "-c", _SNIPPET], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_same_seed_bit_identical_with_one_and_two_threads():
    one, two = _run_with_threads(1), _run_with_threads(2)
    assert (one.pop("threads"), two.pop("threads")) == (1, 2)
    assert one == two
    assert one["four"][2] == 1_234_567
    assert one["allowed"][2] > 0  # some deals were redrawn


def test_same_seed_same_result_in_process_and_threads_argument():
    a = sim("S 6 5 A", 2, trials=500_000, seed=5, threads=1)
    b = sim("S 6 5 A", 2, trials=500_000, seed=5)
    c = sim("S 6 5 A", 2, trials=500_000, seed=6)
    assert np.array_equal(a.mean, b.mean, equal_nan=True) and np.array_equal(a.se, b.se, equal_nan=True)
    assert not np.array_equal(a.mean, c.mean, equal_nan=True)


def test_no_seed_reports_a_seed_that_reproduces_the_run():
    a = sim("R R C 4", 3, trials=100_000)
    assert isinstance(a.seed, int) and a.seed >= 0
    b = sim("R R C 4", 3, trials=100_000, seed=a.seed)
    assert np.array_equal(a.mean, b.mean, equal_nan=True)


def test_chunk_seeds_come_from_seedsequence_spawn():
    kids = np.random.SeedSequence(123).spawn(3)
    got = seed_states(123, 3)
    for i, kid in enumerate(kids):
        assert np.array_equal(got[i], kid.generate_state(4, np.uint64))
    assert np.array_equal(seed_states(123, 1, 2)[0], got[2])


def test_standard_errors_from_counts():
    # four deals with net stones +1, +1, -1, +1 and a lance won 3 times out of 4
    acc = np.zeros((5, 6), np.int64)
    acc[0] = [3, 2, 4, 0, 1 + 1 - 1 + 1, 1 + 1 + 1 + 1]
    mean, se = mc.estimates(acc, 4)
    assert mean[0, 0] == 0.75 and se[0, 0] == pytest.approx(np.sqrt(0.75 * 0.25 / 4))
    assert mean[0, 1] == 0.5 and se[0, 1] == pytest.approx(np.sqrt(0.25 / 4))
    assert mean[0, EV] == 0.5
    # sample variance of (1, 1, -1, 1) is 1 (statistics.variance), so SE = sqrt(1 / 4)
    assert se[0, EV] == pytest.approx(0.5)
    assert np.isnan(mean[0, CONT]) and np.isnan(se[0, CONT]) and not np.isnan(mean[2, CONT])


def test_the_one_estimator():
    # musstats.engines.estimate: p = k / n with sqrt(p (1 - p) / n); mean and SE of a mean
    # from integer sums, the sample variance with n - 1 (statistics.variance)
    import statistics

    p, se = proportion(np.array([3, 0]), 4)
    assert p.tolist() == [0.75, 0.0] and se[0] == pytest.approx(np.sqrt(0.75 * 0.25 / 4)) and se[1] == 0
    xs = [3, -1, 4, 1, -5, 9, 2, -6]
    m, s = mean_se(np.int64(sum(xs)), np.int64(sum(x * x for x in xs)), len(xs))
    assert m == pytest.approx(statistics.mean(xs))
    assert s == pytest.approx(statistics.stdev(xs) / np.sqrt(len(xs)))
    assert np.isnan(proportion(np.array([1]), 0)[0]).all() and np.isnan(mean_se(np.int64(1), np.int64(1), 1)[1])


@pytest.mark.parametrize("variant", [V8, V4, Variant(juego_real="sota-oros")])
def test_weight_sums_identify_every_hand(variant):
    from musstats._kernels.mc import sum_index

    t = hand_tables(variant)
    weights, by_sum = sum_index(t.cls4, t.n_classes)
    sums = weights[t.cls4.astype(np.int64)].sum(axis=1)
    assert len(set(sums.tolist())) == t.n_hands
    assert np.array_equal(by_sum[sums], np.arange(t.n_hands))


def test_import_does_not_load_numba():
    code = "import sys, musstats.engines.montecarlo; print('numba' in sys.modules)"
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert res.stdout.strip() == "False", res.stderr


# ---------------------------------------------------------------- target_se, cap, interrupts

def test_target_se_stops_with_every_se_below_target():
    r = sim("R C 7 4", 1, target_se=0.002, seed=21)
    assert not r.partial and r.trials % CHUNK == 0
    assert np.nanmax(r.se) < 0.002
    applicable = ~np.isnan(exact_table(ctx_at("R C 7 4", 1)))
    assert np.array_equal(~np.isnan(r.se), applicable)
    # it did not run far beyond what was needed: with half the trials some SE is above target
    assert np.nanmax(r.se) * np.sqrt(2) > 0.002 * 0.9
    again = sim("R C 7 4", 1, target_se=0.002, seed=21)
    assert again.trials == r.trials and np.array_equal(again.mean, r.mean, equal_nan=True)


def test_target_se_cap_marks_partial(monkeypatch):
    monkeypatch.setattr(mc, "MAX_TRIALS", 20 * CHUNK)
    r = sim("R C 7 4", 0, target_se=1e-4, seed=1)
    assert r.partial and r.trials == 20 * CHUNK
    assert np.nanmax(r.se) >= 1e-4


def test_interrupt_between_batches_returns_partial(monkeypatch):
    import musstats._kernels.mc as kernel

    real = kernel.mc_counts
    calls = []

    def flaky(seeds, sizes, *rest):
        calls.append(len(sizes))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(seeds, sizes, *rest)

    monkeypatch.setattr(kernel, "mc_counts", flaky)
    r = sim("R C 7 4", 0, trials=100 * CHUNK, seed=2)
    assert r.partial and r.trials == calls[0] * CHUNK and len(calls) == 2
    # what was computed is the same as a run of exactly those chunks
    monkeypatch.setattr(kernel, "mc_counts", real)
    full = sim("R C 7 4", 0, trials=calls[0] * CHUNK, seed=2)
    assert np.array_equal(r.mean, full.mean, equal_nan=True)


def test_interrupt_before_any_result_propagates(monkeypatch):
    import musstats._kernels.mc as kernel

    def boom(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(kernel, "mc_counts", boom)
    with pytest.raises(KeyboardInterrupt):
        sim("R C 7 4", 0, trials=1000, seed=2)


_CTRL_C_CHILD = """
import sys
from musstats.engines.montecarlo import simulate
from musstats.rules.variant import Variant
from musstats.tables.context import make_context
ctx = make_context(Variant(), "R C 7 4", "second")
simulate(ctx, trials=1000, seed=1)  # load the kernel first
print("ready", flush=True)
r = simulate(ctx, trials=2_000_000_000, seed=1)
print(r.trials, r.partial, r.trials % 65536, flush=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_real_ctrl_c_stops_after_the_running_batch():
    import signal
    import time

    child = interruptible([sys.executable, "-c", _CTRL_C_CHILD], cwd=ROOT, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout.readline().strip() == "ready"
    time.sleep(1.0)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    trials, partial, rest = out.split()
    assert 0 < int(trials) < 2_000_000_000 and partial == "True" and rest == "0"


def test_progress_callback_gets_done_and_total_and_nothing_is_printed(capfd):
    seen = []
    r = sim("R C 7 4", 0, trials=40 * CHUNK + 17, seed=2, progress=lambda done, total: seen.append((done, total)))
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # engines never print
    assert len(seen) >= 2  # the first batch is 16 chunks: several calls
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1][0] == r.trials == 40 * CHUNK + 17
    assert all(total == 40 * CHUNK + 17 for _, total in seen)


def test_progress_bar_draws_on_a_terminal(monkeypatch, capsys):
    # the command line's bar (musstats.output.progress) is drawn from the callback on a terminal
    import musstats.output.progress as progress
    from helpers import run_cli

    monkeypatch.setattr(progress, "SHOW_AFTER", 0.0)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, out, err = run_cli(capsys, ["odds", "R", "C", "7", "4", "--method", "mc", "--trials", str(40 * CHUNK),
                                      "--seed", "2", "--format", "json"])
    assert code == 0, err
    assert json.loads(out)["trials"] == 40 * CHUNK and not json.loads(out)["partial"]
    bars = []

    class Spy(progress.ProgressBar):
        def __call__(self, done, total):
            bars.append((done, total))
            super().__call__(done, total)

    monkeypatch.setattr(progress, "ProgressBar", Spy)
    code, out, err = run_cli(capsys, ["odds", "R", "C", "7", "4", "--method", "mc", "--trials", str(40 * CHUNK),
                                      "--seed", "2"])
    assert code == 0, err
    assert bars and bars[-1] == (40 * CHUNK, 40 * CHUNK)
    assert "Grande" in out


def test_progress_bar_writes_plain_lines_to_a_log(monkeypatch, capsys):
    # where stderr is not a terminal: nothing for the first LOG_EVERY seconds, then a line at most
    # every LOG_EVERY seconds (done/total, elapsed, ETA = elapsed x left / done), and one at the end
    import musstats.output.progress as progress

    clock = [1000.0]
    monkeypatch.setattr(progress.time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    bar = progress.ProgressBar("subgames")
    for t, done in ((0.5, 1), (29.0, 5), (31.0, 10), (40.0, 20), (62.0, 40), (70.0, 100)):
        clock[0] = 1000.0 + t
        bar(done, 100)
    bar.close()
    lines = capsys.readouterr().err.splitlines()
    # 31 s, 10 of 100: 31 x 90 / 10 = 279 s left; 62 s, 40 of 100: 62 x 60 / 40 = 93 s left
    assert lines == ["subgames: 10/100, 0:00:31 elapsed, ETA 0:04:39",
                     "subgames: 40/100, 0:01:02 elapsed, ETA 0:01:33",
                     "subgames: 100/100, 0:01:10 elapsed"]
    short = progress.ProgressBar("deals")  # a run shorter than LOG_EVERY writes nothing
    clock[0] += 20.0
    short(5, 5)
    short.close()
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------- independent naive simulation

FACES_8 = naive.FACES_8


@pytest.mark.slow
def test_naive_simulation_agrees_with_exact_engine():
    # guards the reference itself: plain Python vs the exact engine, 4 players
    m, s = naive.simulate_showdown([12, 11, 7, 1], 2, FACES_8, 4, 6000, seed=1)
    want = exact_table(ctx_at("R C 7 A", 2))
    se = np.where(np.isnan(want), np.nan, s)
    ok = np.isnan(want) | (np.abs(m - want) <= 4 * se + 1e-12)
    assert ok.all(), (m, want, s)


@pytest.mark.slow
@pytest.mark.parametrize("hand,seat,dead", [("R C 7 4", 4, ""), ("S 5 4 A", 0, "R R 3 3 7")])
def test_six_players_against_naive_simulation(hand, seat, dead):
    got = sim(hand, seat, dead=dead, players=6, trials=500_000, seed=77)
    faces = [c.face for c in parse_hand(hand)]
    m, _ = naive.simulate_showdown(faces, seat, FACES_8, 6, 6000, seed=5, dead=[c.face for c in parse_cards(dead)])
    assert_close(got, m, n_ref=6000)


@pytest.mark.parametrize("seat", range(6))
def test_six_players_sanity(seat):
    r = sim("R R 7 5", seat, players=6, trials=300_000, seed=seat)
    p = r.mean[:, :4]
    ok = ~np.isnan(p)
    assert ((p[ok] >= 0) & (p[ok] <= 1)).all()
    team, own, played = r.mean[:, 0], r.mean[:, 1], r.mean[:, 2]
    assert (own <= team).all() and (team <= played).all()
    assert r.mean[0, 2] == 1.0 and r.mean[1, 2] == 1.0  # grande and chica are always played
    # juego or punto: exactly one of them is played
    assert r.mean[3, 2] + r.mean[4, 2] == pytest.approx(1.0, abs=1e-12)
    assert (np.abs(r.mean[:, EV]) <= 9).all()


# ---------------------------------------------------------------- individual play

@pytest.mark.slow
@pytest.mark.parametrize("players,seat", [(3, 1), (5, 4)])
def test_individual_play_against_naive_simulation(players, seat):
    # every player for himself: the team is the seat alone, ties to the seat nearer to mano
    got = sim("C S 7 A", seat, players=players, individual=True, trials=400_000, seed=31)
    m, _ = naive.simulate_showdown([11, 10, 7, 1], seat, FACES_8, players, 5000, seed=8,
                                   teams=list(range(players)))
    assert_close(got, m, n_ref=5000)
    assert np.array_equal(got.mean[:, 0], got.mean[:, 1])  # p_team is p_self


def test_two_players_monte_carlo_agrees_with_the_exact_two_player_engine():
    for seat in (0, 1):
        ctx = ctx_at("R C 7 4", seat, players=2, individual=True)
        got = simulate(ctx, trials=300_000, seed=50 + seat)
        assert_close(got, exact_two(ctx))


# ---------------------------------------------------------------- restrictions (allowed)

def _mask(variant, players, pred):
    """allowed[q, h] = pred(q, [(rank index, points) of hand h]) from the variant's card classes."""
    t = hand_tables(variant)
    cls = variant.classes
    hands = [[(cls[int(k)].rank, cls[int(k)].points) for k in t.cls4[h]] for h in range(t.n_hands)]
    return np.array([[pred(q, hh) for hh in hands] for q in range(players)], bool)


def _has_pares(hand):
    return naive.pares_strength([r for r, _ in hand]) is not None


def _has_juego(hand):
    return sum(p for _, p in hand) >= 31


def test_all_true_allowed_changes_nothing():
    t = hand_tables(V8)
    a = sim("S 6 5 A", 1, trials=300_000, seed=4)
    b = sim("S 6 5 A", 1, trials=300_000, seed=4, allowed=np.ones((4, t.n_hands), bool))
    assert np.array_equal(a.mean, b.mean, equal_nan=True) and b.rejected == 0


def test_user_row_is_ignored():
    t = hand_tables(V8)
    allowed = np.ones((4, t.n_hands), bool)
    allowed[1] = False  # the user's own row
    a = sim("S 6 5 A", 1, trials=100_000, seed=4)
    b = sim("S 6 5 A", 1, trials=100_000, seed=4, allowed=allowed)
    assert np.array_equal(a.mean, b.mean, equal_nan=True)


@pytest.mark.slow
def test_restrictions_against_naive_rejection_sampling():
    # mano declared no pares, postre declared juego; user is second (seat 1)
    def pred(q, hand):
        if q == 0:
            return not _has_pares(hand)
        if q == 3:
            return _has_juego(hand)
        return True

    allowed = _mask(V8, 4, pred)
    got = sim("C 7 6 A", 1, trials=400_000, seed=8, allowed=allowed)
    assert got.rejected > 0
    m, _ = naive.simulate_showdown([11, 7, 6, 1], 1, FACES_8, 4, 5000, seed=9, accept=pred)
    assert_close(got, m, n_ref=5000)
    # structural consequences: mano never wins pares; someone has juego so punto is void
    assert got.mean[4, 2] == 0.0


def test_restrictions_against_exact_engine():
    allowed = _mask(V4, 4, lambda q, hand: q != 2 or _has_pares(hand))
    ctx = ctx_at("R C 7 4", 0, V4, allowed=allowed)
    want = exact_table(ctx)
    got = simulate(ctx, trials=400_000, seed=12)
    assert got.rejected > 0
    assert_close(got, want)
    # the same masks through the declarations of the public API give the same exact odds
    declared = make_context(V4, "R C 7 4", "mano", declared="third:pares")
    assert np.array_equal(exact_table(declared), want, equal_nan=True)


def test_restrictions_pin_the_outcome():
    # the unseen cards are exactly R R R R, A A A A, C C C C and second / third may hold only
    # R R R R / A A A A, so the deal is certain (postre gets C C C C); checked by hand below
    t = hand_tables(V8)
    allowed = np.zeros((4, t.n_hands), bool)
    allowed[1, t.index_of(parse_hand("R R R R"))] = True
    allowed[2, t.index_of(parse_hand("A A A A"))] = True
    allowed[3] = True
    dead = "3 3 3 3 2 2 2 2 S S 7 7 7 7 6 6 6 5 5 5 5 4 4 4"
    r = sim("S S 6 4", 0, dead=dead, trials=300, seed=1, allowed=allowed)
    assert r.rejected > 0 and np.nanmax(r.se) == 0.0
    want = naive.deal_stats([[FACES_8[f] for f in hand] for hand in
                             ([10, 10, 6, 4], [12] * 4, [1] * 4, [11] * 4)], 0)
    assert np.array_equal(r.mean, want, equal_nan=True)
    # docs/rules.md: grande to R R R R; chica to A A A A (partner); pares: duples of reyes beat
    # the other duples, their team scores 3 + 3; juego: 40 and 40 tie, second (nearer to
    # mano) wins, 2 + 2; punto is not played.  User is mano, team of the even seats.
    assert r.mean[0, 0] == 0 and r.mean[0, EV] == -1
    assert r.mean[1, 0] == 1 and r.mean[1, 1] == 0 and r.mean[1, EV] == 1
    assert r.mean[2, 0] == 0 and r.mean[2, EV] == -6 and r.mean[2, CONT] == 1
    assert r.mean[3, 0] == 0 and r.mean[3, EV] == -4 and r.mean[3, CONT] == 0
    assert r.mean[4, 2] == 0


def test_six_players_certain_lances_with_dead_cards():
    # mano holds R R R R; dead cards leave only A, 2, 4, 5, 6 for the other five hands,
    # so nobody else has juego (6+6+6+6 < 31) and nobody can match duples of reyes
    r = sim("R R R R", 0, players=6, dead="3 3 3 3 C C C C S S S S 7 7 7 7", trials=200_000, seed=3)
    assert r.mean[0].tolist()[:3] == [1, 1, 1] and r.mean[0, EV] == 1  # grande
    assert r.mean[2].tolist()[:3] == [1, 1, 1]  # pares: duples of reyes, mano wins ties
    assert r.mean[3].tolist() == [1, 1, 1, 0, 2]  # juego: only mano's 40, worth 2
    assert r.mean[4, 2] == 0 and r.se[3].max() == 0


@pytest.mark.slow
def test_six_player_restrictions_against_naive_rejection_sampling():
    def pred(q, hand):
        if q == 0:
            return not _has_pares(hand)
        if q == 5:
            return _has_juego(hand)
        return True

    allowed = _mask(V8, 6, pred)
    got = sim("C 7 6 A", 3, players=6, trials=400_000, seed=8, allowed=allowed)
    assert got.rejected > 0
    m, _ = naive.simulate_showdown([11, 7, 6, 1], 3, FACES_8, 6, 4000, seed=19, accept=pred)
    assert_close(got, m, n_ref=4000)


@pytest.mark.parametrize("players,seat,q", [(4, 0, 1), (4, 0, 3), (4, 2, 3), (6, 0, 5), (6, 3, 4)])
def test_acceptance_rate_matches_combinatorics(players, seat, q):
    # only seat q is restricted, to hands with at least one rey; every seat's hand must be
    # a uniform 4-card draw from the unseen cards, so the acceptance rate is
    # 1 - C(n - r, 4) / C(n, 4) with n unseen cards, r of them reyes (docs/rules.md: 8 reyes)
    top = V8.n_ranks - 1  # _mask gives ranks as indices, 0 = lowest
    allowed = _mask(V8, players, lambda qq, hand: qq != q or any(r == top for r, _ in hand))
    r = sim("R 7 5 A", seat, players=players, dead="3 3 C", trials=100_000, seed=q, allowed=allowed)
    n, kings = 40 - 4 - 3, 8 - 1 - 2
    p = 1 - comb(n - kings, 4) / comb(n, 4)
    attempts = r.trials + r.rejected
    assert abs(r.trials / attempts - p) <= 4 * np.sqrt(p * (1 - p) / attempts)


def test_impossible_restrictions_raise():
    t = hand_tables(V8)
    allowed = np.ones((4, t.n_hands), bool)
    allowed[2] = False
    with pytest.raises(MusError, match="no deal satisfies the conditions"):
        sim("S 6 5 A", 0, trials=1000, seed=1, allowed=allowed)
    # each seat alone can hold four reyes, but three seats cannot (8 reyes in the deck)
    four = np.zeros((4, t.n_hands), bool)
    four[:, t.index_of(parse_hand("R R R R"))] = True
    with pytest.raises(MusError, match="no deal satisfies the conditions"):
        sim("S 6 5 A", 0, trials=1000, seed=1, allowed=four)


# ---------------------------------------------------------------- bad inputs

@pytest.mark.parametrize("kwargs,match", [
    ({"trials": 0}, "trials"),
    ({"trials": -5}, "trials"),
    ({"trials": 2.5}, "trials"),
    ({"target_se": 0.0}, "target_se"),
    ({"target_se": 0.5}, "target_se"),
    ({"target_se": -0.1}, "target_se"),
    ({"target_se": float("nan")}, "target_se"),
    ({"trials": 100, "target_se": 0.01}, "either trials or target_se"),
    ({"threads": 0}, "threads"),
    ({"threads": 10_000}, "threads"),
    ({"players": 5}, "players"),
    ({"players": 7, "individual": True}, "players"),
    ({"players": 6, "seat": 7}, "seat"),
    ({"seat": 5}, "seat"),
    ({"seat": 0}, "seat"),
    ({"seat": -1}, "seat"),
    ({"seed": -3}, "seed"),
    ({"dead": "R/o", "hand": "R/o C 7 4"}, "appears 2 times"),
    ({"dead": "R R R R R"}, "4"),
    ({"hand": "R R R R", "dead": "3 3 3 3 3"}, "deck"),
    ({"dead": "C C C S S S S 7 7 7 7 6 6 6 6 5 5 5 5 4 4 4 4 A A", "hand": "R R R R"}, "other hands need"),
    ({"dead": "C C C S S S S 7 7 7 7 6 6 6 6 5 5", "players": 6, "hand": "R R R R"}, "other hands need"),
    ({"allowed": np.ones((3, 330), bool)}, "shape"),
    ({"allowed": np.ones((4, 330))}, "boolean"),
    ({"hand": "R C 7"}, "exactly 4 cards"),
])
def test_bad_inputs_raise_mus_error(kwargs, match):
    args = {"hand": "R C 7 4", "seat": 1, "players": 4, "individual": False, "dead": None, "allowed": None}
    args.update(kwargs)
    ctx_args = {k: args.pop(k) for k in ("hand", "seat", "players", "individual", "dead", "allowed")}
    with pytest.raises(MusError, match=match) as info:
        ctx = make_context(V8, ctx_args["hand"], ctx_args["seat"], dead=ctx_args["dead"],
                           seating=Seating(ctx_args["players"], ctx_args["individual"]))
        if ctx_args["allowed"] is not None:
            ctx = replace(ctx, allowed=ctx_args["allowed"])
        simulate(ctx, **args)  # seats are numbers from 1 = mano at the boundary
    assert "\n" not in str(info.value)


def test_error_is_one_line_and_says_what_is_accepted():
    with pytest.raises(MusError) as info:
        make_context(V8, "R C 7 4", "mano", seating=Seating(5))
    assert str(info.value) == "5 players play individually (--individual): partners need 4 or 6 players"
