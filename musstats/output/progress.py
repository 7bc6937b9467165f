"""A progress bar on stderr for long runs: shown after a second, with the elapsed time and
an ETA (rich).  Where stderr is not a terminal (a build's log), a plain line instead, once
the run has lasted :data:`LOG_EVERY` seconds and then as often, and one when it ends.  It is
the callback ``progress(done, total)`` that engines call."""

from __future__ import annotations

import sys
import time
from typing import Any

__all__ = ["ProgressBar", "SHOW_AFTER", "LOG_EVERY"]

#: seconds a run must last before its bar appears
SHOW_AFTER = 1.0
#: seconds between the plain lines written where stderr is not a terminal
LOG_EVERY = 30.0


def _clock(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


class ProgressBar:
    """``bar(done, total)`` after every batch; ``bar.close()`` when the run ends."""

    def __init__(self, label: str = "deals") -> None:
        self.label = label
        self.t0 = time.perf_counter()
        self._bar: Any = None
        self._task: Any = None
        self._logged: float | None = None  # when the last plain line was written
        self._state = (0, 0)

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        self._state = (done, total)
        if self._bar is None:
            if now - self.t0 < SHOW_AFTER:
                return
            if not sys.stderr.isatty():
                if now - (self.t0 if self._logged is None else self._logged) >= LOG_EVERY:
                    self._line(now)
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

    def _line(self, now: float) -> None:
        done, total = self._state
        elapsed = now - self.t0
        eta = f", ETA {_clock(elapsed * (total - done) / done)}" if 0 < done < total else ""
        print(f"{self.label}: {done:,}/{max(total, done):,}, {_clock(elapsed)} elapsed{eta}", file=sys.stderr,
              flush=True)
        self._logged = now

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        elif self._logged is not None:  # a log that had lines: its last one
            self._line(time.perf_counter())
            self._logged = None

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
