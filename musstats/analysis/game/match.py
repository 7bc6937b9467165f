"""The match: P(we win the match) from the games won so far and the score of the game in progress.

The rule texts play a match of games: best of three (the first pair to win two games) or,
in one text, the first pair to win three.  The game in progress is worth
``W = model.p_win(us, them, mano)``; every later game starts at 0-0, with mano's team not
known in advance (mano rotates every hand), so each later game is won with
``p0 = (W(0, 0 | we are mano) + W(0, 0 | they are mano)) / 2``.  Then, with ``need`` games to
win the match, ``M(i, j)`` = P(we win the match having won ``i`` games to their ``j``):
``M(need, j) = 1``, ``M(i, need) = 0``, ``M(i, j) = p0 M(i + 1, j) + (1 - p0) M(i, j + 1)``,
and the answer is ``W M(A + 1, B) + (1 - W) M(A, B + 1)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from musstats.base.errors import MusError
from musstats.rules import checks

__all__ = ["MATCH_FORMATS", "MatchResult", "match_probability", "parse_games"]

#: match formats and the games a pair needs to win it
MATCH_FORMATS = {"best-of-3": 2, "first-to-3": 3}


def parse_games(text: str | tuple[int, int], need: int) -> tuple[int, int]:
    """Games won so far ``"A-B"`` (ours first), each below ``need``."""
    if isinstance(text, str):
        parts = text.replace(":", "-").split("-")
        if len(parts) != 2:
            raise MusError(f"malformed games {text!r}; expected A-B (games won, ours first), e.g. 1-0")
        a, b = (checks.whole(p.strip(), "games won") for p in parts)
    else:
        try:
            a, b = (checks.whole(x, "games won") for x in text)
        except (TypeError, ValueError):
            raise MusError(f"malformed games {text!r}; expected A-B (games won, ours first)") from None
    for who, g in (("our", a), ("their", b)):
        if not 0 <= g < need:
            raise MusError(f"{who} games won {g} is out of range for a match to {need} games; accepted: 0..{need - 1}")
    return a, b


@lru_cache(maxsize=None)
def _m(i: int, j: int, need: int, p0: float) -> float:
    if i >= need:
        return 1.0
    if j >= need:
        return 0.0
    return p0 * _m(i + 1, j, need, p0) + (1 - p0) * _m(i, j + 1, need, p0)


@dataclass
class MatchResult:
    """P(we win the match) and the numbers it comes from."""

    match: str
    games: tuple[int, int]
    score: tuple[int, int]
    mano: str
    p_game: float  # P(we win the game in progress)
    p_later_game: float  # P(we win a later game from 0-0)
    p_match: float
    game_model: dict

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of ``musstats game --match ... --format json``."""
        return {"match": self.match, "games_to_win": MATCH_FORMATS[self.match],
                "games": {"us": self.games[0], "them": self.games[1]},
                "score": {"us": self.score[0], "them": self.score[1]}, "mano": self.mano,
                "p_game": self.p_game, "p_later_game": self.p_later_game, "p_match": self.p_match,
                "game_model": self.game_model}

    def to_frame(self):
        """One row of the figures; metadata in ``attrs``."""
        import pandas as pd

        df = pd.DataFrame([{"p_game": self.p_game, "p_later_game": self.p_later_game, "p_match": self.p_match}])
        df.attrs.update({k: v for k, v in self.to_dict().items() if not k.startswith("p_")})
        return df


def match_probability(model, match: str = "best-of-3", games: str | tuple[int, int] = "0-0",
                      score: str | tuple[int, int] = "0-0", mano: str = "avg") -> MatchResult:
    """P(we win the match) from ``games`` won (ours first), the ``score`` of the game in progress
    and who is mano in the next hand, with a :class:`~musstats.analysis.game.model.GameModel`."""
    from musstats.analysis.game.model import mano_choice

    match = checks.choice(match, MATCH_FORMATS, "match format")
    need = MATCH_FORMATS[match]
    a, b = parse_games(games, need)
    us, them = checks.score(score, model.target)
    m = mano_choice(mano)
    w = model.p_win(us, them, m)
    p0 = (model.p_win(0, 0, "us") + model.p_win(0, 0, "them")) / 2
    p = w * _m(a + 1, b, need, p0) + (1 - w) * _m(a, b + 1, need, p0)
    return MatchResult(match, (a, b), (us, them), m, w, p0, p, model.describe())
