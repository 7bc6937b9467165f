"""Numba kernel of the Monte Carlo showdown engine (private; see musstats.engines.montecarlo).

Each chunk of trials runs its own xoshiro256** generator (:mod:`musstats._kernels.rng`),
seeded on the host.  A deal is a partial Fisher–Yates shuffle of the unseen cards; each
card is stored as the *weight* of its class (``CLASS_WEIGHTS``, a set whose 4-card sums
are all distinct), so a hand's index is ``by_sum[sum of its 4 weights]``.  The lances of
a deal are resolved by :func:`musstats._kernels.lances.resolve`, and each deal's outcome
is tallied in a small histogram from which the integer counts are derived.  Counts are
integers, so the total over chunks depends neither on the order of the chunks nor on the
number of threads.  Any number of players from 2 to 6, with any assignment of seats to
teams (partners, or every player for himself).
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np
from numba import njit, prange

from musstats._kernels.lances import CHICA, GRANDE, PARES, PUNTO, resolve, winner_seat
from musstats._kernels.rng import M16 as _M16
from musstats._kernels.rng import bounded16 as _bounded16
from musstats._kernels.rng import next64 as _next

__all__ = ["TEAM", "SELF", "PLAYED", "CONTESTED", "EV_SUM", "EV_SQ", "N_ACC", "N_VAL", "HOPELESS_ATTEMPTS",
           "CLASS_WEIGHTS", "sum_index", "hist_size", "mc_counts"]

# accumulator columns per lance
TEAM, SELF, PLAYED, CONTESTED, EV_SUM, EV_SQ = range(6)
N_ACC = 6
#: team values of pares / juego span 0 .. N_VAL - 1 (three hands of duples: 9)
N_VAL = 10
#: a chunk gives up when this many deals in a row were all rejected and none accepted yet
HOPELESS_ATTEMPTS = 1_000_000
#: greedy B4 sequence: every multiset of 4 of these has a distinct sum (checked below)
CLASS_WEIGHTS = (0, 1, 5, 21, 55, 153, 368, 856, 1424, 2603, 4967)


def sum_index(cls4: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """(weight of each class int64 [K], hand index by weight sum int16 [4 * max weight + 1])."""
    if n_classes > len(CLASS_WEIGHTS):
        raise ValueError(f"at most {len(CLASS_WEIGHTS)} card classes are supported")
    weights = np.array(CLASS_WEIGHTS[:n_classes], np.int64)
    sums = {sum(c) for c in combinations_with_replacement(CLASS_WEIGHTS[:n_classes], 4)}
    assert len(sums) == len(list(combinations_with_replacement(range(n_classes), 4)))
    by_sum = np.full(4 * int(weights[-1]) + 1, -1, np.int16)
    for h, cls in enumerate(cls4):
        by_sum[weights[np.asarray(cls, np.int64)].sum()] = h
    return weights, by_sum


@njit(cache=True, inline="always")
def _swap_in(deck, j, r16, n_stock, st):
    """Partial Fisher–Yates step: move a uniformly chosen card of deck[j:] to deck[j]."""
    a = j + _bounded16(r16, n_stock - j, st)
    c = deck[a]
    deck[a] = deck[j]
    deck[j] = c
    return c


@njit(cache=True, inline="always")
def _deal_hand(deck, j, n_stock, st, by_sum):
    """Draw 4 cards into deck[j:j+4]; their hand index (indices are unsigned: no wraparound)."""
    r = _next(st)
    one = np.uint64(1)
    w = _swap_in(deck, j, r & _M16, n_stock, st)
    w += _swap_in(deck, j + one, (r >> np.uint64(16)) & _M16, n_stock, st)
    w += _swap_in(deck, j + np.uint64(2), (r >> np.uint64(32)) & _M16, n_stock, st)
    w += _swap_in(deck, j + np.uint64(3), r >> np.uint64(48), n_stock, st)
    return np.uint64(by_sum[np.uint64(w)])


@njit(cache=True, inline="always")
def _tally(hist, n, bg, bc, bp, bj, bu, cp, cj, vp, vj):
    """Count one deal's outcome (the resolved lances, :func:`musstats._kernels.lances.resolve`).

    ``hist`` layout: [grande winner x chica winner | pares code | juego code | punto winner]
    where a pares/juego code is 0 (nobody holds it) or 1 + (winner * 2 + contested) *
    N_VAL + stones of the winning team, and contested means two or more teams hold it.
    """
    n_pj = 1 + n * 2 * N_VAL
    hist[winner_seat(bg) * n + winner_seat(bc)] += 1
    base = n * n
    code = 0
    if bp >= 8:
        code = 1 + (winner_seat(bp) * 2 + (1 if cp else 0)) * N_VAL + vp
    hist[base + code] += 1
    base += n_pj
    if bj >= 8:
        code = 1 + (winner_seat(bj) * 2 + (1 if cj else 0)) * N_VAL + vj
    else:  # punto is played exactly when nobody holds juego
        code = n_pj + winner_seat(bu)
    hist[base + code] += 1


@njit(cache=True)
def hist_size(n_players):
    """Length of the outcome histogram of one chunk."""
    return n_players * n_players + 2 * (1 + n_players * 2 * N_VAL) + n_players


@njit(cache=True)
def _counts(hist, n, seat, team, done, out):
    """Counts [5, 6] (TEAM .. EV_SQ per lance) of the user at ``seat`` from a histogram."""
    ut = team[seat]
    n_gc = n * n
    n_pj = 1 + n * 2 * N_VAL
    out[:, :] = 0
    for wg in range(n):
        for wc in range(n):
            k = hist[wg * n + wc]
            out[GRANDE, TEAM] += k * (team[wg] == ut)
            out[GRANDE, SELF] += k * (wg == seat)
            out[CHICA, TEAM] += k * (team[wc] == ut)
            out[CHICA, SELF] += k * (wc == seat)
    for li in range(2):
        a = out[PARES + li]
        base = n_gc + li * n_pj
        for w in range(n):
            ours = team[w] == ut
            for cont in range(2):
                for v in range(N_VAL):
                    k = hist[base + 1 + (w * 2 + cont) * N_VAL + v]
                    a[TEAM] += k * ours
                    a[SELF] += k * (w == seat)
                    a[PLAYED] += k
                    a[CONTESTED] += k * cont
                    a[EV_SUM] += k * (v if ours else -v)
                    a[EV_SQ] += k * v * v
    for w in range(n):
        k = hist[n_gc + 2 * n_pj + w]
        out[PUNTO, TEAM] += k * (team[w] == ut)
        out[PUNTO, SELF] += k * (w == seat)
        out[PUNTO, PLAYED] += k
    out[GRANDE, PLAYED] = done
    out[CHICA, PLAYED] = done
    for lance in (GRANDE, CHICA, PUNTO):  # one stone either way when played
        a = out[lance]
        a[EV_SUM] = 2 * a[TEAM] - a[PLAYED]
        a[EV_SQ] = a[PLAYED]


@njit(cache=True, parallel=True)
def mc_counts(seeds, chunk_trials, stock, user_hand, seat, team, by_sum, tab, allowed, use_allowed):
    """Run every chunk of deals for ``team.shape[0]`` players.

    Returns (acc int64 [chunks, 5, 6], attempts int64 [chunks], hopeless bool [chunks]).
    ``seeds``: uint64 [chunks, 4] xoshiro256** states; ``chunk_trials``: accepted deals per
    chunk; ``stock``: class weights (int64) of the unseen cards; ``user_hand``: hand index
    at ``seat``; ``team``: int64 [players] team of each seat;
    ``by_sum``: hand index by weight sum (``sum_index``); ``tab``: the lance table;
    ``allowed``: bool [players, H], checked for the other seats when ``use_allowed``.  acc
    columns per lance: team wins, own wins, played, contested, sum and sum of squares of the
    net stones en paso of the user's team.  A chunk is *hopeless* when its first
    ``HOPELESS_ATTEMPTS`` deals were all rejected.

    The deal loop sits in the prange body itself, its state allocated there: moved into a
    separate jitted function it ran four times slower (reference counting of the arrays
    inside the loop).
    """
    n = team.shape[0]
    n_chunks = seeds.shape[0]
    acc = np.zeros((n_chunks, 5, N_ACC), np.int64)
    attempts = np.zeros(n_chunks, np.int64)
    hopeless = np.zeros(n_chunks, np.bool_)
    for ch in prange(n_chunks):
        st = seeds[ch].copy()
        deck = stock.copy()
        hist = np.zeros(hist_size(n), np.int64)
        hs = np.empty(n, np.int64)
        n_stock = np.uint64(deck.shape[0])
        n_trials = chunk_trials[ch]
        n_att = 0
        done = 0
        while done < n_trials:
            n_att += 1
            j = np.uint64(0)
            ok = True
            for q in range(n):
                if q == seat:
                    hs[q] = user_hand
                    continue
                h = _deal_hand(deck, j, n_stock, st, by_sum)
                j += np.uint64(4)
                hs[q] = h
                if use_allowed and not allowed[q, h]:
                    ok = False  # the deal is rejected as a whole: nothing more is dealt
                    break
            if not ok:
                if done == 0 and n_att >= HOPELESS_ATTEMPTS:
                    hopeless[ch] = True
                    break
                continue
            done += 1
            bg, bc, bp, bj, bu, cp, cj, vp, vj = resolve(hs, team, tab)
            _tally(hist, n, bg, bc, bp, bj, bu, cp, cj, vp, vj)
        _counts(hist, n, seat, team, done, acc[ch])
        attempts[ch] = n_att
    return acc, attempts, hopeless
