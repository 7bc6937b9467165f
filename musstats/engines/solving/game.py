"""The game interface of the solver framework.

A game the framework solves has a **public tree** (every player sees every action; the
children of a node are contiguous and every parent comes before its children) whose
decision nodes belong to *owners* -- the players who choose there -- and whose owners each
hold a private *state* (a hand, a team's pair of hands, a card in Kuhn poker) drawn by
chance before the tree starts.  A terminal's utility depends on the deal through an
*outcome code*: ``U[terminal row, outcome]`` is team 0's utility, team 1 gets its negative
(two teams, zero-sum; a two-player game is two teams of one).

Two layouts of a strategy:

* the **stored layout** of :class:`Game` (flat, owner-state-major: owner ``k``'s strategy at
  node ``n`` in state ``s`` is ``sigma[obase[k] + s * stride[k] + noff[n] + a]``): what is
  stored, shipped and read by the analyses (one compact block per owner and state);
* the **working layout** of :class:`Layout` (2-D, state-minor: row ``tb[k] + noff[n] + a``,
  column = the index of the state among the owner's *columns*): what the CFR driver, the
  exploitability module and the kernels of public chance sampling work on.

An owner's information may **grow during the game** (the cards drawn in a mus round): his
state is then everything he will privately see in the hand, and at the nodes before he has
seen all of it his states are *tied* in groups (:attr:`Game.ties`): the states of a group share
one information set there (one strategy, trained on the group's summed values, and one
choice in a best response).  With the groups of a node the owner's view at that node, a
perfect-recall owner's earlier views are coarser than his later ones.

A :class:`SolverGame` adds chance: how a CFR iteration gets each owner's counterfactual
action values (sampled deals, public chance sampling over one seat's hands, or the exact
law of the states), and how a best response and a strategy's value are measured on a
*sample* (two independent ones: choose a response on one, value it on the other).
:mod:`.cfr` drives any such game, :mod:`.exploit` measures any strategy of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from musstats.base.errors import MusError

__all__ = ["Game", "make_custom_game", "layout_arrays", "Layout", "make_layout", "SolverGame", "Sample", "PairSums",
           "CHUNKS", "chunk_bounds"]

#: fixed chunks of the samples of a call (results do not depend on the number of threads)
CHUNKS = 16


def chunk_bounds(n: int, chunks: int = CHUNKS) -> np.ndarray:
    """Fixed chunk boundaries of ``n`` samples."""
    c = max(1, min(chunks, n))
    return (np.arange(c + 1, dtype=np.int64) * n) // c


@dataclass(eq=False)
class Game:
    """A public tree, its owners and their states, and a payoff table, in the stored layout.

    ``tree`` has the arrays ``is_term``, ``first``, ``n_act``, ``term`` (int64 [N]) and
    ``n_nodes``, ``n_terminals``; the Mus lances' :class:`musstats.engines.betting.tree.BettingTree`
    adds the actions' names.  ``columns[k]``: where owner ``k``'s state comes from in a deal
    (``("seat", q)`` or ``("team", t)``); ``seat_owner[q]``: the owner of seat ``q``."""

    tree: Any
    info: str
    U: np.ndarray  # float64 [terminals, outcomes]: team 0's utility
    owner: np.ndarray  # int64 [N]: owner of each node (-1 at terminals)
    team: np.ndarray  # int64 [owners]
    n_states: np.ndarray  # int64 [owners]
    noff: np.ndarray  # int64 [N]: offset of a node's actions in its owner's block
    obase: np.ndarray  # int64 [owners]: where each owner's blocks start
    stride: np.ndarray  # int64 [owners]: slots of one state's block
    n_slots: int
    iset_base: np.ndarray  # int64 [infosets]
    iset_n: np.ndarray  # int64 [infosets]
    seat_owner: tuple[int, ...]
    columns: tuple[tuple[str, int], ...]
    #: ``(owner, nodes, group)`` entries: at ``nodes`` (int64) the owner's states ``s`` with equal
    #: ``group[s]`` (int64 [n_states]) are one information set; states are untied elsewhere
    ties: tuple = ()

    @property
    def n_owners(self) -> int:
        return int(self.team.shape[0])

    def tied(self, sigma: np.ndarray) -> bool:
        """Whether ``sigma`` (stored layout) plays the same at every tied information set."""
        for k, nodes, group in self.ties:
            for n in nodes:
                b = self.block(sigma, int(n))
                for gi in np.unique(group):
                    rows = b[np.asarray(group) == gi]
                    if not np.allclose(rows, rows[0], atol=1e-9):
                        return False
        return True

    def kernel_args(self):
        """The arrays of the deal kernels (:class:`musstats._kernels.cfr.GameArrays`)."""
        from musstats._kernels.cfr import GameArrays

        t = self.tree
        return GameArrays(t.is_term, t.first, t.n_act, self.owner, t.term, self.noff, self.obase, self.stride,
                          self.team)

    def states(self, st_private: np.ndarray, st_pooled: np.ndarray | None) -> np.ndarray:
        """Owner states int32 [N, owners] from the per-seat (hand) and per-team columns of a
        deal's features."""
        cols = []
        for kind, i in self.columns:
            cols.append(st_private[:, i] if kind == "seat" else cast(np.ndarray, st_pooled)[:, i])
        return np.ascontiguousarray(np.stack(cols, axis=1), np.int32)

    def slot(self, node: int, state: int) -> int:
        """Index of the first action of infoset (node, state of its owner)."""
        k = int(self.owner[node])
        return int(self.obase[k] + state * self.stride[k] + self.noff[node])

    def block(self, sigma: np.ndarray, node: int) -> np.ndarray:
        """The strategies of every state of the node's owner at ``node``: [n_states, n_act]."""
        k = int(self.owner[node])
        ns, st = int(self.n_states[k]), int(self.stride[k])
        na = int(self.tree.n_act[node])
        m = sigma[int(self.obase[k]): int(self.obase[k]) + ns * st].reshape(ns, st)
        return m[:, int(self.noff[node]): int(self.noff[node]) + na]

    def strategy_at(self, sigma: np.ndarray, node: int, state: int) -> np.ndarray:
        b = self.slot(node, state)
        return sigma[b: b + int(self.tree.n_act[node])]

    def own_reach_of(self, sigmas: np.ndarray, k: int, nodes: np.ndarray) -> np.ndarray:
        """Owner ``k``'s own reach of ``nodes`` (the product of his own probabilities on the path
        from the root) under each of the profiles ``sigmas`` [P, slots], in each of his states:
        float64 [states, len(nodes), P]."""
        t = self.tree
        first, n_act, is_term = np.asarray(t.first), np.asarray(t.n_act), np.asarray(t.is_term)
        parent = np.full(int(t.n_nodes), -1, np.int64)
        act = np.zeros(int(t.n_nodes), np.int64)
        for n in np.nonzero(is_term == 0)[0]:
            f, na = int(first[n]), int(n_act[n])
            parent[f: f + na], act[f: f + na] = n, np.arange(na)
        S, P = int(self.n_states[k]), sigmas.shape[0]
        cols = int(self.obase[k]) + np.arange(S) * int(self.stride[k])
        out = np.empty((S, len(nodes), P))
        for i, n in enumerate(np.asarray(nodes)):
            r = np.ones((P, S))
            c = int(n)
            while parent[c] >= 0:  # up the path: k's own actions on it
                q = int(parent[c])
                if self.owner[q] == k:
                    r *= sigmas[:, cols + int(self.noff[q]) + int(act[c])]
                c = q
            out[:, i, :] = r.T
        return out

    def uniform(self) -> np.ndarray:
        n = np.asarray(self.iset_n, np.int64)
        start = np.repeat(np.asarray(self.iset_base, np.int64), n)
        within = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
        sigma = np.zeros(self.n_slots)
        sigma[start + within] = np.repeat(1.0 / n, n)
        return sigma


