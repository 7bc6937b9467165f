"""Equilibrium betting: what to bet, accept or refuse in a lance, and what it is worth.

Every lance's betting is a game solved by CFR (:mod:`musstats.engines.betting`): the
public tree of the abstraction (``tree_text``), payoffs in stones zero-sum between the
teams, deals from the real joint distribution (as dealt, or after one mus round with
the shipped discard table) conditioned on the public declarations, and two
information models, ``private`` (each player sees his own hand: the real game) and
``pooled`` (each team sees what decides the lance from both its hands: perfect señas).

* :func:`bet` -- at a player's turn after a public history: the equilibrium probability
  and the expected stones (Monte Carlo, with standard errors) of every action, at that
  node and at every later node where he speaks.
* :func:`strategy_frame` -- the whole strategy as a table (``musstats bet --export``).
* :func:`solve` -- train one subgame with given iterations and seed.
* :func:`tree_text` -- the public tree of a lance (``musstats bet --tree``).
* :func:`ev_table` -- per hand, seat and lance: expected stones under equilibrium
  betting beside the en-paso value (for the strategy table).
* :func:`exploitability_table`, :func:`convergence_frame` -- how close to equilibrium the
  strategies are, and how they got there.

The default strategies of 8 reyes (every lance and declaration pattern: private
information with the hands as dealt and after a mus round, pooled information with the
hands as dealt) ship in ``musstats/data/betting_*.npz``; anything else (other decks and
switches, other settings) is solved on first use and cached on disk
(:mod:`musstats.engines.cache`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.betting import deals as D
from musstats.engines.betting.abstraction import DEFAULT_ABSTRACTION, Abstraction
from musstats.engines.betting.game import StonePayoff, paso_stones
from musstats.engines.betting.info import prepare
from musstats.engines.betting.solve import Solved
from musstats.engines.betting.specs import DEFAULT_SEED, Spec
from musstats.engines.betting.store import get_solved
from musstats.engines.betting.tree import (ALL_SEATS, betting_tree, contested, pattern_mask,
                                           pattern_text, subgame_text)
from musstats.engines.solving.cfr import SCHEME_TEXT
from musstats.rules.labels import LANCES, SEATS
from musstats.rules.variant import Variant, make_variant

__all__ = ["bet", "BetResult", "strategy_frame", "solve", "tree_text", "ev_table", "exploitability_table",
           "convergence_frame", "value_gap_table", "declaration_pattern", "STRATEGY_COLUMNS", "EV_COLUMNS", "DEFAULT_TRIALS",
           "INFO_CHOICES", "DEAL_CHOICES", "betting_gain", "shipped_gain", "gain_key", "write_gain", "GAIN_DEALS",
           "GAIN_DEALS_MODELS", "GAIN_MIN_DEALS", "GAIN_TABLES", "MUS_GAIN_DEALS", "played_profiles", "plans_key"]

#: deals of the Monte Carlo EV of :func:`bet`
DEFAULT_TRIALS = 20_000
#: a point of the betting reached in fewer than this share of the deals that reach the
#: player's first turn is marked ``rare`` (its figures rest on few deals)
RARE_SHARE = 0.005
INFO_CHOICES = ("private", "pooled")
DEAL_CHOICES = D.DEALS
#: columns of :func:`strategy_frame`
STRATEGY_COLUMNS = ("lance", "pattern", "info", "deal", "seat", "hand", "hand_index", "history", "action", "p")
#: deals per kernel call of :func:`ev_table`
EV_CHUNK = 1 << 16
#: columns of :func:`ev_table`
EV_COLUMNS = ("hand", "hand_index", "seat", "lance", "p_bet", "ev_paso", "ev_eq", "ev_eq_se", "gain", "deals")


def _lance(x) -> str:
    from musstats.rules.checks import lance

    return lance(x)


def _info(x) -> str:
    from musstats.rules.checks import choice

    return choice(x, INFO_CHOICES, "information model")


def _variant(variant, juego_real) -> Variant:
    v = variant if isinstance(variant, Variant) else make_variant(variant, juego_real)
    if v.ten_kings:
        raise MusError("betting equilibria are not available with ten kings (a joker's identity depends "
                       "on the bets); accepted variants: 8-reyes, 4-reyes")
    return v


# ---------------------------------------------------------------------------
# declarations

def declaration_pattern(lance: str, hand_index: int | None, seat: int | None, declared: str | None,
                        variant: Variant) -> int:
    """The bit mask of the seats that hold ``lance`` (pares, juego) from the player's own
    hand and ``declared`` (``"second:pares,postre:no-pares"``); a seat not declared holds
    it.  For punto and juego, checks that punto is (not) played.  MusError when the
    lance is not bet under the declarations."""
    from musstats.tables.hands import JUEGO, PARES, hand_tables

    t = hand_tables(variant)
    from musstats.rules.conditions import parse_declared

    declared_by = parse_declared(declared)
    if lance in ("grande", "chica"):
        return ALL_SEATS
    held = {q: True for q in range(4)}
    juego_said = {q: d["juego"] for q, d in declared_by.items() if "juego" in d}
    pares_said = {q: d["pares"] for q, d in declared_by.items() if "pares" in d}
    own_p = own_j = None
    if hand_index is not None:
        own_p = bool(t.key[PARES, hand_index] > 0)
        own_j = bool(t.key[JUEGO, hand_index] > 0)
        for said, mine, name in ((pares_said, own_p, "pares"), (juego_said, own_j, "juego")):
            if seat in said and said[seat] != mine:
                raise MusError(f"--declared {SEATS[seat]}:{'' if said[seat] else 'no-'}{name} does not match "
                               f"your hand, which {'holds' if mine else 'does not hold'} {name}")
    if lance == "punto":
        if own_j:
            raise MusError(f"punto is not played: you hold juego ({int(t.points[hand_index])} points)")
        if any(juego_said.values()):
            who = ", ".join(SEATS[q] for q, v in juego_said.items() if v)
            raise MusError(f"punto is not played: {who} declared juego")
        return ALL_SEATS
    said = pares_said if lance == "pares" else juego_said
    own = own_p if lance == "pares" else own_j
    for q in range(4):
        if q == seat and own is not None:
            held[q] = own
        elif q in said:
            held[q] = said[q]
    mask = pattern_mask(q for q in range(4) if held[q])
    if not contested(mask):
        holders = pattern_text(mask)
        raise MusError(f"no betting on {lance} under these declarations: only {holders} hold{'s' if bin(mask).count('1') == 1 else ''} "
                       f"it (betting needs a holder in each team)" if mask else
                       f"no betting on {lance}: nobody holds it under these declarations")
    return mask


# ---------------------------------------------------------------------------
# solving and loading


def _spec(lance: str, pattern: int, deal: str, info: str, variant: Variant, **kw) -> Spec:
    return Spec(lance=lance, pattern=pattern, deal=deal, info=info, variant=variant, **kw)


def solve(lance: str, *, declared: str | None = None, pattern: int | None = None, deal: str = "as-dealt",
          info: str = "private", variant: str | Variant = "8-reyes", juego_real: str = "off",
          iterations: int | None = None, seed: int | None = None, abstraction: Abstraction = DEFAULT_ABSTRACTION,
          ordago_stones: float | None = None, progress: Callable[[int, float, float | None], None] | None = None,
          history_every: int = 0, cache: bool = True, use_stored: bool = True, pool: int | None = None,
          batch: int | None = None, eval_deals: int | None = None) -> Solved:
    """Train (or load) the strategy of one lance.

    ``pattern`` (bit mask, bit q = seat q) or ``declared`` give who holds pares / juego.
    ``iterations`` and ``seed`` default to those of the shipped strategies (then the
    shipped or cached strategy is returned at once).  ``progress(iteration, seconds,
    exploitability or None)`` is called after every iteration; Ctrl-C stops between
    iterations and returns the strategy so far (``partial``).  With ``use_stored``
    false the strategy is trained even when one is stored.
    """
    from musstats.engines.betting.solve import solve_subgame
    from musstats.rules.checks import MAX_ITERATIONS, positive
    from musstats.rules.checks import seed as check_seed

    lance = _lance(lance)
    v = _variant(variant, juego_real)
    deal = D.check_deal(deal)
    info = _info(info) if info in INFO_CHOICES else info
    if pattern is None:
        pattern = declaration_pattern(lance, None, None, declared, v)
    it = None if iterations is None else positive(iterations, "iterations", MAX_ITERATIONS)
    sd = DEFAULT_SEED if seed is None else check_seed(seed)
    payoff = StonePayoff() if ordago_stones is None else StonePayoff(float(ordago_stones))
    extra = {k: x for k, x in (("pool", pool), ("batch", batch)) if x is not None}
    spec = _spec(lance, pattern, deal, info, v, abstraction=abstraction, payoff=payoff, iterations=it, seed=sd,
                 **extra)
    ev: dict[str, Any] = {} if eval_deals is None else {"eval_deals": int(eval_deals)}
    if use_stored and not history_every:
        got = get_solved(spec, progress=progress, cache=cache, **ev)
        assert got is not None  # get_solved solves what is not stored (solve=True)
        return got
    return solve_subgame(spec, progress=progress, history_every=history_every, **ev)


def _strategy(lance, pattern, deal, info, v, solve_missing=True, method: str = "auto") -> Solved:
    s = get_solved(_spec(lance, pattern, deal, info, v, method=method), solve=solve_missing)
    if s is None:
        raise MusError(f"no stored strategy for {lance} with {v.name} ({deal}, {info} information): it would be "
                       f"solved first (minutes); the shipped strategies cover 8 reyes without juego real")
    return s


def played_strategy(lance: str, pattern: int, deal: str, v: Variant, *, read_cut: bool = False,
                    solve_missing: bool = True) -> Solved:
    """The private-information strategy a lance is bet by for the hands of a deal model; with
    ``read_cut`` the hands as dealt are bet by the strategies that read who cut (deal model
    ``cut``, information model ``mus-read``)."""
    if read_cut and deal == "as-dealt":
        return _strategy(lance, pattern, D.CUT, "mus-read", v, solve_missing)
    return _strategy(lance, pattern, deal, "private", v, solve_missing)


# ---------------------------------------------------------------------------
# bet


@dataclass
class BetResult:
    """The answer of :func:`bet`: one entry per node where the player speaks, from his
    decision point on.  ``nodes[i]`` = ``{"history": [...], "actions": {action: {"p", "ev",
    "se"}}, "weight": share of the deals that reach it}``; ``ev`` is the expected stones of
    the player's team after taking the action there (and playing the equilibrium on),
    ``se`` its Monte Carlo standard error."""

    hand: str
    seat: str
    lance: str
    nodes: list[dict]
    meta: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {**self.meta, "hand": self.hand, "seat": self.seat, "lance": self.lance, "nodes": self.nodes}

    def to_frame(self):
        """One row per (node, action): history, action, p, ev, se."""
        import pandas as pd

        rows = []
        for nd in self.nodes:
            for a, x in nd["actions"].items():
                rows.append({"history": ",".join(nd["history"]), "action": a, "p": x["p"], "ev": x["ev"],
                             "se": x["se"]})
        df = pd.DataFrame(rows, columns=["history", "action", "p", "ev", "se"])
        df.attrs.update(self.meta)
        return df


def _subgame_deals_for(deal, v, lance, pattern, h, seat, n, seed, cards=None, cut: int | None = None) -> np.ndarray:
    """Deals with hand ``h`` at ``seat`` in the subgame, at most ``n`` (fewer for rare
    conditions); with ``cut``, those in which the other seats called the mus as the shipped cut
    flags call it when seat ``cut`` cut (the seats before it asked, it cut)."""
    got, have, rnd = [], 0, 0
    while have < n and rnd < 40:
        d = D.conditioned_deals(deal, v, h, seat, n if deal == "as-dealt" else 10 ** 9, seed + 7919 * rnd, cards)
        pm, jm = D.holder_masks(d, v)
        keep = D.in_subgame(pm, jm, lance, pattern)
        if cut is not None:
            keep &= _calls_fit(d, v, cut, skip=seat)
        d = d[keep]
        got.append(d[: n - have])
        have += got[-1].shape[0]
        rnd += 1
        if deal != "as-dealt":
            break
    return np.concatenate(got) if got else np.zeros((0, 4), np.int64)


def _calls_fit(deals: np.ndarray, v: Variant, cut: int, skip: int | None = None) -> np.ndarray:
    """Per deal, whether every seat but ``skip`` called the mus as the cut law of the strategies
    that read who cut calls it when seat ``cut`` cut: the seats before it ask, it cuts (the
    seats after it do not speak)."""
    from musstats.tables.policies import betting_cut_flags

    flags = betting_cut_flags(v)
    ok = np.ones(deals.shape[0], bool)
    for s in range(int(cut) + 1):
        if s != skip:
            cuts = flags[s, deals[:, s]]
            ok &= cuts if s == cut else ~cuts
    return ok


def action_ev(sums: np.ndarray) -> dict[str, float | None]:
    """``{"ev", "se"}`` of one action from its row of :func:`musstats._kernels.cfr.node_sums`
    (a ratio estimate and its delta-method standard error; None where no deal reaches it)."""
    c, c2, cx, c2x, c2xx, _ = (float(x) for x in sums)
    if c <= 0:
        return {"ev": None, "se": None}
    m = cx / c
    var = max(c2xx - 2 * m * c2x + m * m * c2, 0.0)
    return {"ev": round(m, 4), "se": round(float(np.sqrt(var)) / c, 4)}


def bet(hand, seat: str | int, *, lance: str, history: str | Sequence[str] | None = None,
        declared: str | None = None, deal: str = "as-dealt", info: str = "private",
        variant: str | Variant = "8-reyes", juego_real: str = "off", partner=None,
        trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED, solve: bool = True,
        cut: str | int | None = None, plan_seed: int | None = None) -> BetResult:
    """The equilibrium betting of ``hand`` at ``seat`` in ``lance`` after ``history``.

    ``history``: the public actions so far, e.g. ``"paso,envido 2"`` (default: the
    player's first turn).  ``declared``: who declared pares / juego; a seat not named is
    taken to hold the lance (said in the answer's ``undeclared``).  ``deal``: ``as-dealt`` or ``after-mus``; ``info``: ``private`` or
    ``pooled``.  ``partner``: the partner's hand (pooled model; otherwise averaged over
    his hands).  The probabilities are the strategy's; the expected stones are a Monte
    Carlo over ``trials`` deals that give the player his hand (and fit the
    declarations), each weighted by how likely the others' hands make the public
    history (their equilibrium reach), with standard errors.  A later point reached in
    fewer than :data:`RARE_SHARE` of the deals that reach the first is marked ``rare``.
    ``solve``: solve the strategy when none is stored (else MusError: the shipped ones
    cover 8 reyes without juego real).  ``cut``: the seat that cut the mus (hands as dealt,
    private information): the lance is bet by the equilibrium given who cut (information model
    ``mus-read``, as :func:`musstats.analysis.reading.hand` after a cut), over the deals in
    which the others called the mus as the shipped cut flags do; where the player's own call
    departs from the flags those strategies never meet his hand, and the per-lance equilibrium
    answers (said in the notes).

    Where correlated plans ship (hands as dealt, private information, :func:`_profiles`), the
    lance is bet by them: where a pair of holders faces one holder, the lone holder by his
    strategy against the pair's plans, with EVs against their mixture; a partner of a pair that
    plays plans by the plan that ``plan_seed`` draws for his pair (the same seed as his partner's
    draws the same plan), with EVs against the other pair's mixture where both pairs play plans,
    and without a seed by the per-lance equilibrium (said in the notes).
    """
    import time

    from musstats._kernels.cfr import mixture_node_sums, node_sums
    from musstats.engines.solving.game import chunk_bounds
    from musstats.rules.cards import parse_hand
    from musstats.rules.checks import MAX_SEED, positive, whole
    from musstats.rules.seats import parse_seat
    from musstats.tables.hands import hand_tables

    t0 = time.perf_counter()
    lance = _lance(lance)
    v = _variant(variant, juego_real)
    deal = D.check_deal(deal)
    info = _info(info)
    trials = positive(trials, "trials", 5_000_000)
    if plan_seed is not None:
        plan_seed = whole(plan_seed, "plan seed", 0, MAX_SEED)
    cards = parse_hand(hand)
    q = parse_seat(seat)
    t = hand_tables(v)
    t.remaining(cards)
    h = t.index_of(cards)
    pattern = declaration_pattern(lance, h, q, declared, v)
    tree = betting_tree(lance, pattern)
    if q not in tree.speakers:
        raise MusError(f"you have no say in {lance}: you did not declare {lance} (only "
                       f"{pattern_text(pattern)} speak); your partner answers for the team")
    if history is None:
        node = tree.first_turn(q)
    else:
        node = tree.parse_history(history, q)
    assert node is not None  # q speaks (checked above), so it has a first turn
    notes = []
    cutter, fits = (None, False) if cut is None else _cutter(cut, q, h, deal, info, v)
    if not fits and cutter is not None:
        notes.append(OFF_FLAGS + ", over the deals in which the others called as the flags do")
    if fits:
        sol = played_strategy(lance, pattern, deal, v, read_cut=True, solve_missing=solve)
    else:
        sol = _strategy(lance, pattern, deal, info, v, solve_missing=solve)
    sigma, mixture, plans, plan_notes = _profiles(sol, q, pattern, plan_seed, info == "private" and cut is None)
    notes += plan_notes
    game = sol.game
    k = game.seat_owner[q]
    deals = _subgame_deals_for(deal, v, lance, pattern, h, q, trials, int(seed), cards, cut=cutter)
    if partner is not None:
        if info != "pooled":
            raise MusError("--partner is for the pooled model (info=pooled): in the private model a player "
                           "does not see his partner's hand")
        pc = parse_hand(partner)
        from musstats.rules.cards import check_physical

        check_physical(list(cards) + list(pc), "your hand and your partner's together")
        deals = deals[deals[:, (q + 2) % 4] == t.index_of(pc)]
    if deals.shape[0] < trials:
        notes.append(f"{deals.shape[0]:,} deals fit the hand and the declarations (asked {trials:,})")
    if deals.shape[0] == 0:
        raise MusError(f"no deal gives {SEATS[q]} this hand under these declarations ({deal})")
    st, o, w = prepare(game, deals, v, lance, cutter=cutter if game.info == "mus-read" else None)
    max_act = int(tree.n_act.max())
    if mixture is None:
        acc = node_sums(chunk_bounds(st.shape[0]), st, o, w, sigma, game.kernel_args(), game.U, k, max_act)
    else:
        va, vb, Aw, B, rel = mixture
        acc = mixture_node_sums(chunk_bounds(st.shape[0]), st, o, w, sigma, va, vb, Aw, B, rel, game.kernel_args(),
                                game.U, k, max_act)
    acc = acc.sum(axis=0)
    own_state = int(st[0, k]) if game.columns[k][0] == "seat" else None
    nodes_out = []
    root_w = None
    for n in tree.subtree(node):
        nd = tree.nodes[n]
        if nd.is_terminal or nd.seat != q:
            continue
        a_sum = acc[n]
        wsum = a_sum[0, 0]
        if root_w is None:
            root_w = wsum
        acts: dict[str, dict[str, float | None]] = {}
        for a, label in enumerate(nd.actions):
            c, cs = a_sum[a][0], a_sum[a][5]
            if own_state is not None:
                p = float(game.strategy_at(sigma, n, own_state)[a])
            else:
                p = float(cs / c) if c > 0 else float("nan")
            acts[label] = {"p": round(p, 4), **action_ev(a_sum[a])}
        share = float(wsum / root_w) if root_w else None
        nodes_out.append({"history": list(nd.history), "actions": acts, "weight": None if share is None else round(share, 4),
                          "rare": share is not None and share < RARE_SHARE})
    rare = sum(1 for x in nodes_out if x["rare"])
    if rare:
        notes.append(f"{rare} later point(s) are reached in under {100 * RARE_SHARE:g} % of the deals that reach "
                     f"your first turn (marked rare): their figures rest on few deals")
    meta = {
        "variant": v.name, "rules": v.describe(), "lance": lance,
        "declared": pattern_text(pattern) if lance in ("pares", "juego") else None,
        "undeclared": (f"a seat not named in --declared is taken to hold {lance}" if lance in ("pares", "juego")
                       else None),
        "deal": deal, "info": info, "cut": None if cutter is None else SEATS[cutter],
        "strategies": (plans["strategies"] if plans else
                       "the equilibrium of the lance given who cut (mus-read)" if game.info == "mus-read" else
                       f"the per-lance equilibrium ({deal}, {info} information)"
                       + (f", {sol.spec.mirror_text}" if sol.spec.mirror else "")),
        "plans": plans,
        "abstraction": tree.abstraction.describe(),
        "iterations": sol.iterations, "seed": sol.spec.seed, "strategy_source": sol.source,
        "scheme": SCHEME_TEXT.get(sol.spec.method, sol.spec.method),
        "exploitability": sol.exploit, "ordago_stones": getattr(sol.spec.payoff, "ordago", None),
        "ev_deals": int(deals.shape[0]), "ev_seed": int(seed), "ev_method": "Monte Carlo, counterfactual "
        "(deals weighted by the other players' equilibrium reach of the history)",
        "units": "stones per lance for your team", "notes": notes,
        "seconds": round(time.perf_counter() - t0, 3),
    }
    return BetResult(" ".join(c.label for c in cards), SEATS[q], lance, nodes_out, meta)


def played_profiles(sol: Solved) -> tuple[np.ndarray, dict]:
    """What a subgame is played by under its equilibrium: (the profile in the stored layout, the
    teams that mix plans ``{team: (profiles [P, slots], weights [P])}``).  Where shipped
    correlated plans exist (private information, hands as dealt, the team-sound strategies),
    each such team's partners draw one joint plan together (each team independently), read for
    its owners, and the others play the profile: a pair's plans against one holder, whose
    strategy against their mixture is the profile (the same in every plan); or both pairs'
    plans.  Elsewhere ``sol``'s equilibrium alone and ``{}``.  Every surface that plays or values
    the equilibrium reads it here
    (:class:`~musstats.engines.solving.dealt.MixedValues` takes both)."""
    from musstats.engines.betting.store import get_plans

    plans = get_plans(sol.spec)
    if not plans:
        return sol.sigma, {}
    base = sol.sigma if len(plans) == 2 else next(iter(plans.values())).sigmas[0]
    return base, {t: (m.sigmas, m.weights) for t, m in plans.items()}


def plans_key(v: Variant, deals: tuple[str, ...] = ("as-dealt",)) -> dict:
    """The shipped correlated plans that :func:`played_profiles` mixes, by subgame (a digest of each; only
    those that ship): part of the key of every table computed by playing the equilibrium."""
    from musstats.engines.betting.store import plans_digest

    out = {}
    for deal in deals:
        for lance, pat in D.SUBGAMES:
            spec = _spec(lance, pat, deal, "private", v)
            got = plans_digest(spec)
            if got is not None:
                out[f"{deal} {spec.name}"] = got
    return out


def _profiles(sol: Solved, q: int, pattern: int, plan_seed, usable: bool
              ) -> tuple[np.ndarray, tuple | None, dict | None, list[str]]:
    """What the lance is bet by for the player at seat ``q``: the profile (stored layout), the
    other team's mixture of plans when it plays one (None: that profile alone;
    :meth:`~musstats.engines.solving.team.PlanMixture.reach_tables`), the plans' description
    (None: the per-lance equilibrium ``sol``) and notes.  Where shipped correlated plans exist
    (``usable``: private information, no cut read): a partner of a pair that plays plans plays
    the plan ``plan_seed`` draws for his pair (without it, the per-lance equilibrium and a
    note), against the other pair's mixture where both pairs play plans; a lone holder plays his
    strategy against the pair's mixture."""
    from musstats.engines.betting.store import get_plans

    if plan_seed is not None and not usable:
        raise MusError("--plan-seed is for the private model without --cut: the correlated plans do not read who cut")
    plans = get_plans(sol.spec) if usable else {}
    if not plans:
        if plan_seed is not None:
            raise MusError("--plan-seed is for a pair of holders that plays correlated plans: none ship for this "
                           f"subgame ({sol.spec.name}, {sol.spec.deal}, {sol.spec.info} information)")
        return sol.sigma, None, None, []
    tq, k = q % 2, sol.game.seat_owner[q]
    both = len(plans) == 2
    m = next(iter(plans.values())).meta
    pairs = {t: " and ".join(SEATS[s] for s in range(4) if s % 2 == t and pattern >> s & 1) for t in plans}
    keys = ("value", "value_se", "gain", "seeing_both", "rounds", "built_by") if both else (
        "value", "value_se", "pair_gain", "pair_gain_se", "opponent_gain", "opponent_gain_se",
        "marginal_opponent_gain", "marginal_opponent_gain_se", "pooled_gain", "samples", "measure", "rounds",
        "built_by")
    if both:
        figures = {"pairs": [pairs[0], pairs[1]], "plans": [int(plans[t].weights.shape[0]) for t in (0, 1)],
                   **{x: m.get(x) for x in keys}}
        name = f"both pairs' correlated plans ({pairs[0]} against {pairs[1]})"
    else:
        t = next(iter(plans))
        lone = next(SEATS[s] for s in range(4) if s % 2 != t and pattern >> s & 1)
        figures = {"pair": pairs[t], "opponent": lone, "plans": int(plans[t].weights.shape[0]),
                   **{x: m.get(x) for x in keys}}
        name = f"the team-maxmin equilibrium with correlation: {lone} against the correlated plans of {pairs[t]}"
    if tq not in plans:  # the lone holder: one strategy against the pair's mixture
        t = 1 - tq
        if plan_seed is not None:
            raise MusError(f"--plan-seed is for the pair that agrees a plan ({pairs[t]}): {SEATS[q]} plays one "
                           "strategy against their plans")
        return plans[t].sigmas[0], plans[t].reach_tables(sol.game, k), {
            **figures, "strategies": name + f" (EVs against their mixture of {figures['plans']} plans)"}, []
    mine = plans[tq]
    if plan_seed is None:
        old = ((sol.exploit or {}).get("team_gain") or [None, None])[tq]
        gain = m["gain"][tq] if both else m["pair_gain"]
        against = f"{pairs[1 - tq]}'s plans" if both else f"{figures['opponent']}'s strategy"
        return sol.sigma, None, None, [
            f"{pairs[tq]} play correlated plans in this subgame: give the number agreed with your partner (--plan-seed "
            f"N; the page's plan field) for the plan you both play (a pair's best plan gains {gain:.3f} against "
            f"{against}" + (f", {old:.3f} against the per-lance strategies shown" if old is not None else "") + ")"]
    j = mine.draw(int(plan_seed))
    n = int(mine.weights.shape[0])
    mixture = plans[1 - tq].reach_tables(sol.game, k) if both else None
    return mine.sigmas[j], mixture, {
        **figures, "plan": j + 1, "plan_weight": round(float(mine.weights[j]), 4), "plan_seed": int(plan_seed),
        "strategies": name + f" (plan {j + 1} of {n}, drawn with seed {int(plan_seed)}"
        + (f"; EVs against the mixture of {int(plans[1 - tq].weights.shape[0])} plans of {pairs[1 - tq]})"
           if both else ")")}, []


