"""Measure again the NashConv of shipped strategies on more samples (issue 10).

The build measures each subgame on samples sized for build time: a pooled team that
enumerates every pair of its hands on ``EVAL_PAIR_SAMPLES`` (20,000) samples of the
opponents, the after-mus strategies on ``EVAL_DEALS`` (400,000) deals per sample set, and
rare subgames on fewer (what the evaluation streams' first blocks hold: 245,169 deals for
punto after the mus).  At those sizes the in-sample estimate is biased up and the lower
bound noisy.  This script reads the shipped strategies of the given subgames (8 reyes) and
measures their NashConv [lower bound, in-sample] on fresh samples (evaluation seed = the
solve's seed + 7, independent of the build's), in stones per lance.  Prints a Markdown table.

    python scripts/remeasure.py --deal as-dealt --info pooled [--samples 100000] [--subgames pares-15,juego-15]
    python scripts/remeasure.py --deal after-mus [--samples 2000000] [--subgames all]
    python scripts/remeasure.py --deal as-dealt --info pooled --exact [--subgames all]

``--exact`` (pooled information as dealt): the exact NashConv, each team's best response
over the exact law of the two teams' states (``pooled.pooled_exploitability``), no sampling.

As dealt, ``--samples`` are the samples per owner and sample set (the vector solver's
measurement); after the mus, the deals of each of the two sample sets (the deal solver's),
drawn for all the subgames from one pass over two fresh streams of after-mus deals.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    from musstats.base.errors import MusError
    from musstats.engines.betting import deals as D
    from musstats.engines.betting.store import Spec, get_solved
    from musstats.engines.betting.tree import subgame_text
    from musstats.rules.variant import Variant

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deal", default="as-dealt", help="as-dealt or after-mus")
    ap.add_argument("--info", default=None, help="private or pooled [as dealt: pooled; after the mus: private, "
                                                 "the one shipped]")
    ap.add_argument("--samples", type=int, default=None,
                    help="as dealt: samples per owner and sample set [100,000]; after the mus: deals per sample set "
                         "[2,000,000]")
    ap.add_argument("--subgames", default=None,
                    help="comma-separated LANCE-PATTERN, or all [as dealt: pares-15,juego-15; after the mus: all]")
    ap.add_argument("--exact", action="store_true", help="pooled information as dealt: the exact NashConv")
    a = ap.parse_args(argv)
    v = Variant()
    try:
        deal = D.check_deal(a.deal)
        info = a.info or ("private" if deal == "after-mus" else "pooled")
        spec0 = Spec(lance="grande", deal=deal, info=info, variant=v)
    except MusError as e:
        print(f"remeasure: {e}", file=sys.stderr)
        return 2
    after = deal == "after-mus"
    if a.exact and (after or info != "pooled"):
        print("remeasure: --exact is for pooled information as dealt (--deal as-dealt --info pooled)", file=sys.stderr)
        return 2
    samples = a.samples if a.samples is not None else (2_000_000 if after else 100_000)
    if samples < 2:
        print("remeasure: --samples must be at least 2", file=sys.stderr)
        return 2
    names = a.subgames or ("all" if after else "pares-15,juego-15")
    items = [f"{lance}-{pat}" for lance, pat in D.SUBGAMES] if names.strip() == "all" else names.split(",")
    specs = []
    for item in items:
        try:
            lance, pat = item.strip().rsplit("-", 1)
            spec = Spec(lance=lance, pattern=int(pat), deal=deal, info=spec0.info, variant=v)
            s = get_solved(spec, solve=False, cache=False)
        except (ValueError, MusError):
            s = None
        if s is None:
            print(f"remeasure: no shipped {deal} {spec0.info} strategy for {item.strip()!r}; accepted: all, or "
                  f"LANCE-PATTERN, e.g. pares-15 (the pattern's bits: mano 1, second 2, third 4, postre 8)",
                  file=sys.stderr)
            return 2
        specs.append((lance, spec, s))
    measure = _after_mus(specs, samples, v) if after else _as_dealt(specs, samples, v, a.exact)
    unit = "deals per sample set" if after else "samples per owner and sample set"
    print(f"{deal}, {spec0.info} information, " + ("exact" if a.exact else f"{samples:,} {unit}")
          + "; stones per lance\n")
    print("| lance | declared | shipped [lower, in-sample] | samples | again [lower, in-sample] | seconds |")
    print("|---|---|---|---|---|---|")
    for (lance, spec, s), (n, e, sec) in zip(specs, measure):
        old = s.exploit or {}
        again = (f"{e['nashconv']:.4f} (exact)" if e["exact"] else
                 f"[{e['nashconv']:.3f} ± {e['nashconv_se']:.3f}, {e['nashconv_in']:.3f} ± {e['nashconv_in_se']:.3f}]")
        print(f"| {lance} | {subgame_text(lance, spec.pattern)} "
              f"| [{old.get('nashconv', float('nan')):.3f}, {old.get('nashconv_in', float('nan')):.3f}] "
              f"| {'all' if e['exact'] else f'{n:,}'} | {again} | {sec:.0f} |", flush=True)
    return 0


def _as_dealt(specs, samples, v, exact=False):
    """(samples, exploitability dict, seconds) per subgame: the vector solver's measurement, or
    the exact one of the pooled game."""
    from musstats.engines.betting.pooled import pooled_exploitability
    from musstats.engines.betting.vector import vector_exploitability, vector_game

    for _, spec, s in specs:
        t0 = time.perf_counter()
        vg = vector_game(s.game, v, spec.pattern)
        e = (pooled_exploitability(vg, s.sigma) if exact else
             vector_exploitability(vg, s.sigma, samples, spec.seed + 7, n_pairs=samples)).to_dict()
        yield samples, e, time.perf_counter() - t0


def _after_mus(specs, samples, v):
    """(deals, exploitability dict, seconds) per subgame: the deal solver's measurement on two
    fresh after-mus streams, every subgame's deals from one pass over each."""
    from musstats.engines.betting import deals as D
    from musstats.engines.betting.exploit import exploitability
    from musstats.engines.betting.store import prepare

    seed = specs[0][1].seed + 7
    quotas = {(spec.lance, spec.pattern): samples for _, spec, _ in specs}
    t0 = time.perf_counter()
    choose = D.subgame_pools("after-mus", v, quotas, seed, D.CHOOSE_KEY, max_blocks=4096)
    value = D.subgame_pools("after-mus", v, quotas, seed, D.EVAL_KEY, max_blocks=4096)
    print(f"deals drawn in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    for lance, spec, s in specs:
        t0 = time.perf_counter()
        sg = (spec.lance, spec.pattern)
        e = exploitability(s.game, s.sigma, prepare(s.game, choose.pop(sg), v, lance),
                           prepare(s.game, value.pop(sg), v, lance)).to_dict()
        yield samples, e, time.perf_counter() - t0


if __name__ == "__main__":
    sys.exit(main())
