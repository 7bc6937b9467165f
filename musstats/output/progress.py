"""A progress bar on stderr for long runs: shown after a second, with the elapsed time and
an ETA (rich).  It is the callback ``progress(done, total)`` that engines call."""

from __future__ import annotations

import time
from typing import Any

__all__ = ["ProgressBar", "SHOW_AFTER"]

#: seconds a run must last before its bar appears
SHOW_AFTER = 1.0


class ProgressBar:
    """``bar(done, total)`` after every batch; ``bar.close()`` when the run ends."""

    def __init__(self, label: str = "deals") -> None:
        self.label = label
        self.t0 = time.perf_counter()
        self._bar: Any = None
        self._task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None:
            if time.perf_counter() - self.t0 < SHOW_AFTER:
                return
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                       TimeRemainingColumn)

            self._bar = Progress(TextColumn(self.label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("ETA"), TimeRemainingColumn(), console=Console(stderr=True),
                                 transient=True)
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=total)
        self._bar.update(self._task, completed=done, total=max(total, done))

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
