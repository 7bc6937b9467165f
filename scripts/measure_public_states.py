"""A lance read through the exact public history: each public state measured with the seats' ranges.

Plays whole hands with a strategy set (``musstats.analysis.whole_hand.simulate``), lists the
public states of each subgame of the lance among the hands as dealt (who cut and the earlier
lances' exact betting; in juego also the pares declarations), and measures in the most
frequent ones what each seat's best response gains against the set's strategy there, every
seat's range weighted by his own probabilities of the history
(``musstats.analysis.public_states``).  Summed over the states, share x gain is what a seat
that reads the exact history gains in the lance, stones per hand: a lower bound (the states
not measured and the hands after a mus round count zero).  Each state's row is kept in the
disk cache as soon as it is measured, so a run that stops resumes where it stood.  Usage:

    python scripts/measure_public_states.py [--lance pares] [--hands 250000] [--seed 22] [--top 300]
        [--n-eval 10000] [--strategies mus-read] [--patterns 3,6,...] [--team-top 20]
        [--resolve 20 --iterations 1000] [--out FILE.json]
    python scripts/measure_public_states.py --lance chica --top 400 --ship --baseline PER_LANCE.json \
        --baseline-rows 0.017:0.001,0.100:0.003,0.023:0.001,0.196:0.004

``--team-top N`` also measures, in the N most frequent states of each subgame, each pair's joint
deviation (the partners' alternating best responses, each seeing his own hand; chosen on one
sample, valued on the other); the pair's figure elsewhere is the larger of its partners' own.
``--resolve N`` solves the N most frequent states again with the ranges (DCFR) and measures
the solutions the same way.  ``--ship`` adds the set's rows (source ``history``) to the shipped
whole-hand figures and takes each lance and seat's best source again; the per-lance set's
states (``--baseline``, this script's ``--out`` with ``--strategies per-lance``) raise the
baseline's rows of the lance (``--baseline-rows``: its best row per seat in the shipped
measurement) where they gain more; without them, the per-lance set's rows of the lance as the
shipped figures hold them (that set does not change).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def measured(a, v, cuts: str, pats: list[int]) -> tuple[dict, list, dict]:
    """Simulate the hands and measure the states (each row cached as soon as it is measured):
    (the run's document, its rows, their summary)."""
    import hashlib

    import numpy as np

    from musstats.analysis import whole_hand as W
    from musstats.analysis.public_states import measure_states, summary
    from musstats.engines import cache
    from musstats.engines.betting import store
    from musstats.output.progress import ProgressBar

    t0 = time.perf_counter()
    h = W.simulate(a.hands, a.seed, v, a.strategies, cuts)
    # what a state's row depends on: the shipped strategies, the cut law, the states solved of the lances before it
    # (they move its ranges and its share; a later lance's states do not) and the strategy shipped for the state
    # itself (another state's of its lance does not reach it)
    inputs = W._inputs_digest(v, states=store.SOLVED_LANCES[: store.SOLVED_LANCES.index(a.lance)])
    own = store.state_strategies(v, a.lance)

    def cached(s, seed, make, kind):
        mine = own.get(s.store_key())
        played = "given-cut" if mine is None else hashlib.sha256(mine.tobytes()).hexdigest()[:16]
        path = cache.entry_path("public-state" if kind == "seat" else "public-state-team", *s.key(), a.strategies,
                                a.n_eval, seed, v.name, inputs, played)
        z = cache.load(path)
        if z is not None:
            return {k: (float(x) if x.ndim == 0 else [float(y) for y in x]) for k, x in z.items()}
        r = make()
        cache.save(path, True, **{k: np.asarray(x) for k, x in r.items()})
        return r

    bar = ProgressBar("public states")
    rows = measure_states(h, pats, top=a.top, variant=v, strategies=a.strategies, n_eval=a.n_eval, seed=a.seed,
                          progress=bar, cached=cached, lance=a.lance, team_top=a.team_top)
    bar.close()
    summ = summary(rows)
    played = float(((h.pattern[a.lance] >= 0) & ~h.mus).mean())
    doc = {"lance": a.lance, "strategies": a.strategies, "cuts": cuts, "variant": v.name, "hands": a.hands,
           "seed": a.seed, "top": a.top, "team_top": a.team_top, "n_eval": a.n_eval, **summ,
           "share_as_dealt": played,
           "sum": float(sum(summ["per_seat"])), "sum_se": float(np.sqrt(sum(x * x for x in summ["per_seat_se"]))),
           "seconds": round(time.perf_counter() - t0, 1), "rows": rows}
    return doc, rows, summ


def main(argv=None) -> int:
    import numpy as np

    from musstats.analysis import whole_hand as W
    from musstats.analysis.public_states import STATE_LANCES, cut_rule, summary, with_exact_history
    from musstats.base.files import atomic_write_text
    from musstats.engines.betting import deals as D
    from musstats.output.progress import ProgressBar
    from musstats.rules.variant import Variant

    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=250_000)
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--top", type=int, default=300, help="public states measured per subgame")
    ap.add_argument("--n-eval", type=int, default=10_000, help="samples of the others' hands to choose on, and to value on")
    ap.add_argument("--strategies", default="mus-read", choices=list(W.STRATEGY_SETS))
    ap.add_argument("--lance", default="pares", choices=list(STATE_LANCES),
                    help="the lance whose states are measured")
    ap.add_argument("--team-top", type=int, default=0,
                    help="in the N most frequent states of each subgame also each pair's joint deviation")
    ap.add_argument("--patterns", default="", help="the lance's subgames (declaration patterns), comma-separated; "
                                                   "default all")
    ap.add_argument("--resolve", type=int, default=0, help="re-solve the N most frequent states measured and measure them")
    ap.add_argument("--iterations", type=int, default=1000, help="DCFR iterations of a state re-solved")
    ap.add_argument("--out", default=None)
    ap.add_argument("--ship", action="store_true",
                    help="add the rows to the shipped whole-hand figures (the set musstats hand plays)")
    ap.add_argument("--baseline", default=None, help="with --ship: this script's --out of the per-lance set")
    ap.add_argument("--baseline-rows", default=None,
                    help="with --ship: the per-lance set's best row of the lance per seat in the shipped whole-hand "
                         "measurement, gain:se for mano, second, third and postre")
    ap.add_argument("--from", dest="from_", default=None,
                    help="take the states' rows from this script's earlier --out instead of measuring them")
    a = ap.parse_args(argv)
    if a.ship and (a.strategies != "mus-read" or bool(a.baseline) != bool(a.baseline_rows) or a.patterns):
        ap.error("--ship measures the set musstats hand plays (mus-read), every subgame of the lance, with --baseline "
                 "and --baseline-rows together or neither (the per-lance set's rows as shipped)")
    v = Variant()
    cuts = cut_rule(a.strategies)
    pats = ([int(x) for x in a.patterns.split(",")] if a.patterns else
            [p for lance, p in D.SUBGAMES if lance == a.lance])
    if a.from_:
        doc = json.loads(Path(a.from_).read_text())
        if (doc.get("lance", "pares"), doc.get("strategies")) != (a.lance, a.strategies):
            ap.error(f"--from measures {doc.get('lance', 'pares')} against {doc.get('strategies')}, not {a.lance} "
                     f"against {a.strategies}")
        rows, summ = doc["rows"], summary(doc["rows"])
    else:
        doc, rows, summ = measured(a, v, cuts, pats)
    by_pat = {}
    for r in rows:
        d = by_pat.setdefault(r["pattern"], [0.0, 0.0, 0])
        d[0] += r["share"]
        d[1] += r["share"] * sum(r["gains"])
        d[2] += 1
    for p, (sh, g, n) in sorted(by_pat.items()):
        print(f"pattern {p:2d}: {n} states, {sh:.4f} of hands, {g:.4f} stones per hand summed over the seats")
    played = doc.get("share_as_dealt", doc.get("share_pares_as_dealt"))
    print(f"measured {doc['states']} states, {doc['share_measured']:.4f} of hands ({a.lance} bet as dealt: {played:.4f}); "
          f"per seat {[round(x, 4) for x in doc['per_seat']]} ± {[round(x, 4) for x in doc['per_seat_se']]}; sum "
          f"{doc['sum']:.4f} ± {doc['sum_se']:.4f} stones per hand; {doc['seconds']:.0f} s")
    if a.resolve:
        from musstats.analysis.public_states import PublicState, resolve_state
        from musstats.engines.betting.deals import derived_seed

        top = sorted(range(len(rows)), key=lambda i: -rows[i]["share"])[: a.resolve]
        bar = ProgressBar("public states re-solved")
        for j, i in enumerate(top):
            r = rows[i]
            s = PublicState.from_row(r)
            t1 = time.perf_counter()
            strat, got = resolve_state(s, v, strategies=a.strategies, iterations=a.iterations, n_eval=a.n_eval,
                                       seed=derived_seed(a.seed, 1, *s.key()))
            r["resolved"] = {**got, "iterations": strat.iterations, "seconds": round(time.perf_counter() - t1, 1)}
            print(f"{s}: share {r['share']:.4f}, NashConv {sum(r['gains']):.4f} -> {sum(got['gains']):.4f} "
                  f"({r['resolved']['seconds']:.0f} s)", flush=True)
            bar(j + 1, len(top))
        bar.close()
        done = [r for r in rows if "resolved" in r]
        sh = sum(r["share"] for r in done)
        before = sum(r["share"] * sum(r["gains"]) for r in done)
        after = sum(r["share"] * sum(r["resolved"]["gains"]) for r in done)
        doc["resolved"] = {"states": len(done), "share": sh, "before": before, "after": after,
                           "iterations": a.iterations}
        print(f"re-solved {len(done)} states holding {sh:.4f} of the hands: summed over the seats {before:.4f} -> "
              f"{after:.4f} stones per hand")
    if a.out:
        atomic_write_text(a.out, json.dumps(doc, indent=1) + "\n")
    if a.ship:
        from musstats.analysis.public_states import PublicState, history_blocks
        from musstats.analysis.whole_hand import ship_document, whole_hand_exploitability
        from musstats.engines.betting import store

        shipped = whole_hand_exploitability(v)
        blocks = history_blocks(shipped)[0]
        if a.baseline:
            base = json.loads(Path(a.baseline).read_text())
            pairs = [tuple(float(y) for y in x.split(":")) for x in a.baseline_rows.split(",")]
            if base.get("lance", "pares") != a.lance:
                ap.error(f"--baseline measures {base.get('lance', 'pares')}, not {a.lance}")
        else:  # the per-lance set does not change: its rows of the lance as the shipped figures hold them
            blk = blocks.get(a.lance)
            if blk is None:
                ap.error(f"the shipped figures hold no per-lance rows of {a.lance}: give --baseline and "
                         "--baseline-rows")
            base, pairs = blk["baseline"], [tuple(x) for x in blk["baseline_rows"]]
        solved = None
        keys = store.state_keys(v, a.lance)
        if keys:
            # the states solved for the lance, as measured now (the ranges move with the earlier lances' states); the
            # figures when they were solved stay, the measure of now is replaced
            mine = [r for r in rows if PublicState.from_row(r).store_key() in keys]
            old = blocks.get(a.lance, {}).get("solved") or {}
            solved = {**old, "now": {"measured": len(mine), "share": sum(r["share"] for r in mine),
                                     "gain": sum(r["share"] * sum(r["gains"]) for r in mine)}}
        doc = with_exact_history(shipped, summ, base, pairs, solved=solved, lance=a.lance)
        print(f"shipped {ship_document(doc, v).name}: nashconv {doc['nashconv']} ± {doc['nashconv_se']}, baseline "
              f"{doc['baseline_nashconv']} ± {doc['baseline_nashconv_se']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