#: the note of an answer whose player called the mus against the shipped cut flags
OFF_FLAGS = ("your mus call departs from the cut law the strategies that read who cut were solved on: they never "
             "meet your hand there, so the per-lance ones are used")


def _cutter(cut, q: int, h: int, deal: str, info: str, v: Variant) -> tuple[int, bool]:
    """The seat that cut, checked, and whether the player's own call (he asked before it, or cut)
    is the call of the cut law the strategies that read who cut were solved on
    (:func:`musstats.tables.policies.betting_cut_flags`) with his hand."""
    from musstats.rules.seats import parse_seat
    from musstats.tables.policies import betting_cut_flags

    if deal != "as-dealt" or info != "private":
        raise MusError("--cut is for the hands as dealt in the private model (after a mus round nobody cut; the "
                       "pooled model does not read who cut)")
    c = parse_seat(cut)
    return c, q > c or bool(betting_cut_flags(v)[q, h]) == (q == c)  # a seat after the cutter did not speak


# ---------------------------------------------------------------------------
# tables


def tree_text(lance: str, *, declared: str | None = None, pattern: int | None = None,
              abstraction: Abstraction = DEFAULT_ABSTRACTION, max_depth: int | None = None,
              variant: str | Variant = "8-reyes") -> str:
    """The public tree of a lance as text (for pares and juego under a declaration
    pattern; by default every seat holds it)."""
    lance = _lance(lance)
    v = _variant(variant, "off")
    if pattern is None:
        pattern = declaration_pattern(lance, None, None, declared, v)
    return betting_tree(lance, pattern, abstraction).text(max_depth)


