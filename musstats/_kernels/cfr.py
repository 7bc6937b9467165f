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

import numpy as np
from numba import njit, prange

__all__ = ["cfr_regrets", "dcfr_discounts", "discount", "dcfr_update", "average_accumulate", "br_sums", "root_values", "node_sums",
           "normalise"]


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
def cfr_regrets(bounds, st, o, w, sigma, is_term, first, nact, owner, term, noff, obase, stride, team, U,
                n_slots):
    """Instantaneous counterfactual regrets of one iteration, summed over the deals of each
    chunk: float64 [chunks, n_slots].  Every owner is updated on every deal."""
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
def dcfr_update(R, acc, sigma, iset_base, iset_n, t, alpha, beta, plus):
    """Add the iteration's regrets (``acc`` summed in chunk order) to ``R``, discount them
    (DCFR: positive ones by t^alpha / (t^alpha + 1), negative ones by t^beta / (t^beta + 1);
    CFR+ with ``plus``: floor at 0), and write the next strategy (regret matching) into
    ``sigma``."""
    n_chunks = acc.shape[0]
    dpos, dneg = dcfr_discounts(t, alpha, beta)
    for i in prange(iset_base.shape[0]):
        b = iset_base[i]
        na = iset_n[i]
        pos = 0.0
        for a in range(na):
            r = R[b + a]
            for c in range(n_chunks):
                r += acc[c, b + a]
            r = discount(r, plus, dpos, dneg)
            R[b + a] = r
            if r > 0.0:
                pos += r
        for a in range(na):
            if pos > 0.0:
                sigma[b + a] = max(R[b + a], 0.0) / pos
            else:
                sigma[b + a] = 1.0 / na


@njit(cache=True, parallel=True)
def average_accumulate(S, R, sigma, weight, is_term, first, nact, owner, noff, obase, stride, n_states):
    """Add ``weight`` x (own reach) x ``sigma`` to the average-strategy sums ``S``, exactly for
    every owner and state (no chance term: it cancels within an infoset).  An infoset whose
    regrets ``R`` are all still zero has not been reached by any sampled deal yet: its
    (uniform) strategy is not counted."""
    n_nodes = is_term.shape[0]
    for k in range(n_states.shape[0]):
        for s in prange(n_states[k]):
            r = np.empty(n_nodes)
            r[0] = 1.0
            rowk = obase[k] + s * stride[k]
            for n in range(n_nodes):
                if is_term[n]:
                    continue
                f = first[n]
                na = nact[n]
                if owner[n] == k:
                    b = rowk + noff[n]
                    seen = False
                    for a in range(na):
                        if R[b + a] != 0.0:
                            seen = True
                    for a in range(na):
                        p = sigma[b + a]
                        r[f + a] = r[n] * p
                        if seen:
                            S[b + a] += weight * r[n] * p
                else:
                    for a in range(na):
                        r[f + a] = r[n]


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
def br_sums(bounds, st, o, w, sigma, is_term, first, nact, owner, term, noff, obase, stride, team, U, k, n_sk):
    """For owner ``k``: at every terminal node z and state s of k, the sum over the deals with
    ``st[d, k] == s`` of w x (reach of the others at z) x (k's team utility): float64
    [chunks, nodes, n_sk] (zero at decision nodes)."""
    n_chunks = bounds.shape[0] - 1
    n_nodes = is_term.shape[0]
    n_own = st.shape[1]
    acc = np.zeros((n_chunks, n_nodes, n_sk))
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
                    acc[c, n, sk] += cf * U[term[n], od]
    return acc


@njit(cache=True, parallel=True)
def root_values(st, o, sigma, is_term, first, nact, owner, term, noff, obase, stride, U):
    """Team 0's expected utility of every deal under ``sigma``: float64 [D]."""
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


@njit(cache=True, parallel=True)
def node_sums(bounds, st, o, w, sigma, is_term, first, nact, owner, term, noff, obase, stride, team, U, k,
              max_act):
    """What :func:`musstats.analysis.betting.bet` needs at the nodes of owner ``k``: per chunk,
    node and action, with cf = w x (reach of the others at the node) and x = k's team
    utility after the action: sums of cf, cf^2, cf*x, cf^2*x, cf^2*x^2 and cf*sigma(action).

    Returns float64 [chunks, nodes, max_act, 6] (columns in that order; the action-free
    sums of cf and cf^2 repeat for every action)."""
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
                    x = sign * v[f + a]
                    acc[c, n, a, 0] += cf
                    acc[c, n, a, 1] += cf * cf
                    acc[c, n, a, 2] += cf * x
                    acc[c, n, a, 3] += cf * cf * x
                    acc[c, n, a, 4] += cf * cf * x * x
                    acc[c, n, a, 5] += cf * sigma[b + a]
    return acc
