"""The one resolution of the lances of a deal (private; used by every engine).

A hand's strength in a lance is its *key* (``musstats.tables.hands``: higher is better,
0 = does not take part in pares, juego or punto).  At seat ``q`` it becomes the *seat
score* ``8 * key + 7 - q``: comparing seat scores compares keys and breaks every tie in
favour of the seat nearer to mano (docs/rules.md: every tie goes to the player nearer to
mano); the winner of a best score ``s`` is the seat ``7 - (s & 7)``, and ``s >= 8``
means that the winner holds the lance.  Up to 8 seats.

* :func:`seat_row` -- the five seat scores and the pares and juego values of one hand at
  one seat: the only place where a hand is compared;
* :func:`resolve` -- one deal: the best seat score of every lance, whether pares and juego
  are contested (held by two teams or more) and the winning team's pares and juego values;
* :func:`played`, :func:`winner_seat`, :func:`paso_stones`, :func:`team_net` -- what
  follows from it: the rules of which lance is played, who wins and what it pays en paso.

The lance table ``tab`` is int64 [H, 8] per hand: the five lance keys, the pares value,
the juego value and a zero (``musstats.tables.kernel.lance_table``).  Everything returns
scalars, so the compiled loops keep them in registers.
"""

from __future__ import annotations

from numba import njit

from musstats.rules.labels import CHICA, GRANDE, JUEGO, PARES, PUNTO

__all__ = ["GRANDE", "CHICA", "PARES", "JUEGO", "PUNTO", "V_PARES", "V_JUEGO", "TAB_WIDTH",
           "seat_row", "winner_seat", "resolve", "resolve_any", "played", "paso_stones", "team_net"]

#: columns of the lance table holding the pares and the juego value of the hand
V_PARES, V_JUEGO = 5, 6
TAB_WIDTH = 8


@njit(cache=True, inline="always")
def seat_row(h, q, tab):
    """Seat scores of hand ``h`` at seat ``q`` -- ``8 * key + 7 - q`` for grande, chica, pares,
    juego, punto -- and its pares and juego values."""
    bias = 7 - q
    return (8 * tab[h, 0] + bias, 8 * tab[h, 1] + bias, 8 * tab[h, 2] + bias, 8 * tab[h, 3] + bias,
            8 * tab[h, 4] + bias, tab[h, V_PARES], tab[h, V_JUEGO])


@njit(cache=True, inline="always")
def winner_seat(score):
    """The seat whose seat score is ``score``."""
    return 7 - (score & 7)


@njit(cache=True, inline="always")
def resolve(hs, team, tab):
    """Resolve the lances of one deal: ``hs`` int [n] hand per seat (negative = seat left
    out), ``team`` int [n] team of each seat.

    Returns ``(bg, bc, bp, bj, bu, cp, cj, vp, vj)``: the best seat score of grande,
    chica, pares, juego and punto; whether pares and juego are contested (two or more
    teams hold them); the pares and juego values of the team holding the best hand (its
    holders' values summed; 0 when nobody holds the lance).

    The four-seat partnership table (every seat dealt, teams 0 1 0 1) takes an unrolled
    path, the same computation with every intermediate in a register (1.6x faster in the
    Monte Carlo kernel); a test checks both paths against each other.
    """
    if (hs.shape[0] == 4 and team[0] == 0 and team[1] == 1 and team[2] == 0 and team[3] == 1
            and hs[0] >= 0 and hs[1] >= 0 and hs[2] >= 0 and hs[3] >= 0):
        return _resolve4(hs[0], hs[1], hs[2], hs[3], tab)
    return resolve_any(hs, team, tab)


