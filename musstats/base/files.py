"""Writing result files: atomically, with the format chosen by the file extension.

Every file musstats writes for the table, plot and report commands goes through
:func:`atomic_write`: the content is written to a temporary file in the same
directory, which then replaces the target with ``os.replace`` (atomic on POSIX and
Windows).  An exception or Ctrl-C while writing leaves the previous file untouched
and removes the temporary file.

Tables (:func:`write_frame`) are written by extension: ``.csv``, ``.parquet``,
``.md`` (a Markdown pipe table) and ``.json`` (``{"meta": ..., "columns": [...],
"rows": [{...}, ...]}``, NaN as null).
"""

from __future__ import annotations

import json
import math
import os
import uuid
from pathlib import Path
from typing import Any, Callable, Iterable

from musstats.base.errors import MusError

TABLE_EXTS = (".csv", ".parquet", ".md", ".json")
IMAGE_EXTS = (".png", ".svg", ".pdf")


def _tmp_name(path: Path) -> Path:
    # hidden, unique, beside the target so that os.replace never crosses a file system
    return path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp")


def atomic_write(path: str | os.PathLike, write: Callable[[str], Any]) -> Path:
    """Call ``write(tmp)`` to fill a temporary file beside ``path``, then rename it onto ``path``.

    On any exception (including KeyboardInterrupt) the temporary file is removed and
    ``path`` is left as it was.  Returns ``path`` as a Path.
    """
    path = Path(path)
    tmp = _tmp_name(path)
    try:
        write(str(tmp))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8, ``\\n`` line ends) atomically."""
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    return atomic_write(path, write)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` atomically."""
    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            f.write(data)
    return atomic_write(path, write)


def check_output(path: str | os.PathLike, exts: Iterable[str], what: str = "output") -> Path:
    """Validate an output path before any long computation; MusError in one line if bad.

    Checks the extension against ``exts`` and that the directory exists and is writable.
    """
    exts = tuple(exts)
    p = Path(path)
    if p.suffix.lower() not in exts:
        raise MusError(f"unknown {what} type {p.name!r}; accepted: {', '.join('FILE' + e for e in exts)}")
    d = p.parent if str(p.parent) else Path(".")
    if not d.is_dir():
        raise MusError(f"cannot write {str(p)!r}: directory {str(d)!r} does not exist")
    if p.is_dir():
        raise MusError(f"cannot write {str(p)!r}: it is a directory")
    if not os.access(d, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise MusError(f"cannot write {str(p)!r}: permission denied")
    return p


# --------------------------------------------------------------------------- tables

def _json_value(x: Any) -> Any:
    import numpy as np

    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if isinstance(x, (np.integer,)):
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
    except (TypeError, ValueError):
        pass
    return x


def frame_to_json(df, meta: dict | None = None) -> str:
    """The JSON document of a table: ``{"meta", "columns", "rows"}`` (NaN as null)."""
    rows = [{c: _json_value(v) for c, v in zip(df.columns, rec)} for rec in df.itertuples(index=False)]
    doc = {"meta": meta if meta is not None else dict(df.attrs), "columns": list(map(str, df.columns)),
           "rows": rows}
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


def write_frame(df, path: str | os.PathLike, meta: dict | None = None, title: str | None = None) -> Path:
    """Write a DataFrame by extension (.csv .parquet .md .json), atomically.

    MusError (one line) for an unknown extension or a file that cannot be written.
    """
    p = check_output(path, TABLE_EXTS, "table")
    ext = p.suffix.lower()
    meta = dict(df.attrs) if meta is None else meta
    try:
        if ext == ".csv":
            return atomic_write(p, lambda tmp: df.to_csv(tmp, index=False, lineterminator="\n"))
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
            return pd.read_csv(p, keep_default_na=False, na_values=[""])
        if ext == ".parquet":
            return pd.read_parquet(p)
        doc = json.loads(p.read_text(encoding="utf-8"))
        df = pd.DataFrame(doc["rows"], columns=doc["columns"])
        df.attrs.update(doc.get("meta") or {})
        return df
    except (OSError, ValueError, KeyError) as e:
        raise MusError(f"cannot read the table {str(p)!r}: {e}") from None
