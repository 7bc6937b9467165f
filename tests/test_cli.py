"""The command line and the public API: formats, bad input, repeated options, partial results,
and no numba import for --help."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from helpers import ROOT, assert_exit2_one_line, check_one_line_error, run_cli, run_process as run
from musstats.cli import main


#: the kernels of these tests run on one numba thread unless a test asks for more (conftest)
pytestmark = pytest.mark.usefixtures("one_numba_thread")


PY = sys.executable
CONTEXT_KEYS = ["variant", "rules", "players", "individual", "teams", "hand", "seat", "team", "dead", "conditions"]


def test_odds_json_document():
    r = run("odds", "R", "R", "3", "A", "--seat", "mano", "--format", "json")
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    assert len(lines) == 1
    doc = json.loads(lines[0])
    # the context first, then the run
    assert list(doc)[:len(CONTEXT_KEYS)] == CONTEXT_KEYS
    assert list(doc)[len(CONTEXT_KEYS):len(CONTEXT_KEYS) + 4] == ["method", "trials", "seed", "partial"]
    assert doc["hand"] == ["R", "R", "3", "A"]
    assert doc["seat"] == "mano" and doc["variant"] == "8-reyes" and doc["method"] == "exact"
    assert doc["team"] == "mano and third" and doc["teams"] == [["mano", "third"], ["second", "postre"]]
    assert doc["players"] == 4 and doc["individual"] is False and doc["dead"] == [] and doc["conditions"] == {}
    assert doc["trials"] is None and doc["seed"] is None and doc["partial"] is False
    assert set(doc["lances"]) == {"grande", "chica", "pares", "juego", "punto"}
    for lance, entry in doc["lances"].items():
        keys = {"p_team", "p_self", "p_played", "ev_net"}
        if lance in ("pares", "juego"):
            keys.add("p_contested")
        else:
            assert "p_contested" not in entry
        assert keys <= set(entry)
        for k in keys - {"ev_net"}:
            assert 0.0 <= entry[k] <= 1.0
        assert all(v == 0.0 for v in entry["se"].values())  # exact
    # R R 3 A is R R R A = 31 points: mano's 31 cannot be beaten, so punto is never played
    assert doc["lances"]["juego"]["p_self"] == 1.0
    assert doc["lances"]["punto"]["p_played"] == 0.0


def test_odds_table_and_csv():
    r = run("odds", "rey", "caballo", "7", "as", "--seat", "postre")
    assert r.returncode == 0 and "Grande" in r.stdout and "Punto" in r.stdout
    assert "R C 7 A · postre · 8-reyes" in r.stdout and "exact enumeration" in r.stdout
    r = run("odds", "12", "11", "10", "1", "--seat", "3", "--format", "csv", "--variant", "4-reyes")
    assert r.returncode == 0
    lines = r.stdout.strip().splitlines()
    meta = [ln for ln in lines if ln.startswith("#")]
    rows = lines[len(meta):]
    # a '#' block of metadata first: the context and the run
    assert [ln.split(":")[0] for ln in meta] == ["# " + k for k in CONTEXT_KEYS + ["method", "trials", "seed",
                                                                                     "partial"]]
    assert '# variant: "4-reyes"' in meta and '# seat: "third"' in meta and '# method: "exact"' in meta
    assert rows[0].startswith("lance,p_team,p_self,p_played,p_contested,ev_net")
    assert [row.split(",")[0] for row in rows[1:]] == ["grande", "chica", "pares", "juego", "punto"]


def test_a_lance_never_played_shows_a_dash():
    # R R 3 A holds juego: punto is never played, its cells are "–", not 0 %
    r = run("odds", "R", "R", "3", "A")
    assert r.returncode == 0, r.stderr
    punto = next(ln for ln in r.stdout.splitlines() if "Punto" in ln)
    cells = [c.strip() for c in punto.strip("│ \n").split("│")]
    assert cells == ["Punto", "–", "–", "0.00 %", "–", "–"]
    grande = next(ln for ln in r.stdout.splitlines() if "Grande" in ln)
    assert "–" not in grande.split("│")[2]


def test_seat_aliases_give_same_answer():
    runner = CliRunner()
    outs = set()
    for seat in ("second", "segundo", "2"):
        res = runner.invoke(main_cli(), ["odds", "RR3A", "--seat", seat, "--format", "json"])
        assert res.exit_code == 0, res.output
        doc = json.loads(res.output)
        assert doc["seat"] == "second"
        outs.add(json.dumps(doc["lances"], sort_keys=True))
    assert len(outs) == 1


def main_cli():
    from musstats.cli import cli

    return cli


@pytest.mark.parametrize("args, fragment", [
    (["odds", "R", "R", "3"], "exactly 4 cards"),
    (["odds", "R", "R", "3", "A", "7"], "exactly 4 cards"),
    (["odds", "R", "R", "X", "A"], "unknown card"),
    (["odds", "S/o", "S/o", "3", "A"], "appears 2 times"),
    (["odds", "R", "R", "3", "A", "--seat", "fifth"], "mano|second|third|postre"),
    (["odds", "R", "R", "3", "A", "--variant", "5-reyes"], "'8-reyes', '4-reyes'"),
    (["odds", "R", "R", "3", "A", "--format", "xml"], "'table', 'json', 'csv'"),
    (["odds", "R", "R", "3", "A", "--juego-real", "maybe"], "'off', 'figure'"),
    (["odds", "R", "R", "R", "R", "--dead", "R", "R", "R", "R", "R"], "deck holds 4"),
    (["odds", "7", "7", "7", "7", "--dead", "7"], "deck holds 4"),
    (["odds", "7", "7", "7", "6", "--dead", "7", "--dead", "7"], "deck holds 4"),  # repeated --dead merge
    # an option of one value given twice is an error, never a silent choice
    (["odds", "R", "R", "3", "A", "--seat", "mano", "--seat", "postre"], "--seat is given twice"),
    (["odds", "R", "R", "3", "A", "--variant", "8-reyes", "--variant", "4-reyes"], "--variant is given twice"),
    (["odds", "R", "R", "3", "A", "--format=json", "--format", "json"], "--format is given twice"),
    (["odds", "R", "R", "3", "A", "--players", "5"], "partners need 4 or 6 players"),
    (["odds", "R", "R", "3", "A", "--players", "7", "--individual"], "players must be a whole number from 2 to 6"),
    (["odds", "R", "R", "3", "A", "--players", "6", "--seat", "7"], "unknown seat"),
    (["odds", "R", "R", "3", "A", "--players", "6", "--method", "exact"], "--method mc"),
    (["odds", "R", "R", "3", "A", "--method", "exact", "--trials", "100"], "--method mc"),
])
def test_bad_input_exit_2_one_line(args, fragment, capsys):
    assert_exit2_one_line(capsys, args, fragment)


def test_a_sampling_option_asks_for_monte_carlo(capsys):
    code, out, err = run_cli(capsys, ["odds", "R", "R", "3", "A", "--seed", "3", "--trials", "1000", "--format", "json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["method"] == "mc" and doc["seed"] == 3 and doc["trials"] == 1000


def test_bad_input_in_a_real_process():
    r = run("odds", "R", "R", "Z", "A")
    check_one_line_error(r.returncode, r.stdout, r.stderr, "unknown card")
    assert r.stderr.count("\n") == 1


def test_help_does_not_import_numba():
    code = ("import sys\nfrom musstats.cli import main\n"
            "for args in ([], ['odds'], ['discard'], ['mus'], ['ordago'], ['game'], ['table'], ['plot'], ['arena'],\n"
            "             ['plot', 'hand'], ['plot', 'heatmap'], ['rules']):\n"
            "    try:\n        main(args + ['--help'])\n    except SystemExit:\n        pass\n"
            "print('NUMBA' if 'numba' in sys.modules else 'CLEAN')")
    r = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert r.stdout.strip().endswith("CLEAN"), r.stdout + r.stderr
    assert "Usage" in r.stdout
    assert "musstats rules" in r.stdout  # every --help points to the rules musstats implements


def test_rules_command_prints_the_projects_rules(capsys):
    from pathlib import Path

    code, out, err = run_cli(capsys, ["rules"])
    assert code == 0, err
    text = (Path(ROOT) / "musstats" / "docs" / "rules.md").read_text(encoding="utf-8")
    assert out.strip() == text.strip()


def test_api_returns_result_objects():
    import musstats

    res = musstats.odds("R R 3 A", seat="mano", variant="8-reyes")
    assert res.method == "exact" and res.mean.shape == res.se.shape == (5, 5) and not res.partial
    df = res.to_frame()
    assert list(df.index) == ["grande", "chica", "pares", "juego", "punto"]
    assert {"p_team", "p_self", "p_played", "p_contested", "ev_net", "se_p_team"} <= set(df.columns)
    assert df.loc["juego", "p_self"] == 1.0
    assert df.attrs["method"] == "exact" and df.attrs["seat"] == "mano"
    assert res.to_dict()["lances"]["juego"]["p_self"] == 1.0
    # the API accepts card lists too, and validates; seats are numbered from 1 = mano
    res2 = musstats.odds(["R", "R", "3", "A"], 2)
    assert res2.seat == 1 and res2.to_frame().attrs["seat"] == "second"
    with pytest.raises(musstats.MusError):
        musstats.odds("R R 3", seat="mano")
    # every entry point takes a variant name or a Variant
    v = musstats.make_variant("4-reyes")
    assert np.array_equal(musstats.odds("R R 3 A", variant=v).mean, musstats.odds("R R 3 A", variant="4-reyes").mean,
                          equal_nan=True)


def test_two_players_individually_are_exact():
    import musstats

    res = musstats.odds("R C 7 4", 2, players=2, individual=True)  # with two players, seat 2 is postre
    assert res.method == "exact" and np.array_equal(res.mean[:, 0], res.mean[:, 1])  # p_team is p_self
    d = res.to_dict()
    assert d["players"] == 2 and d["individual"] is True and d["seat"] == "postre"
    assert d["team"] == "postre alone" and d["teams"] == [["mano"], ["postre"]]


_PUBLIC = ("odds", "discard", "mus", "ordago", "game_model", "strategy_table")
_NAMES_CHILD = """
import importlib, inspect, pkgutil, sys
import musstats
order = sys.argv[1]
if order == "first":  # use the public functions, then import every module of the package
    [getattr(musstats, n) for n in NAMES]