@njit(cache=True, inline="always")
def _resolve4(h0, h1, h2, h3, tab):
    """:func:`resolve` of four dealt seats in two partnerships, unrolled."""
    g0, c0, p0, j0, u0, vp0, vj0 = seat_row(h0, 0, tab)
    g1, c1, p1, j1, u1, vp1, vj1 = seat_row(h1, 1, tab)
    g2, c2, p2, j2, u2, vp2, vj2 = seat_row(h2, 2, tab)
    g3, c3, p3, j3, u3, vp3, vj3 = seat_row(h3, 3, tab)
    bp0 = max(p0, p2)
    bp1 = max(p1, p3)
    bj0 = max(j0, j2)
    bj1 = max(j1, j3)
    bp = max(bp0, bp1)
    bj = max(bj0, bj1)
    vp = 0
    if bp >= 8:
        vp = vp1 + vp3 if winner_seat(bp) & 1 else vp0 + vp2
    vj = 0
    if bj >= 8:
        vj = vj1 + vj3 if winner_seat(bj) & 1 else vj0 + vj2
    return (max(max(g0, g1), max(g2, g3)), max(max(c0, c1), max(c2, c3)), bp, bj,
            max(max(u0, u1), max(u2, u3)), bp0 >= 8 and bp1 >= 8, bj0 >= 8 and bj1 >= 8, vp, vj)


@njit(cache=True, inline="always")
def resolve_any(hs, team, tab):
    """:func:`resolve` for any table of seats (a loop over the seats)."""
    bg = -1
    bc = -1
    bp = -1
    bj = -1
    bu = -1
    tp = -1  # team of a pares holder seen so far
    tj = -1
    cp = False
    cj = False
    for q in range(hs.shape[0]):
        h = hs[q]
        if h < 0:
            continue
        g, c, p, j, u, _, _ = seat_row(h, q, tab)
        bg = max(bg, g)
        bc = max(bc, c)
        bp = max(bp, p)
        bj = max(bj, j)
        bu = max(bu, u)
        k = team[q]
        if p >= 8:
            if tp < 0:
                tp = k
            elif tp != k:
                cp = True
        if j >= 8:
            if tj < 0:
                tj = k
            elif tj != k:
                cj = True
    vp = 0
    vj = 0
    wp = team[winner_seat(bp)] if bp >= 8 else -1
    wj = team[winner_seat(bj)] if bj >= 8 else -1
    for q in range(hs.shape[0]):
        h = hs[q]
        if h < 0:
            continue
        if team[q] == wp:
            vp += tab[h, V_PARES]
        if team[q] == wj:
            vj += tab[h, V_JUEGO]
    return bg, bc, bp, bj, bu, cp, cj, vp, vj


@njit(cache=True, inline="always")
def played(lance, bp, bj):
    """Is the lance played?  Grande and chica always; pares and juego when somebody holds
    them (best seat scores ``bp``, ``bj`` of 8 or more); punto exactly when nobody holds
    juego."""
    if lance == PARES:
        return bp >= 8
    if lance == JUEGO:
        return bj >= 8
    if lance == PUNTO:
        return bj < 8
    return True


@njit(cache=True, inline="always")
def paso_stones(lance, best, bp, bj, vp, vj, team):
    """(winning team, stones) of a lance en paso, from :func:`resolve`; (-1, 0) when the
    lance is not played.  Grande, chica and punto pay 1; pares and juego the values of the
    winning team's holders."""
    if not played(lance, bp, bj):
        return -1, 0
    wt = team[winner_seat(best)]
    if lance == PARES:
        return wt, vp
    if lance == JUEGO:
        return wt, vj
    return wt, 1


@njit(cache=True, inline="always")
def team_net(hs, team, tab, my_team, net, win):
    """Resolve one deal and write the net stones en paso of ``my_team`` per lance (``net``
    [5], ours minus theirs, 0 when not played) and whether its hand is the best (``win``
    [5], 0 when not played).  Returns the sum of ``net``."""
    bg, bc, bp, bj, bu, _, _, vp, vj = resolve(hs, team, tab)
    total = 0
    for lance in range(5):
        best = bg if lance == GRANDE else bc if lance == CHICA else bp if lance == PARES else \
            bj if lance == JUEGO else bu
        wt, v = paso_stones(lance, best, bp, bj, vp, vj, team)
        if wt < 0:
            net[lance] = 0
            win[lance] = 0
        else:
            win[lance] = 1 if wt == my_team else 0
            net[lance] = v if wt == my_team else -v
        total += net[lance]
    return total