def layout_arrays(is_term, n_act, owner, ns):
    """Owner-state-major slots of the stored layout: noff, obase, stride, n_slots, infoset
    starts and sizes."""
    n_nodes = len(is_term)
    n_own = len(ns)
    noff = np.zeros(n_nodes, np.int64)
    stride = np.zeros(n_own, np.int64)
    for n in range(n_nodes):
        if is_term[n]:
            continue
        k = int(owner[n])
        noff[n] = stride[k]
        stride[k] += int(n_act[n])
    obase = np.zeros(n_own, np.int64)
    off = 0
    for k in range(n_own):
        obase[k] = off
        off += int(ns[k]) * int(stride[k])
    ib, inn = [], []
    for n in range(n_nodes):
        if is_term[n]:
            continue
        k = int(owner[n])
        ib.append(obase[k] + np.arange(int(ns[k]), dtype=np.int64) * stride[k] + noff[n])
        inn.append(np.full(int(ns[k]), int(n_act[n]), np.int64))
    order = np.argsort(np.concatenate(ib), kind="stable")
    return noff, obase, stride, off, np.concatenate(ib)[order], np.concatenate(inn)[order]


class _Tree:
    """The arrays of a public tree given as raw arrays (toy games)."""

    is_term: np.ndarray
    first: np.ndarray
    n_act: np.ndarray
    term: np.ndarray
    n_nodes: int
    n_terminals: int
    lance: str


