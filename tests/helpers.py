"""Shared test helpers."""

from __future__ import annotations


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
