"""Numba kernel of the Monte Carlo showdown engine (private; see musstats.engines.montecarlo).

Each chunk of trials runs its own xoshiro256** generator, seeded by the caller from
``numpy.random.SeedSequence``.  A deal is a partial Fisher–Yates shuffle of the unseen
cards; each card is stored as the *weight* of its class (``CLASS_WEIGHTS``, a set whose
4-card sums are all distinct), so a hand's index is ``by_sum[sum of its 4 weights]``.
Every lance is then evaluated by table lookup for all hands at once, and each deal's
outcome is tallied in a small histogram from which the integer counts are derived.
Counts are integers, so the total over chunks depends neither on the order of the
chunks nor on the number of threads.

The generator is written out here rather than imported from ``musstats._kernels.rng``: numba's
cache only notices edits to this file, so a jitted dependency in another module could
leave a stale cached kernel and silently change the stream a seed gives.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np
from numba import njit, prange

# accumulator columns per lance
TEAM, SELF, PLAYED, CONTESTED, EV_SUM, EV_SQ = range(6)
N_ACC = 6
# columns of the packed per-hand table
T_GRANDE, T_CHICA, T_PARES, T_JUEGO, T_PUNTO, T_VPARES, T_VJUEGO = range(7)
TAB_WIDTH = 8
#: team values of pares / juego span 0 .. N_VAL - 1 (three hands of duples: 9)
N_VAL = 10
#: a chunk gives up when this many deals in a row were all rejected and none accepted yet
HOPELESS_ATTEMPTS = 1_000_000
#: greedy B4 sequence: every multiset of 4 of these has a distinct sum (checked below)
CLASS_WEIGHTS = (0, 1, 5, 21, 55, 153, 368, 856, 1424, 2603, 4967)

_M16 = np.uint64(0xFFFF)
#: what ``_deal4`` / ``_deal6`` return for a deal outside ``allowed``
_REJECTED = (False, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)


def pack_tables(key: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Flat int32 [H * 8]: per hand 8 * key of the 5 lances, pares value, juego value, 0.

    Keys are scaled by 8 so that ``8 * key + (7 - seat)`` orders hands by key and breaks
    ties in favour of the seat nearer to mano; the winner is ``7 - (max & 7)``.
    """
    h = key.shape[1]
    tab = np.zeros((h, TAB_WIDTH), np.int32)
    for lance in range(5):
        tab[:, lance] = 8 * key[lance].astype(np.int32)
    tab[:, T_VPARES] = value[2]
    tab[:, T_VJUEGO] = value[3]
    return tab.ravel()


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
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True, inline="always")
def _next(st):
    """xoshiro256** step on the state array ``st`` (uint64[4]); returns 64 random bits."""
    s0 = st[0]
    s1 = st[1]
    s2 = st[2]
    s3 = st[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    st[0] = s0
    st[1] = s1
    st[2] = s2
    st[3] = s3
    return result


@njit(cache=True)
def _lemire_slow(m, n, st):
    """Rare branch of Lemire's method (low bits < n, probability < n / 65536): reject the
    draws whose low 16 bits fall below 2**16 mod n and draw again."""
    thresh = (np.uint64(0x10000) - n) % n
    while (m & _M16) < thresh:
        m = (_next(st) >> np.uint64(48)) * n
    return m >> np.uint64(16)


@njit(cache=True, inline="always")
def _bounded16(x16, n, st):
    """Uniform integer in [0, n) from 16 random bits ``x16`` (Lemire's method, unbiased)."""
    m = x16 * n
    if (m & _M16) < n:
        return _lemire_slow(m, n, st)
    return m >> np.uint64(16)


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
def _take(q, seat, user, deck, j, n_stock, st, by_sum, allowed, use_allowed, ok):
    """Hand at seat ``q``: the user's, or 4 cards dealt from deck[j:]; (hand, next j, ok).

    ``ok`` turns False when the hand is not allowed; once False, nothing more is dealt
    (the deal is rejected as a whole, so stopping early changes nothing).
    """
    if q == seat or not ok:
        return user, j, ok
    h = _deal_hand(deck, j, n_stock, st, by_sum)
    if use_allowed:
        ok = allowed[q, h]
    return h, j + np.uint64(4), ok


@njit(cache=True, inline="always")
def _row(h, q, tab):
    """Scores of hand ``h`` at seat ``q``: 8 * key + 7 - q for each lance, and its values."""
    r = h * np.uint64(TAB_WIDTH)
    bias = 7 - q
    return (tab[r + np.uint64(T_GRANDE)] + bias, tab[r + np.uint64(T_CHICA)] + bias,
            tab[r + np.uint64(T_PARES)] + bias, tab[r + np.uint64(T_JUEGO)] + bias,
            tab[r + np.uint64(T_PUNTO)] + bias, tab[r + np.uint64(T_VPARES)],
            tab[r + np.uint64(T_VJUEGO)])


@njit(cache=True, inline="always")
def _deal4(seat, user, deck, n_stock, st, by_sum, tab, allowed, use_allowed):
    """One 4-player deal, unrolled; returns (accepted, per-lance best scores, team values)."""
    j = np.uint64(0)
    ok = True
    h0, j, ok = _take(0, seat, user, deck, j, n_stock, st, by_sum, allowed, use_allowed, ok)
    h1, j, ok = _take(1, seat, user, deck, j, n_stock, st, by_sum, allowed, use_allowed, ok)
    h2, j, ok = _take(2, seat, user, deck, j, n_stock, st, by_sum, allowed, use_allowed, ok)
    h3, j, ok = _take(3, seat, user, deck, j, n_stock, st, by_sum, allowed, use_allowed, ok)
    if not ok:
        return _REJECTED
    g0, c0, p0, j0, u0, vp0, vj0 = _row(h0, 0, tab)
    g1, c1, p1, j1, u1, vp1, vj1 = _row(h1, 1, tab)
    g2, c2, p2, j2, u2, vp2, vj2 = _row(h2, 2, tab)
    g3, c3, p3, j3, u3, vp3, vj3 = _row(h3, 3, tab)
    return (ok, max(max(g0, g1), max(g2, g3)), max(max(c0, c1), max(c2, c3)),
            max(max(u0, u1), max(u2, u3)), max(p0, p2), max(p1, p3), max(j0, j2), max(j1, j3),
            vp0 + vp2, vp1 + vp3, vj0 + vj2, vj1 + vj3)


@njit(cache=True, inline="always")
def _deal6(seat, user, deck, n_stock, st, by_sum, tab, allowed, use_allowed):
    """One 6-player deal, unrolled; returns (accepted, per-lance best scores, team values)."""
    j = np.uint64(0)
    ok = True
    h0, j, ok = _take(0, seat, user, deck, j, n_stock, st, by_sum, allowed, use_allowed, ok)
    h1, j, ok = _take(1, seat, user, deck, j, n_stock, st, by_sum, allowed, use_allowed, ok)
    h2, j, ok = _take(2, seat, user, deck, j, n_stock, st, by_sum, allowed, use_allowed, ok)
    h3, j, ok = _take(3, seat, user, deck, j, n_stock, st, by_sum, allowed, use_allowed, ok)
    h4, j, ok = _take(4, seat, user, deck, j, n_stock, st, by_sum, allowed, use_allowed, ok)
    h5, j, ok = _take(5, seat, user, deck, j, n_stock, st, by_sum, allowed, use_allowed, ok)
    if not ok:
        return _REJECTED
    g0, c0, p0, j0, u0, vp0, vj0 = _row(h0, 0, tab)
    g1, c1, p1, j1, u1, vp1, vj1 = _row(h1, 1, tab)
    g2, c2, p2, j2, u2, vp2, vj2 = _row(h2, 2, tab)
    g3, c3, p3, j3, u3, vp3, vj3 = _row(h3, 3, tab)
    g4, c4, p4, j4, u4, vp4, vj4 = _row(h4, 4, tab)
    g5, c5, p5, j5, u5, vp5, vj5 = _row(h5, 5, tab)
    return (ok, max(max(max(g0, g1), max(g2, g3)), max(g4, g5)),
            max(max(max(c0, c1), max(c2, c3)), max(c4, c5)),
            max(max(max(u0, u1), max(u2, u3)), max(u4, u5)),
            max(max(p0, p2), p4), max(max(p1, p3), p5), max(max(j0, j2), j4), max(max(j1, j3), j5),
            vp0 + vp2 + vp4, vp1 + vp3 + vp5, vj0 + vj2 + vj4, vj1 + vj3 + vj5)


@njit(cache=True, inline="always")
def _tally(hist, n_players, bg, bc, bu, bp0, bp1, bj0, bj1, vp0, vp1, vj0, vj1):
    """Count one deal's outcome; the winner of a lance is 7 - (its best score & 7).

    ``hist`` layout: [grande winner x chica winner | pares code | juego code | punto winner]
    where a pares/juego code is 0 (nobody holds it) or 1 + (winner * 2 + contested) *
    N_VAL + stones of the winning team.
    """
    n_pj = 1 + n_players * 2 * N_VAL
    hist[(7 - (bg & 7)) * n_players + 7 - (bc & 7)] += 1
    base = n_players * n_players
    bp = max(bp0, bp1)
    w = 7 - (bp & 7)
    v = vp1 if w & 1 else vp0
    cont = np.int64(bp0 >= 8) & np.int64(bp1 >= 8)
    code = 1 + (w * 2 + cont) * N_VAL + v
    hist[base + (code if bp >= 8 else 0)] += 1
    base += n_pj
    bj = max(bj0, bj1)
    w = 7 - (bj & 7)
    v = vj1 if w & 1 else vj0
    cont = np.int64(bj0 >= 8) & np.int64(bj1 >= 8)
    code = 1 + (w * 2 + cont) * N_VAL + v
    # punto is played exactly when nobody holds juego
    hist[base + (code if bj >= 8 else n_pj + 7 - (bu & 7))] += 1


@njit(cache=True)
def hist_size(n_players):
    """Length of the outcome histogram of one chunk."""
    return n_players * n_players + 2 * (1 + n_players * 2 * N_VAL) + n_players


@njit(cache=True)
def _counts(hist, n_players, seat, done, out):
    """Counts [5, 6] (TEAM .. EV_SQ per lance) of the user at ``seat`` from a histogram."""
    ut = seat % 2
    n_gc = n_players * n_players
    n_pj = 1 + n_players * 2 * N_VAL
    out[:, :] = 0
    for wg in range(n_players):
        for wc in range(n_players):
            k = hist[wg * n_players + wc]
            out[0, TEAM] += k * ((wg & 1) == ut)
            out[0, SELF] += k * (wg == seat)
            out[1, TEAM] += k * ((wc & 1) == ut)
            out[1, SELF] += k * (wc == seat)
    for lance in range(2):
        a = out[2 + lance]
        base = n_gc + lance * n_pj
        for w in range(n_players):
            ours = (w & 1) == ut
            for cont in range(2):
                for v in range(N_VAL):
                    k = hist[base + 1 + (w * 2 + cont) * N_VAL + v]
                    a[TEAM] += k * ours
                    a[SELF] += k * (w == seat)
                    a[PLAYED] += k
                    a[CONTESTED] += k * cont
                    a[EV_SUM] += k * (v if ours else -v)
                    a[EV_SQ] += k * v * v
    for w in range(n_players):
        k = hist[n_gc + 2 * n_pj + w]
        out[4, TEAM] += k * ((w & 1) == ut)
        out[4, SELF] += k * (w == seat)
        out[4, PLAYED] += k
    out[0, PLAYED] = done
    out[1, PLAYED] = done
    for lance in (0, 1, 4):  # one stone either way when played
        a = out[lance]
        a[EV_SUM] = 2 * a[TEAM] - a[PLAYED]
        a[EV_SQ] = a[PLAYED]


_KERNEL_DOC = """Run every chunk of {n}-player deals.

    Returns (acc int64 [chunks, 5, 6], attempts int64 [chunks], hopeless bool [chunks]).
    ``seeds``: uint64 [chunks, 4] xoshiro256** states; ``chunk_trials``: accepted deals per
    chunk; ``stock``: class weights (int64) of the unseen cards; ``user_hand``: hand index
    at ``seat``; ``by_sum``: hand index by weight sum (``sum_index``); ``tab``:
    ``pack_tables``; ``allowed``: bool [players, H], checked for the other seats when
    ``use_allowed``.  acc columns per lance: team wins, own wins, played, contested, sum
    and sum of squares of the net stones en paso of the user's team.  A chunk is
    *hopeless* when its first ``HOPELESS_ATTEMPTS`` deals were all rejected.

    The deal loop sits in the prange body itself, its state allocated there: moved into a
    separate jitted function it ran four times slower (reference counting of the arrays
    inside the loop).
    """


@njit(cache=True, parallel=True)
def _kernel4(seeds, chunk_trials, stock, user_hand, seat, by_sum, tab, allowed, use_allowed):
    n_chunks = seeds.shape[0]
    acc = np.zeros((n_chunks, 5, N_ACC), np.int64)
    attempts = np.zeros(n_chunks, np.int64)
    hopeless = np.zeros(n_chunks, np.bool_)
    for ch in prange(n_chunks):
        st = seeds[ch].copy()
        deck = stock.copy()
        hist = np.zeros(hist_size(4), np.int64)
        n_stock = np.uint64(deck.shape[0])
        user = np.uint64(user_hand)
        n_trials = chunk_trials[ch]
        n_att = 0
        done = 0
        while done < n_trials:
            n_att += 1
            ok, bg, bc, bu, bp0, bp1, bj0, bj1, vp0, vp1, vj0, vj1 = _deal4(
                seat, user, deck, n_stock, st, by_sum, tab, allowed, use_allowed)
            if not ok:
                if done == 0 and n_att >= HOPELESS_ATTEMPTS:
                    hopeless[ch] = True
                    break
                continue
            done += 1
            _tally(hist, 4, bg, bc, bu, bp0, bp1, bj0, bj1, vp0, vp1, vj0, vj1)
        _counts(hist, 4, seat, done, acc[ch])
        attempts[ch] = n_att
    return acc, attempts, hopeless


@njit(cache=True, parallel=True)
def _kernel6(seeds, chunk_trials, stock, user_hand, seat, by_sum, tab, allowed, use_allowed):
    n_chunks = seeds.shape[0]
    acc = np.zeros((n_chunks, 5, N_ACC), np.int64)
    attempts = np.zeros(n_chunks, np.int64)
    hopeless = np.zeros(n_chunks, np.bool_)
    for ch in prange(n_chunks):
        st = seeds[ch].copy()
        deck = stock.copy()
        hist = np.zeros(hist_size(6), np.int64)
        n_stock = np.uint64(deck.shape[0])
        user = np.uint64(user_hand)
        n_trials = chunk_trials[ch]
        n_att = 0
        done = 0
        while done < n_trials:
            n_att += 1
            ok, bg, bc, bu, bp0, bp1, bj0, bj1, vp0, vp1, vj0, vj1 = _deal6(
                seat, user, deck, n_stock, st, by_sum, tab, allowed, use_allowed)
            if not ok:
                if done == 0 and n_att >= HOPELESS_ATTEMPTS:
                    hopeless[ch] = True
                    break
                continue
            done += 1
            _tally(hist, 6, bg, bc, bu, bp0, bp1, bj0, bj1, vp0, vp1, vj0, vj1)
        _counts(hist, 6, seat, done, acc[ch])
        attempts[ch] = n_att
    return acc, attempts, hopeless


_kernel4.__doc__ = _KERNEL_DOC.format(n=4)
_kernel6.__doc__ = _KERNEL_DOC.format(n=6)


def mc_counts(seeds, chunk_trials, stock, user_hand, seat, n_players, by_sum, tab, allowed,
              use_allowed):
    """Run the kernel for ``n_players`` (4 or 6); see ``_kernel4``."""
    kernel = _kernel4 if n_players == 4 else _kernel6
    return kernel(seeds, chunk_trials, stock, user_hand, seat, by_sum, tab, allowed, use_allowed)