def make_custom_game(tree_arrays: dict, U: np.ndarray, team, n_states, ties=()) -> Game:
    """A game from raw arrays (toy games: Kuhn poker, a small whole hand and the like).

    ``tree_arrays``: ``is_term``, ``first``, ``n_act``, ``term``, ``owner`` (int [N]).  Owner
    ``k``'s state in a deal is column ``k`` of the deal's states.  ``ties``: ``(owner, nodes,
    group)`` entries (:attr:`Game.ties`)."""
    t = _Tree()
    for k in ("is_term", "first", "n_act", "term"):
        setattr(t, k, np.ascontiguousarray(tree_arrays[k], np.int64))
    t.n_nodes = int(t.is_term.shape[0])
    t.n_terminals = int(np.asarray(U).shape[0])
    t.lance = "custom"
    owner = np.ascontiguousarray(tree_arrays["owner"], np.int64)
    ns = np.asarray(n_states, np.int64)
    if len(ns) > 4:
        raise MusError("a game has at most four owners")
    noff, obase, stride, off, ib, inn = layout_arrays(t.is_term, t.n_act, owner, ns)
    cols = tuple(("seat", k) for k in range(len(ns)))
    tie = []
    for k, nodes, group in ties:
        nodes = np.asarray(nodes, np.int64)
        group = np.asarray(group, np.int64)
        if group.shape != (int(ns[k]),) or not (owner[nodes] == k).all():
            raise MusError("a tie names nodes of its owner and a group for each of his states")
        tie.append((int(k), nodes, group))
    return Game(cast(Any, t), "custom", np.ascontiguousarray(U, np.float64), owner, np.asarray(team, np.int64),
                ns, noff, obase, stride, off, ib, inn, tuple(range(len(ns))), cols, tuple(tie))


# ---------------------------------------------------------------------------
# the working layout


def _postorder_rows(first, n_act, is_term):
    """The decision nodes in depth-first post-order (children before their parent) and a
    value row for each, reused once its parent has read it: a backward pass then keeps about
    depth x branching rows alive instead of one per node (cache-resident)."""
    N = is_term.shape[0]
    order: list[int] = []
    stack = [(0, False)]
    while stack:
        n, done = stack.pop()
        if is_term[n]:
            continue
        if done:
            order.append(n)
            continue
        stack.append((n, True))
        for a in range(int(n_act[n]) - 1, -1, -1):
            stack.append((int(first[n]) + a, False))
    drow = np.full(N, -1, np.int64)
    free: list[int] = []
    n_rows = 0
    for n in order:
        if free:
            r = free.pop()
        else:
            r = n_rows
            n_rows += 1
        drow[n] = r
        for a in range(int(n_act[n])):
            c = int(first[n]) + a
            if not is_term[c]:
                free.append(int(drow[c]))
    return np.array(order, np.int64), drow, n_rows


