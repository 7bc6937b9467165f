"""Writing files atomically, reading shipped tables once, and checking an output path before a
long computation.

Every file musstats writes goes through :func:`atomic_write`: the content is written to a
temporary file in the same directory, which then replaces the target with ``os.replace``
(atomic on POSIX and Windows).  An exception or Ctrl-C while writing leaves the previous
file untouched and removes the temporary file.  :func:`check_output` refuses an output
whose folder does not exist: musstats never creates folders for an ``--out``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Callable, Iterable

__all__ = ["DATA_DIR", "data_file", "atomic_write", "atomic_write_text", "atomic_write_bytes", "check_output",
           "remove_temporary_files", "read_npz", "forget_npz", "write_npz", "LazyNpz"]

from musstats.base.errors import MusError

#: the ``.npz`` files read in this process, by path (None: absent or unreadable)
_NPZ: dict[tuple[str, bool], Mapping | None] = {}

#: the temporary files being written now (removed by :func:`remove_temporary_files`)
_LIVE: set[Path] = set()


def remove_temporary_files() -> None:
    """Remove the temporary files of the writes in progress (before a hard exit)."""
    for tmp in list(_LIVE):
        try:
            os.unlink(tmp)
        except OSError:
            pass


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
    _LIVE.add(tmp)
    try:
        write(str(tmp))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    finally:
        _LIVE.discard(tmp)
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


class LazyNpz(Mapping):
    """The arrays of an ``.npz`` file, each read (and kept) when first asked for: a process that
    needs a few arrays of a file of many does not decompress the others."""

    def __init__(self, path: str) -> None:
        import numpy as np

        self._z = np.load(path, allow_pickle=False)
        self._names = list(self._z.files)
        self._got: dict = {}

    def __getitem__(self, name: str):
        if name not in self._got:
            if name not in self._names:
                raise KeyError(name)
            self._got[name] = self._z[name]
        return self._got[name]

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def close(self) -> None:
        self._z.close()


def read_npz(path: str | os.PathLike, lazy: bool = False) -> Mapping | None:
    """Every array of an ``.npz`` file (a shipped table), read once per process: a mapping of
    arrays (with ``lazy``, a :class:`LazyNpz`: each array read when first asked for), or None
    when the file is absent or unreadable."""
    import zipfile

    import numpy as np

    key = (str(path), lazy)
    if key not in _NPZ:
        try:
            if lazy:
                _NPZ[key] = LazyNpz(str(path))
            else:
                with np.load(str(path), allow_pickle=False) as z:
                    _NPZ[key] = {k: z[k] for k in z.files}
        except (OSError, ValueError, zipfile.BadZipFile):
            _NPZ[key] = None
    return _NPZ[key]


def forget_npz(path: str | os.PathLike) -> None:
    """Drop what :func:`read_npz` kept of ``path`` (after the file was written)."""
    for lazy in (False, True):
        z = _NPZ.pop((str(path), lazy), None)
        if isinstance(z, LazyNpz):
            z.close()


#: how :func:`write_npz` can store the arrays: deflate (``np.savez_compressed``), LZMA (smaller where
#: arrays repeat beyond deflate's 32 KiB window, slower to read) or stored as they are; numpy reads all three
NPZ_COMPRESSION = ("zlib", "lzma", "none")


def write_npz(path: str | os.PathLike, arrays: dict, compression: str = "zlib") -> Path:
    """The one ``.npz`` writer: ``arrays`` (name -> array) to ``path``, atomically
    (:func:`atomic_write`), compressed as ``compression`` says (:data:`NPZ_COMPRESSION`); what
    :func:`read_npz` kept of the file is dropped."""
    import zipfile

    import numpy as np

    if compression not in NPZ_COMPRESSION:
        raise ValueError(f"compression must be one of {', '.join(NPZ_COMPRESSION)}")
    method = {"zlib": zipfile.ZIP_DEFLATED, "lzma": zipfile.ZIP_LZMA, "none": zipfile.ZIP_STORED}[compression]

    def write(tmp: str) -> None:
        with zipfile.ZipFile(tmp, "w", compression=method, allowZip64=True) as zf:
            for name, a in arrays.items():
                with zf.open(f"{name}.npy", "w", force_zip64=True) as f:
                    np.lib.format.write_array(f, np.asanyarray(a), allow_pickle=False)

    forget_npz(path)
    return atomic_write(path, write)


#: the package's shipped data files (musstats/data)
DATA_DIR = Path(__file__).resolve().parents[1] / "data"


def data_file(stem: str, variant, suffix: str = "", ext: str = "npz") -> Path:
    """``musstats/data/<stem>_<deck>_<juego real><suffix>.<ext>``: a shipped file of the rules of
    ``variant`` (anything with ``deck`` and ``juego_real``)."""
    return DATA_DIR / f"{stem}_{variant.deck}_{variant.juego_real}{suffix}.{ext}"
