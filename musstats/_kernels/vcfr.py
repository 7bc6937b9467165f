"""Kernels of *public chance sampling* for the betting solver (private; see
musstats.engines.betting.vector).

To update (or value) one owner ``k`` -- a seat in the private model, a team in the pooled
one -- a *sample* fixes the hands of the three seats other than one seat ``i`` of ``k``
and enumerates **every** hand ``L[j]`` of seat ``i`` at once, each with its exact
conditional weight given the others' twelve cards:

    w_j = sw[b] * ways(L[j] | the remaining cards) / C(n_remaining, 4),

``ways`` the number of card combinations of the hand among the remaining cards, so that
``w_j = P(hand of i = L[j] | the others' hands)`` times the sample's weight ``sw[b]``: the
joint distribution of the four hands is the real one, card removal included.  ``L``
holds the hands of seat ``i`` that fit its public declaration; the others are dealt from
the full deck and redrawn until they fit theirs (:func:`_draw`), or given explicitly
(``hands``, ``sw``: the tests enumerate them).  Together they weigh every deal of the
subgame by its probability times a constant per enumerated seat (``P(subgame) / P(the
other three fit)``), which neither regret matching nor ratio estimates see.

A pooled team that enumerates its partner too (owner kind 2) is sampled differently: a
sample deals only the two opponents and weighs every pair of the team's hands by its
exact probability given their eight cards, summed per pooled state
(:func:`_prepare_pairs`); its value vectors are indexed by state.  Those sums depend only on
the cards per class the opponents leave, so they are computed once for every such deck
(:func:`pair_weights`, a few thousand with 8 reyes) and read per sample: a table row
instead of some 100,000 pairs.

The others' reach is one number per node (their hands are fixed); the values of ``k`` are
vectors over the enumerated hands: one backward pass updates every infoset of ``k`` that
the others reach.  Subtrees the others never reach are skipped.

**Layout ("T-layout").**  Strategies, regrets and sums are 2-D arrays [rows, MS],
state-minor: owner ``k``'s node ``n`` and action ``a`` is row ``rb[k] + noff[n] + a``, its
state ``s`` column ``s`` (``s < m[k] <= MS``; the other columns are padding).  A seat
owner's states are the positions in the list of its seat's possible hands (``pos[q, h]``):
the enumerated hand ``j`` *is* state ``j`` and the loops over ``j`` are contiguous.  A team
owner's states are the pooled team states (:func:`musstats._kernels.betting.team_state`),
gathered per hand.

**Tasks and threads.**  The samples of a call are cut into fixed chunks ``bounds[c] ..
bounds[c + 1]``; a *task* is (owner, chunk), with its own generator state ``seeds[task]``
and its own accumulator, summed afterwards in task order: the results do not depend on
the number of threads.  One call can update several owners (one launch of the thread
pool: on a loaded machine each launch can wait for a time slice).

Packed arguments: ``G``, a :class:`TreeArrays` (the tree ``tr`` int64 [8, N], rows ``T_*``:
terminal?, first child, actions, owner (-1 at terminals), row of the terminal in ``U``,
offset of the node's actions in its owner's block, row of the node in the value array,
index among the terminal nodes; the owners ``ow`` int64 [5, owners], rows ``O_*``: first
row, states, kind 0 seat / 1 team / 2 team enumerating its pairs, the seat or team, team;
the decision nodes children first; each seat's hands that fit, their positions and each
owner's enumerated seat; the pair tables of the two teams (:func:`pair_weights`, empty
when a team does not enumerate its pairs or the table is not built) with the row
``rmap[code]`` of each remaining deck, ``code = sum(rem * radix)``), and ``D``, a
:class:`DeckArrays` (the deck and hand tables).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from musstats._kernels.betting import outcome_of_scores, team_state
from musstats._kernels.cfr import T_FIRST, T_NACT, T_NOFF, T_OWNER, T_ROW, T_TERM, T_TROW, T_TZ
from musstats._kernels.dealing import hand_index, shuffle
from musstats._kernels.exact import _ways
from musstats._kernels.lances import seat_row

__all__ = ["TreeArrays", "DeckArrays", "O_TB", "O_M",
           "O_KIND", "O_IDX", "O_TEAM", "sample_others", "own_weights", "pair_weights", "vec_regrets",
           "vec_terminal_sums", "vec_values", "pooled_joint", "pooled_terminal_sums", "pair_terminal_sums",
           "pair_reach_dots"]

O_TB, O_M, O_KIND, O_IDX, O_TEAM = range(5)


class TreeArrays(NamedTuple):
    """The packed tree and owners of a subgame (``G`` of the kernels): the tree ``tr`` [8, N]
    (rows ``T_*``), the owners ``ow`` [5, owners] (rows ``O_*``), the decision nodes children
    first ``order``, each seat's hands that fit ``lists[q, :n_list[q]]`` and their positions
    ``pos`` [4, H], each owner's enumerated seat ``eseat``, the two teams' pair tables
    ``pairs0``, ``pairs1`` (empty when not built) and the deck codes ``rmap``, ``radix`` of
    their rows."""

    tr: np.ndarray
    ow: np.ndarray
    order: np.ndarray
    lists: np.ndarray
    n_list: np.ndarray
    pos: np.ndarray
    eseat: np.ndarray
    pairs0: np.ndarray
    pairs1: np.ndarray
    rmap: np.ndarray
    radix: np.ndarray


class DeckArrays(NamedTuple):
    """The deck and hand tables of a subgame (``D`` of the kernels): the class of each
    physical card, the hand index of 4 classes, the cards per class, each hand's classes and
    counts (``nzc``, ``nzn``, ``nnz``), binomials, the lance table, who holds the lance,
    what each seat must hold (-1: anything) and each seat's range weights ``rw`` [4, H] (a
    factor per seat and hand on the deal's law: what the public history says of a hand; ones
    for the hands as dealt).  The pooled teams' pairs read no range weights."""

    card_class: np.ndarray
    idx4: np.ndarray
    cls_cnt: np.ndarray
    nzc: np.ndarray
    nzn: np.ndarray
    nnz: np.ndarray
    binom: np.ndarray
    tab: np.ndarray
    hold: np.ndarray
    req: np.ndarray
    rw: np.ndarray


