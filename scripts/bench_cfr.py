"""Benchmark of the betting solver (issue 10): speed and time to a given NashConv.

For each subgame (lance and declaration pattern) and information model, the subgame is
trained with the settings of the shipped strategies (:data:`SOLVER_DEFAULTS` of
``musstats.engines.betting.store``) for up to ``--budget`` seconds of training, and its
exploitability is measured every ``--every`` iterations (on ``--eval`` fresh samples of
the other hands per owner for the vector solver, on two samples of ``--eval`` deals for
the deal solver).  Reported per run:

* speed: iterations per second and samples (vector: samples of the other three hands,
  each enumerating one seat's hands -- of the two opponents' hands for a pooled team, each
  enumerating every pair of the team's hands; deals: deal traversals) per second of training;
  the pooled model (the exact solver: full width, its NashConv exact) counts iterations, and its
  times include computing the law of the teams' states;
* the training time at which NashConv first reaches 0.05 and 0.02 stones per lance, by the
  in-sample estimate (``in``: biased up, so a conservative time) and by the out-of-sample
  one (``lo``: a lower bound of the true NashConv); "-" when not reached in the budget;
* the last measured bracket [lower, in-sample] with the standard errors.

Times exclude the measurements.  A run stops once the in-sample estimate is below
``--stop`` (default 0.015) or the budget is spent.

``--snapshots 30,60,120`` measures instead the strategies reached after those seconds of
training, once the training is over, each on ``--snapshot-eval`` samples per owner (vector;
deals per sample set for the deal solver; pooled teams on ``--eval-pairs``): on a million
samples the bracket [lower, in-sample] closes to a few thousandths, so the time to a NashConv
is read from a tight measurement instead of the biased in-sample estimate of a small one.  Medians over the runs of this one
invocation are printed at the end, with the machine load before and after (``uptime``)
and the numba threads.  ``--json FILE`` writes every row.

    python scripts/bench_cfr.py [--lances grande,chica,punto,pares,juego] [--info private,pooled]
                                [--patterns all|full] [--deal as-dealt|after-mus] [--budget 150]
                                [--every 100] [--eval 10000] [--eval-pairs 2000] [--json FILE]
    python scripts/bench_cfr.py --snapshots 30,60,120 --snapshot-eval 1000000 [--budget 120] ...
"""

from __future__ import annotations

