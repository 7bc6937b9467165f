"""Measure the shipped betting strategies again, on fresh samples (8 reyes).

The build measures each subgame on samples sized for build time.  This script reads the
shipped strategies of the given subgames and measures them on independent samples (another
sample set of the same streams), in stones per lance: NashConv per player [lower bound,
in-sample], and with ``--team`` each pair's deviation changing together (alternating best
responses), with ``--pooled`` each pair seeing both its hands.  Prints a Markdown table.

    python scripts/remeasure.py --deal as-dealt [--info private|pooled] [--samples 1000000] [--subgames all]
    python scripts/remeasure.py --deal after-mus [--samples 8000000] [--subgames punto-15,juego-7] --team
    python scripts/remeasure.py --method dcfr ...   # the individual equilibrium (strategy set "individual")
    python scripts/remeasure.py --deal cut --info mus-read --cuts equilibrium --samples 500000 --team
        # the strategies that read who cut, on the hands the mus decision's equilibrium cuts
    python scripts/remeasure.py --deal after-mus --cuts equilibrium --samples 500000
        # the after-mus strategies, on the mus rounds the mus decision's equilibrium plays

As dealt, ``--samples`` are the samples per owner and sample set (public chance sampling);
after the mus, the deals of each of the two sample sets; the pooled model as dealt is
measured exactly.  ``--exact`` (hands as dealt, private information): every measure exact
over the deals, from the teams' sums over their pairs of hands
(:class:`musstats.engines.solving.pairs.ExactPairs`; no samples, standard errors 0).

    python scripts/remeasure.py --exact [--subgames all]
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
    from musstats.engines.betting.solve import measure_solved
    from musstats.engines.betting.specs import Spec
    from musstats.engines.betting.store import get_solved
    from musstats.engines.betting.tree import subgame_text
    from musstats.rules.variant import Variant

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deal", default="as-dealt", help="as-dealt, after-mus or cut (with --info mus-read)")
    ap.add_argument("--info", default="private", help="private, pooled or mus-read")
    ap.add_argument("--samples", type=int, default=None,
                    help="as dealt: samples per owner and sample set [1,000,000]; after the mus: deals per sample set "
                         "[8,000,000]")
    ap.add_argument("--subgames", default="all", help="comma-separated LANCE-PATTERN, or all")
    ap.add_argument("--team", action="store_true", help="also each pair changing together")
    ap.add_argument("--pooled", action="store_true", help="also each pair seeing both its hands")
    ap.add_argument("--set", type=int, default=1, help="which fresh sample set (1, 2, ...) [1]")
    ap.add_argument("--exact", action="store_true",
                    help="as dealt, private: every measure exact, from the teams' pair sums (--team and --pooled "
                         "implied)")
    ap.add_argument("--cuts", default="law", choices=["law", "equilibrium"],
                    help="with --deal cut: the hands cut by the law the strategies were solved on (shipped beside them) "
                         "or by the mus decision's equilibrium; with --deal after-mus: the mus rounds of the cut flags "
                         "the strategies were solved on or of the mus decision's equilibrium [law]")
    ap.add_argument("--method", default=None,
                    help="the CFR scheme of the strategies to measure (dcfr: the individual equilibrium) [the shipped]")
    a = ap.parse_args(argv)
    v = Variant()
    try:
        deal = D.check_deal(a.deal, solved=True)
        sgs = list(D.SUBGAMES) if a.subgames == "all" else [
            (x.split("-")[0], int(x.split("-")[1])) for x in a.subgames.split(",") if x.strip()]
        kw = {} if a.method is None else {"method": a.method}
        specs = [Spec(lance=lance, pattern=p, deal=deal, info=a.info, variant=v, **kw) for lance, p in sgs]
    except (MusError, IndexError, ValueError) as e:
        print(f"remeasure: {e}", file=sys.stderr)
        return 2
    n = a.samples or (8_000_000 if deal == "after-mus" else 1_000_000)
    if a.exact and (deal != "as-dealt" or a.info != "private"):
        print("remeasure: --exact measures the hands as dealt with private information", file=sys.stderr)
        return 2
    if a.cuts != "law" and deal not in (D.CUT, "after-mus"):
        print("remeasure: --cuts picks who cuts the mus (--deal cut --info mus-read, or --deal after-mus)",
              file=sys.stderr)
        return 2
    flags = None
    if a.cuts == "equilibrium":
        from musstats.analysis.cut_game import cut_rule_flags

        flags = cut_rule_flags("equilibrium", v)
    which = "the shipped strategies" if a.method is None else f"the shipped strategies of scheme {a.method}"
    if deal == D.CUT:
        law = "the mus decision's equilibrium" if flags is not None else "the cut law shipped beside the strategies"
        cuts = f", the hands cut by {law}"
    else:
        cuts = "" if flags is None else ", the mus rounds the mus decision's equilibrium plays"
    print(f"{deal}{cuts}, {a.info} information, {which} on sample set {a.set} ({n:,} per set)\n")
    print("| lance | declared | NashConv [lower, in-sample] | mano+third together | second+postre together | "
          "mano+third seeing both | second+postre seeing both | value (mano's team) | s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for spec in specs:
        s = get_solved(spec, solve=False)
        if s is None:
            print(f"remeasure: {spec.name} is not shipped with the default settings", file=sys.stderr)
            return 2
        t0 = time.perf_counter()
        if a.exact:
            e = _exact(spec, s)
        else:
            pools = None if flags is None else _cut_pools(spec, flags, n, a.set)
            e = measure_solved(spec, s.game, s.sigma, samples=n, index=a.set, team=a.team, pooled=a.pooled,
                               pools=pools)

        def pair(key, t):
            if e.get(key) is None:
                return "–"
            return f"{e[key][t]:.4f} ± {e[key + '_se'][t]:.4f}"

        print(f"| {spec.lance} | {subgame_text(spec.lance, spec.pattern)} | "
              f"[{e['nashconv']:.4f} ± {e['nashconv_se']:.4f}, {e['nashconv_in']:.4f}] | "
              f"{pair('team_gain', 0)} | {pair('team_gain', 1)} | {pair('pooled_gain', 0)} | {pair('pooled_gain', 1)} | "
              f"{e['value']:+.4f} ± {e['value_se']:.4f} | {time.perf_counter() - t0:.0f} |", flush=True)
    return 0


def _cut_pools(spec, flags, n: int, index: int) -> dict:
    """The two measurement samples of a subgame (``n`` deals each) when the mus is cut by
    ``flags``: the measurement streams' keys; in the cut model with the seat that cut each deal,
    after the mus the deals of the rounds those flags play."""
    from musstats.engines.betting import deals as D

    sg = (spec.lance, spec.pattern)
    out = {}
    for name, key in (("choose", D.CHOOSE_KEY + 100 * index), ("eval", D.EVAL_KEY + 100 * index)):
        d = D.subgame_pools(spec.deal, spec.variant, {sg: n}, spec.seed, key, flags=flags)[sg].astype("int64")
        out[name] = (d, D.cutter(d, spec.variant, flags)) if spec.deal == D.CUT else d
    return out


def _exact(spec, s) -> dict:
    """Every measure of the stored strategy, exact from the pair sums."""
    from musstats.engines.betting.solve import solver_game
    from musstats.engines.solving.exploit import measure
    from musstats.engines.solving.pairs import ExactPairs
    from musstats.engines.solving.store import dequantise, quantise

    sg = ExactPairs(solver_game(spec, purpose="measure", samples=1_000))
    return measure(sg, dequantise(quantise(s.sigma), s.game), team=True, pooled=True).to_dict()


if __name__ == "__main__":
    raise SystemExit(main())
