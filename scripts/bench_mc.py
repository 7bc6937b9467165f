"""Benchmark of the Monte Carlo engine: showdown deals per second.

One deal = the unseen cards dealt to the three other seats and all five lances evaluated
for all four hands (the full work of ``musstats.engines.montecarlo.simulate``).  Measured in one
run, median of a few repetitions:

* the numba kernel through ``simulate`` at 2 threads (fewer if the machine has fewer);
* the same simulation in plain Python (partial Fisher–Yates with ``random``, the same
  lookup tables as Python lists, the same lance evaluation) on far fewer deals;
* for context, a vectorised numpy version (no numba).

Usage: ``.venv/bin/python scripts/bench_mc.py [--deals N] [--py-deals N] [--reps R]``
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time

import numpy as np

from musstats.rules.cards import parse_hand
from musstats.tables.hands import hand_tables
from musstats.engines.montecarlo import simulate
from musstats.tables.context import make_context
from musstats.rules.variant import Variant

HAND = "R C 7 4"
SEAT = 1


def python_simulate(hand, seat: int, variant: Variant, deals: int, seed: int) -> list[list[int]]:
    """Plain-Python version of the kernel: counts [lance][team, self, played, contested, ev, ev2]."""
    t = hand_tables(variant)
    k = t.n_classes
    rem = t.remaining(hand)
    deck = [c for c in range(k) for _ in range(int(rem[c]))]
    n_stock = len(deck)
    idx4 = t.idx4.tolist()
    key = t.key.tolist()
    val = t.value.tolist()
    user = t.index_of(hand)
    ut = seat % 2
    rng = random.Random(seed)
    acc = [[0] * 6 for _ in range(5)]
    hs = [0, 0, 0, 0]
    hs[seat] = user
    for _ in range(deals):
        j = 0
        for q in range(4):
            if q == seat:
                continue
            for i in range(j, j + 4):  # partial Fisher-Yates
                r = rng.randrange(i, n_stock)
                deck[i], deck[r] = deck[r], deck[i]
            hs[q] = idx4[((deck[j] * k + deck[j + 1]) * k + deck[j + 2]) * k + deck[j + 3]]
            j += 4
        any_juego = any(key[3][h] > 0 for h in hs)
        for lance in range(5):
            kl = key[lance]
            best, win = -1, 0
            for q in range(4):  # ties go to the seat nearer to mano
                if kl[hs[q]] > best:
                    best, win = kl[hs[q]], q
            if lance in (2, 3):
                if best == 0:
                    continue
                stones = sum(val[lance][hs[q]] for q in range(4) if q % 2 == win % 2)
                held = [any(kl[hs[q]] > 0 for q in range(t0, 4, 2)) for t0 in (0, 1)]
                acc[lance][3] += held[0] and held[1]
            elif lance == 4 and any_juego:
                continue
            else:
                stones = 1
            a = acc[lance]
            ours = win % 2 == ut
            a[0] += ours
            a[1] += win == seat
            a[2] += 1
            a[4] += stones if ours else -stones
            a[5] += stones * stones
    return acc


def numpy_simulate(hand, seat: int, variant: Variant, deals: int, seed: int) -> np.ndarray:
    """Vectorised numpy version (uniform permutations by argsort of random keys)."""
    t = hand_tables(variant)
    k = t.n_classes
    rem = t.remaining(hand)
    stock = np.repeat(np.arange(k), rem)
    rng = np.random.default_rng(seed)
    acc = np.zeros((5, 6), np.int64)
    batch = 100_000
    others = [q for q in range(4) if q != seat]
    for start in range(0, deals, batch):
        b = min(batch, deals - start)
        perm = np.argsort(rng.random((b, stock.size)), axis=1)[:, :12]
        cards = stock[perm].reshape(b, 3, 4)
        hidx = t.idx4[((cards[..., 0] * k + cards[..., 1]) * k + cards[..., 2]) * k + cards[..., 3]]
        hs = np.empty((b, 4), np.int64)
        hs[:, seat] = t.index_of(hand)
        hs[:, others] = hidx
        any_juego = (t.key[3][hs] > 0).any(axis=1)
        for lance in range(5):
            kk = t.key[lance][hs]  # [b, 4]
            win = np.argmax(kk, axis=1)  # first maximum: the seat nearer to mano
            best = kk[np.arange(b), win]
            if lance in (2, 3):
                played = best > 0
                v = t.value[lance][hs]
                team_v = np.where(win % 2 == 0, v[:, 0] + v[:, 2], v[:, 1] + v[:, 3])
                held = kk > 0
                acc[lance, 3] += int(((held[:, 0] | held[:, 2]) & (held[:, 1] | held[:, 3])).sum())
            else:
                played = ~any_juego if lance == 4 else np.ones(b, bool)
                team_v = np.ones(b, np.int64)
            ours = (win % 2 == seat % 2) & played
            ev = np.where(ours, team_v, -team_v) * played
            acc[lance, 0] += int(ours.sum())
            acc[lance, 1] += int(((win == seat) & played).sum())
            acc[lance, 2] += int(played.sum())
            acc[lance, 4] += int(ev.sum())
            acc[lance, 5] += int((ev * ev).sum())
    return acc


def _median_rate(fn, deals: int, reps: int) -> float:
    rates = []
    for r in range(reps):
        t0 = time.perf_counter()
        fn(deals, r)
        rates.append(deals / (time.perf_counter() - t0))
    return statistics.median(rates)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=40_000_000, help="deals per numba repetition")
    ap.add_argument("--py-deals", type=int, default=20_000, help="deals per plain-Python repetition")
    ap.add_argument("--np-deals", type=int, default=1_000_000, help="deals per numpy repetition")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()

    import numba

    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    v = Variant()
    hand = parse_hand(HAND)
    ctx = make_context(v, hand, SEAT + 1)
    simulate(ctx, trials=100_000, seed=0, threads=threads)  # compile / load the cache

    nb = _median_rate(lambda n, r: simulate(ctx, trials=n, seed=r, threads=threads),
                      args.deals, args.reps)
    py = _median_rate(lambda n, r: python_simulate(hand, SEAT, v, n, r), args.py_deals,
                      max(3, args.reps // 2))
    vec = _median_rate(lambda n, r: numpy_simulate(hand, SEAT, v, n, r), args.np_deals,
                       max(3, args.reps // 2))

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"numba {numba.__version__} ({numba.threading_layer()} threads)")
    print(f"hand {HAND!r} at seat {SEAT}, 8 reyes, 4 players; median of {args.reps} repetitions")
    print(f"numba kernel, {threads} threads : {nb / 1e6:10.2f} M deals/s  ({args.deals:,} deals/rep)")
    print(f"plain Python baseline     : {py / 1e6:10.4f} M deals/s  ({args.py_deals:,} deals/rep)")
    print(f"ratio numba / plain Python: {nb / py:10.0f} x")
    print(f"(context) numpy vectorised: {vec / 1e6:10.3f} M deals/s  -> numba is {nb / vec:.0f} x faster")


if __name__ == "__main__":
    main()
