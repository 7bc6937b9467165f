"""Build the pairs' correlated plans: musstats/data/plans_<deck>_<juego real>_<deal>_private.npz.

Where two partners hold the lance against one opponent (pares and juego with three declared),
the pair's plans come from column generation (:func:`musstats.engines.solving.team.correlated_plans`:
the team-maxmin equilibrium with correlation), started from the shipped strategies, each
subgame for at most ``--minutes`` or until its bounds meet.  The plans are then ordered by
weight, those below ``--floor`` dropped and the rest renormalised, quantised as strategies are
(steps of 1/255) and measured as they ship (:func:`~musstats.engines.solving.team.measure_mixture`):
as dealt exactly over every deal, from the teams' pair sums
(:class:`~musstats.engines.solving.pairs.ExactPairs`, on which column generation runs too), after
the mus on ``--samples`` deals, chosen on one sample and valued on another.  The figures: the mixture's
value, what the lone opponent's best response gains, what the pair's best joint plan gains,
and the same for partners who agree on no plan.  A subgame ships when both gains are within
``--goal``; the others keep the per-lance strategies.  A subgame with a mirror (the same game
with the seats renamed, ``Spec.mirror``: second+third+postre is mano+second+third) is not built:
it plays its mirror's plans renamed.  Each subgame is kept in the disk cache
as soon as it is measured, so a build that stops (Ctrl-C, a crash) goes on where it stopped; a
progress bar shows the subgames.  ``--import LANCE-PATTERN=FILE`` takes the plans of a run of
``scripts/team_plans.py --columns N --out FILE`` (its ``.log`` beside it, if any, gives the
rounds and seconds) instead of running column generation again; ``--import LANCE-PATTERN=shipped``
measures the shipped plans again.

Where both pairs hold the lance (pares, juego and punto with all four declared, hands as
dealt), both teams' plans come from a double oracle exact over the deals
(:func:`musstats.engines.solving.team.team_plans`, for at most ``--minutes`` or until its
bounds meet within ``--tol``; the other team's sums against the plans kept up to ``--bank-gb``),
or from a run of ``scripts/team_plans.py LANCE 15 --exact N --out FILE`` imported as above;
each team's plans are pruned and quantised as above and both mixtures measured exactly as they
ship (:func:`~musstats.engines.solving.team.measure_both_plans`: each pair's best joint plan
against the other pair's mixture); it ships when both gains are within ``--goal``.

    python scripts/build_plans.py [--deal as-dealt|after-mus] [--only juego-7,juego-14] [--minutes 40]
    python scripts/build_plans.py --import juego-7=runs/j7.npz --only juego-7
    python scripts/build_plans.py --import juego-15=runs/j15.npz --only juego-15
    python scripts/build_plans.py --import punto-15=runs/punto.npz --only punto-15
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # team_plans.py: its run files

#: the subgames of a pair of holders against one holder, and the pair's team
PAIR_SUBGAMES = {("pares", 7): 0, ("pares", 13): 0, ("pares", 14): 1, ("juego", 7): 0, ("juego", 11): 1,
                 ("juego", 13): 0, ("juego", 14): 1}
#: the subgames of both pairs (all four declared) whose plans are built, as dealt
BOTH_SUBGAMES = (("pares", 15), ("juego", 15), ("punto", 15))


def _imported(path: Path, sg, lay, SIG: np.ndarray, t: int):
    """The plans of a team_plans.py run as (profiles in the working layout, weights, rounds, seconds,
    partial: whether the run stopped before its bounds met)."""
    from musstats.engines.solving.exploit import team_owners
    from musstats.engines.solving.team import _with_plan

    z = np.load(path, allow_pickle=False)
    base = lay.with_rows(SIG, team_owners(sg, 1 - t)[0], z["Q"])  # the lone opponent's strategy
    owners = [int(k) for k in z["owners"]]
    profiles = []
    j = 0
    while f"plan{j}_{owners[0]}" in z.files:
        profiles.append(_with_plan(lay, base, {k: z[f"plan{j}_{k}"] for k in owners}))
        j += 1
    return profiles, np.asarray(z["weights"], float), *_log_of(path)


def build(spec, t: int, args, source: Path | None) -> dict:
    """One subgame: column generation (or an imported run), pruned, quantised and measured; the
    entry to ship (quantised plans, weights, metadata)."""
    from musstats.engines.betting.solve import solver_game
    from musstats.engines.betting.store import get_solved
    from musstats.engines.solving import store as S
    from musstats.engines.solving.exploit import team_owners
    from musstats.engines.solving.team import correlated_plans, measure_mixture, shippable

    shipped = get_solved(spec, solve=False)
    if shipped is None:
        raise SystemExit(f"no shipped strategy for {spec.name}: build the betting strategies first")
    sg = solver_game(spec, purpose="measure", samples=args.samples)
    exact = spec.deal == "as-dealt"
    if exact:  # every measure over every deal, from the teams' sums over their pairs of hands
        from musstats.engines.solving.pairs import ExactPairs

        sg = ExactPairs(sg)
    lay = sg.layout
    SIG = lay.from_game(shipped.sigma)
    t0 = time.perf_counter()
    before: dict = {}
    if source is not None and str(source) == "shipped":  # the shipped plans, measured again
        from musstats.engines.betting.store import get_plans

        was = get_plans(spec)
        if was is None:
            raise SystemExit(f"no shipped plans for {spec.name} to measure again")
        profiles, weights = [lay.from_game(x) for x in was.sigmas], was.weights
        rounds, seconds, partial = was.meta.get("rounds"), was.meta.get("solve_seconds"), was.meta.get("partial", True)
        before = {k: was.meta[k] for k in ("plans_found", "weight_dropped") if k in was.meta}
    elif source is not None:
        profiles, weights, rounds, seconds, partial = _imported(source, sg, lay, SIG, t)
    else:
        res = correlated_plans(sg, SIG, t, rounds=10_000, iterations=args.iterations, per_round=2,
                               quick=(("strategy", 0), ("strategy", 1)), full_every=10, seconds=60 * args.minutes,
                               progress=lambda row: print(json.dumps({k: (round(x, 4) if isinstance(x, float) else x)
                                                                      for k, x in row.items()}), flush=True))
        profiles = [res.profile(SIG, lay, j) for j in range(len(res.plans))]
        weights, rounds, seconds, partial = res.weights, len(res.rounds), round(time.perf_counter() - t0), res.partial
    q, w, dropped, shipped_profiles = shippable(lay, profiles, weights, args.floor)
    m0 = time.perf_counter()
    figures = measure_mixture(sg, shipped_profiles, w, t)
    meta = {"team": t, "opponent": int(team_owners(sg, 1 - t)[0]), "rounds": rounds, "partial": partial,
            "plans_found": len(profiles), "plans": len(w), "floor": args.floor,
            "weight_dropped": round(dropped, 6), "samples": 0 if exact else args.samples,
            "measure": sg.samples_text,
            "solve_seconds": seconds, "measure_seconds": round(time.perf_counter() - m0), **figures,
            "built_by": "column generation over the pair's joint plans (team-maxmin equilibrium with correlation), "
                      "the lone opponent by CFR+ against the plans' mixture; measured as shipped (steps of 1/255)",
            **before}
    return {"sigma": q, "weights": w, "meta": S.meta_array({**spec.fields(), **meta})}


def build_both(spec, args, source: Path | None) -> dict:
    """A subgame in which both pairs hold the lance: both teams' plans by the exact double oracle
    (:func:`musstats.engines.solving.team.team_plans`; or an imported run of
    ``team_plans.py --exact N --out FILE``), each team's pruned and quantised, measured exactly
    as they ship (:func:`~musstats.engines.solving.team.measure_both_plans`); the entry to ship
    (team 0's plans then team 1's, weights, metadata with ``teams``: how many of each)."""
    from musstats.engines.betting.solve import solver_game
    from musstats.engines.betting.store import get_solved
    from musstats.engines.solving import store as S
    from musstats.engines.solving.pairs import ExactPairs
    from musstats.engines.solving.team import both_as_shipped, team_plans

    shipped = get_solved(spec, solve=False)
    if shipped is None:
        raise SystemExit(f"no shipped strategy for {spec.name}: build the betting strategies first")
    sg = ExactPairs(solver_game(spec, purpose="measure", samples=1_000))
    lay = sg.layout
    SIG = lay.from_game(shipped.sigma)
    t0 = time.perf_counter()
    if source is not None and str(source) == "shipped":  # the shipped plans, measured again
        from musstats.engines.betting.store import get_plans
        from musstats.engines.solving.exploit import team_owners

        was = get_plans(spec)
        if len(was) != 2:
            raise SystemExit(f"no shipped plans of both pairs for {spec.name} to measure again")
        plans = tuple([{k: lay.owner_rows(lay.from_game(x), k) for k in team_owners(sg, t)} for x in was[t].sigmas]
                      for t in (0, 1))
        weights = (was[0].weights, was[1].weights)
        m = was[0].meta
        rounds, seconds, partial = m.get("rounds"), m.get("solve_seconds"), m.get("partial", True)
    elif source is not None:
        from team_plans import read_plans

        plans, weights = read_plans(str(source))
        rounds, seconds, partial = _log_of(source)
    else:
        res = team_plans(sg, SIG, rounds=10_000, tol=args.tol, seconds=60 * args.minutes, per_round=3,
                         bank_bytes=args.bank_gb * 2 ** 30,
                         progress=lambda row: print(json.dumps({k: (round(x, 4) if isinstance(x, float) else x)
                                                                for k, x in row.items()}), flush=True))
        plans, weights = res.plans, res.weights
        rounds, seconds, partial = len(res.rounds), round(time.perf_counter() - t0), res.partial

    m0 = time.perf_counter()
    qs, ws, dropped, fig = both_as_shipped(sg, SIG, plans, weights, args.floor)
    meta = {"team": -1, "opponent": -1, "teams": [len(w) for w in ws], "plans": sum(len(w) for w in ws),
            "rounds": rounds, "partial": partial, "plans_found": [len(p) for p in plans], "floor": args.floor,
            "weight_dropped": [round(x, 6) for x in dropped], "samples": 0, "measure": sg.samples_text,
            "value": fig["value"], "value_se": 0.0, "gain": fig["gain"], "seeing_both": fig["seeing_both"],
            "found_from": fig["found_from"], "solve_seconds": seconds, "measure_seconds": round(time.perf_counter() - m0),
            "built_by": "a double oracle over both pairs' joint plans (each pair's correlated plans against the "
                        "other's), exact over the deals; measured as shipped (steps of 1/255)"}
    return {"sigma": np.concatenate(qs), "weights": np.concatenate(ws), "meta": S.meta_array({**spec.fields(), **meta})}


def _log_of(path: Path) -> tuple:
    """A run's rounds, seconds and whether it stopped before its bounds met, from its ``.log``
    beside it (unknown, unknown, partial where there is none)."""
    rounds, seconds, partial = None, None, True
    log = path.with_suffix(".log")
    if log.exists():
        rows = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{")]
        done = [r for r in rows if "round" in r]
        rounds, seconds = len(done), (done[-1]["seconds"] if done else None)
        partial = next((bool(r["partial"]) for r in rows if "partial" in r), True)
    return rounds, seconds, partial


def _run_digest(path: Path | None) -> str:
    """What an imported run is keyed by: its file's content (a run continued into the same file
    is another run), or "" where the plans are built here."""
    import hashlib

    if path is None:
        return ""
    if not path.is_file():
        raise SystemExit(f"no such run file: {path}")
    return hashlib.sha256(path.read_bytes()).hexdigest()[:24]


def main(argv=None) -> int:
    from musstats.engines.betting.specs import Spec
    from musstats.engines.betting.store import plans_path
    from musstats.engines.solving import store as S
    from musstats.output.progress import ProgressBar
    from musstats.rules.variant import Variant

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deal", default="as-dealt", choices=["as-dealt", "after-mus"])
    ap.add_argument("--only", default=None, help="subgames LANCE-PATTERN, comma-separated (default: all of them)")
    ap.add_argument("--minutes", type=float, default=40.0, help="column generation's time per subgame at most")
    ap.add_argument("--iterations", type=int, default=2000, help="CFR+ iterations of each restricted game")
    ap.add_argument("--samples", type=int, default=50_000,
                    help="after the mus: deals per sample of the oracles and measures")
    ap.add_argument("--floor", type=float, default=1e-4, help="plans lighter than this are dropped")
    ap.add_argument("--goal", type=float, default=0.02, help="the largest gain a shipped subgame may leave")
    ap.add_argument("--tol", type=float, default=0.015,
                    help="both pairs' plans: the double oracle stops when its bounds meet within this")
    ap.add_argument("--bank-gb", type=float, default=8.0,
                    help="both pairs' plans: GiB of the other team's sums kept against the plans")
    ap.add_argument("--import", dest="imports", action="append", default=[], metavar="LANCE-PATTERN=FILE")
    ap.add_argument("--out", default=None, help="the file to write (default: the shipped one)")
    args = ap.parse_args(argv)
    v = Variant()
    sources = {}
    for item in args.imports:
        name, _, f = item.partition("=")
        sources[name] = Path(f)
    # a subgame with a mirror (Spec.mirror) plays its mirror's plans renamed: nothing to build
    names = {f"{lance}-{p}": (lance, p) for lance, p in PAIR_SUBGAMES
             if Spec(lance=lance, pattern=p, deal=args.deal, info="private", variant=v).mirror is None}
    if args.deal == "as-dealt":  # both pairs' plans: exact over the deals
        names.update({f"{lance}-{p}": (lance, p) for lance, p in BOTH_SUBGAMES})
    chosen = list(names) if args.only is None else args.only.split(",")
    for n in chosen:
        if n not in names:
            raise SystemExit(f"unknown subgame {n!r}: one of {', '.join(names)}")
    t0 = time.perf_counter()
    shipped = plans_path(v, args.deal, "private")  # what --import NAME=shipped measures again, and is keyed by
    bar = ProgressBar(f"{args.deal}: subgames")
    entries, rows = {}, []
    for i, n in enumerate(chosen):
        bar(i, len(chosen))
        lance, p = names[n]
        spec = Spec(lance=lance, pattern=p, deal=args.deal, info="private", variant=v)
        key = S.strategy_key({**spec.fields(), "plans": [args.minutes, args.iterations, args.samples, args.floor,
                                                          _run_digest(shipped if str(sources.get(n)) == "shipped"
                                                                      else sources.get(n)), 4]
                              + ([args.tol] if names[n] in BOTH_SUBGAMES else [])})
        kind = f"plans-{n}-{args.deal}"
        entry = S.cache_load(kind, key)
        if entry is None:
            entry = (build(spec, PAIR_SUBGAMES[names[n]], args, sources.get(n)) if names[n] in PAIR_SUBGAMES else
                     build_both(spec, args, sources.get(n)))
            S.cache_save(kind, key, entry)
        meta = S.unpack_meta(entry)  # the goal is this build's, not the cached one's
        gains = meta["gain"] if "teams" in meta else [meta["pair_gain"], meta["opponent_gain"]]
        meta.update(goal=args.goal, meets_goal=bool(max(gains) <= args.goal))
        entry = {**entry, "meta": S.meta_array(meta)}
        rows.append(meta)
        print(json.dumps({"subgame": n, **{k: meta[k] for k in meta if k not in spec.fields()}}), flush=True)
        if meta["meets_goal"]:
            entries[n] = entry
    bar.close()
    path = Path(args.out) if args.out else plans_path(v, args.deal, "private")
    from musstats.base.files import read_npz

    for k, a in (read_npz(path) or {}).items():  # the subgames not built this time stay as shipped
        n, _, part = k.partition(".")
        if n not in chosen and n in names:
            entries.setdefault(n, {})[part] = a
    if entries:
        S.write_shipped(entries, path)
        print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB): {', '.join(entries)} "
              f"in {time.perf_counter() - t0:.0f} s", flush=True)
    missed = [n for n, m in zip(chosen, rows) if not m["meets_goal"]]
    if missed:
        print(f"not shipped (a gain above {args.goal}): {', '.join(missed)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
