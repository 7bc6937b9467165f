"""Build the shipped tables that come from playing the equilibrium strategies (8 reyes).

    python scripts/build_game_betting.py

* ``musstats/data/game_betting_8-reyes_off.npz``: the outcome table of the game model
  with betting (the default number of deals, hands after the mus decision);
* ``musstats/data/betting_gain_8-reyes_off.npz``: per seat and hand, what equilibrium
  betting adds over en paso (from ``ev_table``, 1,000,000 deals), with the hands as
  dealt and after one mus round, for ``mus`` and ``discard``.

Both are written atomically; rerun after the shipped strategies change.
"""

from __future__ import annotations

import time

from musstats.analysis.game.betting import DEFAULT_BETTING_DEALS, betting_outcomes, write_shipped
from musstats.analysis.game.model import DEFAULT_SEED, betting_key
from musstats.rules.variant import Variant


def main() -> None:
    v = Variant()
    t0 = time.perf_counter()
    out = betting_outcomes(v, deals=DEFAULT_BETTING_DEALS, seed=DEFAULT_SEED)
    path = write_shipped(out, v, betting_key(v, DEFAULT_BETTING_DEALS, DEFAULT_SEED))
    print(f"{path}: {out.n_outcomes} outcomes from {DEFAULT_BETTING_DEALS:,} deals in "
          f"{time.perf_counter() - t0:.1f} s; P(an órdago is accepted) {out.p_ordago():.4f}")
    from musstats.analysis.betting import write_gain

    t0 = time.perf_counter()
    print(f"{write_gain(v)} in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