# ---------------------------------------------------------------------------
# samples of the other three seats


@njit(cache=True, inline="always")
def _draw(deck, st, seat, seat2, card_class, req, hold, k_cls, idx4, h4, hb):
    """Deal the seats other than ``seat`` and ``seat2`` (-1: none) from ``deck`` (a permutation
    of the physical cards, shuffled in place) until each seat ``q`` with ``req[q] >= 0`` has
    ``hold[hand] == req[q]``; hand indices into ``hb`` (-1 at the seats not dealt).  Returns
    the number of deals drawn."""
    n_deck = deck.shape[0]
    att = 0
    n_cards = 8 if seat2 >= 0 else 12
    while True:
        att += 1
        shuffle(deck, n_deck, st, n_cards)
        j = n_deck
        ok = True
        for q in range(4):
            if q == seat or q == seat2:
                hb[q] = -1
                continue
            for i in range(4):
                j -= 1
                h4[i] = deck[j]
            h = hand_index(h4, card_class, k_cls, idx4)
            hb[q] = h
            if req[q] >= 0 and hold[h] != req[q]:
                ok = False
                break
        if ok:
            return att


@njit(cache=True)
def sample_others(seeds, bounds, seat, seat2, card_class, req, hold, k_cls, idx4, out, tries):
    """The samples :func:`vec_regrets` draws for one owner, chunk ``c`` from ``seeds[c]``: hand
    indices int64 into ``out`` [n, 4] (-1 in the columns of ``seat`` and ``seat2``), draws per
    chunk into ``tries`` (for the tests and the acceptance rates)."""
    n_chunks = bounds.shape[0] - 1
    for c in range(n_chunks):
        st = seeds[c].copy()
        deck = np.arange(card_class.shape[0])
        h4 = np.empty(4, np.int64)
        hb = np.empty(4, np.int64)
        att = 0
        for b in range(bounds[c], bounds[c + 1]):
            att += _draw(deck, st, seat, seat2, card_class, req, hold, k_cls, idx4, h4, hb)
            for q in range(4):
                out[b, q] = hb[q]
        tries[c] = att


@njit(cache=True, inline="always")
def _remaining(hb, seat, cls_cnt, nzc, nzn, nnz, rem):
    """Cards per class left once the hands ``hb`` of the seats other than ``seat`` are dealt
    (a negative hand: a seat not dealt)."""
    for c in range(cls_cnt.shape[0]):
        rem[c] = cls_cnt[c]
    for q in range(4):
        if q != seat and hb[q] >= 0:
            h = hb[q]
            for i in range(nnz[h]):
                rem[nzc[h, i]] -= nzn[h, i]


@njit(cache=True)
def own_weights(hb, seat, L, cls_cnt, nzc, nzn, nnz, binom, inv_total):
    """``P(hand of seat = L[j] | the other seats' hands hb)``: float64 [len(L)] (the weights
    of :func:`vec_regrets`, for the tests)."""
    rem = np.empty(cls_cnt.shape[0], np.int64)
    _remaining(hb, seat, cls_cnt, nzc, nzn, nnz, rem)
    out = np.empty(L.shape[0])
    for j in range(L.shape[0]):
        out[j] = _ways(L[j], rem, nzc, nzn, nnz, binom) * inv_total
    return out


@njit(cache=True, inline="always")
def _other_states(hs, k, ow, pos, lance, col, tab, ostate):
    """The states of the owners other than ``k`` from the hands ``hs`` (theirs all dealt)."""
    for k2 in range(ow.shape[1]):
        if k2 == k:
            continue
        q2 = ow[O_IDX, k2]
        if ow[O_KIND, k2] == 0:
            ostate[k2] = pos[q2, hs[q2]]
        else:
            ostate[k2] = team_state(hs[q2], hs[q2 + 2], q2, lance, col, tab)


