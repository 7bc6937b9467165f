"""Ten kings engines: Monte Carlo odds with jokers, and deals with every joker fixed.

The identity options of each hand are :func:`musstats.tables.jokers.joker_tables`; how a
holder fixes his jokers is the kernel :func:`musstats._kernels.jokers.fix_jokers` (rule in
docs/rules.md, "Ten kings": each holder maximises his team's net stones at the count en
paso, in seat order, the earlier holder anticipating the later one's answer; ties keep
reyes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.estimate import mean_se, proportion
from musstats.engines.exact import NO_DEAL
from musstats.engines.random import seed_states
from musstats.engines.run import Progress, run_batches
from musstats.rules import checks
from musstats.rules.seats import team_array
from musstats.rules.variant import Variant
from musstats.tables.context import Context
from musstats.tables.jokers import joker_tables
from musstats.tables.kernel import lance_table

__all__ = ["JokerOdds", "simulate_ten_kings", "showdown_counts", "resolve_deals", "CHUNK", "IDENTITY_RULE"]

#: deals per chunk (the unit of seeding and of parallel work)
CHUNK = 1 << 14
#: chunks per batch (about half a second): Ctrl-C and the progress bar act between batches
BATCH_CHUNKS = 64
#: what the kernel computes, in words (printed in every result with ten kings)
IDENTITY_RULE = ("each holder fixes his jokers to maximise his team's net stones (ours minus theirs) at "
                 "the count en paso; holders choose in seat order from mano, the earlier one anticipating "
                 "the later one's answer; ties keep the option with more reyes")


@dataclass
class JokerOdds:
    """Monte Carlo odds with jokers: mean and SE [5 lances, 5 stats] (``STATS`` order) and the
    integer counts [5, 7] (team, self, played, contested, ev sum, ev sum of squares, team and
    contested)."""

    mean: np.ndarray
    se: np.ndarray
    trials: int
    seed: int
    partial: bool = False
    counts: np.ndarray | None = None


def simulate_ten_kings(ctx: Context, *, trials: int = 1_000_000, seed: int | None = None,
                       fixed_option: int = -1, threads: int | None = None,
                       progress: Progress | None = None) -> JokerOdds:
    """Per-lance odds with ten kings by Monte Carlo; ``fixed_option`` (>= 0) fixes the user's
    jokers to that identity option instead of letting him choose per deal.  Ctrl-C between
    batches returns the deals done so far, ``partial``."""
    from musstats._kernels.jokers import tk_counts

    if ctx.seat < 0:
        raise MusError("a Monte Carlo run needs a hand and a seat")
    trials = checks.whole(trials, "trials", 1, checks.MAX_TK_TRIALS)
    seed = checks.seed(seed)
    n_threads = checks.threads(threads)
    t = ctx.tables
    stock = np.repeat(np.arange(t.n_classes), ctx.unseen).astype(np.int64)
    use = ctx.allowed is not None
    al = np.ascontiguousarray(ctx.allowed if use else np.ones((4, t.n_hands), bool), np.bool_)
    n_chunks = -(-trials // CHUNK)
    per = np.minimum(CHUNK, trials - CHUNK * np.arange(n_chunks, dtype=np.int64))
    acc = np.zeros((5, 7), np.int64)

    def step(start: int, k: int) -> None:
        nonlocal acc
        b_acc, _ = tk_counts(seed_states(seed, k, start), per[start: start + k], stock, ctx.user, ctx.seat,
                             int(fixed_option), t.n_classes, t.idx4.astype(np.int64), ctx.jokers.n_options,
                             ctx.jokers.base, ctx.team, ctx.lances, al, use)
        acc = acc + b_acc.sum(axis=0)
        if use and acc[0, 2] == 0:
            raise MusError(NO_DEAL)

    done_chunks, partial = run_batches(n_chunks, BATCH_CHUNKS, step, n_threads=n_threads, progress=None if progress is None
                                       else lambda d: progress(int(per[:d].sum()), trials))
    n = int(per[:done_chunks].sum())
    mean = np.full((5, 5), np.nan)
    se = np.full((5, 5), np.nan)
    mean[:, :4], se[:, :4] = proportion(acc[:, :4], n)
    mean[[0, 1, 4], 3] = np.nan
    se[[0, 1, 4], 3] = np.nan
    mean[:, 4], se[:, 4] = mean_se(acc[:, 4], acc[:, 5], n)
    return JokerOdds(mean, se, n, seed, partial, acc)


def showdown_counts(ctx: Context, seats=(0, 1, 2, 3), *, trials: int = 400_000,
                    seed: int = 2026) -> tuple[np.ndarray, np.ndarray]:
    """Numerators [seat, lance, stat] (``musstats.engines.exact.ALL_STATS`` order) and denominators
    [seat] of the context's hand at each seat index of ``seats``.

    Exact integers for the plain game; Monte Carlo counts (``trials`` deals per seat, fixed
    seed) with ten kings.  Probabilities are numerators / denominators either way.
    """
    from dataclasses import replace

    from musstats.engines.exact import exact_counts

    if not ctx.variant.ten_kings:
        return exact_counts(ctx, seats=seats)
    out = np.zeros((4, 5, 6), np.float64)
    totals = np.zeros(4, np.float64)
    for s in seats:
        r = simulate_ten_kings(replace(ctx, seat=s), trials=trials, seed=seed)
        assert r.counts is not None
        # kernel columns: team, self, played, contested, ev sum, ev sq, team and contested
        out[s] = r.counts[:, [0, 1, 2, 3, 4, 6]]
        totals[s] = r.trials
    return out, totals


def resolve_deals(deals: np.ndarray, variant: Variant) -> np.ndarray:
    """Plain hand indices (``hand_tables(variant.lance_rules)``) of ten-kings deals [N, 4]."""
    from musstats._kernels.jokers import resolve_deals as _kernel

    jt = joker_tables(variant)
    return _kernel(np.ascontiguousarray(deals, np.int64), jt.n_options, jt.base, team_array(4),
                   lance_table(variant))
