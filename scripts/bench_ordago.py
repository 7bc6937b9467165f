"""Benchmark of `musstats ordago` against equilibrium opponents (issue 14 speed targets),
medians of one run, in a fresh cache folder.

- a score never solved, nothing near it: the cold solve (200 iterations);
- a score never solved, a solved score at most WARM_NEAR points away: the warm start
  (30 more iterations from the neighbour's solver state);
- a score solved before (from memory, and from the disk cache);
- the push/fold chart of one lance at a new score near a solved one;
- `musstats ordago` as a command (Python start and imports included) at a new warm score.

Every solve's NashConv (P(win the game)) is printed beside its time.  The game model the
scores are valued with is loaded once first (its time is printed too).

With ``--after-mus ITERATIONS,...``: the órdago after the mus instead (the deal solver, always
cold): per number of iterations, the cold solve of R C 5 4 at postre, grande, at three
scores, with its NashConv on the default evaluation deals, and a repeat from the cache.
Usage: python scripts/bench_ordago.py [--quick] [--after-mus 200,400,800]
"""

from __future__ import annotations

import os
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
    from musstats.engines.betting import store
    from musstats.rules.variant import Variant

    hand, seat, lance = "R C 5 4", "postre", "grande"

    def ask(score: str) -> tuple[float, dict]:
        t0 = time.perf_counter()
        r = ordago(hand, seat, lance=lance, score=score, equilibrium=True)
        dt = time.perf_counter() - t0
        eq = r.to_dict().get("equilibrium") or {}
        return dt, eq

    def line(kind: str, score: str, dt: float, eq: dict) -> None:
        nc = eq.get("nashconv") or {}
        print(f"{kind:8s} {score:6s} {dt:6.2f} s  iterations {eq.get('iterations')}  "
              f"warm from {eq.get('warm_start') or '-'}  NashConv {nc.get('nashconv')} ± {nc.get('nashconv_se')} "
              f"(in-sample {nc.get('nashconv_in')})", flush=True)

    t0 = time.perf_counter()
    E.next_hand_grid(Variant())
    print(f"game model loaded in {time.perf_counter() - t0:.2f} s", flush=True)
    ask("0-0")  # compile / load the kernels (its own solve is not counted)
    cold_scores = ["10-10", "25-5", "5-30"] if not quick else ["10-10"]
    warm_scores = {"10-10": ["11-10", "12-12", "9-14"], "25-5": ["27-6", "22-4"], "5-30": ["6-33"]}
    cold, warm, cached, disk = [], [], [], []
    for sc in cold_scores:
        dt, eq = ask(sc)
        line("cold", sc, dt, eq)
        cold.append(dt)
        for w in warm_scores[sc][: 1 if quick else None]:
            dt, eq = ask(w)
            line("warm", w, dt, eq)
            warm.append(dt)
    for _ in range(3):
        dt, eq = ask(cold_scores[0])
        cached.append(dt)
    for _ in range(3):
        store._MEMO.clear()
        E._STATE_MEMO.clear()
        dt, eq = ask(warm_scores[cold_scores[0]][0])
        disk.append(dt)
    t0 = time.perf_counter()
    df = pushfold(lance=lance, score="13-12")
    chart = time.perf_counter() - t0
    # the commands as on a user's machine: bytecode written by the first run (this sandbox sets
    # PYTHONDONTWRITEBYTECODE, which would compile every module from source in every run)
    env = dict(os.environ, MUSSTATS_CACHE=tmp)
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    def command(sc: str) -> float:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "musstats", "ordago", *hand.split(), "--seat", seat, "--lance", lance,
                        "--score", sc, "--quiet"], check=True, capture_output=True, env=env)
        return time.perf_counter() - t0

    command(cold_scores[0])  # solved before: writes the bytecode, not counted
    cmd = [command(sc) for sc in (["12-10"] if quick else ["12-10", "26-7", "7-30", "13-9", "24-3"])]
    med = statistics.median
    print(f"\nmedians: cold {med(cold):.2f} s ({len(cold)}), warm {med(warm):.2f} s ({len(warm)}), "
          f"solved before: memory {med(cached):.2f} s, disk {med(disk):.2f} s; push/fold chart frame at a warm "
          f"score {chart:.2f} s (warm from {df.attrs.get('warm_start')}); as a command, warm {med(cmd):.2f} s "
          f"[{', '.join(f'{x:.2f}' for x in cmd)}] "
          f"({len(cmd)})", flush=True)
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
