"""The table of seats: how many players, who partners whom, and how seats are named.

Seats are numbered from 1 (mano) in the order of speech wherever a user writes one; code
below the public API uses the 0-based *seat index*.  With partners (4 or 6 players) the
teams are the odd-numbered and the even-numbered seats (mano's team is team 0); in
individual play every player is his own team.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy is imported where an array is built: importing the rules stays light (--help)
    import numpy as np

from musstats.base.errors import MusError
from musstats.rules.labels import LAST_SEAT, SEAT_ORDINALS, SEATS, SEATS_BY_PLAYERS

def _is_int(x: Any) -> bool:
    try:
        operator.index(x)  # int, numpy integers
    except TypeError:
        return False
    return True


__all__ = ["Seating", "SEATS", "FOUR", "parse_seat", "team_of", "team_array", "ACCEPTED_SEATS"]

ACCEPTED_SEATS = "mano|second|third|postre (or 1-4, segundo, tercero)"


@dataclass(frozen=True)
class Seating:
    """Players at the table and their teams (docs/rules.md, "Table, seats and teams")."""

    players: int = 4
    individual: bool = False

    def __post_init__(self) -> None:
        p = self.players
        if isinstance(p, bool) or not _is_int(p) or not 2 <= p <= 6:
            raise MusError(f"players must be a whole number from 2 to 6, got {p!r}")
        object.__setattr__(self, "players", int(p))
        object.__setattr__(self, "individual", bool(self.individual))
        if not self.individual and p not in (4, 6):
            raise MusError(f"{p} players play individually (--individual): partners need 4 or 6 players")

    @property
    def names(self) -> tuple[str, ...]:
        """Seat names in the order of speech."""
        return SEATS_BY_PLAYERS[self.players]

    @property
    def teams(self) -> tuple[int, ...]:
        """Team of each seat index."""
        return tuple(range(self.players)) if self.individual else tuple(q % 2 for q in range(self.players))

    @property
    def n_teams(self) -> int:
        return self.players if self.individual else 2

    def team_array(self) -> np.ndarray:
        """int64 [players]: the team of each seat index (the kernels' form)."""
        import numpy as np

        return np.array(self.teams, np.int64)

    def name(self, seat: int) -> str:
        """Name of a seat index (``"mano"``, ``"second"``, ...)."""
        return self.names[seat]

    def team_label(self, seat: int) -> str:
        """The seat's team in words: ``"mano and third"``, or ``"mano alone"`` in individual play."""
        mates = [self.names[q] for q in range(self.players) if self.teams[q] == self.teams[seat]]
        return mates[0] + " alone" if len(mates) == 1 else (", ".join(mates[:-1]) + " and " + mates[-1])

    def accepted(self) -> str:
        """The accepted seat spellings, for error messages and help."""
        return f"{'|'.join(self.names)} (or 1-{self.players})"

    def parse(self, seat: str | int) -> int:
        """Seat index (0 = mano) from a name, an alias or a 1-based number."""
        if isinstance(seat, bool):
            raise MusError(f"unknown seat {seat!r}; accepted: {self.accepted()}")
        s = str(seat).strip().lower()
        if s in LAST_SEAT:
            return self.players - 1
        pos = int(s) if s.isdigit() else SEAT_ORDINALS.get(s, 0)
        if 1 <= pos <= self.players:
            return pos - 1
        raise MusError(f"unknown seat {seat!r} with {self.players} players; accepted: {self.accepted()}")

    def describe(self) -> dict:
        """JSON-friendly: players, individual, and each team's seats by name."""
        teams: dict[int, list[str]] = {}
        for q, k in enumerate(self.teams):
            teams.setdefault(k, []).append(self.names[q])
        return {"players": self.players, "individual": self.individual, "teams": list(teams.values())}


#: four players in two partnerships, the default table
FOUR = Seating()


def parse_seat(seat: str | int) -> int:
    """Seat index 0..3 (0 = mano) of the four-player table from a name, alias or 1-based number."""
    return FOUR.parse(seat)


def team_of(seat: int) -> int:
    """Team 0 = {mano, third}, team 1 = {second, postre} (four players)."""
    return seat % 2


def team_array(players: int = 4, individual: bool = False) -> np.ndarray:
    """int64 [players]: the team of each seat (partners: even and odd seats; individual: own)."""
    return Seating(players, individual).team_array()


assert SEATS == SEATS_BY_PLAYERS[4]
