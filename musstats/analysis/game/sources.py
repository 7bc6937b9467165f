"""Deal sources of the game model: where the four final hands of a hand of Mus come from.

A deal source is a callable ``source(n, seed, variant) -> int array [n, 4]`` of hand
indices (:func:`musstats.tables.hands.hand_tables`) in seat order (mano, second, third,
postre).  ``"after-mus"`` (the default) plays each hand after one mus round in which all
four players discard by the shipped discard strategy table; ``"mus-decision"`` after the
mus decision: the hands as dealt when a player holds a hand he cuts with (the mus decision's
equilibrium where it ships, each hand by its likelier choice, else the shipped cut flags:
:func:`musstats.analysis.cut_game.played_cut_rule`), otherwise after one mus round by the
table (the model with betting plays these);
``"as-dealt"`` plays the hands as dealt.  All honour the 4-5-6-7 redeal and mus visto.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.musphase import deals_after_mus, deals_as_dealt
from musstats.rules.variant import Variant

__all__ = ["DealSource", "DEAL_SOURCES", "DEFAULT_SOURCE", "register_deal_source", "deals_after_one_round",
           "deals_after_the_decision", "deals_and_decisions", "decision_flags", "source_key"]

#: ``source(n, seed, variant) -> int [n, 4]`` hand indices in seat order
DealSource = Callable[[int, int, Variant], np.ndarray]


# ---------------------------------------------------------------------------
# deal sources


def deals_after_one_round(n: int, seed: int, variant: Variant = Variant()) -> np.ndarray:
    """``n`` random deals after one mus round in which all four players discard by the
    shipped discard strategy table: hand indices [n, 4] in seat order."""
    return deals_after_mus(n, seed, variant)


def deals_after_the_decision(n: int, seed: int, variant: Variant = Variant(), key: tuple[int, ...] = ()
                             ) -> np.ndarray:
    """``n`` random deals after the mus decision: when all four ask for mus (none holds a
    hand he cuts with by :func:`decision_flags`), one mus round by the discard table; otherwise
    the hands as dealt.  Hand indices [n, 4] in seat order (``key``: the seeds' spawn key)."""
    return deals_and_decisions(n, seed, variant, key)[0]


def deals_and_decisions(n: int, seed: int, variant: Variant = Variant(), key: tuple[int, ...] = ()
                        ) -> tuple[np.ndarray, np.ndarray]:
    """The deals of :func:`deals_after_the_decision` and, per deal, whether the mus round
    was played (bool [n]; False: somebody cut, the hands are as dealt)."""
    out = deals_after_mus(n, seed, variant, rounds=1, cut=decision_flags(variant), key=key, with_rounds=True)
    return np.ascontiguousarray(out[:, :4]), out[:, 4] > 0


def decision_flags(variant: Variant) -> np.ndarray:
    """bool [4, H]: the hands each seat cuts the mus with in the ``"mus-decision"`` source (the
    rule of :func:`musstats.analysis.cut_game.played_cut_rule`)."""
    from musstats.analysis.cut_game import cut_rule_flags, played_cut_rule

    return cut_rule_flags(played_cut_rule(variant), variant)


#: named deal sources; a named source's outcome table can be cached on disk
DEAL_SOURCES: dict[str, DealSource] = {"as-dealt": deals_as_dealt, "after-mus": deals_after_one_round,
                                       "mus-decision": deals_after_the_decision}


def source_key(source: str, variant: Variant) -> str:
    """The source's name for cache keys: with a digest of the shipped discard table (and cut
    flags) its deals depend on."""
    from musstats.tables.policies import flags_digest, policy_digest

    if source == "after-mus":
        return source + "-" + policy_digest("table", variant)
    if source == "mus-decision":
        return f"{source}-{policy_digest('table', variant)}-{flags_digest(decision_flags(variant))[:10]}"
    return source


#: the default: hands as played after a mus round, everyone discarding by the table policy
DEFAULT_SOURCE = "after-mus"


def register_deal_source(name: str, source: DealSource) -> None:
    """Make ``source`` available as ``paso_outcomes(..., source=name)`` (and cacheable).

    Meant for the discard module: deals after a mus round in which both teams
    discard by the table policy.  Changing what a name deals needs a new name (or
    a new ``CACHE_VERSION``) so that stale cached tables are not reused.
    """
    if not callable(source):
        raise MusError(f"a deal source must be callable as source(n, seed, variant), got {source!r}")
    DEAL_SOURCES[str(name)] = source


