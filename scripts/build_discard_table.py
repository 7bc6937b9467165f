"""Regenerate the shipped discard strategy tables (musstats/data/discard_<deck>_off.npz).

Iterated best response from the "reyes-pairs" heuristic; prints, per iteration, how many
entries changed and the mean gain, and the total time.  Then the cut-the-mus flags: the
plain comparison (cut now against a mus round, on every deal; shipped), then sweeps until
they are a fixed point (a player cuts exactly when that beats a mus round on the deals in
which the other three ask for mus with these flags; recorded beside them).  Deterministic for a given seed.

    python scripts/build_discard_table.py --variant 8-reyes
"""

from __future__ import annotations

import argparse
import os
import time

from musstats.tables.policies import table_path
from musstats.analysis.discard_table import build_table, cut_fixed_point, cut_flags_for, save_table
from musstats.rules.variant import make_variant


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="8-reyes", choices=["8-reyes", "4-reyes"])
    ap.add_argument("--trials", type=int, default=20_000, help="deals per keep-set and entry")
    ap.add_argument("--max-iter", type=int, default=8)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=None, help="output .npz (default: the package data file)")
    ap.add_argument("--scheduler", default=None, help="Dask scheduler address (default: run locally)")
    ap.add_argument("--cut-only", action="store_true",
                    help="only (re)compute the cut-the-mus flags of an existing table")
    a = ap.parse_args()
    v = make_variant(a.variant)
    out = a.out or os.path.join(os.path.dirname(__file__), "..", "musstats", "data", table_path(v))
    if a.cut_only:
        import numpy as np

        from musstats.analysis.discard_table import StrategyTable, Sweep

        with np.load(out) as z:
            data = {k: z[k] for k in z.files}
        table = StrategyTable(v, data["policy"], [Sweep(*[int(x) if i < 3 else float(x) for i, x in enumerate(row)])
                                                   for row in data["history"]],
                              int(data["trials"]), int(data["seed"]), bool(data["converged"]))
        t0 = time.perf_counter()
        _cut(table, v, a, out)
        print(f"{time.perf_counter() - t0:.0f} s")
        return
    runner = None
    if a.scheduler:
        from musstats.engines.distributed import dask_runner

        runner = dask_runner(a.scheduler)
    t0 = time.perf_counter()
    table = build_table(v, trials=a.trials, max_iter=a.max_iter, seed=a.seed, runner=runner,
                        progress=lambda msg: print(msg, flush=True))
    print(f"{v.name}: {len(table.sweeps)} iterations, converged={table.converged}", flush=True)
    _cut(table, v, a, out, runner)
    print(f"{time.perf_counter() - t0:.0f} s total")


def _cut(table, v, a, out, runner=None) -> None:
    """The cut flags (the plain comparison, shipped), then their fixed point (recorded beside
    them: see README, "Who cuts the mus"); write the table with both."""
    t1 = time.perf_counter()
    plain = cut_flags_for(table.policy, v, trials=a.trials, seed=a.seed)
    print(f"plain cut flags: {int(plain.sum())} of {plain.size} entries ({time.perf_counter() - t1:.0f} s)",
          flush=True)
    fp = cut_fixed_point(table.policy, v, start=plain, trials=a.trials, seed=a.seed, runner=runner,
                         progress=lambda msg: print(msg, flush=True))
    print(f"fixed point: {int(fp.cut.sum())} of {fp.cut.size} cut (per seat {fp.cut.sum(axis=1).tolist()}), "
          f"converged={fp.converged}", flush=True)
    save_table(table, out, plain, fp)
    print(f"written to {os.path.normpath(out)}")


if __name__ == "__main__":
    main()
