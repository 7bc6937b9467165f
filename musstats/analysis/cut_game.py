"""Who cuts the mus, as a game played before the betting.

From mano round the table each player cuts the mus or asks for it; the first cut ends the
mus phase and the hands are played as dealt, and when all four ask each discards by the
strategy table and draws.  Once the betting that follows is fixed, every deal has five
values for team 0 (mano and third): the hand after a cut by each seat, and the hand after
the round.  These values are team 0's expected stones of the whole hand, exact over the
betting's randomisation (:func:`musstats.analysis.whole_hand.hand_scores`, plus the lances
held by one team only, counted en paso); an accepted órdago counts its ``K`` stones.

The mus decisions then form a game of two pairs whose information is each player's own
hand: a player speaks only when everybody before him asked, so his hand is all he reads.
It plugs into the solver framework (:mod:`musstats.engines.solving`) as a
:class:`~musstats.engines.solving.dealt.DealGame` whose outcome is the deal itself, is solved
by its CFR driver and measured by its exploitability module: per player, a pair changing
together, a pair seeing both hands.  The shipped cut flags are measured in the same game.

Betting sets (``BETTING``): ``"mus-read"`` -- the hands as dealt bet by the strategies that
know who cut (and after the round by the after-mus ones), what ``musstats hand`` bets by;
``"per-lance"`` -- the hand after a cut is bet the same whoever cut.  With ``"per-lance"``
the round is a pure trade of the hands and no equilibrium plays it except where a hand is
indifferent (the no-trade argument of the method notes); with ``"mus-read"`` cutting also
tells the table something, and the mus can be part of an equilibrium.  The strategies that
read who cut are solved on the hands a cut law cuts (shipped beside them,
:func:`musstats.tables.policies.betting_cut_flags`): the two are solved in turn, the betting
on the cuts of the last solve of this game, this game against that betting, and where the
law the betting was solved on is already an equilibrium of this game within the measurement
(:func:`measure_law`) that law is the answer that ships.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from musstats.base.errors import MusError
from musstats.rules.variant import Variant

__all__ = ["CUT_TREE", "BETTING", "CUT", "ASK", "cut_game", "cut_values", "sample_values", "CutEquilibrium",
           "solve_cut", "measure_law", "flags_sigma", "p_cut", "cut_table", "save_equilibrium", "load_equilibrium", "ships",
           "equilibrium_flags", "cut_probabilities", "CUT_RULES", "cut_rule_flags", "played_cut_rule",
           "cut_advice", "EQUILIBRIUM_NOTE"]

#: the betting sets the hands after the mus decision are valued with (module doc)
BETTING = ("mus-read", "per-lance")
#: the actions of every decision, in tree order
CUT, ASK = 0, 1
#: mano, second, third and postre in turn: cut (a terminal: the hands as dealt, that seat cut) or
#: ask; after four asks the terminal of the round (terminal 4)
CUT_TREE = dict(is_term=[0, 1, 0, 1, 0, 1, 0, 1, 1], first=[1, -1, 3, -1, 5, -1, 7, -1, -1],
                n_act=[2, 0, 2, 0, 2, 0, 2, 0, 0], term=[-1, 0, -1, 1, -1, 2, -1, 3, 4],
                owner=[0, -1, 1, -1, 2, -1, 3, -1, -1])
#: the decision node of each seat
SEAT_NODE = (0, 2, 4, 6)
#: deals per disk-cache entry of the values (a run that stops resumes from the last entry)
CHUNK = 100_000
#: the disk cache's spawn key of the deals (apart from every other stream of a seed)
VALUES_KEY = 61
#: what the shipped answer is of, in words
EQUILIBRIUM_NOTE = ("equilibrium of the mus decision: from mano each player cuts or asks knowing only his hand, "
                    "every hand then bet by the strategies musstats hand plays (those that read who cut for the "
                    "hands as dealt, the after-mus ones after the round, the others discarding by the table); "
                    "solved in turn with that betting, which was solved on the hands these cuts give; measured on "
                    "sampled deals; "
                    "cut − ask: your team's stones per hand when you speak (everybody before you asked)")


def cut_game(U: np.ndarray, n_hands: int):
    """The mus decision as a framework game: ``U`` float [5, deals] (team 0's stones: a cut by
    seat 0..3, the round), each seat's state its hand (``n_hands`` of them)."""
    from musstats.engines.solving.game import make_custom_game

    U = np.ascontiguousarray(U, np.float64)
    if U.ndim != 2 or U.shape[0] != 5:
        raise MusError(f"the values of the mus decision are [5, deals], got shape {U.shape}")
    return make_custom_game(CUT_TREE, U, [0, 1, 0, 1], [int(n_hands)] * 4)


