"""Monte Carlo engine: agreement with the exact engine and with an independent naive
simulation, reproducibility across thread counts, target_se, six players, restrictions,
interrupts and input validation.

Expected values come from the exact engine, from RULES.md, or from the plain-Python
simulation below (its own card model and lance evaluation, written from RULES.md).
"""

from __future__ import annotations

import inspect
import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from musstats.engines import montecarlo as mc
from musstats.engines.random import seed_states
from musstats.rules.cards import parse_cards, parse_hand
from musstats.base.errors import MusError
from musstats.engines.exact import STATS, exact_counts, exact_table
from musstats.tables.hands import LANCES, hand_tables
from musstats.engines.montecarlo import CHUNK, McResult, simulate
from musstats.rules.variant import Variant

ROOT = Path(__file__).resolve().parents[1]
CONT = STATS.index("p_contested")
EV = STATS.index("ev_net")
V8 = Variant()
V4 = Variant(deck="4-reyes")


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
    counts, total = exact_counts(hand, variant, dead)
    den = np.broadcast_to(np.asarray(total, dtype=np.float64), (4,))
    out = counts[:, :, :len(STATS)].astype(np.float64) / den[:, None, None]
    out[:, [0, 1, 4], CONT] = np.nan
    return out


def test_exact_all_seats_matches_exact_table():
    h = parse_hand("S 6 5 A")
    assert np.array_equal(exact_all_seats(h, V8, [])[2], exact_table(h, 2, V8), equal_nan=True)


@pytest.mark.parametrize("variant,hand,dead", EXACT_CASES)
def test_agrees_with_exact_engine(variant, hand, dead):
    h, d = parse_hand(hand), parse_cards(dead)
    want = exact_all_seats(h, variant, d)
    for seat in range(4):
        got = simulate(h, seat, variant, dead=d, trials=600_000, seed=1000 + seat)
        assert got.trials == 600_000 and not got.partial and got.rejected == 0
        assert_close(got, want[seat])


def test_certain_outcomes_have_zero_se():
    # Mano with 31 (R C 7 4 is 10+10+7+4) always wins juego, so punto is never played.
    got = simulate(parse_hand("R C 7 4"), 0, trials=200_000, seed=3)
    j, p = LANCES.index("juego"), LANCES.index("punto")
    assert got.mean[j, 0] == 1.0 and got.se[j, 0] == 0.0
    assert got.mean[p, 2] == 0.0 and got.se[p, 2] == 0.0 and got.se[p, EV] == 0.0


# ---------------------------------------------------------------- reproducibility

