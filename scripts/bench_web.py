#!/usr/bin/env python3
"""Load test of ``musstats serve`` on loopback: N concurrent odds requests.

Starts ``musstats serve --port 0`` in a process of its own (or uses ``--url`` of a server
already running on this machine), warms it up with one request, then sends ``--requests``
odds questions at once (default 200, all different: exact odds of 50 hands x 4 seats, 8
reyes, so every one is computed), and the same ones again (answered from the cache).
Prints requests per second, the latency percentiles and the errors of both rounds.

``--ordago N``: then N órdago questions one at a time (the default answer, against
equilibrium opponents), each at a different score of a game to 40 and a random hand and seat
(``--seed``), at grande or ``--lance``; prints their latency percentiles (the first answer at
a score may include its solve).

Bounded: at most 1,000 requests, 500 at once, and a deadline for each round (default 120 s;
whatever has not answered by then counts as an error).  Loopback only.

On a machine shared with other work the wall-clock figures depend on that work; the script
also prints the load average before it starts and (for the server it starts, on Linux) the
CPU time the server spent per request, which depends much less on it.

    .venv/bin/python scripts/bench_web.py
    .venv/bin/python scripts/bench_web.py --requests 200 --workers 2 --json
    .venv/bin/python scripts/bench_web.py --requests 20 --ordago 40 --seed 3
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import itertools
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
SERVE = ("import sys; from musstats.cli import cli, main; from musstats.cli.serve import serve; "
         "cli.add_command(serve) if 'serve' not in cli.commands else None; main(['serve', *sys.argv[1:]])")
SEATS = ("mano", "second", "third", "postre")
RANKS = ("R", "C", "S", "7", "6", "5", "4", "A")  # the 8 card classes of 8 reyes


def questions(n: int) -> list[dict]:
    """``n`` different exact odds questions: hands of 8 reyes x the four seats."""
    hands = [" ".join(h) for h in itertools.combinations_with_replacement(RANKS, 4)]
    out = [{"hand": h, "seat": s} for h in hands for s in SEATS]
    return out[:n]


def ordago_questions(n: int, seed: int, lance: str) -> list[dict]:
    """``n`` órdago questions at ``n`` different scores of a game to 40, random hands and seats."""
    rng = random.Random(seed)
    scores = rng.sample([(a, b) for a in range(40) for b in range(40)], n)
    hands = [" ".join(h) for h in itertools.combinations_with_replacement(RANKS, 4)]
    return [{"hand": rng.choice(hands), "seat": rng.choice(SEATS), "lance": lance, "score": f"{a}-{b}"}
            for a, b in scores]


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


async def one_round(http, url: str, qs: list[dict], concurrency: int, timeout: float, deadline: float,
                    path: str = "/api/odds", key: str = "lances") -> dict:
    limits = http.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    lat: list[float] = []
    errors: list[str] = []
    async with http.AsyncClient(base_url=url, limits=limits, timeout=timeout) as client:
        async def ask(q: dict) -> None:
            t0 = time.perf_counter()
            try:
                r = await client.post(path, json=q)
                ok = r.status_code == 200 and key in r.json()
                if not ok:
                    errors.append(f"{r.status_code} {r.text[:80]}")
                    return
            except Exception as e:  # noqa: BLE001 - every failure counts
                errors.append(f"{type(e).__name__}: {e}")
                return
            lat.append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        tasks = [asyncio.ensure_future(ask(q)) for q in qs]
        done, pending = await asyncio.wait(tasks, timeout=deadline)
        for t in pending:
            t.cancel()
            errors.append("no answer before the deadline")
        wall = time.perf_counter() - t0
    return {"requests": len(qs), "answered": len(lat), "errors": len(errors), "seconds": round(wall, 3),
            "requests_per_s": round(len(lat) / wall, 1) if wall > 0 else None,
            "p50_ms": round(1000 * percentile(lat, 0.50), 1), "p95_ms": round(1000 * percentile(lat, 0.95), 1),
            "max_ms": round(1000 * max(lat), 1) if lat else None,
            "mean_ms": round(1000 * statistics.fmean(lat), 1) if lat else None,
            "first_errors": errors[:3]}


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of a process and its threads (Linux), or None."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def start_server(workers: int | None) -> tuple[subprocess.Popen, str]:
    args = ["--port", "0"] + (["--workers", str(workers)] if workers else [])
    p = subprocess.Popen([sys.executable, "-c", SERVE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    line = p.stdout.readline()
    m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
    if not m:
        p.kill()
        sys.exit(f"bench_web: the server did not start: {line!r} {p.stderr.read()}")
    return p, m.group(1)


def loopback_only(url: str) -> str:
    host = urlparse(url).hostname or ""
    try:
        ok = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        ok = False
    if not ok:
        sys.exit(f"bench_web: --url must be a server on this machine (127.0.0.1, ::1 or localhost), got {url}")
    return url if url.endswith("/") else url + "/"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=200, help="requests per round (at most 1,000)")
    ap.add_argument("--concurrency", type=int, default=None, help="requests at once (default: all; at most 500)")
    ap.add_argument("--workers", type=int, default=None, help="worker threads of the server it starts")
    ap.add_argument("--url", default=None, help="a server already running on this machine")
    ap.add_argument("--deadline", type=float, default=120.0, help="seconds per round (at most 300)")
    ap.add_argument("--ordago", type=int, default=0, metavar="N",
                    help="then N órdago questions at N scores, one at a time (at most 400)")
    ap.add_argument("--lance", default="grande", help="the lance of the órdago questions")
    ap.add_argument("--seed", type=int, default=1, help="seed of the órdago questions")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args(argv)
    if not 0 <= a.ordago <= 400:
        ap.error("--ordago must be 0..400")
    if not 1 <= a.requests <= 1000:
        ap.error("--requests must be 1..1000")
    conc = a.concurrency or a.requests
    if not 1 <= conc <= 500:
        ap.error("--concurrency must be 1..500")
    deadline = min(max(a.deadline, 1.0), 300.0)
    try:
        import httpx2 as http
    except ImportError:
        import httpx as http

    proc = None
    if a.url:
        url = loopback_only(a.url)
    else:
        proc, url = start_server(a.workers)
    try:
        r = http.post(url + "api/odds", json={"hand": "R R 3 A", "seat": "mano"}, timeout=300)  # warm-up
        r.raise_for_status()
        status = http.get(url + "api/status", timeout=30).json()
        qs = questions(a.requests)
        pid = proc.pid if proc is not None else None
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        rounds = []
        for _ in range(2):  # computed, then from the cache
            c0 = cpu_seconds(pid)
            r = asyncio.run(one_round(http, url, qs, conc, deadline, deadline))
            c1 = cpu_seconds(pid)
            r["server_cpu_ms_per_request"] = (round(1000 * (c1 - c0) / len(qs), 1)
                                              if c0 is not None and c1 is not None else None)
            rounds.append(r)
        cold, warm = rounds
        ordago = None
        if a.ordago:
            oq = ordago_questions(a.ordago, a.seed, a.lance)
            ordago = asyncio.run(one_round(http, url, oq, 1, max(deadline, 300.0), max(deadline, 60.0 * a.ordago),
                                           path="/api/ordago", key="call"))
        after = http.get(url + "api/status", timeout=30).json()
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
    report = {"url": url, "workers": status["workers"], "cpus": os.cpu_count(), "concurrency": conc,
              "load_average_before": load,
              "computed": cold, "cached": warm, "ordago": ordago,
              "server": {k: after[k] for k in ("computed", "cache_hits", "shared", "errors")}}
    if a.json:
        print(json.dumps(report))
    else:
        print(f"musstats serve at {url}: {status['workers']} workers, {os.cpu_count()} CPUs, "
              f"{conc} requests at once; load average before: {load if load is None else round(load, 2)}")
        for name, r in (("different questions (computed)", cold), ("the same again (cache)", warm)):
            print(f"  {name}: {r['answered']}/{r['requests']} answered, {r['errors']} errors, "
                  f"{r['requests_per_s']} requests/s, p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, "
                  f"max {r['max_ms']} ms ({r['seconds']} s)"
                  + (f"; server CPU {r['server_cpu_ms_per_request']} ms/request"
                     if r["server_cpu_ms_per_request"] is not None else ""))
            for e in r["first_errors"]:
                print(f"    error: {e}")
        if ordago is not None:
            print(f"  órdago at {ordago['requests']} scores ({a.lance}, one at a time): {ordago['answered']} answered, "
                  f"{ordago['errors']} errors, p50 {ordago['p50_ms']} ms, p95 {ordago['p95_ms']} ms, "
                  f"max {ordago['max_ms']} ms")
            for e in ordago["first_errors"]:
                print(f"    error: {e}")
    bad = cold["errors"] or warm["errors"] or (ordago is not None and ordago["errors"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
