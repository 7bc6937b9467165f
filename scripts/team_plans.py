"""How far a pair's joint plans are from what the shipped strategies of a subgame give it.

For one subgame (8 reyes, hands as dealt, private information) and one pair, two measures of
what lies beyond the shipped per-player equilibrium:

* ``--restarts N``: CFR (the subgame's own scheme and iterations) started again N times from
  the pair's best joint deviation (its regrets set to that plan, the average emptied); each
  restart's value for mano's team, NashConv and the pair's deviation against it.  Whether the
  individual players' equilibria CFR reaches are the pair's poor ones.
* ``--rounds N``: a double oracle over the pair's joint plans (the partners agree on a plan
  before the hand, each then acting on his own cards: team-maxmin with correlation) against
  the lone opponent's strategies: each round solves the matrix game of the plans and
  strategies found so far (regret matching, 20,000 iterations), adds the pair's best joint
  plan against the opponent's mixture (alternating best responses from several starts) and
  the opponent's best response to the pair's mixture.  It prints the restricted game's value
  and the two oracles' values: the pair's correlated value lies between what the opponent's
  best response leaves the pair's mixture and what the pair's best plan takes from the
  opponent's mixture (up to the plan search being a lower bound).

* ``--columns N``: column generation (:func:`musstats.engines.solving.team.correlated_plans`):
  the lone opponent learns by CFR against the pair's mixture of plans, the pair's oracle adds a
  plan each round, N rounds at most.  Then, on an independent sample: the mixture's value, what
  the lone opponent's best response (chosen on the first sample) gains against it, and what
  the pair's best joint plan gains against the opponent's strategy; the same for the mixture
  played as one behaviour strategy per partner (partners who agree on no plan).

* ``--exact N``: both teams' plans at once (:func:`musstats.engines.solving.team.team_plans`):
  a double oracle over the joint plans of both pairs (or of a lone holder), exact over the
  deals, N rounds at most; each round's value, bounds, each team's gain from its best plan and
  what each team seeing both its hands takes, in stones per lance for mano's team.  Where both
  pairs draw plans, at the end the plans as they would ship (weights below ``--floor`` dropped
  and the rest renormalised, each plan quantised in steps of 1/255) measured exactly
  (:func:`musstats.engines.solving.team.measure_both_plans`): ``as_shipped``.

    python scripts/team_plans.py juego 7 --team 0 --restarts 2 --rounds 40 [--samples 20000]
    python scripts/team_plans.py juego 7 --team 0 --columns 40 --samples 100000 [--deal after-mus] [--full-every 10]
                                 [--out FILE.npz] [--from FILE.npz]
    python scripts/team_plans.py juego 15 --exact 400 [--minutes 60] [--out FILE.npz] [--from FILE.npz]
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    from musstats.engines.betting.solve import config_of, measure_solved, solver_game
    from musstats.engines.betting.specs import Spec
    from musstats.engines.betting.store import get_solved
    from musstats.engines.solving.cfr import SolverState, solve
    from musstats.engines.solving.exploit import ratio, team_owners, team_search
    from musstats.engines.solving.game import Sample
    from musstats.engines.solving.team import matrix_game, mixed_behaviour
    from musstats.rules.variant import Variant

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lance")
    ap.add_argument("pattern", type=int, nargs="?", default=15)
    ap.add_argument("--team", type=int, default=0, help="the pair: 0 mano+third, 1 second+postre")
    ap.add_argument("--restarts", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=0)
    ap.add_argument("--columns", type=int, default=0, help="rounds of column generation")
    ap.add_argument("--iterations", type=int, default=2000, help="CFR+ iterations of each restricted game")
    ap.add_argument("--per-round", type=int, default=1, help="plans the oracle adds per round at most")
    ap.add_argument("--full-every", type=int, default=1,
                    help="search the pair's plan from every start only every N-th round (and when the two starts "
                         "from the best plan, each partner answering first, find nothing better)")
    ap.add_argument("--out", default=None, help="an .npz for the plans, their weights and the opponent's strategy")
    ap.add_argument("--from", dest="start", default=None,
                    help="an .npz of --out: column generation starts with its plans (goes on where that run stopped)")
    ap.add_argument("--samples", type=int, default=20_000, help="samples per owner of the oracles and values")
    ap.add_argument("--deal", default="as-dealt", choices=("as-dealt", "after-mus"))
    ap.add_argument("--exact-sums", action="store_true",
                    help="--columns: every measure exact over the deals, from the teams' pair sums (hands as dealt)")
    ap.add_argument("--exact", type=int, default=0, help="rounds of the exact double oracle over both teams' plans")
    ap.add_argument("--tol", type=float, default=0.002, help="--exact: stop when the bounds meet within this")
    ap.add_argument("--minutes", type=float, default=None, help="--exact: stop after the round that passes this")
    ap.add_argument("--bank-gb", type=float, default=8.0,
                    help="--exact: GiB of the other team's sums kept against the plans (the rest summed again)")
    ap.add_argument("--floor", type=float, default=1e-4,
                    help="--exact: plans lighter than this are dropped from the figures as they would ship")
    args = ap.parse_args(argv)
    spec = Spec(lance=args.lance, pattern=args.pattern, deal=args.deal, info="private", variant=Variant())
    shipped = get_solved(spec, solve=False)
    if shipped is None:
        raise SystemExit(f"no shipped strategy for {spec.name}")
    t = args.team
    t0 = time.perf_counter()

    def emit(row: dict) -> None:
        print(json.dumps({**row, "seconds": round(time.perf_counter() - t0)}), flush=True)

    if args.restarts:
        sg = solver_game(spec, purpose="train")
        lay = sg.layout
        SIG = lay.from_game(shipped.sigma)
        for r in range(args.restarts):
            gain, _, dev, how = team_search(sg, SIG, t, sample=Sample("choose", 50 + r))
            R = lay.zeros()
            for k in team_owners(sg, t):
                rb, m, rows = int(lay.tb[k]), int(lay.m[k]), lay.rows(k)
                R[rb: rb + rows, :m] = lay.owner_rows(dev, k) * 100.0
            st = solve(sg, config_of(spec), start=SolverState(R, lay.zeros(), dev, 0))
            ex = measure_solved(spec, lay.game, st.sigma, team=True, team_samples=50_000)
            emit({"restart": r, "from_gain_in_sample": round(gain, 4), "found_from": how, "value": ex["value"],
                  "nashconv": ex["nashconv"], "team_gain": ex["team_gain"], "team_gain_se": ex["team_gain_se"]})
            SIG = lay.from_game(st.sigma)

    if args.rounds:
        sg = solver_game(spec, purpose="measure", samples=args.samples)
        lay = sg.layout
        base = lay.from_game(shipped.sigma)
        pair, other = team_owners(sg, t), team_owners(sg, 1 - t)
        if len(other) != 1:
            raise SystemExit("the double oracle needs a lone opponent (a pattern where the other team has one holder)")
        k1, k0 = other[0], pair[0]
        C = Sample("choose")

        def profile(P: dict, Q: np.ndarray) -> np.ndarray:
            S = base
            for k in pair:
                S = lay.with_rows(S, k, P[k])
            return lay.with_rows(S, k1, Q)

        def value(P: dict, Q: np.ndarray) -> float:
            return ratio(*sg.sample_values(k0, profile(P, Q), C))[0] * (1 if t == 0 else -1)

        P = [{k: lay.owner_rows(base, k) for k in pair}]
        Q = [lay.owner_rows(base, k1)]
        M = np.array([[value(P[0], Q[0])]])
        for r in range(args.rounds):
            w, q, _, _ = matrix_game(M, gap=1e-5, iterations=20_000)
            qb = mixed_behaviour(lay, base, k1, Q, q)  # the opponent's mixture as one behaviour strategy
            _, _, dev, _ = team_search(sg, profile(P[int(np.argmax(w))], qb), t, sample=C)
            Pn = {k: lay.owner_rows(dev, k) for k in pair}
            T = sum(wi * sg.terminal_sums(k1, profile(Pi, Q[0]), C) for Pi, wi in zip(P, w) if wi > 1e-9)
            Qn = lay.best_response(k1, T)
            emit({"round": r, "plans": len(P), "restricted": round(float(w @ M @ q), 4),
                  "pair_best_vs_mixture": round(value(Pn, qb), 4),
                  "pair_mixture_vs_best": round(float(sum(wi * value(Pi, Qn) for Pi, wi in zip(P, w) if wi > 1e-9)), 4)})
            P.append(Pn)
            Q.append(Qn)
            M2 = np.zeros((len(P), len(Q)))
            M2[:-1, :-1] = M
            M2[:, -1] = [value(Pi, Q[-1]) for Pi in P]
            M2[-1, :-1] = [value(P[-1], Qj) for Qj in Q[:-1]]
            M = M2
    if args.columns:
        columns(spec, shipped.sigma, t, args, emit)
    if args.exact:
        exact(spec, shipped.sigma, args, emit)
    return 0


def _columns_npz(plans: list, weights: np.ndarray, Q: np.ndarray) -> bytes:
    """A pair's plans, their weights and the lone holder's strategy as an .npz (``weights``, ``Q``,
    ``owners``, ``plan{j}_{k}``: what ``--from`` and ``build_plans.py --import`` read)."""
    buf = io.BytesIO()
    np.savez_compressed(buf, weights=np.asarray(weights, float), Q=Q, owners=np.array(sorted(plans[0])),
                        **{f"plan{j}_{k}": P[k] for j, P in enumerate(plans) for k in P})
    return buf.getvalue()


def _plans_npz(plans: tuple, weights: tuple) -> bytes:
    """Both teams' plans and weights as an .npz (``w{t}``, ``owners{t}``, ``plan{t}_{j}_{k}``)."""
    buf = io.BytesIO()
    arrays = {}
    for t in (0, 1):
        arrays[f"w{t}"] = np.asarray(weights[t], float)
        arrays[f"owners{t}"] = np.array(sorted(plans[t][0]))
        arrays.update({f"plan{t}_{j}_{k}": P[k] for j, P in enumerate(plans[t]) for k in P})
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


