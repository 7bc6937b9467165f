#!/usr/bin/env python3
"""Speed of the practice table, what each style of play costs, and a load test of its HTTP API.

* **bot decision**: the median time of one bot's betting decision (the shipped equilibrium
  strategy of the lance, drawn for the bot's hand), and of a mus decision and a throw;
* **review of a hand**: the median time to review one hand (every decision of the player
  valued: ``musstats bet`` at his betting turns, ``musstats mus`` / ``discard`` for the mus),
  each hand valued cold (the figures kept in memory are dropped first);
* **autoplayed game**: the median time of a whole game to 40 with the player's seat played by
  the equilibrium, played, then played and reviewed;
* ``--losses``: ``musstats play --autoplay`` for every strategy set: stones lost per decision;
* ``--load N``: ``musstats serve --port 0`` in a process of its own and N games played at once
  through the HTTP API (each client: new game, then its actions -- the first legal one, the
  first card in the discard -- the review at the end of every hand and the next hand, until
  the game ends or ``--load-hands`` hands); requests per second, latency percentiles, errors.

Medians, after one warm-up of each kind.  On a machine shared with other work the
wall-clock figures depend on that work; the script prints the load average first.

    .venv/bin/python scripts/bench_play.py
    .venv/bin/python scripts/bench_play.py --losses 200 --load 50 --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SERVE = ("import sys; from musstats.cli import cli, main; from musstats.cli.serve import serve; "
         "cli.add_command(serve) if 'serve' not in cli.commands else None; main(['serve', *sys.argv[1:]])")


def median_ms(xs: list[float]) -> float:
    return round(1000 * statistics.median(xs), 3)


def bench_bots(n: int) -> dict:
    """Time the bots' decisions at the decision points of autoplayed hands."""
    import numpy as np

    from musstats.analysis.practice.bots import BOT, Player
    from musstats.analysis.practice.table import PracticeGame
    from musstats.engines.betting.tree import betting_tree
    from musstats.rules.variant import Variant

    p = Player(BOT, Variant(), np.random.default_rng(1))
    g = PracticeGame(seed=1, autoplay="equilibrium", match="series")
    points, hands = [], []
    while len(points) < n:
        g.play_out(1)
        h = g.hand
        hands.extend((h.dealt[q], q) for q in range(4))
        for d in h.decisions:
            if d.kind == "bet":
                t = betting_tree(d.lance, d.pattern)
                node = t.node_id(d.history)
                points.append((h.tables.index_of(d.hand), d.lance, d.pattern, d.deal, node,
                               list(t.nodes[node].actions)))
        g.next_hand()
    bets, mus, throws = [], [], []
    for args in points[:n]:
        t0 = time.perf_counter()
        p.bet(*args)
        bets.append(time.perf_counter() - t0)
    for cards, q in hands:
        t0 = time.perf_counter()
        p.mus(cards, q)
        mus.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        p.throw(cards, q)
        throws.append(time.perf_counter() - t0)
    s = sorted(bets)
    return {"bet_decision_ms": median_ms(bets), "bet_decision_p95_ms": round(1000 * s[int(.95 * len(s))], 3),
            "mus_decision_ms": median_ms(mus), "throw_ms": median_ms(throws), "decisions": len(bets)}


def bench_review(hands: int) -> dict:
    from musstats.analysis.practice import values as V
    from musstats.analysis.practice.review import review_hand
    from musstats.analysis.practice.table import PracticeGame

    g = PracticeGame(seed=2, autoplay="heuristic", match="series")
    g.play_out(hands + 1)
    hrs = g.record.hands()
    review_hand(hrs[0])  # warm-up
    times = []
    for hr in hrs[1:]:
        for memo in (V._BET, V._MUS, V._DISCARD):
            memo.data.clear()
        t0 = time.perf_counter()
        review_hand(hr)
        times.append(time.perf_counter() - t0)
    return {"review_hand_ms": median_ms(times), "review_hand_max_ms": round(1000 * max(times), 1), "hands": len(times)}


def bench_games(games: int) -> dict:
    from musstats.analysis.practice import values as V
    from musstats.analysis.practice.review import review
    from musstats.analysis.practice.table import PracticeGame

    play, total, hands = [], [], []
    for i in range(games + 1):
        for memo in (V._BET, V._MUS, V._DISCARD):
            memo.data.clear()
        t0 = time.perf_counter()
        g = PracticeGame(seed=100 + i, autoplay="equilibrium")
        while True:
            g.play_out(1)
            if g.game_over():
                break
            g.next_hand()
        t1 = time.perf_counter()
        review(g.record)
        t2 = time.perf_counter()
        if i:  # the first is the warm-up
            play.append(t1 - t0)
            total.append(t2 - t0)
            hands.append(len(g.record.hands()))
    return {"game_play_ms": median_ms(play), "game_play_and_review_ms": median_ms(total),
            "hands_per_game": statistics.median(hands), "games": len(play)}


