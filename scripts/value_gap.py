"""The value gap between the two information models, per lance (hands as dealt, 8 reyes).

For every subgame: the value of the lance for team 0 (mano's team) with private
information (the shipped strategies) and with pooled information (each team sees both its
hands; solved here with ``--iterations``, then cached), the gap pooled − private, its Monte
Carlo error, and the sum of the two solutions' in-sample NashConv (how far each value can be
from the game's).  Prints a Markdown table (the README's).  Usage:

    python scripts/value_gap.py [--iterations N] [--eval-samples N] [--lance L]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    from musstats.analysis.betting import value_gap_table

    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=None, help="pooled solves (default: the solver's)")
    ap.add_argument("--eval-samples", type=int, default=None,
                    help="samples per owner of each NashConv estimate (default: the shipped strategies', 100,000)")
    ap.add_argument("--lance", default=None)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()

    def progress(done: int, total: int) -> None:
        print(f"  {done}/{total} subgames, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)

    df = value_gap_table(lance=args.lance, iterations=args.iterations, eval_samples=args.eval_samples,
                         progress=progress)
    print("| lance | declared | private value | NashConv private [lower, in-sample] | pooled value "
          "| NashConv pooled | gap pooled − private | bound | pooled s (training) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in df.itertuples():
        pooled = (f"{r.value_pooled:+.4f} (exact) | {r.nashconv_pooled:.4f} (exact)" if r.pooled_exact else
                  f"{r.value_pooled:+.3f} ± {r.value_pooled_se:.3f} | [{r.nashconv_pooled:.3f}, "
                  f"{r.nashconv_pooled_in:.3f}]")
        print(f"| {r.lance} | {r.pattern} | {r.value_private:+.3f} ± {r.value_private_se:.3f} "
              f"| [{r.nashconv_private:.3f}, {r.nashconv_private_in:.3f}] | {pooled} "
              f"| **{r.gap:+.3f} ± {r.gap_se:.3f}** | {r.gap_bound:.3f} | {r.seconds_pooled:.0f} "
              f"({r.train_seconds_pooled or float('nan'):.0f}) |")
    print(f"\n{len(df)} subgames, pooled iterations {int(df.iterations_pooled.iloc[0])}, "
          f"{time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
