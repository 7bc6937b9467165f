"""A Monte Carlo estimate against the exact value as the number of deals grows."""

from __future__ import annotations

import numpy as np

from musstats.base.errors import MusError
from musstats.rules import checks
from musstats.rules.labels import LANCES
from musstats.rules.variant import Variant, make_variant
from musstats.tables.context import make_context

__all__ = ["convergence_data"]


def convergence_data(cards, seat: str | int = "mano", *, lance: str = "grande", variant: str | Variant = "8-reyes",
                     juego_real: str = "off", trials: int = 200_000, seed: int = 1, points: int = 14):
    """Monte Carlo ``p_team`` of ``lance`` at a geometric grid of trial counts (500 … ``trials``),
    each a run with the same seed, with its SE; the exact value in ``attrs["exact"]``."""
    import pandas as pd

    from musstats.engines.exact import exact_table
    from musstats.engines.montecarlo import simulate

    v = make_variant(variant, juego_real)
    if v.ten_kings:
        raise MusError("the convergence chart compares Monte Carlo with exact odds, which ten kings does not have; "
                       "choose --variant 8-reyes or 4-reyes")
    ctx = make_context(v, cards, seat)
    lance = checks.lance(lance)
    trials = checks.whole(trials, "--trials for a convergence chart", 1000, 200_000_000)
    seed = checks.seed(seed)
    li = LANCES.index(lance)
    grid = np.unique(np.geomspace(min(500, trials), trials, points).round().astype(np.int64))
    rows = []
    for n in grid:
        r = simulate(ctx, trials=int(n), seed=seed)
        rows.append({"trials": int(n), "p_team": float(r.mean[li, 0]), "se": float(r.se[li, 0])})
    df = pd.DataFrame(rows)
    df.attrs.update({"exact": float(exact_table(ctx)[li, 0]), "hand": " ".join(c.label for c in ctx.hand),
                     "seat": ctx.seating.name(ctx.seat), "lance": lance, "seed": seed, "variant": v.name})
    return df