def _subgames(lance: str | None) -> list[tuple[str, int]]:
    if lance is None:
        return list(D.SUBGAMES)
    lance = _lance(lance)
    return [sg for sg in D.SUBGAMES if sg[0] == lance]


def _possible(v: Variant, lance: str, seat: int, pattern: int) -> np.ndarray:
    """Hands (bool [H]) the seat can hold in the subgame."""
    from musstats.tables.hands import JUEGO, PARES, hand_tables

    t = hand_tables(v)
    if lance in ("grande", "chica"):
        return np.ones(t.n_hands, bool)
    if lance == "punto":
        return t.key[JUEGO] == 0
    held = t.key[PARES if lance == "pares" else JUEGO] > 0
    return held if pattern >> seat & 1 else ~held


def strategy_frame(lance: str | None = None, *, info: str = "private", deal: str = "as-dealt",
                   variant: str | Variant = "8-reyes", juego_real: str = "off", min_p: float = 0.0):
    """The whole equilibrium strategy, one row per (lance, pattern, seat, hand, history,
    action): columns ``STRATEGY_COLUMNS``.

    ``pattern``: who declared the lance (pares, juego; ``all`` elsewhere); ``hand``: the
    hand label (private) or the team's state (pooled: ``"best hand @ seat"``, plus ``+V``
    its holders' count values in pares and juego); ``history``: the public actions
    before the decision, comma-separated (empty at the opening); ``p``: the
    probability of the action.  Only hands the seat can hold in that subgame are listed;
    rows with ``p <= min_p`` are dropped."""
    import pandas as pd

    from musstats.tables.hands import hand_tables

    v = _variant(variant, juego_real)
    deal = D.check_deal(deal)
    info = _info(info)
    t = hand_tables(v)
    labels = np.array(t.labels)
    frames = []
    for lance_, pat in _subgames(lance):
        sol = _strategy(lance_, pat, deal, info, v)
        game, tree = sol.game, sol.game.tree
        ptxt = subgame_text(lance_, pat)
        for n in tree.decision_nodes:
            nd = tree.nodes[n]
            blk = game.block(sol.sigma, n)  # [states, actions]
            k = int(game.owner[n])
            if game.columns[k][0] == "seat":
                ok = np.nonzero(_possible(v, lance_, nd.seat, pat))[0]
                names = labels[ok]
            else:
                ok, names = _pooled_states(v, lance_, pat, game.columns[k][1])
            probs = blk[ok]
            na = len(nd.actions)
            frames.append(pd.DataFrame({
                "lance": lance_, "pattern": ptxt, "info": info, "deal": deal, "seat": SEATS[nd.seat],
                "hand": np.repeat(names, na), "hand_index": np.repeat(ok, na),
                "history": ",".join(nd.history), "action": np.tile(np.array(nd.actions), len(ok)),
                "p": probs.ravel()}))
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(STRATEGY_COLUMNS))
    if min_p > 0:
        df = df[df["p"] > min_p].reset_index(drop=True)
    for c in ("lance", "pattern", "info", "deal", "seat", "history", "action"):
        df[c] = df[c].astype("category")
    df.attrs.update({"variant": v.name, "deal": deal, "info": info,
                     "abstraction": DEFAULT_ABSTRACTION.describe(),
                     "columns": "lance, pattern (who declared), info, deal, seat, hand (label or pooled state), "
                                "hand_index (hand or state index), history (public actions before), action, p"})
    return df


