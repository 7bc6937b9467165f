"""Plain JSON values from numpy and pandas ones (NaN becomes null)."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["jsonable", "frame_records"]


def jsonable(x: Any) -> Any:
    """``x`` as a JSON-friendly value: numpy scalars become Python ones, NaN and NA become
    None; dicts, lists and tuples are converted recursively."""
    import numpy as np

    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return [jsonable(v) for v in x.tolist()]
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return None if math.isnan(x) else x
    if x is None:
        return None
    try:
        import pandas as pd

        if pd.isna(x):
            return None
    except (TypeError, ValueError, ImportError):
        pass
    return x


def frame_records(df) -> list[dict[str, Any]]:
    """The rows of a DataFrame as JSON-friendly dicts (no index)."""
    return [{str(c): jsonable(v) for c, v in zip(df.columns, rec)} for rec in df.itertuples(index=False)]
