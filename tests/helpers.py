"""Shared test helpers."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
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


#: ``musstats serve ARGS`` with its threads' stacks dumped on SIGUSR1 (for a server that does not stop)
SERVE_SCRIPT = ("import sys, signal, faulthandler; faulthandler.register(signal.SIGUSR1, all_threads=True); "
                "from musstats.cli import cli, main; from musstats.cli.serve import serve; "
                "cli.add_command(serve) if 'serve' not in cli.commands else None; main(['serve', *sys.argv[1:]])")


def start_server(*args: str, env: dict | None = None) -> tuple[subprocess.Popen, str]:
    """``musstats serve ARGS`` in a process of its own; its URL from the first line it prints."""
    e = {**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"}
    p = interruptible([sys.executable, "-c", SERVE_SCRIPT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                      text=True, cwd=ROOT, env=e)
    line = p.stdout.readline()
    m = re.search(r"(http://\S+/)", line)
    if not m:
        p.kill()
        raise AssertionError(f"no URL in {line!r}: {p.stderr.read()}")
    return p, m.group(1)


def stop_server(p: subprocess.Popen) -> tuple[int, str]:
    """Ctrl-C to a server of :func:`start_server`: (exit status, stderr); its threads' stacks in
    the failure when it still runs 20 s later."""
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGUSR1)  # its threads' stacks, on its stderr
        time.sleep(1.0)
        p.kill()
        _, err = p.communicate()
        raise AssertionError(f"the server still ran 20 s after Ctrl-C; its stderr and threads:\n{err}") from None
    return p.returncode, err


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
