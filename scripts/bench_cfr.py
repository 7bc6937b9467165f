"""Benchmark of the betting solver: speed and time to a given NashConv.

For each subgame (lance and declaration pattern) and information model, the subgame is
trained with the shipped settings (its spec's scheme and chance) for up to ``--budget``
seconds of training, its per-player NashConv measured every ``--every`` iterations on
``--eval`` samples per owner (deals per sample set after the mus; exactly for the pooled
model) of an independent sample set.  Reported per run: iterations per second, the training
time at which NashConv first reaches 0.05 and 0.02 stones per lance by the in-sample
estimate (``in``: biased up, so a conservative time) and by the lower bound (``lo``), and
the last bracket [lower, in-sample].  Times exclude the measurements; a run stops once the
in-sample estimate is below ``--stop`` or the budget is spent.  Medians are printed at the
end with the machine load before and after; ``--json FILE`` writes every row.

    python scripts/bench_cfr.py [--lances grande,chica,punto,pares,juego] [--info private,pooled]
                                [--patterns full|all] [--deal as-dealt|after-mus] [--budget 150]
                                [--every 200] [--eval 10000] [--stop 0.015] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:  # pragma: no cover - not Linux
        return "n/a"


def main(argv=None) -> int:
    import numba

    from musstats.engines.betting import deals as D
    from musstats.engines.betting.solve import config_of, solver_game
    from musstats.engines.betting.specs import Spec
    from musstats.engines.solving.cfr import solve
    from musstats.engines.solving.exploit import nashconv
    from musstats.rules.variant import Variant

    ap = argparse.ArgumentParser()
    ap.add_argument("--lances", default="grande,chica,punto,pares,juego")
    ap.add_argument("--info", default="private")
    ap.add_argument("--patterns", default="full", choices=["full", "all"],
                    help="pares and juego: every seat declared (full) or every contested pattern (all)")
    ap.add_argument("--deal", default="as-dealt")
    ap.add_argument("--budget", type=float, default=150.0, help="seconds of training per run")
    ap.add_argument("--every", type=int, default=200)
    ap.add_argument("--eval", type=int, default=10_000)
    ap.add_argument("--stop", type=float, default=0.015)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    v = Variant()
    load0 = _load()
    t_start = time.perf_counter()
    rows = []
    for info in args.info.split(","):
        for lance in args.lances.split(","):
            pats = [p for lance2, p in D.SUBGAMES if lance2 == lance]
            if args.patterns == "full":
                pats = pats[-1:]
            for pat in pats:
                spec = Spec(lance=lance, pattern=pat, deal=args.deal, info=info, variant=v, iterations=10 ** 6)
                game = solver_game(spec)
                meas = solver_game(spec, purpose="measure", samples=args.eval, index=2)
                t_train = {"s": 0.0}
                hist: list[tuple] = []

                def evaluate(sigma, meas=meas):
                    e = nashconv(meas, meas.layout.from_game(sigma))
                    hist.append((e.nashconv, e.nashconv_se, e.nashconv_in))
                    return e.nashconv_in

                def progress(it, sec, ex):
                    t_train["s"] = sec

                s = solve(game, config_of(spec), evaluate=evaluate, eval_every=args.every, target=args.stop,
                          progress=progress, stop=lambda: t_train["s"] >= args.budget)
                marks = [(it, sec, *m) for (it, sec, _), m in zip(s.history, hist)]

                def first(th, i):
                    return next((sec for it, sec, *m in marks if m[i] <= th), float("nan"))

                last = marks[-1] if marks else (0, 0.0, float("nan"), float("nan"), float("nan"))
                r = {"subgame": spec.name, "info": info, "deal": args.deal, "scheme": spec.method,
                     "nodes": spec.tree().n_decisions, "iterations": s.iterations, "train_s": round(s.seconds, 2),
                     "it_per_s": s.iterations / max(s.seconds, 1e-9), "t05_in": first(0.05, 2),
                     "t02_in": first(0.02, 2), "t05_lo": first(0.05, 0), "t02_lo": first(0.02, 0),
                     "final_lo": last[2], "final_lo_se": last[3], "final_in": last[4], "history": marks}
                rows.append(r)
                f = lambda x: "     -" if x != x else f"{x:6.1f}"  # noqa: E731
                print(f"{spec.name:28s} {info:8s} nodes {r['nodes']:4d} {r['it_per_s']:7.1f} it/s  t(0.05) in "
                      f"{f(r['t05_in'])} lo {f(r['t05_lo'])}  t(0.02) in {f(r['t02_in'])} lo {f(r['t02_lo'])} s  "
                      f"NashConv [{r['final_lo']:.4f} ± {r['final_lo_se']:.4f}, {r['final_in']:.4f}] at "
                      f"{last[0]} it, train {r['train_s']:.1f} s", flush=True)

    def med(key, rs):
        xs = [r[key] for r in rs if r[key] == r[key]]
        return statistics.median(xs) if xs else float("nan")

    for info in args.info.split(","):
        sel = [r for r in rows if r["info"] == info]
        print(f"# {info}: {len(sel)} runs; median {med('it_per_s', sel):.1f} it/s; median t(0.05) in-sample "
              f"{med('t05_in', sel):.1f} s, t(0.02) in-sample {med('t02_in', sel):.1f} s")
    load1 = _load()
    print(f"# load average before: {load0}, after: {load1}; {numba.get_num_threads()} numba threads; wall "
          f"{time.perf_counter() - t_start:.0f} s", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"load_before": load0, "load_after": load1, "rows": rows,
                                               "threads": numba.get_num_threads(), "args": vars(args)}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
