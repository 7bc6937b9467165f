"""musstats: an odds and strategy engine for the Spanish card game Mus.

Importing the package is cheap: numba kernels are imported only when a computation needs
them.  The public API (each function validates its input and returns a result object with
``to_frame()`` and ``to_dict()``, the JSON of the matching command)::

    odds(hand, seat, *, variant=..., ...)       per-lance odds (OddsResult)
    discard(hand, seat, *, ...)                 keep-sets, best first (DiscardResult)
    mus(hand, seat, *, ...)                     cut the mus or ask for it (MusAdvice)
    ordago(hand, seat, *, lance, score, ...)    call / accept an órdago (OrdagoResult)
    bet(hand, seat, *, lance, history, ...)     equilibrium betting at your turn (BetResult)
    hand(hand, seat, *, history, ...)           the hand as the table has seen it (HandReading)
    arena(a, b, *, hands, games, seed, ...)     strategy set a against b (ArenaResult)
    game_model(variant, *, betting=False, ...)  P(win the game) from every score (GameModel)
    match_probability(model, match, games, ...) P(win the match) (MatchResult)
    strategy_table(variant, *, ...)             every hand x seat (TableResult)

Every function checks its arguments first: a wrong type or value is a :class:`MusError`
with one clear line.  Seats are names (``"mano"``, ``"second"``, ``"third"``, ``"postre"``) or numbers from 1 =
mano; variants are names (``"8-reyes"``, ``"4-reyes"``, ``"ten-kings"``) or a
:class:`Variant`.  The rules are in ``musstats/docs/rules.md`` (``musstats rules``).
"""

from __future__ import annotations

import math
from typing import Any

from musstats.base.errors import MusError
from musstats.rules.variant import Variant, make_variant

__version__ = "0.2.0"
__all__ = ["MusError", "Variant", "make_variant", "odds", "discard", "mus", "ordago", "bet", "hand", "arena", "game_model",
           "match_probability", "strategy_table", "check_argument", "__version__"]

