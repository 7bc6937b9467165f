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

**Solving and measuring.**  A :class:`VectorGame` is a :class:`musstats.engines.solving.game.SolverGame`:
the CFR driver (:mod:`musstats.engines.solving.cfr`) asks it, for each owner in turn, the
counterfactual action values of a fresh batch of samples against the others' current
strategies; the exploitability module (:mod:`musstats.engines.solving.exploit`) asks it
terminal sums (a best response is exact over the enumerated seat's hands and Monte Carlo
over the others) and per-sample values, on two independent sample streams (``choose``:
the response is chosen on it; ``eval``: it is valued on it).  Samples are drawn in fixed
chunks, each with its own generator state (:func:`musstats.engines.random.seed_states`
with key (stream, iteration or sample set, owner)), so the results do not depend on the
number of threads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np

from musstats._kernels.vcfr import DeckArrays, TreeArrays
from musstats.base.errors import MusError
from musstats.engines.betting.tree import LANCE_INDEX
from musstats.engines.solving.game import CHUNKS, Game, Layout, Sample, SolverGame, chunk_bounds, make_layout
from musstats.rules.variant import Variant

__all__ = ["VectorGame", "vector_game", "pair_teams", "pair_table", "deck_codes", "remaining_decks", "deck_tables",
           "draw_others", "SAMPLE_KEYS", "PAIR_TABLE_BYTES", "regrets_in_game_layout", "vector_regrets"]

#: dtype of the per-chunk regret sums (summed in float64 afterwards)
ACC_DTYPE = np.float32
#: dtype of the strategy copy and work arrays of the regret kernel
WORK_DTYPE = np.float32

#: stream keys of the samples (training, choosing the response, valuing it); a sample set's
#: index adds ``SET_STEP`` times itself
SAMPLE_KEYS = {"train": 21, "choose": 22, "eval": 23}
SET_STEP = 100
#: a pooled team's pair table (:func:`pair_table`) is built when it takes at most this many
#: bytes (8 reyes: 30 MB at grande, 211 MB in pares); beyond, its samples enumerate the pairs
PAIR_TABLE_BYTES = 600 * 2 ** 20
_NO_TABLE = np.zeros((0, 0))
#: the largest joint reach table (numbers) of a mixture's pair sums (VectorGame.mixture_pair_sums)
JOINT_MAX = 50_000_000
_NO_HANDS = np.zeros((1, 4), np.int64)
_NO_W = np.zeros(1)


