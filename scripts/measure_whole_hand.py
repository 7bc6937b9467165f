"""What the per-lance betting strategies throw away: a whole-hand best response.

Plays whole hands with the shipped cut flags, discard table and per-lance strategies
(``musstats.analysis.whole_hand.simulate``) and measures, per lance, source of public
information (who cut and the cards taken; earlier lances' betting; the pares declarations
in juego and punto; all of them) and reader (each seat; each pair reading together), what a
best response that reads it gains, chosen on one sample of hands and valued on an
independent one (a lower bound).  Prints the table and the sums per source; ``--out`` writes
the Markdown; ``--ship`` (with ``--strategies mus-read --cuts equilibrium``, the set ``musstats hand``
plays, every source) writes the figures ``musstats hand --exploitability`` prints
(``musstats/data/whole_hand_<deck>_<juego real>.json``), with the per-lance strategies'
NashConv on the hands the shipped flags cut as the baseline (measured too, every source, no pairs).  ``--cuts
equilibrium``: the hands cut by the mus decision's equilibrium instead of the shipped flags.  Each row is kept in the disk cache
as soon as it is measured, so a run that stops resumes where it stood.  Usage:

    python scripts/measure_whole_hand.py [--hands 250000] [--seed 1] [--no-teams] [--out FILE.md]
    python scripts/measure_whole_hand.py --strategies mus-read --cuts equilibrium --team-lances grande,chica --ship
    python scripts/measure_whole_hand.py --strategies mus-read --cuts equilibrium --sources mus --no-teams
    python scripts/measure_whole_hand.py --strategies mus-read --cuts equilibrium --lances pares,juego \
        --sources lances,declarations,all --no-teams --ship

With ``--ship`` and some lances or sources only, the rows measured replace the shipped figures'
rows of the same lance, source and reader (the same hands and seed) and the figures are summed
again; the baseline stays as shipped.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    from musstats.analysis.cut_game import CUT_RULES
    from musstats.analysis.whole_hand import LANCE_ORDER, MAX_CLASSES, SOURCES, STRATEGY_SETS, reading_table
    from musstats.output.files import frame_to_markdown
    from musstats.output.progress import ProgressBar

    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=250_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-teams", action="store_true")
    ap.add_argument("--out", default=None)
    ap.add_argument("--ship", action="store_true", help="write the shipped whole-hand figures")
    ap.add_argument("--strategies", default="per-lance", choices=list(STRATEGY_SETS),
                    help="mus-read: the hands as dealt bet by the strategies that read who cut")
    ap.add_argument("--sources", default=",".join(SOURCES), help="the sources measured, comma-separated")
    ap.add_argument("--lances", default=",".join(LANCE_ORDER), help="the lances measured, comma-separated")
    ap.add_argument("--team-lances", default=",".join(LANCE_ORDER), help="the lances where pairs read together")
    ap.add_argument("--max-classes", type=int, default=MAX_CLASSES,
                    help="the most classes a reader's history is read in (a response's memory grows with them; "
                         "beyond them the rarest classes merge)")
    ap.add_argument("--cuts", default="flags", choices=list(CUT_RULES),
                    help="who cuts the mus: the shipped cut flags, or the mus decision's equilibrium")
    a = ap.parse_args(argv)
    lances, sources = tuple(a.lances.split(",")), tuple(a.sources.split(","))
    if a.max_classes < 10:
        ap.error("--max-classes takes at least 10 (the mus classes times two)")
    if not set(lances) <= set(LANCE_ORDER) or not set(sources) <= set(SOURCES):
        ap.error(f"--lances takes {','.join(LANCE_ORDER)} and --sources {','.join(SOURCES)}")
    every = set(lances) == set(LANCE_ORDER) and set(sources) == set(SOURCES)
    if a.ship and (a.strategies != "mus-read" or a.cuts != "equilibrium"):
        ap.error("--ship writes the figures of the set musstats hand plays (--strategies mus-read --cuts equilibrium)")
    t0 = time.perf_counter()
    bar = ProgressBar("lances x sources x readers")
    df = reading_table(a.hands, a.seed, teams=not a.no_teams, progress=bar, strategies=a.strategies,
                       sources=sources, team_lances=tuple(a.team_lances.split(",")), cuts=a.cuts, lances=lances,
                       max_classes=a.max_classes)
    bar.close()
    baseline = None
    if a.ship and every:
        bar = ProgressBar("baseline: the per-lance strategies")
        baseline = reading_table(a.hands, a.seed, teams=False, progress=bar)
        bar.close()
    from musstats.analysis.whole_hand import exploitability_document

    doc = exploitability_document(df, baseline)
    by_source = "\n".join(f"| {src} | {x['gain']:.4f} | {x['gain_se']:.4f} |" for src, x in doc["by_source"].items())
    teams = "; ".join(f"{who} {g:.4f} ± {se:.4f} ({', '.join(ls)})" for who, g, se, ls in
                      zip(("mano+third", "second+postre"), doc["team_gain"], doc["team_gain_se"], doc["team_lances"])
                      if g is not None)
    text = [f"Whole hands: {a.hands:,} to choose the responses on and {a.hands:,} to value them on (seed {a.seed}); "
            f"the mus round in {100 * df.attrs['mus_share']:.1f} % of them, an accepted órdago ending "
            f"{100 * df.attrs['ordago_ended']:.1f} %; {time.perf_counter() - t0:.0f} s.", "",
            frame_to_markdown(df.drop(columns=["kind"]).round({"gain": 4, "gain_se": 4, "gain_in": 4})), "",
            "Each row's lower bound counted at max(gain, 0); per lance and reader the source that gains most "
            f"(stones per hand): NashConv {doc['nashconv']:.4f} ± {doc['nashconv_se']:.4f}"
            + ("" if every else f" over {', '.join(lances)} read through {', '.join(sources)}")
            + (f" (the per-lance strategies: {doc['baseline_nashconv']:.4f} ± {doc['baseline_nashconv_se']:.4f})"
               if baseline is not None else "")
            + (f"; pairs reading together: {teams}" if teams else "") + ".", "",
            "Per source, summed over the seats and the lances:", "",
            "| source | gain | gain_se |", "|---|---:|---:|", by_source]
    out = "\n".join(text) + "\n"
    print(out)
    if a.ship and every:
        from musstats.analysis.whole_hand import write_exploitability

        print(f"wrote {write_exploitability(df, baseline)}")
    elif a.ship:  # these rows in place of the shipped ones
        from musstats.analysis.whole_hand import ship_document, whole_hand_exploitability, with_rows

        doc = with_rows(whole_hand_exploitability(), df)
        print(f"wrote {ship_document(doc)}: nashconv {doc['nashconv']} ± {doc['nashconv_se']}, pairs "
              f"{doc['team_gain']} ± {doc['team_gain_se']}")
    if a.out:
        from musstats.base.files import atomic_write_text

        atomic_write_text(Path(a.out), out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
