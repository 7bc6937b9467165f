"""Trustworthy under Ctrl-C, huge inputs and junk.

* a harness that sends SIGINT to each long command at random moments (bounded count) and
  checks: it stops within a couple of seconds, exits 130 (or 0 if it had finished), never
  prints a traceback or crashes, marks a printed partial result as partial in its format,
  and leaves no file behind;
* a property-based fuzz test over argv built from the real option set and junk values;
* regression tests for the repeated options, joker conflicts, mus visto and ``--out``.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import assert_exit2_one_line, interruptible, run_cli

#: (name, argv, what a partial result looks like on stdout, or None when none is printed)
LONG_COMMANDS = [
    ("odds mc table", ["odds", "R", "R", "3", "A", "--trials", "2000000000", "--seed", "1"], "PARTIAL"),
    ("odds mc json", ["odds", "R", "R", "3", "A", "--trials", "2000000000", "--seed", "1", "--format", "json"],
     '"partial": true'),
    ("odds mc csv", ["odds", "R", "R", "3", "A", "--trials", "2000000000", "--seed", "1", "--format", "csv"],
     "# partial: true"),
    ("odds ten kings", ["odds", "S/o", "R", "3", "A", "--variant", "ten-kings", "--trials", "200000000"], "PARTIAL"),
    ("discard", ["discard", "R", "R", "7", "A", "--trials", "30000000", "--seed", "1"], "PARTIAL"),
    ("mus", ["mus", "R", "R", "7", "A", "--trials", "30000000", "--seed", "1", "--format", "json"],
     '"partial": true'),
    ("table", ["table", "--out", "{out}/t.csv"], "PARTIAL"),
    ("plot heatmap", ["plot", "heatmap", "--lance", "grande", "--out", "{out}/h.png"], None),
    ("game", ["game", "--deals", "200000000", "--out", "{out}/g.csv"], None),
    ("arena", ["arena", "--hands", "10000000", "--games", "0"], "partial"),
]


#: a quick run of the same command first, so that numba has compiled (and cached) its kernels and
#: the Ctrl-C lands in the batch loops (a Ctrl-C during a first compilation exits at once:
#: test_ctrl_c_during_the_first_compilation_of_a_command)
WARM_UP = {
    "odds ten kings": ["odds", "S/o", "R", "3", "A", "--variant", "ten-kings", "--trials", "20000", "--seed", "1"],
    "odds mc table": ["odds", "R", "R", "3", "A", "--trials", "20000", "--seed", "1"],
    "odds mc json": ["odds", "R", "R", "3", "A", "--trials", "20000", "--seed", "1"],
    "odds mc csv": ["odds", "R", "R", "3", "A", "--trials", "20000", "--seed", "1"],
    "discard": ["discard", "R", "R", "7", "A", "--trials", "2000", "--seed", "1"],
    "mus": ["mus", "R", "R", "7", "A", "--trials", "2000", "--seed", "1"],
    "table": ["table", "--hands", "1", "--trials", "1000", "--seed", "1"],
}


def _env(tmp: Path) -> dict:
    env = dict(os.environ)
    env["MUSSTATS_CACHE"] = str(tmp / "cache")  # a cold result cache: the game model is simulated
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _ctrl_c_after(args: list[str], delay: float, env: dict, name: str) -> tuple[int, str, str, float]:
    """Run ``musstats ARGS``, send Ctrl-C after ``delay`` s: (exit status, stdout, stderr, seconds
    it took to stop); fails when it is still running 15 s after."""
    p = interruptible([sys.executable, "-m", "musstats", *args], stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(delay)
    sent = time.perf_counter()
    p.send_signal(signal.SIGINT)
    try:
        stdout, stderr = p.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail(f"{name}: still running 15 s after Ctrl-C")
    return p.returncode, stdout, stderr, time.perf_counter() - sent


#: seconds after which a long command with a warm-up is surely inside its loop (Python started,
#: kernels loaded from the cache the warm-up filled, the game model read from the warm-up's
#: result cache): a Ctrl-C then must print the partial result
IN_THE_LOOP = 8.0


@pytest.mark.slow
@pytest.mark.parametrize("name,argv,partial_mark", LONG_COMMANDS, ids=[c[0] for c in LONG_COMMANDS])
def test_ctrl_c_at_random_moments(name, argv, partial_mark, tmp_path):
    rng = random.Random(f"sigint {name}")
    out = tmp_path / "out"
    out.mkdir()
    if name in WARM_UP:
        subprocess.run([sys.executable, "-m", "musstats", *WARM_UP[name]], capture_output=True, timeout=600,
                       env=_env(tmp_path / "warm"), check=True)
    # a random early moment (it may land before anything is computed, with a cold result cache),
    # then one in the loop of a command that promises a partial result (the warm-up's cache)
    strict = partial_mark is not None and name in WARM_UP
    late = IN_THE_LOOP + rng.uniform(0.0, 1.0) if strict else rng.uniform(3.0, 6.0)
    for delay in (rng.uniform(1.5, 3.0), late):
        args = [a.replace("{out}", str(out)) for a in argv]
        env = _env(tmp_path / "warm") if delay == late and strict else _env(tmp_path)
        code, stdout, stderr, waited = _ctrl_c_after(args, delay, env, name)
        assert code in (0, 130), (name, delay, code, stderr[-2000:])
        assert code == 130 or not (strict and delay == late), f"{name} finished before the Ctrl-C"
        assert "Traceback" not in stderr and "Traceback" not in stdout, (name, stderr[-2000:])
        assert waited < 3.0, f"{name}: {waited:.1f} s to stop after Ctrl-C"
        if code == 130:
            assert stderr.strip().splitlines()[-1].startswith("musstats: interrupted"), stderr[-500:]
            if delay == late and strict:
                # the partial result is printed where one is promised: an empty output fails
                assert stdout.strip(), f"{name}: Ctrl-C after {delay:.1f} s printed nothing ({stderr[-300:]})"
                assert stderr.strip().splitlines()[-1] == "musstats: interrupted; the result above is partial"
            if stdout.strip():
                assert partial_mark is not None and partial_mark in stdout, (name, stdout[:500])
            # an interrupted command leaves no file (and no temporary file) behind
            assert sorted(os.listdir(out)) == [], (name, os.listdir(out))
        for f in os.listdir(out):
            os.unlink(out / f)


# --------------------------------------------------------------------------- fuzz

def _commands():
    from musstats.cli import cli

    return cli.commands


JUNK = ["", "0", "-1", "1", "2", "3", "R", "RR3A", "abc", "1e9", "2.5", "99999999999999999999", "nan", "-",
        "mano", "7", "postre", "second:pares", "S/o=A", "10-10", "40-0", "grande", "x.csv", "out/x.png"]
CARD_TOKENS = ["R", "R", "3", "A", "C", "S", "7", "6", "5", "4", "2", "S/o", "S/c", "13", "Q", "rey", "sota:oros"]


@st.composite
def argvs(draw):
    cmds = _commands()
    # serve runs until Ctrl-C (tests/test_web_api.py tries its options)
    name = draw(st.sampled_from(sorted(n for n in cmds if n not in ("rules", "serve"))))
    cmd = cmds[name]
    if name == "plot":
        sub = draw(st.sampled_from(sorted(cmd.commands)))
        argv = [name, sub]
        cmd = cmd.commands[sub]
    else:
        argv = [name]
    argv += draw(st.lists(st.sampled_from(CARD_TOKENS), max_size=5))
    opts = [p for p in cmd.params if hasattr(p, "opts") and p.opts[0].startswith("--")]
    for p in draw(st.lists(st.sampled_from(opts), max_size=4)):
        argv.append(p.opts[0])
        if not getattr(p, "is_flag", False):
            choices = list(getattr(p.type, "choices", []) or [])
            argv.append(draw(st.sampled_from(choices + JUNK)))
    # keep every example quick: few hands and deals
    if name in ("table",) or argv[:2] in (["plot", "heatmap"], ["plot", "mus"]):
        argv += ["--hands", "1"]
    if (name == "game" or argv[:2] == ["plot", "game"]) and "--deals" not in argv:
        argv += ["--deals", "20000"]
    if name == "arena":
        for opt, val in (("--hands", "2000"), ("--games", "20")):
            if opt not in argv:
                argv += [opt, val]
    if (name == "ordago" or argv[:2] == ["plot", "convergence-cfr"]) and "--iterations" not in argv:
        argv += ["--iterations", "5"]  # a solve of a few iterations
    if argv[:2] == ["plot", "convergence-cfr"] and "--every" not in argv:
        argv += ["--every", "5"]
    if "--trials" not in argv:
        argv += ["--trials", "2000"] if any(o.opts[0] == "--trials" for o in opts) else []
    return argv


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(argv=argvs())
def test_fuzz_every_run_exits_0_or_2_without_traceback_or_leftover_files(argv, capsys, tmp_path_factory):
    work = tmp_path_factory.mktemp("fuzz")
    cwd = os.getcwd()
    os.chdir(work)
    try:
        code, out, err = run_cli(capsys, argv)
    finally:
        os.chdir(cwd)
    assert code in (0, 2), (argv, code, err)
    assert "Traceback" not in err and "Traceback" not in out
    if code == 2:
        lines = [ln for ln in err.strip().splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("musstats: error: "), (argv, err)
        # a failed command leaves no file behind
        assert [p for p in Path(work).rglob("*") if p.is_file()] == [], (argv, list(Path(work).rglob("*")))


# --------------------------------------------------------------------------- regressions

@pytest.mark.parametrize("argv", [
    ["odds", "R", "R", "3", "A", "--seat", "mano", "--seat", "second"],
    ["odds", "R", "R", "3", "A", "--method", "mc", "--method", "exact"],
    ["mus", "R", "R", "7", "A", "--rounds", "1", "--rounds", "2"],
    ["ordago", "R", "R", "R", "R", "--lance", "grande", "--lance", "chica", "--score", "0-0"],
])
def test_an_option_of_one_value_given_twice_is_refused(capsys, argv):
    assert_exit2_one_line(capsys, argv, "is given twice")


def test_repeated_declarations_merge(capsys):
    a = json.loads(run_cli(capsys, ["odds", "R", "C", "7", "A", "--declared", "second:pares", "--declared",
                                    "third:juego", "--format", "json"])[1])
    b = json.loads(run_cli(capsys, ["odds", "R", "C", "7", "A", "--declared", "second:pares,third:juego",
                                    "--format", "json"])[1])
    assert a["lances"] == b["lances"] and a["conditions"]["declared"] == b["conditions"]["declared"]
    assert "second:pares" in a["conditions"]["declared"] and "third:juego" in a["conditions"]["declared"]
    assert_exit2_one_line(capsys, ["odds", "R", "C", "7", "A", "--declared", "second:pares", "--declared",
                             "second:no-pares"], "both pares and no-pares")


def test_two_different_senas_and_conflicting_jokers_are_refused(capsys):
    assert_exit2_one_line(capsys, ["odds", "R", "C", "7", "A", "--signal", "duples", "--signal", "31"], "one seña")
    assert_exit2_one_line(capsys, ["odds", "S/o", "R", "3", "A", "--variant", "ten-kings", "--joker", "S/o=R,S/o=A"],
                    "given twice with different values")


def test_mus_visto_changes_the_game_model_it_claims():
    from musstats.analysis.game import game_model

    plain = game_model("8-reyes", deals=200_000, seed=5, cache=False)
    visto = game_model("8-reyes", mus_visto=True, deals=200_000, seed=5, cache=False)
    assert visto.variant.mus_visto and not plain.variant.mus_visto
    # the visto round changes the hands that are played: the outcome tables differ
    assert not (plain.outcomes.signed.shape == visto.outcomes.signed.shape
                and (plain.outcomes.prob == visto.outcomes.prob).all())


@pytest.mark.parametrize("argv", [
    ["game", "--out", "{missing}/sub/x.png", "--deals", "1000"],
    ["game", "--out", "{missing}/x.csv", "--deals", "1000"],
    ["table", "--hands", "1", "--out", "{missing}/t.csv"],
    ["plot", "hand", "R", "R", "3", "A", "--out", "{missing}/h.png"],
    ["plot", "game", "--out", "{missing}/g.svg"],
])
def test_every_out_refuses_a_missing_folder(capsys, tmp_path, argv):
    missing = tmp_path / "nodir"
    args = [a.replace("{missing}", str(missing)) for a in argv]
    assert_exit2_one_line(capsys, args, "does not exist")
    assert not missing.exists()


def test_exact_with_seed_and_dead_card_messages(capsys):
    assert_exit2_one_line(capsys, ["odds", "R", "R", "3", "A", "--method", "exact", "--seed", "3"], "--method mc")
    dead = "C C C C S S S S 7 7 7 7 6 6 6 6 5 5 5 5 4 4 4 4 2 2 2 2"  # 28 dead: 8 unseen cards
    exact = assert_exit2_one_line(capsys, ["odds", "R", "R", "3", "A", "--dead", *dead.split()], "unseen cards")
    mc = assert_exit2_one_line(capsys, ["odds", "R", "R", "3", "A", "--method", "mc", "--dead", *dead.split()],
                         "unseen cards")
    assert exact == mc


def test_minor_messages(capsys):
    assert "unknown card '13'" in assert_exit2_one_line(capsys, ["odds", "13", "R", "R", "A"], "13")
    code, out, _ = run_cli(capsys, ["table", "--hands", "4567", "--seat", "mano"])
    # the hand 4-5-6-7 (printed highest card first), not 4567 hands
    assert code == 0 and "7 6 5 4" in out and "strategy table · 1 hand " in out
    msg = assert_exit2_one_line(capsys, ["plot", "convergence", "S/o", "R", "3", "A", "--lance", "grande", "--variant",
                                   "ten-kings", "--out", "x.png"], "ten kings")
    assert "--variant" in msg and "--method" not in msg


def test_counts_have_bounds(capsys):
    for argv in (["odds", "R", "R", "3", "A", "--trials", "99999999999999999999"],
                 ["odds", "R", "R", "3", "A", "--trials", "9223372036854775807"],
                 ["plot", "hand", "R", "R", "3", "A", "--method", "mc", "--trials", "99999999999999999999",
                  "--out", "x.png"],
                 ["plot", "convergence", "R", "R", "3", "A", "--lance", "grande", "--trials", "99999999999999999999",
                  "--out", "x.png"],
                 ["game", "--deals", "99999999999999999999"],
                 ["discard", "R", "R", "7", "A", "--trials", "99999999999999999999"],
                 ["mus", "R", "R", "7", "A", "--trials", "9223372036854775807"],
                 ["table", "--hands", "1", "--trials", "99999999999999999999"]):
        assert "from 1" in assert_exit2_one_line(capsys, argv, "must be a whole number")


def test_a_ctrl_c_caught_inside_stops_every_enclosing_loop():
    # a table's loop over hands encloses each hand's Monte Carlo batches: a Ctrl-C caught by
    # the batches must stop the table too (it once ran to the end), and what starts after it
    # starts stopped
    from musstats.engines.run import Interrupt

    with Interrupt() as outer:
        with Interrupt() as inner:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
        assert inner.hit and outer.hit
        with Interrupt() as later:
            assert later.hit
    with Interrupt() as fresh:
        assert not fresh.hit


def test_a_ctrl_c_no_loop_looked_at_is_raised_when_the_outermost_context_exits():
    # a Ctrl-C that lands during the last batch of a loop (after its last look at the flag)
    # was lost: `table` went on to its hands for minutes after a Ctrl-C during the last batch
    # of its game model
    from musstats.engines.run import Interrupt, LateInterrupt, run_batches

    with pytest.raises(LateInterrupt):
        with Interrupt():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
    # nested: the outermost one raises, not the inner one
    reached = False
    with pytest.raises(LateInterrupt):
        with Interrupt():
            with Interrupt():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)
            reached = True
    assert reached
    # a loop that looked at it acted on it: nothing is raised
    with Interrupt() as outer:
        with Interrupt() as inner:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            assert inner.hit
    assert not Interrupt._active

    # the batch loop: Ctrl-C during its last batch, then nothing must go on as if not pressed
    def ctrl_c_in_batch(n: int):
        def step(start: int, k: int) -> None:
            if start == n:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)
        return step

    with pytest.raises(LateInterrupt):
        run_batches(3, 1, ctrl_c_in_batch(2))
    # during an earlier batch: the loop stops, partial, and the Ctrl-C is not raised again
    assert run_batches(5, 1, ctrl_c_in_batch(1)) == (2, True)


def test_a_ctrl_c_during_the_last_batch_of_the_game_model_stops_the_command():
    # the case that was seen: `table` simulates the game model, then its hands
    from musstats.analysis.game import DEAL_SOURCES, paso_outcomes
    from musstats.analysis.game.outcomes import BATCH_DEALS
    from musstats.engines.run import LateInterrupt

    calls = []

    def source(n, seed, variant):
        calls.append(n)
        if len(calls) == 2:  # the last of two batches
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
        return DEAL_SOURCES["as-dealt"](n, seed, variant)

    with pytest.raises(LateInterrupt):
        paso_outcomes(deals=BATCH_DEALS + 10, seed=1, source=source)
    assert calls == [BATCH_DEALS, 10]


def _slow_to_compile(name: str, op: str):
    """A numba kernel (never cached) that takes seconds to compile, 3-5 s on the 2-core machine,
    and its Python function: 250 branches, each ``x = x OP ...``, different for each ``op``."""
    import numba

    lines = "".join(f"    x = x {op} {i % 7 + 2} + {i} if x < {i} else x - {i}\n" for i in range(250))
    g: dict = {}
    exec(f"def {name}(x):\n" + lines + "    return x\n", g)
    return numba.njit(g[name]), g[name]


def _ctrl_c_in(delay: float, sent: list[float]):
    """A started timer that sends this process Ctrl-C after ``delay`` s, its time in ``sent``."""
    import threading

    def ctrl_c():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(delay, ctrl_c)
    timer.start()
    return timer


def test_a_ctrl_c_during_a_numba_compilation_calls_the_hook_at_once(monkeypatch):
    # on a fresh install a command's first kernel call compiles for seconds, in numba's Python
    # code, where no batch loop looks at the flag (a table once went on 12 s after Ctrl-C): the
    # hook of the command line is called at once; the library itself lets the compilation end
    # (raising inside it left a kernel half built: "no compiled object yet")
    from musstats.engines.run import Interrupt

    called: list[float] = []
    monkeypatch.setattr(Interrupt, "on_compiling", lambda: called.append(time.perf_counter()))
    kernel, python = _slow_to_compile("slow_to_compile", "*")
    sent: list[float] = []
    with Interrupt() as flag:
        timer = _ctrl_c_in(0.3, sent)
        got = kernel(1.0)
        ended = time.perf_counter()
        hit = flag.hit  # as a batch loop looks at it after the call
    timer.join()
    assert hit and len(called) == 1
    assert called[0] - sent[0] < 0.5, f"{called[0] - sent[0]:.1f} s to call the hook"
    assert ended - sent[0] > 0.5  # the compilation did go on (the hook here does not exit)
    assert got == python(1.0)  # and built a working kernel


def test_a_ctrl_c_while_a_kernel_compiles_outside_any_batch_calls_the_hook(monkeypatch):
    # before a command enters a batch loop (no Interrupt active) numba may compile for seconds; a
    # KeyboardInterrupt raised there is swallowed by one of numba's callbacks and the compilation
    # goes on, so the command line's handler calls the hook there, and raises elsewhere
    from musstats.engines.run import Interrupt, ctrl_c_outside

    called: list[float] = []
    monkeypatch.setattr(Interrupt, "on_compiling", lambda: called.append(time.perf_counter()))
    kernel, _ = _slow_to_compile("slow_to_compile_outside", "-")
    sent: list[float] = []
    old = signal.signal(signal.SIGINT, ctrl_c_outside)
    try:
        timer = _ctrl_c_in(0.3, sent)
        try:
            kernel(1.0)
        except KeyboardInterrupt:  # raised as the hook returned (it exits on the command line)
            pass
        timer.join()
        assert len(called) == 1 and called[0] - sent[0] < 0.5, (called, sent)
        with pytest.raises(KeyboardInterrupt):  # elsewhere, as Python's own handler
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)
    finally:
        signal.signal(signal.SIGINT, old)
    assert len(called) == 1


@pytest.mark.slow
def test_ctrl_c_during_the_first_compilation_of_a_command(tmp_path):
    # a fresh install: no compiled kernel (an empty numba cache); Ctrl-C while `table` compiles
    out = tmp_path / "out"
    out.mkdir()
    env = _env(tmp_path)
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba")
    code, _, stderr, waited = _ctrl_c_after(["table", "--out", str(out / "t.csv")], 2.5, env,
                                            "table, first compilation")
    assert code == 130, (code, stderr[-2000:])
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr[-2000:]
    assert stderr.strip().splitlines()[-1] == "musstats: interrupted"
    assert waited < 3.0, f"{waited:.1f} s to stop"
    assert os.listdir(out) == []


def test_a_ctrl_c_outside_numba_still_waits_for_the_batch():
    # the flag, not an exception, where a batch loop will look at it
    from musstats.engines.run import Interrupt

    with Interrupt() as flag:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        assert flag.hit


def test_the_command_line_hook_does_not_outlive_the_command(capsys):
    # run in a Python process (the tests, a notebook), the command line must not leave its
    # exit-at-once hook behind: a later Ctrl-C in that process would end it
    from musstats.engines.run import Interrupt

    assert Interrupt.on_compiling is None
    code, _, _ = run_cli(capsys, ["rules"])
    assert code == 0 and Interrupt.on_compiling is None
