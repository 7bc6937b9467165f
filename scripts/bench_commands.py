"""Every command, cold and warm, from a fresh clone: the first run after the install step and
the later runs, medians of one run of this script (plus the órdago at random scores asked of a
warm server).

Each repeat (``--repeat``, default 3):

1. a fresh clone of this repository's HEAD (``git clone --no-hardlinks``: no numba cache, no
   bytecode) and an empty result cache folder (``MUSSTATS_CACHE``);
2. the install step: with ``--install`` the real ``make install`` in the clone (its own
   ``.venv``; the dependencies come from pip), else the clone runs on this checkout's
   ``.venv`` (``PYTHONPATH`` = the clone) and the install step is the warm-up that
   ``make install`` runs (``scripts/warm_up.py``), timed;
3. every command of ``COMMANDS`` once, in order: its **first run** after the install step;
4. every command ``--warm`` more times (default 3): its **later runs**.

``--ordago N`` (default 40): in one Python process of the last clone, ``musstats.ordago`` at N
random (hand, seat, lance, score) questions of 8 reyes as dealt after a first call (a warm
server): p50, p95 and the largest time.

Prints a Markdown table (also written to ``--out FILE``, default none) for docs/benchmarks.md.
``--source DIR``: clone the repository at DIR (its HEAD) instead of this one.

Usage: python scripts/bench_commands.py [--repeat 3] [--warm 3] [--ordago 40] [--install] [--out FILE.md]
                                        [--source DIR]
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (label, argv): the README's example of every command (and the órdago at a score the install
#: step did not solve)
COMMANDS = [
    ("--help", ["--help"]),
    ("odds R R 3 A --seat mano", ["odds", "R", "R", "3", "A", "--seat", "mano"]),
    ("odds … --method mc --trials 2000000", ["odds", "R", "R", "3", "A", "--seat", "mano", "--method", "mc",
                                             "--trials", "2000000", "--seed", "7"]),
    ("discard R R 7 A --trials 20000", ["discard", "R", "R", "7", "A", "--seat", "mano", "--trials", "20000",
                                        "--seed", "1"]),
    ("mus R R 7 A --seat postre --trials 20000", ["mus", "R", "R", "7", "A", "--seat", "postre", "--trials", "20000",
                                                  "--seed", "1"]),
    ("ordago R C 5 4 --seat postre … 0-0", ["ordago", "R", "C", "5", "4", "--seat", "postre", "--lance", "grande",
                                           "--score", "0-0"]),
    ("ordago R C 5 4 … --lance chica --score 17-23", ["ordago", "R", "C", "5", "4", "--seat", "postre", "--lance",
                                                      "chica", "--score", "17-23"]),
    ("bet R R R A --seat mano --lance grande", ["bet", "R", "R", "R", "A", "--seat", "mano", "--lance", "grande",
                                                "--seed", "1"]),
    ("bet R R R A --seat second --lance juego (against the shipped plans)", ["bet", "R", "R", "R", "A", "--seat", "second",
                                                                     "--lance", "juego", "--declared",
                                                                     "postre:no-juego", "--history", "paso",
                                                                     "--seed", "1"]),
    ("hand R R 7 5 --seat third --history …", ["hand", "R", "R", "7", "5", "--seat", "third", "--history",
                                               "mus,corto; grande: paso,envido 2"]),
    ("hand … --history \"mus,mus,mus,mus; 1,3,2,4; grande: paso\"", ["hand", "R", "R", "7", "5", "--seat", "second",
                                                                    "--history", "mus,mus,mus,mus; 1,3,2,4; grande: paso"]),
    ("game", ["game"]),
    ("arena --b heuristic --hands 20000 --games 1000", ["arena", "--b", "heuristic", "--hands", "20000", "--games",
                                                        "1000"]),
    ("table --hands 5 --out t.csv", ["table", "--hands", "5", "--out", "{tmp}/t.csv"]),
    ("plot hand R R 3 A --out rr3a.png", ["plot", "hand", "R", "R", "3", "A", "--seat", "mano", "--out",
                                          "{tmp}/rr3a.png"]),
    ("rules", ["rules"]),
]
#: the goal of a first run after the install step (quiet 2-core machine)
FIRST_RUN_GOAL = 30.0
#: the goal of the órdago's p95 at a warm server
ORDAGO_GOAL = 2.0


#: ``--source DIR``: clone that repository instead of this one (e.g. a prepared checkout)
SOURCE = ROOT


def _clone(where: Path) -> Path:
    dst = where / "musstats"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(SOURCE), str(dst)], check=True)
    return dst


def _env(clone: Path, cache: Path, installed: bool) -> dict:
    env = dict(os.environ)
    env["MUSSTATS_CACHE"] = str(cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not installed:
        env["PYTHONPATH"] = str(clone)
    return env


def _python(clone: Path, installed: bool) -> str:
    return str(clone / ".venv" / "bin" / "python") if installed else sys.executable


def _run(py: str, argv: list[str], env: dict, cwd: Path, tmp: Path) -> float:
    args = [a.replace("{tmp}", str(tmp)) for a in argv]
    t0 = time.perf_counter()
    r = subprocess.run([py, "-m", "musstats", *args], env=env, cwd=cwd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"musstats {' '.join(args)} failed ({r.returncode}): {r.stderr.strip()[-500:]}")
    return dt


def one_repeat(work: Path, warm: int, install: bool) -> tuple[float, dict, dict, Path, dict]:
    clone = _clone(work)
    cache = work / "cache"
    tmp = work / "out"
    tmp.mkdir()
    env = _env(clone, cache, install)
    t0 = time.perf_counter()
    if install:
        subprocess.run(["make", "install"], cwd=clone, check=True, env=env)
    else:
        subprocess.run([sys.executable, str(clone / "scripts" / "warm_up.py"), "--quiet"], cwd=clone, check=True,
                       env=env)
    install_s = time.perf_counter() - t0
    py = _python(clone, install)
    first, later = {}, {}
    for label, argv in COMMANDS:
        first[label] = _run(py, argv, env, clone, tmp)
        print(f"  first {first[label]:7.2f} s  {label}", flush=True)
    for label, argv in COMMANDS:
        later[label] = statistics.median(_run(py, argv, env, clone, tmp) for _ in range(warm))
        print(f"  later {later[label]:7.2f} s  {label}", flush=True)
    return install_s, first, later, clone, env


_ORDAGO_CHILD = r"""
import json, random, statistics, sys, time
import musstats
from musstats.tables.hands import hand_tables
from musstats.rules.variant import Variant
n, seed = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
labels = hand_tables(Variant()).labels
t0 = time.perf_counter()
musstats.ordago("R C 5 4", "postre", lance="grande", score="0-0")   # the first call: imports, loads
first = time.perf_counter() - t0
times, asked = [], 0
while len(times) < n:
    hand, seat = rng.choice(labels), rng.choice(["mano", "second", "third", "postre"])
    lance, score = rng.choice(["grande", "chica", "pares", "juego", "punto"]), f"{rng.randrange(40)}-{rng.randrange(40)}"
    asked += 1
    t0 = time.perf_counter()
    try:
        musstats.ordago(hand, seat, lance=lance, score=score)
    except musstats.MusError:
        continue   # no órdago there (e.g. punto with juego in hand): not a question
    times.append(time.perf_counter() - t0)
