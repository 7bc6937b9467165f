"""The discard strategy table: best keep-set for every hand and seat, by iterated
best response (Jacobi sweeps: every entry answers the current table, then all switch)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Sequence

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.distributed import local_runner
from musstats.engines.musphase import evaluate_keeps
from musstats.tables.context import make_context
from musstats.tables.hands import hand_cards, hand_tables
from musstats.tables.policies import get_policy, heuristic_policy, keep_options
from musstats.rules.variant import Variant

__all__ = ["SWITCH_SE", "CUT_VALUES", "Sweep", "StrategyTable", "CutFixedPoint", "best_response", "build_table",
           "cut_flags_for", "cut_response", "cut_fixed_point", "save_table"]

#: an entry switches only when the best keep-set beats its current one by this many SE
SWITCH_SE = 2.0
#: how the cut comparison values a deal: its stones en paso, or with every lance bet by the
#: shipped equilibrium strategies (:func:`musstats.analysis.play.hand_values`: those for hands
#: as dealt when cutting, those for hands after one mus round after it)
CUT_VALUES = ("paso", "betting")


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


def cut_flags_for(policy: np.ndarray, variant: Variant, trials: int = 20_000, seed: int = 2026,
                  hands: Iterable[int] | None = None) -> np.ndarray:
    """bool [4, H]: cutting the mus now is worth at least a mus round with the table keep-set,
    on every deal (the plain comparison; the start of :func:`cut_fixed_point`).

    Cut now: the exact showdown; mus: the entry's keep-set with everyone else on ``policy``.
    ``hands``: only these (the other entries stay False).
    """
    from musstats.engines.exact import ALL_STATS, exact_counts

    t = hand_tables(variant)
    ev_i = ALL_STATS.index("ev_net")
    cut = np.zeros((4, t.n_hands), bool)
    for h in range(t.n_hands) if hands is None else hands:
        ctx = make_context(variant, hand_cards(h, variant), "mano")
        counts, totals = exact_counts(ctx, seats=range(4))
        for s in range(4):
            now = counts[s, :, ev_i].sum() / totals[s]
            ev = evaluate_keeps(replace(ctx, seat=s), [int(policy[s, h])], policy, trials=trials, seed=seed,
                                spawn_key=(s, h, 1))
            cut[s, h] = now >= ev.total[0]
    return cut


def cut_response(
    entries: Iterable[tuple[int, int]], policy: np.ndarray, cut: np.ndarray, variant: Variant, trials: int,
    seed: int, values: str = "paso",
) -> list[tuple[int, int, float, float]]:
    """For each (seat, hand): (seat, hand, gain of cutting over a mus round, its SE) in stones,
    on the deals in which the other three ask for mus with the flags ``cut`` [4, H].

    Cutting: nobody changes cards; the mus round: the entry's keep-set of ``policy``, the
    others too.  Both on the same deals (common random numbers), valued by ``values``
    (:data:`CUT_VALUES`: en paso, or with the shipped equilibrium betting of every lance,
    which knows nothing of who asked for mus).  When the hand leaves some other seat no hand
    he would ask with, the mus never happens and the choice does not matter: gain 0 with SE 0."""
    from musstats._kernels.mus import NO_MUS

    if values not in CUT_VALUES:
        raise MusError(f"unknown cut values {values!r}; accepted: {', '.join(CUT_VALUES)}")
    bet = values == "betting"
    out: list[tuple[int, int, float, float]] = []
    recorded: list[tuple[int, int, int, np.ndarray]] = []  # (position, seat, hand, hands [n, 2, 4])
    for s, h in entries:
        ctx = make_context(variant, hand_cards(h, variant), s + 1)
        try:
            ev = evaluate_keeps(ctx, [NO_MUS, int(policy[s, h])], policy, trials=trials, seed=seed,
                                spawn_key=(s, h, 2), others_ask=True, cut=cut, record_hands=bet)
        except MusError:
            out.append((s, h, 0.0, 0.0))
            continue
        if bet:
            assert ev.hands is not None
            recorded.append((len(out), s, h, ev.hands))
            out.append((s, h, 0.0, 0.0))
        else:
            out.append((s, h, float(ev.total[0] - ev.total[1]), ev.diff_se(0, 1)))
    if recorded:  # one valuation of every deal of the entries (the strategies' setup is shared)
        from musstats.analysis.play import hand_values

        # cutting keeps the hands as dealt, the mus round changes them: each side by its strategies
        team0 = [hand_values(np.concatenate([r[3][:, k] for r in recorded]), variant, "equilibrium", "equilibrium",
                             deal) for k, deal in enumerate(("as-dealt", "after-mus"))]
        at = 0
        for i, s, h, hands in recorded:
            n = hands.shape[0]
            v = np.stack([t0[at: at + n] for t0 in team0], axis=1)
            at += n
            d = (v[:, 0] - v[:, 1]) * (1.0 if s % 2 == 0 else -1.0)  # the seat's team: cut minus mus
            out[i] = (s, h, float(d.mean()), float(d.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0)
    return out


def _cut_response_chunk(entries: Sequence[tuple[int, int]], job: tuple) -> list:
    """:func:`cut_response` of one chunk of entries; ``job`` = (policy, cut, variant, trials, seed,
    values)."""
    return cut_response(entries, *job)


@dataclass
class CutFixedPoint:
    """Cut flags bool [4, H] after the sweeps (a fixed point when ``converged``), and the sweeps."""

    cut: np.ndarray
    sweeps: list[Sweep] = field(default_factory=list)
    trials: int = 0
    seed: int = 0
    converged: bool = False
    values: str = "paso"


def cut_fixed_point(
    policy: np.ndarray,
    variant: Variant = Variant(),
    *,
    start: np.ndarray | None = None,
    trials: int = 20_000,
    seed: int = 2026,
    max_iter: int = 30,
    runner: Callable | None = None,
    progress: Callable[[str], None] | None = None,
    values: str = "paso",
) -> CutFixedPoint:
    """Cut flags as a fixed point: a player cuts exactly when cutting beats a mus round on the
    deals in which the other three ask for mus with these same flags.

    Sweeps from ``start`` (default :func:`cut_flags_for`'s plain comparison, which ignores
    who asks), seat after seat: every hand of the seat answers the other seats' current
    flags (a seat's own flags do not enter its comparison, so this is his best response),
    a flag switching only when the other choice is better by more than :data:`SWITCH_SE`
    standard errors; until a whole sweep changes nothing (``converged``) or ``max_iter``.
    ``values``: how the comparison values a deal (:data:`CUT_VALUES`)."""
    t = hand_tables(variant)
    cut = np.array(cut_flags_for(policy, variant, trials, seed) if start is None else start, bool)
    fp = CutFixedPoint(cut.copy(), trials=trials, seed=seed, values=values)
    for it in range(1, max_iter + 1):
        t0 = time.perf_counter()
        gains = []
        for s in range(4):
            entries = [(s, h) for h in range(t.n_hands)]
            chunks = [entries[i: i + 64] for i in range(0, len(entries), 64)]
            results = [r for part in (runner or local_runner)(_cut_response_chunk, chunks,
                                                                (policy, cut, variant, trials, seed, values))
                       for r in part]
            new = cut.copy()
            for _, h, gain, se in results:
                if abs(gain) > SWITCH_SE * se and (gain > 0) != cut[s, h]:
                    new[s, h] = gain > 0
                    gains.append(abs(gain))
            cut = new
        n = 4 * t.n_hands
        sweep = Sweep(it, len(gains), n, float(np.sum(gains) / n), float(np.mean(gains)) if gains else 0.0,
                      time.perf_counter() - t0)
        fp.sweeps.append(sweep)
        fp.cut = cut
        if progress:
            progress(f"cut sweep {it}: {sweep.changed} of {n} flags switched ({int(cut.sum())} cut, per seat "
                     f"{cut.sum(axis=1).tolist()}), "
                     f"mean gain {sweep.mean_gain:.4f} stones ({sweep.seconds:.0f} s)")
        if sweep.changed == 0:
            fp.converged = True
            break
    return fp


def _history(sweeps: Sequence[Sweep]) -> np.ndarray:
    return np.array([[s.iteration, s.changed, s.entries, s.mean_gain, s.mean_gain_changed, s.seconds]
                     for s in sweeps], np.float64).reshape(-1, 6)


def save_table(table: StrategyTable, path: str, cut: np.ndarray | None = None,
               fixed: CutFixedPoint | None = None) -> None:
    """Write the table, its history, the cut flags (``cut``, what :func:`cut_flags` reads) and
    their fixed point with its sweeps (``cut_fixed``, ``cut_history``, ``cut_converged``) to
    ``path`` (.npz) atomically."""
    from musstats.base.files import write_npz

    hist = _history(table.sweeps)
    extra: dict = {} if cut is None else {"cut": cut}
    if fixed is not None:
        extra.update(cut_fixed=fixed.cut, cut_history=_history(fixed.sweeps), cut_converged=fixed.converged)
    write_npz(path, dict(policy=table.policy, history=hist, trials=table.trials, seed=table.seed,
                         converged=table.converged, **extra))
