"""Seat names and aliases."""

from __future__ import annotations

from musstats.base.errors import MusError

SEATS = ("mano", "second", "third", "postre")
_ALIASES = {
    "mano": 0, "1": 0, "first": 0, "primero": 0,
    "second": 1, "segundo": 1, "2": 1,
    "third": 2, "tercero": 2, "3": 2,
    "postre": 3, "4": 3, "fourth": 3, "cuarto": 3, "dealer": 3,
}
ACCEPTED_SEATS = "mano|second|third|postre (or 1-4, segundo, tercero)"


def parse_seat(seat: str | int) -> int:
    """Seat number 0..3 (0 = mano) from a name, alias or 1-based number."""
    s = str(seat).strip().lower()
    if s in _ALIASES:
        return _ALIASES[s]
    raise MusError(f"unknown seat {seat!r}; accepted: {ACCEPTED_SEATS}")


def team_of(seat: int) -> int:
    """Team 0 = {mano, third}, team 1 = {second, postre}."""
    return seat % 2