for m in pkgutil.walk_packages(musstats.__path__, "musstats."):
    if not m.name.endswith("__main__"):
        importlib.import_module(m.name)
print(" ".join(n for n in NAMES if inspect.isfunction(getattr(musstats, n))))
"""


@pytest.mark.parametrize("order", ["first", "after"])
def test_public_functions_stay_functions_after_any_import(order):
    # once musstats.mus has been used, musstats.discard must still be the function (not the
    # module), and musstats.ordago must work
    code = f"NAMES = {_PUBLIC!r}\n" + _NAMES_CHILD
    r = subprocess.run([PY, "-c", code, order], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == list(_PUBLIC)


def test_public_api_signatures():
    # one argument order, (hand, seat, *, variant, juego_real, target, redeal_4567, mus_visto, ...),
    # every option keyword-only
    import musstats

    for name in ("odds", "discard", "mus", "ordago"):
        params = list(inspect.signature(getattr(musstats, name)).parameters.values())
        assert [p.name for p in params[:2]] == ["hand", "seat"], name
        assert all(p.kind is p.KEYWORD_ONLY for p in params[2:]), name
        names = [p.name for p in params]
        common = ["variant", "juego_real", "target", "redeal_4567", "mus_visto"]
        assert [n for n in names if n in common] == common, name
        assert names.index("variant") < names.index("mus_visto"), name
    for name in ("game_model", "strategy_table"):
        params = list(inspect.signature(getattr(musstats, name)).parameters.values())
        assert params[0].name == "variant" and all(p.kind is p.KEYWORD_ONLY for p in params[1:]), name


def test_mc_cli_same_seed_same_output_with_one_and_two_threads():
    args = ("odds", "R", "C", "7", "4", "--seat", "second", "--method", "mc", "--trials", "300000",
            "--seed", "5", "--dead", "7", "A", "--format", "json")
    one = run(*args, env={"NUMBA_NUM_THREADS": "1"})
    two = run(*args, env={"NUMBA_NUM_THREADS": "2"})
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    assert one.stdout == two.stdout
    doc = json.loads(one.stdout)
    assert doc["method"] == "mc" and doc["seed"] == 5 and doc["trials"] == 300000 and not doc["partial"]
    assert doc["dead"] == ["7", "A"]
    assert all(0 < v["se"]["p_team"] < 0.01 for k, v in doc["lances"].items() if k != "punto")
    # --dead may be repeated: the cards merge
    split = run(*args[:-4], "--dead", "7", "--dead", "A", "--format", "json", env={"NUMBA_NUM_THREADS": "1"})
    assert split.returncode == 0 and split.stdout == one.stdout, split.stderr


def test_partial_monte_carlo_prints_and_exits_130(capsys, monkeypatch):
    # Ctrl-C during a Monte Carlo run: the deals done so far are printed, marked partial, exit 130
    import musstats._kernels.mc as kernel

    real = kernel.mc_counts
    calls = []

    def flaky(*args):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(kernel, "mc_counts", flaky)
    code, out, err = run_cli(capsys, ["odds", "R", "C", "7", "4", "--method", "mc", "--trials", "50000000",
                                      "--seed", "3", "--format", "json"])
    assert code == 130
    doc = json.loads(out)
    assert doc["partial"] is True and 0 < doc["trials"] < 50_000_000
    assert err.strip().splitlines()[-1] == "musstats: interrupted; the result above is partial"
    calls.clear()
    code, out, err = run_cli(capsys, ["odds", "R", "C", "7", "4", "--method", "mc", "--trials", "50000000",
                                      "--seed", "3"])
    assert code == 130 and "PARTIAL" in out and "Grande" in out


@pytest.mark.parametrize("args, fragment", [
    (["--trials", "0"], "trials must be a whole number from 1 to 2,000,000,000, got 0"),
    (["--trials", "-5"], "trials must be a whole number from 1 to 2,000,000,000, got -5"),
    (["--trials", "3000000000"], "trials must be a whole number from 1 to 2,000,000,000, got 3000000000"),
    (["--trials", "1e6"], "--trials must be a whole number"),
    (["--target-se", "0"], "target_se must be a number from 0.0001 to 0.5"),
    (["--target-se", "0.7"], "target_se must be a number from 0.0001 to 0.5"),
    (["--target-se", "abc"], "--target-se must be a number"),
    (["--threads", "0"], "threads"),
    (["--seed", "-1"], "seed must be a whole number from 0 to 9,223,372,036,854,775,807, got -1"),
    (["--dead", "R", "R", "R", "R", "R", "R", "R"], "deck holds"),
    (["--trials", "1000", "--trials", "1000"], "--trials is given twice"),
])
def test_mc_bad_input(args, fragment, capsys):
    assert_exit2_one_line(capsys, ["odds", "R", "R", "3", "A", "--method", "mc", *args], fragment)


def test_docstring_examples_hold():
    # the examples in the public API's docstrings are run (doctest) and must hold
    import doctest
    import importlib
    import pkgutil

    import musstats

    tried = 0
    for m in pkgutil.walk_packages(musstats.__path__, "musstats."):
        if m.name.endswith("__main__"):
            continue
        mod = importlib.import_module(m.name)
        path = getattr(mod, "__file__", None)
        if not path or ">>>" not in open(path, encoding="utf-8").read():
            continue
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert res.failed == 0, m.name
        tried += res.attempted
    assert tried >= 4


_BAD_CALLS = [
    ("odds", (1234, "mano"), {}, "hand must be text"),
    ("odds", (None,), {}, "hand is required"),
    ("odds", (), {}, "missing a required argument: 'hand'"),
    ("odds", ("R R 3 A", True), {}, "seat must be a name"),
    ("odds", ("R R 3 A", "mano"), {"dead": 7}, "dead must be text"),
    ("odds", ("R R 3 A", "mano"), {"declared": {"second": "pares"}}, "declared must be text"),
    ("odds", ("R R 3 A", "mano"), {"signal": 31}, "signal must be text"),
    ("odds", ("R R 3 A", "mano"), {"trials": float("nan")}, "trials must be a number"),
    ("odds", ("R R 3 A", "mano"), {"variant": 8}, "variant must be a name"),
    ("odds", ("R R 3 A", "mano"), {"bogus": 1}, "unexpected keyword argument 'bogus'"),
    ("discard", (b"RR3A",), {}, "hand must be text"),
    ("discard", ("R R 3 A",), {"keep": 5}, "keep must be text"),
    ("mus", ("R R 3 A",), {"mus_visto": "yes"}, "mus_visto must be True or False"),
    ("ordago", (["R", 1, "3", "A"],), {"lance": "grande", "score": "0-0"}, "hand must be text"),
    ("ordago", ("R R 3 A",), {"lance": 5, "score": "0-0"}, "lance must be text"),
    ("ordago", ("R R 3 A",), {"lance": "grande", "score": 10}, "score must be text"),
    ("ordago", ("R R 3 A",), {"lance": "grande", "score": "0-0", "equilibrium": 1}, "equilibrium must be True"),
    ("ordago", ("R R 3 A",), {"lance": "grande", "score": "0-0", "model": "x"}, "model must be a musstats GameModel"),
    ("bet", ("R R 3 A", "mano"), {"lance": "grande", "seed": None}, "seed must be a number"),
    ("bet", ("R R 3 A", "mano"), {"lance": "grande", "history": 3}, "history must be text"),
    ("arena", (), {"hands": [1]}, "hands must be text"),
    ("game_model", (3.5,), {}, "variant must be a name"),
    ("match_probability", (object(),), {}, "model must be a musstats GameModel"),
    ("strategy_table", (), {"runner": 5}, "runner must be a function"),
    ("strategy_table", (), {"seats": 2.5}, "seats must be"),
]


@pytest.mark.parametrize("name, args, kwargs, fragment", _BAD_CALLS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(_BAD_CALLS)])
def test_public_api_bad_types_are_one_line_mus_errors(name, args, kwargs, fragment):
    """Every public function checks its arguments' types before any work: a MusError with one
    line, never a TypeError (or a crash) from deep inside."""
    import musstats

    with pytest.raises(musstats.MusError) as e:
        getattr(musstats, name)(*args, **kwargs)
    msg = str(e.value)
    assert fragment in msg and "\n" not in msg and len(msg) < 300, msg
