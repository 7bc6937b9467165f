"""musstats: an odds engine for the Spanish card game Mus.

Importing the package is cheap: numba kernels are imported only when a
computation needs them.

Entry points (DataFrames unless noted): ``odds`` (per-lance odds), ``mus`` (cut or
mus), ``game_model`` (a GameModel: P(win the game) from every score),
``strategy_table`` (every hand × seat); and, from their modules,
``musstats.analysis.discard.discard`` (keep-sets, best first) and ``musstats.analysis.ordago.ordago``
(a dict with the advice).
"""

from __future__ import annotations

from musstats.base.errors import MusError
from musstats.rules.variant import Variant, make_variant

__version__ = "0.1.0"
__all__ = ["MusError", "Variant", "make_variant", "odds", "mus", "game_model", "strategy_table",
           "__version__"]

_LAZY = {
    "odds": "musstats.analysis.odds",
    "mus": "musstats.analysis.discard",
    "game_model": "musstats.analysis.game",
    "strategy_table": "musstats.analysis.table",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'musstats' has no attribute {name!r}")
