"""Public chance sampling with a vector over one seat's hands: the solver and the
exploitability of the as-dealt deal model (kernels in :mod:`musstats._kernels.vcfr`).

**Why.**  The deal-sampling solver of :mod:`.solver` traverses the tree once per sampled
deal, and each deal updates one infoset per owner: an infoset of a hand dealt once in
10,000 deals sees a few deals per iteration.  Here, to update an owner ``k`` (a seat, or
a team in the pooled model), a *sample* deals only the **other three seats** (twelve
cards from the full deck, redrawn until their public declarations fit the subgame)
and enumerates **every** hand ``h`` of one seat ``i`` of ``k`` at once, with its exact
conditional probability

    P(h_i = h | the others' hands) = ways(h | the 28 remaining cards) / C(28, 4),

restricted to the hands that fit seat ``i``'s declaration.  The joint distribution of the
four hands is the real one (card removal exact, no independence shortcut); the
others' reach is one number per node, k's values a vector over its hands, and one
sample updates every infoset of ``k`` that the others reach.

**Scale.**  Sampling the others until they fit and weighting ``i``'s hands by
``P(h | others) 1[h fits]`` weighs each deal of the subgame by a constant
``P(subgame) / P(the other three fit)`` per enumerated seat: regret matching does not see
it (regrets of one owner scale together) and values are ratio estimates (sum of
weighted values over the sum of weights), so it cancels there too.  A team owner always
enumerates the same seat (the first of its seats that speaks), so its constant is one.

**Pooled teams.**  A pooled team's information is the pair of its hands, summarised by
its pooled state (its best hand in the lance, the seat holding it, the team's values).
Its samples deal only the two **opponents** (eight cards) and enumerate every pair of
the team's hands that fits the declarations, each with its exact probability given the
opponents' cards, ``ways(h1 | 32 cards) ways(h2 | the 28 left) / (C(32, 4) C(28, 4))``,
summed per pooled state: one sample updates every state of the team, with no noise from
the partner's hand.  Those sums depend only on the cards per class the opponents leave,
so they are tabulated once per subgame and team for every such deck (:func:`pair_table`:
5,715 decks with 8 reyes, a few seconds) and read per sample.  (Dealing the partner too and enumerating only the first speaker's
hands, the earlier scheme, ``enumerate_partner=False``, updates one partner hand per
sample; at grande it measured NashConv [0.069, 0.121] after 6,000 iterations, 238 s.)

**Solver.**  Discounted CFR (or CFR+) with alternating updates by default: at iteration
``t`` each owner in turn gets the regrets of a fresh batch of samples against the
others' current strategies, and its strategy is updated at once; the average strategy
weights iteration ``t`` by t^gamma and is accumulated exactly from the own reach.
Samples are drawn in fixed chunks, each with its own generator state
(:func:`musstats.engines.random.seed_states` with key (stream, iteration, owner)), so
the results do not depend on the number of threads.

**Exploitability.**  Per owner, the best response is exact over the enumerated seat's
hands and Monte Carlo over the others: it is *chosen* on one sample of the others
(``CHOOSE_KEY``) and *valued* on an independent one (``EVAL_KEY``) -- an unbiased value of
that response, so a lower bound of the gain of the best response -- and also valued on
the sample that chose it (biased up).  Standard errors of the ratio estimates from the
per-sample values (samples independent; owners on independent samples).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from math import comb
from typing import Callable

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.betting.solver import CHUNKS, Game, SolveConfig, Strategy, chunk_bounds
from musstats.engines.betting.tree import LANCE_INDEX
from musstats.engines.run import Interrupt
from musstats.rules.variant import Variant

__all__ = ["VectorGame", "vector_game", "pair_teams", "pair_table", "deck_codes", "remaining_decks", "solve_vector",
           "SolverState", "vector_exploitability", "draw_others", "SAMPLE_KEYS", "PAIR_TABLE_BYTES",
           "regrets_in_game_layout"]

#: dtype of the per-chunk regret sums (summed in float64 afterwards)
ACC_DTYPE = np.float32
#: dtype of the strategy copy and work arrays of the regret kernel
WORK_DTYPE = np.float32

#: stream keys of the samples (training, choosing the response, valuing it)
SAMPLE_KEYS = {"train": 21, "choose": 22, "eval": 23}
#: a pooled team's pair table (:func:`pair_table`) is built when it takes at most this many
#: bytes (8 reyes: 30 MB at grande, 211 MB in pares); beyond, its samples enumerate the pairs
PAIR_TABLE_BYTES = 600 * 2 ** 20
_NO_TABLE = np.zeros((0, 0))


@dataclass(eq=False)
class VectorGame:
    """A :class:`.solver.Game` with what the vector kernels need (see the kernels' doc)."""

    game: Game
    lance: str
    pattern: int
    variant: Variant
    tr: np.ndarray  # int64 [8, N]
    ow: np.ndarray  # int64 [5, owners]
    n_term: int
    order: np.ndarray  # int64: decision nodes, children first (the backward pass)
    n_vrows: int  # value rows of decision nodes (reused)
    n_tz: int
    lists: tuple  # per seat: int64 hands that fit its declaration
    pos: np.ndarray  # int64 [4, H]: position of a hand in its seat's list (-1: does not fit)
    eseat: tuple  # per owner: the seat whose hands are enumerated
    req: np.ndarray  # int64 [4]: required hold[hand] of each seat (-1: none)
    hold: np.ndarray  # int64 [H]
    card_class: np.ndarray
    k_cls: int
    idx4: np.ndarray
    cls_cnt: np.ndarray
    nzc: np.ndarray
    nzn: np.ndarray
    nnz: np.ndarray
    binom: np.ndarray
    inv_total: float
    col: int
    tab: np.ndarray  # int64 [H, 8]: the lance table (musstats.tables.kernel.lance_table)
    tb: np.ndarray  # int64 [owners]: first row of each owner
    m: np.ndarray  # int64 [owners]: states of each owner (columns used)
    n_rows: int
    MS: int  # columns
    gidx: np.ndarray  # int64: game-layout slot of each used T-layout slot ...
    tidx: np.ndarray  # int64: ... and that slot's flat index in the T-layout
    own_nodes: tuple  # per owner: int64 decision nodes
    pair_tables: tuple = (_NO_TABLE, _NO_TABLE)  # per team: pair_table, or empty
    _G: tuple | None = None

    @property
    def n_owners(self) -> int:
        return self.game.n_owners

    @property
    def G(self) -> tuple:
        """Packed tree and owner arrays of the kernels."""
        if self._G is None:
            H = self.pos.shape[1]
            Lall = np.zeros((4, H), np.int64)
            Ln = np.zeros(4, np.int64)
            for q in range(4):
                Lall[q, : self.lists[q].shape[0]] = self.lists[q]
                Ln[q] = self.lists[q].shape[0]
            rmap, radix = deck_codes(self.cls_cnt) if any(t.shape[0] for t in self.pair_tables) else \
                (np.full(1, -1, np.int64), np.zeros(self.cls_cnt.shape[0], np.int64))
            self._G = (self.tr, self.ow, self.order, Lall, Ln, self.pos, np.array(self.eseat, np.int64),
                       *self.pair_tables, rmap, radix)
        return self._G

    @property
    def D(self) -> tuple:
        """Packed deck arrays of the kernels."""
        return (self.card_class, self.idx4, self.cls_cnt, self.nzc, self.nzn, self.nnz, self.binom, self.tab,
                self.hold, self.req)

    def U_work(self, dtype) -> np.ndarray:
        return np.ascontiguousarray(self.game.U, dtype)

    @property
    def max_rows(self) -> int:
        return int(self.game.stride.max())

    def to_game(self, sigT: np.ndarray) -> np.ndarray:
        out = self.game.uniform()
        out[self.gidx] = sigT.ravel()[self.tidx]
        return out

    def from_game(self, sigma: np.ndarray) -> np.ndarray:
        out = np.zeros((self.n_rows, self.MS))
        out.ravel()[self.tidx] = sigma[self.gidx]
        return out

    def uniform(self) -> np.ndarray:
        return self.from_game(self.game.uniform())

    def zeros(self) -> np.ndarray:
        return np.zeros((self.n_rows, self.MS))

    def rows(self, k: int) -> int:
        return int(self.game.stride[k])

    def partner_seat(self, k: int) -> int:
        """The partner's seat when owner ``k`` enumerates its team's pairs of hands, else -1."""
        return int(self.ow[3, k]) + 2 if int(self.ow[2, k]) == 2 else -1


@dataclass(frozen=True, eq=False)
class DeckTables:
    """The deck and hand tables the vector kernels read: the class of each physical card,
    the hand index of any 4 classes (``idx4``, ``k_cls`` classes), the cards of each class
    (``cls_cnt``), each hand's classes and counts (``nzc``, ``nzn``, ``nnz``), binomials
    ``binom[n, k]``, the lance table ``tab`` and who holds pares / juego (``hold_pares``,
    ``hold_juego`` int64 [H])."""

    card_class: np.ndarray
    k_cls: int
    idx4: np.ndarray
    cls_cnt: np.ndarray
    nzc: np.ndarray
    nzn: np.ndarray
    nnz: np.ndarray
    binom: np.ndarray
    tab: np.ndarray
    hold_pares: np.ndarray
    hold_juego: np.ndarray

    @property
    def n_hands(self) -> int:
        return int(self.tab.shape[0])


@lru_cache(maxsize=8)
def deck_tables(variant: Variant) -> DeckTables:
    """The :class:`DeckTables` of a variant (its lance rules)."""
    from musstats.engines.musphase import deck_ids
    from musstats.tables.hands import JUEGO, PARES, hand_tables
    from musstats.tables.kernel import kernel_tables, lance_table

    t = hand_tables(variant)
    kt = kernel_tables(variant)
    return DeckTables(deck_ids(variant), int(t.n_classes), t.idx4.astype(np.int64), t.class_count.astype(np.int64),
                      kt.nz_cls, kt.nz_cnt, kt.nnz, kt.binom, np.ascontiguousarray(lance_table(variant)),
                      (t.key[PARES] > 0).astype(np.int64), (t.key[JUEGO] > 0).astype(np.int64))


def remaining_decks(cls_cnt: np.ndarray, dealt: int) -> np.ndarray:
    """Every deck left once ``dealt`` cards are gone: int64 [n, classes] rows ``rem`` with
    ``0 <= rem <= cls_cnt`` and ``sum(cls_cnt - rem) == dealt`` (5,715 rows for 8 reyes and
    eight cards; read-only)."""
    return _remaining_decks(tuple(int(c) for c in cls_cnt), int(dealt))


@lru_cache(maxsize=8)
def _remaining_decks(caps: tuple, dealt: int) -> np.ndarray:
    out: list[list[int]] = []

    def walk(c: int, left: int, taken: list[int]) -> None:
        if c == len(caps):
            if left == 0:
                out.append([cap - x for cap, x in zip(caps, taken)])
            return
        if left > sum(caps[c:]):
            return
        for x in range(min(caps[c], left) + 1):
            walk(c + 1, left - x, taken + [x])

    walk(0, dealt, [])
    arr = np.array(out, np.int64).reshape(-1, len(caps))
    arr.flags.writeable = False
    return arr


@lru_cache(maxsize=4)
def _deck_codes(caps: tuple) -> tuple[np.ndarray, np.ndarray]:
    cls_cnt = np.array(caps, np.int64)
    radix = np.concatenate([[1], np.cumprod(cls_cnt + 1)[:-1]]).astype(np.int64)
    rems = remaining_decks(cls_cnt, 8)
    rmap = np.full(int(np.prod(cls_cnt + 1)), -1, np.int64)
    rmap[rems @ radix] = np.arange(rems.shape[0])
    return rmap, radix


def deck_codes(cls_cnt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(rmap, radix)``: the row of :func:`pair_table` of a deck left by the opponents' eight
    cards is ``rmap[sum(rem * radix)]`` (-1 for any other deck)."""
    return _deck_codes(tuple(int(c) for c in cls_cnt))


def _value_col(lance: str) -> int:
    """The column of the lance table with a hand's stones at the count (pares 5, juego 6; -1)."""
    return -1 if lance not in ("pares", "juego") else (5 if lance == "pares" else 6)


def _holds(dt: "DeckTables", lance: str) -> np.ndarray:
    """Who holds the lance's declaration (pares; juego, also for punto: who holds none)."""
    return np.ascontiguousarray(dt.hold_pares if lance == "pares" else dt.hold_juego)


@lru_cache(maxsize=4)
def _pair_table(dt: "DeckTables", lance: str, t: int, req: tuple, M: int) -> np.ndarray:
    from musstats._kernels.vcfr import pair_weights

    return pair_weights(remaining_decks(dt.cls_cnt, 8), t, LANCE_INDEX[lance], _value_col(lance),
                        np.array(req, np.int64), _holds(dt, lance), dt.tab, dt.nzc, dt.nzn, dt.nnz, dt.binom, M)


def pair_table(dt: "DeckTables", lance: str, t: int, req: np.ndarray, M: int) -> np.ndarray:
    """Team ``t``'s pair weights for every deck its opponents can leave (rows in the order of
    :func:`deck_codes`): float64 [decks, M] (:func:`musstats._kernels.vcfr.pair_weights`);
    empty when larger than :data:`PAIR_TABLE_BYTES`."""
    if remaining_decks(dt.cls_cnt, 8).shape[0] * M * 8 > PAIR_TABLE_BYTES:
        return _NO_TABLE
    return _pair_table(dt, lance, int(t), tuple(int(x) for x in req), int(M))


def _postorder_rows(first, n_act, is_term):
    """The decision nodes in depth-first post-order (children before their parent) and a
    value row for each, reused once its parent has read it: the backward pass then keeps
    about depth x branching rows alive instead of one per node (cache-resident)."""
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


def pair_teams(lance: str, pattern: int) -> tuple[bool, bool]:
    """Whether each team has both its seats in the lance (every seat in grande, chica and
    punto; the declared holders in pares and juego): the pooled teams whose samples
    enumerate every pair of their hands.  A team with one holder has nothing to learn from
    its partner's hand but card removal, and is sampled as a private seat is."""
    if lance not in ("pares", "juego"):
        return True, True
    return tuple(bool((pattern >> t) & 1 and (pattern >> (t + 2)) & 1) for t in (0, 1))  # type: ignore[return-value]


def vector_game(game: Game, variant: Variant, pattern: int, deck: DeckTables | None = None,
                enumerate_partner: bool = True, pair_tables: bool = True) -> VectorGame:
    """The vector form of a Mus subgame (lance ``game.tree.lance`` under ``pattern``);
    ``deck`` defaults to the variant's (the tests pass toy decks).  A pooled team's samples
    deal only the opponents and enumerate every pair of the team's hands
    (``enumerate_partner``, the default, where both its seats are in the lance:
    :func:`pair_teams`), or deal the partner too and enumerate the first speaker's hands
    (the earlier scheme, kept for comparison).  ``pair_tables``: such a team reads its pairs'
    weights from :func:`pair_table` (False: it enumerates them per sample, the reference)."""
    tree = game.tree
    lance = tree.lance
    dt = deck or deck_tables(variant)
    H = dt.n_hands
    hold = _holds(dt, lance)
    req = np.full(4, -1, np.int64)
    if lance in ("pares", "juego"):
        req[:] = [(pattern >> q) & 1 for q in range(4)]
    elif lance == "punto":
        req[:] = 0
    lists = []
    pos = np.full((4, H), -1, np.int64)
    for q in range(4):
        L = np.arange(H, dtype=np.int64) if req[q] < 0 else np.nonzero(hold == req[q])[0].astype(np.int64)
        lists.append(L)
        pos[q, L] = np.arange(L.shape[0])
    N = tree.n_nodes
    is_term = np.asarray(tree.is_term)
    dec = np.nonzero(is_term == 0)[0]
    n_term = int(tree.n_terminals)
    n_dec = int(dec.shape[0])
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
    both = pair_teams(lance, pattern)
    kinds = [0 if kind == "seat" else (2 if enumerate_partner and both[i] else 1) for kind, i in game.columns]
    idxs = [i for _, i in game.columns]
    eseat = []
    m = np.zeros(n_own, np.int64)
    for k in range(n_own):
        if kinds[k] == 0:
            eseat.append(idxs[k])
            m[k] = lists[idxs[k]].shape[0]
        else:
            te = idxs[k]
            seats = [q for q in (te, te + 2) if req[q] != 0] or [te]
            eseat.append(te if kinds[k] == 2 else seats[0])
            m[k] = int(game.n_states[k])
    stride = game.stride.astype(np.int64)
    tb = np.concatenate([[0], np.cumsum(stride)[:-1]]).astype(np.int64)  # first row of each owner
    MS = int(m.max())
    tparts, gparts = [], []
    for k in range(n_own):
        qa = np.repeat(np.arange(stride[k]), m[k])
        s = np.tile(np.arange(m[k]), stride[k])
        gs = lists[idxs[k]][s] if kinds[k] == 0 else s
        gparts.append(game.obase[k] + gs * stride[k] + qa)
        tparts.append((tb[k] + qa) * MS + s)
    off = int(stride.sum())
    ow = np.array([tb, m, kinds, idxs, game.team], np.int64)
    own_nodes = tuple(np.nonzero(game.owner == k)[0].astype(np.int64) for k in range(n_own))
    n_rem = dt.card_class.shape[0] - 12
    tables = [_NO_TABLE, _NO_TABLE]
    if pair_tables:
        for k in range(n_own):
            if kinds[k] == 2:
                tables[idxs[k]] = pair_table(dt, lance, idxs[k], req, int(m[k]))
    return VectorGame(game, lance, int(pattern), variant, np.ascontiguousarray(tr), ow, n_term, order, n_vrows,
                      int(tnodes.shape[0]), tuple(lists), pos, tuple(eseat), req, hold,
                      dt.card_class, dt.k_cls, dt.idx4, dt.cls_cnt, dt.nzc, dt.nzn, dt.nnz, dt.binom,
                      1.0 / comb(n_rem, 4), _value_col(lance),
                      dt.tab, tb, m, off, MS, np.concatenate(gparts).astype(np.int64),
                      np.concatenate(tparts).astype(np.int64), own_nodes, tuple(tables))


def _task_seeds(seed: int, key: tuple, n: int) -> np.ndarray:
    from musstats.engines.random import seed_states

    return seed_states(int(seed), int(n), key=tuple(int(x) for x in key))


def draw_others(vg: VectorGame, k: int, n: int, seed: int, key: tuple, chunks: int = CHUNKS
                ) -> tuple[np.ndarray, np.ndarray]:
    """The ``n`` samples the kernels draw for owner ``k`` from (seed, key) in ``chunks``
    chunks: hands int64 [n, 4] (-1 at k's enumerated seats) and the deals drawn per chunk."""
    from musstats._kernels.vcfr import sample_others

    bounds = chunk_bounds(n, chunks)
    c = bounds.shape[0] - 1
    out = np.empty((n, 4), np.int64)
    tries = np.zeros(c, np.int64)
    sample_others(_task_seeds(seed, key, c), bounds, vg.eseat[k], vg.partner_seat(k), vg.card_class, vg.req,
                  vg.hold, vg.k_cls, vg.idx4, out, tries)
    return out, tries


_NO_HANDS = np.zeros((1, 4), np.int64)
_NO_W = np.zeros(1)


def _regret_call(vg: VectorGame, owners, sigW, bounds, hands=None, sw=None, seeds=None, acc_dtype=None):
    from musstats._kernels.vcfr import vec_regrets

    sample = hands is None
    return vec_regrets(np.asarray(owners, np.int64), bounds, _NO_HANDS if sample else hands,
                       _NO_W if sample else sw, seeds if sample else np.zeros((1, 4), np.uint64), sample, vg.G,
                       vg.D, sigW, vg.U_work(sigW.dtype), vg.k_cls, vg.inv_total, LANCE_INDEX[vg.lance], vg.col,
                       vg.n_term, vg.n_vrows, vg.max_rows, np.zeros(1, acc_dtype or ACC_DTYPE))


def vector_regrets(vg: VectorGame, k: int, sigma: np.ndarray, hands: np.ndarray, sw: np.ndarray,
                   chunks: int = CHUNKS, dtype=np.float64) -> np.ndarray:
    """Owner k's instantaneous counterfactual regrets (summed over the samples ``hands`` with
    weights ``sw``) in the game layout of ``sigma`` (zero outside k's slots): what one
    iteration adds, for the tests against :func:`musstats._kernels.cfr.cfr_regrets`."""
    sigT = vg.from_game(sigma).astype(dtype)
    bounds = chunk_bounds(hands.shape[0], chunks)
    acc, _, _ = _regret_call(vg, [k], sigT, bounds, np.ascontiguousarray(hands, np.int64),
                             np.ascontiguousarray(sw, np.float64), acc_dtype=np.float64)
    return regrets_in_game_layout(vg, k, sigT, acc.sum(axis=0))


def regrets_in_game_layout(vg: VectorGame, k: int, sigT: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """Owner k's instantaneous regrets in the game layout (zero outside k's slots) from its
    action values ``Q`` [rows of k, MS] and the strategy ``sigT`` (T-layout) they were
    computed with: each action's value minus the strategy's mean at its node."""
    rb = int(vg.tb[k])
    m = int(vg.m[k])
    RT = vg.zeros()
    for n in vg.own_nodes[k]:
        na, a0 = int(vg.tr[2, n]), int(vg.tr[5, n])
        qn = Q[a0: a0 + na, :m]
        base = (sigT[rb + a0: rb + a0 + na, :m] * qn).sum(axis=0)
        RT[rb + a0: rb + a0 + na, :m] = qn - base
    out = np.zeros(vg.game.n_slots)
    mask = np.zeros((vg.n_rows, vg.MS), bool)
    mask[rb: rb + vg.rows(k), :m] = True
    sel = mask.ravel()[vg.tidx]
    out[vg.gidx[sel]] = RT.ravel()[vg.tidx[sel]]
    return out


def solve_vector(vg: VectorGame, config: SolveConfig, batch: int, seed: int, *,
                 progress: Callable[[int, float, float | None], None] | None = None,
                 evaluate: Callable[[np.ndarray], float] | None = None, eval_every: int = 0,
                 stop: Callable[[], bool] | None = None, alternate: bool = True,
                 batch_growth: float = 0.0, start: "SolverState | None" = None,
                 keep_state: bool = False, batch_single: int | None = None) -> Strategy:
    """DCFR (or CFR+) by public chance sampling: ``config.iterations`` iterations of
    ``batch`` fresh samples per owner (times ``1 + batch_growth * (t - 1)`` at iteration
    ``t``), alternating updates (each owner against the others' latest strategies) or
    simultaneous ones.  ``evaluate(sigma in the game layout)`` every ``eval_every``
    iterations goes into the history (its time is not counted).  Returns the average
    strategy in the game layout.

    ``batch_single``: the batch of the owners that enumerate one seat's hands, in a game
    whose pooled teams enumerate pairs (their samples are much cheaper; default ``batch``).

    ``start``: go on from a solver state of the same tree (a warm start, e.g. from the
    solve of a neighbouring score): its regrets, strategy sums and current strategy, and
    the iteration count after it.  ``keep_state``: the final state goes into
    ``meta["state"]``."""
    from musstats._kernels.vcfr import average_owner, dcfr_update_owner

    if config.method not in ("dcfr", "cfr+"):
        raise MusError(f"unknown CFR method {config.method!r}; accepted: dcfr, cfr+")
    plus = config.method == "cfr+"
    gamma = 1.0 if plus else config.gamma
    t_first = 1
    if start is None:
        R, S, sig = vg.zeros(), vg.zeros(), vg.uniform()
    else:
        if start.R.shape != (vg.n_rows, vg.MS):
            raise MusError("a warm start needs the state of a solve of the same tree")
        R, S, sig = start.R.astype(np.float64), start.S.astype(np.float64), start.sig.astype(np.float64)
        t_first = int(start.t) + 1
    history: list[tuple[int, float, float]] = []
    t0 = time.perf_counter()
    done = 0
    partial = False
    active = [k for k in range(vg.n_owners) if vg.own_nodes[k].shape[0]]  # the owners who speak
    spent = 0.0
    C = int(config.chunks)
    with Interrupt() as ctrl_c:
        for t in range(t_first, t_first + config.iterations):
            if ctrl_c.hit or (stop is not None and stop()):
                partial = True
                break
            grow = 1.0 + batch_growth * (t - 1)
            w = float(t) ** gamma
            groups = [[k] for k in active] if alternate else [active]
            for grp in groups:
                b_k = batch_single if batch_single is not None and alternate and vg.partner_seat(grp[0]) < 0 else batch
                bounds = chunk_bounds(int(round(b_k * grow)), C)
                nc = bounds.shape[0] - 1
                seeds = np.concatenate([_task_seeds(seed, (SAMPLE_KEYS["train"], t, k), nc) for k in grp])
                acc, _, _ = _regret_call(vg, grp, sig.astype(WORK_DTYPE), bounds, seeds=seeds)
                for i, k in enumerate(grp):
                    rb, m = int(vg.tb[k]), int(vg.m[k])
                    average_owner(S, R, sig, w, vg.tr, rb, m, k)
                    dcfr_update_owner(R, acc[i * nc: (i + 1) * nc], sig, rb, m, vg.own_nodes[k], vg.tr, float(t),
                                      config.alpha, config.beta, plus)
            done = t - t_first + 1
            ex = None
            if evaluate is not None and eval_every and (done % eval_every == 0 or done == config.iterations):
                e0 = time.perf_counter()
                ex = float(evaluate(vg.to_game(_normalise_t(vg, S))))
                spent += time.perf_counter() - e0
                history.append((done, time.perf_counter() - t0 - spent, ex))
            if progress is not None:
                progress(done, time.perf_counter() - t0 - spent, ex)
    avg = vg.to_game(_normalise_t(vg, S))
    meta = {"solver": config.describe(), "sampling": "vector", "batch": batch, "batch_single": batch_single,
            "alternate": alternate,
            "batch_growth": batch_growth, "warm_from_iteration": None if start is None else int(start.t)}
    if keep_state:
        meta["state"] = SolverState(R, S, sig, t_first - 1 + done)
    return Strategy(vg.game, avg, done, partial, time.perf_counter() - t0 - spent, history, meta)


@dataclass(eq=False)
class SolverState:
    """Where DCFR stands after ``t`` iterations (T-layout arrays): the regrets ``R``, the
    average-strategy sums ``S`` and the current strategy ``sig``."""

    R: np.ndarray
    S: np.ndarray
    sig: np.ndarray
    t: int


def _normalise_t(vg: VectorGame, S: np.ndarray) -> np.ndarray:
    """Behaviour strategy (T-layout) from the strategy sums (uniform where they are zero)."""
    out = np.empty_like(S)
    tr = vg.tr
    for k in range(vg.n_owners):
        rb = int(vg.tb[k])
        for n in vg.own_nodes[k]:
            na = int(tr[2, n])
            r0 = rb + int(tr[5, n])
            blk = S[r0: r0 + na]
            tot = blk.sum(axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[r0: r0 + na] = np.where(tot > 0, blk / np.where(tot > 0, tot, 1.0), 1.0 / na)
    return out


# ---------------------------------------------------------------------------
# exploitability


@dataclass
class OwnerGain:
    """One owner's best-response gain: valued out of sample (``gain`` ± ``gain_se``) and in
    sample (``gain_in`` ± ``gain_in_se``); team 0's value of the profile from this owner's
    samples when its team is 0."""

    gain: float
    gain_se: float
    gain_in: float
    gain_in_se: float
    value0: float | None = None
    value0_se: float | None = None
    acceptance: float | None = None


def _ratio(x: np.ndarray, W: np.ndarray) -> tuple[float, float]:
    """Ratio estimate sum(x) / sum(W) and its standard error (delta method)."""
    n = x.shape[0]
    sw = float(W.sum())
    if sw <= 0:
        return float("nan"), float("nan")
    g = float(x.sum()) / sw
    if n < 2:
        return g, float("nan")
    e = x - g * W
    se = float(np.sqrt((e * e).sum() / (n * (n - 1)))) / (sw / n)
    return g, se


def _best_response_t(vg: VectorGame, k: int, T: np.ndarray) -> np.ndarray:
    """Pure best response of owner k (its T-layout rows, one-hot) from the terminal sums
    ``T`` [n_tz, m]: bottom-up, the action of highest counterfactual value per state."""
    tr = vg.tr
    N = tr.shape[1]
    m = int(vg.m[k])
    Q = np.zeros((N, m))
    tnodes = np.nonzero(tr[0] == 1)[0]
    Q[tnodes] = T[tr[7, tnodes]]
    resp = np.zeros((vg.rows(k), m))
    cols = np.arange(m)
    for n in range(N - 1, -1, -1):
        if tr[0, n]:
            continue
        f, na = int(tr[1, n]), int(tr[2, n])
        ch = Q[f: f + na]
        if tr[3, n] == k:
            a = np.argmax(ch, axis=0)
            Q[n] = ch[a, cols]
            resp[int(tr[5, n]) + a, cols] = 1.0
        else:
            Q[n] = ch.sum(axis=0)
    return resp


def owner_gain(vg: VectorGame, sigT: np.ndarray, k: int, n: int, seed: int, chunks: int = CHUNKS,
               key_offset: int = 0, samples: tuple | None = None) -> OwnerGain:
    """Gain of owner k's best response against the others' strategies ``sigT`` (T-layout):
    chosen on ``n`` samples of the others, valued on them (biased up) and on ``n``
    independent ones (unbiased for that response: a lower bound of the best response's
    gain); team 0's value of the profile when k's team is 0.  ``samples`` = ((hands, sw),
    (hands, sw)) gives the two sample sets instead (the tests: enumerated, exact)."""
    from musstats._kernels.vcfr import own_reach_terminal, vec_terminal_sums, vec_values

    li = LANCE_INDEX[vg.lance]
    m = int(vg.m[k])
    rb = int(vg.tb[k])
    U = vg.U_work(np.float64)
    # the BR accumulators are [chunks, terminals, states]: fewer chunks for big state spaces
    br_chunks = int(max(1, min(chunks, 64e6 // (8 * vg.n_tz * m))))

    def call(fn, which, nch, *extra):
        if samples is None:
            bounds = chunk_bounds(n, nch)
            key = (SAMPLE_KEYS["choose" if which == 0 else "eval"] + key_offset, k)
            seeds = _task_seeds(seed, key, bounds.shape[0] - 1)
            return fn(k, bounds, _NO_HANDS, _NO_W, seeds, True, vg.G, vg.D, sigT, U, vg.k_cls, vg.inv_total, li,
                      vg.col, vg.n_term, *extra)
        h, w = samples[which]
        bounds = chunk_bounds(h.shape[0], nch)
        return fn(k, bounds, h, w, np.zeros((bounds.shape[0] - 1, 4), np.uint64), False, vg.G, vg.D, sigT, U,
                  vg.k_cls, vg.inv_total, li, vg.col, vg.n_term, *extra)

    T, _ = call(vec_terminal_sums, 0, br_chunks, vg.n_tz)
    resp = _best_response_t(vg, k, T.sum(axis=0))
    sig_r = sigT.copy()
    sig_r[rb: rb + resp.shape[0], :m] = resp
    P = np.stack([own_reach_terminal(sig_r, vg.tr, rb, m, k, vg.n_tz),
                  own_reach_terminal(sigT, vg.tr, rb, m, k, vg.n_tz)])
    xA, WA = call(vec_values, 0, br_chunks, P)
    xB, WB = call(vec_values, 1, chunks, P)
    gi, gi_se = _ratio(xA[0] - xA[1], WA)
    go, go_se = _ratio(xB[0] - xB[1], WB)
    out = OwnerGain(go, go_se, gi, gi_se)
    if int(vg.game.team[k]) == 0:
        out.value0, out.value0_se = _ratio(xB[1], WB)
    return out


def vector_exploitability(vg: VectorGame, sigma: np.ndarray, n: int, seed: int, chunks: int = CHUNKS,
                          key_offset: int = 0, samples: list | None = None, n_pairs: int | None = None):
    """NashConv of ``sigma`` (game layout) by public chance sampling, ``n`` samples of the
    others per owner and per sample set (``n_pairs`` for a team that enumerates its pairs of
    hands; default ``n``): an :class:`.exploit.Exploitability` (``exact`` false: Monte Carlo
    over the others, exact over each owner's enumerated hands; its ``deals`` is ``n``).
    ``samples[k]`` = the two sample sets of owner k (tests)."""
    from musstats.engines.betting.exploit import Exploitability

    sigT = vg.from_game(sigma)
    k0 = vg.game.seat_owner[0]
    parts = []
    for k in range(vg.n_owners):
        if vg.own_nodes[k].shape[0] or k == k0:
            nk = n if n_pairs is None or vg.partner_seat(k) < 0 else int(n_pairs)
            parts.append(owner_gain(vg, sigT, k, nk, seed, chunks, key_offset,
                                    None if samples is None else samples[k]))
        else:  # an owner who never speaks gains nothing
            parts.append(OwnerGain(0.0, 0.0, 0.0, 0.0))
    nc = sum(p.gain for p in parts)
    nc_se = float(np.sqrt(sum(p.gain_se ** 2 for p in parts)))
    nci = sum(p.gain_in for p in parts)
    nci_se = float(np.sqrt(sum(p.gain_in_se ** 2 for p in parts)))
    # seat 0's owner is on team 0 and always gets an owner_gain, which sets value0
    v0, v0_se = parts[k0].value0, parts[k0].value0_se
    assert v0 is not None and v0_se is not None
    return Exploitability(float(nc), nc_se, float(nci), nci_se, [p.gain for p in parts], [p.gain_in for p in parts],
                          float(v0), float(v0_se), int(n), False)
