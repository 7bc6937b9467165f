"""Build the shipped betting strategies: musstats/data/betting_<deck>_<juego real>_<deal>_<info>.npz.

For each deal model, every lance and declaration pattern (grande, chica, the 9 contested
patterns of pares and of juego, punto) is solved with the default settings of
:mod:`musstats.engines.betting.specs` and measured on the strategy as stored: NashConv per
player, and with private information each team's deviation (a pair changing together,
seeing only its own hands) and pooled deviation (a pair seeing both its hands).  Each solved
and measured subgame is kept in the disk cache as soon as it is done, so a build that stops
(Ctrl-C, a crash) goes on where it stopped.  A progress bar shows the subgames.  Usage:

    python scripts/build_betting.py [--deal as-dealt|after-mus|both] [--info private|pooled]
                                    [--only LANCE] [--out-dir DIR] [--no-team] [--table FILE.md]
    python scripts/build_betting.py --deal cut --info mus-read --no-team   # the strategies that read who cut
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: samples per owner (as dealt) or deals (after the mus) of the team deviation's search and valuation
TEAM_SAMPLES = {"as-dealt": 50_000, "after-mus": 500_000}


def _row(spec, s) -> str:
    e = s.exploit or {}

    def pm(key, t=None):
        x, se = e.get(key), e.get(f"{key}_se")
        if x is None:
            return "–"
        if t is not None:
            x, se = x[t], se[t]
        return f"{x:.4f}" if e.get("exact") else f"{x:.4f} ± {se:.4f}"

    cells = [spec.name, str(s.game.tree.n_decisions), str(s.iterations), pm("nashconv"),
             f"{e['nashconv_in']:.4f}" if e.get("nashconv_in") is not None else "–"]
    for key in ("team_gain", "pooled_gain"):
        cells += [pm(key, 0), pm(key, 1)] if e.get(key) is not None else ["–", "–"]
    cells += [f"{e['value']:+.4f}" if e.get("value") is not None else "–", f"{s.train_seconds or 0:.0f}",
              f"{s.seconds:.0f}"]
    return "| " + " | ".join(cells) + " |"


HEADER = ("| subgame | nodes | iterations | NashConv (lower ± se) | in-sample | mano+third together | "
          "second+postre together | mano+third seeing both | second+postre seeing both | value (mano's team) | "
          "training s | total s |\n|" + "---|" * 12)


def main(argv=None) -> int:
    from musstats.engines.betting import deals as D
    from musstats.engines.betting.solve import measure_solved, solve_subgame
    from musstats.engines.betting.specs import EVAL_DEALS, Spec
    from musstats.engines.betting.store import cached, get_solved, keep, shipped_path, write_shipped
    from musstats.output.progress import ProgressBar
    from musstats.rules.variant import Variant

    ap = argparse.ArgumentParser()
    ap.add_argument("--deal", default="both", choices=["as-dealt", "after-mus", "both", "cut"],
                    help="cut: the hands played as dealt, read with who cut (goes with --info mus-read)")
    ap.add_argument("--info", default="private", choices=["private", "pooled", "mus-read"])
    ap.add_argument("--only", default=None, help="one lance (for a quick check)")
    ap.add_argument("--out-dir", default=None)
    ap.add_argument("--iterations", type=int, default=None)
    ap.add_argument("--method", default=None, help="the CFR scheme (default: the specs' own)")
    ap.add_argument("--no-team", action="store_true", help="measure per player only")
    ap.add_argument("--table", default=None, help="also write the Markdown table of the measures to this file")
    args = ap.parse_args(argv)
    v = Variant()
    deals = ["as-dealt", "after-mus"] if args.deal == "both" else [args.deal]
    tables = []
    for deal in deals:
        t0 = time.perf_counter()
        sgs = [sg for sg in D.SUBGAMES if args.only is None or sg[0] == args.only]
        kw = {} if args.iterations is None else {"iterations": args.iterations}
        if args.method:
            kw["method"] = args.method
        specs = [Spec(lance=lance, pattern=p, deal=deal, info=args.info, variant=v, **kw) for lance, p in sgs]
        team = args.info == "private" and not args.no_team
        pools = None
        # what a build that stopped kept in the disk cache, else what ships with the same key
        kept = [cached(spec) or get_solved(spec, solve=False) for spec in specs]
        todo = [sg for sg, k in zip(sgs, kept) if k is None]
        if todo and specs[0].solver == "deals":  # every subgame's deals from one pass over each stream
            pool = specs[0]._sizes()[2]
            pools = {"train": D.subgame_pools(deal, v, {sg: pool for sg in todo}, specs[0].seed, D.TRAIN_KEY),
                     "choose": D.subgame_pools(deal, v, {sg: EVAL_DEALS for sg in todo}, specs[0].seed, D.CHOOSE_KEY),
                     "eval": D.subgame_pools(deal, v, {sg: EVAL_DEALS for sg in todo}, specs[0].seed, D.EVAL_KEY)}
            print(f"{deal}: deals of {len(todo)} subgames in {time.perf_counter() - t0:.1f} s", flush=True)
        bar = ProgressBar(f"{deal} {args.info}: subgames")
        solved = []
        rows = []
        for i, (spec, sg, s) in enumerate(zip(specs, sgs, kept)):
            bar(i, len(specs))
            p = None if pools is None else {k: x[sg] for k, x in pools.items()}
            if s is None:
                s = solve_subgame(spec, pools=p, team=False)
                keep(s)
            e = s.exploit or {}
            if team and ("team_gain" not in e or "pooled_gain" not in e):
                m0 = time.perf_counter()
                s.exploit = {**e, **measure_solved(spec, s.game, s.sigma, pools=p, team=True, pooled=True,
                                                   team_samples=TEAM_SAMPLES[deal])}
                s.exploit["measure_seconds"] = round(time.perf_counter() - m0, 1)
                s.seconds += time.perf_counter() - m0
                keep(s)
            solved.append(s)
            rows.append(_row(spec, s))
            print(rows[-1], flush=True)
        bar.close()
        path = shipped_path(v, deal, args.info)
        if args.out_dir:
            path = Path(args.out_dir) / path.name
        write_shipped(solved, path)
        total = time.perf_counter() - t0
        print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB) in {total:.0f} s", flush=True)
        tables.append(f"{deal}, {args.info} information (built in {total:.0f} s; the subgames' own seconds "
                      f"sum to {sum(s.seconds for s in solved):.0f})\n\n{HEADER}\n" + "\n".join(rows))
        summary = [{"name": s.spec.name, **(s.exploit or {}), "seconds": s.seconds} for s in solved]
        Path(f"/tmp/betting_build_{deal}_{args.info}.json").write_text(json.dumps(summary, indent=1))
    if args.table:
        Path(args.table).write_text("\n\n".join(tables) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