def _check_betting(betting: str) -> str:
    if betting not in BETTING:
        raise MusError(f"unknown betting set {betting!r}; accepted: {', '.join(BETTING)}")
    return betting


def cut_values(dealt: np.ndarray, final: np.ndarray, v: Variant, betting: str = "mus-read") -> np.ndarray:
    """float [5, n]: team 0's expected stones of each deal (hands ``dealt`` [n, 4]; ``final``
    [n, 4] the same deals after one mus round) when seat 0..3 cuts, and after the round; the
    lances bet by the set's strategies given who cut (not those solved per public state)."""
    from musstats.analysis.play import unbet_stones
    from musstats.analysis.whole_hand import Hands, hand_scores
    from musstats.engines.betting import deals as D

    _check_betting(betting)
    n = int(dealt.shape[0])
    out = np.empty((5, n))
    zeros = np.zeros((n, 4), np.int64)
    for k in range(5):
        if betting == "per-lance" and 0 < k < 4:  # a cut is bet the same whoever cut
            out[k] = out[0]
            continue
        hands = dealt if k < 4 else final
        pm, jm = D.holder_masks(hands, v)
        h = Hands(dealt, hands, np.full(n, k == 4), np.full(n, k if k < 4 else -1), zeros,
                  pm.astype(np.int64), jm.astype(np.int64))
        # the betting given who cut (the strategies solved per public state are not in this game)
        out[k] = hand_scores(h, betting, betting, v, per_state=False)[:, 0] + unbet_stones(hands, v)
    return out


def _variant(v: Variant | str | None) -> Variant:
    from musstats.analysis.betting import _variant as check

    return check(v or "8-reyes", "off")


def sample_values(n: int, seed: int, variant: Variant | str | None = None, betting: str = "mus-read",
                  progress=None) -> tuple[np.ndarray, np.ndarray]:
    """``n`` deals (seed ``seed``): the hands as dealt int64 [n, 4] and :func:`cut_values`
    [5, n].  Computed in chunks of :data:`CHUNK` deals, each kept in the disk cache as soon as
    it is done (a run that stops resumes); ``progress(done, n)`` after each."""
    from musstats.analysis.whole_hand import _inputs_digest
    from musstats.engines import cache
    from musstats.engines.musphase import deals_after_mus

    v = _variant(variant)
    _check_betting(betting)
    inputs = _inputs_digest(v)
    dealt, U = [], []
    for c, at in enumerate(range(0, int(n), CHUNK)):
        m = min(CHUNK, int(n) - at)
        path = cache.entry_path("cut-values", m, seed, c, v.name, betting, inputs)
        z = cache.load(path)
        if z is None:
            out = deals_after_mus(m, int(seed), v, rounds=1, cut=None, with_dealt=True, key=(VALUES_KEY, c))
            d, f = np.ascontiguousarray(out[:, 5:9]), np.ascontiguousarray(out[:, :4])
            u = cut_values(d, f, v, betting)
            cache.save(path, True, dealt=d, U=u)
        else:
            d, u = np.asarray(z["dealt"]), np.asarray(z["U"])
        dealt.append(d)
        U.append(u)
        if progress is not None:
            progress(at + m, int(n))
    return np.concatenate(dealt), np.concatenate(U, axis=1)


def flags_sigma(game, flags: np.ndarray) -> np.ndarray:
    """The pure strategy of cut flags bool [4, H] in ``game``'s stored layout."""
    sigma = game.uniform()
    f = np.asarray(flags, bool)
    for q, node in enumerate(SEAT_NODE):
        k = int(game.owner[node])
        ns, st = int(game.n_states[k]), int(game.stride[k])
        b = sigma[int(game.obase[k]): int(game.obase[k]) + ns * st].reshape(ns, st)
        b[:, int(game.noff[node]) + CUT] = f[q]
        b[:, int(game.noff[node]) + ASK] = ~f[q]
    return sigma


def p_cut(game, sigma: np.ndarray) -> np.ndarray:
    """float [4, H]: each seat's probability of cutting with each hand."""
    return np.stack([game.block(sigma, node)[:, CUT] for node in SEAT_NODE])