import argparse
import json
import os
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
    import numpy as np

    from musstats.engines.betting import deals as D
    from musstats.engines.betting.exploit import exploitability
    from musstats.engines.betting.solver import SolveConfig, solve_game
    from musstats.engines.betting.store import Spec, _samples, prepare
    from musstats.engines.betting.tree import pattern_text
    from musstats.engines.betting.vector import solve_vector, vector_exploitability, vector_game
    from musstats.rules.variant import Variant

    ap = argparse.ArgumentParser()
    ap.add_argument("--lances", default="grande,chica,punto,pares,juego")
    ap.add_argument("--info", default="private,pooled")
    ap.add_argument("--patterns", default="all", choices=["all", "full"],
                    help="pares and juego: every contested declaration pattern, or only all four holding")
    ap.add_argument("--deal", default="as-dealt")
    ap.add_argument("--budget", type=float, default=150.0, help="seconds of training per run at most")
    ap.add_argument("--every", type=int, default=100, help="iterations between measurements")
    ap.add_argument("--eval", type=int, default=10_000, help="samples (vector) or deals (deals) per measurement")
    ap.add_argument("--eval-pairs", type=int, default=2_000,
                    help="samples of the opponents per pooled team and measurement (each enumerates every pair "
                         "of the team's hands)")
    ap.add_argument("--stop", type=float, default=0.015, help="stop once the in-sample NashConv is below this")
    ap.add_argument("--snapshots", default=None,
                    help="comma-separated seconds of training: measure the strategies reached then, after training")
    ap.add_argument("--snapshot-eval", type=int, default=1_000_000,
                    help="samples (vector) or deals (deals) per owner and sample set for each snapshot")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    snaps = sorted(float(x) for x in args.snapshots.split(",")) if args.snapshots else []
    if snaps:
        args.budget = max(args.budget, snaps[-1])
    v = Variant()
    lances = args.lances.split(",")
    sgs = [sg for sg in D.SUBGAMES if sg[0] in lances and (args.patterns == "all" or sg[1] == 15)]
    load0 = _load()
    print(f"# load average before: {load0}; numba threads {numba.get_num_threads()}, threading layer "
          f"{os.environ.get('NUMBA_THREADING_LAYER', 'default')}; budget {args.budget:g} s per run", flush=True)
    rows = []
    t_start = time.perf_counter()
    for lance, pat in sgs:
        for info in args.info.split(","):
            spec = Spec(lance=lance, pattern=pat, deal=args.deal, info=info, variant=v)
            game = spec.game()
            name = lance + ("" if lance in ("grande", "chica", "punto") else " " + pattern_text(pat))
            marks: list[tuple[int, float, float, float, float, float]] = []
            stop_flag = {"stop": False}
            t_train = {"s": 0.0}

            taken: list[list] = []  # [checkpoint, seconds of training, strategy]

            s_hist: list[float] = []  # the exact solver's NashConv so far

            def progress(it, sec, ex):
                t_train["s"] = sec
                if ex is not None and spec.solver == "exact":
                    s_hist.append(ex)
                for tk in taken:  # a snapshot taken in this iteration's evaluate: its training time
                    if tk[1] is None:
                        tk[1] = sec

            def snapshot(sig):
                # called every --every iterations, before progress; t_train = the time at the previous call
                if len(taken) < len(snaps) and t_train["s"] >= snaps[len(taken)]:
                    taken.append([snaps[len(taken)], None, sig.copy()])
                    while len(taken) < len(snaps) and t_train["s"] >= snaps[len(taken)]:
                        taken.append([snaps[len(taken)], None, taken[-1][2]])
                return float("nan")

            if spec.solver == "exact":  # pooled information: full width, the exact NashConv every --every
                from musstats.engines.betting.pooled import pooled_law, solve_pooled

                vg = vector_game(game, v, pat, pair_tables=False)
                l0 = time.perf_counter()
                pooled_law(vg)
                law_s = time.perf_counter() - l0
                s = solve_pooled(vg, SolveConfig(iterations=10 ** 7, method=spec.method), evaluate_every=args.every,
                                 progress=progress, stop=lambda: t_train["s"] >= args.budget
                                 or (bool(s_hist) and s_hist[-1] < args.stop))
                marks[:] = [(0, 0.0, nc, 0.0, nc, 0.0) for _, _, nc in s.history]  # lower = in-sample = exact
                per_it, unit = 1, "iterations"
                s.history = [(it, sec + law_s, nc) for it, sec, nc in s.history]
            elif spec.solver == "vector":
                vg = vector_game(game, v, pat)

                def evaluate(sig):
                    if snaps:
                        return snapshot(sig)
                    e = vector_exploitability(vg, sig, args.eval, spec.seed, key_offset=200, n_pairs=args.eval_pairs)
                    marks.append((0, 0.0, e.nashconv, e.nashconv_se, e.nashconv_in, e.nashconv_in_se))
                    if e.nashconv_in < args.stop:
                        stop_flag["stop"] = True
                    return e.nashconv_in

                solve_vector(vg, SolveConfig(iterations=2), 16, 1)  # compile
                s = solve_vector(vg, SolveConfig(iterations=10 ** 7, method=spec.method), spec.batch, spec.seed,
                                 evaluate=evaluate, eval_every=args.every, progress=progress,
                                 stop=lambda: stop_flag["stop"] or t_train["s"] >= args.budget)
                per_it = spec.batch * sum(1 for k in range(vg.n_owners) if vg.own_nodes[k].shape[0])
                unit = "samples"
            else:
                sg = (lance, pat)
                tr = D.subgame_pools(args.deal, v, {sg: spec.pool}, spec.seed, D.TRAIN_KEY)[sg]
                st, o, _ = prepare(game, tr, v, lance)
                A, B = _samples(spec, game, args.snapshot_eval if snaps else args.eval)
                n, bsz = st.shape[0], min(spec.batch, st.shape[0])

                def data(t):
                    idx = (np.arange(bsz) + ((t - 1) * bsz) % n) % n
                    return st[idx], o[idx], np.full(bsz, 1.0 / bsz)

                def evaluate(sig):
                    if snaps:
                        return snapshot(sig)
                    e = exploitability(game, sig, A, B)
                    marks.append((0, 0.0, e.nashconv, e.nashconv_se, e.nashconv_in, e.nashconv_in_se))
                    if e.nashconv_in < args.stop:
                        stop_flag["stop"] = True
                    return e.nashconv_in

                solve_game(game, data, SolveConfig(iterations=2))  # compile
                s = _timed_solve_game(solve_game, game, data, spec, args, evaluate, progress, stop_flag, t_train)
                per_it = bsz
                unit = "deals"
            if snaps and spec.solver != "exact":  # (the exact solver's history is exact already)
                while len(taken) < len(snaps):  # the budget ended between two calls: the final strategy
                    taken.append([snaps[len(taken)], s.seconds, s.sigma.copy()])
                for cp, sec, sig in taken:
                    m0 = time.perf_counter()
                    if spec.solver == "vector":
                        e = vector_exploitability(vg, sig, args.snapshot_eval, spec.seed, key_offset=300,
                                                  n_pairs=args.eval_pairs)
                    else:
                        e = exploitability(game, sig, A, B)
                    print(f"{name:28s} {info:8s} after {sec:6.1f} s of training: NashConv [{e.nashconv:.4f} ± "
                          f"{e.nashconv_se:.4f}, {e.nashconv_in:.4f} ± {e.nashconv_in_se:.4f}] on "
                          f"{args.snapshot_eval:,} ({time.perf_counter() - m0:.0f} s to measure)", flush=True)
                    rows.append({"subgame": name, "info": info, "snapshot": cp, "train_s": sec,
                                 "lo": e.nashconv, "lo_se": e.nashconv_se, "in": e.nashconv_in,
                                 "in_se": e.nashconv_in_se, "samples": args.snapshot_eval,
                                 "it_per_s": s.iterations / max(s.seconds, 1e-9)})
                continue
            hist = [(it, sec, *m[2:]) for (it, sec, _), m in zip(s.history, marks)]

            def first(th, col):
                for it, sec, lo, lo_se, hi, hi_se in hist:
                    if (hi if col == "in" else lo) <= th:
                        return sec
                return float("nan")

            last = hist[-1] if hist else (0, 0, float("nan"), float("nan"), float("nan"), float("nan"))
            r = {"subgame": name, "info": info, "solver": spec.solver, "nodes": game.tree.n_decisions,
                 "iterations": s.iterations, "train_s": round(s.seconds, 2),
                 "it_per_s": s.iterations / max(s.seconds, 1e-9),
                 "per_s": s.iterations * per_it / max(s.seconds, 1e-9), "unit": unit,
                 "t05_in": first(0.05, "in"), "t02_in": first(0.02, "in"), "t05_lo": first(0.05, "lo"),
                 "t02_lo": first(0.02, "lo"), "final_lo": last[2], "final_lo_se": last[3], "final_in": last[4],
                 "final_in_se": last[5], "final_iteration": last[0], "history": hist}
            rows.append(r)
            f = lambda x: "     -" if x != x else f"{x:6.1f}"
            print(f"{name:28s} {info:8s} nodes {r['nodes']:4d} {r['it_per_s']:7.1f} it/s "
                  + ("(full width, exact)" if unit == "iterations" else f"{r['per_s'] / 1e3:8.1f} k {unit}/s")
                  + f"  t(0.05) in {f(r['t05_in'])} lo {f(r['t05_lo'])}  t(0.02) in {f(r['t02_in'])} lo "
                  f"{f(r['t02_lo'])} s  NashConv [{r['final_lo']:.4f} ± {r['final_lo_se']:.4f}, "
                  f"{r['final_in']:.4f} ± {r['final_in_se']:.4f}] at {r['final_iteration']} it, "
                  f"train {r['train_s']:.1f} s", flush=True)
    load1 = _load()
    if rows and snaps:
        for info in args.info.split(","):
            for cp in snaps:
                sel = [r for r in rows if r["info"] == info and r["snapshot"] == cp]
                ok = sum(1 for r in sel if r["in"] <= 0.02)
                print(f"# {info}, after {cp:g} s: NashConv <= 0.02 by the in-sample (upper) estimate in {ok} of "
                      f"{len(sel)} subgames, by the lower bound in {sum(1 for r in sel if r['lo'] <= 0.02)}; "
                      f"largest in-sample {max((r['in'] for r in sel), default=float('nan')):.4f}")
    elif rows:
        def med(key, sel=lambda r: True):
            xs = [r[key] for r in rows if sel(r) and r[key] == r[key]]
            return statistics.median(xs) if xs else float("nan")

        for info in args.info.split(","):
            sel = lambda r, i=info: r["info"] == i
            n = sum(1 for r in rows if sel(r))
            reached = sum(1 for r in rows if sel(r) and r["t02_in"] == r["t02_in"])
            print(f"# {info}: {n} runs; median {med('it_per_s', sel):.1f} it/s, {med('per_s', sel):,.0f} "
                  f"{rows[0]['unit']}/s; median t(0.05) in-sample {med('t05_in', sel):.1f} s, t(0.02) in-sample "
                  f"{med('t02_in', sel):.1f} s (reached in {reached} of {n} runs within {args.budget:g} s); "
                  f"max t(0.02) in-sample {max((r['t02_in'] for r in rows if sel(r) and r['t02_in'] == r['t02_in']), default=float('nan')):.1f} s")
    print(f"# load average before: {load0}, after: {load1}; wall {time.perf_counter() - t_start:.0f} s", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"load_before": load0, "load_after": load1, "rows": rows,
                                               "threads": numba.get_num_threads(), "args": vars(args)}, indent=1))
    return 0


def _timed_solve_game(solve_game, game, data, spec, args, evaluate, progress, stop_flag, t_train):
    from musstats.engines.betting.solver import SolveConfig

    return solve_game(game, data, SolveConfig(iterations=10 ** 7, method=spec.method), evaluate=evaluate,
                      eval_every=args.every, progress=progress,
                      stop=lambda: stop_flag["stop"] or t_train["s"] >= args.budget)


if __name__ == "__main__":
    raise SystemExit(main())
