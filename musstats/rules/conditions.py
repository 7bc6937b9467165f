"""Conditions on the other hands, as the user states them: declarations and the partner's seña.

This module only parses and names them (docs/rules.md, "Declarations" and "Partner
signals"); :func:`musstats.tables.context.make_context` turns them into masks over hands.
"""

from __future__ import annotations

from typing import Iterable

from musstats.base.errors import MusError
from musstats.rules.seats import FOUR, Seating

__all__ = ["DECLARATIONS", "SIGNALS", "parse_declared", "parse_signal"]

DECLARATIONS = ("pares", "no-pares", "juego", "no-juego")
_DECL_ALIASES = {"pares": "pares", "no-pares": "no-pares", "nopares": "no-pares", "sin-pares": "no-pares",
                 "juego": "juego", "no-juego": "no-juego", "nojuego": "no-juego", "sin-juego": "no-juego",
                 "punto": "no-juego"}
#: docs/rules.md "Partner signals": the seña and what it says about the partner's hand.
SIGNALS = {
    "duples": "duples (two pairs, or four of a kind)",
    "medias": "medias (three of a rank)",
    "31": "juego of 31",
    "two-reyes": "exactly two reyes",
    "three-reyes": "exactly three reyes",
    "four-reyes": "four reyes",
    "two-ases": "exactly two ases",
    "three-ases": "exactly three ases",
    "four-ases": "four ases",
    "punto-30": "punto 30",
    "bad": "bad cards: no pares and no juego",
}


def _declaration(what: str) -> str:
    w = _DECL_ALIASES.get(str(what).strip().lower())
    if w is None:
        raise MusError(f"unknown declaration {what!r}; accepted: {', '.join(DECLARATIONS)}")
    return w


def parse_declared(text: str | Iterable[str] | None, seating: Seating = FOUR) -> dict[int, dict[str, bool]]:
    """``"second:pares,postre:no-pares"`` (or several such strings) → {seat index: {lance: holds}}.

    A seat may declare both lances (``second:pares,second:no-juego``); the same seat and lance
    given twice must agree, and a contradiction is an error rather than a silent choice.
    """
    if text is None:
        return {}
    items = [text] if isinstance(text, str) else list(text)
    out: dict[int, dict[str, bool]] = {}
    for chunk in items:
        for item in str(chunk).replace(";", ",").split(","):
            item = item.strip()
            if not item:
                continue
            if ":" not in item:
                raise MusError(f"declaration {item!r} needs SEAT:WHAT, e.g. second:pares "
                               f"(WHAT: {', '.join(DECLARATIONS)})")
            seat_txt, what = item.split(":", 1)
            seat = seating.parse(seat_txt)
            w = _declaration(what)
            lance = "pares" if "pares" in w else "juego"
            holds = not w.startswith("no-")
            seen = out.setdefault(seat, {})
            if lance in seen and seen[lance] != holds:
                raise MusError(f"{seating.name(seat)} is declared both {lance} and no-{lance}; give one")
            seen[lance] = holds
    return out


def declared_text(declared: dict[int, dict[str, bool]], seating: Seating = FOUR) -> str:
    """The canonical text of parsed declarations, e.g. ``"second:pares,postre:no-juego"``."""
    return ",".join(f"{seating.name(s)}:{'' if holds else 'no-'}{lance}"
                    for s in sorted(declared) for lance, holds in sorted(declared[s].items()))


def parse_signal(signal: str | Iterable[str] | None) -> str | None:
    """The partner's seña (one name of ``SIGNALS``; the same seña given twice is one)."""
    if signal is None:
        return None
    items = [signal] if isinstance(signal, str) else list(signal)
    names = {str(s).strip().lower() for s in items if str(s).strip()}
    if not names:
        return None
    for s in names:
        if s not in SIGNALS:
            raise MusError(f"unknown signal {s!r}; accepted: {'|'.join(SIGNALS)}")
    if len(names) > 1:
        raise MusError(f"the partner makes one seña; got {', '.join(sorted(names))}")
    return names.pop()
