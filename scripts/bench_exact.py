"""Benchmark of the exact showdown engine (its speed targets: docs/benchmarks.md).

Prints medians measured in one run:
- exact odds for one hand and seat (8 reyes and 4 reyes), compiled code warm;
- all hands x 4 seats (8 reyes);
- `musstats odds R R 3 A --seat mano` end to end: first run with an empty numba
  cache, then later runs with the cache on disk;
- `musstats --help` wall time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numba

from musstats import Variant
from musstats.tables.context import make_context
from musstats.engines.exact import exact_counts
from musstats.tables.hands import hand_tables
from musstats.tables.hands import hand_cards


def median_time(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def cli_time(args: list[str], env: dict) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "musstats", *args], check=True, capture_output=True, env=env)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--skip-all", action="store_true", help="skip the all-hands run")
    a = ap.parse_args()
    print(f"numba threads: {numba.get_num_threads()}, cores: {os.cpu_count()}")
    for v in (Variant("8-reyes"), Variant("4-reyes")):
        ctx = make_context(v, "R R 3 A", "mano")
        exact_counts(ctx)  # compile / load cache
        t = median_time(lambda: exact_counts(ctx), a.reps)
        t4 = median_time(lambda: exact_counts(ctx, seats=range(4)), a.reps)
        print(f"{v.name}: one hand, one seat: {1000 * t:.1f} ms (median of {a.reps}); all 4 seats: {1000 * t4:.1f} ms")
    if not a.skip_all:
        v = Variant("8-reyes")
        t = hand_tables(v)
        start = time.perf_counter()
        for h in range(t.n_hands):
            exact_counts(make_context(v, hand_cards(h, v), "mano"), seats=range(4))
        print(f"8-reyes: all {t.n_hands} hands x 4 seats: {time.perf_counter() - start:.1f} s")
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache:
        env["NUMBA_CACHE_DIR"] = cache
        first = cli_time(["odds", "R", "R", "3", "A", "--seat", "mano"], env)
        later = statistics.median(cli_time(["odds", "R", "R", "3", "A", "--seat", "mano"], env) for _ in range(5))
    print(f"musstats odds R R 3 A --seat mano: first run (empty cache) {first:.2f} s; later runs {later:.2f} s (median of 5)")
    helpt = statistics.median(cli_time(["--help"], dict(os.environ)) for _ in range(5))
    print(f"musstats --help: {helpt:.2f} s")


if __name__ == "__main__":
    main()
