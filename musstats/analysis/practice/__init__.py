"""Practice: whole games against the equilibrium bots, and a review of every decision.

* :mod:`.hand` -- one hand action by action: the mus, the declarations, the betting of every
  lance, the count (:func:`musstats.engines.scoring.score_hand`);
* :mod:`.history` -- hand histories as JSON (saved games, or games typed by hand);
* :mod:`.bots` -- how the program plays a seat (the bots; autoplay of the player's seat);
* :mod:`.table` -- the practice table: :class:`PracticeGame`;
* :mod:`.values` -- the figures of a decision (hints, review); :mod:`.review` -- the review;
* :mod:`.autoplay` -- a strategy set at the player's seat, reviewed.
"""

from __future__ import annotations

from musstats.analysis.practice.autoplay import AutoplayResult, autoplay
from musstats.analysis.practice.hand import Hand
from musstats.analysis.practice.history import FORMAT, VERSION, Record, load_history, read_history
from musstats.analysis.practice.review import Review, review, review_hand
from musstats.analysis.practice.table import PLACES, PracticeGame

__all__ = ["Hand", "Record", "load_history", "read_history", "FORMAT", "VERSION", "PracticeGame", "PLACES", "Review",
           "review", "review_hand", "AutoplayResult", "autoplay"]
