"""Benchmark of the mus phase (issue 4 speed targets), medians of one run.

- deals with one full mus round (deal, four discards by table lookup, draws, showdown
  of all five lances) per second, one keep-set per deal, 2 threads;
- the same when the 15 keep-sets of one hand share each deal (common random numbers);
- `musstats discard` and `musstats mus` end to end, with the SE of the total they reach.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

import numba

from musstats import Variant
from musstats.rules.cards import parse_hand
from musstats.engines.musphase import evaluate_keeps
from musstats.tables.context import make_context
from musstats.tables.hands import hand_tables
from musstats.tables.policies import get_policy, keep_options


def main() -> None:
    v = Variant()
    cards = parse_hand("R C 7 A")
    policy, name = get_policy("table", v)
    opts = [m for m, _, _ in keep_options(hand_tables(v).index_of(cards), v)]
    ctx = make_context(v, cards, "mano")
    evaluate_keeps(ctx, opts[:1], policy, trials=1000, seed=1)  # compile / load cache
    n = 4_000_000
    times = []
    for r in range(5):
        t = time.perf_counter()
        evaluate_keeps(ctx, opts[:1], policy, trials=n, seed=r)
        times.append(time.perf_counter() - t)
    one = n / statistics.median(times)
    n15 = 400_000
    times = []
    for r in range(5):
        t = time.perf_counter()
        evaluate_keeps(ctx, opts, policy, trials=n15, seed=r)
        times.append(time.perf_counter() - t)
    many = n15 * len(opts) / statistics.median(times)
    print(f"threads {numba.get_num_threads()}; policy of the others: {name}")
    print(f"deals with one mus round, one keep-set each: {one / 1e6:.1f} M/s")
    print(f"keep-set evaluations with {len(opts)} keep-sets per deal: {many / 1e6:.1f} M/s")
    for cmd in (["discard", "R", "C", "7", "A", "--seat", "mano"], ["mus", "R", "C", "7", "A", "--seat", "mano"]):
        walls, ses = [], []
        for r in range(3):
            t = time.perf_counter()
            out = subprocess.run([sys.executable, "-m", "musstats", *cmd, "--seed", str(r), "--format", "json"],
                                 check=True, capture_output=True, text=True, env=dict(os.environ)).stdout
            walls.append(time.perf_counter() - t)
            doc = json.loads(out)
            ses.append(doc["keep_sets"][0]["se_total"] if cmd[0] == "discard" else doc["mus"]["se"])
        print(f"musstats {cmd[0]}: {statistics.median(walls):.2f} s wall (median of 3), "
              f"SE of the total {max(ses):.3f} stones")


if __name__ == "__main__":
    main()
