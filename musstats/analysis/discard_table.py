"""The discard strategy table: best keep-set for every hand and seat, by iterated
best response (Jacobi sweeps: every entry answers the current table, then all switch)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Sequence

import numpy as np

from musstats.engines.distributed import local_runner
from musstats.engines.musphase import evaluate_keeps
from musstats.tables.context import make_context
from musstats.tables.hands import hand_cards, hand_tables
from musstats.tables.policies import get_policy, heuristic_policy, keep_options
from musstats.rules.variant import Variant

__all__ = ["SWITCH_SE", "Sweep", "StrategyTable", "best_response", "build_table", "cut_flags_for",
           "save_table"]

#: an entry switches only when the best keep-set beats its current one by this many SE
SWITCH_SE = 2.0


@dataclass
class Sweep:
    """What one iteration changed."""

    iteration: int
    changed: int
    entries: int
    mean_gain: float  # mean over all entries of (best - current) expected stones, when switching
    mean_gain_changed: float
    seconds: float


@dataclass
class StrategyTable:
    """Keep masks uint8 [4, H] and the history of the sweeps that produced them."""

    variant: Variant
    policy: np.ndarray
    sweeps: list[Sweep] = field(default_factory=list)
    trials: int = 0
    seed: int = 0
    converged: bool = False


def best_response(
    entries: Iterable[tuple[int, int]], policy: np.ndarray, variant: Variant, trials: int, seed: int,
    rounds: int = 1,
) -> list[tuple[int, int, int, float, float]]:
    """For each (seat, hand): (seat, hand, best mask, gain over the current mask, SE of the gain)."""
    out = []
    for s, h in entries:
        opts = keep_options(h, variant)
        masks = [m for m, _, _ in opts]
        cur_kept = tuple(int(variant_c) for variant_c in _kept(h, int(policy[s, h]), variant))
        cur = next(i for i, (_, k, _) in enumerate(opts) if k == cur_kept)
        ev = evaluate_keeps(make_context(variant, hand_cards(h, variant), s + 1), masks, policy, rounds=rounds,
                            trials=trials, seed=seed, spawn_key=(s, h))
        best = int(np.argmax(ev.total))
        gain = float(ev.total[best] - ev.total[cur])
        out.append((s, h, masks[best] if best != cur else int(policy[s, h]), gain, ev.diff_se(best, cur)))
    return out


def _best_response_chunk(entries: Sequence[tuple[int, int]], job: tuple) -> list:
    """:func:`best_response` of one chunk of entries; ``job`` = (policy, variant, trials, seed)."""
    policy, variant, trials, seed = job
    return best_response(entries, policy, variant, trials, seed)


def _kept(h: int, mask: int, variant: Variant) -> tuple[int, ...]:
    t = hand_tables(variant)
    return tuple(int(t.cls4[h][i]) for i in range(4) if mask >> i & 1)


def build_table(
    variant: Variant = Variant(),
    *,
    start: str = "reyes-pairs",
    trials: int = 20_000,
    max_iter: int = 8,
    seed: int = 2026,
    hands: Iterable[int] | None = None,
    seats: Iterable[int] = (0, 1, 2, 3),
    runner: Callable | None = None,
    progress: Callable[[str], None] | None = None,
) -> StrategyTable:
    """Iterated best response from the heuristic ``start`` until no entry changes beyond noise.

    ``hands``/``seats`` restrict which entries may change (the rest keep ``start``).
    ``runner(func, items, job)`` may evaluate the chunks of entries elsewhere (e.g. on a Dask
    cluster: :func:`musstats.engines.distributed.dask_runner`).
    """
    t = hand_tables(variant)
    policy = np.array(heuristic_policy(start, variant) if start != "table" else get_policy("table", variant)[0],
                      np.uint8)
    entries = [(s, h) for s in seats for h in (range(t.n_hands) if hands is None else hands)]
    table = StrategyTable(variant, policy, trials=trials, seed=seed)
    for it in range(1, max_iter + 1):
        t0 = time.perf_counter()
        chunks = [entries[i: i + 64] for i in range(0, len(entries), 64)]
        results = [r for part in (runner or local_runner)(_best_response_chunk, chunks,
                                                            (policy, variant, trials, seed)) for r in part]
        new = policy.copy()
        gains = []
        for s, h, mask, gain, se in results:
            if mask != policy[s, h] and gain > SWITCH_SE * se:
                new[s, h] = mask
                gains.append(gain)
        sweep = Sweep(it, len(gains), len(entries), float(np.sum(gains) / max(len(entries), 1)),
                      float(np.mean(gains)) if gains else 0.0, time.perf_counter() - t0)
        table.sweeps.append(sweep)
        if progress:
            progress(f"iteration {it}: {sweep.changed} of {sweep.entries} entries changed, "
                     f"mean gain {sweep.mean_gain:.4f} stones ({sweep.seconds:.0f} s)")
        policy = new
        table.policy = policy
        if sweep.changed == 0:
            table.converged = True
            break
    return table


def cut_flags_for(policy: np.ndarray, variant: Variant, trials: int = 20_000, seed: int = 2026) -> np.ndarray:
    """bool [4, H]: cutting the mus now is worth at least a mus round with the table keep-set.

    Cut now: the exact showdown; mus: the entry's keep-set with everyone else on ``policy``.
    """
    from musstats.engines.exact import ALL_STATS, exact_counts

    t = hand_tables(variant)
    ev_i = ALL_STATS.index("ev_net")
    cut = np.zeros((4, t.n_hands), bool)
    for h in range(t.n_hands):
        ctx = make_context(variant, hand_cards(h, variant), "mano")
        counts, totals = exact_counts(ctx, seats=range(4))
        for s in range(4):
            now = counts[s, :, ev_i].sum() / totals[s]
            ev = evaluate_keeps(replace(ctx, seat=s), [int(policy[s, h])], policy, trials=trials, seed=seed,
                                spawn_key=(s, h, 1))
            cut[s, h] = now >= ev.total[0]
    return cut


def save_table(table: StrategyTable, path: str, cut: np.ndarray | None = None) -> None:
    """Write the table, its history and the cut flags to ``path`` (.npz) atomically."""
    from musstats.base.files import atomic_write

    hist = np.array([[s.iteration, s.changed, s.entries, s.mean_gain, s.mean_gain_changed, s.seconds]
                     for s in table.sweeps], np.float64)
    extra = {} if cut is None else {"cut": cut}

    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            np.savez_compressed(f, policy=table.policy, history=hist, trials=table.trials,
                                seed=table.seed, converged=table.converged, **extra)  # type: ignore[arg-type]

    atomic_write(path, write)