def _pooled_states(v: Variant, lance: str, pattern: int, team: int) -> tuple[np.ndarray, np.ndarray]:
    """Pooled states a team can be in (its best hand in the lance at one of its seats, and
    in pares / juego its holders' values) and their labels."""
    from musstats.tables.hands import JUEGO, PARES, hand_tables

    t = hand_tables(v)
    seats = (team, team + 2)
    ids, names = [], []
    for j, q in enumerate(seats):
        poss = np.nonzero(_possible(v, lance, q, pattern))[0]
        for h in poss:
            base = 2 * int(h) + j
            if lance in ("pares", "juego"):
                li = PARES if lance == "pares" else JUEGO
                own = int(t.value[li, h])
                other = seats[1 - j]
                partner_vals = {0} if not pattern >> other & 1 else \
                    sorted({int(x) for x in t.value[li][t.key[li] > 0]})
                for pv in partner_vals:
                    ids.append(base * 7 + own + pv)
                    names.append(f"{t.labels[h]} @{SEATS[q]} +{own + pv}")
            else:
                ids.append(base)
                names.append(f"{t.labels[h]} @{SEATS[q]}")
    ids_a = np.array(ids, np.int64)
    u, first = np.unique(ids_a, return_index=True)
    return u, np.array(names)[first]