@dataclass(eq=False)
class VectorGame(SolverGame):
    """A Mus subgame of the hands as dealt, sampled by public chance sampling (module doc).

    The chance settings: ``batch`` samples per owner and iteration (``batch_single`` for the
    owners that enumerate one seat's hands beside a pooled team that enumerates pairs),
    ``n_eval`` samples per owner and sample set when measuring (``n_pairs`` for a team that
    enumerates pairs; ``n_choose``, when set, caps the samples a response is chosen on), ``seed``; ``given``: explicit samples instead of drawn ones, per owner
    ``((hands, weights) to choose on, (hands, weights) to value on)`` (the tests).  A team
    that sees both its hands is measured exactly (:meth:`pair_response`)."""

    game: Game
    layout: Layout
    lance: str
    pattern: int
    variant: Variant
    ow: np.ndarray  # int64 [5, owners]
    lists: tuple  # per seat: int64 hands that fit its declaration
    pos: np.ndarray  # int64 [4, H]: position of a hand in its seat's list (-1: does not fit)
    eseat: tuple  # per owner: the seat whose hands are enumerated
    req: np.ndarray  # int64 [4]: required hold[hand] of each seat (-1: none)
    hold: np.ndarray  # int64 [H]
    deck: "DeckTables"
    inv_total: float
    col: int
    pair_tables: tuple = (_NO_TABLE, _NO_TABLE)  # per team: pair_table, or empty
    seed: int = 2026
    batch: int = 256
    batch_single: int | None = None
    n_eval: int = 100_000
    n_pairs: int | None = None
    n_choose: int | None = None
    given: dict | None = None
    range_weights: np.ndarray | None = None
    _G: TreeArrays | None = field(default=None, repr=False)
    _pair_cache: dict = field(default_factory=dict, repr=False)
    _D: DeckArrays | None = field(default=None, repr=False)

    @property
    def n_owners(self) -> int:
        return self.game.n_owners

    @property
    def G(self) -> TreeArrays:
        """Packed tree and owner arrays of the kernels."""
        if self._G is None:
            H = self.pos.shape[1]
            lists = np.zeros((4, H), np.int64)
            n_list = np.zeros(4, np.int64)
            for q in range(4):
                lists[q, : self.lists[q].shape[0]] = self.lists[q]
                n_list[q] = self.lists[q].shape[0]
            cls_cnt = self.deck.cls_cnt
            rmap, radix = deck_codes(cls_cnt) if any(t.shape[0] for t in self.pair_tables) else \
                (np.full(1, -1, np.int64), np.zeros(cls_cnt.shape[0], np.int64))
            self._G = TreeArrays(self.layout.tr, self.ow, self.layout.order, lists, n_list, self.pos,
                                 np.array(self.eseat, np.int64), self.pair_tables[0], self.pair_tables[1], rmap, radix)
        return self._G

    @property
    def D(self) -> DeckArrays:
        """Packed deck arrays of the kernels."""
        if self._D is None:
            d = self.deck
            rw = np.ones((4, d.n_hands)) if self.range_weights is None else \
                np.ascontiguousarray(self.range_weights, np.float64)
            self._D = DeckArrays(d.card_class, d.idx4, d.cls_cnt, d.nzc, d.nzn, d.nnz, d.binom, d.tab, self.hold,
                                 self.req, rw)
        return self._D

    def U_work(self, dtype) -> np.ndarray:
        return np.ascontiguousarray(self.game.U, dtype)

    def partner_seat(self, k: int) -> int:
        """The partner's seat when owner ``k`` enumerates its team's pairs of hands, else -1."""
        return int(self.ow[3, k]) + 2 if int(self.ow[2, k]) == 2 else -1

    def configure(self, **kw) -> "VectorGame":
        """Set the chance settings (``seed``, ``batch``, ``batch_single``, ``n_eval``,
        ``n_pairs``, ``given``, ``range_weights``); returns the game.

        ``range_weights`` (float [4, H], or None for the hands as dealt): a factor per seat and
        hand on the deal's law, what a public history says of each seat's hand.  With private
        strategies earlier in the hand, P(history | the four hands) is the product over the
        seats of each one's own probabilities of his actions on it, so the subgame after that
        history is this one with each seat's range so weighted (card removal still exact).
        Samples then carry the others' factors and the enumerated hands their own."""
        for k, x in kw.items():
            if not hasattr(self, k) or k.startswith("_"):
                raise AttributeError(k)
            if k == "range_weights" and x is not None:
                x = np.asarray(x, np.float64)
                if x.shape != (4, self.deck.n_hands) or (x < 0).any() or not np.isfinite(x).all():
                    raise MusError("range weights are four rows of non-negative factors, one per hand")
                if any(self.partner_seat(o) >= 0 for o in range(self.n_owners)):
                    raise MusError("a pooled team's pairs read no range weights")
            setattr(self, k, x)
        self._D = None
        return self

    # -- the solver's interface ------------------------------------------------

    def _kernel_args(self, SIG: np.ndarray) -> tuple[Any, ...]:
        return (self.G, self.D, SIG, self.U_work(SIG.dtype), self.deck.k_cls, self.inv_total,
                LANCE_INDEX[self.lance], self.col, self.layout.n_term)

    def action_values(self, owners, SIG, t):
        from musstats._kernels.vcfr import vec_regrets

        lay = self.layout
        single = [k for k in owners if self.partner_seat(k) < 0]
        b = self.batch_single if self.batch_single is not None and len(single) == len(owners) else self.batch
        bounds = chunk_bounds(int(b), CHUNKS)
        nc = bounds.shape[0] - 1
        seeds = np.concatenate([_task_seeds(self.seed, (SAMPLE_KEYS["train"], t, k), nc) for k in owners])
        sigW = SIG.astype(WORK_DTYPE)
        acc, _, _ = vec_regrets(np.asarray(owners, np.int64), bounds, _NO_HANDS, _NO_W, seeds, True,
                                *self._kernel_args(sigW), lay.n_vrows, int(self.game.stride.max()),
                                np.zeros(1, ACC_DTYPE))
        return [acc[i * nc: (i + 1) * nc] for i in range(len(owners))]

    def _n(self, k: int, kind: str = "eval") -> int:
        n = self.n_eval if self.n_pairs is None or self.partner_seat(k) < 0 else self.n_pairs
        if kind == "choose" and self.n_choose is not None:
            n = min(n, self.n_choose)
        return int(n)

    def _chunks(self, k: int) -> int:
        """Chunks of owner k's measurement calls (the same for every call on a sample, so that
        they draw the same samples): fewer for big state spaces (the terminal sums' accumulators
        are [chunks, terminals, states])."""
        lay = self.layout
        return int(max(1, min(CHUNKS, 64e6 // (8 * lay.n_tz * int(lay.m[k])))))

    def _call(self, fn, k: int, sample: Sample, SIG: np.ndarray, *extra):
        if self.given is not None:
            h, w = self.given[k][0 if sample.kind == "choose" else 1]
            bounds = chunk_bounds(h.shape[0], self._chunks(k))
            return fn(k, bounds, h, w, np.zeros((bounds.shape[0] - 1, 4), np.uint64), False, *self._kernel_args(SIG),
                      *extra)
        bounds = chunk_bounds(self._n(k, sample.kind), self._chunks(k))
        key = (SAMPLE_KEYS[sample.kind] + SET_STEP * int(sample.index), k)
        seeds = _task_seeds(self.seed, key, bounds.shape[0] - 1)
        return fn(k, bounds, _NO_HANDS, _NO_W, seeds, True, *self._kernel_args(SIG), *extra)

    def terminal_sums(self, k, SIG, sample):
        from musstats._kernels.vcfr import vec_terminal_sums

        T, _ = self._call(vec_terminal_sums, k, sample, np.ascontiguousarray(SIG, np.float64), self.layout.n_tz)
        return T.sum(axis=0)

    def sample_values(self, k, SIG, sample):
        from musstats._kernels.vcfr import vec_values

        SIG = np.ascontiguousarray(SIG, np.float64)
        P = self.layout.own_reach(SIG, k)
        x, W = self._call(vec_values, k, sample, SIG, np.stack([P, P]))
        return x[0], W

    def _pairs(self, team: int):
        """Every pair of team ``team``'s hands that the deck allows, with its card combinations,
        grouped by the deck it leaves: (group starts, decks left [groups, classes], first hands,
        second hands, weights)."""
        if team not in self._pair_cache:
            d = self.deck
            H = d.n_hands
            cnt = np.zeros((H, d.cls_cnt.shape[0]), np.int64)
            for h in range(H):
                cnt[h, d.nzc[h, : d.nnz[h]]] = d.nzn[h, : d.nnz[h]]
            La, Lb = self.lists[team], self.lists[team + 2]
            A = np.repeat(La, Lb.shape[0])
            Bh = np.tile(Lb, La.shape[0])
            left1 = d.cls_cnt[None, :] - cnt[A]
            w1 = np.prod(d.binom[d.cls_cnt[None, :], cnt[A]], axis=1)
            rem = left1 - cnt[Bh]
            ok = (rem >= 0).all(axis=1)
            w2 = np.prod(d.binom[np.maximum(left1, 0), cnt[Bh]], axis=1)
            w = (w1 * w2).astype(np.float64)
            keep = ok & (w > 0)
            A, Bh, w, rem = A[keep], Bh[keep], w[keep], rem[keep]
            radix = np.concatenate([[1], np.cumprod(d.cls_cnt + 1)[:-1]]).astype(np.int64)
            code = rem @ radix
            order = np.argsort(code, kind="stable")
            A, Bh, w, rem, code = A[order], Bh[order], w[order], rem[order], code[order]
            starts = np.concatenate([[0], np.nonzero(np.diff(code))[0] + 1, [code.shape[0]]]).astype(np.int64)
            self._pair_cache[team] = (starts, np.ascontiguousarray(rem[starts[:-1]]), A, Bh, w)
        return self._pair_cache[team]

    def _seat_reach(self, SIG: np.ndarray, q: int) -> np.ndarray:
        """The reach of seat ``q``'s every hand at every terminal, hand-major [H, n_tz] (0 for
        the hands that do not fit the seat)."""
        k = self.game.seat_owner[q]
        out = np.zeros((self.deck.n_hands, self.layout.n_tz))
        out[self.lists[q]] = self.layout.own_reach(SIG, k).T
        return out

    def pair_response(self, team, SIG, sample):
        """Team ``team``'s best response when it sees both its hands, exactly: its terminal sums
        over every pair of its hands (:func:`musstats._kernels.vcfr.pair_terminal_sums`, card
        removal exact, no sampling), from which the best action of every pair is read."""
        SIG = np.ascontiguousarray(SIG, np.float64)
        return self._opponents_sums(team, self._seat_reach(SIG, 1 - team), self._seat_reach(SIG, 3 - team),
                                    np.zeros((0, 0, 0)))

    def _classes(self, q: int, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Seat ``q``'s hands in classes of one score and value in the lance and one reach (``R``
        [hands, n_tz]): the class of each hand of its list, and each class's reach [classes, n_tz]."""
        L = self.lists[q]
        tab = self.deck.tab
        value = tab[L, self.col] if self.col >= 0 else np.zeros(L.shape[0], tab.dtype)
        key = np.column_stack([tab[L, LANCE_INDEX[self.lance]], value, R[L]])
        _, first, cls = np.unique(key, axis=0, return_index=True, return_inverse=True)
        return cls.ravel().astype(np.int64), np.ascontiguousarray(R[L][first])

    def _opponents_sums(self, team: int, R1: np.ndarray, R2: np.ndarray, RJ: np.ndarray) -> dict:
        """:func:`musstats._kernels.vcfr.pair_terminal_sums` of team ``team`` with the opponents'
        reach ``R1`` x ``R2`` (each [hands, n_tz]), or their joint reach ``RJ`` [hands of the
        first, of the second, n_tz] (their lists' positions) where not empty."""
        from musstats._kernels.vcfr import pair_terminal_sums

        if self.game.info != "private":
            raise MusError("a team that sees both its hands is measured on the private model")
        if self.range_weights is not None:
            raise MusError("the sums over a team's pairs of hands read no range weights")
        starts, rems, pa, pb, pw = self._pairs(team)
        d = self.deck
        L1, L2 = self.lists[1 - team], self.lists[3 - team]
        if RJ.shape[0]:
            (c1, C1), (c2, C2) = (np.arange(L1.shape[0]), R1), (np.arange(L2.shape[0]), R2)
        else:
            (c1, C1), (c2, C2) = self._classes(1 - team, R1), self._classes(3 - team, R2)
        T, W = pair_terminal_sums(team, starts, rems, pa, pb, pw, L1, L2, c1, c2, C1, C2, RJ,
                                  self.U_work(np.float64), self.layout.u_rows, LANCE_INDEX[self.lance], self.col,
                                  d.tab, d.nzc, d.nzn, d.nnz, d.binom)
        return {"T": T, "W": W, "exact": True}

    def pair_values(self, team, SIG, response, sample):
        """The team's value seeing both hands (its best response) and with its strategies in
        ``SIG``, exactly (one unit)."""
        SIG = np.ascontiguousarray(SIG, np.float64)
        T, W = response["T"], response["W"]
        _, _, pa, pb, _ = self._pairs(team)
        from musstats.engines.solving.team import seeing_both

        own = (self.game.seat_owner[team], self.game.seat_owner[team + 2])
        ra = self._seat_reach(SIG, team)[pa].T  # [n_tz, pairs]
        rb = self._seat_reach(SIG, team + 2)[pb].T
        base = float((ra * rb * T).sum())
        step = 8192  # the pairs' best responses a block of pairs at a time
        best = sum(seeing_both(self.layout, T[:, lo: lo + step], own) for lo in range(0, T.shape[1], step))
        return np.array([best]), np.array([base]), np.array([float(W.sum())])

    def pair_sums(self, team, SIG):
        """Exact, over every pair of the team's hands (:meth:`pair_response`'s sums), the pairs'
        columns those of the team's two seats."""
        return self._as_pair_sums(team, self.pair_response(team, SIG, Sample("choose")))

    def _as_pair_sums(self, team: int, r: dict):
        from musstats.engines.solving.game import PairSums

        _, _, pa, pb, _ = self._pairs(team)
        return PairSums(r["T"], r["W"], self.game.seat_owner[team], self.game.seat_owner[team + 2],
                        self.pos[team][pa], self.pos[team + 2][pb])

    def mixture_pair_sums(self, team, profiles, weights):
        """The pair sums against the other team's mixture in one pass over the deals: the
        opponents' joint reach of each pair of their hands and terminal is the weighted sum over
        the profiles of the products of their two seats' reaches (one batched matrix product),
        where that table is at most :data:`JOINT_MAX` numbers and the mixture has two profiles or
        more; else the weighted sum of each profile's sums."""
        L1, L2 = self.lists[1 - team], self.lists[3 - team]
        live = [(np.ascontiguousarray(S, np.float64), float(w)) for S, w in zip(profiles, weights) if w > 0]
        if len(live) < 2 or L1.shape[0] * L2.shape[0] * self.layout.n_tz > JOINT_MAX or self.game.info != "private":
            return super().mixture_pair_sums(team, profiles, weights)
        own = self.layout.own_reach  # [n_tz, the seat's hands in its list's order]
        A = np.stack([w * own(S, self.game.seat_owner[1 - team]) for S, w in live], axis=2)  # [n_tz, n1, P]
        B = np.stack([own(S, self.game.seat_owner[3 - team]) for S, _ in live], axis=1)  # [n_tz, P, n2]
        RJ = np.ascontiguousarray(np.matmul(A, B).transpose(1, 2, 0))  # [n1, n2, n_tz]
        empty = np.zeros((0, 0))
        return self._as_pair_sums(team, self._opponents_sums(team, empty, empty, RJ))

    def strength(self, k: int) -> np.ndarray:
        """The lance key of each column's hand (the best hand of a pooled state)."""
        li = LANCE_INDEX[self.lance]
        tab = self.deck.tab
        if int(self.ow[2, k]) == 0:
            return tab[self.lists[int(self.ow[3, k])], li].astype(np.float64)
        s = np.arange(int(self.layout.m[k]), dtype=np.int64)
        b = s // 7 if self.col >= 0 else s
        return tab[b // 2, li].astype(np.float64)

    @property
    def sample_size(self) -> int:  # type: ignore[override]
        return 0 if self.given is not None else int(self.n_eval)

    @property
    def samples_text(self) -> str:  # type: ignore[override]
        if self.given is not None:
            return "explicit samples"
        pairs = any(self.partner_seat(k) >= 0 for k in range(self.n_owners))
        tail = f" ({self.n_pairs:,} for a team that enumerates its pairs of hands)" if pairs and self.n_pairs else ""
        return (f"public chance sampling: per owner, exact over the hands of one of its seats and Monte Carlo over "
                f"the other hands, {self.n_eval:,} samples per owner and sample set{tail}")



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
    layout = make_layout(game, [lists[idxs[k]] if kinds[k] == 0 else np.arange(int(m[k]), dtype=np.int64)
                                for k in range(n_own)])
    ow = np.array([layout.tb, m, kinds, idxs, game.team], np.int64)
    n_rem = dt.card_class.shape[0] - 12
    tables = [_NO_TABLE, _NO_TABLE]
    if pair_tables:
        for k in range(n_own):
            if kinds[k] == 2:
                tables[idxs[k]] = pair_table(dt, lance, idxs[k], req, int(m[k]))
    return VectorGame(game, layout, lance, int(pattern), variant, ow, tuple(lists), pos, tuple(eseat), req, hold,
                      dt, 1.0 / comb(n_rem, 4), _value_col(lance), tuple(tables))


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
    d = vg.deck
    sample_others(_task_seeds(seed, key, c), bounds, vg.eseat[k], vg.partner_seat(k), d.card_class, vg.req,
                  vg.hold, d.k_cls, d.idx4, out, tries)
    return out, tries


def vector_regrets(vg: VectorGame, k: int, sigma: np.ndarray, hands: np.ndarray, sw: np.ndarray,
                   chunks: int = CHUNKS, dtype=np.float64) -> np.ndarray:
    """Owner k's instantaneous counterfactual regrets (summed over the samples ``hands`` with
    weights ``sw``) in the stored layout of ``sigma`` (zero outside k's slots): what one
    iteration adds, for the tests against :func:`musstats._kernels.cfr.cfr_regrets`."""
    from musstats._kernels.vcfr import vec_regrets

    lay = vg.layout
    sigT = lay.from_game(sigma).astype(dtype)
    bounds = chunk_bounds(hands.shape[0], chunks)
    args = (np.array([k], np.int64), bounds, np.ascontiguousarray(hands, np.int64), np.ascontiguousarray(sw, np.float64),
            np.zeros((1, 4), np.uint64), False, *vg._kernel_args(sigT), lay.n_vrows, int(vg.game.stride.max()),
            np.zeros(1, np.float64))
    acc, _, _ = vec_regrets(*args)
    return regrets_in_game_layout(lay, k, sigT, acc.sum(axis=0))


def regrets_in_game_layout(lay: Layout, k: int, sigT: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """Owner k's instantaneous regrets in the stored layout (zero outside k's slots) from its
    action values ``Q`` [rows of k, MS] and the strategy ``sigT`` (working layout) they were
    computed with: each action's value minus the strategy's mean at its node."""
    rb = int(lay.tb[k])
    m = int(lay.m[k])
    RT = lay.zeros()
    for n in lay.own_nodes[k]:
        na, a0 = int(lay.tr[2, n]), int(lay.tr[5, n])
        qn = Q[a0: a0 + na, :m]
        base = (sigT[rb + a0: rb + a0 + na, :m] * qn).sum(axis=0)
        RT[rb + a0: rb + a0 + na, :m] = qn - base
    out = np.zeros(lay.game.n_slots)
    mask = np.zeros((lay.n_rows, lay.MS), bool)
    mask[rb: rb + lay.rows(k), :m] = True
    sel = mask.ravel()[lay.tidx]
    out[lay.gidx[sel]] = RT.ravel()[lay.tidx[sel]]
    return out
