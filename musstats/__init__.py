"""musstats: an odds engine for the Spanish card game Mus.

Importing the package is cheap: numba kernels are imported only when a
computation needs them.
"""

from __future__ import annotations

from musstats.errors import MusError
from musstats.variant import Variant

__version__ = "0.1.0"
__all__ = ["MusError", "Variant", "odds", "__version__"]


def __getattr__(name: str):
    if name in ("odds",):
        from musstats import api

        return getattr(api, name)
    raise AttributeError(f"module 'musstats' has no attribute {name!r}")
