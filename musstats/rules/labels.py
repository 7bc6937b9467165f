"""Every name musstats shows or accepts for a lance, a seat, a team or a pares kind.

Lance names are Spanish everywhere (the names players use); the English glosses serve
help texts and aliases.  Seats are named in the order of speech from mano.
"""

from __future__ import annotations

__all__ = ["LANCES", "GRANDE", "CHICA", "PARES", "JUEGO", "PUNTO", "LANCE_ES", "LANCE_EN", "LANCE_ALIASES", "COUNT_LANCES", "SEATS", "SEAT_ES",
           "SEATS_BY_PLAYERS", "SEAT_ORDINALS", "LAST_SEAT", "PARES_NAMES", "TEAM_NAMES", "POLICY_HELP", "lance_title"]

#: the lances in the order they are played and counted (punto replaces juego when nobody
#: holds juego)
LANCES = ("grande", "chica", "pares", "juego", "punto")
#: the index of each lance in ``LANCES`` (and in every per-lance array)
GRANDE, CHICA, PARES, JUEGO, PUNTO = range(5)
#: how a lance is written in titles and table headers
LANCE_ES = {"grande": "Grande", "chica": "Chica", "pares": "Pares", "juego": "Juego", "punto": "Punto"}
#: English glosses
LANCE_EN = {"grande": "big", "chica": "small", "pares": "pairs", "juego": "game", "punto": "point"}
#: accepted spellings of a lance
LANCE_ALIASES = {**{n: n for n in LANCES}, "par": "pares", "big": "grande", "small": "chica",
                 "pairs": "pares", "game": "juego", "point": "punto"}
#: the four counted steps of a hand; the last is juego when anybody holds juego, else punto
COUNT_LANCES = ("grande", "chica", "pares", "juego-or-punto")

#: the four seats in the order of speech
SEATS = ("mano", "second", "third", "postre")
SEAT_ES = {"mano": "Mano", "second": "Segundo", "third": "Tercero", "postre": "Postre",
           "fourth": "Cuarto", "fifth": "Quinto"}
#: seat names by number of players, in the order of speech (mano first, postre last)
SEATS_BY_PLAYERS = {
    2: ("mano", "postre"),
    3: ("mano", "second", "postre"),
    4: SEATS,
    5: ("mano", "second", "third", "fourth", "postre"),
    6: ("mano", "second", "third", "fourth", "fifth", "postre"),
}
#: seat positions (1-based, in the order of speech) by name, in English and Spanish
SEAT_ORDINALS = {"mano": 1, "first": 1, "primero": 1, "second": 2, "segundo": 2, "third": 3, "tercero": 3,
                 "fourth": 4, "cuarto": 4, "fifth": 5, "quinto": 5}
#: names of the last seat, whatever the number of players
LAST_SEAT = ("postre", "dealer", "ultimo", "último")
PARES_NAMES = ("none", "par", "medias", "duples")
#: the two partnerships of four players
TEAM_NAMES = ("mano and third", "second and postre")


def lance_title(lance: str) -> str:
    """``"Grande"`` for ``"grande"``."""
    return LANCE_ES[lance]


#: the discard policies of the other players (``--policy``; :mod:`musstats.tables.policies`)
POLICY_HELP = {
    "table": "the shipped discard strategy table (the best keep-set of every hand and seat, by iterated best "
             "response)",
    "reyes-pairs": "keep reyes and every card of a pair",
    "grande": "keep reyes only",
    "chica": "keep ases and the next-lowest rank (the 4s with 8 reyes)",
    "31": "keep 10-point cards, plus an as beside three of them",
}
