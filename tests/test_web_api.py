"""The web API of ``musstats serve`` (FastAPI's test client): every endpoint answers exactly the
command line's ``--format json`` for the same inputs, bad input is a 4xx with the command
line's one-line message (never a 500), the limits hold, and jobs report progress, share
identical work and can be cancelled.  Also the ``serve`` command itself."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest

pytest.importorskip("fastapi", reason="the web extra (FastAPI, uvicorn) is not installed")
try:  # Starlette's test client prefers httpx2 and still accepts httpx
    import httpx2 as http
except ImportError:
    http = pytest.importorskip("httpx", reason="FastAPI's test client needs httpx2 (or httpx)")

from fastapi.testclient import TestClient  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from helpers import ROOT, run_cli, start_server, stop_server  # noqa: E402
from musstats.web.app import create_app  # noqa: E402
from musstats.web.endpoints import ENDPOINTS, LIMITS, MAX_BODY_BYTES  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(workers=2), raise_server_exceptions=False) as c:
        end = time.monotonic() + 300  # the warm-up loads the kernels, then the workers run side by side
        while c.get("/api/status").json()["serialised"] and time.monotonic() < end:
            time.sleep(0.1)
        yield c


def cli_json(capsys, args: list[str]) -> str:
    code, out, err = run_cli(capsys, args)
    assert code == 0, err
    return out


def cli_error(capsys, args: list[str]) -> str:
    code, out, err = run_cli(capsys, args)
    assert code == 2, (code, out, err)
    line = err.strip()
    assert line.startswith("musstats: error: ") and "\n" not in line, err
    return line[len("musstats: error: "):]


def no_timings(text: str) -> dict:
    d = json.loads(text)
    d.pop("timings_s", None)
    d.pop("seconds", None)
    return d


# --------------------------------------------------------------------------- same JSON as the CLI

ODDS_CASES = [
    (["R", "R", "3", "A", "--seat", "mano"], {"hand": "R R 3 A", "seat": "mano"}),
    (["RR3A", "--seat", "postre", "--variant", "4-reyes"], {"hand": "RR3A", "seat": "postre", "variant": "4-reyes"}),
    (["R", "C", "7", "A", "--seat", "second", "--declared", "mano:pares,postre:no-juego", "--signal", "two-reyes",
      "--dead", "7", "7"],
     {"hand": "R C 7 A", "seat": "second", "declared": "mano:pares,postre:no-juego", "signal": "two-reyes", "dead": "7 7"}),
    (["C", "C", "S", "7", "--seat", "third", "--juego-real", "figure", "--redeal-4567"],
     {"hand": ["C", "C", "S", "7"], "seat": 3, "juego_real": "figure", "redeal_4567": True}),
    (["R", "R", "3", "A", "--method", "mc", "--trials", "40000", "--seed", "7"],
     {"hand": "R R 3 A", "method": "mc", "trials": 40000, "seed": 7}),
    (["S/o", "R", "7", "A", "--seat", "postre", "--variant", "ten-kings", "--trials", "20000", "--seed", "3"],
     {"hand": "S/o R 7 A", "seat": "postre", "variant": "ten-kings", "trials": 20000, "seed": 3}),
    (["R", "R", "3", "A", "--players", "6", "--seat", "3", "--trials", "20000", "--seed", "5"],
     {"hand": "R R 3 A", "players": 6, "seat": "3", "trials": 20000, "seed": 5}),
]


@pytest.mark.parametrize("args,params", ODDS_CASES, ids=[" ".join(a) for a, _ in ODDS_CASES])
def test_odds_json_is_the_cli_json(client, capsys, args, params):
    want = cli_json(capsys, ["odds", *args, "--format", "json"])
    r = client.post("/api/odds", json=params)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert r.text == want  # byte for byte: to_json(result) of the same call


def test_odds_get_with_a_query_string_is_the_same(client):
    post = client.post("/api/odds", json={"hand": "R R 3 A", "seat": "postre", "redeal_4567": True})
    get = client.get("/api/odds", params={"hand": "R R 3 A", "seat": "postre", "redeal_4567": "true"})
    assert get.status_code == 200 and get.text == post.text
    many = client.get("/api/odds", params=[("hand", "R"), ("hand", "R"), ("hand", "3"), ("hand", "A")])
    assert json.loads(many.text)["hand"] == ["R", "R", "3", "A"]


def test_discard_json_is_the_cli_json(client, capsys):
    want = cli_json(capsys, ["discard", "R", "R", "7", "A", "--seat", "mano", "--trials", "3000", "--seed", "1",
                             "--format", "json"])
    r = client.post("/api/discard", json={"hand": "R R 7 A", "seat": "mano", "trials": 3000, "seed": 1})
    assert r.status_code == 200 and r.text == want
    want = cli_json(capsys, ["discard", "C", "S", "4", "A", "--seat", "postre", "--objective", "chica", "--policy",
                             "reyes-pairs", "--keep", "C", "4", "A", "--trials", "2000", "--seed", "4",
                             "--format", "json"])
    r = client.post("/api/discard", json={"hand": "C S 4 A", "seat": "postre", "objective": "chica",
                                          "policy": "reyes-pairs", "keep": "C 4 A", "trials": 2000, "seed": 4})
    assert r.status_code == 200 and r.text == want


def test_mus_json_is_the_cli_json(client, capsys):
    want = cli_json(capsys, ["mus", "R", "R", "7", "A", "--seat", "postre", "--trials", "3000", "--seed", "2",
                             "--rounds", "2", "--format", "json"])
    r = client.post("/api/mus", json={"hand": "R R 7 A", "seat": "postre", "trials": 3000, "seed": 2, "rounds": 2})
    assert r.status_code == 200 and r.text == want


def eq_decisions(d: dict) -> tuple[bool | None, bool | None]:
    """(call, accept) against equilibrium opponents from an órdago answer, in either layout: the
    equilibrium's at the top with the random hands under ``random_hands``, or the random hands at
    the top with the equilibrium's under ``equilibrium``."""
    if "random_hands" in d:
        return (d["call"] in (True, "call") if d["call"] is not None else None,
                d["accept"] in (True, "accept") if d["accept"] is not None else None)
    eq = d.get("equilibrium") or {}
    call, answer = eq.get("call"), eq.get("answer")
    return (call["decision"] == "call" if call else None, answer["decision"] == "accept" if answer else None)


