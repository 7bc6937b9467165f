"""Numba kernels of ten kings: fixing every joker of a deal, and the Monte Carlo odds with
jokers (private; see musstats.engines.jokers).

Rule (docs/rules.md, "Ten kings"): each holder fixes his jokers to maximise his team's
net stones (ours minus theirs) at the count en paso; holders choose in seat order from
mano, the later holder answering the earlier choice and the earlier one anticipating
that answer; ties keep the option listed first (reyes before ases).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from musstats._kernels.dealing import shuffle
from musstats._kernels.lances import CHICA, GRANDE, JUEGO, PARES, played, resolve, team_net, winner_seat

__all__ = ["TEAM", "SELF", "PLAYED", "CONTESTED", "EV_SUM", "EV_SQ", "TEAM_CONTESTED", "N_ACC",
           "work_arrays", "fix_jokers", "tk_counts", "resolve_deals"]

#: accumulator columns per lance
TEAM, SELF, PLAYED, CONTESTED, EV_SUM, EV_SQ, TEAM_CONTESTED = range(7)
N_ACC = 7


@njit(cache=True)
def work_arrays():
    """(net [5], win [5]): scratch arrays for one thread."""
    return np.empty(5, np.int64), np.empty(5, np.int64)


@njit(cache=True, inline="always")
def _team_total(b, my_team, team, tab, wk):
    """Net stones en paso of ``my_team`` summed over the lances, plain hands ``b``."""
    return team_net(b, team, tab, my_team, wk[0], wk[1])


@njit(cache=True, inline="always")
def _best_option(out, q, hs, n_opt, base, team, tab, wk):
    """The option of seat ``q``'s jokers that gives his team the most net stones, the other
    seats as in ``out`` (ties keep the first option)."""
    best = -(1 << 30)
    pick = 0
    for a in range(n_opt[hs[q]]):
        out[q] = base[hs[q], a]
        v = _team_total(out, team[q], team, tab, wk)
        if v > best:
            best = v
            pick = a
    return pick


@njit(cache=True)
def fix_jokers(hs, n_opt, base, team, tab, fixed_seat, fixed_opt, out, wk):
    """Fix every joker and write the plain hand of each seat to ``out``.

    ``hs`` ten-kings hand indices [4]; ``base[h, k]`` the plain hand of option ``k`` of
    hand ``h``; the seat ``fixed_seat`` (if >= 0) uses option ``fixed_opt`` instead of
    choosing; ``wk``: :func:`work_arrays`.  Returns the number of holders who chose.
    """
    f = -1
    g = -1
    for q in range(hs.shape[0]):
        if q == fixed_seat:
            out[q] = base[hs[q], fixed_opt]
            continue
        out[q] = base[hs[q], 0]
        if n_opt[hs[q]] > 1:
            if f < 0:
                f = q
            else:
                g = q
    if f < 0:
        return 0
    if g < 0:
        out[f] = base[hs[f], _best_option(out, f, hs, n_opt, base, team, tab, wk)]
        return 1
    best = -(1 << 30)
    pick_a = 0
    pick_b = 0
    for a in range(n_opt[hs[f]]):
        out[f] = base[hs[f], a]
        bb = _best_option(out, g, hs, n_opt, base, team, tab, wk)  # the later holder answers a
        out[g] = base[hs[g], bb]
        v = _team_total(out, team[f], team, tab, wk)
        if v > best:
            best = v
            pick_a = a
            pick_b = bb
    out[f] = base[hs[f], pick_a]
    out[g] = base[hs[g], pick_b]
    return 2


@njit(cache=True, inline="always")
def _accumulate(b, seat, team, tab, acc, wk):
    """Add one deal's per-lance stats for the user at ``seat`` (plain hands ``b``) to acc [5, 7]."""
    net, win = wk
    team_net(b, team, tab, team[seat], net, win)
    bg, bc, bp, bj, bu, cp, cj, _, _ = resolve(b, team, tab)
    for lance in range(5):
        if not played(lance, bp, bj):
            continue
        best = bg if lance == GRANDE else bc if lance == CHICA else bp if lance == PARES else \
            bj if lance == JUEGO else bu
        acc[lance, PLAYED] += 1
        acc[lance, TEAM] += win[lance]
        if winner_seat(best) == seat:
            acc[lance, SELF] += 1
        if (lance == PARES and cp) or (lance == JUEGO and cj):
            acc[lance, CONTESTED] += 1
            acc[lance, TEAM_CONTESTED] += win[lance]
        acc[lance, EV_SUM] += net[lance]
        acc[lance, EV_SQ] += net[lance] * net[lance]


@njit(cache=True, parallel=True)
def tk_counts(seeds, chunk_trials, stock, user_hand, seat, fixed_opt, k_cls, idx4, n_opt, base, team, tab,
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
        wk = work_arrays()
        loc = np.zeros((5, N_ACC), np.int64)
        done = 0
        att = 0
        while done < chunk_trials[ch]:
            att += 1
            if att > 1_000_000 and done == 0:
                break
            shuffle(deck, n, st, 12)
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
            fix_jokers(hs, n_opt, base, team, tab, seat if fixed_opt >= 0 else -1, fixed_opt, b, wk)
            _accumulate(b, seat, team, tab, loc, wk)
        acc[ch] = loc
        attempts[ch] = att
    return acc, attempts


@njit(cache=True, parallel=True)
def resolve_deals(deals, n_opt, base, team, tab):
    """Plain hand indices [N, 4] of ten-kings deals [N, 4], every joker fixed by its holder."""
    out = np.empty_like(deals)
    for i in prange(deals.shape[0]):
        b = np.empty(4, np.int64)
        wk = work_arrays()
        fix_jokers(deals[i], n_opt, base, team, tab, -1, 0, b, wk)
        for q in range(4):
            out[i, q] = b[q]
    return out