def cut_table(P: np.ndarray, dealt: np.ndarray, U: np.ndarray) -> dict[str, np.ndarray]:
    """Per seat and hand, on the deals ``dealt`` [n, 4] with values ``U`` [5, n] and every seat
    cutting with probabilities ``P`` [4, H]: ``reach`` (the share of the hand's deals in which
    the three before him asked), ``deals`` (how many of its deals), and for the seat's team the
    stones of cutting (``ev_cut``) and of asking (``ev_ask``, the rest of the table by ``P``),
    given that he speaks, with the standard error of their difference (``diff_se``): float [4, H]
    each."""
    n, H = dealt.shape[0], P.shape[1]
    pc = np.stack([P[q, dealt[:, q]] for q in range(4)])  # [4, n]
    after = np.empty((4, n))  # team 0's value once seat q asked
    nxt = U[4]
    for q in range(3, -1, -1):
        after[q] = nxt
        nxt = pc[q] * U[q] + (1 - pc[q]) * nxt
    reach = np.ones((4, n))
    for q in range(1, 4):
        reach[q] = reach[q - 1] * (1 - pc[q - 1])
    out = {k: np.zeros((4, H)) for k in ("reach", "deals", "ev_cut", "ev_ask", "diff_se")}
    for q in range(4):
        sign = 1.0 if q % 2 == 0 else -1.0
        h = dealt[:, q]
        cnt = np.bincount(h, minlength=H).astype(float)
        r = reach[q]
        W = np.bincount(h, r, minlength=H)
        with np.errstate(invalid="ignore", divide="ignore"):
            ec = sign * np.bincount(h, r * U[q], minlength=H) / W
            ea = sign * np.bincount(h, r * after[q], minlength=H) / W
            d = sign * (U[q] - after[q])
            m = np.bincount(h, r * d, minlength=H) / W
            # the ratio estimator's variance: weights r, deals of one hand
            var = np.bincount(h, (r * (d - m[h])) ** 2, minlength=H) / W ** 2
        out["reach"][q] = np.where(cnt > 0, W / np.maximum(cnt, 1), 0.0)
        out["deals"][q] = cnt
        out["ev_cut"][q], out["ev_ask"][q] = np.nan_to_num(ec), np.nan_to_num(ea)
        out["diff_se"][q] = np.sqrt(np.nan_to_num(var))
    return out


@dataclass
class CutEquilibrium:
    """A solved mus decision: ``p_cut`` float [4, H] and :func:`cut_table`'s arrays (on the
    valuing sample), the measures of the equilibrium and of the shipped flags in the same game
    (:meth:`musstats.engines.solving.exploit.Exploitability.to_dict`), ``mus_share`` (how often
    all four ask: equilibrium, flags) and ``meta`` (variant, betting, deals, seeds, solver,
    seconds)."""

    p_cut: np.ndarray
    table: dict[str, np.ndarray]
    measures: dict
    flags_measures: dict
    mus_share: tuple[float, float]
    meta: dict = field(default_factory=dict)
    partial: bool = False


def _mus_share(P: np.ndarray, dealt: np.ndarray) -> float:
    ask = np.ones(dealt.shape[0])
    for q in range(4):
        ask *= 1 - P[q, dealt[:, q]]
    return float(ask.mean())


def _measured_game(n_train: int, n_measure: int, seed: int, v: Variant, betting: str, progress):
    """The mus decision's deal game on ``n_train`` deals to solve on and two samples of
    ``n_measure`` to measure on (seeds ``seed``, ``seed + 1``, ``seed + 2``): (game, deal game,
    the parts' (deals, values), seconds spent on the values)."""
    import time

    from musstats.engines.solving.dealt import DealGame
    from musstats.tables.hands import hand_tables

    t0 = time.perf_counter()
    parts = []
    for i, (m, sd) in enumerate(((n_train, seed), (n_measure, seed + 1), (n_measure, seed + 2))):
        cb = None if progress is None else (lambda d, tot, i=i: progress(("train", "choose", "value")[i], d, tot))
        parts.append(sample_values(m, sd, v, betting, cb))
    U = np.concatenate([u for _, u in parts], axis=1)
    game = cut_game(U, hand_tables(v).n_hands)
    deals, at = [], 0
    for d, _ in parts:
        m = d.shape[0]
        deals.append((np.ascontiguousarray(d, np.int32), np.arange(at, at + m, dtype=np.int64), np.full(m, 1.0 / m)))
        at += m
    return game, DealGame(game, deals[0], choose=deals[1], evaluate=deals[2]), parts, time.perf_counter() - t0