def losses(hands: int, seed: int) -> dict:
    from musstats.analysis.practice import autoplay

    out = {}
    for s in ("equilibrium", "heuristic", "random", "paso"):
        r = autoplay(s, hands=hands, seed=seed).review.summary()
        out[s] = {"decisions": r["decisions"], "mean_loss": r["mean_loss"], "mean_loss_se": r["mean_loss_se"],
                  "by_lance": {k: v["mean_loss"] for k, v in r["by_lance"].items()}}
    return out


# ---------------------------------------------------------------------------- the load test


def _serve() -> tuple[subprocess.Popen, str]:
    import re

    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    p = subprocess.Popen([sys.executable, "-c", SERVE, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, cwd=ROOT, env=env)
    line = p.stdout.readline()
    m = re.search(r"(http://\S+/)", line)
    if not m:
        p.kill()
        raise SystemExit(f"the server did not start: {line!r} {p.stderr.read()}")
    return p, m.group(1).rstrip("/")


def load_test(n: int, hands: int, deadline: float) -> dict:
    import signal

    try:
        import httpx2 as http
    except ImportError:  # pragma: no cover
        import httpx as http

    p, url = _serve()
    lat: list[float] = []
    by_kind: dict[str, list[float]] = {"action": [], "review": []}
    errors: list[str] = []
    lock = threading.Lock()
    try:
        end = time.monotonic() + 300
        while http.get(url + "/api/status", timeout=30).json()["serialised"] and time.monotonic() < end:
            time.sleep(0.2)
        stop = time.monotonic() + deadline

        def req(c, method, path, **kw):
            t0 = time.perf_counter()
            r = c.request(method, url + path, timeout=120, **kw)
            dt = time.perf_counter() - t0
            with lock:
                lat.append(dt)
                by_kind["review" if path.endswith("/review") else "action"].append(dt)
            if r.status_code >= 400:
                raise RuntimeError(f"{method} {path}: {r.status_code} {r.text[:200]}")
            return r.json()

        def client(i: int) -> None:
            try:
                with http.Client() as c:
                    d = req(c, "POST", "/api/play", json={"seed": 1000 + i})
                    gid, st = d["id"], d["state"]
                    played = 0
                    while time.monotonic() < stop:
                        if st["hand_over"]:
                            req(c, "GET", f"/api/play/{gid}/review")
                            played += 1
                            if st["game_over"] or played >= hands:
                                return
                            st = req(c, "POST", f"/api/play/{gid}/next")
                            continue
                        turn = st["turn"]
                        if turn["phase"] == "discard":
                            body = {"action": "throw", "cards": st["cards"][0]["label"]}
                        else:
                            body = {"action": turn["actions"][0]}
                        st = req(c, "POST", f"/api/play/{gid}/act", json=body)
                    raise RuntimeError("deadline")
            except Exception as e:  # noqa: BLE001 - every failure is counted
                with lock:
                    errors.append(f"client {i}: {e}")

        t0 = time.perf_counter()
        threads = [threading.Thread(target=client, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        status = http.get(url + "/api/play", timeout=30).json()
    finally:
        p.send_signal(signal.SIGINT)
        try:
            p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
    def pct(xs: list[float]) -> dict:
        s = sorted(xs)
        if not s:
            return {}
        return {"n": len(s), "p50_ms": round(1000 * s[len(s) // 2], 1), "p95_ms": round(1000 * s[int(0.95 * len(s))], 1),
                "max_ms": round(1000 * s[-1], 1)}

    return {"games": n, "requests": len(lat), "errors": len(errors), "error_lines": errors[:5],
            "seconds": round(wall, 2), "requests_per_s": round(len(lat) / wall, 1), **pct(lat),
            "actions": pct(by_kind["action"]), "reviews": pct(by_kind["review"]), "server": status}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decisions", type=int, default=300, help="bot decisions timed (0: skip)")
    ap.add_argument("--hands", type=int, default=20, help="hands reviewed (0: skip)")
    ap.add_argument("--games", type=int, default=5, help="autoplayed games timed (0: skip)")
    ap.add_argument("--losses", type=int, default=0, help="hands autoplayed per strategy set (0: skip)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--load", type=int, default=0, help="games played at once through the HTTP API (0: skip)")
    ap.add_argument("--load-hands", type=int, default=3, help="hands per game of the load test")
    ap.add_argument("--deadline", type=float, default=600.0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    out: dict = {"load_average": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
    if a.decisions:
        out["bots"] = bench_bots(a.decisions)
    if a.hands:
        out["review"] = bench_review(a.hands)
    if a.games:
        out["games"] = bench_games(a.games)
    if a.losses:
        out["losses"] = losses(a.losses, a.seed)
    if a.load:
        out["load"] = load_test(a.load, a.load_hands, a.deadline)
    print(json.dumps(out, indent=None if a.json else 1, ensure_ascii=False))


if __name__ == "__main__":
    main()