_SNIPPET = """
import json, numpy as np
from musstats.rules.cards import parse_hand, parse_cards
from musstats.engines.montecarlo import simulate
from musstats.tables.hands import hand_tables
from musstats.rules.variant import Variant
out = {}
h = parse_hand("R C 7 4")
r = simulate(h, 1, trials=1_234_567, seed=42)
out["four"] = [r.mean.tobytes().hex(), r.se.tobytes().hex(), r.trials]
r = simulate(h, 4, players=6, dead=parse_cards("A A"), trials=700_001, seed=7)
out["six"] = [r.mean.tobytes().hex(), r.trials]
t = hand_tables(Variant())
allowed = np.ones((4, t.n_hands), bool)
allowed[2] = t.key[2] > 0  # third holds pares
r = simulate(h, 0, trials=300_000, seed=9, allowed=allowed)
out["allowed"] = [r.mean.tobytes().hex(), r.trials, r.rejected]
r = simulate(h, 1, target_se=0.004, seed=11)
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
    h = parse_hand("S 6 5 A")
    a = simulate(h, 2, trials=500_000, seed=5, threads=1)
    b = simulate(h, 2, trials=500_000, seed=5)
    c = simulate(h, 2, trials=500_000, seed=6)
    assert np.array_equal(a.mean, b.mean, equal_nan=True) and np.array_equal(a.se, b.se, equal_nan=True)
    assert not np.array_equal(a.mean, c.mean, equal_nan=True)


def test_no_seed_reports_a_seed_that_reproduces_the_run():
    h = parse_hand("R R C 4")
    a = simulate(h, 3, trials=100_000)
    assert isinstance(a.seed, int) and a.seed >= 0
    b = simulate(h, 3, trials=100_000, seed=a.seed)
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
    mean, se = mc._estimates(acc, 4)
    assert mean[0, 0] == 0.75 and se[0, 0] == pytest.approx(np.sqrt(0.75 * 0.25 / 4))
    assert mean[0, 1] == 0.5 and se[0, 1] == pytest.approx(np.sqrt(0.25 / 4))
    assert mean[0, EV] == 0.5
    # sample variance of (1, 1, -1, 1) is 1 (statistics.variance), so SE = sqrt(1 / 4)
    assert se[0, EV] == pytest.approx(0.5)
    assert np.isnan(mean[0, CONT]) and np.isnan(se[0, CONT]) and not np.isnan(mean[2, CONT])


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
    h = parse_hand("R C 7 4")
    r = simulate(h, 1, target_se=0.002, seed=21)
    assert not r.partial and r.trials % CHUNK == 0
    assert np.nanmax(r.se) < 0.002
    applicable = ~np.isnan(exact_table(h, 1))
    assert np.array_equal(~np.isnan(r.se), applicable)
    # it did not run far beyond what was needed: with half the trials some SE is above target
    assert np.nanmax(r.se) * np.sqrt(2) > 0.002 * 0.9
    again = simulate(h, 1, target_se=0.002, seed=21)
    assert again.trials == r.trials and np.array_equal(again.mean, r.mean, equal_nan=True)


def test_target_se_cap_marks_partial(monkeypatch):
    monkeypatch.setattr(mc, "MAX_TRIALS", 20 * CHUNK)
    r = simulate(parse_hand("R C 7 4"), 0, target_se=1e-4, seed=1)
    assert r.partial and r.trials == 20 * CHUNK
    assert np.nanmax(r.se) >= 1e-4


def test_interrupt_between_batches_returns_partial(monkeypatch):
    real = mc._run_batch
    calls = []

    def flaky(job, start, sizes):
        calls.append(len(sizes))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(job, start, sizes)

    monkeypatch.setattr(mc, "_run_batch", flaky)
    r = simulate(parse_hand("R C 7 4"), 0, trials=100 * CHUNK, seed=2)
    assert r.partial and r.trials == calls[0] * CHUNK
    # what was computed is the same as a run of exactly those chunks
    monkeypatch.setattr(mc, "_run_batch", real)
    full = simulate(parse_hand("R C 7 4"), 0, trials=calls[0] * CHUNK, seed=2)
    assert np.array_equal(r.mean, full.mean, equal_nan=True)


def test_interrupt_before_any_result_propagates(monkeypatch):
    def boom(job, start, sizes):
        raise KeyboardInterrupt

    monkeypatch.setattr(mc, "_run_batch", boom)
    with pytest.raises(KeyboardInterrupt):
        simulate(parse_hand("R C 7 4"), 0, trials=1000, seed=2)


_CTRL_C_CHILD = """
import sys
from musstats.engines.montecarlo import simulate
simulate("R C 7 4", 1, trials=1000, seed=1)  # load the kernel first
print("ready", flush=True)
r = simulate("R C 7 4", 1, trials=2_000_000_000, seed=1)
print(r.trials, r.partial, r.trials % 65536, flush=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_real_ctrl_c_stops_after_the_running_batch():
    import signal
    import time

    child = subprocess.Popen([sys.executable, "-c", _CTRL_C_CHILD], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert child.stdout.readline().strip() == "ready"
    time.sleep(1.0)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    trials, partial, rest = out.split()
    assert 0 < int(trials) < 2_000_000_000 and partial == "True" and rest == "0"


def test_progress_bar_silent_when_stderr_is_not_a_tty(capfd):
    simulate(parse_hand("R C 7 4"), 0, trials=300_000, seed=2, progress=True)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_progress_bar_path_runs(monkeypatch):
    monkeypatch.setattr(mc, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    r = simulate(parse_hand("R C 7 4"), 0, trials=40 * CHUNK, seed=2, progress=True)
    assert r.trials == 40 * CHUNK and not r.partial


# ---------------------------------------------------------------- independent naive simulation

# (rank for grande/chica/pares, points) per physical face, from RULES.md "Deck"
FACES_8 = {12: (12, 10), 3: (12, 10), 11: (11, 10), 10: (10, 10), 7: (7, 7), 6: (6, 6),
           5: (5, 5), 4: (4, 4), 2: (1, 1), 1: (1, 1)}
FACES_4 = {12: (12, 10), 11: (11, 10), 10: (10, 10), 7: (7, 7), 6: (6, 6), 5: (5, 5), 4: (4, 4),
           3: (3, 3), 2: (2, 2), 1: (1, 1)}
JUEGO_BEST_FIRST = (31, 32, 40, 37, 36, 35, 34, 33)


def naive_pares(ranks):
    """(category, high, low), None without pares; four of a kind counts as duples."""
    c = Counter(ranks)
    groups = sorted(((m, r) for r, m in c.items() if m >= 2), reverse=True)
    if not groups:
        return None
    if groups[0][0] == 4:
        return (3, groups[0][1], groups[0][1])
    if len(groups) == 2:
        hi, lo = sorted((groups[0][1], groups[1][1]), reverse=True)
        return (3, hi, lo)
    if groups[0][0] == 3:
        return (2, groups[0][1], 0)
    return (1, groups[0][1], 0)


def naive_lances(hand):
    """Per lance (strength or None, stones en paso) for one hand of (rank, points) cards."""
    ranks = [r for r, _ in hand]
    pts = sum(p for _, p in hand)
    pares = naive_pares(ranks)
    juego = len(JUEGO_BEST_FIRST) - JUEGO_BEST_FIRST.index(pts) if pts >= 31 else None
    return {
        "grande": (tuple(sorted(ranks, reverse=True)), 1),
        "chica": (tuple(-r for r in sorted(ranks)), 1),
        "pares": (pares, pares[0] if pares else 0),
        "juego": (juego, 0 if juego is None else (3 if pts == 31 else 2)),
        "punto": (pts if pts < 31 else None, 1),
    }


def naive_deal_stats(hands, seat):
    """[5, 5] outcome of one deal for ``seat`` (STATS order; NaN contested where it does not apply)."""
    ev = [naive_lances(h) for h in hands]
    n = len(hands)
    out = np.zeros((5, 5))
    anyone_juego = any(e["juego"][0] is not None for e in ev)
    for li, lance in enumerate(LANCES):
        strengths = [e[lance][0] for e in ev]
        best = None
        for q in range(n):  # ties go to the seat nearer to mano
            if strengths[q] is not None and (best is None or strengths[q] > strengths[best]):
                best = q
        played = best is not None and not (lance == "punto" and anyone_juego)
        if lance in ("pares", "juego"):
            held = [any(strengths[q] is not None for q in range(n) if q % 2 == t) for t in (0, 1)]
            out[li, CONT] = float(held[0] and held[1])
        else:
            out[li, CONT] = np.nan
        if not played:
            continue
        ours = best % 2 == seat % 2
        if lance in ("pares", "juego"):
            stones = sum(ev[q][lance][1] for q in range(n) if q % 2 == best % 2)
        else:
            stones = 1
        out[li, :3] = (ours, best == seat, 1.0)
        out[li, EV] = stones if ours else -stones
    return out


def naive_simulate(hand, seat, faces, n_players, deals, seed, dead=(), accept=None):
    """Plain-Python Monte Carlo: mean [5, 5] and SE [5, 5] over ``deals`` accepted deals."""
    rng = random.Random(seed)
    deck = [f for f in faces for _ in range(4)]  # four suits of every face
    for c in list(hand) + list(dead):
        deck.remove(c)
    mine = [faces[f] for f in hand]
    rows = []
    while len(rows) < deals:
        cards = rng.sample(deck, 4 * (n_players - 1))
        hands, k = [], 0
        for q in range(n_players):
            if q == seat:
                hands.append(mine)
            else:
                hands.append([faces[f] for f in cards[k:k + 4]])
                k += 4
        if accept is not None and not all(accept(q, hands[q]) for q in range(n_players) if q != seat):
            continue
        rows.append(naive_deal_stats(hands, seat))
    a = np.array(rows)
    return a.mean(axis=0), a.std(axis=0, ddof=1) / np.sqrt(len(rows))


def test_naive_simulation_agrees_with_exact_engine():
    # guards the reference itself: plain Python vs the exact engine, 4 players
    m, s = naive_simulate([12, 11, 7, 1], 2, FACES_8, 4, 6000, seed=1)
    want = exact_table(parse_hand("R C 7 A"), 2)
    se = np.where(np.isnan(want), np.nan, s)
    ok = np.isnan(want) | (np.abs(m - want) <= 4 * se + 1e-12)
    assert ok.all(), (m, want, s)


@pytest.mark.parametrize("hand,seat,dead", [("R C 7 4", 4, ""), ("S 5 4 A", 0, "R R 3 3 7")])
def test_six_players_against_naive_simulation(hand, seat, dead):
    h = parse_hand(hand)
    got = simulate(h, seat, dead=parse_cards(dead), players=6, trials=500_000, seed=77)
    faces = [c.face for c in h]
    m, _ = naive_simulate(faces, seat, FACES_8, 6, 6000, seed=5,
                          dead=[c.face for c in parse_cards(dead)])
    assert_close(got, m, n_ref=6000)


@pytest.mark.parametrize("seat", range(6))
def test_six_players_sanity(seat):
    r = simulate(parse_hand("R R 7 5"), seat, players=6, trials=300_000, seed=seat)
    p = r.mean[:, :4]
    ok = ~np.isnan(p)
    assert ((p[ok] >= 0) & (p[ok] <= 1)).all()
    team, own, played = r.mean[:, 0], r.mean[:, 1], r.mean[:, 2]
    assert (own <= team).all() and (team <= played).all()
    assert r.mean[0, 2] == 1.0 and r.mean[1, 2] == 1.0  # grande and chica are always played
    # juego or punto: exactly one of them is played
    assert r.mean[3, 2] + r.mean[4, 2] == pytest.approx(1.0, abs=1e-12)
    assert (np.abs(r.mean[:, EV]) <= 9).all()


# ---------------------------------------------------------------- restrictions (allowed)

def _mask(variant, players, pred):
    """allowed[q, h] = pred(q, [(rank index, points) of hand h]) from the variant's card classes."""
    t = hand_tables(variant)
    cls = variant.classes
    hands = [[(cls[int(k)].rank, cls[int(k)].points) for k in t.cls4[h]] for h in range(t.n_hands)]
    return np.array([[pred(q, hh) for hh in hands] for q in range(players)], bool)


def _has_pares(hand):
    return naive_pares([r for r, _ in hand]) is not None


def _has_juego(hand):
    return sum(p for _, p in hand) >= 31


def test_all_true_allowed_changes_nothing():
    t = hand_tables(V8)
    h = parse_hand("S 6 5 A")
    a = simulate(h, 1, trials=300_000, seed=4)
    b = simulate(h, 1, trials=300_000, seed=4, allowed=np.ones((4, t.n_hands), bool))
    assert np.array_equal(a.mean, b.mean, equal_nan=True) and b.rejected == 0


def test_user_row_is_ignored():
    t = hand_tables(V8)
    h = parse_hand("S 6 5 A")
    allowed = np.ones((4, t.n_hands), bool)
    allowed[1] = False  # the user's own row
    a = simulate(h, 1, trials=100_000, seed=4)
    b = simulate(h, 1, trials=100_000, seed=4, allowed=allowed)
    assert np.array_equal(a.mean, b.mean, equal_nan=True)


def test_restrictions_against_naive_rejection_sampling():
    # mano declared no pares, postre declared juego; user is second (seat 1)
    def pred(q, hand):
        if q == 0:
            return not _has_pares(hand)
        if q == 3:
            return _has_juego(hand)
        return True

    allowed = _mask(V8, 4, pred)
    got = simulate(parse_hand("C 7 6 A"), 1, trials=400_000, seed=8, allowed=allowed)
    assert got.rejected > 0
    m, _ = naive_simulate([11, 7, 6, 1], 1, FACES_8, 4, 5000, seed=9, accept=pred)
    assert_close(got, m, n_ref=5000)
    # structural consequences: mano never wins pares; someone has juego so punto is void
    assert got.mean[4, 2] == 0.0


def test_restrictions_against_exact_engine_when_it_supports_them():
    if "allowed" not in inspect.signature(exact_table).parameters:
        pytest.skip("exact engine without restrictions")
    allowed = _mask(V4, 4, lambda q, hand: q != 2 or _has_pares(hand))
    h = parse_hand("R C 7 4")
    want = exact_table(h, 0, V4, allowed=allowed)
    got = simulate(h, 0, V4, trials=400_000, seed=12, allowed=allowed)
    assert_close(got, want)


def test_restrictions_pin_the_outcome():
    # the unseen cards are exactly R R R R, A A A A, C C C C and second / third may hold only
    # R R R R / A A A A, so the deal is certain (postre gets C C C C); checked by hand below
    t = hand_tables(V8)
    allowed = np.zeros((4, t.n_hands), bool)
    allowed[1, t.index_of(parse_hand("R R R R"))] = True
    allowed[2, t.index_of(parse_hand("A A A A"))] = True
    allowed[3] = True
    dead = "3 3 3 3 2 2 2 2 S S 7 7 7 7 6 6 6 5 5 5 5 4 4 4"
    r = simulate("S S 6 4", 0, dead=dead, trials=300, seed=1, allowed=allowed)
    assert r.rejected > 0 and np.nanmax(r.se) == 0.0
    want = naive_deal_stats([[FACES_8[f] for f in hand] for hand in
                             ([10, 10, 6, 4], [12] * 4, [1] * 4, [11] * 4)], 0)
    assert np.array_equal(r.mean, want, equal_nan=True)
    # RULES.md: grande to R R R R; chica to A A A A (partner); pares: duples of reyes beat
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
    r = simulate("R R R R", 0, players=6, dead="3 3 3 3 C C C C S S S S 7 7 7 7",
                 trials=200_000, seed=3)
    assert r.mean[0].tolist()[:3] == [1, 1, 1] and r.mean[0, EV] == 1  # grande
    assert r.mean[2].tolist()[:3] == [1, 1, 1]  # pares: duples of reyes, mano wins ties
    assert r.mean[3].tolist() == [1, 1, 1, 0, 2]  # juego: only mano's 40, worth 2
    assert r.mean[4, 2] == 0 and r.se[3].max() == 0


def test_six_player_restrictions_against_naive_rejection_sampling():
    def pred(q, hand):
        if q == 0:
            return not _has_pares(hand)
        if q == 5:
            return _has_juego(hand)
        return True

    allowed = _mask(V8, 6, pred)
    got = simulate("C 7 6 A", 3, players=6, trials=400_000, seed=8, allowed=allowed)
    assert got.rejected > 0
    m, _ = naive_simulate([11, 7, 6, 1], 3, FACES_8, 6, 4000, seed=19, accept=pred)
    assert_close(got, m, n_ref=4000)


@pytest.mark.parametrize("players,seat,q", [(4, 0, 1), (4, 0, 3), (4, 2, 3), (6, 0, 5), (6, 3, 4)])
def test_acceptance_rate_matches_combinatorics(players, seat, q):
    # only seat q is restricted, to hands with at least one rey; every seat's hand must be
    # a uniform 4-card draw from the unseen cards, so the acceptance rate is
    # 1 - C(n - r, 4) / C(n, 4) with n unseen cards, r of them reyes (RULES.md: 8 reyes)
    from math import comb

    top = V8.n_ranks - 1  # _mask gives ranks as indices, 0 = lowest
    allowed = _mask(V8, players, lambda qq, hand: qq != q or any(r == top for r, _ in hand))
    r = simulate("R 7 5 A", seat, players=players, dead="3 3 C", trials=100_000, seed=q,
                 allowed=allowed)
    n, kings = 40 - 4 - 3, 8 - 1 - 2
    p = 1 - comb(n - kings, 4) / comb(n, 4)
    attempts = r.trials + r.rejected
    assert abs(r.trials / attempts - p) <= 4 * np.sqrt(p * (1 - p) / attempts)


def test_impossible_restrictions_raise():
    t = hand_tables(V8)
    h = parse_hand("S 6 5 A")
    allowed = np.ones((4, t.n_hands), bool)
    allowed[2] = False
    with pytest.raises(MusError, match="no deal can satisfy"):
        simulate(h, 0, trials=1000, seed=1, allowed=allowed)
    # each seat alone can hold four reyes, but three seats cannot (8 reyes in the deck)
    four = np.zeros((4, t.n_hands), bool)
    four[:, t.index_of(parse_hand("R R R R"))] = True
    with pytest.raises(MusError, match="no deal can satisfy"):
        simulate(h, 0, trials=1000, seed=1, allowed=four)


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
    ({"players": 6, "seat": 6}, "seat"),
    ({"seat": 4}, "seat"),
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
    args = {"hand": "R C 7 4", "seat": 0}
    args.update(kwargs)
    hand, seat = args.pop("hand"), args.pop("seat")  # simulate parses card strings too
    with pytest.raises(MusError, match=match) as info:
        simulate(hand, seat, **args)
    assert "\n" not in str(info.value)


def test_error_is_one_line_and_says_what_is_accepted():
    with pytest.raises(MusError) as info:
        simulate(parse_hand("R C 7 4"), 0, players=5)
    assert str(info.value) == "players must be 4 or 6, got 5"