@dataclass(eq=False)
class Layout:
    """The working layout of a :class:`Game`: 2-D arrays [rows, MS], owner ``k``'s node ``n``
    and action ``a`` in row ``tb[k] + noff[n] + a``, its ``j``-th column the state
    ``cols[k][j]`` of the stored layout (``j < m[k] <= MS``; other columns are padding).

    ``tr`` int64 [8, N] packs the tree for the kernels (rows ``T_*`` of
    :mod:`musstats._kernels.vcfr`: terminal?, first child, actions, owner, row of the
    terminal in ``U``, offset of the node's actions in its owner's block, row of the node in
    a value array, index among the terminal nodes); ``order`` the decision nodes children
    first with ``n_vrows`` reusable value rows."""

    game: Game
    cols: tuple  # per owner: int64 stored-layout states of its columns
    tr: np.ndarray
    order: np.ndarray
    n_vrows: int
    n_term: int
    n_tz: int
    tb: np.ndarray  # int64 [owners]: first row of each owner
    m: np.ndarray  # int64 [owners]: columns used
    n_rows: int
    MS: int
    gidx: np.ndarray  # stored-layout slot of each used working slot ...
    tidx: np.ndarray  # ... and that slot's flat index in the working layout
    own_nodes: tuple  # per owner: int64 decision nodes

    @property
    def n_owners(self) -> int:
        return self.game.n_owners

    @property
    def team(self) -> np.ndarray:
        return self.game.team

    def rows(self, k: int) -> int:
        return int(self.game.stride[k])

    @property
    def u_rows(self) -> np.ndarray:
        """The row of ``U`` of each terminal, by its index among the terminals: int64 [n_tz]."""
        tr = self.tr
        tnodes = np.nonzero(tr[0] == 1)[0]
        out = np.zeros(self.n_tz, np.int64)
        out[tr[7, tnodes]] = tr[4, tnodes]
        return out

    def active(self) -> list[int]:
        """The owners who decide somewhere."""
        return [k for k in range(self.n_owners) if self.own_nodes[k].shape[0]]

    def to_game(self, SIG: np.ndarray) -> np.ndarray:
        out = self.game.uniform()
        out[self.gidx] = SIG.ravel()[self.tidx]
        return out

    def owner_slots(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Owner ``k``'s used slots: their stored-layout index and their flat index in his
        block [rows of k, m[k]] (:meth:`owner_rows`)."""
        r = self.tidx // self.MS - int(self.tb[k])
        mine = (r >= 0) & (r < self.rows(k))
        return self.gidx[mine], r[mine] * int(self.m[k]) + self.tidx[mine] % self.MS

    def from_game(self, sigma: np.ndarray) -> np.ndarray:
        out = np.zeros((self.n_rows, self.MS))
        out.ravel()[self.tidx] = sigma[self.gidx]
        return out

    def zeros(self) -> np.ndarray:
        return np.zeros((self.n_rows, self.MS))

    def uniform(self) -> np.ndarray:
        return self.from_game(self.game.uniform())

    def owner_rows(self, SIG: np.ndarray, k: int) -> np.ndarray:
        """A copy of owner ``k``'s block [rows of k, m[k]]."""
        rb, m = int(self.tb[k]), int(self.m[k])
        return SIG[rb: rb + self.rows(k), :m].copy()

    def with_rows(self, SIG: np.ndarray, k: int, block: np.ndarray) -> np.ndarray:
        """``SIG`` with owner ``k``'s block replaced."""
        out = SIG.copy()
        rb, m = int(self.tb[k]), int(self.m[k])
        out[rb: rb + block.shape[0], :m] = block
        return out

    def floored(self, SIG: np.ndarray, eps: float) -> np.ndarray:
        """Every owner's strategy mixed with the uniform one: ``(1 - eps) SIG + eps / n_actions``
        at each decision (an exploration floor: every action is played with probability at
        least ``eps / n_actions``)."""
        if eps <= 0:
            return SIG
        return (1.0 - eps) * SIG + eps * self._uniform_rows

    def own_reach(self, SIG: np.ndarray, k: int) -> np.ndarray:
        """Owner ``k``'s own reach at every terminal node and state: [n_tz, m[k]]."""
        from musstats._kernels.cfr import own_reach_terminal

        return own_reach_terminal(SIG, self.tr, int(self.tb[k]), int(self.m[k]), k, self.n_tz)

    def block_reach(self, block: np.ndarray, k: int) -> np.ndarray:
        """:meth:`own_reach` of owner ``k`` playing ``block`` (his rows, :meth:`owner_rows`'s
        shape), without a whole profile."""
        from musstats._kernels.cfr import own_reach_terminal

        return own_reach_terminal(np.ascontiguousarray(block, np.float64), self.tr, 0, int(self.m[k]), k, self.n_tz)

    def best_response(self, k: int, T: np.ndarray) -> np.ndarray:
        """Owner ``k``'s pure best response (its block, one-hot) from its terminal sums ``T``
        [n_tz, m[k]] (chance and the others' reach in): bottom-up, the action of highest
        counterfactual value in each state.  Where every action is worth the same (a state
        the others never let reach the node) the first action is taken."""
        tr = self.tr
        N = tr.shape[1]
        m = int(self.m[k])
        Q = np.zeros((N, m))
        tnodes = np.nonzero(tr[0] == 1)[0]
        Q[tnodes] = T[tr[7, tnodes]]
        resp = np.zeros((self.rows(k), m))
        cols = np.arange(m)
        tied = self._tie_of_node.get(k, {})
        for n in range(N - 1, -1, -1):
            if tr[0, n]:
                continue
            f, na = int(tr[1, n]), int(tr[2, n])
            ch = Q[f: f + na]
            if tr[3, n] == k:
                G = tied.get(n)
                # a tied information set takes one action for its group: the best summed over it
                a = np.argmax(ch if G is None else (ch @ G) @ G.T, axis=0)
                Q[n] = ch[a, cols]
                resp[int(tr[5, n]) + a, cols] = 1.0
            else:
                Q[n] = ch.sum(axis=0)
        return resp

    def tie_values(self, k: int, X: np.ndarray) -> np.ndarray:
        """Owner ``k``'s action values ``X`` [..., rows of k, >= m[k]] with each tied information
        set's values summed over its group (and given to every state of the group): what the
        information set's regrets are updated with (:attr:`Game.ties`)."""
        ties = self._tie_rows.get(k)
        if not ties:
            return X
        m = int(self.m[k])
        X = X.copy()
        for rows, G in ties:
            part = X[..., rows, :m]
            X[..., rows, :m] = (part @ G) @ G.T
        return X

    def normalise(self, S: np.ndarray) -> np.ndarray:
        """Behaviour strategy from strategy sums (uniform where they are zero)."""
        out = np.empty_like(S)
        tot = self._node_sum(S)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:] = np.where(tot > 0, S / np.where(tot > 0, tot, 1.0), self._uniform_rows)
        return out

    def _node_sum(self, X: np.ndarray) -> np.ndarray:
        """Per row, the sum of ``X`` over the actions of the row's node (same shape): the rows of
        a node are consecutive and the nodes' segments tile the rows."""
        return np.repeat(np.add.reduceat(X, self._seg_start, axis=0), self._seg_len, axis=0)

    def __post_init__(self) -> None:
        seg: dict[int, int] = {}
        uni = np.zeros((self.n_rows, self.MS))
        for k in range(self.n_owners):
            rb = int(self.tb[k])
            for n in self.own_nodes[k]:
                na, r0 = int(self.tr[2, n]), rb + int(self.tr[5, n])
                seg[r0] = na
                uni[r0: r0 + na] = 1.0 / na
        starts = np.array(sorted(seg), np.int64)
        self._seg_start = starts
        self._seg_len = np.array([seg[int(r)] for r in starts], np.int64)
        self._uniform_rows = uni
        # ties in the working layout: per owner the rows of its tied nodes and the one-hot
        # matrix [columns, groups] of their groups
        self._tie_rows: dict[int, list] = {}
        self._tie_of_node: dict[int, dict] = {}
        for k, nodes, group in self.game.ties:
            m = int(self.m[k])
            g = np.asarray(group, np.int64)[np.asarray(self.cols[k], np.int64)]
            labels, inv = np.unique(g, return_inverse=True)
            G = np.zeros((m, labels.shape[0]))
            G[np.arange(m), inv] = 1.0
            rows = np.concatenate([int(self.tr[5, n]) + np.arange(int(self.tr[2, n])) for n in nodes]).astype(np.int64)
            self._tie_rows.setdefault(k, []).append((rows, G))
            for n in nodes:
                self._tie_of_node.setdefault(k, {})[int(n)] = G


