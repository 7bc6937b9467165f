"""Benchmark: the kernels on a busy machine (docs/benchmarks.md, "A busy machine").

Measures, in one run, the exact odds of one hand and seat and the exact odds of a batch of
hands (the work of ``musstats plot heatmap``), with 1 and with 2 numba threads, first on a
quiet machine and then while other processes keep every core busy (one busy loop per
core, started by this script and stopped at the end).  The kernels schedule their chunks
dynamically, so with 2 threads on a loaded machine they should be no slower than 1.5x the
1-thread time, and still about 2x faster than 1 thread on a quiet machine.

Usage: ``.venv/bin/python scripts/bench_busy.py [--reps 7] [--hands 40]``
Run it on an otherwise idle machine: it makes the load itself.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from musstats.analysis.table import odds_grid
from musstats.engines.exact import exact_counts
from musstats.engines.run import threads
from musstats.rules.variant import Variant
from musstats.tables.context import make_context

from bench_exact import median_time  # scripts/ is on the path when a script runs


def measure(reps: int, hands: int) -> dict[str, float]:
    v = Variant()
    ctx = make_context(v, "R R 3 A", "mano")
    out = {}
    for n in (1, 2):
        with threads(n):
            exact_counts(ctx)  # warm
            out[f"one hand, {n} thread(s)"] = median_time(lambda: exact_counts(ctx), reps)
            out[f"{hands} hands x 4 seats, {n} thread(s)"] = median_time(lambda: odds_grid(v, hands=hands),
                                                                         max(1, reps // 3))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--hands", type=int, default=40)
    a = ap.parse_args()
    cores = os.cpu_count() or 2
    print(f"{cores} cores; medians of {a.reps} runs (batches: {max(1, a.reps // 3)})")
    quiet = measure(a.reps, a.hands)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cores)]
    try:
        time.sleep(1.0)
        loaded = measure(a.reps, a.hands)
    finally:
        for p in busy:
            p.kill()
            p.wait()
    print(f"{'':36s} {'quiet':>10s} {'loaded':>10s}")
    for k in quiet:
        print(f"{k:36s} {1000 * quiet[k]:8.1f} ms {1000 * loaded[k]:8.1f} ms")
    for what in ("one hand", f"{a.hands} hands x 4 seats"):
        q1, q2 = quiet[f"{what}, 1 thread(s)"], quiet[f"{what}, 2 thread(s)"]
        l1, l2 = loaded[f"{what}, 1 thread(s)"], loaded[f"{what}, 2 thread(s)"]
        print(f"{what}: quiet speed-up of 2 threads {q1 / q2:.2f}x; loaded, 2 threads take {l2 / l1:.2f}x "
              f"the 1-thread time (goal <= 1.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
