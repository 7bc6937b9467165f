"""How a seat plays when the program plays it: the bots, and the player's own seat under
``musstats play --autoplay``.

* **Betting**: a strategy set of :mod:`musstats.analysis.play` (``equilibrium``: the shipped
  per-lance equilibrium strategies of the hand's deal model -- as dealt where somebody cut,
  after the mus where a mus round was played --; ``paso``, ``heuristic``, ``random``): the
  action is drawn from the set's mixed strategy for the seat's hand at that point of the
  lance's public tree.  Where a pair of holders plays shipped correlated plans (pares and juego
  with three declared, juego with all four, hands as dealt), both partners play the plan that
  the hand's plan seed draws for their pair
  (:meth:`~musstats.engines.solving.team.PlanMixture.draw`: the same for both, as if agreed
  before the hand; where both pairs play plans, each pair's draw is its own) and a lone holder
  his strategy against the pair's mixture.
* **The mus**: the bots cut or ask by the mus decision's equilibrium
  (:mod:`musstats.analysis.cut_game`, the advice of ``musstats mus``; a hand it mixes on
  drawn by its probability; the shipped cut flags where it does not ship), and throw by the
  shipped discard table (:mod:`musstats.tables.policies`).  Played for the player (autoplay),
  ``equilibrium`` throws by the review's best (the advice of ``musstats discard``) and calls
  the mus as the bots do, as do ``paso`` and ``heuristic``; ``random`` asks or cuts at random
  and throws a random non-empty set of cards.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from musstats.analysis.play import STRATEGY_SETS, strategy_sigma
from musstats.base.errors import MusError
from musstats.rules.cards import Card
from musstats.rules.variant import Variant

__all__ = ["Player", "BOT", "STRATEGY_SETS", "solved", "action_probs", "pair_plan"]

#: the bots' strategy set
BOT = "equilibrium"
#: a cut probability strictly between this and 1 minus it is drawn; outside, the likelier call is made
MIXED = 0.01
_LOCK = threading.Lock()
_SIGMA: dict[tuple, Any] = {}


def solved(lance: str, pattern: int, deal: str, variant: Variant, method: str = "auto"):
    """The shipped strategy of one lance and declaration pattern, as ``musstats bet`` reads it
    (MusError where none ships)."""
    from musstats.analysis.betting import _strategy

    return _strategy(lance, pattern, deal, "private", variant.lance_rules, solve_missing=False, method=method)


def pair_plan(lance: str, pattern: int, deal: str, variant: Variant, seat: int):
    """The shipped correlated plans of a subgame's equilibrium that ``seat``'s side plays against
    (``{team: PlanMixture}``, empty where none ship) and whether ``seat``'s pair plays plans there."""
    from musstats.engines.betting.store import get_plans

    plans = get_plans(solved(lance, pattern, deal, variant).spec)
    return plans, seat % 2 in plans


def _sigma(name: str, lance: str, pattern: int, deal: str, variant: Variant, seat: int = 0,
           plan_seed: int | None = None):
    """The game and the behaviour strategy of set ``name`` in a subgame for ``seat``: for the
    ``equilibrium`` where correlated plans ship, the plan ``plan_seed`` draws for the seat's pair
    (each pair's draw its own; without a seed, the per-lance strategy, as ``musstats bet``
    gives) or the lone holder's strategy against the pair's plans."""
    from musstats.analysis import play

    mine, plan = None, None
    if name == "equilibrium":
        plans, partner = pair_plan(lance, pattern, deal, variant, seat)
        if plans and not partner:
            mine = next(iter(plans.values()))
            plan = (mine.team, 0)  # every plan holds the lone holder's one strategy
        elif plans and plan_seed is not None:
            mine = plans[seat % 2]
            plan = (seat % 2, mine.draw(plan_seed))
    key = (name, lance, pattern, deal, variant.lance_rules, plan)
    with _LOCK:
        got = _SIGMA.get(key)
    if got is None:
        method = getattr(play, "SOLVED_SETS", {}).get(name, "auto")  # a solved set reads its own strategies
        sol = solved(lance, pattern, deal, variant, method)
        if mine is not None and plan is not None:
            got = (sol.game, mine.sigmas[plan[1]])
        else:
            got = (sol.game, strategy_sigma(name, sol.game, sol.sigma, lance, pattern, variant.lance_rules))
        with _LOCK:
            _SIGMA[key] = got
    return got