def read_plans(path: str) -> tuple[tuple, tuple]:
    """Both teams' plans and weights of a file that ``--exact N --out FILE`` wrote."""
    z = np.load(path, allow_pickle=False)
    out = []
    for t in (0, 1):
        owners = [int(k) for k in z[f"owners{t}"]]
        out.append([{k: z[f"plan{t}_{j}_{k}"] for k in owners} for j in range(len(z[f"w{t}"]))])
    return tuple(out), (np.asarray(z["w0"], float), np.asarray(z["w1"], float))


def exact(spec, sigma, args, emit) -> None:
    """The exact double oracle over both teams' plans from the shipped strategies."""
    from musstats.base.files import atomic_write_bytes
    from musstats.engines.betting.solve import solver_game
    from musstats.engines.solving.exploit import team_owners
    from musstats.engines.solving.team import mixed_behaviour, team_plans

    sg = solver_game(spec, purpose="measure", samples=1_000)
    lay = sg.layout

    def row(r: dict) -> None:
        emit({k: (round(x, 4) if isinstance(x, float) else
                  [round(y, 4) if isinstance(y, float) else y for y in x] if isinstance(x, list) else x)
              for k, x in r.items() if k != "seconds"})

    res = team_plans(sg, lay.from_game(sigma), rounds=args.exact, tol=args.tol, per_round=args.per_round,
                     seconds=None if args.minutes is None else 60 * args.minutes, bank_bytes=args.bank_gb * 2 ** 30,
                     plans=read_plans(args.start)[0] if args.start else None, progress=row)
    if args.out:
        lone = [t for t in (0, 1) if len(team_owners(sg, t)) == 1]
        if len(lone) == 1:  # a pair against a lone holder: the pair's plans and his strategy, as --columns writes them
            t, k1 = 1 - lone[0], team_owners(sg, lone[0])[0]
            Q = mixed_behaviour(lay, lay.from_game(sigma), k1, [p[k1] for p in res.plans[1 - t]], res.weights[1 - t])
            atomic_write_bytes(Path(args.out), _columns_npz(res.plans[t], res.weights[t], Q))
        else:
            atomic_write_bytes(Path(args.out), _plans_npz(res.plans, res.weights))
    emit({"plans": [len(p) for p in res.plans], "partial": res.partial})
    if all(len(team_owners(sg, t)) == 2 for t in (0, 1)):
        emit({"as_shipped": _as_shipped(sg, lay.from_game(sigma), res, args.floor)})


