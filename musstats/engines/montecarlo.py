"""Monte Carlo showdown engine: sampled deals of the unseen cards, with standard errors.

Same statistics and semantics as the exact engine (:mod:`musstats.engines.exact`), for
two to six players, in partnerships or individually, with dead cards and with the
context's masks on the other hands (deals outside them are redrawn).

Reproducibility: trials are split into chunks of ``CHUNK`` deals (the last one may be
shorter); chunk ``j`` runs its own xoshiro256** generator seeded from
``numpy.random.SeedSequence(seed, spawn_key=(j,))`` (:func:`musstats.engines.random.seed_states`).
Counts are integers, so the result depends only on the seed and the number of chunks,
never on the number of threads.

numba is imported only when a simulation runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.estimate import mean_se, proportion
from musstats.engines.exact import CONTESTED_LANCES, NO_DEAL, STATS
from musstats.engines.random import seed_states
from musstats.engines.run import Interrupt, Progress, stopped_a_batch, threads as run_threads
from musstats.rules import checks
from musstats.rules.labels import LANCES
from musstats.rules.variant import Variant
from musstats.tables.context import Context

__all__ = ["McResult", "simulate", "CHUNK", "DEFAULT_TRIALS", "MAX_TRIALS"]

#: deals per chunk (the unit of seeding and of parallel work)
CHUNK = 1 << 16
#: trials when neither ``trials`` nor ``target_se`` is given
DEFAULT_TRIALS = 1_000_000
#: hard cap on the trials of a run (whole chunks for ``target_se``)
MAX_TRIALS = checks.MAX_TRIALS
#: chunks of the first batch (fewer with restrictions, whose cost is unknown up front)
FIRST_BATCH_CHUNKS = 16
FIRST_BATCH_CHUNKS_ALLOWED = 2
#: a batch is sized to draw about this many deals (about half a second), so that a
#: progress bar moves and Ctrl-C is honoured between batches
BATCH_ATTEMPTS = 1 << 24
_CONTESTED = STATS.index("p_contested")
_EV = STATS.index("ev_net")
_HAS_CONTESTED = np.array([lance in CONTESTED_LANCES for lance in LANCES])


@dataclass
class McResult:
    """Monte Carlo estimates for one seat.

    ``mean`` and ``se`` are float [5 lances, 5 stats] in ``LANCES`` x ``STATS`` order;
    ``p_contested`` is NaN for grande, chica and punto.  ``trials`` counts accepted deals,
    ``rejected`` the deals redrawn because of the masks.  ``seed`` reproduces the run (it is
    the drawn one when none was given).  ``partial`` is True when the run stopped before its
    goal (interrupted, or ``target_se`` not reached within ``MAX_TRIALS``).
    """

    mean: np.ndarray
    se: np.ndarray
    trials: int
    seed: int
    partial: bool
    rejected: int = 0

    @property
    def max_se(self) -> float:
        """Largest standard error over every lance and stat that applies."""
        return float(np.nanmax(self.se))


@lru_cache(maxsize=None)
def _sum_index(variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """(class weights, hand index by weight sum) of a variant's hands."""
    from musstats._kernels.mc import sum_index
    from musstats.tables.hands import hand_tables

    t = hand_tables(variant)
    return sum_index(t.cls4, t.n_classes)