#: the per-team columns of :func:`exploitability_table`: the measure's key and the column's stem
TEAM_MEASURES = (("team_gain", "team"), ("pooled_gain", "pooled"))


def exploitability_table(*, deal: str = "as-dealt", info: str = "private", variant: str | Variant = "8-reyes",
                         juego_real: str = "off", lance: str | None = None):
    """One row per subgame, in stones per lance: the three measures of its strategy.

    * per player: ``nashconv`` (each player's best response chosen on one sample, valued on an
      independent one: a lower bound) ± ``nashconv_se`` and ``nashconv_in`` (in sample: biased
      up); for the pooled model (exact chance) both are the exact NashConv, ``exact`` true;
    * ``team0``/``team1`` (± ``_se``, ``_in``): what the pair of mano and third (second and
      postre) gains by changing both partners' play together, each seeing only his own hand
      (alternating best responses from several starts: a lower bound); ``team_how``: the start
      that found it;
    * ``pooled0``/``pooled1`` (± ``_se``, ``_in``): what the pair gains when it also sees both
      its hands (perfect señas: an upper bound of the team deviation);

    and ``value_team0`` ± ``value_se``, the lance's value for mano's team; ``scheme``, how the
    strategy was solved.  Where shipped correlated plans are played (what ``bet`` plays there):
    ``plans`` (how many in all), ``plans0``/``plans1`` (of each team), ``plans_team`` (the team
    that mixes plans against a lone holder; 2 where both pairs do), ``plans_gain0``/``plans_gain1``
    (± ``_se``: what each team's best change gains against what the other plays: a pair's best
    joint plan, a lone holder's best response -- his NashConv; a partner changing alone is a
    joint plan of his pair, so the pair's gain bounds his), ``plans_seeing0``/``plans_seeing1``
    (± ``_se``: a pair that plays plans seeing both its hands) and ``plans_value`` (mano's team); where
    a pair plays against a lone holder, also ``plans_pair_gain``, ``plans_opponent_gain`` and
    ``plans_pooled_gain`` (the pair seeing both its hands), each ± ``_se``.  Missing measures are
    NaN."""
    import pandas as pd

    v = _variant(variant, juego_real)
    deal = D.check_deal(deal)
    info = _info(info)
    rows = []
    nan = float("nan")
    for lance_, pat in _subgames(lance):
        sol = _strategy(lance_, pat, deal, info, v)
        e = sol.exploit or {}
        row = {"lance": lance_, "pattern": subgame_text(lance_, pat),
               "decision_nodes": sol.game.tree.n_decisions, "iterations": sol.iterations,
               "nashconv": e.get("nashconv"), "nashconv_se": e.get("nashconv_se"),
               "nashconv_in": e.get("nashconv_in"), "nashconv_in_se": e.get("nashconv_in_se")}
        for key, stem in TEAM_MEASURES:
            for t in (0, 1):
                for part, suffix in ((key, ""), (f"{key}_se", "_se"), (f"{key}_in", "_in")):
                    got = e.get(part)
                    # on sampled deals a pair seeing both hands is chosen on too few deals per pair of
                    # hands to be valued apart: after the mus that measure is not shown (docs/quality.md)
                    unusable = stem == "pooled" and deal == "after-mus"
                    row[f"{stem}{t}{suffix}"] = nan if got is None or unusable else got[t]
        row.update(_plans_row(sol, info))
        row.update({"team_how": " / ".join(e.get("team_how") or []),
                    "value_team0": e.get("value"), "value_se": e.get("value_se"), "deals": e.get("deals"),
                    "exact": bool(e.get("exact", False)), "seconds": round(sol.seconds, 1),
                    "train_seconds": sol.train_seconds, "source": sol.source,
                    "scheme": SCHEME_TEXT.get(sol.spec.method, sol.spec.method)})
        rows.append(row)
    df = pd.DataFrame(rows)
    exact = bool(rows) and all(r["exact"] for r in rows)
    schemes = sorted({r["scheme"] for r in rows})
    df.attrs.update({"variant": v.name, "deal": deal, "info": info, "units": "stones per lance", "exact": exact,
                     "scheme": ", ".join(schemes),
                     "method": "exact: each team's best response over the exact law of the two teams' states"
                               if exact else
                               "Monte Carlo: responses chosen on one sample and valued on an independent one "
                               "(a lower bound), and valued in-sample (biased up); team: the partners' alternating "
                               "best responses from several starts; pooled: the pair's best response seeing both "
                               "its hands"})
    return df


