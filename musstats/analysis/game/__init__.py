"""Win-the-game model: P(our team wins the game) from any score (docs/rules.md, "Game").

* :mod:`.sources` -- where the deals of a hand come from (as dealt, after a mus round);
* :mod:`.outcomes` -- what one hand yields en paso: a table of outcome vectors;
* :mod:`.dp` -- the dynamic programme over scores;
* :mod:`.model` -- :class:`GameModel` and :func:`game_model`, cached on disk.
"""

from __future__ import annotations

from musstats.analysis.game.dp import win_probabilities
from musstats.analysis.game.model import DEFAULT_DEALS, DEFAULT_SEED, MANO_CHOICES, GameModel, game_model
from musstats.analysis.game.outcomes import Outcomes, paso_outcomes
from musstats.analysis.game.sources import DEAL_SOURCES, DEFAULT_SOURCE, DealSource, register_deal_source

__all__ = ["Outcomes", "paso_outcomes", "win_probabilities", "GameModel", "game_model", "DEAL_SOURCES",
           "DEFAULT_SOURCE", "DealSource", "register_deal_source", "DEFAULT_DEALS", "DEFAULT_SEED",
           "MANO_CHOICES"]