def _equilibrium(game, dg, parts, sigma, v: Variant, team: bool, partial: bool, meta: dict) -> CutEquilibrium:
    """A strategy of the mus decision with its measures, the shipped flags' beside them, its
    per-seat table on the valuation sample and the share of hands with the mus round."""
    from musstats.engines.solving.exploit import measure
    from musstats.tables.policies import cut_flags

    ex = measure(dg, sigma, team=team, pooled=team)
    flags = cut_flags(v)
    exf = measure(dg, flags_sigma(game, flags), team=team, pooled=team)
    P = p_cut(game, sigma)
    d_eval = parts[2][0]
    return CutEquilibrium(P, cut_table(P, d_eval, parts[2][1]), ex.to_dict(), exf.to_dict(),
                          (_mus_share(P, d_eval), _mus_share(flags.astype(float), d_eval)), meta, partial)


def _meta(v: Variant, betting: str, n_train: int, n_measure: int, seed: int) -> dict:
    return {"variant": v.name, "betting": betting, "deals": {"train": n_train, "choose": n_measure, "value": n_measure},
            "seeds": [seed, seed + 1, seed + 2], "units": "stones per hand"}


def solve_cut(n_train: int = 1_000_000, n_measure: int = 500_000, seed: int = 1, *,
              variant: Variant | str | None = None, betting: str = "mus-read", iterations: int = 2_000,
              scheme: str = "dcfr", progress=None, team: bool = True) -> CutEquilibrium:
    """Solve the mus decision (module doc) on ``n_train`` deals (seed ``seed``) and measure the
    equilibrium and the shipped flags on two independent samples of ``n_measure`` (seeds
    ``seed + 1``, ``seed + 2``; responses chosen on the first, valued on the second).
    ``progress(stage, done, total)``."""
    import time

    from musstats.engines.solving.cfr import SolveConfig, solve

    v = _variant(variant)
    game, dg, parts, values_s = _measured_game(n_train, n_measure, seed, v, betting, progress)
    cb2 = None if progress is None else (lambda done, s, ex: progress("solve", done, iterations))
    t1 = time.perf_counter()
    s = solve(dg, SolveConfig.preset(scheme, iterations), progress=cb2)
    solve_s = time.perf_counter() - t1
    meta = {**_meta(v, betting, n_train, n_measure, seed), "solver": s.meta.get("solver"), "iterations": s.iterations,
            "values_seconds": round(values_s, 1), "solve_seconds": round(solve_s, 1)}
    eq = _equilibrium(game, dg, parts, s.sigma, v, team, s.partial, meta)
    eq.meta["measure_seconds"] = round(time.perf_counter() - t1 - solve_s, 1)
    return eq


def measure_law(flags: np.ndarray, n_train: int = 1_000_000, n_measure: int = 500_000, seed: int = 1, *,
                variant: Variant | str | None = None, betting: str = "mus-read", progress=None,
                team: bool = True) -> CutEquilibrium:
    """A cut law (flags bool [4, H]) measured as a strategy of the mus decision, on the samples
    :func:`solve_cut` measures on: the fixed-point check of solving the mus and the betting in
    turn (the law the strategies that read who cut were solved on, against them)."""
    import time

    v = _variant(variant)
    game, dg, parts, values_s = _measured_game(n_train, n_measure, seed, v, betting, progress)
    t1 = time.perf_counter()
    meta = {**_meta(v, betting, n_train, n_measure, seed), "solver": "the cut law the betting was solved on, measured",
            "iterations": 0, "values_seconds": round(values_s, 1), "solve_seconds": 0.0}
    eq = _equilibrium(game, dg, parts, flags_sigma(game, np.asarray(flags, bool)), v, team, False, meta)
    eq.meta["measure_seconds"] = round(time.perf_counter() - t1, 1)
    return eq


def _path(v: Variant):
    from musstats.base.files import data_file

    return data_file("cut_equilibrium", v)


def save_equilibrium(eq: CutEquilibrium, variant: Variant | str | None = None, path=None):
    """Write ``eq`` (atomically) where :func:`load_equilibrium` reads it."""
    import json

    from musstats.base.files import write_npz

    p = path or _path(_variant(variant))
    doc = {"measures": eq.measures, "flags_measures": eq.flags_measures, "mus_share": list(eq.mus_share),
           "meta": eq.meta, "partial": eq.partial}
    write_npz(p, dict(p_cut=eq.p_cut.astype(np.float32), **{k: x.astype(np.float32) for k, x in eq.table.items()},
                      doc=np.array(json.dumps(doc))))
    return p


