"""The command line: formats, bad input, and no numba import for --help."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from musstats.cli import main

PY = sys.executable


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([PY, "-m", "musstats", *args], capture_output=True, text=True, env=e, timeout=300)


def test_odds_json_document():
    r = run("odds", "R", "R", "3", "A", "--seat", "mano", "--format", "json")
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    assert len(lines) == 1
    doc = json.loads(lines[0])
    assert doc["hand"] == ["R", "R", "3", "A"]
    assert doc["seat"] == "mano" and doc["variant"] == "8-reyes" and doc["method"] == "exact"
    assert set(doc["lances"]) == {"grande", "chica", "pares", "juego", "punto"}
    for lance, entry in doc["lances"].items():
        keys = {"p_team", "p_self", "p_played", "ev_net"}
        if lance in ("pares", "juego"):
            keys.add("p_contested")
        assert keys <= set(entry)
        for k in keys - {"ev_net"}:
            assert 0.0 <= entry[k] <= 1.0
    # R R 3 A is R R R A = 31 points: mano's 31 cannot be beaten, so punto is never played
    assert doc["lances"]["juego"]["p_self"] == 1.0
    assert doc["lances"]["punto"]["p_played"] == 0.0


def test_odds_table_and_csv():
    r = run("odds", "rey", "caballo", "7", "as", "--seat", "postre")
    assert r.returncode == 0 and "Grande" in r.stdout and "Punto" in r.stdout
    r = run("odds", "12", "11", "10", "1", "--seat", "3", "--format", "csv", "--variant", "4-reyes")
    assert r.returncode == 0
    rows = r.stdout.strip().splitlines()
    assert rows[0].startswith("lance,p_team,p_self,p_played,p_contested,ev_net")
    assert [row.split(",")[0] for row in rows[1:]] == ["grande", "chica", "pares", "juego", "punto"]


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
])
def test_bad_input_exit_2_one_line(args, fragment, capsys):
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert fragment in err and "Traceback" not in err


def test_bad_input_in_a_real_process():
    r = run("odds", "R", "R", "Z", "A")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "unknown card" in r.stderr and "Traceback" not in r.stderr


def test_help_does_not_import_numba():
    code = ("import sys\nfrom musstats.cli import main\n"
            "for args in ([], ['odds'], ['discard'], ['mus'], ['ordago'], ['game'], ['table'], ['plot'],\n"
            "             ['plot', 'hand'], ['plot', 'heatmap']):\n"
            "    try:\n        main(args + ['--help'])\n    except SystemExit:\n        pass\n"
            "print('NUMBA' if 'numba' in sys.modules else 'CLEAN')")
    r = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip().endswith("CLEAN"), r.stdout + r.stderr
    assert "Usage" in r.stdout


def test_api_returns_dataframe():
    import musstats

    df = musstats.odds("R R 3 A", seat="mano", variant="8-reyes")
    assert list(df.index) == ["grande", "chica", "pares", "juego", "punto"]
    assert {"p_team", "p_self", "p_played", "p_contested", "ev_net", "se_p_team"} <= set(df.columns)
    assert df.loc["juego", "p_self"] == 1.0
    assert df.attrs["method"] == "exact" and df.attrs["seat"] == "mano"
    # the API accepts card lists too, and validates
    df2 = musstats.odds(["R", "R", "3", "A"], seat=2)  # seats are numbered 1-4 as in RULES.md
    assert df2.attrs["seat"] == "second"
    with pytest.raises(musstats.MusError):
        musstats.odds("R R 3", seat="mano")


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


@pytest.mark.parametrize("args, fragment", [
    (["--trials", "0"], "trials"),
    (["--trials", "-5"], "trials"),
    (["--target-se", "0"], "target"),
    (["--target-se", "0.7"], "target"),
    (["--threads", "0"], "threads"),
    (["--dead", "R", "R", "R", "R", "R", "R", "R"], "deck holds"),
])
def test_mc_bad_input(args, fragment, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["odds", "R", "R", "3", "A", "--method", "mc", *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and fragment in err, err