def make_layout(game: Game, cols: list[np.ndarray] | None = None) -> Layout:
    """The working layout of ``game``; ``cols[k]``: the stored-layout states owner ``k``'s
    columns hold (default: all of them, in order)."""
    tree = game.tree
    if cols is None:
        cols = [np.arange(int(game.n_states[k]), dtype=np.int64) for k in range(game.n_owners)]
    N = int(tree.n_nodes)
    is_term = np.asarray(tree.is_term)
    dec = np.nonzero(is_term == 0)[0]
    n_term = int(tree.n_terminals)
    row = np.empty(N, np.int64)
    row[is_term == 1] = np.asarray(tree.term)[is_term == 1]
    order, drow, n_vrows = _postorder_rows(np.asarray(tree.first), np.asarray(tree.n_act), is_term)
    row[dec] = n_term + drow[dec]
    tz = np.full(N, -1, np.int64)
    tnodes = np.nonzero(is_term == 1)[0]
    tz[tnodes] = np.arange(tnodes.shape[0])
    tr = np.stack([np.asarray(tree.is_term, np.int64), np.asarray(tree.first, np.int64),
                   np.asarray(tree.n_act, np.int64), game.owner.astype(np.int64), np.asarray(tree.term, np.int64),
                   game.noff.astype(np.int64), row, tz]).astype(np.int64)
    n_own = game.n_owners
    m = np.array([len(c) for c in cols], np.int64)
    stride = game.stride.astype(np.int64)
    tb = np.concatenate([[0], np.cumsum(stride)[:-1]]).astype(np.int64)
    MS = int(max(1, m.max()))
    tparts, gparts = [], []
    for k in range(n_own):
        qa = np.repeat(np.arange(stride[k]), m[k])
        s = np.tile(np.arange(m[k]), stride[k])
        gparts.append(game.obase[k] + np.asarray(cols[k], np.int64)[s] * stride[k] + qa)
        tparts.append((tb[k] + qa) * MS + s)
    own_nodes = tuple(np.nonzero(game.owner == k)[0].astype(np.int64) for k in range(n_own))
    return Layout(game, tuple(np.asarray(c, np.int64) for c in cols), np.ascontiguousarray(tr), order, n_vrows,
                  n_term, int(tnodes.shape[0]), tb, m, int(stride.sum()), MS,
                  np.concatenate(gparts).astype(np.int64), np.concatenate(tparts).astype(np.int64), own_nodes)


