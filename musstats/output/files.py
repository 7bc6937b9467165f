"""Writing and reading tables, by file extension: ``.csv``, ``.parquet``, ``.md`` (a Markdown
pipe table) and ``.json`` (``{"meta": ..., "columns": [...], "rows": [{...}, ...]}``, NaN as
null).  CSV files start with ``#`` comment lines holding the run's metadata (what was
computed: rules, method, trials, seed, partial); ``read_frame`` skips them.  Every file
is written atomically (:mod:`musstats.base.files`).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from musstats.base.errors import MusError
from musstats.base.files import atomic_write, atomic_write_text, check_output
from musstats.base.jsonable import frame_records, jsonable

__all__ = ["TABLE_EXTS", "IMAGE_EXTS", "frame_to_json", "frame_to_markdown", "frame_to_csv", "write_frame",
           "read_frame", "meta_comment"]

TABLE_EXTS = (".csv", ".parquet", ".md", ".json")
IMAGE_EXTS = (".png", ".svg", ".pdf")


def frame_to_json(df, meta: dict | None = None) -> str:
    """The JSON document of a table: ``{"meta", "columns", "rows"}`` (NaN as null)."""
    doc = {"meta": jsonable(meta if meta is not None else dict(df.attrs)), "columns": list(map(str, df.columns)),
           "rows": frame_records(df)}
    return json.dumps(doc, ensure_ascii=False, indent=1, default=str) + "\n"


def _md_cell(x: Any, digits: int) -> str:
    import numpy as np

    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        return "–" if math.isnan(x) else f"{float(x):.{digits}f}"
    if x is None:
        return "–"
    return str(x).replace("|", "\\|").replace("\n", " ")


def frame_to_markdown(df, digits: int = 4, align: dict[str, str] | None = None) -> str:
    """A GitHub Markdown pipe table of ``df`` (no index); numbers right-aligned."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    cols = [str(c) for c in df.columns]
    align = align or {}
    marks = []
    for c, dt in zip(cols, df.dtypes):
        a = align.get(c, "right" if is_numeric_dtype(dt) and not is_bool_dtype(dt) else "left")
        marks.append("---:" if a == "right" else (":---:" if a == "center" else "---"))
    lines = ["| " + " | ".join(c.replace("|", "\\|") for c in cols) + " |",
             "|" + "|".join(marks) + "|"]
    for rec in df.itertuples(index=False):
        lines.append("| " + " | ".join(_md_cell(v, digits) for v in rec) + " |")
    return "\n".join(lines) + "\n"


def meta_comment(meta: dict) -> str:
    """The metadata of a run as ``# key: value`` lines (values as compact JSON)."""
    return "".join(f"# {k}: {json.dumps(jsonable(v), ensure_ascii=False, separators=(',', ':'))}\n"
                   for k, v in meta.items())


def frame_to_csv(df, meta: dict | None = None) -> str:
    """CSV text of ``df`` (no index) after a ``#`` comment block with ``meta`` (default: ``df.attrs``)."""
    meta = dict(df.attrs) if meta is None else meta
    return meta_comment(meta) + df.to_csv(index=False, lineterminator="\n")


def write_frame(df, path: str | os.PathLike, meta: dict | None = None, title: str | None = None) -> Path:
    """Write a DataFrame by extension (.csv .parquet .md .json), atomically.

    MusError (one line) for an unknown extension or a file that cannot be written.
    """
    p = check_output(path, TABLE_EXTS, "table")
    ext = p.suffix.lower()
    meta = dict(df.attrs) if meta is None else meta
    try:
        if ext == ".csv":
            return atomic_write_text(p, frame_to_csv(df, meta))
        if ext == ".parquet":
            def write(tmp: str) -> None:
                try:
                    df.to_parquet(tmp, index=False)
                except ImportError as e:
                    raise MusError(f"writing Parquet needs pyarrow ({e}); use a .csv file") from None
            return atomic_write(p, write)
        if ext == ".json":
            return atomic_write_text(p, frame_to_json(df, meta))
        head = f"# {title}\n\n" if title else ""
        if meta:
            head += "".join(f"- **{k}**: {v}\n" for k, v in meta.items()) + "\n"
        return atomic_write_text(p, head + frame_to_markdown(df))
    except OSError as e:
        raise MusError(f"cannot write {str(p)!r}: {e.strerror or e}") from None


def _comment_lines(p: Path) -> int:
    n = 0
    with open(p, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                break
            n += 1
    return n


def read_frame(path: str | os.PathLike):
    """Read a table written by :func:`write_frame` (.csv, .parquet or .json)."""
    import pandas as pd

    p = Path(path)
    ext = p.suffix.lower()
    if ext not in (".csv", ".parquet", ".json"):
        raise MusError(f"cannot read {p.name!r} as a table; accepted: FILE.csv, FILE.parquet, FILE.json")
    if not p.is_file():
        raise MusError(f"no such table file: {str(p)!r}")
    try:
        if ext == ".csv":
            return pd.read_csv(p, keep_default_na=False, na_values=[""], comment=None,
                               skiprows=_comment_lines(p))
        if ext == ".parquet":
            return pd.read_parquet(p)
        doc = json.loads(p.read_text(encoding="utf-8"))
        df = pd.DataFrame(doc["rows"], columns=doc["columns"])
        df.attrs.update(doc.get("meta") or {})
        return df
    except (OSError, ValueError, KeyError) as e:
        raise MusError(f"cannot read the table {str(p)!r}: {e}") from None
