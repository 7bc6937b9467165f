"""Measure the cut-the-mus flags' fixed point when deals are valued with betting.

The shipped flags are the plain comparison; their fixed point en paso is degenerate (docs/method.md,
"Cut flags").  This sweeps from the shipped flags with the comparison of
:func:`musstats.analysis.discard_table.cut_response` valued by the shipped equilibrium
betting of every lance (``values="betting"``), seat after seat, printing each sweep.  Nothing
is shipped or written beside the package: ``--json FILE`` keeps the flags and sweeps.

    python scripts/cut_flags_betting.py [--trials 10000] [--max-iter 6] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    from musstats.analysis.discard_table import cut_fixed_point
    from musstats.tables.policies import cut_flags, get_policy
    from musstats.rules.variant import Variant

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=10_000, help="deals per entry (cut and mus on the same deals)")
    ap.add_argument("--max-iter", type=int, default=6)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    v = Variant()
    pol, _ = get_policy("table", v)
    start = cut_flags(v)
    print(f"shipped (plain) flags: {int(start.sum())} of {start.size} cut, per seat {start.sum(axis=1).tolist()}",
          flush=True)
    t0 = time.perf_counter()
    fp = cut_fixed_point(pol, v, start=start, trials=a.trials, seed=a.seed, max_iter=a.max_iter, values="betting",
                         progress=lambda m: print(m, flush=True))
    print(f"{'fixed point' if fp.converged else 'not converged'} after {len(fp.sweeps)} sweeps: "
          f"{int(fp.cut.sum())} cut, per seat {fp.cut.sum(axis=1).tolist()} ({time.perf_counter() - t0:.0f} s)",
          flush=True)
    if a.json:
        Path(a.json).write_text(json.dumps({"trials": a.trials, "seed": a.seed, "converged": fp.converged,
                                            "cut": fp.cut.astype(int).tolist(),
                                            "sweeps": [s.__dict__ for s in fp.sweeps]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