def test_ordago_json_is_the_cli_json(client, capsys):
    # the random-hands figures alone (no solve): --no-equilibrium and equilibrium false
    want = cli_json(capsys, ["ordago", "R", "R", "R", "A", "--seat", "mano", "--lance", "juego", "--score", "25-30",
                             "--format", "json", "--no-equilibrium"])
    r = client.post("/api/ordago", json={"hand": "R R R A", "seat": "mano", "lance": "juego", "score": "25-30",
                                         "equilibrium": False})
    assert r.status_code == 200 and r.text == want
    want = cli_json(capsys, ["ordago", "C", "C", "S", "7", "--seat", "second", "--lance", "pares", "--score", "10-10",
                             "--declared", "mano:pares", "--target", "30", "--format", "json",
                             "--no-equilibrium"])
    r = client.post("/api/ordago", json={"hand": "C C S 7", "seat": "second", "lance": "pares", "score": [10, 10],
                                         "declared": "mano:pares", "target": 30, "equilibrium": False})
    assert r.status_code == 200 and r.text == want


def test_ordago_answers_against_equilibrium_opponents_by_default(client, capsys):
    # no "equilibrium" parameter: the web API answers what the command line answers by default,
    # the equilibrium's advice (the solve is cached: only the timings may differ)
    def strip(text):
        d = json.loads(text)
        for k in ("solve_seconds", "seconds", "strategy_source"):
            d["equilibrium"].pop(k, None)
        return d

    r = client.post("/api/ordago", json={"hand": "R C 5 4", "seat": "postre", "lance": "grande", "score": "0-0"})
    assert r.status_code == 200, r.text
    want = cli_json(capsys, ["ordago", "R", "C", "5", "4", "--seat", "postre", "--lance", "grande", "--score", "0-0",
                             "--format", "json"])
    got = strip(r.text)
    assert got == strip(want)
    # the hidden-hands sanity: R C 5 4 wins grande against random hands more often than not, but the
    # hands that call or accept an órdago at 0-0 are the strongest: neither call nor accept
    assert eq_decisions(got) == (False, False)


def test_game_json_is_the_cli_json(client, capsys):
    # the game model's JSON carries its own timings; everything else is the same
    want = cli_json(capsys, ["game", "--format", "json"])
    r = client.post("/api/game", json={})
    assert r.status_code == 200 and no_timings(r.text) == no_timings(want)
    want = cli_json(capsys, ["game", "--target", "30", "--mano", "us", "--format", "json"])
    r = client.post("/api/game", json={"target": 30, "mano": "us"})
    assert r.status_code == 200 and no_timings(r.text) == no_timings(want)
    want = cli_json(capsys, ["game", "--match", "best-of-3", "--games", "1-0", "--score", "10-20", "--format", "json"])
    r = client.post("/api/game", json={"match": "best-of-3", "games": "1-0", "score": "10-20"})
    assert r.status_code == 200 and r.text == want


def test_bet_answers_or_says_it_is_unavailable(client):
    params = {"hand": "R R 3 A", "seat": "mano", "lance": "grande", "trials": 2000}
    try:
        from musstats.analysis.betting import bet
    except ImportError:
        r = client.post("/api/bet", json=params)
        assert r.status_code == 503
        assert "betting engine" in r.json()["error"]
        return
    from musstats.engines.betting.specs import Spec
    from musstats.engines.betting.store import get_solved

    if get_solved(Spec(lance="grande"), solve=False) is None:
        pytest.skip("the grande strategy is not shipped in this checkout (solving it takes minutes)")
    from musstats.output.render import to_json

    want = to_json(bet("R R 3 A", "mano", lance="grande", trials=2000))
    r = client.post("/api/bet", json=params)
    assert r.status_code == 200, r.text
    assert no_timings(r.text) == no_timings(want)
    r = client.post("/api/bet", json={**params, "seed": "x"})
    assert r.status_code == 422
    r = client.post("/api/bet", json={**params, "hand": "R R R R R"})
    assert r.status_code == 400 and r.json()["error"].startswith("a hand has exactly 4 cards")