def load_equilibrium(variant: Variant | str | None = None, path=None) -> CutEquilibrium:
    """The shipped mus-decision equilibrium of the variant (or the file ``path``); MusError where
    none ships.  Read once while the file is unchanged: treat it as read-only."""
    from pathlib import Path

    v = _variant(variant)
    p = Path(path) if path is not None else _path(v)
    if not p.exists():
        raise MusError(f"no mus-decision equilibrium ships for {v.name} (scripts/solve_cut.py builds it)")
    return _read(str(p), p.stat().st_mtime_ns)


@lru_cache(maxsize=4)
def _read(path: str, mtime: int) -> CutEquilibrium:
    """The file at ``path`` (read once while it is unchanged)."""
    import json

    with np.load(path) as z:
        doc = json.loads(str(z["doc"]))
        table = {k: np.asarray(z[k], np.float64) for k in ("reach", "deals", "ev_cut", "ev_ask", "diff_se")}
        P = np.asarray(z["p_cut"], np.float64)
    return CutEquilibrium(P, table, doc["measures"], doc["flags_measures"], tuple(doc["mus_share"]), doc["meta"],
                          bool(doc.get("partial", False)))


def ships(variant: Variant | str | None = None) -> bool:
    """Whether a mus-decision equilibrium ships for the variant."""
    v = variant if isinstance(variant, Variant) else _variant(variant)
    return not v.ten_kings and _path(v).exists()


def cut_probabilities(variant: Variant) -> np.ndarray:
    """float [4, H]: how likely each seat cuts with each hand: the shipped equilibrium where it
    ships, else the shipped cut flags (0 or 1)."""
    if ships(variant):
        return load_equilibrium(variant).p_cut
    from musstats.tables.policies import cut_flags

    return cut_flags(variant).astype(np.float64)


def equilibrium_flags(variant: Variant | str | None = None) -> np.ndarray:
    """bool [4, H]: the shipped equilibrium's cuts as flags, each hand by its likelier choice
    (the equilibrium is pure but for a few hands)."""
    return load_equilibrium(variant).p_cut >= 0.5


#: who cuts the mus in whole hands: the shipped cut flags, or the mus decision's equilibrium
CUT_RULES = ("flags", "equilibrium")


def cut_rule_flags(rule: str, variant: Variant | str | None = None) -> np.ndarray:
    """The cut flags bool [4, H] of a rule of :data:`CUT_RULES` (the equilibrium: each hand by
    its likelier choice)."""
    if rule not in CUT_RULES:
        raise MusError(f"unknown cut rule {rule!r}; accepted: {', '.join(CUT_RULES)}")
    if rule == "equilibrium":
        return equilibrium_flags(variant)
    from musstats.tables.policies import cut_flags

    return cut_flags(variant if isinstance(variant, Variant) else _variant(variant))


def played_cut_rule(variant: Variant | str | None = None) -> str:
    """The rule whole hands are cut by where nothing else is asked for: the mus decision's
    equilibrium where it ships, else the shipped cut flags."""
    return "equilibrium" if ships(variant) else "flags"


def cut_advice(hand: int, seat: int, variant: Variant | str | None = None) -> dict:
    """The equilibrium's answer for one hand index at one seat (0 mano .. 3 postre): the
    probability of cutting, the stones of cutting and of asking for the seat's team given that
    he speaks, their difference ± SE, how often he speaks with it, and what the answer is of."""
    eq = load_equilibrium(variant)
    t = eq.table
    h, q = int(hand), int(seat)
    return {"p_cut": float(eq.p_cut[q, h]), "ev_cut": float(t["ev_cut"][q, h]), "ev_ask": float(t["ev_ask"][q, h]),
            "cut_minus_ask": float(t["ev_cut"][q, h] - t["ev_ask"][q, h]), "se": float(t["diff_se"][q, h]),
            "speaks": float(t["reach"][q, h]), "deals": int(t["deals"][q, h]),
            "mus_share": float(eq.mus_share[0]), "betting": eq.meta.get("betting"), "partial": eq.partial,
            "nashconv": eq.measures.get("nashconv"), "nashconv_se": eq.measures.get("nashconv_se")}
