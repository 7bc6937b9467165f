"""One public state of pares measured the other way: on hands played whole.

Plays whole hands with the set ``musstats hand`` plays (``musstats.analysis.whole_hand.simulate``:
the mus decision's equilibrium, grande and chica bet by the strategies that read who cut,
actions drawn), keeps those whose public history is the state's (the pares subgame, who cut,
grande's and chica's terminal nodes) and measures the set's pares strategy on them with the deal
solver: each seat's best response chosen on one half of the hands and valued on the other.
The range-weighted game of ``scripts/measure_public_states.py`` measures the same state from
the full deck; the two share no sampling code.  Usage:

    python scripts/check_public_state.py PATTERN CUTTER GRANDE_NODE CHICA_NODE [--batches 10]
    python scripts/check_public_state.py 11 0 53 53
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    import numpy as np

    from musstats.analysis import whole_hand as W
    from musstats.analysis.public_states import PublicState, state_exploitability
    from musstats.engines.betting.info import prepare
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.exploit import nashconv
    from musstats.output.progress import ProgressBar
    from musstats.rules.variant import Variant

    ap = argparse.ArgumentParser()
    for name in ("pattern", "cutter", "grande", "chica"):
        ap.add_argument(name, type=int)
    ap.add_argument("--batches", type=int, default=10, help="batches of 2,000,000 hands played whole")
    a = ap.parse_args(argv)
    v = Variant()
    t0 = time.perf_counter()
    keep = []
    bar = ProgressBar("hands played whole (millions)")
    for b in range(a.batches):
        h = W.simulate(2_000_000, 1000 + b, v, "mus-read", "equilibrium")
        sel = ((h.pattern["pares"] == a.pattern) & ~h.mus & (h.cutter == a.cutter) & (h.node["grande"] == a.grande)
               & (h.node["chica"] == a.chica))
        keep.append(h.final[sel])
        bar(2 * (b + 1), 2 * a.batches)
    bar.close()
    deals = np.concatenate(keep)
    n = deals.shape[0]
    if n < 1000:
        print(f"only {n} hands of {2 * a.batches} million have this history", file=sys.stderr)
        return 2
    sol = W._lance_strategy("pares", a.pattern, "as-dealt", "mus-read", v)
    st, o, _ = prepare(sol.game, deals, v, "pares", a.cutter)
    half = n // 2
    one = (st[:half], o[:half], np.full(half, 1.0 / half))
    two = (st[half:], o[half:], np.full(n - half, 1.0 / (n - half)))
    dg = DealGame(sol.game, one, choose=one, evaluate=two)
    e = nashconv(dg, dg.layout.from_game(np.asarray(sol.sigma)))
    print(f"hands played whole: {n:,} of {2 * a.batches} million with this history; per seat "
          f"{[round(g, 4) for g in e.gains]}, summed {e.nashconv:.4f} ± {e.nashconv_se:.4f}; value {e.value:.4f} "
          f"± {e.value_se:.4f} (stones per hand of the state)")
    r = state_exploitability(PublicState(a.pattern, a.cutter, a.grande, a.chica), v, n_eval=20_000)
    print(f"range-weighted game: per seat {[round(g, 4) for g in r['gains']]}, summed {sum(r['gains']):.4f}; "
          f"value {r['value']:.4f}; {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