def test_bet_json_is_the_cli_json(client, capsys):
    from musstats.engines.betting.specs import Spec
    from musstats.engines.betting.store import get_solved

    if get_solved(Spec(lance="grande"), solve=False) is None:
        pytest.skip("the grande strategy is not shipped in this checkout (solving it takes minutes)")
    want = cli_json(capsys, ["bet", "R", "R", "R", "R", "--seat", "mano", "--lance", "grande", "--history",
                             "paso,envido 2,no quiero", "--trials", "3000", "--format", "json"])
    r = client.post("/api/bet", json={"hand": "R R R R", "seat": "mano", "lance": "grande",
                                      "history": "paso,envido 2,no quiero", "trials": 3000})
    assert r.status_code == 200, r.text
    assert no_timings(r.text) == no_timings(want)
    # R R R R at mano cannot lose grande (every tie goes to mano): it never refuses a bet there
    node = json.loads(r.text)["nodes"][0]
    assert node["history"] == ["paso", "envido 2", "no quiero"]
    assert node["actions"]["no quiero"]["p"] <= 0.005
    # who cut the mus: the same answer as the command line's, and one clear 400 after a mus round
    want = cli_json(capsys, ["bet", "R", "R", "3", "A", "--seat", "postre", "--lance", "grande", "--cut", "third",
                             "--trials", "3000", "--format", "json"])
    cut = {"hand": "R R 3 A", "seat": "postre", "lance": "grande", "cut": "third", "trials": 3000}
    r = client.post("/api/bet", json=cut)
    assert r.status_code == 200, r.text
    assert no_timings(r.text) == no_timings(want) and json.loads(r.text)["cut"] == "third"
    r = client.post("/api/bet", json={**cut, "deal": "after-mus"})
    assert r.status_code == 400 and "hands as dealt" in r.json()["error"]
    # a pair's agreed plan: the command line's answer; a lone holder's plan seed is one clear 400
    juego = ["--lance", "juego", "--declared", "mano:juego,second:juego,third:juego,postre:no-juego"]
    want = cli_json(capsys, ["bet", "R", "R", "R", "A", "--seat", "third", *juego, "--plan-seed", "5", "--trials",
                             "3000", "--format", "json"])
    plan = {"hand": "R R R A", "seat": "third", "lance": "juego", "declared": juego[3], "plan_seed": 5,
            "trials": 3000}
    r = client.post("/api/bet", json=plan)
    assert r.status_code == 200, r.text
    assert no_timings(r.text) == no_timings(want) and json.loads(r.text)["plans"]["plan_seed"] == 5
    r = client.post("/api/bet", json={**plan, "seat": "second"})
    assert r.status_code == 400 and "plays one strategy" in r.json()["error"]


# --------------------------------------------------------------------------- the public betting tree

