"""The betting solver: chance-sampled Discounted CFR on a public tree with private states.

**Game.**  A :class:`Game` is a public tree (:mod:`.tree`), a payoff table (:mod:`.game`)
and an *information model*: who owns each decision node and what he knows.

* ``private``: each seat is a player (4 owners) who knows his own hand (330 states with
  8 reyes): the real game.
* ``pooled``: each team is a player (2 owners; a two-player zero-sum game) who sees
  both its hands through what decides the lance: its better hand in the lance (the hand
  and which partner holds it) and, in pares and juego, the sum of its holders' values
  (perfect señas for the lance).  The cards of the team's other hand are left out of
  its state (they still shape the deal distribution): the exact pair of hands would be
  108,900 states per team and node, which no sampled solver fills in minutes.
* ``pooled-0`` / ``pooled-1``: only team 0 (1) pools; the other team's seats are private
  (to check that seeing more is worth something to a team).

**Solver.**  Every iteration ``t`` traverses the tree once per deal of the batch, for all
players at once (:func:`musstats._kernels.cfr.cfr_regrets`), adds the counterfactual
regrets of every infoset (node, state of its owner), discounts them (DCFR, alpha = 1.5,
beta = 0: positive regrets by t^1.5 / (t^1.5 + 1), negative ones halved) and plays
regret matching; the average strategy weights iteration ``t`` by t^2 (gamma = 2) and is
accumulated exactly from each state's own reach (no sampling in it).

**Sampling.**  ``sampling="pool"`` (the default) replays one fixed pool of deals every
iteration: the solver then runs deterministic DCFR on the empirical game of the pool,
which converges fast but fits the pool (a hand dealt in 1 of 100,000 deals has few
deals in it); the pool is sized so that this fit error stays well below the target
(the exploitability is measured on independent deals, see :mod:`.exploit`).
``sampling="fresh"`` draws a new batch every iteration (unbiased, noisier).  Both
are measured in ``scripts/bench_cfr.py``.

Threads: the deals of an iteration are cut into ``CHUNKS`` fixed chunks, each with its
own regret accumulator, summed in chunk order: the same seed gives the same strategy
with any number of threads.  Ctrl-C (or a ``stop()`` callable returning True) is
checked between iterations: the solve returns the strategy so far, marked partial.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterator, cast

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.betting.tree import BettingTree
from musstats.engines.run import Interrupt

__all__ = ["INFO_MODELS", "Game", "make_game", "Strategy", "solve_game", "CHUNKS", "SolveConfig", "chunk_bounds"]

INFO_MODELS = ("private", "pooled", "pooled-0", "pooled-1")
#: fixed chunks of the deals of an iteration (results do not depend on the threads)
CHUNKS = 16
#: the tree arrays of :meth:`Game.kernel_args`: is_term, first, n_act, owner, term, noff, obase, stride
KernelArgs = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@dataclass(eq=False)
class Game:
    """A tree, an information model and a payoff, in the kernels' arrays."""

    tree: BettingTree
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
    seat_owner: tuple[int, ...]  # owner of each seat
    columns: tuple[tuple[str, int], ...]  # per owner: ("seat", q) or ("team", t): where its state comes from

    @property
    def n_owners(self) -> int:
        return int(self.team.shape[0])

    def kernel_args(self) -> KernelArgs:
        t = self.tree
        return (t.is_term, t.first, t.n_act, self.owner, t.term, self.noff, self.obase, self.stride)

    def states(self, st_private: np.ndarray, st_pooled: np.ndarray | None) -> np.ndarray:
        """Owner states int32 [N, owners] from the private (hand per seat) and pooled
        (team states) columns of :func:`musstats._kernels.betting.lance_features`."""
        cols = []
        for kind, i in self.columns:
            # a "team" column only exists when the caller passes the pooled states
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

    def uniform(self) -> np.ndarray:
        n = np.asarray(self.iset_n, np.int64)
        start = np.repeat(np.asarray(self.iset_base, np.int64), n)
        within = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
        sigma = np.zeros(self.n_slots)
        sigma[start + within] = np.repeat(1.0 / n, n)
        return sigma


def _layout(is_term, n_act, owner, ns):
    """Owner-state-major slots: noff, obase, stride, n_slots, infoset starts and sizes."""
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


