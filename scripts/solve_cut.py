"""Who cuts the mus: the equilibrium of the mus decision (``musstats.analysis.cut_game``).

Values every sampled deal five ways (a cut by each seat, the hands bet as dealt; the mus
round, the hands bet after it) with the shipped betting, solves the decisions with the
framework's CFR driver and measures the equilibrium and the shipped cut flags in the same
game: per player, a pair changing together, a pair seeing both hands (responses chosen on
one sample, valued on an independent one).  The values are kept in the disk cache in chunks
as they are computed, so a run that stops resumes.  ``--ship`` (betting ``mus-read``) writes
``musstats/data/cut_equilibrium_<deck>_<juego real>.npz``, what ``musstats mus`` reads.
``--law``: instead of solving, measure the cut law the strategies that read who cut were
solved on (``policies.betting_cut_flags``) against them, on the same samples: the fixed-point
check of solving the two in turn (with ``--ship`` that law ships as the answer).  Usage:

    python scripts/solve_cut.py [--train 1000000] [--measure 500000] [--seed 1] [--iterations 1000]
                                [--betting mus-read|per-lance] [--law] [--ship] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _pm(m: dict, name: str, i: int | None = None) -> str:
    x, se = m.get(name), m.get(name + "_se")
    if x is None:
        return "–"
    if i is not None:
        x, se = x[i], se[i]
    return f"{x:+.4f} ± {se:.4f}"


def summary(eq) -> str:
    """The Markdown of a solved mus decision."""
    m, f = eq.measures, eq.flags_measures
    rows = ["| | equilibrium | shipped cut flags |", "|---|---|---|",
            f"| mus played (all four ask) | {100 * eq.mus_share[0]:.2f} % | {100 * eq.mus_share[1]:.2f} % |",
            f"| value for mano's team | {_pm(m, 'value')} | {_pm(f, 'value')} |",
            f"| NashConv per player (lower bound) | {_pm(m, 'nashconv')} | {_pm(f, 'nashconv')} |",
            f"| in sample | {m['nashconv_in']:+.4f} | {f['nashconv_in']:+.4f} |"]
    for t, who in enumerate(("mano+third", "second+postre")):
        rows.append(f"| pair {who} changing together | {_pm(m, 'team_gain', t)} | {_pm(f, 'team_gain', t)} |")
        rows.append(f"| pair {who} seeing both hands | {_pm(m, 'pooled_gain', t)} | {_pm(f, 'pooled_gain', t)} |")
    meta = eq.meta
    head = (f"Mus decision, {meta['variant']}, betting {meta['betting']}: {meta['deals']['train']:,} deals to solve on "
            f"(seed {meta['seeds'][0]}), {meta['deals']['choose']:,} to choose responses on and "
            f"{meta['deals']['value']:,} to value them on; "
            + (f"{meta['iterations']} iterations of {meta['solver']['method']}" if isinstance(meta['solver'], dict)
               else str(meta['solver'])) + f"; values {meta['values_seconds']:.0f} s, solve {meta['solve_seconds']:.0f} s, "
            f"measures {meta['measure_seconds']:.0f} s" + (" (partial)" if eq.partial else "") + ". Stones per hand.")
    import numpy as np

    P = eq.p_cut
    mixed = ((P > 0.05) & (P < 0.95)).sum(axis=1)
    cuts = (P >= 0.95).sum(axis=1)
    seats = "; ".join(f"{s}: cuts with {int(c)}, mixes {int(x)}" for s, c, x in
                      zip(("mano", "second", "third", "postre"), cuts, mixed))
    from musstats.tables.policies import cut_flags

    differ = (np.abs(P - cut_flags().astype(float)) > 0.5).sum(axis=1)
    return "\n".join([head, "", *rows, "", f"Hands per seat (of {P.shape[1]}): {seats}.",
                      "Hands whose equilibrium choice (probability above one half) differs from the flags: "
                      + ", ".join(str(int(x)) for x in differ) + " (mano, second, third, postre)."])


def main(argv=None) -> int:
    from musstats.analysis.cut_game import BETTING, measure_law, save_equilibrium, solve_cut
    from musstats.output.progress import ProgressBar

    ap = argparse.ArgumentParser()
    ap.add_argument("--train", type=int, default=1_000_000)
    ap.add_argument("--measure", type=int, default=500_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=1_000)
    ap.add_argument("--betting", default="mus-read", choices=list(BETTING))
    ap.add_argument("--no-teams", action="store_true", help="per player only")
    ap.add_argument("--law", action="store_true",
                    help="measure the cut law the strategies that read who cut were solved on instead of solving")
    ap.add_argument("--ship", action="store_true", help="write the shipped equilibrium")
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    if a.ship and a.betting != "mus-read":
        ap.error("--ship writes the equilibrium against the betting musstats hand plays (--betting mus-read)")
    bars: dict = {}

    def progress(stage: str, done: int, total: int) -> None:
        bar = bars.get(stage)
        if bar is None:
            for b in bars.values():
                b.close()
            bar = bars[stage] = ProgressBar({"solve": "CFR iterations"}.get(stage, f"values: {stage} deals"))
        bar(done, total)

    t0 = time.perf_counter()
    try:
        if a.law:
            from musstats.tables.policies import betting_cut_flags

            eq = measure_law(betting_cut_flags(), a.train, a.measure, a.seed, betting=a.betting, progress=progress,
                             team=not a.no_teams)
        else:
            eq = solve_cut(a.train, a.measure, a.seed, betting=a.betting, iterations=a.iterations,
                           progress=progress, team=not a.no_teams)
    except KeyboardInterrupt:  # the values done so far are in the disk cache: a new run resumes there
        for b in bars.values():
            b.close()
        print("interrupted: the deals valued so far are kept in the disk cache; run again to resume",
              file=sys.stderr)
        return 130
    for b in bars.values():
        b.close()
    out = summary(eq) + f"\n\nWall time {time.perf_counter() - t0:.0f} s.\n"
    print(out)
    if a.ship and eq.partial:
        print("partial: not shipped", file=sys.stderr)
    elif a.ship:
        print(f"wrote {save_equilibrium(eq)}")
    if a.out:
        from musstats.base.files import atomic_write_text

        atomic_write_text(Path(a.out), out)
    return 130 if eq.partial else 0


if __name__ == "__main__":
    raise SystemExit(main())