def tree(client, **params):
    r = client.get("/api/tree", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def test_tree_whose_turn_and_the_legal_actions(client):
    # docs/rules.md: mano opens with paso or envido; a bet is answered by the other team in turn
    # counterclockwise from the bettor (second bets: third answers before mano)
    start = tree(client, lance="grande")
    assert start["turn"] == "mano" and start["steps"] == [] and not start["over"]
    assert "paso" in start["actions"] and "órdago" in start["actions"]
    assert not {"quiero", "no quiero"} & set(start["actions"])  # nothing to accept yet
    p = tree(client, lance="grande", history="paso,envido")  # "envido" is "envido 2"
    assert p["history"] == ["paso", "envido 2"] and p["turn"] == "third"
    assert p["steps"] == [{"seat": "mano", "action": "paso"}, {"seat": "second", "action": "envido 2"}]
    assert {"quiero", "no quiero"} <= set(p["actions"])
    p = tree(client, lance="grande", history="paso,envido 2,no quiero")  # one partner refused: the other answers
    assert p["turn"] == "mano"
    # a refused first bet: the bettors take 1 stone (the deje), and the lance is over
    p = tree(client, lance="grande", history=["envido 2", "no quiero", "no quiero"])
    assert p["over"] and p["turn"] is None and p["actions"] == []
    assert "mano and third" in p["ending"] and "1" in p["ending"]
    p = tree(client, lance="grande", history="paso,paso,paso,paso")
    assert p["over"] and "en paso" in p["ending"]
    # pares: only the holders speak
    p = tree(client, lance="pares", speakers="mano+second")
    assert p["speakers"] == ["mano", "second"] and p["turn"] == "mano"
    assert tree(client, lance="pares", speakers="mano+second", history="paso")["turn"] == "second"
    assert tree(client, lance="pares", speakers=["second", "postre", "third"])["turn"] == "second"


@pytest.mark.parametrize("params,fragment", [
    ({"lance": "grande", "history": "quiero"}, "not a legal sequence"),
    ({"lance": "grande", "history": "paso,paso,paso,paso,paso"}, "the grande betting is over"),
    ({"lance": "pares", "speakers": "mano+third"}, "betting needs a holder in each team"),
    ({"lance": "bigg"}, "unknown lance"),
    ({"lance": "grande", "speakers": "nobody"}, "unknown seat"),
])
def test_tree_bad_input_is_400_with_one_line(client, params, fragment):
    r = client.get("/api/tree", params=params)
    assert r.status_code == 400, r.text
    msg = r.json()["error"]
    assert fragment in msg and "\n" not in msg




def test_bet_without_the_betting_engine_is_503(client, monkeypatch):
    import musstats.analysis

    monkeypatch.setitem(sys.modules, "musstats.analysis.betting", None)  # as if the module did not exist
    monkeypatch.delattr(musstats.analysis, "betting", raising=False)
    r = client.post("/api/bet", json={"hand": "R R 3 A", "seat": "mano", "lance": "grande"})
    assert r.status_code == 503
    msg = r.json()["error"]
    assert "betting engine" in msg and "/api/bet" in msg and "\n" not in msg


def test_chart_is_the_plot_commands_svg(client, capsys, tmp_path):
    out = tmp_path / "hand.svg"
    code, _, err = run_cli(capsys, ["plot", "hand", "R", "R", "3", "A", "--seat", "mano", "--out", str(out)])
    assert code == 0, err
    r = client.post("/api/chart", json={"hand": "R R 3 A", "seat": "mano"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.content == out.read_bytes()
    small = client.get("/api/chart", params={"hand": "R R 3 A", "seat": "mano", "size": "600x400"})
    assert small.status_code == 200 and b"<svg" in small.content and small.content != r.content
    bad = client.post("/api/chart", json={"hand": "R R 3 A", "size": "huge"})
    assert bad.status_code == 400 and "--size" in bad.json()["error"]


# --------------------------------------------------------------------------- bad input: the CLI's one line

ERROR_CASES = [
    ("odds", ["R", "R", "R", "R", "R"], {"hand": "R R R R R"}),
    ("odds", ["R", "R", "R", "R", "--variant", "4-reyes", "--dead", "R"],
     {"hand": "R R R R", "variant": "4-reyes", "dead": "R"}),
    ("odds", ["R", "R", "X", "A"], {"hand": "R R X A"}),
    ("odds", ["R", "R", "3", "A", "--seat", "sexto"], {"hand": "R R 3 A", "seat": "sexto"}),
    ("odds", ["R", "R", "3", "A", "--declared", "second:maybe"], {"hand": "R R 3 A", "declared": "second:maybe"}),
    ("odds", ["R", "R", "3", "A", "--declared", "mano:no-pares"], {"hand": "R R 3 A", "declared": "mano:no-pares"}),
    ("odds", ["R", "R", "3", "A", "--signal", "wink"], {"hand": "R R 3 A", "signal": "wink"}),
    ("odds", ["R", "R", "3", "A", "--method", "exact", "--seed", "1"], {"hand": "R R 3 A", "method": "exact", "seed": 1}),
    ("odds", ["S/o", "R", "7", "A", "--variant", "ten-kings", "--declared", "second:pares"],
     {"hand": "S/o R 7 A", "variant": "ten-kings", "declared": "second:pares"}),
    ("discard", ["R", "R", "3", "A", "--keep", "7"], {"hand": "R R 3 A", "keep": "7"}),
    ("mus", ["R", "R", "3", "A", "--keep", "C"], {"hand": "R R 3 A", "keep": "C"}),
    ("ordago", ["R", "R", "3", "A", "--lance", "punto", "--score", "0-0"], {"hand": "R R 3 A", "lance": "punto"}),
    ("ordago", ["R", "R", "3", "A", "--lance", "grande", "--score", "40-0"],
     {"hand": "R R 3 A", "lance": "grande", "score": "40-0"}),
    ("ordago", ["R", "R", "3", "A", "--lance", "bigg", "--score", "0-0"], {"hand": "R R 3 A", "lance": "bigg"}),
    ("ordago", ["R", "R", "3", "A", "--lance", "grande", "--score", "12"], {"hand": "R R 3 A", "score": "12"}),
    ("game", ["--match", "best-of-3", "--games", "2-0"], {"match": "best-of-3", "games": "2-0"}),
]


def test_ordago_bad_deal_model_is_one_line(client):
    r = client.post("/api/ordago", json={"hand": "R R 3 A", "lance": "grande", "score": "0-0", "equilibrium": True,
                                         "deal": "after-the-mus"})
    assert r.status_code == 400, r.text
    assert r.json() == {"error": "unknown deal model 'after-the-mus'; accepted: as-dealt, after-mus"}


@pytest.mark.parametrize("kind,args,params", ERROR_CASES, ids=[f"{k} {' '.join(a)}" for k, a, _ in ERROR_CASES])
def test_bad_input_gives_the_clis_one_line(client, capsys, kind, args, params):
    line = cli_error(capsys, [kind, *args])
    r = client.post(f"/api/{kind}", json=params)
    assert r.status_code == 400, r.text
    assert r.json() == {"error": line}
    # and the same through the job API
    j = client.post("/api/jobs", json={"kind": kind, "params": params}).json()
    st_ = client.get(f"/api/jobs/{j['id']}", params={"wait": 10}).json()
    assert st_["state"] == "error" and st_["status"] == 400 and st_["error"] == line


@pytest.mark.parametrize("params,fragment", [
    ({"hand": "R R 3 A", "foo": 1}, "unknown parameter 'foo'; accepted: hand, seat,"),
    ({"hand": 12}, "hand must be cards as text"),
    ({"hand": "R R 3 A", "redeal_4567": "yes"}, "redeal_4567 must be true or false"),
    ({"hand": "R R 3 A", "trials": "many"}, "trials must be a whole number"),
    ({"hand": "R R 3 A", "seat": [1]}, "seat must be a seat"),
    ({"hand": "R R 3 A", "threads": 2}, "unknown parameter 'threads'"),
    ({"hand": "R R 3 A", "progress": None}, "unknown parameter 'progress'"),
    ({}, "hand is required"),
])
def test_wrong_json_types_are_422_with_one_line(client, params, fragment):
    r = client.post("/api/odds", json=params)
    assert r.status_code == 422
    body = r.json()
    assert list(body) == ["error"] and fragment in body["error"] and "\n" not in body["error"]


def test_malformed_bodies(client):
    h = {"content-type": "application/json"}
    r = client.post("/api/odds", content=b'{"hand": ', headers=h)
    assert r.status_code == 422 and "not valid JSON" in r.json()["error"]
    r = client.post("/api/odds", content=b'["R R 3 A"]', headers=h)
    assert r.status_code == 422 and "JSON object" in r.json()["error"]
    r = client.post("/api/odds", content=b"hand=RR3A", headers={"content-type": "text/plain"})
    assert r.status_code == 415
    r = client.post("/api/odds", content=b"x" * (MAX_BODY_BYTES + 1), headers=h)
    assert r.status_code == 413 and "limit" in r.json()["error"]

    def chunks():  # no Content-Length: counted as it arrives
        for _ in range(10):
            yield b" " * 1024

    r = client.post("/api/odds", content=chunks(), headers=h)
    assert r.status_code == 413
    r = client.get("/api/odds?hand=" + "R" * (MAX_BODY_BYTES + 10))
    assert r.status_code == 414
    r = client.put("/api/odds", json={})
    assert r.status_code == 405 and "error" in r.json()
    r = client.put("/api/odds", content=b"hand=RR3A", headers={"content-type": "text/plain"})
    assert r.status_code == 405  # the method is wrong before the body is
    r = client.get("/api/nothing")
    assert r.status_code == 404 and "error" in r.json()


def test_the_limits_of_this_server(client):
    cap = LIMITS["odds"]["trials"]
    r = client.post("/api/odds", json={"hand": "R R 3 A", "method": "mc", "trials": cap + 1})
    assert r.status_code == 400 and f"limit of {cap:,}" in r.json()["error"]
    r = client.post("/api/odds", json={"hand": "R R 3 A", "variant": "ten-kings", "trials": 6_000_000})
    assert r.status_code == 400 and "5,000,000" in r.json()["error"]
    r = client.post("/api/discard", json={"hand": "R R 3 A", "trials": LIMITS["discard"]["trials"] + 1})
    assert r.status_code == 400
    r = client.post("/api/mus", json={"hand": "R R 3 A", "trials": 3e6})
    assert r.status_code == 400
    r = client.post("/api/game", json={"deals": LIMITS["game"]["deals"] + 1})
    assert r.status_code == 400
    r = client.post("/api/chart", json={"hand": "R R 3 A", "method": "mc", "trials": cap + 1})
    assert r.status_code == 400
    # a target_se that would need more deals than the limit is refused once the first batch shows it
    r = client.post("/api/odds", json={"hand": "R R 3 A", "method": "mc", "target_se": 0.0001, "seed": 1})
    assert r.status_code == 400 and "target_se" in r.json()["error"] and f"{cap:,}" in r.json()["error"]


@pytest.mark.parametrize("kind,params", [
    ("odds", {"hand": "R R 3 A", "method": "mc", "trials": 1e300}),
    ("odds", {"hand": "R R 3 A", "method": "mc", "trials": 10 ** 300}),
    ("odds", {"hand": "R R 3 A", "seed": -1e300}),
    ("mus", {"hand": "R R 3 A", "rounds": 1e20}),
    ("ordago", {"hand": "R R 3 A", "target": 10 ** 40}),
    ("game", {"deals": 1e300}),
])
def test_huge_numbers_are_refused_in_one_short_line(client, kind, params):
    for r in (client.post(f"/api/{kind}", json=params),
              client.post("/api/jobs", json={"kind": kind, "params": params})):
        assert r.status_code == 400, r.text
        msg = r.json()["error"]
        assert "too large" in msg and "\n" not in msg
        assert not re.search(r"\d{25}", msg), msg  # no 300-digit echo
        assert len(msg) < 200, msg
    r = client.get(f"/api/{kind}", params={k: str(v) for k, v in params.items()})
    assert r.status_code == 400 and not re.search(r"\d{25}", r.json()["error"])


@pytest.mark.parametrize("method", ["PUT", "PATCH", "DELETE"])
def test_unsupported_methods_are_405(client, method):
    for path in ("/api/odds", "/api/ordago", "/api/tree", "/api/jobs"):
        for kw in ({}, {"content": b"x=1", "headers": {"content-type": "text/plain"}},
                   {"json": {"hand": "R R 3 A"}}):
            r = client.request(method, path, **kw)
            assert r.status_code == 405, (method, path, kw, r.status_code, r.text)
            msg = r.json()["error"]
            assert method in msg and "\n" not in msg and "accepted: " in msg


def test_an_internal_error_is_one_line(client, monkeypatch):
    from musstats.web import endpoints

    def broken(p, progress, jobs):
        raise RuntimeError("first line of a long story\n" + "x" * 5000)

    monkeypatch.setattr(endpoints.ENDPOINTS["tree"], "run", broken)
    r = client.get("/api/tree", params={"lance": "chica", "history": "paso,paso"})  # asked nowhere else: not cached
    assert r.status_code == 500
    assert r.json() == {"error": "internal error: RuntimeError: first line of a long story"}
    job = client.post("/api/jobs", json={"kind": "tree", "params": {"lance": "punto", "history": "paso"}}).json()
    s = wait_job(client, job["id"])
    assert s["status"] == 500 and s["error"] == "internal error: RuntimeError: first line of a long story"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(
    st.sampled_from(["hand", "seat", "variant", "juego_real", "target", "redeal_4567", "dead", "declared", "signal",
                     "players", "individual", "method", "joker", "seed", "target_se"]),
    st.one_of(st.none(), st.booleans(), st.integers(-5, 50), st.floats(allow_nan=False, allow_infinity=False),
              st.sampled_from(["R R 3 A", "mano", "4-reyes", "ten-kings", "mc", "exact", "second:pares", "31",
                               "S/o=A", "figure", "7 7", "", "x", "R R R R R"]),
              st.lists(st.sampled_from(["R", "3", "A", "S/o", 1]), max_size=5)),
    max_size=6))
def test_no_input_gives_a_500(client, params):
    params = {"hand": "R R 3 A", **params}
    params.setdefault("trials", 2000)  # keep any Monte Carlo run short
    if params.get("method") == "exact":
        params.pop("trials")
    r = client.post("/api/odds", json=params)
    assert r.status_code in (200, 400, 422), (params, r.text)
    if r.status_code != 200:
        msg = r.json()["error"]
        assert msg and "\n" not in msg and "Traceback" not in msg and "internal error" not in msg


# --------------------------------------------------------------------------- jobs

def wait_job(client, job_id, timeout=60.0) -> dict:
    end = time.monotonic() + timeout
    while True:
        s = client.get(f"/api/jobs/{job_id}", params={"wait": 1}).json()
        if s["state"] not in ("queued", "running") or time.monotonic() > end:
            return s
        assert s["done"] <= s["total"] or s["total"] == 0


def test_a_job_reports_progress_and_its_result(client):
    params = {"hand": "R R 7 A", "seat": "postre", "trials": 200_000, "seed": 11}
    r = client.post("/api/jobs", json={"kind": "mus", "params": params})
    assert r.status_code == 202
    job = r.json()
    assert job["kind"] == "mus" and job["state"] in ("queued", "running", "done")
    seen = []
    while True:
        s = client.get(f"/api/jobs/{job['id']}", params={"wait": 0.1}).json()
        seen.append((s["done"], s["total"]))
        if s["state"] not in ("queued", "running"):
            break
    assert s["state"] == "done", s
    assert s["result"]["trials"] == 200_000 and s["result"]["seed"] == 11
    assert any(0 < d < t for d, t in seen) or len(seen) <= 2  # progress between batches (if it was slow enough)
    raw = client.get(s["result_url"])
    sync = client.post("/api/mus", json=params)  # identical and seeded: from the cache
    assert raw.text == sync.text == json.dumps(s["result"], ensure_ascii=False) + "\n"
    again = client.post("/api/jobs", json={"kind": "mus", "params": params}).json()
    assert again["state"] == "done" and again["cached"] is True


def test_cancelling_a_job_stops_the_engine_between_batches(client):
    params = {"hand": "C S 4 A", "seat": "second", "trials": 2_000_000, "seed": 5}
    job = client.post("/api/jobs", json={"kind": "discard", "params": params}).json()
    for _ in range(100):  # until it has started
        s = client.get(f"/api/jobs/{job['id']}", params={"wait": 0.05}).json()
        if s["done"] > 0 or s["state"] != "queued":
            break
    r = client.delete(f"/api/jobs/{job['id']}")
    assert r.status_code == 200 and r.json()["state"] in ("cancelled", "done")
    time.sleep(1.5)  # the engine stops at the end of its batch (about half a second)
    s = client.get(f"/api/jobs/{job['id']}").json()
    if s["state"] == "cancelled":
        assert s["done"] < s["total"] or s["total"] == 0
        assert s["status"] == 409 and client.get(f"/api/jobs/{job['id']}/result").status_code == 409
    end = time.monotonic() + 60
    while client.get("/api/status").json()["pending"] and time.monotonic() < end:
        time.sleep(0.2)
    assert client.get("/api/status").json()["pending"] == 0  # nothing left running


def test_a_new_job_replaces_the_old_one(client):
    first = client.post("/api/jobs", json={"kind": "discard", "params": {
        "hand": "R C 7 A", "trials": 1_500_000, "seed": 1}}).json()
    second = client.post("/api/jobs", json={"kind": "discard", "params": {
        "hand": "R C 7 A", "trials": 3000, "seed": 1}, "replaces": first["id"]}).json()
    assert client.get(f"/api/jobs/{first['id']}").json()["state"] == "cancelled"
    assert wait_job(client, second["id"])["state"] == "done"


def test_a_slow_job_does_not_block_a_quick_question(client):
    slow = client.post("/api/jobs", json={"kind": "discard", "params": {
        "hand": "C C 4 A", "seat": "third", "trials": 2_000_000, "seed": 9}}).json()
    try:
        t0 = time.monotonic()
        r = client.post("/api/odds", json={"hand": "7 6 5 4", "seat": "postre"})
        quick = time.monotonic() - t0
        assert r.status_code == 200
        assert client.get(f"/api/jobs/{slow['id']}").json()["state"] in ("queued", "running")
        assert quick < 10, quick
    finally:
        client.delete(f"/api/jobs/{slow['id']}")


def test_identical_jobs_share_one_computation(client):
    params = {"hand": "S S 6 5", "seat": "mano", "trials": 400_000, "seed": 21}
    a = client.post("/api/jobs", json={"kind": "mus", "params": params}).json()
    b = client.post("/api/jobs", json={"kind": "mus", "params": params}).json()
    before = client.get("/api/status").json()
    client.delete(f"/api/jobs/{a['id']}")  # b still wants it: it goes on
    sb = wait_job(client, b["id"])
    assert sb["state"] == "done" and sb["result"]["trials"] == 400_000
    assert client.get(f"/api/jobs/{a['id']}").json()["state"] in ("cancelled", "done")
    assert before["shared"] >= 1


def test_job_errors(client):
    r = client.post("/api/jobs", json={"kind": "poker", "params": {}})
    assert r.status_code == 400 and "accepted: odds" in r.json()["error"]
    r = client.post("/api/jobs", json={"kind": "odds", "params": {"hand": "R R 3 A", "x": 1}})
    assert r.status_code == 422 and "unknown parameter 'x'" in r.json()["error"]
    r = client.post("/api/jobs", json={"kind": "odds", "params": {"hand": "R R 3 A", "trials": 10 ** 9,
                                                                   "method": "mc"}})
    assert r.status_code == 400 and "limit" in r.json()["error"]
    assert client.get("/api/jobs/nosuchjob").status_code == 404
    assert client.delete("/api/jobs/nosuchjob").status_code == 404


def test_chart_job_result_is_svg(client):
    job = client.post("/api/jobs", json={"kind": "chart", "params": {"hand": "R R 3 A", "seat": "second"}}).json()
    s = wait_job(client, job["id"])
    assert s["state"] == "done" and "result" not in s
    r = client.get(s["result_url"])
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")


# --------------------------------------------------------------------------- the page, docs, headers

def test_the_page_and_its_files(client):
    r = client.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert 'src="/static/lang.js"' in r.text and 'src="/static/app.js"' in r.text and "Content-Security-Policy" in r.headers
    assert "default-src 'self'" in r.headers["Content-Security-Policy"]
    for name in ("lang.js", "cards.js", "app.js", "style.css", "favicon.svg"):
        assert client.get(f"/static/{name}").status_code == 200
    assert "http" not in re.sub(r"http://www\.w3\.org/2000/svg", "", r.text)  # nothing from the network


def test_docs_describe_every_endpoint_offline(client):
    spec = client.get("/openapi.json").json()
    for name in ENDPOINTS:
        assert f"/api/{name}" in spec["paths"]
    for path in ("/api/jobs", "/api/jobs/{job_id}"):
        assert path in spec["paths"]
    page = client.get("/docs")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for name in ENDPOINTS:
        assert f"/api/{name}" in page.text
    assert "<script" not in page.text and "cdn" not in page.text.lower()
    params = spec["components"]["schemas"]["OddsParams"]["properties"]
    assert {"hand", "seat", "variant", "dead", "declared", "signal", "trials", "seed"} <= set(params)


def test_host_header_checked_on_loopback():
    app = create_app(allowed_hosts=["127.0.0.1", "localhost"], warmup=False)
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        assert c.get("/api/status").status_code == 200
        assert c.get("/api/status", headers={"host": "evil.example:8000"}).status_code == 400


# --------------------------------------------------------------------------- the serve command

def serve_main(args):
    from musstats.cli import cli, main
    from musstats.cli.serve import serve

    if "serve" not in cli.commands:
        cli.add_command(serve)
    main(["serve", *args])


@pytest.mark.parametrize("args,fragment", [
    (["--port", "99999"], "--port must be a whole number from 0 to 65,535"),
    (["--port", "http"], "--port must be a whole number"),
    (["--host", "no-such-host.invalid"], "cannot listen on 'no-such-host.invalid'"),
    (["--workers", "0"], "--workers must be a whole number"),
    (["--port", "1", "--port", "2"], "--port is given twice"),
])
def test_serve_bad_options_exit_2_with_one_line(capsys, args, fragment):
    with pytest.raises(SystemExit) as e:
        serve_main(args)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("musstats: error: ") and fragment in err and "\n" not in err


def test_serve_port_in_use(capsys):
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    try:
        with pytest.raises(SystemExit) as e:
            serve_main(["--port", str(s.getsockname()[1])])
        assert e.value.code == 2
        assert "the port is in use" in capsys.readouterr().err
    finally:
        s.close()


# faulthandler: a server that does not stop shows where each of its threads is (SIGUSR1)
def test_serve_says_where_it_listens_and_ctrl_c_exits_130(cache_folder):
    p, url = start_server("--port", "0", env={"MUSSTATS_CACHE": str(cache_folder)})
    try:
        assert url.startswith("http://127.0.0.1:")
        r = http.get(url + "api/status", timeout=30)
        assert r.status_code == 200 and r.json()["workers"] >= 1
        r = http.post(url + "api/odds", json={"hand": "R R 3 A"}, timeout=120)
        assert r.status_code == 200 and r.json()["lances"]["grande"]["p_team"] == pytest.approx(0.99168, abs=1e-5)
    finally:
        code, err = stop_server(p)
    assert code == 130, err
    assert "Traceback" not in err and "stopped" in err


def test_serve_on_every_network_warns(cache_folder):
    p, url = start_server("--host", "0.0.0.0", "--port", "0", env={"MUSSTATS_CACHE": str(cache_folder)})
    try:
        warning = p.stderr.readline()
        assert "warning" in warning and "reachable from other machines" in warning
    finally:
        code, _ = stop_server(p)
    assert code == 130


def test_importing_the_command_stays_light():
    code = ("import sys, musstats.cli.serve; "
            "print(any(m.split('.')[0] in ('fastapi', 'uvicorn', 'numba', 'starlette') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_a_stopping_server_exits_even_if_its_shutdown_hangs(monkeypatch):
    # a bound on the stop: after Ctrl-C the server exits 130 within
    # STOP_SECONDS whatever still runs (here a recorder stands for the exit)
    import time

    from musstats.cli import serve as S

    class Base:
        def __init__(self):
            self.asked = 0

        def handle_exit(self, sig, frame):
            self.asked += 1

    exits: list[float] = []
    monkeypatch.setattr(S, "STOP_SECONDS", 0.2)
    monkeypatch.setattr(S, "exit_now", lambda line: exits.append(time.perf_counter()))
    server = S._stopping_server(Base)()
    t0 = time.perf_counter()
    server.handle_exit(2, None)
    server.handle_exit(2, None)  # a second Ctrl-C: still one deadline
    time.sleep(0.6)
    assert server.asked == 2 and len(exits) == 1 and 0.15 < exits[0] - t0 < 0.5


def test_hand_json_is_the_cli_json(client, capsys):
    """/api/hand answers what musstats hand --format json prints; a bad history is a 400 with the
    command line's one line."""
    args = {"hand": "R R 7 5", "seat": "third", "history": "mus,corto; grande: paso,envido 2", "samples": 20000}
    want = cli_json(capsys, ["hand", "R", "R", "7", "5", "--seat", "third", "--history", args["history"],
                             "--samples", "20000", "--format", "json"])
    r = client.post("/api/hand", json=args)
    assert r.status_code == 200, r.text
    assert no_timings(r.text) == no_timings(want)
    r = client.post("/api/hand", json={**args, "history": "corto; grande: órdago,quiero; chica: paso"})
    assert r.status_code == 400 and "órdago accepted in grande" in r.json()["error"]
    r = client.post("/api/hand", json={**args, "samples": 5_000_000})
    assert r.status_code == 400 and "limit" in r.json()["error"]
