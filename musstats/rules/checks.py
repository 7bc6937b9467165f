"""Every check of a user's input, in one module.

Each function validates one kind of value and returns it normalised, or raises
:class:`~musstats.base.errors.MusError` with one line that says what was wrong and what is
accepted.  Every public entry point (Python API, CLI, web) calls these, so no path can
skip a check.  The upper bounds keep every run within minutes on a laptop; they are
documented here and in the README.
"""

from __future__ import annotations

import math
import re
import secrets
from typing import Any, Iterable, overload

from musstats.base.errors import MusError
from musstats.rules.labels import LANCE_ALIASES, LANCES

__all__ = [
    "MAX_TRIALS", "MAX_KEEP_TRIALS", "MAX_TK_TRIALS", "MAX_DEALS", "MAX_ROUNDS", "MAX_SEED", "MAX_ITERATIONS",
    "whole", "positive", "seed", "trials", "target_se", "threads", "rounds", "deals", "lance", "score",
    "objective", "choice", "one_of_each", "no_repeats",
]

#: Monte Carlo showdown deals of one run (about a minute at 30 M deals/s)
MAX_TRIALS = 2_000_000_000
#: deals per keep-set of discard and mus (15 keep-sets share each deal)
MAX_KEEP_TRIALS = 50_000_000
#: ten-kings Monte Carlo deals (every joker is fixed in every deal)
MAX_TK_TRIALS = 1_000_000_000
#: deals of the game model's outcome table
MAX_DEALS = 200_000_000
#: mus rounds in a row
MAX_ROUNDS = 8
#: seeds are whole numbers 0 .. 2**63 - 1
MAX_SEED = 2**63 - 1
#: iterations of the betting solver
MAX_ITERATIONS = 1_000_000

_INT_RE = re.compile(r"^\s*[+-]?\d+\s*$")


def whole(x: Any, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """A whole number (an int, an integral float or numpy scalar, or its text) within [lo, hi]."""
    import numpy as np

    v: int | None = None
    if isinstance(x, (bool, np.bool_)):
        v = None
    elif isinstance(x, (int, np.integer)):
        v = int(x)
    elif isinstance(x, (float, np.floating)) and math.isfinite(x) and float(x).is_integer():
        v = int(x)
    elif isinstance(x, str) and _INT_RE.match(x):
        v = int(x)
    rng = _range_text(lo, hi)
    if v is None:
        raise MusError(f"{what} must be a whole number{rng}, got {x!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise MusError(f"{what} must be a whole number{rng}, got {v}")
    return v


def _range_text(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f" from {lo:,} to {hi:,}"
    if lo is not None:
        return f" of at least {lo:,}"
    if hi is not None:
        return f" of at most {hi:,}"
    return ""


def positive(x: Any, what: str, hi: int | None = None) -> int:
    """A whole number >= 1 (and <= ``hi``)."""
    return whole(x, what, 1, hi)


def seed(x: Any) -> int:
    """The seed to use: fresh entropy for None, else a whole number 0 .. 2**63 - 1."""
    if x is None:
        return secrets.randbits(63)
    return whole(x, "seed", 0, MAX_SEED)


@overload
def trials(x: Any, default: int, hi: int = MAX_TRIALS, what: str = "trials") -> int: ...


@overload
def trials(x: Any, default: None, hi: int = MAX_TRIALS, what: str = "trials") -> int | None: ...


def trials(x: Any, default: int | None, hi: int = MAX_TRIALS, what: str = "trials") -> int | None:
    """A number of deals from 1 to ``hi`` (``default`` when None)."""
    if x is None:
        return default
    return whole(x, what, 1, hi)


def target_se(x: Any) -> float | None:
    """A standard error to reach: a number in [0.0001, 0.5)."""
    if x is None:
        return None
    if isinstance(x, bool) or not isinstance(x, (int, float)) and not _is_number(x):
        raise MusError(f"target_se must be a number from 0.0001 to 0.5, got {x!r}")
    v = float(x)
    if not (1e-4 <= v < 0.5):
        raise MusError(f"target_se must be a number from 0.0001 to 0.5 (exclusive), got {x!r}")
    return v


def _is_number(x: Any) -> bool:
    import numpy as np

    return isinstance(x, (np.integer, np.floating))


def threads(x: Any) -> int | None:
    """A number of numba threads, 1 .. NUMBA_NUM_THREADS (None: all of them)."""
    if x is None:
        return None
    import numba

    top = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    return whole(x, f"threads (1..{top} on this machine, NUMBA_NUM_THREADS)", 1, top)


def rounds(x: Any) -> int:
    """A number of mus rounds, 1 .. MAX_ROUNDS."""
    return whole(x, "rounds", 1, MAX_ROUNDS)


def deals(x: Any, default: int) -> int:
    """A number of simulated deals for the game model, 1 .. MAX_DEALS."""
    return default if x is None else whole(x, "deals", 1, MAX_DEALS)


def lance(x: Any, allowed: Iterable[str] = LANCES) -> str:
    """A lance name (aliases: par, big, small, pairs, game, point)."""
    allowed = tuple(allowed)
    name = LANCE_ALIASES.get(str(x).strip().lower())
    if name is None or name not in allowed:
        raise MusError(f"unknown lance {x!r}; accepted: {', '.join(allowed)}")
    return name


_SCORE_RE = re.compile(r"^\s*(\d+)\s*[-:]\s*(\d+)\s*$")


def score(x: Any, target: int = 40) -> tuple[int, int]:
    """A score ``"A-B"`` (our stones first) or a pair, each in 0 .. target - 1."""
    if isinstance(x, str):
        m = _SCORE_RE.match(x)
        if not m:
            raise MusError(f"malformed score {x!r}; expected A-B, our stones first, e.g. 12-30")
        a, b = int(m.group(1)), int(m.group(2))
    else:
        try:
            a, b = x
        except (TypeError, ValueError):
            raise MusError(f"malformed score {x!r}; expected A-B, our stones first, e.g. 12-30") from None
        a = whole(a, "a score")
        b = whole(b, "a score")
    for who, s in (("our", a), ("their", b)):
        if not 0 <= s < target:
            raise MusError(f"{who} score {s} is out of range for a game to {target}; "
                           f"accepted: 0..{target - 1} (at {target} the game is over)")
    return a, b


def objective(x: Any, accepted: Iterable[str]) -> str:
    """One of the discard objectives."""
    return choice(x, accepted, "objective")


def choice(x: Any, accepted: Iterable[str], what: str) -> str:
    """One of ``accepted`` (case-insensitive)."""
    accepted = tuple(accepted)
    s = str(x).strip().lower()
    if s not in accepted:
        raise MusError(f"unknown {what} {x!r}; accepted: {', '.join(accepted)}")
    return s


def one_of_each(items: Iterable[tuple[str, Any]], what: str) -> dict[str, Any]:
    """A mapping from (key, value) pairs in which a key given twice must keep one value."""
    out: dict[str, Any] = {}
    for k, v in items:
        if k in out and out[k] != v:
            raise MusError(f"{what} {k} is given twice with different values ({out[k]} and {v}); give it once")
        out[k] = v
    return out


def no_repeats(values: Iterable[Any], what: str) -> list[Any]:
    """The values, refusing any that is given twice."""
    seen: list[Any] = []
    for v in values:
        if v in seen:
            raise MusError(f"{what} {v!r} is given twice; give it once")
        seen.append(v)
    return seen
