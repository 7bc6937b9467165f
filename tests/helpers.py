"""Shared test helpers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_cli(capsys, args: list[str]) -> tuple[int, str, str]:
    """Run ``musstats ARGS`` in-process: (exit code, stdout, stderr)."""
    from musstats.cli import main

    try:
        main(args)
        code = 0
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


def run_process(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``python -m musstats ARGS`` in a fresh process (text output captured)."""
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "musstats", *args], capture_output=True, text=True, env=e,
                          timeout=timeout, cwd=ROOT)


def interruptible(cmd: list[str], **kw) -> subprocess.Popen:
    """``subprocess.Popen(cmd, **kw)`` for a child that the test stops with Ctrl-C: SIGINT at its
    default in the child, as a terminal gives it.  A background job of a non-interactive shell
    (as a CI runner may start the tests) ignores SIGINT, and children inherit that: a Ctrl-C
    sent before the child installs a handler of its own is then lost."""
    if os.name == "posix":
        kw["preexec_fn"] = _sigint_default
    return subprocess.Popen(cmd, **kw)


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def check_one_line_error(code: int, out: str, err: str, fragment: str, prog: str = "musstats") -> str:
    """The "bad input" contract of every command: exit status 2, nothing on stdout, and exactly
    one line on stderr, ``PROG: error: ...``, that contains ``fragment`` (no traceback).
    Returns that line."""
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith(f"{prog}: error: "), line
    assert fragment in line, (fragment, line)
    assert "Traceback" not in err
    assert out == "", out
    return line


def assert_exit2_one_line(capsys, args: list[str], fragment: str) -> str:
    """Run ``musstats ARGS`` in-process and check :func:`check_one_line_error`; returns the line."""
    code, out, err = run_cli(capsys, args)
    return check_one_line_error(code, out, err, fragment)