@njit(cache=True, inline="always")
def _state_score(s, t, lance, col, tab):
    """The lance score (:func:`.lances.seat_row`) of team ``t``'s pooled state ``s`` (its best
    hand and the seat holding it) and the team's values."""
    si = np.int64(s)  # a prange index may be unsigned: keep the arithmetic in int64
    b = si // 7 if col >= 0 else si
    return seat_row(b // 2, t + 2 * (b % 2), tab)[lance], (si % 7 if col >= 0 else np.int64(0))


@njit(cache=True, inline="always")
def _pair_sums(rem, t, lance, col, req, hold, tab, nzc, nzn, nnz, binom, out):
    """Add ``ways(h1 | rem) ways(h2 | rem - h1)`` of every pair (hand ``h1`` at seat ``t``, ``h2``
    at seat ``t + 2``) that fits the declarations into ``out[s]``, ``s`` its pooled state
    (:func:`team_state`); ``rem`` is restored on return."""
    H = tab.shape[0]
    for h1 in range(H):
        if req[t] >= 0 and hold[h1] != req[t]:
            continue
        w1 = _ways(h1, rem, nzc, nzn, nnz, binom)
        if w1 == 0:
            continue
        for i in range(nnz[h1]):
            rem[nzc[h1, i]] -= nzn[h1, i]
        sa = seat_row(h1, t, tab)[lance]
        va = tab[h1, col] if col >= 0 else 0
        for h2 in range(H):
            if req[t + 2] >= 0 and hold[h2] != req[t + 2]:
                continue
            w2 = _ways(h2, rem, nzc, nzn, nnz, binom)
            if w2 == 0:
                continue
            sb = seat_row(h2, t + 2, tab)[lance]
            st = 2 * h1 if sa > sb else 2 * h2 + 1
            if col >= 0:
                st = st * 7 + va + tab[h2, col]
            out[st] += float(w1) * float(w2)
        for i in range(nnz[h1]):
            rem[nzc[h1, i]] += nzn[h1, i]


@njit(cache=True, parallel=True)
def pair_weights(rems, t, lance, col, req, hold, tab, nzc, nzn, nnz, binom, M):
    """For every remaining deck ``rems[r]`` (cards per class once the opponents' eight are
    dealt): ``W[r, s]`` = the sum of ``ways(h1 | rem) ways(h2 | rem - h1)`` over the pairs (hand
    ``h1`` at seat ``t``, ``h2`` at seat ``t + 2``) that fit the declarations and fall in
    pooled state ``s`` (:func:`team_state`): float64 [len(rems), M], the weights of
    :func:`_prepare_pairs` before their normalisation (integers, exact)."""
    R = rems.shape[0]
    W = np.zeros((R, M))
    for r in prange(R):
        _pair_sums(rems[r].copy(), t, lance, col, req, hold, tab, nzc, nzn, nnz, binom, W[r])
    return W


@njit(cache=True, inline="always")
def _prepare_pairs(swb, k, ow, pos, lance, col, D, hs, rem, wj, sj, oj, ostate, PW, rmap, radix):
    """One sample of a team owner ``k`` whose partner is enumerated too (kind 2): the
    opponents' hands ``hs`` are fixed and every pair (hand at seat t, hand at seat t + 2)
    that fits the declarations is weighed by its exact probability given the opponents'
    eight cards, ``ways(h1 | rem) ways(h2 | rem - h1) / (C(n, 4) C(n - 4, 4))``; the
    weights are summed per pooled state (:func:`team_state`), whose outcome the state
    decides (the team's best score and its values).  The sums are the row of the team's
    table ``PW`` for the remaining deck (:func:`pair_weights`), or, with an empty table,
    added up here (:func:`_pair_sums`).  Only the states that weigh something are kept:
    ``wj[:nj]``, ``oj[:nj]`` with their states ``sj[:nj]``.  Returns (the sum of the weights,
    ``nj``)."""
    nzc, nzn, nnz, binom, tab = D.nzc, D.nzn, D.nnz, D.binom, D.tab
    t = ow[O_IDX, k]
    M = ow[O_M, k]
    _other_states(hs, k, ow, pos, lance, col, tab, ostate)
    n_rem = 0
    for c in range(rem.shape[0]):
        n_rem += rem[c]
    n4 = float(n_rem - 4)
    inv = swb * 576.0 / (float(n_rem) * (n_rem - 1) * (n_rem - 2) * (n_rem - 3) * n4 * (n4 - 1) * (n4 - 2) * (n4 - 3))
    o = 1 - t
    so_a = seat_row(hs[o], o, tab)[lance]
    so_b = seat_row(hs[o + 2], o + 2, tab)[lance]
    vo = tab[hs[o], col] + tab[hs[o + 2], col] if col >= 0 else 0
    if PW.shape[0] > 0:
        code = 0
        for c in range(rem.shape[0]):
            code += rem[c] * radix[c]
        row = PW[rmap[code]]
    else:
        for s in range(M):
            wj[s] = 0.0
        _pair_sums(rem, t, lance, col, D.req, D.hold, tab, nzc, nzn, nnz, binom, wj)
        row = wj  # read at s before it is written at nj <= s
    wsum = 0.0
    nj = 0
    for s in range(M):
        w = row[s] * inv
        if w != 0.0:
            best, vt = _state_score(s, t, lance, col, tab)
            best = max(best, max(so_a, so_b))
            if t == 0:
                oj[nj] = outcome_of_scores(best, so_a, 0, so_b, vt, vo)
            else:
                oj[nj] = outcome_of_scores(so_a, best, so_b, 0, vo, vt)
            wj[nj] = w
            sj[nj] = s
            nj += 1
            wsum += w
    return wsum, nj


@njit(cache=True, inline="always")
def _prepare(hb, swb, seat, k, L, ow, pos, lance, col, D, inv_total, hs, rem, wj, sj, oj, ostate, PW, rmap, radix):
    """One sample: the weights ``wj``, states ``sj`` (of owner ``k``) and outcome codes ``oj``
    of the enumerated hands (or pairs' states), and the fixed states ``ostate`` of the other
    owners.  Returns (the sum of the weights, how many entries of ``wj`` are used)."""
    cls_cnt, nzc, nzn, nnz, binom, tab = D.cls_cnt, D.nzc, D.nzn, D.nnz, D.binom, D.tab
    _remaining(hb, seat, cls_cnt, nzc, nzn, nnz, rem)
    for q in range(4):
        hs[q] = hb[q]
    if ow[O_KIND, k] == 2:
        return _prepare_pairs(swb, k, ow, pos, lance, col, D, hs, rem, wj, sj, oj, ostate, PW, rmap, radix)
    _other_states(hs, k, ow, pos, lance, col, tab, ostate)
    team_k = ow[O_KIND, k] == 1
    tk = ow[O_IDX, k]
    # the fixed seats' scores in the lance and the teams' fixed values; the enumerated
    # seat's score and value per hand; the winner by outcome_of_scores (lances.winner_seat)
    sc0 = seat_row(hs[0], 0, tab)[lance] if seat != 0 else 0
    sc1 = seat_row(hs[1], 1, tab)[lance] if seat != 1 else 0
    sc2 = seat_row(hs[2], 2, tab)[lance] if seat != 2 else 0
    sc3 = seat_row(hs[3], 3, tab)[lance] if seat != 3 else 0
    vf0 = 0
    vf1 = 0
    if col >= 0:
        for q in range(4):
            if q != seat:
                if q % 2 == 0:
                    vf0 += tab[hs[q], col]
                else:
                    vf1 += tab[hs[q], col]
    rw = D.rw
    for q in range(4):
        if q != seat:
            swb *= rw[q, hs[q]]
    wsum = 0.0
    for j in range(L.shape[0]):
        h = L[j]
        w = _ways(h, rem, nzc, nzn, nnz, binom) * inv_total * swb * rw[seat, h]
        wj[j] = w
        wsum += w
        so = seat_row(h, seat, tab)[lance]
        vo = tab[h, col] if col >= 0 else 0
        if seat == 0:
            oj[j] = outcome_of_scores(so, sc1, sc2, sc3, vf0 + vo, vf1)
        elif seat == 1:
            oj[j] = outcome_of_scores(sc0, so, sc2, sc3, vf0, vf1 + vo)
        elif seat == 2:
            oj[j] = outcome_of_scores(sc0, sc1, so, sc3, vf0 + vo, vf1)
        else:
            oj[j] = outcome_of_scores(sc0, sc1, sc2, so, vf0, vf1 + vo)
        if team_k:
            hs[seat] = h
            sj[j] = team_state(hs[tk], hs[tk + 2], tk, lance, col, tab)
        else:
            sj[j] = j
    return wsum, L.shape[0]


@njit(cache=True, inline="always")
def _enumerated(ow, k, n_list):
    """``(seat2, M)`` of owner ``k``: the partner's seat when it is enumerated too (a team of
    kind 2; else -1) and the length of the value vectors (its states; else the hands of
    its enumerated seat, ``n_list``)."""
    if ow[O_KIND, k] == 2:
        return ow[O_IDX, k] + 2, ow[O_M, k]
    return -1, n_list


@njit(cache=True, inline="always")
def _forward(tr, ow, SIG, k, ostate, rr):
    """Reach of the owners other than ``k`` at every node (their states fixed)."""
    n_nodes = tr.shape[1]
    rr[0] = 1.0
    for n in range(n_nodes):
        if tr[T_TERM, n]:
            continue
        f = tr[T_FIRST, n]
        na = tr[T_NACT, n]
        r = rr[n]
        k2 = tr[T_OWNER, n]
        if r == 0.0:
            for a in range(na):
                rr[f + a] = 0.0
        elif k2 == k:
            for a in range(na):
                rr[f + a] = r
        else:
            r0 = ow[O_TB, k2] + tr[T_NOFF, n]
            s2 = ostate[k2]
            for a in range(na):
                rr[f + a] = r * SIG[r0 + a, s2]


@njit(cache=True, inline="always")
def _terminal_rows(val, U, oj, wj, sgn, n_term, M, weighted):
    for t in range(n_term):
        for j in range(M):
            u = U[t, oj[j]]
            val[t, j] = sgn * wj[j] * u if weighted else u


# ---------------------------------------------------------------------------
# regrets


@njit(cache=True, parallel=True, fastmath=True)
def vec_regrets(owners, bounds, hands, sw, seeds, sample, G, D, SIG, U, k_cls, inv_total, lance, col, n_term,
                n_vrows, n_rows, acc_proto):
    """Counterfactual values of the actions of each owner in ``owners`` -- w x (the others'
    reach) x (its team's utility after the action) -- summed over the samples of each chunk:
    [tasks = len(owners) x chunks, n_rows, MS] of the dtype of ``acc_proto``, row ``noff[n] +
    a`` of the owner's node ``n``, column its state; the summed weights and the deals drawn
    per task.  With ``sample`` the samples are drawn (task ``p`` from ``seeds[p]``), else read
    from ``hands``, ``sw`` (one owner).

    The instantaneous regret of an action is its value minus the ``SIG``-weighted mean of the
    values of the node's actions (:func:`dcfr_update_owner`): the sum over the samples of
    w x reach x (v(action) - v(node)), since ``SIG`` is the same for every sample.  The
    backward pass visits the decision nodes in ``order`` (children first), their values in
    rows ``T_ROW`` (``n_term .. n_term + n_vrows``, reused) of a work array of the dtype of
    ``SIG``."""
    tr, ow, order, Lall, Ln, pos, eseat = G.tr, G.ow, G.order, G.lists, G.n_list, G.pos, G.eseat
    PW0, PW1, rmap, radix = G.pairs0, G.pairs1, G.rmap, G.radix
    card_class, idx4, req, hold = D.card_class, D.idx4, D.req, D.hold
    n_chunks = bounds.shape[0] - 1
    n_tasks = owners.shape[0] * n_chunks
    n_nodes = tr.shape[1]
    MS = SIG.shape[1]
    acc = np.zeros((n_tasks, n_rows, MS), acc_proto.dtype)
    wtot = np.zeros(n_tasks)
    tries = np.zeros(n_tasks, np.int64)
    for p in prange(n_tasks):
        k = owners[p // n_chunks]
        c = p % n_chunks
        seat = eseat[k]
        seat2, M = _enumerated(ow, k, Ln[seat])
        L = Lall[seat, :Ln[seat]]
        sgn = 1.0 if ow[O_TEAM, k] == 0 else -1.0
        direct = ow[O_KIND, k] == 0
        rb = ow[O_TB, k]
        val = np.zeros((n_term + n_vrows, M), SIG.dtype)
        rr = np.zeros(n_nodes)
        hs = np.empty(4, np.int64)
        hb = np.empty(4, np.int64)
        h4 = np.empty(4, np.int64)
        deck = np.arange(card_class.shape[0])
        st = seeds[p].copy()
        rem = np.empty(D.cls_cnt.shape[0], np.int64)
        wj = np.empty(M)
        gw = np.empty(M, SIG.dtype)
        lp = np.empty(16, SIG.dtype)
        lc = np.empty(16, np.int64)
        sj = np.empty(M, np.int64)
        oj = np.empty(M, np.int64)
        ostate = np.zeros(ow.shape[1], np.int64)
        ws = 0.0
        att = 0
        for b in range(bounds[c], bounds[c + 1]):
            if sample:
                att += _draw(deck, st, seat, seat2, card_class, req, hold, k_cls, idx4, h4, hb)
                swb = 1.0
            else:
                for q in range(4):
                    hb[q] = hands[b, q]
                swb = sw[b]
            wb, Mj = _prepare(hb, swb, seat, k, L, ow, pos, lance, col, D, inv_total, hs, rem, wj, sj, oj,
                              ostate, PW0 if ow[O_IDX, k] == 0 else PW1, rmap, radix)
            ws += wb
            _forward(tr, ow, SIG, k, ostate, rr)
            _terminal_rows(val, U, oj, wj, 1.0, n_term, Mj, False)
            for oi in range(order.shape[0]):
                n = order[oi]
                if rr[n] == 0.0:
                    continue
                f = tr[T_FIRST, n]
                na = tr[T_NACT, n]
                vr = tr[T_ROW, n]
                k2 = tr[T_OWNER, n]
                if k2 == k:
                    a0 = tr[T_NOFF, n]
                    g = sgn * rr[n]
                    for j in range(Mj):
                        gw[j] = g * wj[j]
                    if direct:
                        for a in range(na):
                            cr = tr[T_ROW, f + a]
                            sr = rb + a0 + a
                            lr = a0 + a
                            if a == 0:
                                for j in range(Mj):
                                    x = val[cr, j]
                                    acc[p, lr, j] += gw[j] * x
                                    val[vr, j] = SIG[sr, j] * x
                            else:
                                for j in range(Mj):
                                    x = val[cr, j]
                                    acc[p, lr, j] += gw[j] * x
                                    val[vr, j] += SIG[sr, j] * x
                    else:
                        for j in range(Mj):
                            val[vr, j] = 0.0
                        for a in range(na):
                            cr = tr[T_ROW, f + a]
                            sr = rb + a0 + a
                            lr = a0 + a
                            for j in range(Mj):
                                x = val[cr, j]
                                acc[p, lr, sj[j]] += gw[j] * x
                                val[vr, j] += SIG[sr, sj[j]] * x
                else:
                    r0 = ow[O_TB, k2] + tr[T_NOFF, n]
                    s2 = ostate[k2]
                    nl = 0
                    for a in range(na):
                        if rr[f + a] != 0.0:  # skip what the owner never plays (or whose reach underflows)
                            lp[nl] = SIG[r0 + a, s2]
                            lc[nl] = tr[T_ROW, f + a]
                            nl += 1
                    if nl == 1:
                        p0 = lp[0]
                        c0 = lc[0]
                        for j in range(Mj):
                            val[vr, j] = p0 * val[c0, j]
                    elif nl == 2:
                        p0 = lp[0]
                        p1 = lp[1]
                        c0 = lc[0]
                        c1 = lc[1]
                        for j in range(Mj):
                            val[vr, j] = p0 * val[c0, j] + p1 * val[c1, j]
                    else:
                        p0 = lp[0]
                        p1 = lp[1]
                        p2 = lp[2]
                        c0 = lc[0]
                        c1 = lc[1]
                        c2 = lc[2]
                        for j in range(Mj):
                            val[vr, j] = p0 * val[c0, j] + p1 * val[c1, j] + p2 * val[c2, j]
                        for i in range(3, nl):
                            p0 = lp[i]
                            c0 = lc[i]
                            for j in range(Mj):
                                val[vr, j] += p0 * val[c0, j]
        wtot[p] = ws
        tries[p] = att
    return acc, wtot, tries


# ---------------------------------------------------------------------------
# best responses and values


@njit(cache=True, parallel=True, fastmath=True)
def vec_terminal_sums(k, bounds, hands, sw, seeds, sample, G, D, SIG, U, k_cls, inv_total, lance, col, n_term,
                      n_tz):
    """For owner ``k``: at every terminal node ``z`` and state ``s`` of ``k``, the sum over
    the samples of each chunk and the enumerated hands in state ``s`` of w x (the others'
    reach at z) x (k's team utility): float64 [chunks, n_tz, m[k]]; and the summed
    weights per chunk.  Samples drawn (chunk ``c`` from ``seeds[c]``) or given."""
    tr, ow, order, Lall, Ln, pos, eseat = G.tr, G.ow, G.order, G.lists, G.n_list, G.pos, G.eseat
    PW0, PW1, rmap, radix = G.pairs0, G.pairs1, G.rmap, G.radix
    card_class, idx4, req, hold = D.card_class, D.idx4, D.req, D.hold
    n_chunks = bounds.shape[0] - 1
    n_nodes = tr.shape[1]
    seat = eseat[k]
    seat2, M = _enumerated(ow, k, Ln[seat])
    m = ow[O_M, k]
    acc = np.zeros((n_chunks, n_tz, m))
    wtot = np.zeros(n_chunks)
    sgn = 1.0 if ow[O_TEAM, k] == 0 else -1.0
    direct = ow[O_KIND, k] == 0
    for c in prange(n_chunks):
        L = Lall[seat, :Ln[seat]]
        val = np.zeros((n_term, M))
        rr = np.zeros(n_nodes)
        hs = np.empty(4, np.int64)
        hb = np.empty(4, np.int64)
        h4 = np.empty(4, np.int64)
        deck = np.arange(card_class.shape[0])
        st = seeds[c].copy()
        rem = np.empty(D.cls_cnt.shape[0], np.int64)
        wj = np.empty(M)
        sj = np.empty(M, np.int64)
        oj = np.empty(M, np.int64)
        ostate = np.zeros(ow.shape[1], np.int64)
        ws = 0.0
        for b in range(bounds[c], bounds[c + 1]):
            if sample:
                _draw(deck, st, seat, seat2, card_class, req, hold, k_cls, idx4, h4, hb)
                swb = 1.0
            else:
                for q in range(4):
                    hb[q] = hands[b, q]
                swb = sw[b]
            wb, Mj = _prepare(hb, swb, seat, k, L, ow, pos, lance, col, D, inv_total, hs, rem, wj, sj, oj,
                              ostate, PW0 if ow[O_IDX, k] == 0 else PW1, rmap, radix)
            ws += wb
            _forward(tr, ow, SIG, k, ostate, rr)
            _terminal_rows(val, U, oj, wj, sgn, n_term, Mj, True)
            for n in range(n_nodes):
                if not tr[T_TERM, n] or rr[n] == 0.0:
                    continue
                r = rr[n]
                t = tr[T_TROW, n]
                z = tr[T_TZ, n]
                if direct:
                    for j in range(Mj):
                        acc[c, z, j] += r * val[t, j]
                else:
                    for j in range(Mj):
                        acc[c, z, sj[j]] += r * val[t, j]
        wtot[c] = ws
    return acc, wtot


@njit(cache=True, parallel=True, fastmath=True)
def vec_values(k, bounds, hands, sw, seeds, sample, G, D, SIG, U, k_cls, inv_total, lance, col, n_term, P):
    """Per sample, k's team utility under the others' strategies when k reaches terminal
    node ``z`` in state ``s`` with probability ``P[i, z, s]`` (``i`` = 0, 1: two strategies of
    k on the same samples): float64 [2, n]; and the sample's summed weights [n].  Samples
    drawn (chunk ``c`` from ``seeds[c]``: the same as :func:`vec_terminal_sums` with the same
    seeds and bounds) or given."""
    tr, ow, order, Lall, Ln, pos, eseat = G.tr, G.ow, G.order, G.lists, G.n_list, G.pos, G.eseat
    PW0, PW1, rmap, radix = G.pairs0, G.pairs1, G.rmap, G.radix
    card_class, idx4, req, hold = D.card_class, D.idx4, D.req, D.hold
    n_chunks = bounds.shape[0] - 1
    n_nodes = tr.shape[1]
    n = bounds[n_chunks]
    seat = eseat[k]
    seat2, M = _enumerated(ow, k, Ln[seat])
    x = np.zeros((2, n))
    W = np.zeros(n)
    sgn = 1.0 if ow[O_TEAM, k] == 0 else -1.0
    direct = ow[O_KIND, k] == 0
    for c in prange(n_chunks):
        L = Lall[seat, :Ln[seat]]
        val = np.zeros((n_term, M))
        rr = np.zeros(n_nodes)
        hs = np.empty(4, np.int64)
        hb = np.empty(4, np.int64)
        h4 = np.empty(4, np.int64)
        deck = np.arange(card_class.shape[0])
        st = seeds[c].copy()
        rem = np.empty(D.cls_cnt.shape[0], np.int64)
        wj = np.empty(M)
        sj = np.empty(M, np.int64)
        oj = np.empty(M, np.int64)
        ostate = np.zeros(ow.shape[1], np.int64)
        for b in range(bounds[c], bounds[c + 1]):
            if sample:
                _draw(deck, st, seat, seat2, card_class, req, hold, k_cls, idx4, h4, hb)
                swb = 1.0
            else:
                for q in range(4):
                    hb[q] = hands[b, q]
                swb = sw[b]
            W[b], Mj = _prepare(hb, swb, seat, k, L, ow, pos, lance, col, D, inv_total, hs, rem, wj, sj, oj,
                                ostate, PW0 if ow[O_IDX, k] == 0 else PW1, rmap, radix)
            _forward(tr, ow, SIG, k, ostate, rr)
            _terminal_rows(val, U, oj, wj, sgn, n_term, Mj, True)
            x0 = 0.0
            x1 = 0.0
            for nd in range(n_nodes):
                if not tr[T_TERM, nd] or rr[nd] == 0.0:
                    continue
                t = tr[T_TROW, nd]
                z = tr[T_TZ, nd]
                s0 = 0.0
                s1 = 0.0
                if direct:
                    for j in range(Mj):
                        s0 += P[0, z, j] * val[t, j]
                        s1 += P[1, z, j] * val[t, j]
                else:
                    for j in range(Mj):
                        s0 += P[0, z, sj[j]] * val[t, j]
                        s1 += P[1, z, sj[j]] * val[t, j]
                x0 += rr[nd] * s0
                x1 += rr[nd] * s1
            x[0, b] = x0
            x[1, b] = x1
    return x, W


# ---------------------------------------------------------------------------
# the pooled game, exactly: the joint law of the two teams' states


@njit(cache=True)
def pooled_joint(W0, rmap, radix, pairs1, lance, col, tab, cls_cnt, nzc, nzn, nnz, binom, M1):
    """The joint weights of the pooled states of the two teams: ``P[s0, s1]`` = the sum over
    team 1's pairs ``pairs1[i]`` = (hand at seat 1, hand at seat 3) -- those that fit the
    declarations -- of ``ways(h1) ways(h3 | h1)`` times team 0's pair weights for the deck
    they leave (``W0``, :func:`pair_weights` of team 0: every pair of its hands that fits),
    in ``s1`` = team 1's state of the pair.  Unnormalised: divide by the sum."""
    M0 = W0.shape[1]
    P = np.zeros((M0, M1))
    rem = cls_cnt.copy()
    code0 = 0
    for c in range(rem.shape[0]):
        code0 += rem[c] * radix[c]
    for i in range(pairs1.shape[0]):
        h1 = pairs1[i, 0]
        h3 = pairs1[i, 1]
        w1 = _ways(h1, rem, nzc, nzn, nnz, binom)
        if w1 == 0:
            continue
        for j in range(nnz[h1]):
            rem[nzc[h1, j]] -= nzn[h1, j]
        w3 = _ways(h3, rem, nzc, nzn, nnz, binom)
        if w3 != 0:
            code = code0
            for j in range(nnz[h1]):
                code -= nzn[h1, j] * radix[nzc[h1, j]]
            for j in range(nnz[h3]):
                code -= nzn[h3, j] * radix[nzc[h3, j]]
            r = rmap[code]
            s1 = team_state(h1, h3, 1, lance, col, tab)
            w = float(w1) * float(w3)
            for s0 in range(M0):
                x = W0[r, s0]
                if x != 0.0:
                    P[s0, s1] += w * x
        for j in range(nnz[h1]):
            rem[nzc[h1, j]] += nzn[h1, j]
    return P


@njit(cache=True, parallel=True)
def pooled_terminal_sums(Q, PI, U, trow, lance, col, tab, team):
    """For team ``team``: at every terminal ``z`` (``trow[z]``: its row of ``U``) and own state
    ``s``, the sum over the other team's states ``x`` of ``Q[s, x]`` x (the other team's reach
    ``PI[z, x]``) x (``team``'s utility): float64 [n_tz, own states] -- the terminal sums of an
    exact best response or CFR iteration in the pooled game.  ``Q`` = the joint law of the
    states with this team's first: P [team 0, team 1] for team 0, its transpose for team 1."""
    n_tz = trow.shape[0]
    Mo, Mx = Q.shape
    sgn = 1.0 if team == 0 else -1.0
    used = np.zeros(Mx, np.bool_)
    rows = np.zeros(Mo, np.bool_)
    for s in range(Mo):
        for x in range(Mx):
            if Q[s, x] != 0.0:
                used[x] = True
                rows[s] = True
    cols = np.nonzero(used)[0]
    nc = cols.shape[0]
    sc = np.zeros(nc, np.int64)
    vx = np.zeros(nc, np.int64)
    PIt = np.zeros((nc, n_tz))  # contiguous per state of the other team
    for i in range(nc):
        sc[i], vx[i] = _state_score(cols[i], 1 - team, lance, col, tab)
        for z in range(n_tz):
            PIt[i, z] = PI[z, cols[i]]
    n_out = U.shape[1]
    UT = np.zeros((n_out, n_tz))
    for o in range(n_out):
        for z in range(n_tz):
            UT[o, z] = sgn * U[trow[z], o]
    T = np.zeros((n_tz, Mo))
    for s in prange(Mo):
        if not rows[s]:
            continue
        own, vo = _state_score(s, team, lance, col, tab)
        acc = np.zeros(n_tz)
        for i in range(nc):
            p = Q[s, cols[i]]
            if p == 0.0:
                continue
            if team == 0:
                o = outcome_of_scores(own, sc[i], 0, 0, vo, vx[i])
            else:
                o = outcome_of_scores(sc[i], own, 0, 0, vx[i], vo)
            for z in range(n_tz):
                acc[z] += p * PIt[i, z] * UT[o, z]
        for z in range(n_tz):
            T[z, s] = acc[z]
    return T


# ---------------------------------------------------------------------------
# a team that sees both its hands: its exact terminal sums over pairs of hands


@njit(cache=True, parallel=True)
def pair_terminal_sums(t, ptr, rems, pa, pb, pw, L1, L2, c1, c2, R1, R2, RJ, U, trow, lance, col, tab, nzc, nzn, nnz,
                       binom):
    """Team ``t``'s terminal sums over its pairs of hands, exact.  The pairs (hand ``pa[i]`` at
    seat ``t``, ``pb[i]`` at seat ``t + 2``, weight ``pw[i]`` = their card combinations) come in
    groups ``ptr[g] .. ptr[g + 1]`` sharing the deck ``rems[g]`` they leave; the opponents (seats
    ``1 - t`` and ``3 - t``) hold every hand of ``L1`` and ``L2`` the deck allows, weighted by
    their card combinations.  Their hands come in classes ``c1[i]`` (of ``L1[i]``) and ``c2[i]``
    whose hands have one score and value in the lance and one reach (a pure plan plays many
    hands alike): a class pair reaches terminal ``z`` with ``R1[c, z] * R2[c', z]`` -- or, where
    ``RJ`` is not empty, with ``RJ[c, c', z]``: the opponents' joint reach, e.g. a mixture of their
    joint plans, which is no product of two tables.  Per group, the card combinations are summed
    per class pair first, then once per class pair over the terminals.

    Returns ``T`` float64 [n_tz, pairs]: at terminal ``z`` the sum over the opponents' hands of
    weight x their reach x team ``t``'s utility ``U[trow[z], outcome]`` (the pair's own reach
    left out: a best response reads it), and ``W`` [pairs]: each pair's total weight."""
    n_tz = trow.shape[0]
    n_pairs = pa.shape[0]
    n_groups = ptr.shape[0] - 1
    o1 = 1 - t
    o2 = 3 - t
    sgn = 1.0 if t == 0 else -1.0
    T = np.zeros((n_tz, n_pairs))
    W = np.zeros(n_pairs)
    NV = 7 if col >= 0 else 1
    joint = RJ.shape[0] > 0
    n1 = R1.shape[0] if not joint else RJ.shape[0]
    n2 = R2.shape[0] if not joint else RJ.shape[1]
    UT = np.zeros((U.shape[1], n_tz))
    for o in range(U.shape[1]):
        for z in range(n_tz):
            UT[o, z] = sgn * U[trow[z], o]
    n_scores = 8 * (tab[:, lance].max() + 1) + 8
    # each class's score and value (one for all its hands)
    s1c = np.zeros(n1, np.int64)
    v1c = np.zeros(n1, np.int64)
    for i1 in range(L1.shape[0]):
        s1c[c1[i1]] = seat_row(L1[i1], o1, tab)[lance]
        v1c[c1[i1]] = tab[L1[i1], col] if col >= 0 else 0
    s2c = np.zeros(n2, np.int64)
    v2c = np.zeros(n2, np.int64)
    for i2 in range(L2.shape[0]):
        s2c[c2[i2]] = seat_row(L2[i2], o2, tab)[lance]
        v2c[c2[i2]] = tab[L2[i2], col] if col >= 0 else 0
    for g in prange(n_groups):
        rem = rems[g].copy()
        B = np.zeros((n_scores, NV, n_tz))
        CW = np.zeros((n1, n2))
        tot = 0.0
        for i1 in range(L1.shape[0]):
            h1 = L1[i1]
            w1 = _ways(h1, rem, nzc, nzn, nnz, binom)
            if w1 == 0:
                continue
            for j in range(nnz[h1]):
                rem[nzc[h1, j]] -= nzn[h1, j]
            a = c1[i1]
            for i2 in range(L2.shape[0]):
                h2 = L2[i2]
                w2 = _ways(h2, rem, nzc, nzn, nnz, binom)
                if w2 == 0:
                    continue
                w = float(w1) * float(w2)
                tot += w
                CW[a, c2[i2]] += w
            for j in range(nnz[h1]):
                rem[nzc[h1, j]] += nzn[h1, j]
        for a in range(n1):
            for b2 in range(n2):
                w = CW[a, b2]
                if w == 0.0:
                    continue
                so = s1c[a] if s1c[a] > s2c[b2] else s2c[b2]
                b = B[so, v1c[a] + v2c[b2]]
                if joint:
                    for z in range(n_tz):
                        b[z] += w * RJ[a, b2, z]
                else:
                    for z in range(n_tz):
                        b[z] += w * (R1[a, z] * R2[b2, z])
        # the opponents' sums below each score (cumulative), per value of theirs
        C = np.zeros((n_scores + 1, NV, n_tz))
        for s in range(n_scores):
            for v in range(NV):
                for z in range(n_tz):
                    C[s + 1, v, z] = C[s, v, z] + B[s, v, z]
        for i in range(ptr[g], ptr[g + 1]):
            ha = pa[i]
            hb = pb[i]
            sa = seat_row(ha, t, tab)[lance]
            sb = seat_row(hb, t + 2, tab)[lance]
            st = sa if sa > sb else sb
            vt = (tab[ha, col] + tab[hb, col]) if col >= 0 else 0
            w = pw[i]
            W[i] = w * tot
            for v in range(NV):
                for z in range(n_tz):
                    below = C[st, v, z]  # the opponents' best score is below the team's: the team wins
                    above = C[n_scores, v, z] - below
                    if t == 0:
                        ow = 49 + 7 * vt + v
                        ol = 7 * vt + v
                    else:
                        ow = 7 * v + vt
                        ol = 49 + 7 * v + vt
                    T[z, i] += w * (below * UT[ow, z] + above * UT[ol, z])
    return T, W


@njit(cache=True, parallel=True)
def pair_reach_dots(ra, rb, pa, pb, T):
    """Per joint plan ``j`` of a team: its value from the team's sums over its pairs of hands
    ``T`` [n_tz, pairs] -- the sum over terminals ``z`` and pairs ``i`` of ``ra[j, z, pa[i]] *
    rb[j, z, pb[i]] * T[z, i]``, the plan's reach of a pair the product of its two partners'
    own reaches ``ra``, ``rb`` [plans, n_tz, states].  Returns float64 [plans]."""
    n_plans = ra.shape[0]
    out = np.zeros(n_plans)
    for j in prange(n_plans):
        acc = 0.0
        for z in range(T.shape[0]):
            a = ra[j, z]
            b = rb[j, z]
            Tz = T[z]
            for i in range(Tz.shape[0]):
                acc += a[pa[i]] * b[pb[i]] * Tz[i]
        out[j] = acc
    return out
