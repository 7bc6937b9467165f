"""musstats: an odds and strategy engine for the Spanish card game Mus.

Importing the package is cheap: numba kernels are imported only when a computation needs
them.  The public API (each function validates its input and returns a result object with
``to_frame()`` and ``to_dict()``, the JSON of the matching command)::

    odds(hand, seat, *, variant=..., ...)       per-lance odds (OddsResult)
    discard(hand, seat, *, ...)                 keep-sets, best first (DiscardResult)
    mus(hand, seat, *, ...)                     cut the mus or ask for it (MusAdvice)
    ordago(hand, seat, *, lance, score, ...)    call / accept an órdago (OrdagoResult)
    bet(hand, seat, *, lance, history, ...)     equilibrium betting at your turn (BetResult)
    arena(a, b, *, hands, games, seed, ...)     strategy set a against b (ArenaResult)
    game_model(variant, *, betting=False, ...)  P(win the game) from every score (GameModel)
    match_probability(model, match, games, ...) P(win the match) (MatchResult)
    strategy_table(variant, *, ...)             every hand x seat (TableResult)

Seats are names (``"mano"``, ``"second"``, ``"third"``, ``"postre"``) or numbers from 1 =
mano; variants are names (``"8-reyes"``, ``"4-reyes"``, ``"ten-kings"``) or a
:class:`Variant`.  The rules are in ``musstats/docs/rules.md`` (``musstats rules``).
"""

from __future__ import annotations

from typing import Any

from musstats.base.errors import MusError
from musstats.rules.variant import Variant, make_variant

__version__ = "0.2.0"
__all__ = ["MusError", "Variant", "make_variant", "odds", "discard", "mus", "ordago", "bet", "arena", "game_model",
           "match_probability", "strategy_table", "__version__"]

_LAZY = {
    "odds": "musstats.analysis.odds",
    "discard": "musstats.analysis.discard",
    "mus": "musstats.analysis.discard",
    "ordago": "musstats.analysis.ordago",
    "bet": "musstats.analysis.betting",
    "arena": "musstats.analysis.arena",
    "game_model": "musstats.analysis.game",
    "match_probability": "musstats.analysis.game.match",
    "strategy_table": "musstats.analysis.table",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'musstats' has no attribute {name!r}")
