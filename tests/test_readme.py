"""Every example of the README runs, and prints what the README shows.

The README's ``console`` blocks hold commands (``$ musstats ...``), each followed by its
output, trimmed where a line is ``…``; its ``sh`` blocks hold commands shown without output.
Every ``musstats`` command runs in-process (``musstats.cli.main``, as the entry point does) in
a temporary folder, so the files it writes land there, and must exit with status 0.  Where
the README shows output, every decimal figure in it (``+1.433``, ``58.05 %``) must appear in
the real output; where the block is followed by ``<!-- key figures: A; B -->``, each of those
strings must instead, in the output of the command that shows it (for outputs that also hold
figures which vary from run to run, such as timings).  The
``python`` block runs as a script and must print, line by line, what its ``# →`` comments say.

``musstats serve`` starts a server that runs until stopped: it is the one command not run as
such; its options are checked by ``--help``.  The expected values are the README's own text:
these tests check that the documented examples are true.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from helpers import ROOT, run_cli

README = (ROOT / "README.md").read_text(encoding="utf-8")

_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```\n(?:<!-- key figures: (.*?) -->\n)?", re.M | re.S)
_FIGURE = re.compile(r"[+-]?\d[\d,]*\.\d+(?: %)?")
#: commands that do not return by themselves: their options are checked with --help
_NOT_RUN = {"serve"}


def _blocks() -> list[tuple[str, str, list[str] | None]]:
    """(language, body, key figures or None) of every fenced block of the README."""
    return [(m.group(1), m.group(2), [k.strip() for k in m.group(3).split(";")] if m.group(3) else None)
            for m in _BLOCK.finditer(README)]


def _examples() -> list[tuple[list[str], list[str] | None]]:
    """(argv after ``musstats``, the figures its shown output must contain or None)."""
    out: list[tuple[list[str], list[str] | None]] = []
    for lang, body, keys in _blocks():
        if lang == "sh":
            for line in body.splitlines():
                if line.strip().startswith("musstats "):
                    out.append((shlex.split(line, comments=True)[1:], None))
        elif lang == "console":
            entries: list[tuple[str, list[str]]] = []
            for line in body.splitlines():
                if line.startswith("$ "):
                    entries.append((line[2:], []))
                elif entries:
                    entries[-1][1].append(line)
            if keys is not None:  # each key figure belongs to the command whose shown output holds it
                lost = [k for k in keys if not any(k in "\n".join(shown) for _, shown in entries)]
                assert not lost, f"key figures not in the README's own output: {lost}"
            for cmd, shown in entries:
                argv = shlex.split(cmd, comments=True)
                assert argv[0] == "musstats", f"a console block runs musstats only: {cmd!r}"
                text = "\n".join(line for line in shown if line.strip() != "…")
                figures = _FIGURE.findall(text) if keys is None else [k for k in keys if k in text]
                out.append((argv[1:], figures))
    return out


EXAMPLES = _examples()
RUN = [(argv, figures) for argv, figures in EXAMPLES if argv[0] not in _NOT_RUN]


def test_the_readme_has_an_example_of_every_command():
    table = re.search(r"^## Commands\n(.*?)^## ", README, re.M | re.S)
    assert table is not None
    listed = set(re.findall(r"^\| `musstats (\w+)", table.group(1), re.M))
    shown = {argv[0] for argv, _ in EXAMPLES}
    assert listed == shown, f"commands without an example: {sorted(listed - shown)}; not listed: {sorted(shown - listed)}"
    # a command that shows output is checked against it
    assert sum(1 for _, f in RUN if f) >= 8


@pytest.mark.parametrize("argv,figures", RUN, ids=[" ".join(a) for a, _ in RUN])
def test_readme_command_runs_and_prints_what_the_readme_shows(argv, figures, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, argv)
    assert code == 0, f"musstats {' '.join(argv)} exited {code}: {err.strip()[-500:]}"
    out += err  # what a terminal shows: a command that writes a file says so on stderr
    assert out.strip(), "no output"
    for fig in figures or []:
        # a whole figure: 0.0 % is not found inside 100.0 %, nor 0.014 inside 0.0145
        assert re.search(r"(?<![\d.])" + re.escape(fig) + r"(?!\d)", out), \
            f"the README shows {fig!r}, the output of musstats {' '.join(argv)} does not:\n{out}"
    if "--out" in argv:
        written = Path(argv[argv.index("--out") + 1])
        assert (tmp_path / written).is_file(), f"{written} not written"


@pytest.mark.parametrize("argv", [a for a, _ in EXAMPLES if a[0] in _NOT_RUN], ids=lambda a: " ".join(a))
def test_readme_server_command_has_those_options(argv, capsys):
    code, out, err = run_cli(capsys, [*argv, "--help"])
    assert code == 0, err
    assert f"Usage: musstats {argv[0]}" in out


def test_readme_python_example_prints_what_its_comments_say(tmp_path, monkeypatch):
    scripts = [body for lang, body, _ in _blocks() if lang == "python"]
    assert len(scripts) == 1
    script = scripts[0]
    expected = [line.split("# →", 1)[1].strip() for line in script.splitlines() if "# →" in line]
    assert len(expected) >= 3
    monkeypatch.chdir(tmp_path)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(script, "README.md (python)", "exec"), {"__name__": "__readme__"})
    assert buf.getvalue().splitlines() == expected
