"""Kernels that turn deals into what the betting solver needs (private; see
musstats.engines.betting.deals): the outcome code of a lance and the private states of
the players, from the one lance resolution of :mod:`.lances`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from musstats._kernels.dealing import hand_index, shuffle
from musstats._kernels.lances import V_JUEGO, V_PARES, seat_row, winner_seat

__all__ = ["lance_features", "deal_others", "deal_outcome", "outcome_of_scores", "team_state"]


@njit(cache=True, inline="always")
def deal_outcome(h0, h1, h2, h3, lance, col, tab):
    """Outcome code ``49 S + 7 V0 + V1`` of one deal (hands in seat order) for one lance:
    S = 1 when team 0 holds the best hand (the one lance resolution: seat scores of
    :func:`.lances.seat_row`, winner by :func:`.lances.winner_seat`), V0, V1 the values of
    each team's hands in column ``col`` of the lance table (pares or juego; -1: none)."""
    v0 = 0
    v1 = 0
    if col >= 0:
        v0 = tab[h0, col] + tab[h2, col]
        v1 = tab[h1, col] + tab[h3, col]
    return outcome_of_scores(seat_row(h0, 0, tab)[lance], seat_row(h1, 1, tab)[lance], seat_row(h2, 2, tab)[lance],
                             seat_row(h3, 3, tab)[lance], v0, v1)


@njit(cache=True, inline="always")
def outcome_of_scores(s0, s1, s2, s3, v0, v1):
    """Outcome code from the four seat scores of the lance (:func:`.lances.seat_row`) and the
    teams' values: the winner is :func:`.lances.winner_seat` of the best score."""
    w = winner_seat(max(max(s0, s1), max(s2, s3)))
    return 49 * (1 if w % 2 == 0 else 0) + 7 * v0 + v1


@njit(cache=True, inline="always")
def team_state(ha, hb, t, lance, col, tab):
    """Pooled state of team ``t`` holding ``ha`` at seat ``t`` and ``hb`` at seat ``t + 2``:
    ``2 h + j`` for its best hand ``h`` in the lance held by its seat ``j`` (0 = the seat
    nearer to mano), times 7 plus the team's values in column ``col`` (pares, juego)."""
    sa = seat_row(ha, t, tab)[lance]
    sb = seat_row(hb, t + 2, tab)[lance]
    s = 2 * ha if sa > sb else 2 * hb + 1
    if col >= 0:
        s = s * 7 + tab[ha, col] + tab[hb, col]
    return s


@njit(cache=True, parallel=True)
def lance_features(deals, lance, tab, pooled):
    """Outcome code and states of every deal for one lance (0 grande .. 4 punto).

    ``deals`` int [N, 4] hand indices in seat order.  Returns ``o`` int32 [N] (49 S + 7 V0
    + V1: S = team 0 holds the best hand; V0, V1 the pares or juego values of each team's
    holders) and ``st`` int32 [N, 4]: with ``pooled`` false the hand of each seat; with
    ``pooled`` the state of each team in columns 0 and 1 -- ``2 h + j`` for the team's
    best hand ``h`` in the lance held by its seat ``j`` (0 = the seat nearer to mano),
    times 7 plus the team's values in pares and juego -- and -1 in columns 2 and 3.
    """
    n = deals.shape[0]
    o = np.empty(n, np.int32)
    st = np.empty((n, 4), np.int32)
    col = V_PARES if lance == 2 else (V_JUEGO if lance == 3 else -1)
    for d in prange(n):
        h0 = deals[d, 0]
        h1 = deals[d, 1]
        h2 = deals[d, 2]
        h3 = deals[d, 3]
        o[d] = deal_outcome(h0, h1, h2, h3, lance, col, tab)
        if not pooled:
            for q in range(4):
                st[d, q] = deals[d, q]
        else:
            st[d, 0] = team_state(h0, h2, 0, lance, col, tab)
            st[d, 1] = team_state(h1, h3, 1, lance, col, tab)
            st[d, 2] = -1
            st[d, 3] = -1
    return o, st


@njit(cache=True, parallel=True)
def deal_others(seeds, chunk_trials, offsets, user_cards, unseen, seat, card_class, k_cls, idx4):
    """Deals with the user's four cards at ``seat`` and the other three hands dealt uniformly
    from the ``unseen`` cards: hand indices int64 [sum(chunk_trials), 4]."""
    n_chunks = seeds.shape[0]
    out = np.empty((offsets[n_chunks - 1] + chunk_trials[n_chunks - 1], 4), np.int64)
    n_unseen = unseen.shape[0]
    uh = hand_index(user_cards, card_class, k_cls, idx4)
    for ch in prange(n_chunks):
        st = seeds[ch].copy()
        deck = unseen.copy()
        h = np.empty(4, np.int64)
        for t in range(chunk_trials[ch]):
            shuffle(deck, n_unseen, st, 12)
            j = n_unseen
            for q in range(4):
                if q == seat:
                    out[offsets[ch] + t, q] = uh
                    continue
                for i in range(4):
                    j -= 1
                    h[i] = deck[j]
                out[offsets[ch] + t, q] = hand_index(h, card_class, k_cls, idx4)
    return out
