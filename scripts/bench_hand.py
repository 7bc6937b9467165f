#!/usr/bin/env python3
"""Speed of ``musstats hand``: a hand's reading and decision, warm (in one process after a
first call: the kernels compiled, the shipped strategies read) and as a command (a fresh
process, the numba cache warm), for histories of every stage of a hand.  Medians of
``--repeat`` runs (default 5), the largest beside them, and the effective sample of each
reading; the load average first (the machine may be shared).

    .venv/bin/python scripts/bench_hand.py [--repeat 5] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: (hand, seat, history): a cut, an envite answered, a mus round, the pares, juego and punto (a pares and a juego
#: state whose strategy ships)
CASES = [
    ("R R 7 5", "third", "mus,corto; grande: paso,envido 2"),
    ("R R 3 A", "mano", "mus,mus,corto"),
    ("R R 3 A", "mano", "corto; grande: paso,paso,paso,paso; chica: paso,paso,paso,paso; pares mano+second"),
    ("R R 7 5", "second", "mus,mus,mus,mus; 1,3,2,4; grande: paso"),
    ("C C 7 A", "second", "corto; grande: paso,paso,paso,paso; chica: paso,envido 2,no,no; pares mano+second: paso"),
    ("R C 7 4", "postre", "mus,mus,corto; grande: paso,paso,paso,paso; chica: paso,paso,paso,paso; pares none; "
                          "juego mano+postre: paso"),
    ("R C 7 4", "mano", "corto; grande: paso,paso,paso,paso; chica: paso,paso,paso,paso; pares third; "
                        "juego mano+second"),
    ("R 6 5 4", "second", "corto; grande: paso,paso,paso,paso; chica: paso,paso,paso,paso; pares none; punto: paso"),
]


def main(argv=None) -> int:
    from musstats.analysis.reading import hand

    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    load = os.getloadavg()
    hand(*CASES[0][:2], history=CASES[0][2])  # the first call: kernels and strategies
    rows = []
    for cards, seat, hist in CASES:
        warm, ess = [], 0.0
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            r = hand(cards, seat, history=hist)
            warm.append(time.perf_counter() - t0)
            ess = r.meta["effective_samples"]
        cmd = []
        for _ in range(max(1, a.repeat // 2)):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "musstats", "hand", *cards.split(), "--seat", seat, "--history",
                            hist], check=True, capture_output=True, cwd=ROOT)
            cmd.append(time.perf_counter() - t0)
        rows.append((cards, seat, hist, statistics.median(warm), max(warm), statistics.median(cmd), ess))
    lines = [f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; medians of {a.repeat} warm calls "
             f"(largest) and of {max(1, a.repeat // 2)} commands", "",
             "| hand · seat | history | warm, median (largest) | command | effective sample |", "|---|---|---|---|---|"]
    for cards, seat, hist, med, mx, cmd, ess in rows:
        lines.append(f"| {cards} · {seat} | `{hist}` | {med:.2f} s ({mx:.2f} s) | {cmd:.2f} s | "
                     f"{ess:,.0f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        from musstats.base.files import atomic_write_text

        atomic_write_text(Path(a.out), text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
