"""Why the pooled model converges more slowly than the private one (issue 10): NashConv at a
fixed number of iterations as the samples per iteration (``batch``) grow, both information
models, DCFR or CFR+.

In the pooled model a team's information set is the pair (its first speaker's hand, the
partner's hand).  The vector solver enumerates the first speaker's hands and samples the
partner's with the opponents, so a sample updates one partner hand's information sets out
of hundreds: if that is the limit, NashConv falls with the batch at fixed iterations.
It did, and the solver now enumerates the partner's hands too (``vector_game``'s
``enumerate_partner``); this script measures the earlier scheme (``--partner dealt``, the
default) or the current one (``--partner enumerated``: use small batches, e.g. 64).
Each row: one solve from scratch (seed of the shipped strategies), its training time, and
NashConv [lower bound, in-sample] on ``--eval`` samples per owner, as ``musstats bet
--exploitability`` measures it.  ``--every K`` also measures every K iterations (on 10,000
samples) to show the path.

    python scripts/batch_effect.py [--lance pares] [--pattern 7] [--iterations 1000]
                                   [--batches 256,1024,4096] [--info pooled,private]
                                   [--method dcfr|cfr+] [--eval 100000] [--every 0]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    from musstats.engines.betting.solver import SolveConfig
    from musstats.engines.betting.store import Spec
    from musstats.engines.betting.vector import solve_vector, vector_exploitability, vector_game
    from musstats.rules.variant import Variant

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lance", default="pares")
    ap.add_argument("--pattern", type=int, default=7, help="holders bit mask (1 mano, 2 second, 4 third, 8 postre)")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--batches", default="256,1024,4096")
    ap.add_argument("--partner", default="dealt", choices=["dealt", "enumerated"],
                    help="a pooled team's partner: dealt with the opponents (the earlier scheme) or enumerated")
    ap.add_argument("--info", default="pooled,private")
    ap.add_argument("--method", default="dcfr", choices=["dcfr", "cfr+"])
    ap.add_argument("--eval", type=int, default=100_000)
    ap.add_argument("--every", type=int, default=0)
    ap.add_argument("--json", default=None, help="also write the rows to this file")
    a = ap.parse_args(argv)
    v = Variant()
    rows = []
    for info in a.info.split(","):
        spec = Spec(lance=a.lance, pattern=a.pattern, info=info, variant=v)
        vg = vector_game(spec.game(), v, spec.pattern, enumerate_partner=a.partner == "enumerated")
        solve_vector(vg, SolveConfig(iterations=2), 16, 1)  # compile / load the kernels
        for batch in (int(b) for b in a.batches.split(",")):
            path: list[tuple[int, float, float]] = []

            def evaluate(sig, _p=path):
                e = vector_exploitability(vg, sig, 10_000, spec.seed, key_offset=200)
                _p.append((len(_p) + 1, round(e.nashconv, 4), round(e.nashconv_in, 4)))
                return e.nashconv_in

            t0 = time.perf_counter()
            s = solve_vector(vg, SolveConfig(iterations=a.iterations, method=a.method), batch, spec.seed,
                             evaluate=evaluate if a.every else None, eval_every=a.every)
            train = s.seconds
            e = vector_exploitability(vg, s.sigma, a.eval, spec.seed, key_offset=200)
            r = {"subgame": spec.name, "info": info, "method": a.method, "iterations": a.iterations, "batch": batch,
                 "train_s": round(train, 1), "nashconv": round(e.nashconv, 4), "nashconv_se": round(e.nashconv_se, 4),
                 "nashconv_in": round(e.nashconv_in, 4), "nashconv_in_se": round(e.nashconv_in_se, 4),
                 "path": [(k * a.every, lo, hi) for k, lo, hi in path], "wall_s": round(time.perf_counter() - t0, 1)}
            rows.append(r)
            print(f"{spec.name:24s} {info:8s} {a.method:5s} {a.iterations:5d} it x {batch:5d}: train {train:6.1f} s  "
                  f"NashConv [{e.nashconv:.4f} ± {e.nashconv_se:.4f}, {e.nashconv_in:.4f} ± {e.nashconv_in_se:.4f}]"
                  + (f"  path {r['path']}" if path else ""), flush=True)
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
