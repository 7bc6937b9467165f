"""The one CFR driver of the framework: every game (:class:`.game.SolverGame`) is solved here.

At iteration ``t`` each owner gets its counterfactual action values from the game
(:meth:`~.game.SolverGame.action_values`: sampled deals, public chance sampling or exact
chance, the game's business), adds its instantaneous regrets to its cumulative ones,
discounts them and plays regret matching; the average strategy weights iteration ``t``
by ``t^gamma`` and is accumulated exactly from each state's own reach.  The schemes are
presets of :class:`SolveConfig`:

* ``dcfr`` -- Discounted CFR (Brown and Sandholm 2019) with alpha = 1.5, beta = 0, gamma =
  2: positive regrets scaled by t^1.5 / (t^1.5 + 1), negative ones halved; owners updated
  in turn (alternating updates);
* ``dcfr-simultaneous`` -- the same with every owner updated on the same values;
* ``cfr+`` -- regrets floored at zero, linear averaging;
* ``linear`` -- linear CFR (alpha = beta = gamma = 1);
* ``team`` -- DCFR with an *exploration floor* (:data:`TEAM_FLOOR`): the values are taken
  against strategies that play every action with probability at least ``floor /
  actions``, so that every decision a partner may face is trained, also those his
  partner's current strategy never leads to; the floor decays as ``floor /
  t^floor_decay``, and the strategy returned is the average of the strategies played
  before the floor (docs/method.md, "Team-sound strategies").  With ``team_every`` (e.g.
  :data:`TEAM_EVERY`), every so many iterations a pair that gains by coordinating beyond
  what its partners gain alone is moved to its joint deviation (:func:`_team_moves`).

The driver shows progress (``progress(iteration, seconds, exploitability or None)``),
stops on Ctrl-C or a ``stop()`` returning True (the strategy so far, marked partial),
evaluates the average strategy every ``eval_every`` iterations (not counted as training
time) and stops early when that evaluation reaches ``target``.  A solve can go on from a
:class:`SolverState` (a warm start) and return its own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.run import Interrupt
from musstats.engines.solving.game import CHUNKS, Game, SolverGame

__all__ = ["SolveConfig", "PRESETS", "SCHEME_TEXT", "Strategy", "SolverState", "solve", "TEAM_FLOOR"]

#: the exploration floor of the ``team`` preset (an action's probability is at least floor / actions)
TEAM_FLOOR = 0.05
#: ... decaying as floor / t^TEAM_FLOOR_DECAY
TEAM_FLOOR_DECAY = 0.5
#: the coordination moves (``team_every``, :func:`_team_moves`): a pair's joint deviation searched every so
#: many iterations, taken when it gains more than ``TEAM_MIN_GAIN`` beyond its partners alone.  Off in the
#: ``team`` preset: on grande (6,000 iterations, moves at 2,000 and 4,000) they left NashConv 0.017 and
#: second+postre's deviation 0.025, against 0.0065 and 0.021 with the floor alone (4,000 iterations)
TEAM_EVERY = 2000
TEAM_MIN_GAIN = 0.01


@dataclass(frozen=True)
class SolveConfig:
    """Iterations and the scheme: ``method`` ``"dcfr"`` or ``"cfr+"``, the DCFR discounts
    ``alpha``, ``beta`` and averaging exponent ``gamma``, ``alternate`` (owners updated in
    turn) and the exploration floor (``floor``, decaying as ``t^-floor_decay``).  Build
    one from a preset with :meth:`preset`.  ``team_every``: every so many iterations, each
    team's best joint deviation against the average strategy is searched
    (:func:`musstats.engines.solving.exploit.team_search`) and, when it gains more than
    ``team_min_gain``, the team's strategy is moved to it (its average and its regrets), and
    CFR goes on from there."""

    iterations: int = 200
    method: str = "dcfr"
    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 2.0
    alternate: bool = True
    floor: float = 0.0
    floor_decay: float = 0.0
    team_every: int = 0
    team_min_gain: float = 0.0
    chunks: int = CHUNKS

    def __post_init__(self) -> None:
        if self.method not in ("dcfr", "cfr+"):
            raise MusError(f"unknown CFR method {self.method!r}; accepted: dcfr, cfr+")
        if not 0.0 <= float(self.floor) < 1.0:
            raise MusError(f"the exploration floor must be in [0, 1), got {self.floor!r}")

    @classmethod
    def preset(cls, name: str, iterations: int, **kw) -> "SolveConfig":
        if name not in PRESETS:
            raise MusError(f"unknown CFR scheme {name!r}; accepted: {', '.join(PRESETS)}")
        return replace(PRESETS[name], iterations=int(iterations), **kw)

    def floor_at(self, t: int) -> float:
        return float(self.floor) / (float(t) ** float(self.floor_decay)) if self.floor > 0 else 0.0

    def describe(self) -> dict:
        d = {"iterations": self.iterations, "method": self.method, "alpha": self.alpha, "beta": self.beta,
             "gamma": self.gamma, "alternate": self.alternate}
        if self.floor > 0:
            d.update(floor=self.floor, floor_decay=self.floor_decay)
        if self.team_every:
            d.update(team_every=self.team_every, team_min_gain=self.team_min_gain)
        return d


PRESETS = {
    "dcfr": SolveConfig(),
    "dcfr-simultaneous": SolveConfig(alternate=False),
    "cfr+": SolveConfig(method="cfr+", gamma=1.0),
    "linear": SolveConfig(alpha=1.0, beta=1.0, gamma=1.0),
    "team": SolveConfig(floor=TEAM_FLOOR, floor_decay=TEAM_FLOOR_DECAY, team_min_gain=TEAM_MIN_GAIN),
}

#: the presets as an output names them
SCHEME_TEXT = {"dcfr": "DCFR", "dcfr-simultaneous": "DCFR", "cfr+": "CFR+", "linear": "linear CFR",
               "team": "the team scheme (DCFR with an exploration floor)"}


@dataclass(eq=False)
class SolverState:
    """Where a solve stands after ``t`` iterations (working layout): the regrets ``R``, the
    average-strategy sums ``S`` and the current strategy ``sig``."""

    R: np.ndarray
    S: np.ndarray
    sig: np.ndarray
    t: int


@dataclass(eq=False)
class Strategy:
    """A solved (or partly solved) strategy: the average behaviour strategy ``sigma`` of every
    infoset of ``game`` (stored layout); ``history`` rows (iteration, training seconds,
    evaluation); ``meta``: the scheme and, with ``keep_state``, ``"state"``."""

    game: Game
    sigma: np.ndarray
    iterations: int
    partial: bool = False
    seconds: float = 0.0
    history: list[tuple[int, float, float]] = field(default_factory=list)
    meta: dict = field(default_factory=dict)


def solve(game: SolverGame, config: SolveConfig, *,
          progress: Callable[[int, float, float | None], None] | None = None,
          evaluate: Callable[[np.ndarray], float] | None = None, eval_every: int = 0, target: float | None = None,
          stop: Callable[[], bool] | None = None, start: SolverState | None = None,
          keep_state: bool = False) -> Strategy:
    """Run ``config.iterations`` iterations of the scheme on ``game``.

    ``evaluate(sigma)`` (stored layout) every ``eval_every`` iterations and at the end goes
    into the history and to ``progress``; with ``target`` the solve stops once an evaluation
    is at most ``target``.  ``start``: go on from a :class:`SolverState` of the same game
    (``config.iterations`` more)."""
    from musstats._kernels.cfr import average_owner, dcfr_update_owner

    lay = game.layout
    plus = config.method == "cfr+"
    gamma = 1.0 if plus else config.gamma
    if start is None:
        R, S, sig = lay.zeros(), lay.zeros(), lay.uniform()
        t_first = 1
    else:
        if start.R.shape != (lay.n_rows, lay.MS):
            raise MusError("a warm start needs the state of a solve of the same game")
        R, S, sig = start.R.astype(np.float64), start.S.astype(np.float64), start.sig.astype(np.float64)
        t_first = int(start.t) + 1
    active = lay.active()
    groups = [[k] for k in active] if config.alternate else [active]
    history: list[tuple[int, float, float]] = []
    moves: list[dict] = []
    t0 = time.perf_counter()
    spent = 0.0  # seconds in evaluate
    done = 0
    partial = False
    with Interrupt() as ctrl_c:
        for t in range(t_first, t_first + int(config.iterations)):
            if ctrl_c.hit or (stop is not None and stop()):
                partial = True
                break
            w = float(t) ** gamma
            eps = config.floor_at(t)
            for grp in groups:
                vals = game.action_values(grp, lay.floored(sig, eps), t)
                for k, acc in zip(grp, vals):
                    acc = lay.tie_values(k, acc)
                    rb, m = int(lay.tb[k]), int(lay.m[k])
                    average_owner(S, R, sig, w, lay.tr, rb, m, k)
                    dcfr_update_owner(R, acc, sig, rb, m, lay.own_nodes[k], lay.tr, float(t), config.alpha,
                                      config.beta, plus)
            done = t - t_first + 1
            last = done == config.iterations
            if config.team_every and t % config.team_every == 0 and not last:
                moves.extend(_team_moves(game, config, R, S, sig, t, gamma))
            ex = None
            if evaluate is not None and eval_every and (done % eval_every == 0 or last):
                e0 = time.perf_counter()
                ex = float(evaluate(lay.to_game(lay.normalise(S))))
                spent += time.perf_counter() - e0
                history.append((done, time.perf_counter() - t0 - spent, ex))
            if progress is not None:
                progress(done, time.perf_counter() - t0 - spent, ex)
            if target is not None and ex is not None and ex <= target:
                break
    avg = lay.to_game(lay.normalise(S))
    meta: dict = {"solver": config.describe(), "warm_from_iteration": None if start is None else int(start.t)}
    if config.team_every:
        meta["team_moves"] = moves
    if keep_state:
        meta["state"] = SolverState(R, S, sig, t_first - 1 + done)
    return Strategy(lay.game, avg, done, partial, time.perf_counter() - t0 - spent, history, meta)


def _team_moves(game: SolverGame, config: SolveConfig, R: np.ndarray, S: np.ndarray, sig: np.ndarray, t: int,
                gamma: float) -> list[dict]:
    """Where a pair gains by coordinating, move it there.

    Against the average strategy, each team's best joint deviation is searched on a sample of
    this iteration's own (:func:`~musstats.engines.solving.exploit.team_search`), and each
    partner's own best response is measured on the same sample.  The *coordination gap* is what
    the pair gains beyond the better of its partners alone: a gap that CFR's updates of single
    players do not close (a partner's answer that his partner's current play never asks for).
    The team with the larger gap, when it exceeds ``config.team_min_gain``, is moved: its current
    strategy becomes the joint deviation and its regrets favour it (at the owner's mean positive
    regret); its average is kept, and CFR goes on from there (the later iterations weigh more)."""
    from musstats.engines.solving.exploit import best_response, paired_gain, team_owners, team_search
    from musstats.engines.solving.game import Sample

    lay = game.layout
    avg = lay.normalise(S)
    sample = Sample("choose", 10 + t // config.team_every)
    found = []
    for tm in (0, 1):
        own = team_owners(game, tm)
        if len(own) < 2:
            continue
        g_in, se_in, dev, how = team_search(game, avg, tm, sample=sample)
        alone = max(paired_gain(game, own[0], avg, lay.with_rows(avg, k, best_response(game, k, avg, sample)),
                                sample)[0] for k in own)
        found.append((g_in - alone, tm, g_in, se_in, alone, dev, how))
    if not found:
        return []
    gap, tm, g_in, se_in, alone, dev, how = max(found, key=lambda x: x[0])
    if gap <= config.team_min_gain:
        return []
    for k in team_owners(game, tm):
        rb, m, rows = int(lay.tb[k]), int(lay.m[k]), lay.rows(k)
        plan = lay.owner_rows(dev, k)
        pos = R[rb: rb + rows, :m]
        scale = float(pos[pos > 0].mean()) if (pos > 0).any() else 1.0
        R[rb: rb + rows, :m] = plan * scale
        sig[rb: rb + rows, :m] = plan
    return [{"iteration": t, "team": tm, "gain_in": round(g_in, 6), "gain_in_se": round(se_in, 6),
             "alone_in": round(alone, 6), "found_from": how}]