def make_game(tree: BettingTree, info: str, U: np.ndarray, n_hands: int,
              pooled_states: int | None = None) -> Game:
    """Arrays of a game.  ``n_hands``: private states per seat; ``pooled_states``: states of
    a pooled team (default 2 n_hands, or 14 n_hands in pares and juego)."""
    if info not in INFO_MODELS:
        raise MusError(f"unknown information model {info!r}; accepted: {', '.join(INFO_MODELS)}")
    if pooled_states is None:
        pooled_states = 2 * n_hands * (7 if tree.lance in ("pares", "juego") else 1)
    if info == "private":
        columns = tuple(("seat", q) for q in range(4))
        seat_owner = (0, 1, 2, 3)
        team = [0, 1, 0, 1]
        ns = [n_hands] * 4
    elif info == "pooled":
        columns = (("team", 0), ("team", 1))
        seat_owner = (0, 1, 0, 1)
        team = [0, 1]
        ns = [pooled_states] * 2
    elif info == "pooled-0":
        columns = (("team", 0), ("seat", 1), ("seat", 3))
        seat_owner = (0, 1, 0, 2)
        team = [0, 1, 1]
        ns = [pooled_states, n_hands, n_hands]
    else:
        columns = (("seat", 0), ("team", 1), ("seat", 2))
        seat_owner = (0, 1, 2, 1)
        team = [0, 1, 0]
        ns = [n_hands, pooled_states, n_hands]
    owner = np.array([seat_owner[q] if q >= 0 else -1 for q in tree.seat], np.int64)
    noff, obase, stride, off, ib, inn = _layout(tree.is_term, tree.n_act, owner, ns)
    U = np.ascontiguousarray(U, np.float64)
    if U.shape[0] != tree.n_terminals:
        raise MusError(f"the payoff table has {U.shape[0]} rows for {tree.n_terminals} terminals")
    return Game(tree, info, U, owner, np.array(team, np.int64), np.array(ns, np.int64), noff, obase, stride,
                off, ib, inn, seat_owner, columns)


def make_custom_game(tree_arrays: dict, U: np.ndarray, team, n_states) -> Game:
    """A game from raw arrays (toy games in the tests: Kuhn poker and the like).

    ``tree_arrays``: ``is_term``, ``first``, ``n_act``, ``term``, ``owner`` (int [N]) and
    optionally ``labels`` (list of action tuples per node)."""

    class _T:  # the attributes of BettingTree the solver reads
        is_term: np.ndarray
        first: np.ndarray
        n_act: np.ndarray
        term: np.ndarray
        n_nodes: int
        n_terminals: int
        lance: str

    t = _T()
    for k in ("is_term", "first", "n_act", "term"):
        setattr(t, k, np.ascontiguousarray(tree_arrays[k], np.int64))
    t.n_nodes = int(t.is_term.shape[0])
    t.n_terminals = int(np.asarray(U).shape[0])
    t.lance = "custom"
    owner = np.ascontiguousarray(tree_arrays["owner"], np.int64)
    ns = np.asarray(n_states, np.int64)
    noff, obase, stride, off, ib, inn = _layout(t.is_term, t.n_act, owner, ns)
    cols = tuple(("seat", k) for k in range(len(ns)))
    return Game(cast(BettingTree, t), "custom", np.ascontiguousarray(U, np.float64), owner, np.asarray(team, np.int64),
                ns, noff, obase, stride, off, ib, inn, tuple(range(len(ns))), cols)


def chunk_bounds(n: int, chunks: int = CHUNKS) -> np.ndarray:
    """Fixed chunk boundaries of ``n`` deals."""
    c = max(1, min(chunks, n))
    return (np.arange(c + 1, dtype=np.int64) * n) // c


@dataclass
class SolveConfig:
    """Iterations and the DCFR parameters (``method`` "dcfr" or "cfr+")."""

    iterations: int = 200
    method: str = "dcfr"
    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 2.0
    chunks: int = CHUNKS

    def describe(self) -> dict:
        return {"iterations": self.iterations, "method": self.method, "alpha": self.alpha, "beta": self.beta,
                "gamma": self.gamma}


