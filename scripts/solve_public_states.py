"""A lance solved per public state (chica, pares, juego): the states where a seat that reads the exact
history gains most, each solved with the seats' ranges, shipped for ``musstats hand`` and measured.

Reads a measurement of the set ``musstats hand`` plays (``scripts/measure_public_states.py
--lance L --out``: each public state's share of all hands and each seat's best-response gain
there), takes the ``--states`` states with the largest share x gain for what they cost in the
shipped file (share x gain per slot of the strategy), solves each (DCFR, ``--iterations``,
every seat's range weighted by his own probabilities of the history:
``musstats.analysis.public_states.resolve_state``) and measures the quantised solution the way
the states were measured (each seat's best response, exact over his hands, chosen on one sample
of the others' hands and valued on an independent one; the same samples as the measurement).
Each state is kept in the disk cache as soon as it is solved, so a run that stops resumes where
it stood; ``--part i/n`` runs every n-th state (parallel runs share the cache).  Usage:

    python scripts/solve_public_states.py --measured MEASURED.json [--lance pares] [--states 650]
        [--iterations 1000] [--part 0/1] [--out FILE.json] [--ship] [--only-shipped] [--keep-shipped]

``--ship`` writes the solved states' strategies to ``musstats/data/<lance>_states_*.npz`` and the
whole-hand figures again, the states' rows replaced by the solutions'.  A lance's states move
the ranges of the lances after it: solve them in order, and measure the later ones again
(``--only-shipped --keep-shipped`` solves shipped states again on a new measurement and keeps
the others as they ship; ``--keep-shipped`` alone solves the next ``--states`` states that do not
ship and keeps those that do; a kept state that an earlier run solved on the same measurement takes that
solve's measure as its row, since the measurement may predate its shipping).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    import numpy as np

    from musstats.analysis import whole_hand as W
    from musstats.analysis.public_states import PublicState, resolve_state, state_exploitability, summary
    from musstats.base.files import atomic_write_text
    from musstats.engines import cache
    from musstats.engines.betting import store
    from musstats.engines.betting.deals import derived_seed
    from musstats.engines.betting.specs import Spec
    from musstats.engines.solving import store as S
    from musstats.output.progress import ProgressBar
    from musstats.rules.variant import Variant

    ap = argparse.ArgumentParser()
    ap.add_argument("--measured", required=True, help="scripts/measure_public_states.py --out of the set mus-read")
    ap.add_argument("--lance", default="pares", choices=list(store.SOLVED_LANCES), help="the lance solved per state")
    ap.add_argument("--states", type=int, default=650,
                    help="states solved: those with the largest share x gain per slot of the strategy")
    ap.add_argument("--iterations", type=int, default=1000, help="DCFR iterations a state")
    ap.add_argument("--part", default="0/1", help="i/n: solve every n-th state from the i-th")
    ap.add_argument("--out", default=None)
    ap.add_argument("--ship", action="store_true", help="write the shipped strategies and whole-hand figures")
    ap.add_argument("--only-shipped", action="store_true",
                    help="solve again only states that ship (after an earlier lance's states moved their ranges)")
    ap.add_argument("--keep-shipped", action="store_true",
                    help="keep the shipped states as they are and solve others (with --only-shipped: keep those this "
                         "run does not solve); the measurement's rows of the kept states are theirs as shipped")
    a = ap.parse_args(argv)
    m = json.loads(Path(a.measured).read_text())
    if m.get("strategies") != "mus-read" or m.get("lance", "pares") != a.lance:
        ap.error(f"--measured must measure {a.lance} against the set musstats hand plays (--strategies mus-read)")
    try:
        i_part, n_part = (int(x) for x in a.part.split("/"))
        assert 0 <= i_part < n_part
    except (ValueError, AssertionError):
        ap.error("--part takes i/n with 0 <= i < n")
    v = Variant()
    seed, n_eval = int(m["seed"]), int(m["n_eval"])
    rows = m["rows"]
    states = [PublicState.from_row({**r, "lance": a.lance}) for r in rows]
    slots = {p: Spec(lance=a.lance, pattern=p, info="private", variant=v).game().n_slots
             for p in {r["pattern"] for r in rows}}
    # the states where reading gains most for what they cost in the shipped file (its slots)
    pool: list[int] = list(range(len(rows)))
    shipped = store.state_keys(v, a.lance)
    if a.only_shipped:  # solve again the states that ship (the ranges of the lances before have moved)
        pool = [i for i in pool if states[i].store_key() in shipped]
    elif a.keep_shipped:  # more states beside those that ship, which stay as they are
        pool = [i for i in pool if states[i].store_key() not in shipped]
    order = sorted(pool,
                   key=lambda i: -rows[i]["share"] * sum(rows[i]["gains"]) / slots[rows[i]["pattern"]])[: a.states]
    mine = order[i_part::n_part]
    # what a state's solution depends on: the shipped strategies, cut law and earlier lances' states the ranges come
    # from (not the code, so that the cache survives edits elsewhere; not the lance's own states, which it writes)
    inputs = W._inputs_digest(v, code=False, states=store.SOLVED_LANCES[:store.SOLVED_LANCES.index(a.lance)])

    def entry(i):
        return cache.entry_path("public-state-solved", *states[i].key(), a.iterations, store.STATE_LEVELS, n_eval,
                                seed, v.name, inputs)

    def solved(i):
        s = states[i]
        path = entry(i)
        z = cache.load(path)
        if z is not None:
            return z
        t1 = time.perf_counter()
        strat, _ = resolve_state(s, v, iterations=a.iterations, n_eval=n_eval,
                                 seed=derived_seed(seed, 1, *s.key()), measure=False)
        t_solve = time.perf_counter() - t1
        q = S.quantise(strat.sigma, store.STATE_LEVELS)
        game = Spec(lance=a.lance, pattern=s.pattern, info="private", variant=v).game()
        got = state_exploitability(s, v, sigma=S.dequantise(q, game), n_eval=n_eval,
                                   seed=derived_seed(seed, *s.key()))
        z = {"sigma": q, "gains": np.asarray(got["gains"]), "gains_se": np.asarray(got["gains_se"]),
             "value": np.asarray(got["value"]), "seconds": np.asarray([t_solve, time.perf_counter() - t1])}
        cache.save(path, True, **z)
        return z

    t0 = time.perf_counter()
    bar = ProgressBar("public states solved")
    done: dict[int, dict] = {}
    for j, i in enumerate(mine):
        r = rows[i]
        z = solved(i)
        done[i] = z
        print(f"{a.lance} state {states[i].store_key()}: share "
              f"{r['share']:.4f}, NashConv {sum(r['gains']):.3f} -> {float(np.sum(z['gains'])):.3f} "
              f"({float(z['seconds'][1]):.1f} s)", flush=True)
        bar(j + 1, len(mine))
    bar.close()
    if n_part > 1 and (a.ship or a.out):
        for i in order:  # the other parts' states, from the cache
            if i not in done:
                done[i] = solved(i)
    # the shipped states kept beside this run's: key -> quantised strategy
    kept = store.state_strategies(v, a.lance) if a.keep_shipped else {}
    # a kept state solved by an earlier run on this measurement's samples: its row is that solve's measure of the
    # strategy as it ships (the measurement may have been taken before the state shipped)
    remeasured = {}
    for i, s in enumerate(states):
        if i not in done and s.store_key() in kept:
            z = cache.load(entry(i))
            if z is not None and np.array_equal(np.asarray(z["sigma"]), kept[s.store_key()]):
                remeasured[i] = z
    if remeasured:
        print(f"{len(remeasured)} kept states' rows from their own solve's measure")
    new_rows = []
    for i, r in enumerate(rows):
        if i in done or i in remeasured:
            z = done[i] if i in done else remeasured[i]
            # the pair's figure, if any, was the old strategy's
            r = {**{k: x for k, x in r.items() if not k.startswith("team_")}, "gains": [float(x) for x in z["gains"]],
                 "gains_se": [float(x) for x in z["gains_se"]], "value": float(z["value"]), "solved": True}
        new_rows.append(r)
    before, after = summary(rows), summary(new_rows)
    ours = set(done) | {i for i, s in enumerate(states) if s.store_key() in kept}
    sh = sum(rows[i]["share"] for i in ours)
    b = sum(rows[i]["share"] * sum(rows[i]["gains"]) for i in ours)
    c = sum(new_rows[i]["share"] * sum(new_rows[i]["gains"]) for i in ours)
    secs = [float(done[i]["seconds"][0]) for i in done]
    res = {"states": len(set(kept) | {states[i].store_key() for i in done}),
           "solved_now": len(done), "share": sh, "before": b, "after": c, "iterations": a.iterations,
           "solve_seconds_median": float(np.median(secs)) if secs else None,
           "solve_seconds_total": float(np.sum(secs))}
    print(f"solved {len(done)} states ({res['states']} with those kept) holding {sh:.4f} of the hands: there "
          f"{b:.4f} -> {c:.4f} stones per hand; "
          f"{a.lance} read through the history {sum(before['per_seat']):.4f} -> {sum(after['per_seat']):.4f} "
          f"({time.perf_counter() - t0:.0f} s)")
    if a.out:
        ident = ("lance", "strategies", "cuts", "variant", "hands", "seed", "n_eval", "top")
        atomic_write_text(a.out, json.dumps({**{k: m[k] for k in ident if k in m}, "lance": a.lance, "solved": res,
                                             **after, "sum": sum(after["per_seat"]),
                                             "sum_se": float(np.hypot.reduce(after["per_seat_se"])),
                                             "rows": new_rows}, indent=1) + "\n")
    if a.ship:
        from musstats.analysis.public_states import history_blocks, with_exact_history
        from musstats.analysis.whole_hand import ship_document, whole_hand_exploitability

        entries = {**kept, **{states[i].store_key(): done[i]["sigma"] for i in order}}
        keys = sorted(entries)
        meta = {"variant": v.name, "lance": a.lance, "deal": "as-dealt", "info": "private",
                "iterations": a.iterations, "levels": store.STATE_LEVELS,
                "method": "DCFR, every seat's range weighted by his own probabilities of the public history (who "
                          "cut, the earlier lances' betting"
                          + (", the pares declarations)" if a.lance == "juego" else ")"),
                "states": len(keys),
                "share": sh, "measured_hands": m["hands"], "seed": seed, "n_eval": n_eval}
        store.write_states([(k, entries[k]) for k in keys], meta, store.states_path(v, a.lance))
        doc = whole_hand_exploitability(v)
        blk = history_blocks(doc)[0][a.lance]
        print(f"shipped {len(keys)} states to {store.states_path(v, a.lance).name}")
        doc = with_exact_history(doc, after, blk["baseline"], blk["baseline_rows"], solved=res, lance=a.lance)
        print(f"shipped {ship_document(doc, v).name}: nashconv {doc['nashconv']} ± {doc['nashconv_se']}, baseline "
              f"{doc['baseline_nashconv']} ± {doc['baseline_nashconv_se']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
