"""Numba kernel of the Monte Carlo odds with ten kings (private; see musstats.engines.jokers)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from musstats._kernels.showdown import N_ACC, _accumulate, resolve
from musstats._kernels.mus import _shuffle


@njit(cache=True, parallel=True)
def tk_counts(seeds, chunk_trials, stock, user_hand, seat, fixed_opt, k_cls, idx4, n_opt, base, tab,
              allowed, use_allowed):
    """Monte Carlo counts [chunks, 5, 7] of the ten-kings showdown for the user at ``seat``.

    ``stock``: class ids of the unseen cards; other hands are rejected unless
    ``allowed[seat, h]``; ``fixed_opt`` >= 0 fixes the user's jokers to that option.
    Returns (acc, attempts).
    """
    n_chunks = seeds.shape[0]
    acc = np.zeros((n_chunks, 5, N_ACC), np.int64)
    attempts = np.zeros(n_chunks, np.int64)
    for ch in prange(n_chunks):
        st = seeds[ch].copy()
        deck = stock.copy()
        n = deck.shape[0]
        hs = np.empty(4, np.int64)
        b = np.empty(4, np.int64)
        net = np.empty(5, np.int64)
        win = np.empty(5, np.int64)
        loc = np.zeros((5, N_ACC), np.int64)
        done = 0
        att = 0
        while done < chunk_trials[ch]:
            att += 1
            if att > 1_000_000 and done == 0:
                break
            _shuffle(deck, n, st, 12)
            j = n
            ok = True
            for q in range(4):
                if q == seat:
                    hs[q] = user_hand
                    continue
                h = idx4[((deck[j - 1] * k_cls + deck[j - 2]) * k_cls + deck[j - 3]) * k_cls + deck[j - 4]]
                j -= 4
                hs[q] = h
                if use_allowed and not allowed[q, h]:
                    ok = False
            if not ok:
                continue
            done += 1
            resolve(hs, n_opt, base, tab, seat if fixed_opt >= 0 else -1, fixed_opt, b, net, win)
            _accumulate(b, seat, tab, loc)
        acc[ch] = loc
        attempts[ch] = att
    return acc, attempts


@njit(cache=True, parallel=True)
def resolve_deals(deals, n_opt, base, tab):
    """Plain hand indices [N, 4] of ten-kings deals [N, 4], every joker fixed by its holder."""
    out = np.empty_like(deals)
    for i in prange(deals.shape[0]):
        b = np.empty(4, np.int64)
        net = np.empty(5, np.int64)
        win = np.empty(5, np.int64)
        resolve(deals[i], n_opt, base, tab, -1, 0, b, net, win)
        for q in range(4):
            out[i, q] = b[q]
    return out