# ---------------------------------------------------------------------------
# chance and measurement: what a game gives the driver and the exploitability module


@dataclass(frozen=True)
class Sample:
    """One of the independent samples a strategy is measured on: ``"choose"`` (a response
    is chosen on it) or ``"eval"`` (it is valued on it), and ``index`` to draw further
    independent ones of each kind (a team deviation's several starts share them)."""

    kind: str = "choose"
    index: int = 0

    def __post_init__(self) -> None:
        if self.kind not in ("choose", "eval"):
            raise MusError(f"a sample is 'choose' or 'eval', not {self.kind!r}")


@dataclass(frozen=True, eq=False)
class PairSums:
    """A team's terminal sums over the pairs of its owners' states (:meth:`SolverGame.pair_sums`):
    ``T`` [n_tz, pairs] -- at terminal ``z`` the sum over the deals in which the team holds the
    pair of probability x the other team's reach x the team's utility (the team's own reach
    left out); ``W`` [pairs] each pair's probability; owner ``a`` holds column ``sa[i]`` and
    owner ``b`` column ``sb[i]`` in pair ``i`` (working-layout columns; ``b`` -1 for a team of one
    owner, each of whose states is then a pair); ``n``: the sums' normaliser (their total
    probability)."""

    T: np.ndarray
    W: np.ndarray
    a: int
    b: int
    sa: np.ndarray
    sb: np.ndarray

    @property
    def n(self) -> float:
        return float(self.W.sum())