@dataclass(eq=False)
class Strategy:
    """A solved (or partly solved) strategy: the average behaviour strategy ``sigma`` of
    every infoset of ``game``; ``history`` rows (iteration, seconds, exploitability
    estimate or NaN)."""

    game: Game
    sigma: np.ndarray
    iterations: int
    partial: bool = False
    seconds: float = 0.0
    history: list[tuple[int, float, float]] = field(default_factory=list)
    meta: dict = field(default_factory=dict)


DataSource = Callable[[int], tuple[np.ndarray, np.ndarray, np.ndarray]]


def solve_game(game: Game, data: tuple[np.ndarray, np.ndarray, np.ndarray] | DataSource,
               config: SolveConfig = SolveConfig(), *,
               progress: Callable[[int, float, float | None], None] | None = None,
               evaluate: Callable[[np.ndarray], float] | None = None, eval_every: int = 0,
               stop: Callable[[], bool] | None = None) -> Strategy:
    """Run DCFR for ``config.iterations`` iterations.

    ``data``: a fixed pool ``(st, o, w)`` replayed every iteration, or a callable
    ``data(t) -> (st, o, w)`` giving iteration ``t``'s batch.  ``evaluate(sigma) ->
    exploitability`` is called every ``eval_every`` iterations (and at the end) for the
    history and ``progress(iteration, seconds, exploitability or None)``.
    """
    from musstats._kernels.cfr import average_accumulate, cfr_regrets, dcfr_update, normalise

    if config.method not in ("dcfr", "cfr+"):
        raise MusError(f"unknown CFR method {config.method!r}; accepted: dcfr, cfr+")
    plus = config.method == "cfr+"
    gamma = 1.0 if plus else config.gamma
    args = game.kernel_args()
    is_term, first, nact, owner, term, noff, obase, stride = args
    R = np.zeros(game.n_slots)
    S = np.zeros(game.n_slots)
    sigma = game.uniform()
    history: list[tuple[int, float, float]] = []
    t0 = time.perf_counter()
    source: DataSource | None = None
    if callable(data):
        source = data
    else:
        st, o, w = data
        bounds = chunk_bounds(st.shape[0], config.chunks)
    fixed = source is None
    done = 0
    partial = False
    spent = 0.0  # seconds in evaluate (not counted as training)
    with Interrupt() as ctrl_c:
        for t in range(1, config.iterations + 1):
            if ctrl_c.hit or (stop is not None and stop()):
                partial = True
                break
            if source is not None:
                st, o, w = source(t)
                bounds = chunk_bounds(st.shape[0], config.chunks)
            acc = cfr_regrets(bounds, st, o, w, sigma, *args, game.team, game.U, game.n_slots)
            average_accumulate(S, R, sigma, float(t) ** gamma, is_term, first, nact, owner, noff, obase, stride,
                               game.n_states)
            dcfr_update(R, acc, sigma, game.iset_base, game.iset_n, float(t), config.alpha, config.beta, plus)
            done = t
            ex = None
            if evaluate is not None and eval_every and (t % eval_every == 0 or t == config.iterations):
                e0 = time.perf_counter()
                avg = np.empty(game.n_slots)
                normalise(S, avg, game.iset_base, game.iset_n)
                ex = float(evaluate(avg))
                spent += time.perf_counter() - e0
                history.append((t, time.perf_counter() - t0 - spent, ex))
            if progress is not None:
                progress(t, time.perf_counter() - t0 - spent, ex)
    avg = np.empty(game.n_slots)
    normalise(S, avg, game.iset_base, game.iset_n)
    return Strategy(game, avg, done, partial, time.perf_counter() - t0 - spent, history,
                    {"solver": config.describe(), "sampling": "pool" if fixed else "fresh"})


def batches(stream: Iterator[np.ndarray], batch: int) -> Callable[[int], np.ndarray]:
    """``f(t)``: the ``t``-th batch of ``batch`` deals of a stream of deal arrays."""
    buf: list[np.ndarray] = []
    have = [0]

    def get(t: int) -> np.ndarray:
        while have[0] < batch:
            x = next(stream)
            buf.append(x)
            have[0] += x.shape[0]
        allx = np.concatenate(buf)
        out, rest = allx[:batch], allx[batch:]
        buf.clear()
        buf.append(rest)
        have[0] = rest.shape[0]
        return out

    return get
