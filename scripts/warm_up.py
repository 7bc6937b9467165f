"""The warm-up step of ``make install``: run every command once on a small input, so that numba
compiles (and caches on disk) every kernel a first run would compile, matplotlib builds its font
cache, and the default tables a first run computes (the en-paso game model, the órdago of the
README's example) are in the disk cache.  Two groups of commands run side by side (two
processes: numba compiles on one core each).

Usage: python scripts/warm_up.py [--quiet]
Prints each command's seconds (and the total); exit status 1 if a command failed.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: two groups, each run in order in its own process; every command small
GROUPS = {
    "A": [
        ["odds", "R", "R", "3", "A", "--seat", "mano"],
        ["odds", "R", "R", "3", "A", "--seat", "mano", "--method", "mc", "--trials", "70000", "--seed", "1"],
        ["odds", "S/o", "R", "3", "A", "--variant", "ten-kings", "--trials", "20000", "--seed", "1"],
        ["odds", "R", "R", "3", "A", "--players", "6", "--trials", "20000", "--seed", "1"],
        ["game"],
        ["ordago", "R", "C", "5", "4", "--seat", "postre", "--lance", "grande", "--score", "0-0"],
        ["table", "--hands", "1", "--trials", "1000", "--seed", "1"],
        ["plot", "hand", "R", "R", "3", "A", "--seat", "mano", "--out", "{tmp}/hand.png"],
    ],
    "B": [
        ["discard", "R", "R", "7", "A", "--seat", "mano", "--trials", "2000", "--seed", "1"],
        ["mus", "R", "R", "7", "A", "--seat", "postre", "--trials", "2000", "--seed", "1"],
        ["discard", "R", "R", "7", "A", "--mus-visto", "--trials", "2000", "--seed", "1"],
        ["bet", "R", "R", "R", "A", "--seat", "mano", "--lance", "grande", "--seed", "1"],
        ["hand", "R", "R", "7", "5", "--seat", "third", "--history", "mus,corto; grande: paso,envido 2"],
        ["arena", "--hands", "2000", "--games", "20", "--seed", "1"],
    ],
}


def run_group(name: str, quiet: bool) -> int:
    """Run one group's commands in this process; returns how many failed."""
    import tempfile

    from musstats.cli import main

    failed = 0
    with tempfile.TemporaryDirectory(prefix="musstats-warm-up-") as tmp:
        for argv in GROUPS[name]:
            args = [a.replace("{tmp}", tmp) for a in argv]
            t0 = time.perf_counter()
            out, err = io.StringIO(), io.StringIO()
            code = 0
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    main(args + ["--quiet"])
            except SystemExit as e:
                code = int(e.code or 0)
            except Exception as e:  # a failing command must not keep the others from warming up
                code = 1
                err.write(f"{type(e).__name__}: {e}")
            dt = time.perf_counter() - t0
            if code:
                failed += 1
                print(f"warm-up: musstats {' '.join(argv)} failed ({code}): {err.getvalue().strip()[-300:]}",
                      file=sys.stderr, flush=True)
            elif not quiet:
                print(f"warm-up {name}: {dt:6.1f} s  musstats {' '.join(argv)}", flush=True)
    return failed


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    quiet = "--quiet" in args
    if "--group" in args:
        return 1 if run_group(args[args.index("--group") + 1], quiet) else 0
    t0 = time.perf_counter()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    procs = [subprocess.Popen([sys.executable, __file__, "--group", g] + (["--quiet"] if quiet else []), env=env)
             for g in GROUPS]
    codes = [p.wait() for p in procs]
    if not quiet:
        print(f"warm-up: {time.perf_counter() - t0:.1f} s", flush=True)
    return 1 if any(codes) else 0


if __name__ == "__main__":
    sys.exit(main())
