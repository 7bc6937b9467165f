"""Measure again the NashConv of shipped pooled strategies on more samples (issue 10).

A pooled team that enumerates every pair of its hands is evaluated at build time on
``EVAL_PAIR_SAMPLES`` (20,000) samples of the opponents; the in-sample estimate is
biased up and the lower bound noisy at that size.  This script reads the shipped
strategies of the given subgames (8 reyes, hands as dealt, pooled information) and
measures their NashConv [lower bound, in-sample] on ``--samples`` fresh samples per
owner (evaluation seed = the solve's seed + 7, independent of the build's), in stones
per lance.  Prints a Markdown table.

    python scripts/remeasure_pooled.py [--samples 100000] [--subgames pares-15,juego-15]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    from musstats.base.errors import MusError
    from musstats.engines.betting.store import Spec, get_solved
    from musstats.engines.betting.tree import subgame_text
    from musstats.engines.betting.vector import vector_exploitability, vector_game
    from musstats.rules.variant import Variant

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=100_000, help="samples per owner and sample set")
    ap.add_argument("--subgames", default="pares-15,juego-15", help="comma-separated LANCE-PATTERN")
    a = ap.parse_args(argv)
    v = Variant()
    if a.samples < 1:
        print("remeasure_pooled: --samples must be at least 1", file=sys.stderr)
        return 2
    specs = []
    for item in a.subgames.split(","):
        try:
            lance, pat = item.strip().rsplit("-", 1)
            spec = Spec(lance=lance, pattern=int(pat), deal="as-dealt", info="pooled", variant=v)
            s = get_solved(spec, solve=False, cache=False)
        except (ValueError, MusError):
            s = None
        if s is None:
            print(f"remeasure_pooled: no shipped pooled strategy for {item.strip()!r}; accepted: LANCE-PATTERN, "
                  f"e.g. pares-15 (the pattern's bits: mano 1, second 2, third 4, postre 8)", file=sys.stderr)
            return 2
        specs.append((lance, spec, s))
    print("| lance | declared | shipped [lower, in-sample] | samples | again [lower, in-sample] | seconds |")
    print("|---|---|---|---|---|---|")
    for lance, spec, s in specs:
        t0 = time.perf_counter()
        e = vector_exploitability(vector_game(s.game, v, spec.pattern), s.sigma, a.samples, spec.seed + 7,
                                  n_pairs=a.samples).to_dict()
        old = s.exploit or {}
        print(f"| {lance} | {subgame_text(lance, spec.pattern)} "
              f"| [{old.get('nashconv', float('nan')):.3f}, {old.get('nashconv_in', float('nan')):.3f}] "
              f"| {a.samples:,} | [{e['nashconv']:.3f} ± {e['nashconv_se']:.3f}, {e['nashconv_in']:.3f} ± "
              f"{e['nashconv_in_se']:.3f}] | {time.perf_counter() - t0:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