def _as_shipped(sg, SIG: np.ndarray, res, floor: float) -> dict:
    """Both teams' plans of a double-oracle run as they would ship (pruned at ``floor``,
    renormalised, quantised), measured exactly."""
    from musstats.engines.solving.team import both_as_shipped

    _, weights, dropped, fig = both_as_shipped(sg, SIG, res.plans, res.weights, floor)
    return {"plans": [len(w) for w in weights], "weight_dropped": [round(x, 5) for x in dropped],
            "value": round(fig["value"], 4), "gain": [round(x, 4) for x in fig["gain"]],
            "seeing_both": [round(x, 4) for x in fig["seeing_both"]], "found_from": fig["found_from"]}


def columns(spec, sigma, t: int, args, emit) -> None:
    """Column generation from the shipped strategies, then its figures on an independent sample."""
    from musstats.base.files import atomic_write_bytes
    from musstats.engines.betting.solve import solver_game
    from musstats.engines.solving.team import correlated_plans, measure_mixture

    sg = solver_game(spec, purpose="measure", samples=args.samples)
    if args.exact_sums:
        from musstats.engines.solving.pairs import ExactPairs

        sg = ExactPairs(sg)
    lay = sg.layout
    SIG = lay.from_game(sigma)
    quick = (("strategy", 0), ("strategy", 1)) if args.full_every > 1 else None
    before = None
    if args.start:
        z = np.load(args.start, allow_pickle=False)
        owners = [int(k) for k in z["owners"]]
        before = [{k: z[f"plan{j}_{k}"] for k in owners} for j in range(1, len(z["weights"]))]
    res = correlated_plans(sg, SIG, t, rounds=args.columns, iterations=args.iterations, per_round=args.per_round,
                           quick=quick, full_every=args.full_every, plans=before,
                           progress=lambda row: emit({k: (round(x, 4) if isinstance(x, float) else x)
                                                      for k, x in row.items()}))
    if args.out:
        atomic_write_bytes(Path(args.out), _columns_npz(res.plans, res.weights, res.Q))
    figures = measure_mixture(sg, [res.profile(SIG, lay, j) for j in range(len(res.plans))], res.weights, t,
                              response=res.response)
    emit({"plans": len(res.plans), "support": int((res.weights > 1e-3).sum()), "partial": res.partial, **figures})


if __name__ == "__main__":
    raise SystemExit(main())
