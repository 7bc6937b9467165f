"""The practice table: whole hands scored by the rules, hand histories, the review of every
decision, autoplay, and ``musstats play`` / ``musstats review``.

Expected values come from docs/rules.md and hand calculation, never from the program:

* the worked example of rules.md (mano 7-7-2-As, second 3-3-S-2, third R-R-S-As, postre
  C-C-C-6): grande goes to second (R-R-S-A, ties to the seat nearer mano: 1 stone to them), chica
  to mano (A-A-7-7 beats A-S-R-R: 1 to us), pares to mano's duples (3 + third's par 1 = 4 to
  us), juego to second's 31 (before third's 31: 3 + postre's 36, 2 = 5 to them);
* R R R R at mano cannot lose grande (every tie goes to mano): accepting a bet of 2 there is
  worth +2 stones for sure, refusing it -1, so refusing loses at least 3.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import ROOT, check_one_line_error, interruptible, run_cli

from musstats.analysis.practice import PracticeGame, autoplay, load_history, read_history
from musstats.analysis.practice.review import review, review_hand
from musstats.analysis.practice.values import bet_options
from musstats.base.errors import MusError

WORKED = {"mano": "7 7 2 A", "second": "3 3 S 2", "third": "R R S A", "postre": "C C C 6"}


def pass4() -> list[dict]:
    return [{"seat": s, "action": "paso"} for s in ("mano", "second", "third", "postre")]


def history(hands: list[dict], **top) -> dict:
    return {"format": "musstats-history", "version": 1, "rules": {"variant": "8-reyes", "target": 40},
            "games": [{"hands": hands}], **top}


def worked_hand(**kw) -> dict:
    h = {"you": "mano", "dealt": dict(WORKED), "mus": [{"seat": "mano", "action": "corto"}],
         "lances": {"grande": pass4(), "chica": pass4(), "pares": pass4(),
                    "juego": [{"seat": s, "action": "paso"} for s in ("second", "third", "postre")]}}
    h.update(kw)
    return h


def count(rec, i=0) -> dict:
    return rec.hands()[i].count_dict()


# ---------------------------------------------------------------------------- whole hands, by the rules


def test_the_worked_example_of_the_rules_en_paso():
    rec = load_history(history([worked_hand()]))
    c = count(rec)
    assert c["stones"] == [5, 6]  # us (mano and third): chica 1 + pares 4; them: grande 1 + juego 5
    got = [(e["lance"], e["team"], e["stones"], e["reason"]) for e in c["events"]]
    assert got == [("grande", "them", 1, "count: en paso"), ("chica", "us", 1, "count: en paso"),
                   ("pares", "us", 3, "count: duples"), ("pares", "us", 1, "count: par"),
                   ("juego", "them", 3, "count: 31"), ("juego", "them", 2, "count: 36")]
    h = rec.hands()[0].hand
    assert h.pares == [True, True, True, True] and h.juego == [False, True, True, True]


def test_a_refused_raise_gives_the_stake_before_it_and_the_raisers_count_their_pares():
    # mano bets 2 in pares, second raises 2 (to 4), third and mano refuse: second and postre take 2 at
    # once, then at the count their own pares (second's par 1, postre's medias 2) although mano's
    # duples are better
    pares = [{"seat": "mano", "action": "envido 2"}, {"seat": "second", "action": "+2"},
             {"seat": "third", "action": "no quiero"}, {"seat": "mano", "action": "no quiero"}]
    h = worked_hand()
    h["lances"]["pares"] = pares
    c = count(load_history(history([h])))
    assert c["events"][0] == {"lance": "pares", "team": "them", "stones": 2, "reason": "deje"}
    assert c["stones"] == [1, 1 + 2 + 1 + 2 + 5]  # us: chica; them: grande, deje, par, medias, juego


def test_an_accepted_ordago_ends_the_game_at_once():
    h = worked_hand()
    h["lances"] = {"grande": [{"seat": "mano", "action": "órdago"}, {"seat": "second", "action": "quiero"}]}
    rec = load_history(history([h]))
    c = count(rec)
    assert c["winner"] == "them" and c["score"][1] == 40 and c["ended_in_betting"]
    assert [e["reason"] for e in c["events"]] == ["órdago"]
    # nothing is played after it
    h2 = copy.deepcopy(h)
    h2["lances"]["chica"] = pass4()
    with pytest.raises(MusError, match=r"game 1, hand 1, chica action 1 \(mano paso\): the game ended"):
        load_history(history([h2]))
    h3 = copy.deepcopy(h)
    with pytest.raises(MusError, match="game 1 was won in hand 1"):
        load_history(history([h3, worked_hand(you="postre")]))


def test_a_game_reaching_40_in_the_middle_of_the_count_stops_there():
    # from 36-38 (us-them): grande them 39, chica us 37, pares: mano's duples 3 -> 40, we win;
    # third's par and their juego (5) are never counted
    rec = load_history(history([worked_hand(score=[36, 38])]))
    c = count(rec)
    assert c["winner"] == "us" and c["score"] == [40, 39] and c["stones"] == [4, 1]
    assert c["events"][-1] == {"lance": "pares", "team": "us", "stones": 3, "reason": "count: duples"}


def test_scores_follow_the_seat_of_the_player_and_mano_moves_on():
    # the same deal with you at second: the stones of mano's team are theirs; the next hand you are mano
    h1 = worked_hand(you="second")
    h2 = worked_hand()
    del h2["you"]
    rec = load_history(history([h1, h2]))
    assert count(rec, 0)["stones"] == [6, 5]
    assert rec.hands()[1].you == 0 and rec.hands()[1].score == (6, 5)
    bad = copy.deepcopy(h2)
    bad["score"] = [5, 6]
    with pytest.raises(MusError, match=r"game 1, hand 2: the score before this hand is 6-5"):
        load_history(history([h1, bad]))


# ---------------------------------------------------------------------------- histories


@pytest.mark.parametrize("change,fragment", [
    (lambda h: h["lances"]["grande"].__setitem__(0, {"seat": "mano", "action": "quiero"}),
     "grande action 1 (mano quiero): not legal in grande: at the start mano may say paso | envido 2 | envido 5 | "
     "órdago, not 'quiero'"),
    (lambda h: h["lances"]["grande"].__setitem__(1, {"seat": "third", "action": "paso"}),
     "grande action 2 (third paso): not third's turn: in the grande betting it is second's turn"),
    (lambda h: h["lances"]["grande"].append({"seat": "mano", "action": "paso"}),
     "grande action 5 (mano paso): the grande betting is over"),
    (lambda h: h["lances"]["chica"].pop(), "chica stops after 'paso,paso,paso'"),
    (lambda h: h["lances"].__setitem__("punto", pass4()), "punto action 1 (mano paso): somebody holds juego"),
    (lambda h: h.__setitem__("mus", [{"seat": "mano", "action": "mus"}, {"seat": "second", "action": "mus"},
                                     {"seat": "third", "action": "mus"}, {"seat": "postre", "action": "mus"},
                                     {"seat": "mano", "action": "throw", "cards": "R", "draw": "4"}]),
     "mus action 5 (mano throw R): mano cannot throw R: the hand is 7 7 2 A"),
    (lambda h: h["dealt"].__setitem__("postre", "R R R R"), "the four hands as dealt: 6 cards of rank R but the deck holds 4"),
    (lambda h: h.__setitem__("count", {"stones": [6, 5]}), "the count gives us 5, them 6 by the rules"),
    (lambda h: h["lances"]["grande"].__setitem__(0, {"seat": "mano", "action": "paso", "bet": 2}),
     "unknown field 'bet'"),
])
def test_a_bad_history_names_its_first_bad_action(change, fragment):
    h = worked_hand()
    h["lances"] = copy.deepcopy(h["lances"])
    change(h)
    with pytest.raises(MusError) as e:
        load_history(history([h]))
    assert fragment in str(e.value) and "\n" not in str(e.value)
    assert str(e.value).startswith("game 1, hand 1") or "hands as dealt" in str(e.value)


@pytest.mark.parametrize("text,fragment", [
    ("{not json", "not JSON"),
    ('{"format": "other"}', 'not a musstats history'),
    (json.dumps(history([])), "game 1 holds no hand"),
    (json.dumps({**history([worked_hand()]), "rules": {"variant": "4-reyes"}}), "practice plays 8 reyes"),
    (json.dumps(history([{**worked_hand(), "you": "dealer x"}])), "game 1, hand 1, you"),
    (json.dumps(history([{**worked_hand(), "plan": -3}])), "game 1, hand 1: plan is the hand's plan seed"),
    (json.dumps(history([{**worked_hand(), "plan": "7"}])), "game 1, hand 1: plan is the hand's plan seed"),
])
def test_bad_files(text, fragment):
    with pytest.raises(MusError, match=None) as e:
        read_history(text)
    assert fragment in str(e.value)


def test_a_saved_game_reads_back_the_same():
    g = PracticeGame(seed=7, autoplay="random", match="series")
    g.play_out(4)
    d = g.history()
    rec = load_history(json.loads(json.dumps(d)))
    assert rec.to_dict() == d
    seeds = [h["plan"] for gm in d["games"] for h in gm["hands"]]
    assert len(set(seeds)) == len(seeds) and [h.hand.plan_seed for h in rec.hands()] == seeds
    assert [h.count_dict() for h in rec.hands()] == [h.count_dict() for h in g.record.hands()]


def test_an_unfinished_game_needs_the_mark():
    h = worked_hand()
    h["lances"] = {"grande": pass4()[:2]}
    with pytest.raises(MusError, match="unfinished"):
        load_history(history([h]))
    rec = load_history(history([h], unfinished=True))
    assert not rec.hands()[0].complete


# ---------------------------------------------------------------------------- the table


def test_the_table_refuses_an_illegal_action_and_changes_nothing():
    g = PracticeGame(seed=11)
    before = json.dumps(g.state(), sort_keys=True)
    legal = g.state()["turn"]["actions"]
    for bad in ("envido 7", "quiero" if "quiero" not in legal else "corto", ""):
        with pytest.raises(MusError):
            g.act(bad)
    with pytest.raises(MusError, match="cards are thrown only in the discard|now you throw"):
        g.act(legal[0], cards="R")
    assert json.dumps(g.state(), sort_keys=True) == before
    with pytest.raises(MusError, match="the hand is not over"):
        g.next_hand()


def test_mano_moves_round_the_table_and_the_game_reaches_the_target():
    g = PracticeGame(seed=3, autoplay="paso", target=30, first_mano=0)
    manos = []
    while True:
        manos.append(g.mano)
        g.play_out(1)
        if g.game_over():
            break
        g.next_hand()
    assert manos[:5] == [0, 1, 2, 3, 0]
    assert max(g.score()) >= 30 and g.record.games[0].winner() in ("us", "them")
    with pytest.raises(MusError, match="over"):
        g.next_hand()


# ---------------------------------------------------------------------------- the review


def rrrr_hand(answer: str) -> dict:
    return {"you": "mano", "dealt": {"mano": "R R R 3", "second": "C C 5 4", "third": "S S 7 6",
                                     "postre": "7 6 5 A"},
            "mus": [{"seat": "mano", "action": "corto"}],
            "lances": {"grande": [{"seat": "mano", "action": "paso"}, {"seat": "second", "action": "envido 2"},
                                  {"seat": "third", "action": "no quiero"}, {"seat": "mano", "action": answer}]}}


def test_refusing_a_bet_with_rrrr_at_mano_in_grande_loses_at_least_3_stones():
    rec = load_history(history([rrrr_hand("no quiero")], unfinished=True))
    rows = review_hand(rec.hands()[0]).decisions
    refuse = rows[-1]
    assert refuse.action == "no quiero" and refuse.lance == "grande"
    opts = {o["action"]: o for o in refuse.options}
    assert opts["quiero"]["ev"] == pytest.approx(2.0) and opts["no quiero"]["ev"] == pytest.approx(-1.0)
    assert refuse.loss >= 3.0 - 1e-9
    # a raise can only gain more: refused it gives 2 at once, accepted 4 (no hand beats R R R R at mano)
    assert refuse.ev_best >= 2.0 - 1e-9


def test_an_equilibrium_action_loses_nothing():
    # R C 5 4 at mano opens grande: take the action the equilibrium plays most
    v = bet_options("R C 5 4", 0, "grande", (), (), None, "as-dealt")
    top = max(v["options"], key=lambda a: v["options"][a]["p"])
    h = {"you": "mano", "dealt": {"mano": "R C 5 4", "second": "7 7 6 A", "third": "S S 4 A", "postre": "C 6 6 5"},
         "mus": [{"seat": "mano", "action": "corto"}], "lances": {"grande": [{"seat": "mano", "action": top}]}}
    d = next(x for x in review_hand(load_history(history([h], unfinished=True)).hands()[0]).decisions
             if x.lance == "grande")
    assert d.action == top and d.loss == 0.0 and d.best is not None
    best = next(o for o in d.options if o["action"] == d.best)
    assert d.ev_best - d.ev <= 3 * (d.se + best["se"])  # its value is the best's, within the errors


def test_autoplay_equilibrium_loses_almost_nothing_and_paso_loses_much_more():
    eq = autoplay("equilibrium", hands=12, seed=5).review.summary()
    paso = autoplay("paso", hands=12, seed=5).review.summary()
    assert eq["decisions"] >= 30 and paso["decisions"] >= 30
    assert eq["mean_loss"] <= 0.01
    # paso never bets: on 12 hands it loses a few hundredths of a stone a decision (0.31 +- 0.08
    # on the longer run of docs/practice.md), the equilibrium next to nothing
    assert paso["mean_loss"] > max(0.03, eq["mean_loss"] + 0.03)


def test_a_mus_decision_that_changes_nothing_loses_nothing():
    h = worked_hand()
    h["you"] = "postre"
    h["mus"] = [{"seat": "mano", "action": "mus"}, {"seat": "second", "action": "corto"}]
    rec = load_history(history([h]))
    rows = review_hand(rec.hands()[0]).decisions
    assert all(d.lance != "mus" for d in rows)  # postre never spoke in the mus
    h["you"] = "mano"
    rows = review_hand(load_history(history([h])).hands()[0]).decisions
    mus = rows[0]
    assert mus.lance == "mus" and mus.loss == 0.0 and "second cut" in mus.note


# ---------------------------------------------------------------------------- the command line


def test_review_command_formats_and_bad_files(capsys, tmp_path):
    p = tmp_path / "g.json"
    h = worked_hand()
    p.write_text(json.dumps(history([h])), encoding="utf-8")
    code, out, err = run_cli(capsys, ["review", str(p), "--format", "json"])
    assert code == 0, err
    d = json.loads(out)
    assert d["review"]["decisions"] == 4 and d["rules"]["target"] == 40
    code, out, err = run_cli(capsys, ["review", str(p), "--format", "csv"])
    assert code == 0 and out.startswith("# ") and "game,hand,seat,lance" in out
    code, out, err = run_cli(capsys, ["review", str(p)])
    assert code == 0 and "Stones lost against the best action" in out and "count: us 5, them 6" in out
    bad = copy.deepcopy(h)
    bad["lances"]["chica"][2] = {"seat": "third", "action": "envido 3"}
    p.write_text(json.dumps(history([bad])), encoding="utf-8")
    code, out, err = run_cli(capsys, ["review", str(p)])
    check_one_line_error(code, out, err, "game 1, hand 1, chica action 3 (third envido 3): not legal in chica")
    code, out, err = run_cli(capsys, ["review", str(tmp_path / "none.json")])
    check_one_line_error(code, out, err, "no such file")


def test_play_autoplay_json(capsys, tmp_path):
    save = tmp_path / "auto.json"
    code, out, err = run_cli(capsys, ["play", "--autoplay", "paso", "--hands", "3", "--seed", "2", "--format", "json",
                                      "--save", str(save)])
    assert code == 0, err
    d = json.loads(out)
    r = d["review"]
    assert set(r) >= {"decisions", "mean_loss", "mean_loss_se", "by_lance"} and d["strategy"] == "paso"
    assert d["hands"] == 3 and load_history(save).hands()
    code, out, err = run_cli(capsys, ["play", "--autoplay", "nobody", "--hands", "3"])
    check_one_line_error(code, out, err, "unknown strategy set 'nobody'")
    code, out, err = run_cli(capsys, ["play", "--hands", "3"])
    check_one_line_error(code, out, err, "--hands is for --autoplay")


def _play_process(tmp_path, *args):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return interruptible([sys.executable, "-m", "musstats", "play", "--seed", "4", "--target", "30", *args],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=tmp_path, env=env)


def test_play_in_the_terminal_a_whole_game_then_its_review(tmp_path, capsys):
    p = _play_process(tmp_path, "--save", "g.json", "--no-review")
    out, err = p.communicate("1\n" * 3000, timeout=600)
    assert p.returncode == 0, err[-2000:]
    assert "The game is over" in out or "the game is over" in out, out[-2000:]
    rec = load_history(tmp_path / "g.json")
    assert rec.games[0].winner() in ("us", "them") and not rec.unfinished
    code, out2, err2 = run_cli(capsys, ["review", str(tmp_path / "g.json"), "--format", "json"])
    assert code == 0, err2
    assert json.loads(out2)["review"]["decisions"] > 0


def test_ctrl_c_saves_the_game_so_far(tmp_path):
    p = _play_process(tmp_path, "--save", "part.json")
    try:
        deadline = time.monotonic() + 120
        buf = ""
        while "stop) > " not in buf and time.monotonic() < deadline:  # the first prompt
            ch = p.stdout.read(1)
            if not ch:
                break
            buf += ch
        assert "stop) > " in buf, buf
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    assert "saved the game" in err and err.strip().endswith("musstats: interrupted")
    rec = load_history(tmp_path / "part.json")
    assert rec.unfinished and len(rec.hands()) == 1


def test_the_review_of_a_saved_game_is_the_same_every_time():
    g = PracticeGame(seed=21, autoplay="heuristic", match="series")
    g.play_out(3)
    a = review(load_history(g.history())).to_dict()
    b = review(load_history(json.loads(json.dumps(g.history())))).to_dict()
    assert a == b
    assert ROOT.is_dir()


def test_play_without_a_readable_input_is_one_clear_error(tmp_path, capsys):
    """Where the standard input cannot be read (here pytest's captured input), the interactive
    table ends with exit 2 and one clear line, and leaves no file behind."""
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        code, out, err = run_cli(capsys, ["play", "--seed", "3"])
    finally:
        os.chdir(cwd)
    assert code == 2 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("musstats: error: ") and "--autoplay" in lines[0], err
    assert list(tmp_path.iterdir()) == []
