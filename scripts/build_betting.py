"""Build the shipped betting strategies: musstats/data/betting_<deck>_<juego real>_<deal>_<info>.npz.

For each deal model, every lance and declaration pattern (grande, chica, the 9 contested
patterns of pares and of juego, punto) is solved with the default settings of
:mod:`musstats.engines.betting.specs` and measured (NashConv on two independent
samples; exactly for the pooled model).  The training and evaluation deals of all subgames
come from one pass over each stream.  Usage:

    python scripts/build_betting.py [--deal as-dealt|after-mus|both] [--info private|pooled]
                                    [--only LANCE] [--scheduler ADDRESS] [--out-dir DIR] [--reuse]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    from musstats.engines.betting import deals as D
    from musstats.engines.betting.solve import solve_subgame
    from musstats.engines.betting.specs import EVAL_DEALS, Spec
    from musstats.engines.betting.store import get_solved, shipped_path, write_shipped
    from musstats.rules.variant import Variant

    ap = argparse.ArgumentParser()
    ap.add_argument("--deal", default="both", choices=["as-dealt", "after-mus", "both"])
    ap.add_argument("--info", default="private", choices=["private", "pooled"])
    ap.add_argument("--only", default=None, help="one lance (for a quick check)")
    ap.add_argument("--out-dir", default=None)
    ap.add_argument("--iterations", type=int, default=None)
    ap.add_argument("--scheduler", default=None, help="a Dask scheduler address: one task per subgame")
    ap.add_argument("--reuse", action="store_true",
                    help="take the subgames already solved with the same key (shipped or in the disk cache, e.g. "
                         "by scripts/value_gap.py; after the mus: shipped) instead of solving them again")
    args = ap.parse_args(argv)
    runner = None
    if args.scheduler:
        from musstats.engines.distributed import dask_runner

        runner = dask_runner(args.scheduler)
    v = Variant()
    deals = ["as-dealt", "after-mus"] if args.deal == "both" else [args.deal]
    for deal in deals:
        t0 = time.perf_counter()
        sgs = [sg for sg in D.SUBGAMES if args.only is None or sg[0] == args.only]
        kw = {} if args.iterations is None else {"iterations": args.iterations}
        specs = [Spec(lance=l, pattern=p, deal=deal, info=args.info, variant=v, **kw) for l, p in sgs]
        if specs[0].solver == "deals":  # deal sampling trains on pools of deals; the vector solver samples
            kept = [get_solved(spec, solve=False, cache=False) if args.reuse else None for spec in specs]
            todo = [sg for sg, k in zip(sgs, kept) if k is None]
            pool = specs[0].pool
            train = D.subgame_pools(deal, v, {sg: pool for sg in todo}, specs[0].seed, D.TRAIN_KEY)
            choose = D.subgame_pools(deal, v, {sg: EVAL_DEALS for sg in todo}, specs[0].seed, D.CHOOSE_KEY)
            evals = D.subgame_pools(deal, v, {sg: EVAL_DEALS for sg in todo}, specs[0].seed, D.EVAL_KEY)
            print(f"{deal}: deals of {len(todo)} subgames in {time.perf_counter() - t0:.1f} s", flush=True)
            solved = [k if k is not None else
                      solve_subgame(spec, pools={"train": train[sg], "choose": choose[sg], "eval": evals[sg]})
                      for spec, sg, k in zip(specs, sgs, kept)]
        else:  # independent solves: here, or one Dask task each
            from musstats.engines.betting.runner import solve_many

            solved = solve_many(specs, runner, use_cache=args.reuse)
        for spec, s in zip(specs, solved):
            e = s.exploit
            train_n = e.get("train_deals", e.get("train_samples", 0))
            print(f"{deal} {args.info} {spec.name:28s} {spec.solver} nodes {s.game.tree.n_decisions:4d} train {train_n:8d} "
                  f"eval {e['deals']:7d} NashConv {e['nashconv']:.4f} ± {e['nashconv_se']:.4f} "
                  f"(in-sample {e['nashconv_in']:.4f}" + (f", as solved {e['nashconv_unquantised']:.4f}"
                                                          if "nashconv_unquantised" in e else "")
                  + f") value {e['value']:+.4f} {s.seconds:6.1f} s (training {s.train_seconds} s)", flush=True)
        path = shipped_path(v, deal, args.info)
        if args.out_dir:
            path = Path(args.out_dir) / path.name
        write_shipped(solved, path)
        print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB) in {time.perf_counter() - t0:.0f} s", flush=True)
        summary = [{"name": s.spec.name, **(s.exploit or {}), "seconds": s.seconds} for s in solved]
        Path(f"/tmp/betting_build_{deal}_{args.info}.json").write_text(json.dumps(summary, indent=1))
    if runner is not None:
        runner.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