def estimates(acc: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Means and standard errors [5, 5] from the kernel's integer counts [5, 6] over ``n`` trials."""
    mean = np.full((5, 5), np.nan)
    se = np.full((5, 5), np.nan)
    if n < 1:
        return mean, se
    p, p_se = proportion(acc[:, :4], n)
    mean[:, :4] = p
    se[:, :4] = p_se
    mean[~_HAS_CONTESTED, _CONTESTED] = np.nan
    se[~_HAS_CONTESTED, _CONTESTED] = np.nan
    mean[:, _EV], se[:, _EV] = mean_se(acc[:, 4], acc[:, 5], n)
    return mean, se


def simulate(ctx: Context, *, trials: int | None = None, target_se: float | None = None,
             seed: int | None = None, threads: int | None = None,
             progress: Progress | None = None) -> McResult:
    """Monte Carlo odds of every lance for the context's hand at its seat.

    ``trials``: fixed number of deals (default 1,000,000, at most ``MAX_TRIALS``); or
    ``target_se``: run batches until every standard error is below it (at most
    ``MAX_TRIALS`` deals; ``partial`` if that cap stops the run).  ``seed``: reproducible
    results (bit-identical for any thread count); without one a fresh seed is drawn and
    reported in the result.  ``threads``: numba threads for this run.  ``progress(done,
    total)`` is called after every batch.  Ctrl-C between batches returns the deals done so
    far with ``partial=True``.
    """
    from musstats._kernels.mc import HOPELESS_ATTEMPTS, mc_counts

    if ctx.seat < 0:
        raise MusError("a Monte Carlo run needs a hand and a seat")
    if ctx.variant.ten_kings:
        raise MusError("with ten kings use musstats.engines.jokers.simulate_ten_kings")
    if trials is not None and target_se is not None:
        raise MusError("give either trials or target_se, not both")
    fixed = checks.trials(trials, DEFAULT_TRIALS if target_se is None else None)
    target = checks.target_se(target_se)
    seed = checks.seed(seed)
    n_threads = checks.threads(threads)
    players = ctx.seating.players
    weights, by_sum = _sum_index(ctx.variant)
    stock = weights[np.repeat(np.arange(ctx.tables.n_classes), ctx.unseen)]
    use_allowed = ctx.allowed is not None
    allowed = ctx.allowed if use_allowed else np.ones((players, 1), np.bool_)
    team = ctx.team
    first = FIRST_BATCH_CHUNKS_ALLOWED if use_allowed else FIRST_BATCH_CHUNKS
    max_chunks = MAX_TRIALS // CHUNK
    # the running state is replaced in one assignment, so an interrupt never half-applies it
    state = (np.zeros((5, 6), np.int64), 0, 0, 0)  # acc, trials, attempts, chunks done
    partial = False
    try:
        with Interrupt() as ctrl_c, run_threads(n_threads, dynamic=True):
            while True:
                acc, n, att, done = state
                rate = n / att if att else 1.0  # acceptance so far (deterministic)
                cap = max(1, int(BATCH_ATTEMPTS * rate) // CHUNK) if done else first
                if fixed is not None:
                    total_chunks = -(-fixed // CHUNK)
                    if done >= total_chunks:
                        break
                    k = min(cap, total_chunks - done)
                    sizes = np.minimum(CHUNK, fixed - CHUNK * np.arange(done, done + k, dtype=np.int64))
                    goal = fixed
                else:
                    assert target is not None
                    if done:
                        worst = float(np.nanmax(estimates(acc, n)[1]))
                        if worst < target:
                            break
                        if done >= max_chunks:
                            partial = True
                            break
                        need_n = n * (worst / target) ** 2
                        k = min(cap, max(1, math.ceil(need_n / CHUNK) - done), max_chunks - done)
                        goal = max(int(need_n), n + CHUNK)
                    else:
                        k = cap
                        goal = k * CHUNK
                    sizes = np.full(k, CHUNK, np.int64)
                if ctrl_c.hit:  # Ctrl-C during the last batch: stop with what is done
                    if n == 0:
                        raise KeyboardInterrupt
                    partial = True
                    break
                b_acc, b_att, hopeless = mc_counts(seed_states(seed, k, done), sizes, stock, ctx.user, ctx.seat,
                                                   team, by_sum, ctx.lances, allowed, use_allowed)
                if hopeless.any():
                    raise MusError(f"{NO_DEAL} (none of {HOPELESS_ATTEMPTS:,} random deals met them)")
                state = (acc + b_acc.sum(axis=0), n + int(sizes.sum()), att + int(b_att.sum()), done + k)
                if progress is not None:
                    progress(state[1], goal)
    except (KeyboardInterrupt, SystemError) as err:
        if not stopped_a_batch(err):
            raise
        if state[1] == 0:
            raise KeyboardInterrupt from None
        partial = True
    acc, n, att, _ = state
    mean, se = estimates(acc, n)
    return McResult(mean=mean, se=se, trials=n, seed=seed, partial=partial, rejected=att - n)
