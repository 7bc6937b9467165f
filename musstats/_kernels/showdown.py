"""Numba kernels shared by the simulations: the showdown of four plain hands, the stats
of one deal, and fixing ten-kings jokers (private)."""

from __future__ import annotations

from numba import njit

TEAM, SELF, PLAYED, CONTESTED, EV_SUM, EV_SQ, TEAM_CONTESTED = range(7)
N_ACC = 7


@njit(cache=True, inline="always")
def _showdown(hs, seat, tab, net, win):
    """Net stones en paso of the user's team per lance (net[5]) and team-best flags (win[5]).

    ``tab`` [H, 8]: the five lance keys, pares value, juego value, padding."""
    ut = seat % 2
    bg = -1
    bc = -1
    bp = -1
    bj = -1
    bu = -1
    vp0 = 0
    vp1 = 0
    vj0 = 0
    vj1 = 0
    for q in range(4):
        h = hs[q]
        bias = 7 - q
        bg = max(bg, 8 * tab[h, 0] + bias)
        bc = max(bc, 8 * tab[h, 1] + bias)
        bp = max(bp, 8 * tab[h, 2] + bias)
        bj = max(bj, 8 * tab[h, 3] + bias)
        bu = max(bu, 8 * tab[h, 4] + bias)
        if q & 1:
            vp1 += tab[h, 5]
            vj1 += tab[h, 6]
        else:
            vp0 += tab[h, 5]
            vj0 += tab[h, 6]
    w = 7 - (bg & 7)
    win[0] = 1 if (w & 1) == ut else 0
    net[0] = 2 * win[0] - 1
    w = 7 - (bc & 7)
    win[1] = 1 if (w & 1) == ut else 0
    net[1] = 2 * win[1] - 1
    if bp >= 8:
        w = 7 - (bp & 7)
        win[2] = 1 if (w & 1) == ut else 0
        v = vp1 if w & 1 else vp0
        net[2] = v if win[2] else -v
    else:
        win[2] = 0
        net[2] = 0
    if bj >= 8:
        w = 7 - (bj & 7)
        win[3] = 1 if (w & 1) == ut else 0
        v = vj1 if w & 1 else vj0
        net[3] = v if win[3] else -v
        win[4] = 0
        net[4] = 0
    else:
        win[3] = 0
        net[3] = 0
        w = 7 - (bu & 7)
        win[4] = 1 if (w & 1) == ut else 0
        net[4] = 2 * win[4] - 1


@njit(cache=True, inline="always")
def _team_total(b, team, tab, net, win):
    _showdown(b, team, tab, net, win)
    s = 0
    for i in range(5):
        s += net[i]
    return s


@njit(cache=True, inline="always")
def _best_option(out, q, hs, n_opt, base, tab, net, win):
    """The option of seat ``q``'s jokers that gives his team the most stones, the other seats
    as in ``out`` (ties keep the first option)."""
    best = -(1 << 30)
    pick = 0
    for a in range(n_opt[hs[q]]):
        out[q] = base[hs[q], a]
        v = _team_total(out, q % 2, tab, net, win)
        if v > best:
            best = v
            pick = a
    return pick


@njit(cache=True)
def resolve(hs, n_opt, base, tab, fixed_seat, fixed_opt, out, net, win):
    """Fix every joker (musstats.engines.jokers rule) and write the plain hand of each seat to ``out``.

    ``hs`` ten-kings hand indices [4]; the seat ``fixed_seat`` (if >= 0) uses option
    ``fixed_opt`` instead of choosing; ``net``, ``win`` (int64 [5]) are work arrays.
    Returns the number of holders who chose.
    """
    f = -1
    g = -1
    for q in range(4):
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
        out[f] = base[hs[f], _best_option(out, f, hs, n_opt, base, tab, net, win)]
        return 1
    best = -(1 << 30)
    pick_a = 0
    pick_b = 0
    for a in range(n_opt[hs[f]]):
        out[f] = base[hs[f], a]
        bb = _best_option(out, g, hs, n_opt, base, tab, net, win)  # the later holder answers a
        out[g] = base[hs[g], bb]
        v = _team_total(out, f % 2, tab, net, win)
        if v > best:
            best = v
            pick_a = a
            pick_b = bb
    out[f] = base[hs[f], pick_a]
    out[g] = base[hs[g], pick_b]
    return 2


@njit(cache=True, inline="always")
def _accumulate(b, seat, tab, acc):
    """Add one deal's per-lance stats for the user at ``seat`` (plain hands ``b``) to acc [5, 7]."""
    ut = seat % 2
    for lance in range(5):
        best = -1
        hold0 = False
        hold1 = False
        v0 = 0
        v1 = 0
        for q in range(4):
            k = tab[b[q], lance]
            s = 8 * k + 7 - q
            if s > best:
                best = s
            if lance == 2 or lance == 3:
                if q & 1:
                    hold1 = hold1 or k > 0
                    v1 += tab[b[q], 3 + lance]
                else:
                    hold0 = hold0 or k > 0
                    v0 += tab[b[q], 3 + lance]
        w = 7 - (best & 7)
        if lance <= 1:
            played = True
        elif lance == 4:
            played = True  # punto is played iff nobody holds juego
            for q in range(4):
                if tab[b[q], 3] > 0:
                    played = False
        else:
            played = best >= 8
        if not played:
            continue
        ours = (w & 1) == ut
        acc[lance, PLAYED] += 1
        if ours:
            acc[lance, TEAM] += 1
        if w == seat:
            acc[lance, SELF] += 1
        if lance == 2 or lance == 3:
            v = v1 if w & 1 else v0
            e = v if ours else -v
            if hold0 and hold1:
                acc[lance, CONTESTED] += 1
                if ours:
                    acc[lance, TEAM_CONTESTED] += 1
        else:
            e = 1 if ours else -1
        acc[lance, EV_SUM] += e
        acc[lance, EV_SQ] += e * e