def _plans_row(sol: Solved, info: str) -> dict:
    """The columns of :func:`exploitability_table` for a subgame's shipped correlated plans (NaN
    where none ship)."""
    from musstats.engines.betting.store import plans_meta

    nan = float("nan")
    m = (plans_meta(sol.spec) if info == "private" else None) or {}
    row = {"plans": m.get("plans", nan), "plans_team": nan, "plans_value": nan, "plans_value_se": nan,
           **{f"plans{t}": nan for t in (0, 1)},
           **{f"plans_{key}{suffix}": nan for key in ("pair_gain", "opponent_gain", "pooled_gain") for suffix in ("", "_se")},
           **{f"plans_{x}{t}{suffix}": nan for x in ("gain", "seeing") for t in (0, 1) for suffix in ("", "_se")}}
    if not m:
        return row
    if "teams" in m:  # both pairs play plans: exact, each pair's best plan against the other's mixture
        row.update({"plans": sum(m["teams"]), "plans_team": 2, "plans_value": m["value"], "plans_value_se": 0.0,
                    "plans0": m["teams"][0], "plans1": m["teams"][1],
                    **{f"plans_gain{t}": m["gain"][t] for t in (0, 1)},
                    **{f"plans_seeing{t}": m["seeing_both"][t] for t in (0, 1)},
                    **{f"plans_{x}{t}_se": 0.0 for x in ("gain", "seeing") for t in (0, 1)}})
        return row
    t = int(m["team"])
    row.update({"plans_team": t, "plans_value": (1.0 if t == 0 else -1.0) * m["value"],
                "plans_value_se": m.get("value_se", nan), f"plans{t}": m["plans"], f"plans{1 - t}": 0,
                f"plans_gain{t}": m["pair_gain"], f"plans_gain{t}_se": m.get("pair_gain_se", nan),
                f"plans_gain{1 - t}": m["opponent_gain"], f"plans_gain{1 - t}_se": m.get("opponent_gain_se", nan),
                f"plans_seeing{t}": m.get("pooled_gain", nan), f"plans_seeing{t}_se": m.get("pooled_gain_se", nan)})
    for key in ("pair_gain", "opponent_gain", "pooled_gain"):
        row[f"plans_{key}"], row[f"plans_{key}_se"] = m.get(key, nan), m.get(f"{key}_se", nan)
    return row


def value_gap_table(*, lance: str | None = None, iterations: int | None = None, eval_samples: int | None = None,
                    variant: str | Variant = "8-reyes", juego_real: str = "off",
                    progress: Callable[[int, int], None] | None = None):
    """One row per subgame (hands as dealt): the value of the lance for team 0 (mano's team)
    with private information (the shipped strategies) and with pooled information (each team
    sees both its hands; solved with ``iterations``, cached), and the gap pooled − private, in
    stones per lance; ``pooled_exact`` when the pooled side is solved and valued exactly (the
    exact solver: its ``value_pooled_se`` is 0 and both NashConv columns are the exact one).

    ``gap_se`` is the Monte Carlo error of the two values; ``gap_bound`` the sum of the two
    solutions' NashConv (in-sample, the upper estimates): in the pooled game, a two-player
    zero-sum game, the true value lies within its NashConv of the value found; in the private
    game NashConv bounds only one player's deviations, so the bound is indicative there."""
    import pandas as pd

    v = _variant(variant, juego_real)
    sgs = _subgames(lance)
    rows = []
    for i, (lance_, pat) in enumerate(sgs):
        pr = _strategy(lance_, pat, "as-dealt", "private", v)
        po = get_solved(_spec(lance_, pat, "as-dealt", "pooled", v, iterations=iterations), eval_deals=eval_samples)
        assert po is not None
        a, b = pr.exploit or {}, po.exploit or {}
        row = {"lance": lance_, "pattern": subgame_text(lance_, pat),
               "value_private": a.get("value"), "value_private_se": a.get("value_se"),
               "nashconv_private": a.get("nashconv"), "nashconv_private_in": a.get("nashconv_in"),
               "value_pooled": b.get("value"), "value_pooled_se": b.get("value_se"),
               "nashconv_pooled": b.get("nashconv"), "nashconv_pooled_in": b.get("nashconv_in"),
               "pooled_exact": bool(b.get("exact", False)), "iterations_pooled": po.iterations, "seconds_pooled": round(po.seconds, 1),
               "train_seconds_pooled": po.train_seconds}
        if None not in (a.get("value"), b.get("value")):
            row["gap"] = b["value"] - a["value"]
            row["gap_se"] = float(np.hypot(a["value_se"], b["value_se"]))
            row["gap_bound"] = a["nashconv_in"] + b["nashconv_in"]
        rows.append(row)
        if progress is not None:
            progress(i + 1, len(sgs))
    df = pd.DataFrame(rows)
    df.attrs.update({"variant": v.name, "deal": "as-dealt", "units": "stones per lance for team 0",
                     "method": "the private value over Monte Carlo samples of the other hands, the pooled one "
                               "exactly where pooled_exact (else also by Monte Carlo); gap_bound: the sum of the "
                               "two solutions' in-sample NashConv"})
    return df


#: the columns of :func:`convergence_frame` after iteration and seconds
CONVERGENCE_MEASURES = ("nashconv", "nashconv_in", "team0", "team1", "pooled0", "pooled1")


def convergence_frame(lance: str, *, declared: str | None = None, deal: str = "as-dealt", info: str = "private",
                      variant: str | Variant = "8-reyes", iterations: int = 400, every: int = 100,
                      seed: int = DEFAULT_SEED, progress=None, team: bool = True):
    """The three measures against training time for one lance (``musstats plot
    convergence-cfr``), solved from scratch with the shipped scheme and cached: columns
    iteration, seconds (of training), ``nashconv`` (per player, a lower bound on independent
    samples) and ``nashconv_in`` (in sample, biased up), and with ``team`` (private
    information) ``team0``/``team1`` (what each pair gains by changing together, in sample)
    and, with the hands as dealt, ``pooled0``/``pooled1`` (a pair seeing both its hands,
    exact); NaN where not measured."""
    import pandas as pd

    from musstats.engines import cache

    lance = _lance(lance)
    v = _variant(variant, "off")
    deal = D.check_deal(deal)
    pattern = declaration_pattern(lance, None, None, declared, v)
    spec = _spec(lance, pattern, deal, _info(info), v, iterations=int(iterations), seed=int(seed))
    path = cache.entry_path(f"convergence-{lance}-{pattern}-{deal}-{info}", every, team, spec.key)
    z = cache.load(path)
    if z is None:
        from musstats.engines.betting.solve import solve_subgame
        from musstats.engines.solving.store import pack

        s = solve_subgame(spec, history_every=int(every), eval_deals=0, progress=progress, history_team=team)
        z = {"h": pack(s.sigma, {}, s.history)["history"]}
        cache.save(path, True, **z)
    h = z["h"]
    df = pd.DataFrame({"iteration": h[:, 0].astype(int), "seconds": h[:, 1]})
    for i, c in enumerate(CONVERGENCE_MEASURES):
        df[c] = h[:, 2 + i] if h.shape[1] > 2 + i else np.nan
    df.attrs.update({"lance": lance, "pattern": subgame_text(lance, pattern), "deal": deal, "info": info,
                     "scheme": spec.method, "units": "stones per lance"})
    return df