def action_probs(name: str, lance: str, pattern: int, deal: str, variant: Variant, node: int, hand: int,
                 plan_seed: int | None = None) -> np.ndarray:
    """The probability of each action of ``node`` for hand index ``hand`` under strategy set
    ``name`` (``plan_seed``: the hand's, where a pair plays correlated plans)."""
    seat = int(solved(lance, pattern, deal, variant).game.tree.nodes[node].seat)
    game, sigma = _sigma(name, lance, pattern, deal, variant, seat, plan_seed)
    p = np.clip(np.asarray(game.strategy_at(sigma, node, hand), np.float64), 0.0, None)
    s = p.sum()
    return p / s if s > 0 else np.full(p.shape, 1.0 / p.size)


class Player:
    """A seat played by the program with strategy set ``name`` (``STRATEGY_SETS``); ``bot``: the
    mus as the bots play it (the mus decision's equilibrium and the discard table) whatever the
    set."""

    def __init__(self, name: str, variant: Variant, rng: np.random.Generator, bot: bool = True) -> None:
        name = str(name).strip().lower()
        if name not in STRATEGY_SETS:
            raise MusError(f"unknown strategy set {name!r}; accepted: {', '.join(STRATEGY_SETS)}")
        self.name, self.variant, self.rng, self.bot = name, variant, rng, bot

    # ------------------------------------------------------------------ betting

    def bet(self, hand: int, lance: str, pattern: int, deal: str, node: int, actions: list[str],
            plan_seed: int | None = None) -> str:
        p = action_probs(self.name, lance, pattern, deal, self.variant, node, hand, plan_seed)
        a = int(min(np.searchsorted(np.cumsum(p), self.rng.random() * p.sum(), side="right"), len(p) - 1))
        return actions[a]

    # ------------------------------------------------------------------ the mus

    def mus(self, cards: list[Card], seat: int) -> str:
        """``mus`` or ``corto``: by the mus decision's equilibrium (the shipped cut flags where it
        does not ship), a hand it mixes on drawn by its probability."""
        from musstats.analysis.cut_game import cut_probabilities
        from musstats.tables.hands import hand_tables

        if not self.bot and self.name == "random":
            return "mus" if self.rng.random() < 0.5 else "corto"
        h = hand_tables(self.variant).index_of(cards)
        p = float(cut_probabilities(self.variant)[seat, h])
        if MIXED < p < 1.0 - MIXED:
            return "corto" if self.rng.random() < p else "mus"
        return "corto" if p >= 0.5 else "mus"

    def throw(self, cards: list[Card], seat: int) -> list[Card]:
        """The cards thrown in a mus round."""
        from musstats.tables.hands import hand_tables
        from musstats.tables.policies import get_policy

        t = hand_tables(self.variant)
        order = sorted(cards, key=lambda c: -self.variant.class_of(c.face, c.suit))
        if not self.bot and self.name == "random":
            mask = int(self.rng.integers(0, 15))
        elif not self.bot and self.name == "equilibrium":
            from musstats.analysis.practice.values import discard_options, keep_label

            best = discard_options(t.labels[t.index_of(cards)], seat)["best"]
            mask = next(m for m in range(15) if keep_label(
                [self.variant.class_of(order[i].face, order[i].suit) for i in range(4) if m >> i & 1],
                self.variant) == best)
        else:
            mask = int(get_policy("table", self.variant)[0][seat, t.index_of(cards)])
            if mask >= 15:  # pragma: no cover - a mus round throws at least one card
                mask = 7
        return [order[i] for i in range(4) if not mask >> i & 1]