class SolverGame:
    """What the CFR driver and the exploitability module need from a game with chance.

    ``layout``: the working layout; ``exact``: chance is enumerated with its probabilities,
    so that measures on it are exact (standard error 0, one sample serves as both).
    Subclasses implement:

    * :meth:`action_values` -- for each owner of ``owners``, its counterfactual action
      values at iteration ``t`` against the others' strategies in ``SIG``: an array
      [parts, rows of the owner, >= m[k]] whose parts are summed (in order) by the update;
    * :meth:`terminal_sums` -- owner ``k``'s terminal sums [n_tz, m[k]] against ``SIG`` on a
      sample: at terminal node ``z`` and state ``s`` of ``k``, the sum over the sample of its
      weight x the others' reach at ``z`` x k's team utility (a best response is read off them);
    * :meth:`sample_values` -- per sample unit, k's team utility under ``SIG`` (every owner
      playing his rows of ``SIG``) and the unit's weight: a ratio estimate
      ``sum(x) / sum(W)`` with a standard error; two profiles valued on the same sample
      give paired differences.

    Optionally :meth:`pair_response` (a team that sees both its hands; see
    :mod:`.exploit`)."""

    layout: Layout
    exact: bool = False
    #: what a measurement's samples are, for the output
    samples_text: str = ""
    #: units of each measurement sample (per owner; 0 when exact)
    sample_size: int = 0

    def action_values(self, owners: list[int], SIG: np.ndarray, t: int) -> list[np.ndarray]:  # pragma: no cover
        raise NotImplementedError

    def terminal_sums(self, k: int, SIG: np.ndarray, sample: Sample) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def sample_values(self, k: int, SIG: np.ndarray, sample: Sample) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
        raise NotImplementedError

    def block_values(self, k: int, SIG: np.ndarray, blocks: Iterable[np.ndarray],
                     samples: tuple[Sample, ...]) -> Iterator[list[np.ndarray]]:
        """For each of owner ``k``'s blocks (:meth:`Layout.owner_rows`'s shape) in turn, his
        team's utility per unit of each sample when he plays it and the others ``SIG`` (as
        :meth:`sample_values` of ``SIG`` with that block).  ``blocks`` is read lazily, one at
        a time; by default each profile is built and valued."""
        for B in blocks:
            D = self.layout.with_rows(SIG, k, B)
            yield [self.sample_values(k, D, s)[0] for s in samples]

    def strength(self, k: int) -> np.ndarray:
        """A strength of each of owner ``k``'s columns (higher: a stronger hand), for the
        threshold plans of the team deviation's starts; by default the column order."""
        return np.arange(int(self.layout.m[k]), dtype=np.float64)

    def pair_response(self, team: int, SIG: np.ndarray, sample: Sample):  # pragma: no cover - optional
        """A team that sees both its hands: its best response against the other team's
        strategies in ``SIG`` (chosen on ``sample``), as an object :meth:`pair_values` values."""
        raise MusError("this game has no measure of a team that sees both its hands")

    def pair_values(self, team: int, SIG: np.ndarray, response, sample: Sample
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - optional
        """Per sample unit: the team's utility with ``response`` and with its strategies in
        ``SIG``, and the weights."""
        raise MusError("this game has no measure of a team that sees both its hands")

    def pair_sums(self, team: int, SIG: np.ndarray) -> PairSums:  # pragma: no cover - optional
        """Team ``team``'s terminal sums over every pair of its two owners' states, exact (every
        deal counted with its probability) against the other team's strategies in ``SIG``: what
        the exact plans of :mod:`.team` read (:class:`PairSums`)."""
        raise MusError("this game has no exact sums over a team's pairs of hands")

    def mixture_pair_sums(self, team: int, profiles: list, weights) -> PairSums:
        """:meth:`pair_sums` against the other team playing a mixture: its strategies from
        ``profiles[i]`` with probability ``weights[i]`` (a mixture of joint plans, drawn before
        the deal), the team's sums the weighted sum of each profile's; a game may compute them in
        one pass."""
        out = None
        for S, w in zip(profiles, weights):
            if w > 0:
                ps = self.pair_sums(team, S)
                out = PairSums(w * ps.T, ps.W, ps.a, ps.b, ps.sa, ps.sb) if out is None else \
                    PairSums(out.T + w * ps.T, ps.W, ps.a, ps.b, ps.sa, ps.sb)
        if out is None:
            raise MusError("a mixture needs a profile of positive weight")
        return out