_LAZY = {
    "odds": "musstats.analysis.odds",
    "discard": "musstats.analysis.discard",
    "mus": "musstats.analysis.discard",
    "ordago": "musstats.analysis.ordago",
    "bet": "musstats.analysis.betting",
    "hand": "musstats.analysis.reading",
    "arena": "musstats.analysis.arena",
    "game_model": "musstats.analysis.game",
    "match_probability": "musstats.analysis.game.match",
    "strategy_table": "musstats.analysis.table",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = _guarded(getattr(importlib.import_module(_LAZY[name]), name))
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'musstats' has no attribute {name!r}")


# ---------------------------------------------------------------------------
# the types of the public functions' arguments, checked before any work: a wrong type is a
# MusError with one clear line, never a TypeError from deep inside (the values themselves are
# checked by each function)

#: cards: text ("R R 3 A") or a sequence of cards / card texts
_CARDS = {"hand", "dead", "keep", "partner"}
#: text, or a sequence of texts
_TEXTS = {"declared", "signal", "joker", "history", "hands"}
#: a name (text)
_NAMES = {"juego_real", "lance", "method", "objective", "policy", "deal", "info", "mano", "match", "a", "b",
          "table"}
#: whole numbers (or None), also given as text by a command line
_NUMBERS = {"trials", "samples", "seed", "threads", "deals", "iterations", "games", "players", "rounds", "target",
            "eval_samples", "eq_trials", "eq_seed", "target_se"}
#: switches
_FLAGS = {"redeal_4567", "mus_visto", "individual", "equilibrium", "cache", "betting"}
_EXAMPLES = {"hand": '"R R 3 A"', "dead": '"7 7"', "keep": '"R R"', "partner": '"C S 5 4"',
             "declared": '"second:pares,postre:no-juego"', "signal": '"duples"', "joker": '"S/o=A"',
             "history": '"paso,envido 2"', "hands": '"R R 3 A"'}


def _kind(x: Any) -> str:
    return "None" if x is None else type(x).__name__


def _is_text_seq(x: Any, card_ok: bool) -> bool:
    if not isinstance(x, (list, tuple)):
        return False
    from musstats.rules.cards import Card

    return all(isinstance(y, str) or (card_ok and isinstance(y, Card)) for y in x)


#: callbacks
_CALLABLES = {"progress", "solve_progress", "model_progress", "runner"}


def check_argument(name: str, x: Any, required: bool = False, none_ok: bool = True) -> None:
    """MusError (one line) when ``x`` cannot be the argument ``name`` of a public function
    (``required``: it has no default; ``none_ok``: None is its default)."""
    if x is None:
        if required:
            raise MusError(f"{name} is required (e.g. {_EXAMPLES.get(name, 'a value')})")
        if not none_ok and name in _NUMBERS:
            raise MusError(f"{name} must be a number, got None")
        return
    if name in _CALLABLES:
        if callable(x):
            return
        raise MusError(f"{name} must be a function or None, got {x!r:.60} ({_kind(x)})")
    if name in _CARDS or name in _TEXTS:
        if isinstance(x, str) or _is_text_seq(x, name in _CARDS):
            return
        if name == "hands" and isinstance(x, int) and not isinstance(x, bool):
            return
        raise MusError(f"{name} must be text like {_EXAMPLES[name]} or a list of such texts, got {x!r:.60} "
                       f"({_kind(x)})")
    if name == "seat":
        if isinstance(x, str) or (isinstance(x, int) and not isinstance(x, bool)):
            return
        raise MusError(f"seat must be a name (mano, second, third, postre) or a number from 1, got {x!r:.60} "
                       f"({_kind(x)})")
    if name == "seats":
        if isinstance(x, str) or (isinstance(x, int) and not isinstance(x, bool)) or _is_text_seq(x, False):
            return
        raise MusError(f"seats must be \"all\", a seat's name or number, got {x!r:.60} ({_kind(x)})")
    if name == "variant":
        if isinstance(x, (str, Variant)):
            return
        raise MusError(f"variant must be a name (8-reyes, 4-reyes, ten-kings) or a musstats Variant, got "
                       f"{x!r:.60} ({_kind(x)})")
    if name == "score" or name == "games":
        if isinstance(x, str) or (isinstance(x, (tuple, list)) and len(x) == 2 and
                                  all(isinstance(y, int) and not isinstance(y, bool) for y in x)):
            return
        raise MusError(f"{name} must be text like \"12-30\" or a pair of whole numbers, got {x!r:.60} ({_kind(x)})")
    if name in _NAMES:
        if isinstance(x, str) or (name == "juego_real" and isinstance(x, bool)):
            return
        raise MusError(f"{name} must be text, got {x!r:.60} ({_kind(x)})")
    if name in _NUMBERS:
        ok = isinstance(x, (int, float, str)) and not isinstance(x, bool)
        if ok and not isinstance(x, int):
            try:
                ok = math.isfinite(float(x))
            except ValueError:
                ok = False
        if ok:
            return
        raise MusError(f"{name} must be a number, got {x!r:.60} ({_kind(x)})")
    if name in _FLAGS:
        if isinstance(x, bool):
            return
        raise MusError(f"{name} must be True or False, got {x!r:.60} ({_kind(x)})")
    if name == "model":
        if hasattr(x, "p_win") and hasattr(x, "variant"):
            return
        raise MusError(f"model must be a musstats GameModel (musstats.game_model(...)), got {x!r:.60} ({_kind(x)})")


def _guarded(fn: Any) -> Any:
    """``fn`` with its arguments' types checked first (:func:`check_argument`)."""
    import functools
    import inspect

    sig = inspect.signature(fn)
    required = {n for n, p in sig.parameters.items() if p.default is inspect.Parameter.empty}
    none_ok = {n for n, p in sig.parameters.items() if p.default is None}

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise MusError(f"{fn.__name__}(): {e}") from None
        for n, x in bound.arguments.items():
            check_argument(n, x, n in required, n in none_ok)
        return fn(*args, **kwargs)

    return call
