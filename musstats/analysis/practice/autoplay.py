"""Autoplay: the player's seat played by a strategy set, then reviewed like a human's game --
what each style of play costs against the equilibrium bots (``musstats play --autoplay``)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from musstats.analysis.practice.review import Review, review
from musstats.analysis.practice.table import PracticeGame
from musstats.base.errors import MusError

__all__ = ["AutoplayResult", "autoplay", "MAX_AUTOPLAY_HANDS"]

#: the most hands one autoplay run plays
MAX_AUTOPLAY_HANDS = 100_000


@dataclass
class AutoplayResult:
    """The games played and their review."""

    strategy: str
    game: PracticeGame
    review: Review
    partial: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, rows: bool = False) -> dict[str, Any]:
        d = self.review.to_dict()
        out = {**self.meta, "strategy": self.strategy, "partial": self.partial,
               **{k: v for k, v in d.items() if k not in ("review", "hands")}, "review": d["review"]}
        if rows:
            out["hands"] = d["hands"]
        return out


def autoplay(strategy: str = "equilibrium", *, hands: int = 20, seed: int = 1, target: int = 40,
             progress: Callable[[int, int], None] | None = None) -> AutoplayResult:
    """Play ``hands`` hands (games restart as they end) with the player's seat played by
    ``strategy`` (``equilibrium``, ``paso``, ``heuristic``, ``random``) and review them.
    Ctrl-C stops between hands: the hands played so far are reviewed (``partial``)."""
    from musstats.rules import checks

    n = checks.whole(hands, "hands", 1, MAX_AUTOPLAY_HANDS)
    t0 = time.perf_counter()
    g = PracticeGame(seed=seed, target=target, match="series", autoplay=strategy)
    partial = False
    played = 0
    try:
        while True:
            g.play_out(1)
            played += 1
            if progress is not None:
                progress(played, 2 * n)
            if played >= n:
                break
            g.next_hand()
    except KeyboardInterrupt:
        partial = True
        if not g.hand.over:  # the hand being played is left out
            g.game.hands.pop()
            if not g.game.hands:
                g.record.games.pop()
    if not g.record.hands():
        raise MusError("interrupted before a hand was played")
    t1 = time.perf_counter()
    try:
        rv = review(g.record, progress=None if progress is None else lambda d, t: progress(n + d, n + t))
    except KeyboardInterrupt:
        raise
    meta = {"hands": len(g.record.hands()), "seed": g.seed, "bots": g.record.meta["bots"],
            "seconds_play": round(t1 - t0, 3), "seconds_review": round(time.perf_counter() - t1, 3)}
    return AutoplayResult(g.autoplay.name if g.autoplay else strategy, g, rv, partial, meta)
