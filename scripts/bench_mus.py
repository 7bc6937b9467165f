"""Benchmark of the mus phase (its speed targets: docs/benchmarks.md), medians of one run.

- deals with one full mus round (deal, four discards by table lookup, draws, showdown
  of all five lances) per second, one keep-set per deal, 2 threads;
- the same when the 15 keep-sets of one hand share each deal (common random numbers);
- deals in which the other three ask for mus (drawn among their asking hands), cutting
  and one keep-set per deal, with the shipped flags and with the sparse flags of the
  recorded cut fixed point, beside the share of such deals;
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
    _bench_others_ask(cards, opts[0], policy, v)
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


def _bench_others_ask(cards, mask: int, policy, v) -> None:
    """Deals per second given that the other three ask for mus, for two sets of cut flags."""
    from importlib import resources

    import numpy as np

    from musstats._kernels.mus import NO_MUS
    from musstats.tables.policies import cut_flags, table_path

    with resources.files("musstats").joinpath("data", table_path(v)).open("rb") as f:
        fixed = np.load(f)["cut_fixed"]
    for name, flags, seat in (("shipped flags", cut_flags(v), "mano"), ("fixed-point flags, at second", fixed, "second")):
        c = make_context(v, cards, seat)
        evaluate_keeps(c, [NO_MUS, mask], policy, trials=1000, seed=1, others_ask=True, cut=flags)
        n = 400_000
        times, share = [], 0.0
        for r in range(5):
            t = time.perf_counter()
            ev = evaluate_keeps(c, [NO_MUS, mask], policy, trials=n, seed=r, others_ask=True, cut=flags)
            times.append(time.perf_counter() - t)
            share = ev.p_deal_kept
        print(f"deals given the others ask, {name}: {n / statistics.median(times) / 1e6:.2f} M/s "
              f"(cut and one keep-set each; the others all ask in {100 * share:.2f} % of deals)")


if __name__ == "__main__":
    main()
