"""Benchmark of `musstats ordago` against equilibrium opponents, medians of one run, in a
fresh cache folder (the shipped anchors and tables as they are).

- random questions (8 reyes as dealt: a random hand, seat, lance and score; those with no
  órdago skipped) in one process after a first call, a warm server: p50, p95, largest, on one
  numba thread (the default) and on two;
- a question solved before, from memory and from the disk cache;
- the push/fold chart's frame at a new score;
- `musstats ordago` as a command (Python start and imports included) at new scores.

Every solve's NashConv (P(win the game)) is printed beside its time.

With ``--after-mus ITERATIONS,...``: the órdago after the mus instead (the deal solver, always
cold): per number of iterations, the cold solve of R C 5 4 at postre, grande, at three
scores, with its NashConv on the default evaluation deals, and a repeat from the cache.
Usage: python scripts/bench_ordago.py [--quick] [--after-mus 200,400,800]
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    quick = "--quick" in args
    tmp = tempfile.mkdtemp(prefix="musstats-bench-ordago-")
    os.environ["MUSSTATS_CACHE"] = tmp
    if "--after-mus" in args:
        return _after_mus([int(x) for x in args[args.index("--after-mus") + 1].split(",")], quick)
    from musstats.analysis import ordago_eq as E
    from musstats.analysis.ordago import ordago, pushfold
    from musstats.base.errors import MusError
    from musstats.engines.solving import store
    from musstats.rules.variant import Variant
    from musstats.tables.hands import hand_tables

    labels = hand_tables(Variant()).labels
    t0 = time.perf_counter()
    ordago("R C 5 4", "postre", lance="grande", score="0-0")
    print(f"first question (imports, tables, kernels loaded) {time.perf_counter() - t0:.2f} s", flush=True)
    med = statistics.median

    def questions(n: int, seed: int, threads: int | None) -> list[float]:
        rng = random.Random(seed)
        times: list[float] = []
        while len(times) < n:
            hand, seat = rng.choice(labels), rng.choice(["mano", "second", "third", "postre"])
            lance, score = rng.choice(["grande", "chica", "pares", "juego", "punto"]), \
                f"{rng.randrange(40)}-{rng.randrange(40)}"
            t1 = time.perf_counter()
            try:
                r = ordago(hand, seat, lance=lance, score=score, threads=threads)
            except MusError:
                continue
            times.append(time.perf_counter() - t1)
            eq = r.to_dict().get("equilibrium") or {}
            nc = eq.get("nashconv") or {}
            print(f"  {times[-1]:5.2f} s  {hand} {seat} {lance} {score}: {eq.get('iterations')} iterations from "
                  f"{eq.get('warm_start') or '-'}; NashConv {nc.get('nashconv')} (in-sample {nc.get('nashconv_in')})",
                  flush=True)
        return sorted(times)

    n = 10 if quick else 40
    for threads, seed in ((None, 2026), (2, 2027)):
        ts = questions(n, seed, threads)
        print(f"random questions, {'one thread (default)' if threads is None else f'{threads} threads'}: p50 "
              f"{med(ts):.2f} s, p95 {ts[int(0.95 * (len(ts) - 1))]:.2f} s, largest {ts[-1]:.2f} s ({len(ts)})",
              flush=True)
    cached, disk = [], []
    for _ in range(3):
        t1 = time.perf_counter()
        ordago("R C 5 4", "postre", lance="grande", score="0-0")
        cached.append(time.perf_counter() - t1)
    for _ in range(3):
        store.MEMO.clear()
        E._STATE_MEMO.clear()
        t1 = time.perf_counter()
        ordago("R C 5 4", "postre", lance="grande", score="0-0")
        disk.append(time.perf_counter() - t1)
    t1 = time.perf_counter()
    df = pushfold(lance="grande", score="13-12")
    chart = time.perf_counter() - t1
    # the commands as on a user's machine: bytecode written by the first run
    env = dict(os.environ, MUSSTATS_CACHE=tmp)
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    def command(sc: str) -> float:
        t2 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "musstats", "ordago", "R", "C", "5", "4", "--seat", "postre", "--lance",
                        "grande", "--score", sc, "--quiet"], check=True, capture_output=True, env=env)
        return time.perf_counter() - t2

    command("0-0")  # solved before: writes the bytecode, not counted
    cmd = [command(sc) for sc in (["12-10"] if quick else ["12-10", "26-7", "7-30", "13-9", "24-3"])]
    print(f"\nsolved before: memory {med(cached):.2f} s, disk {med(disk):.2f} s; push/fold chart frame at a new "
          f"score {chart:.2f} s (from {df.attrs.get('warm_start')}); as a command at new scores {med(cmd):.2f} s "
          f"[{', '.join(f'{x:.2f}' for x in cmd)}]", flush=True)
    return 0


def _after_mus(iterations: list[int], quick: bool) -> int:
    """Cold solves of the órdago after the mus, per number of iterations (module doc)."""
    from musstats.analysis import ordago_eq as E
    from musstats.analysis.ordago import ordago
    from musstats.rules.variant import Variant

    t0 = time.perf_counter()
    E.next_hand_grid(Variant())
    print(f"game model loaded in {time.perf_counter() - t0:.2f} s", flush=True)
    ordago("R C 5 4", "postre", lance="grande", score="1-1", equilibrium=True, deal="after-mus",
           iterations=10)  # the kernels, the deal pools (not counted)
    for it in iterations:
        times = []
        for sc in (["0-0"] if quick else ["0-0", "10-10", "5-30"]):
            t0 = time.perf_counter()
            r = ordago("R C 5 4", "postre", lance="grande", score=sc, equilibrium=True, deal="after-mus",
                       iterations=it).to_dict()
            dt = time.perf_counter() - t0
            times.append(dt)
            eq = r["equilibrium"]
            nc = eq.get("nashconv") or {}
            c, a = eq.get("call") or {}, eq.get("answer") or {}
            t1 = time.perf_counter()
            ordago("R C 5 4", "postre", lance="grande", score=sc, equilibrium=True, deal="after-mus", iterations=it)
            print(f"after-mus {it:5d} it. {sc:6s} {dt:6.2f} s (again {time.perf_counter() - t1:.2f} s)  NashConv "
                  f"{nc.get('nashconv')} ± {nc.get('nashconv_se')} (in-sample {nc.get('nashconv_in')}) on "
                  f"{nc.get('samples')} deals; call {c.get('p_call')} accept {a.get('p_accept')}", flush=True)
        print(f"median cold solve, {it} iterations: {statistics.median(times):.2f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