times.sort()
print(json.dumps({"first": first, "n": len(times), "asked": asked, "p50": statistics.median(times),
                  "p95": times[int(0.95 * (len(times) - 1))], "max": times[-1]}))
"""


def ordago_server(py: str, env: dict, cwd: Path, n: int, seed: int = 2026) -> dict:
    import json

    r = subprocess.run([py, "-c", _ORDAGO_CHILD, str(n), str(seed)], env=env, cwd=cwd, capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise SystemExit(f"the órdago at random scores failed: {r.stderr.strip()[-500:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def table(install: list[float], first: dict, later: dict, server: dict | None, repeats: int, warm: int,
          how: str) -> str:
    med = statistics.median
    lines = [f"`scripts/bench_commands.py` ({how}; {repeats} fresh clone(s), medians; later runs: median of "
             f"{warm}):", "",
             "| command | first run after the install step | later runs | goal |", "|---|---|---|---|",
             f"| the install step ({'`make install`' if how.startswith('make') else 'the warm-up of `make install`'}) "
             f"| {med(install):.1f} s | | |"]
    for label, _ in COMMANDS:
        f = med(first[label])
        lines.append(f"| `musstats {label}` | {f:.1f} s{' ✗' if f > FIRST_RUN_GOAL else ''} | "
                     f"{med(later[label]):.2f} s | ≤ {FIRST_RUN_GOAL:.0f} s |")
    if server:
        lines += ["", f"`musstats.ordago` at {server['n']} random questions (hand, seat, lance, score; 8 reyes, as "
                      f"dealt) in one process after a first call ({server['first']:.1f} s): p50 {server['p50']:.2f} s, "
                      f"**p95 {server['p95']:.2f} s**, largest {server['max']:.2f} s (goal: p95 ≤ {ORDAGO_GOAL:.0f} s)."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)

    def opt(name: str, default: str) -> str:
        return args[args.index(name) + 1] if name in args else default

    repeats, warm, n_ordago = int(opt("--repeat", "3")), int(opt("--warm", "3")), int(opt("--ordago", "40"))
    install = "--install" in args
    out = opt("--out", "")
    global SOURCE
    SOURCE = Path(opt("--source", str(ROOT))).resolve()
    installs: list[float] = []
    firsts: dict = {label: [] for label, _ in COMMANDS}
    laters: dict = {label: [] for label, _ in COMMANDS}
    server = None
    base = Path(tempfile.mkdtemp(prefix="musstats-bench-commands-"))
    try:
        for r in range(repeats):
            work = base / f"r{r}"
            work.mkdir()
            print(f"repeat {r + 1} of {repeats}: {work}", flush=True)
            s, first, later, clone, env = one_repeat(work, warm, install)
            print(f"  install step {s:.1f} s", flush=True)
            installs.append(s)
            for label in firsts:
                firsts[label].append(first[label])
                laters[label].append(later[label])
            if r == repeats - 1 and n_ordago:
                server = ordago_server(_python(clone, install), env, clone, n_ordago)
            if r < repeats - 1:
                shutil.rmtree(work, ignore_errors=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    how = ("make install in each clone" if install else
           "each clone on this checkout's .venv, the install step being the warm-up `make install` runs")
    text = table(installs, firsts, laters, server, repeats, warm, how)
    print(text)
    if out:
        Path(out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