def _deal_values(d: np.ndarray, v: Variant, deal: str, info: str = "private"
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per lance (grande, chica, pares, juego, punto) and deal: team 0's expected stones under
    the equilibrium of ``deal`` and ``info`` and en paso (float [5, N] each), and whether the
    lance is bet (bool [5, N]: pares or juego contested, punto played)."""
    from musstats.engines.solving.dealt import MixedValues

    n = d.shape[0]
    eq = np.zeros((5, n))
    paso = np.zeros((5, n))
    bet_ = np.zeros((5, n), bool)
    for li, (lance_, o, played, subs) in enumerate(D.lance_parts(d, v)):
        paso[li] = np.where(played, paso_stones(lance_, o), 0.0)
        eq[li] = paso[li]
        for pat, sel in subs:
            sol = _strategy(lance_, pat, deal, info, v)
            values = MixedValues(sol.game, *played_profiles(sol))
            for lo in range(0, sel.size, EV_CHUNK):  # short kernel calls: Ctrl-C is seen between them
                part = sel[lo: lo + EV_CHUNK]
                st, oo, _ = prepare(sol.game, d[part], v, lance_)
                eq[li, part] = values(st, oo)
            bet_[li, sel] = True
    return eq, paso, bet_


def _per_hand(h: np.ndarray, x: np.ndarray, H: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per hand index ``h`` of the deals (of ``H``): the mean of ``x`` over its deals, the
    standard error of that mean, and the number of deals (float [H] each; NaN mean where a
    hand has no deal)."""
    cnt = np.bincount(h, minlength=H).astype(float)
    s1, s2 = np.bincount(h, x, H), np.bincount(h, x * x, H)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = s1 / cnt
        se = np.sqrt(np.maximum(s2 / cnt - m * m, 0) / np.maximum(cnt - 1, 1))
    return m, se, cnt


def ev_table(*, deal: str = "as-dealt", info: str = "private", variant: str | Variant = "8-reyes",
             juego_real: str = "off", deals: int = 1_000_000, seed: int = DEFAULT_SEED):
    """Per hand, seat and lance: the expected stones of the seat's team under equilibrium
    betting (``ev_eq`` ± ``ev_eq_se``) beside the en-paso value (``ev_paso``), and
    ``p_bet`` the share of the deals in which the lance is bet.  Over ``deals`` random
    deals (Monte Carlo, cached); pares and juego combine every declaration pattern
    (uncontested deals count en paso); the fourth lance is juego when somebody holds it,
    else punto.  Columns ``EV_COLUMNS``."""
    import pandas as pd

    from musstats.engines import cache
    from musstats.tables.hands import hand_tables

    v = _variant(variant, juego_real)
    deal = D.check_deal(deal)
    info = _info(info)
    t = hand_tables(v)
    H = t.n_hands
    path = cache.entry_path(f"ev-table-{deal}-{info}", v.deck, v.juego_real, deals, seed,
                            [_spec(l_, p, deal, info, v).key for l_, p in D.SUBGAMES],
                            plans_key(v, (deal,)) if info == "private" else {})
    z = cache.load(path)
    if z is None:
        d = np.concatenate([D.block_deals(deal, v, seed, D.EV_KEY + 100, b)
                            for b in range(-(-deals // D.BLOCK))])[:deals].astype(np.int64)
        eq, paso, bet_ = _deal_values(d, v, deal, info)
        z = {"eq": eq.astype(np.float32), "paso": paso.astype(np.float32), "bet": bet_,
             "hands": d.astype(np.int16)}
        cache.save(path, True, **z)
    eq, paso, bet_, d = z["eq"].astype(np.float64), z["paso"].astype(np.float64), z["bet"], z["hands"].astype(np.int64)
    rows = []
    names = ["grande", "chica", "pares", "juego", "punto"]
    for q in range(4):
        sign = 1.0 if q % 2 == 0 else -1.0
        hq = d[:, q]
        for li, lance_ in enumerate(names):
            m, se, cnt = _per_hand(hq, sign * eq[li], H)
            mp = _per_hand(hq, sign * paso[li], H)[0]
            pb = _per_hand(hq, bet_[li].astype(float), H)[0]
            rows.append(pd.DataFrame({"hand": list(t.labels), "hand_index": np.arange(H), "seat": SEATS[q],
                                      "lance": lance_, "p_bet": pb, "ev_paso": mp, "ev_eq": m, "ev_eq_se": se,
                                      "gain": m - mp, "deals": cnt.astype(np.int64)}))
    df = pd.concat(rows, ignore_index=True)
    df.attrs.update({"variant": v.name, "deal": deal, "info": info, "deals": int(d.shape[0]), "seed": seed,
                     "units": "stones per hand for the seat's team, this lance only",
                     "method": "Monte Carlo over random deals; each bet lance valued under the equilibrium"})
    return df


# ---------------------------------------------------------------------------
# the value of betting a hand (for the mus decisions)

#: deals of :func:`ev_table` behind :func:`betting_gain`
GAIN_DEALS = 1_000_000


def _gain_path(v: Variant):
    from musstats.base.files import data_file

    return data_file("betting_gain", v)


#: the gain tables: a hand kept as dealt (cutting), a final hand after one mus round in which
#: all four discarded (asking for mus), and both on the deals in which the other three ask for
#: mus by the shipped cut flags (what ``mus`` compares)
GAIN_TABLES = ("as-dealt", "after-mus", "cut-others-ask", "mus-others-ask")
GAIN_DEALS_MODELS = GAIN_TABLES[:2]
#: the deal model of each table (the strategies that bet it)
GAIN_TABLE_DEAL = {"as-dealt": "as-dealt", "after-mus": "after-mus", "cut-others-ask": "as-dealt",
                   "mus-others-ask": "after-mus"}
#: deals per seat of each table of the deals in which the other three ask
MUS_GAIN_DEALS = 1_000_000
#: a hand seen in fewer deals than this at a seat takes its gain from the table's fallback
GAIN_MIN_DEALS = 200
#: the fallback of each table for its rare hands: the table as dealt, or for the ``-others-ask``
#: tables the plain table of their deal model
GAIN_FALLBACK = {"after-mus": "as-dealt", "cut-others-ask": "as-dealt", "mus-others-ask": "after-mus"}


def gain_key(v: Variant) -> dict:
    """What :func:`betting_gain` depends on: the rules, the strategies (their shipped
    fields) of both deal models, the deals and the seed of :func:`ev_table`, the cut flags
    and the deals of the tables of the others asking."""
    return {"rules": v.cache_key(target=False), "deals": GAIN_DEALS, "seed": DEFAULT_SEED,
            "min_deals": GAIN_MIN_DEALS, "mus_deals": MUS_GAIN_DEALS, "cut_flags": _flags_digest(v),
            "strategies": {deal: [_spec(lance, pat, deal, "private", v).fields() for lance, pat in D.SUBGAMES]
                           for deal in GAIN_DEALS_MODELS},
            "plans": plans_key(v, GAIN_DEALS_MODELS)}


def _gain_table(table: str) -> str:
    t = str(table).strip().lower()
    if t in GAIN_TABLES:
        return t
    return D.check_deal(t)  # "as-dealt" / "after-mus" by their other spellings, or a clear error


def shipped_gain(v: Variant, table: str = "as-dealt") -> tuple[np.ndarray, np.ndarray] | None:
    """The shipped :func:`betting_gain` table of ``v`` (``GAIN_TABLES``) when there is one
    for exactly these rules, strategies and cut flags (None otherwise: computing it means
    solving every lance first)."""
    table = _gain_table(table)
    got = _shipped_gains(v)
    if got is None or f"gain_{table}" not in got or f"se_{table}" not in got:
        return None
    return got[f"gain_{table}"].copy(), got[f"se_{table}"].copy()


#: the shipped gain files read in this process, by (rules, file stamp, cut flags): their arrays,
#: or None where the file's key is not :func:`gain_key` (a table asks for them once per hand)
_GAIN_MEMO: dict[tuple, dict[str, np.ndarray] | None] = {}


def _shipped_gains(v: Variant) -> dict[str, np.ndarray] | None:
    import json

    path = _gain_path(v)
    try:
        st = path.stat()
    except OSError:
        return None
    memo = (v, str(path), st.st_mtime_ns, st.st_size, _flags_digest(v))
    if memo not in _GAIN_MEMO:
        got = None
        try:
            with np.load(path, allow_pickle=False) as z:
                if json.loads(bytes(z["meta"]).decode()) == gain_key(v):
                    got = {k: z[k].copy() for k in z.files if k != "meta"}
        except (OSError, ValueError, KeyError):
            pass
        _GAIN_MEMO[memo] = got
    return _GAIN_MEMO[memo]


def _flags_digest(v: Variant) -> str:
    """A short digest of the cut flags the gain tables of ``v`` were computed with."""
    from musstats.tables.policies import cut_flags, flags_digest

    return flags_digest(cut_flags(v))


def betting_gain(variant: str | Variant = "8-reyes", juego_real: str = "off", table: str = "as-dealt"
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Per seat and hand: what equilibrium betting adds to the expected stones of the
    seat's team over playing every lance en paso (all lances of a hand), and its standard
    error: float [4, hands] each.  ``table`` (``GAIN_TABLES``): the hands as dealt (the
    strategies for them); after one mus round in which all four discarded by the table (the
    after-mus strategies); or either on the deals in which the other three ask for mus
    (``cut-others-ask``: the hands as dealt, ``mus-others-ask``: after the round).  A hand
    seen in fewer than ``GAIN_MIN_DEALS`` deals at the seat takes its gain from the plain
    table (as dealt, or for ``mus-others-ask`` after the mus).  Shipped for 8 reyes
    (``musstats/data/betting_gain_*.npz``), else computed (every lance solved first)."""
    v = _variant(variant, juego_real)
    table = _gain_table(table)
    got = shipped_gain(v, table)
    return got if got is not None else _compute_gain(v, table)


def _compute_gain(v: Variant, table: str) -> tuple[np.ndarray, np.ndarray]:
    gain, se, cnt = _gain_from_ev(v, table) if table in GAIN_DEALS_MODELS else _gain_others_ask(v, table)
    if table in GAIN_FALLBACK:  # hands too rare in the table's deals: the fallback table's gain
        rare = cnt < GAIN_MIN_DEALS
        g0, s0 = _compute_gain(v, GAIN_FALLBACK[table])
        gain[rare], se[rare] = g0[rare], s0[rare]
    return gain, se


def _others_ask_deals(v: Variant, table: str, seat: int, n: int) -> np.ndarray:
    """``n`` random deals (hand indices [n, 4]) in which the three seats other than ``seat``
    hold hands they ask for mus with (the shipped cut flags): as dealt (``cut-others-ask``),
    or after the mus round that follows (``mus-others-ask``; ``seat`` asks too)."""
    from musstats.engines.musphase import deals_after_mus
    from musstats.tables.policies import cut_flags

    flags = np.array(cut_flags(v), np.bool_)
    flags[seat] = False
    kept, have, chunk = [], 0, 0
    while have < n:
        k = (D.MUS_GAIN_KEY, GAIN_TABLES.index(table), seat, chunk)
        if table == "cut-others-ask":
            d = deals_after_mus(1 << 21, DEFAULT_SEED, v, rounds=0, key=k)
            d = d[~flags[np.arange(4)[None, :], d].any(axis=1)]
        else:
            full = deals_after_mus(1 << 21, DEFAULT_SEED, v, rounds=1, cut=flags, key=k, with_rounds=True)
            d = full[full[:, 4] > 0, :4]
        kept.append(d)
        have += d.shape[0]
        chunk += 1
    return np.concatenate(kept)[:n]


def _gain_others_ask(v: Variant, table: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gain, its standard error and the deals behind it per seat and hand (float [4, H]; NaN
    where a hand has no deal) on ``MUS_GAIN_DEALS`` deals per seat of :func:`_others_ask_deals`."""
    from musstats.tables.hands import hand_tables

    H = hand_tables(v).n_hands
    deal = GAIN_TABLE_DEAL[table]
    gain, se, cnt = np.zeros((4, H)), np.zeros((4, H)), np.zeros((4, H))
    for q in range(4):
        d = _others_ask_deals(v, table, q, MUS_GAIN_DEALS)
        eq, paso, _ = _deal_values(d.astype(np.int64), v, deal)
        x = (eq - paso).sum(axis=0) * (1.0 if q % 2 == 0 else -1.0)  # the seat's team
        gain[q], se[q], cnt[q] = _per_hand(d[:, q], x, H)
    return gain, se, cnt


def _gain_from_ev(v: Variant, deal: str = "as-dealt") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gain, its standard error and the deals behind it per seat and hand (float [4, H]) from
    the EV table of ``deal``."""
    from musstats.tables.hands import hand_tables

    H = hand_tables(v).n_hands
    gain = np.zeros((4, H))
    var = np.zeros((4, H))
    cnt = np.zeros((4, H))
    df = ev_table(variant=v, deal=deal, deals=GAIN_DEALS, seed=DEFAULT_SEED)
    for q, seat in enumerate(SEATS):
        for lance in ("grande", "chica", "pares", "juego", "punto"):
            r = df[(df["seat"] == seat) & (df["lance"] == lance)].sort_values("hand_index")
            gain[q] += np.nan_to_num(r["gain"].to_numpy(float))
            var[q] += np.nan_to_num(r["ev_eq_se"].to_numpy(float)) ** 2
        cnt[q] = r["deals"].to_numpy(float)  # the same deals for every lance
    return gain, np.sqrt(var), cnt


def write_gain(v: Variant):
    """Write :func:`betting_gain`'s tables (``GAIN_TABLES``) for ``v`` to ``musstats/data``
    (atomically)."""
    import json

    from musstats.base.files import write_npz

    arrays: dict[str, Any] = {"meta": np.frombuffer(json.dumps(gain_key(v), sort_keys=True).encode(), np.uint8)}
    for table in GAIN_TABLES:
        arrays[f"gain_{table}"], arrays[f"se_{table}"] = _compute_gain(v, table)
    return write_npz(_gain_path(v), arrays)
