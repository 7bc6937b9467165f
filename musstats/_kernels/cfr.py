"""Kernels of the betting solver: chance-sampled counterfactual regret minimisation on a
public tree with private states (private; see musstats.engines.betting.solver).

A *game* is a public tree in flat arrays -- ``is_term``, ``first`` (first child; the
children of a node are contiguous), ``nact``, ``owner`` (the player who acts, -1 at a
terminal), ``term`` (the row of the terminal in ``U``) -- every parent before its children, plus
``team`` (the team of each owner) and ``U`` [terminals, outcomes] (team 0's utility;
team 1 gets ``-U``).

A *deal* is the private state of every owner, ``st[d, k]``, its outcome code ``o[d]``
and its weight ``w[d]``.  The strategy of owner ``k`` at node ``n`` in state ``s`` is
``sigma[obase[k] + s * stride[k] + noff[n] + a]``: the strategies of one owner in one
state are contiguous (``stride[k]`` slots), so a deal reads and writes one compact
block per owner.

Every kernel that sums over deals works on fixed chunks ``bounds[c] .. bounds[c + 1]``
with one accumulator per chunk, summed afterwards in chunk order: the results do not
depend on the number of threads.  A subtree whose every counterfactual reach is zero
(two owners or more with zero reach) is skipped: it changes no regret.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

__all__ = ["T_TERM", "T_FIRST", "T_NACT", "T_OWNER", "T_TROW", "T_NOFF", "T_ROW", "T_TZ", "GameArrays", "cfr_regrets", "dcfr_discounts", "discount", "br_sums", "root_values", "node_sums", "mixture_node_sums",
           "normalise", "dcfr_update_owner", "average_owner", "own_reach_terminal", "own_action_values"]


#: rows of the packed tree ``tr`` [8, N] of the working layout: terminal?, first child, actions,
#: owner (-1 at terminals), row of the terminal in ``U``, offset of the node's actions in its
#: owner's block, row of the node in a value array, index among the terminal nodes
T_TERM, T_FIRST, T_NACT, T_OWNER, T_TROW, T_NOFF, T_ROW, T_TZ = range(8)


class GameArrays(NamedTuple):
    """The arrays of a game in the stored layout (``A`` of the deal kernels): per node
    ``is_term``, ``first`` child, ``n_act``, ``owner`` (-1 at terminals), ``term`` (row of the
    terminal in ``U``) and ``noff`` (offset of its actions in its owner's block); per owner
    ``obase`` (first slot) and ``stride`` (slots of one state's block) and ``team``."""

    is_term: np.ndarray
    first: np.ndarray
    n_act: np.ndarray
    owner: np.ndarray
    term: np.ndarray
    noff: np.ndarray
    obase: np.ndarray
    stride: np.ndarray
    team: np.ndarray


@njit(cache=True, inline="always")
def _rows(d, st, obase, stride, n_own, row):
    """Start of each owner's strategy block for deal ``d``."""
    for k in range(n_own):
        row[k] = obase[k] + st[d, k] * stride[k]


@njit(cache=True)
def _forward(sigma, is_term, first, nact, owner, noff, row, reach, zeros, live):
    """Reach of every owner at every node (``reach`` [N, 4]) for the deal whose strategy
    blocks start at ``row``, and whether the node's subtree matters (``live``: fewer than
    two owners with zero reach).  The reach is computed at every node, live or not: a
    reader that weighs a node by the others' reach (a best response, ``node_sums``) gets 0
    there, never the reach left by an earlier deal."""
    n_nodes = is_term.shape[0]
    for k in range(4):
        reach[0, k] = 1.0
    zeros[0] = 0
    live[0] = True
    for n in range(n_nodes):
        if is_term[n]:
            continue
        f = first[n]
        na = nact[n]
        k = owner[n]
        b = row[k] + noff[n]
        r0 = reach[n, 0]
        r1 = reach[n, 1]
        r2 = reach[n, 2]
        r3 = reach[n, 3]
        rk = reach[n, k]
        z = zeros[n]
        for a in range(na):
            c = f + a
            reach[c, 0] = r0
            reach[c, 1] = r1
            reach[c, 2] = r2
            reach[c, 3] = r3
            p = sigma[b + a]
            reach[c, k] = rk * p
            zc = z + (1 if (p == 0.0 and rk != 0.0) else 0)
            zeros[c] = zc
            live[c] = live[n] and zc < 2


@njit(cache=True)
def _backward(od, sigma, is_term, first, nact, owner, term, noff, row, U, live, v):
    """Team 0's expected utility at every node for deal ``d`` under ``sigma`` (0 where not live)."""
    n_nodes = is_term.shape[0]
    for n in range(n_nodes - 1, -1, -1):
        if not live[n]:
            v[n] = 0.0
            continue
        if is_term[n]:
            v[n] = U[term[n], od]
            continue
        f = first[n]
        na = nact[n]
        b = row[owner[n]] + noff[n]
        s = 0.0
        for a in range(na):
            s += sigma[b + a] * v[f + a]
        v[n] = s


@njit(cache=True, parallel=True)
def cfr_regrets(bounds, st, o, w, sigma, A, U, n_slots):
    """Instantaneous counterfactual regrets of one iteration, summed over the deals of each
    chunk: float64 [chunks, n_slots].  Every owner is updated on every deal."""
    is_term, first, nact, owner, term, noff, obase, stride, team = A
    n_chunks = bounds.shape[0] - 1
    n_nodes = is_term.shape[0]
    n_own = st.shape[1]
    acc = np.zeros((n_chunks, n_slots))
    for c in prange(n_chunks):
        reach = np.ones((n_nodes, 4))
        zeros = np.zeros(n_nodes, np.int64)
        live = np.zeros(n_nodes, np.bool_)
        v = np.zeros(n_nodes)
        row = np.zeros(4, np.int64)
        loc = acc[c]
        for d in range(bounds[c], bounds[c + 1]):
            _rows(d, st, obase, stride, n_own, row)
            _forward(sigma, is_term, first, nact, owner, noff, row, reach, zeros, live)
            _backward(o[d], sigma, is_term, first, nact, owner, term, noff, row, U, live, v)
            wd = w[d]
            for n in range(n_nodes):
                if is_term[n] or not live[n]:
                    continue
                k = owner[n]
                cf = wd
                for j in range(n_own):
                    if j != k:
                        cf *= reach[n, j]
                if cf == 0.0:
                    continue
                if team[k] != 0:
                    cf = -cf
                f = first[n]
                na = nact[n]
                b = row[k] + noff[n]
                vn = v[n]
                for a in range(na):
                    loc[b + a] += cf * (v[f + a] - vn)
    return acc


@njit(cache=True)
def dcfr_discounts(t, alpha, beta):
    """DCFR's discounts of iteration ``t``: positive regrets by t^alpha / (t^alpha + 1),
    negative ones by t^beta / (t^beta + 1)."""
    ta = t ** alpha
    tb = t ** beta
    return ta / (ta + 1.0), tb / (tb + 1.0)


@njit(cache=True, inline="always")
def discount(r, plus, dpos, dneg):
    """One cumulative regret after an iteration: CFR+ floors it at 0; DCFR scales a positive
    one by ``dpos`` and a negative one by ``dneg``."""
    if plus:
        return r if r > 0.0 else 0.0
    return r * dpos if r > 0.0 else r * dneg


@njit(cache=True, parallel=True)
def normalise(S, out, iset_base, iset_n):
    """Behaviour strategy from strategy sums (uniform where the sums are zero)."""
    for i in prange(iset_base.shape[0]):
        b = iset_base[i]
        na = iset_n[i]
        tot = 0.0
        for a in range(na):
            tot += S[b + a]
        for a in range(na):
            out[b + a] = S[b + a] / tot if tot > 0.0 else 1.0 / na


@njit(cache=True, parallel=True)
def br_sums(bounds, st, o, w, sigma, A, U, k, n_sk, tz, n_tz):
    """For owner ``k``: at every terminal node z and state s of k, the sum over the deals with
    ``st[d, k] == s`` of w x (reach of the others at z) x (k's team utility): float64
    [chunks, n_tz, n_sk], terminal node ``n`` in row ``tz[n]``."""
    is_term, first, nact, owner, term, noff, obase, stride, team = A
    n_chunks = bounds.shape[0] - 1
    n_nodes = is_term.shape[0]
    n_own = st.shape[1]
    acc = np.zeros((n_chunks, n_tz, n_sk))
    sign = 1.0 if team[k] == 0 else -1.0
    for c in prange(n_chunks):
        reach = np.ones((n_nodes, 4))
        zeros = np.zeros(n_nodes, np.int64)
        live = np.zeros(n_nodes, np.bool_)
        row = np.zeros(4, np.int64)
        for d in range(bounds[c], bounds[c + 1]):
            _rows(d, st, obase, stride, n_own, row)
            _forward(sigma, is_term, first, nact, owner, noff, row, reach, zeros, live)
            sk = st[d, k]
            od = o[d]
            for n in range(n_nodes):
                if not is_term[n]:
                    continue
                cf = w[d] * sign
                for j in range(n_own):
                    if j != k:
                        cf *= reach[n, j]
                if cf != 0.0:
                    acc[c, tz[n], sk] += cf * U[term[n], od]
    return acc


@njit(cache=True, parallel=True)
def root_values(st, o, sigma, A, U):
    """Team 0's expected utility of every deal under ``sigma``: float64 [D]."""
    is_term, first, nact, owner, term, noff, obase, stride, team = A
    n_deals = st.shape[0]
    n_nodes = is_term.shape[0]
    n_own = st.shape[1]
    out = np.empty(n_deals)
    n_chunks = 64
    for c in prange(n_chunks):
        reach = np.ones((n_nodes, 4))
        zeros = np.zeros(n_nodes, np.int64)
        live = np.ones(n_nodes, np.bool_)
        v = np.zeros(n_nodes)
        row = np.zeros(4, np.int64)
        for d in range(c * n_deals // n_chunks, (c + 1) * n_deals // n_chunks):
            _rows(d, st, obase, stride, n_own, row)
            _backward(o[d], sigma, is_term, first, nact, owner, term, noff, row, U, live, v)
            out[d] = v[0]
    return out


@njit(cache=True, inline="always")
def _add_sums(acc, c, n, a, cf, y, p):
    """Add one deal's figures of action ``a`` at node ``n`` to chunk ``c`` of :func:`node_sums`'
    accumulator: cf, cf^2, y = cf*x, cf*y, y^2 and p = cf*sigma(action)."""
    acc[c, n, a, 0] += cf
    acc[c, n, a, 1] += cf * cf
    acc[c, n, a, 2] += y
    acc[c, n, a, 3] += cf * y
    acc[c, n, a, 4] += y * y
    acc[c, n, a, 5] += p


@njit(cache=True, parallel=True)
def node_sums(bounds, st, o, w, sigma, A, U, k, max_act):
    """What :func:`musstats.analysis.betting.bet` needs at the nodes of owner ``k``: per chunk,
    node and action, with cf = w x (reach of the others at the node) and x = k's team
    utility after the action: sums of cf, cf^2, cf*x, cf^2*x, cf^2*x^2 and cf*sigma(action).

    Returns float64 [chunks, nodes, max_act, 6] (columns in that order; the action-free
    sums of cf and cf^2 repeat for every action)."""
    is_term, first, nact, owner, term, noff, obase, stride, team = A
    n_chunks = bounds.shape[0] - 1
    n_nodes = is_term.shape[0]
    n_own = st.shape[1]
    acc = np.zeros((n_chunks, n_nodes, max_act, 6))
    sign = 1.0 if team[k] == 0 else -1.0
    for c in prange(n_chunks):
        reach = np.ones((n_nodes, 4))
        zeros = np.zeros(n_nodes, np.int64)
        live = np.zeros(n_nodes, np.bool_)
        v = np.zeros(n_nodes)
        row = np.zeros(4, np.int64)
        for d in range(bounds[c], bounds[c + 1]):
            _rows(d, st, obase, stride, n_own, row)
            _forward(sigma, is_term, first, nact, owner, noff, row, reach, zeros, live)
            for n in range(n_nodes):
                live[n] = True
            _backward(o[d], sigma, is_term, first, nact, owner, term, noff, row, U, live, v)
            for n in range(n_nodes):
                if is_term[n] or owner[n] != k:
                    continue
                cf = w[d]
                for j in range(n_own):
                    if j != k:
                        cf *= reach[n, j]
                if cf == 0.0:
                    continue
                f = first[n]
                na = nact[n]
                b = row[k] + noff[n]
                for a in range(na):
                    _add_sums(acc, c, n, a, cf, cf * sign * v[f + a], cf * sigma[b + a])
    return acc


@njit(cache=True, inline="always")
def _reach_but(reach, n, n_own, k, va, vb):
    """The product of the reach at node ``n`` of every owner but ``k``, ``va`` and ``vb``."""
    x = 1.0
    for j in range(n_own):
        if j != k and j != va and j != vb:
            x *= reach[n, j]
    return x


@njit(cache=True, parallel=True)
def mixture_node_sums(bounds, st, o, w, sigma, va, vb, Aw, B, rel, A, U, k, max_act):
    """:func:`node_sums` of owner ``k`` when owners ``va`` and ``vb`` (``vb`` = -1: ``va`` alone)
    play a mixture of profiles drawn together (a pair's correlated plans) and the others play
    ``sigma``.  ``rel`` [N]: the row of a node among the M nodes read (``k``'s decision nodes and
    the terminals), -1 for the others; ``Aw`` [states of va, M, P]: va's own reach of each of
    those nodes (the product of his probabilities on its path) under each profile, times the
    profile's weight; ``B`` [states of vb, M, P]: vb's own reach (with ``vb`` = -1, ones [1, M, P]).  Per deal the pair's mixed reach
    of a node is the sum over the profiles of the product of the two, so a deal costs M x P
    products and one walk of the tree, however many profiles share a block.  The columns are
    node_sums' for the mixture: cf and cf*x per deal are the weighted sums of each profile's."""
    is_term, first, nact, owner, term, noff, obase, stride, team = A
    n_chunks = bounds.shape[0] - 1
    n_nodes = is_term.shape[0]
    n_own = st.shape[1]
    n_prof = Aw.shape[2]
    n_rel = Aw.shape[1]
    acc = np.zeros((n_chunks, n_nodes, max_act, 6))
    sign = 1.0 if team[k] == 0 else -1.0
    for c in prange(n_chunks):
        reach = np.ones((n_nodes, 4))
        zeros = np.zeros(n_nodes, np.int64)
        live = np.zeros(n_nodes, np.bool_)
        row = np.zeros(4, np.int64)
        R = np.zeros(n_rel)
        Y = np.zeros(n_nodes)
        for d in range(bounds[c], bounds[c + 1]):
            _rows(d, st, obase, stride, n_own, row)
            _forward(sigma, is_term, first, nact, owner, noff, row, reach, zeros, live)
            sa = st[d, va]
            sb = st[d, vb] if vb >= 0 else 0
            for m in range(n_rel):
                x = 0.0
                for p in range(n_prof):
                    x += Aw[sa, m, p] * B[sb, m, p]
                R[m] = x
            for n in range(n_nodes - 1, -1, -1):
                if is_term[n]:
                    Y[n] = R[rel[n]] * U[term[n], o[d]] * sign * _reach_but(reach, n, n_own, k, va, vb)
                    continue
                f = first[n]
                x = 0.0
                if owner[n] == k:
                    b = row[k] + noff[n]
                    for a in range(nact[n]):
                        x += sigma[b + a] * Y[f + a]
                else:
                    for a in range(nact[n]):
                        x += Y[f + a]
                Y[n] = x
            for n in range(n_nodes):
                if is_term[n] or owner[n] != k:
                    continue
                cf = w[d] * R[rel[n]] * _reach_but(reach, n, n_own, k, va, vb)
                if cf == 0.0:
                    continue
                f = first[n]
                b = row[k] + noff[n]
                for a in range(nact[n]):
                    _add_sums(acc, c, n, a, cf, w[d] * Y[f + a], cf * sigma[b + a])
    return acc


# ---------------------------------------------------------------------------
# updates and reaches in the working layout (2-D [rows, states]; musstats.engines.solving.game.Layout)


@njit(cache=True)
def dcfr_update_owner(R, acc, SIG, rb, m, nodes, tr, t, alpha, beta, plus):
    """Add owner k's instantaneous regrets -- from the action values ``acc`` [tasks, rows of
    k, MS] of a game's action values, summed in order of their parts, and the strategy ``SIG`` they were
    computed with -- to ``R``, discount them (DCFR: positive by t^alpha / (t^alpha + 1),
    negative by t^beta / (t^beta + 1); CFR+ with ``plus``: floor at 0) and write the next
    strategy (regret matching) into ``SIG``, for k's decision nodes ``nodes`` (its first row
    ``rb``, ``m`` states)."""
    n_chunks = acc.shape[0]
    dpos, dneg = dcfr_discounts(t, alpha, beta)
    for i in range(nodes.shape[0]):
        n = nodes[i]
        na = tr[T_NACT, n]
        a0 = tr[T_NOFF, n]
        pos = np.zeros(m)
        q = np.zeros((na, m))
        base = np.zeros(m)
        for a in range(na):
            lr = a0 + a
            gr = rb + lr
            for s in range(m):
                x = 0.0
                for c in range(n_chunks):
                    x += acc[c, lr, s]
                q[a, s] = x
                base[s] += SIG[gr, s] * x
        for a in range(na):
            lr = a0 + a
            gr = rb + lr
            for s in range(m):
                r = discount(R[gr, s] + q[a, s] - base[s], plus, dpos, dneg)
                R[gr, s] = r
                if r > 0.0:
                    pos[s] += r
        for a in range(na):
            gr = rb + a0 + a
            for s in range(m):
                if pos[s] > 0.0:
                    SIG[gr, s] = max(R[gr, s], 0.0) / pos[s]
                else:
                    SIG[gr, s] = 1.0 / na


@njit(cache=True)
def average_owner(S, R, SIG, weight, tr, rb, m, k):
    """Add ``weight`` x (k's own reach) x ``SIG`` to k's average-strategy sums ``S``, exactly
    for every state (no chance term: it cancels within an infoset); an infoset whose regrets
    are all still zero (never reached by a sample) is not counted."""
    n_nodes = tr.shape[1]
    r = np.ones((n_nodes, m))
    for n in range(n_nodes):
        if tr[T_TERM, n]:
            continue
        f = tr[T_FIRST, n]
        na = tr[T_NACT, n]
        if tr[T_OWNER, n] == k:
            b = rb + tr[T_NOFF, n]
            for s in range(m):
                seen = False
                for a in range(na):
                    if R[b + a, s] != 0.0:
                        seen = True
                for a in range(na):
                    p = SIG[b + a, s]
                    r[f + a, s] = r[n, s] * p
                    if seen:
                        S[b + a, s] += weight * r[n, s] * p
        else:
            for a in range(na):
                for s in range(m):
                    r[f + a, s] = r[n, s]


@njit(cache=True)
def own_reach_terminal(SIG, tr, rb, m, k, n_tz):
    """k's own reach (product of its strategy ``SIG`` on the path) at every terminal node and
    state: float64 [n_tz, m]."""
    n_nodes = tr.shape[1]
    r = np.ones((n_nodes, m))
    out = np.zeros((n_tz, m))
    for n in range(n_nodes):
        if tr[T_TERM, n]:
            out[tr[T_TZ, n]] = r[n]
            continue
        f = tr[T_FIRST, n]
        na = tr[T_NACT, n]
        if tr[T_OWNER, n] == k:
            b = rb + tr[T_NOFF, n]
            for a in range(na):
                for s in range(m):
                    r[f + a, s] = r[n, s] * SIG[b + a, s]
        else:
            for a in range(na):
                for s in range(m):
                    r[f + a, s] = r[n, s]
    return out


@njit(cache=True)
def own_action_values(tr, SIG, rb, m, k, T, n_rows):
    """Owner ``k``'s counterfactual value of every action in every state, from its terminal
    sums ``T`` [n_tz, m] (chance and the others' reach in, :func:`pooled_terminal_sums`) and
    its strategy ``SIG``: float64 [1, n_rows, m] in the layout of :func:`dcfr_update_owner`'s
    ``acc`` (one task).  Children are numbered after their parents."""
    n_nodes = tr.shape[1]
    v = np.zeros((n_nodes, m))
    acc = np.zeros((1, n_rows, m))
    for n in range(n_nodes - 1, -1, -1):
        if tr[T_TERM, n]:
            z = tr[T_TZ, n]
            for s in range(m):
                v[n, s] = T[z, s]
            continue
        f = tr[T_FIRST, n]
        na = tr[T_NACT, n]
        if tr[T_OWNER, n] == k:
            a0 = tr[T_NOFF, n]
            for a in range(na):
                for s in range(m):
                    x = v[f + a, s]
                    acc[0, a0 + a, s] = x
                    v[n, s] += SIG[rb + a0 + a, s] * x
        else:
            for a in range(na):
                for s in range(m):
                    v[n, s] += v[f + a, s]
    return acc
