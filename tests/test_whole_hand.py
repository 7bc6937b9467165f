"""Whole hands as the table sees them (musstats.analysis.whole_hand): the mus phase and the
lances' public history recorded as the rules say, and what reading it is worth."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from musstats.rules.variant import Variant
from tests.test_state_strategies import _all_paso as _first_action  # paso, or the first answer, everywhere


@pytest.fixture(scope="module")
def hands():
    from musstats.analysis.whole_hand import simulate

    return simulate(20_000, 3)


def test_the_mus_phase_is_recorded_as_the_rules_say(hands):
    """From mano, the first seat whose hand the cut flags cut with ends the mus; only when all
    four ask is the round played, each seat taking 4 minus the cards the discard table keeps;
    after a cut the hands are played as dealt."""
    from musstats.tables.policies import cut_flags, get_policy

    v = Variant()
    flags = cut_flags(v)
    pol, _ = get_policy("table", v)
    h = hands
    for i in range(0, h.n, 97):
        cuts = [bool(flags[q, h.dealt[i, q]]) for q in range(4)]
        want = cuts.index(True) if any(cuts) else -1
        assert h.cutter[i] == want and h.mus[i] == (want < 0)
        if h.mus[i]:
            assert all(h.counts[i, q] == 4 - bin(int(pol[q, h.dealt[i, q]])).count("1") for q in range(4))
            assert all(1 <= h.counts[i, q] <= 4 for q in range(4))
        else:
            assert (h.counts[i] == 0).all() and (h.final[i] == h.dealt[i]).all()
    assert 0.05 < h.mus.mean() < 0.2  # most hands are cut (the shipped flags)


def test_lance_classes_name_the_first_bettor_and_the_end():
    """A lance's class: en paso 0; who bet first (1 + seat) when the bet was refused, (5 + seat)
    when it was seen."""
    from musstats.analysis.whole_hand import lance_classes
    from musstats.engines.betting.tree import betting_tree

    t = betting_tree("grande")
    cls = lance_classes(t)
    n = t.parse_history("paso,paso,paso,paso")
    assert cls[n] == 0
    n = t.parse_history("paso,envido 2,no quiero,no quiero")  # second bets, third and mano refuse
    assert t.nodes[n].is_terminal and cls[n] == 1 + 1
    n = t.parse_history("envido 2,quiero")  # mano bets, second sees it
    assert cls[n] == 5 + 0
    n = t.parse_history("paso,paso,envido 2,no quiero,+2,no quiero,no quiero")  # third bets, postre raises
    assert cls[n] == 1 + 2


def test_an_accepted_ordago_ends_the_hand(hands):
    """After an accepted órdago no later lance is played."""
    from musstats.analysis.whole_hand import LANCE_ORDER

    h = hands
    assert (h.ended >= 0).any()
    for li, lance in enumerate(LANCE_ORDER):
        later = h.ended < li
        assert (h.pattern[lance][later & (h.ended >= 0)] == -1).all()


def test_reading_classes_read_only_what_is_public(hands):
    """The mus round in the lowest bit; who cut, or the others' numbers of cards; a reader's
    own count is not part of his class (he knows it)."""
    from musstats.analysis.whole_hand import reading_classes

    h = hands
    c, n = reading_classes(h, "chica", "mus", 0)
    assert n % 2 == 0 and ((c % 2) == h.mus).all()
    # hands with the same public mus history share a class
    key = [(int(h.cutter[i]), tuple(int(x) for x in h.counts[i, 1:])) for i in range(h.n)]
    seen: dict = {}
    for i, k in enumerate(key):
        assert seen.setdefault(k, c[i]) == c[i]


def test_reading_gain_is_never_negative_in_sample(hands):
    """A best response chosen on a sample never does worse than the strategy on that sample, nor
    does one that keeps the strategy where it gains less than a gate; the gate is one of those
    tried."""
    from musstats.analysis.whole_hand import reading_gain, simulate

    from musstats.analysis.whole_hand import GATES

    b = simulate(20_000, 4)
    r = reading_gain("chica", "mus", hands, b, seat=3)
    assert r["gain_in"] >= -1e-12 and r["gain_se"] > 0
    assert r["gate"] in GATES


def test_the_whole_hand_figures_add_each_readers_best_source_floored_at_zero():
    """NashConv per hand: per lance and reader the source whose response gains most, a negative
    lower bound counting as zero (a reader's gain is never negative), summed over the seats and
    the lances, the standard errors of the rows above zero in quadrature; a pair's gain the
    same over its rows (hand calculation on a made-up table)."""
    import pandas as pd

    from musstats.analysis.whole_hand import exploitability_document

    rows = []
    seat_gain = {("grande", "mus"): [-0.05, 0.02, 0.03, 0.04],  # mano's bound is negative: 0
                 ("chica", "mus"): [0.01, 0.30, 0.01, 0.01],  # second gains most reading the mus
                 ("chica", "lances"): [0.02, 0.02, 0.02, 0.02],
                 ("chica", "all"): [0.10, 0.20, -0.30, 0.40]}  # third: his lances' 0.02
    for (lance, src), gains in seat_gain.items():
        for who, g in zip(("mano", "second", "third", "postre"), gains):
            rows.append({"lance": lance, "source": src, "reader": who, "kind": "seat", "gain": g,
                         "gain_se": 0.01, "gain_in": 2 * g})
        for who, g in (("mano+third", 0.3 if src != "lances" else 0.5), ("second+postre", -0.2)):
            rows.append({"lance": lance, "source": src, "reader": who, "kind": "team", "gain": g,
                         "gain_se": 0.02, "gain_in": g})
    df = pd.DataFrame(rows)
    df.attrs.update({"variant": "8-reyes", "hands": 10, "seed": 1, "method": "m"})
    d = exploitability_document(df)
    # grande 0 + 0.02 + 0.03 + 0.04; chica 0.10 + 0.30 + 0.02 + 0.40
    assert d["nashconv"] == pytest.approx(0.09 + 0.82)
    assert d["nashconv_se"] == pytest.approx(np.sqrt(7) * 0.01, abs=1e-4)
    assert d["team_gain"] == [pytest.approx(0.3 + 0.5), 0.0]
    assert d["team_gain_se"] == [pytest.approx(np.sqrt(2) * 0.02, abs=1e-4), 0.0]
    assert d["team_lances"] == [["grande", "chica"], ["grande", "chica"]]
    assert d["by_source"]["all"]["gain"] == pytest.approx(0.7)
    assert d["baseline_nashconv"] == d["nashconv"]
    # a baseline table: its own sum, here every gain halved (grande 0.045, chica 0.41)
    df.attrs["strategies"] = "mus-read"
    d = exploitability_document(df, df.assign(gain=df.gain / 2))
    assert d["baseline_nashconv"] == pytest.approx((0.09 + 0.82) / 2) and d["nashconv"] == pytest.approx(0.91)
    from musstats.output.render import render_whole_hand

    text = render_whole_hand(d)
    assert "(the baseline): 0.455" in text and "0.910" in text
    # rows without a gate are plain best responses, and the text says their bound is looser
    assert "plain best responses" in text
    d["rows"] = [{**r, "gate": 1e-4 if r["kind"] == "seat" else None} for r in d["rows"]]
    assert "plain best responses" not in render_whole_hand(d)
    # rows measured again take the place of the document's rows of the same lance, source and reader
    from musstats.analysis.whole_hand import with_rows
    from musstats.base.errors import MusError

    again = df[(df.lance == "chica") & (df.source == "all") & df.reader.isin(["second", "postre"])]
    again = again.assign(gain=[0.05, 0.0])
    again.attrs.update(df.attrs)
    e = with_rows(d, again)
    # chica now: mano 0.10 (all), second 0.30 (mus), third 0.02 and postre 0.02 (lances)
    assert e["nashconv"] == pytest.approx(0.09 + 0.44)
    assert e["by_source"]["all"]["gain"] == pytest.approx(0.10 + 0.05)
    assert e["team_gain"] == d["team_gain"] and e["baseline_nashconv"] == d["baseline_nashconv"]
    assert len(e["rows"]) == len(d["rows"]) and d["nashconv"] == pytest.approx(0.91)
    again.attrs["seed"] = 2  # other hands: not the document's rows
    with pytest.raises(MusError, match="seed 2"):
        with_rows(d, again)


def test_hand_exploitability_prints_the_shipped_whole_hand_figures(capsys):
    import json

    from helpers import run_cli

    code, out, err = run_cli(capsys, ["hand", "--exploitability", "--format", "json"])
    assert code == 0, err
    d = json.loads(out)
    for key in ("nashconv", "nashconv_se", "team_gain", "team_gain_se", "baseline_nashconv", "baseline_nashconv_se"):
        assert key in d
    # the figures of the strategies musstats hand bets by, beside the per-lance ones on the same hands: reading
    # who cut gains against the per-lance strategies, which read nothing, and less against those that read it
    assert "musstats hand bets by" in d["strategies"] and d["baseline"] != d["strategies"]
    assert d["baseline_nashconv"] > 10 * d["baseline_nashconv_se"]
    assert d["nashconv"] < d["baseline_nashconv"] - 3 * (d["nashconv_se"] + d["baseline_nashconv_se"])
    code, out, _ = run_cli(capsys, ["hand", "--exploitability"])
    assert code == 0 and "Reading the whole hand" in out


def test_a_reader_of_everything_has_at_most_max_classes(hands):
    """Juego read through everything before it: the rarest histories merge so that a reader's
    classes stay within the cap asked for; the mus round stays in the lowest bit, and the most
    frequent histories keep a class of their own."""
    import musstats.analysis.whole_hand as W

    cls, n = W.reading_classes(hands, "juego", "all", 0, max_classes=64)
    assert n == 64 and cls.max() < 64
    assert ((cls & 1) == hands.mus).all()
    counts = np.bincount(cls >> 1, minlength=32)
    assert counts[31] >= counts[:31].max()  # the merged rest holds the many rare histories


def test_the_cut_deals_and_the_mus_read_states_name_who_cut():
    """The deal model ``cut`` holds the hands played as dealt: in every deal a seat cuts, and
    the mus-read state of each seat is his lance state x 4 + the first seat from mano whose
    hand the cut law of that model (shipped beside the strategies, read here from the file)
    cuts with (checked by a loop over the seats)."""
    from musstats.base.errors import MusError
    from musstats.base.files import DATA_DIR
    from musstats.engines.betting import deals as D
    from musstats.engines.betting.info import prepare
    from musstats.engines.betting.specs import Spec

    v = Variant()
    flags = np.load(DATA_DIR / "cut_betting_8-reyes_off.npz")["flags"].astype(bool)
    d = D.cut_deals(3000, 7, v)
    spec = Spec(lance="chica", deal="cut", info="mus-read", variant=v)
    plain = Spec(lance="chica", variant=v)
    st, _, _ = prepare(spec.game(), d, v, "chica")
    st0, _, _ = prepare(plain.game(), d, v, "chica")
    for i in range(0, 3000, 37):
        first = next(q for q in range(4) if flags[q, d[i, q]])
        assert (st[i] == st0[i] * 4 + first).all()
    assert int(spec.game().n_states[0]) == 4 * int(plain.game().n_states[0])
    with pytest.raises(MusError, match="go together"):
        Spec(lance="chica", deal="as-dealt", info="mus-read", variant=v)


def test_reading_classes_of_the_mus_read_set_carry_who_cut(hands):
    """With the strategies that read who cut, every reader's class carries it in its lowest
    place (4 for a mus round), whatever he reads beyond it."""
    from musstats.analysis.whole_hand import mus_class, reading_classes

    base, B = mus_class(hands, "mus-read")
    assert B == 5 and ((base == 4) == hands.mus).all() and (base[~hands.mus] == hands.cutter[~hands.mus]).all()
    for src in ("mus", "lances", "all"):
        cls, n = reading_classes(hands, "chica", src, 1, "mus-read")
        assert (cls % 5 == base).all() and n % 5 == 0 and cls.max() < n


def _walk(g, sig, st, o, n, value=None):
    """Team 0's expected payoff from node ``n`` (or, with ``value``, the expected ``value[node]``
    of the terminal reached), every owner by his own ``sig`` at his own state."""
    t = g.tree
    if t.is_term[n]:
        return float(g.U[t.term[n], o]) if value is None else float(value[n])
    q = int(g.owner[n])  # private: owner q is seat q
    p = g.strategy_at(sig[q], n, int(st[q]))
    return sum(p[a] * _walk(g, sig, st, o, int(t.first[n]) + a, value) for a in range(int(t.n_act[n])))


def _brute(sub, v, lances=None, replace=None, value=None):
    """Per hand of ``sub`` and seating (the set that reads who cut at team 0, then at team 1, the
    per-lance set at the other), the exact walk of each lance (of ``lances``) summed: every seat
    looks up its own set's shipped strategy for its own state (the hand, and for the cut
    strategies the seat that cut; where correlated plans ship, the per-lance set's pair plays each
    plan by its weight); ``replace(lance, i, game)``: a strategy the mus-read seats play instead
    in that lance of hand ``i`` (None: their own); ``value``: per lance, a value per node to
    average instead of the payoff."""
    from musstats.analysis.betting import played_profiles, played_strategy
    from musstats.engines.betting import deals as D
    from musstats.engines.betting.info import prepare

    want = np.zeros((sub.n, 2))
    for lance, _, _, subs in D.lance_parts(sub.final, v):
        if lances is not None and lance not in lances:
            continue
        for pat, sel in subs:
            for i in sel:
                deal = "after-mus" if sub.mus[i] else "as-dealt"
                sols = {x: played_strategy(lance, int(pat), deal, v, read_cut=x == "mus-read")
                        for x in ("mus-read", "per-lance")}
                # the seat that cut in this hand (its mus phase cut by the flags), not the one the law
                # the strategies were solved on would name
                states = {x: prepare(s.game, sub.final[[i]], v, lance, None if sub.mus[i] else int(sub.cutter[i]))[0][0]
                          for x, s in sols.items()}
                o = int(prepare(sols["per-lance"].game, sub.final[[i]], v, lance)[1][0])
                mine = replace(lance, int(i), sols["mus-read"].game) if replace is not None else None
                # where correlated plans ship, the per-lance set's pairs play each pair of plans (one
                # per team that plays them) by the product of their weights; a lone holder's
                # strategy is the same in every plan
                base, mix = played_profiles(sols["per-lance"])
                for col, first in enumerate(("mus-read", "per-lance")):
                    plays = [first if q % 2 == 0 else ({"mus-read", "per-lance"} - {first}).pop() for q in range(4)]
                    st = [states[x][q] for q, x in enumerate(plays)]
                    # every seat's strategy from its own set: the walk looks up each owner's own sigma
                    seat_game = _SeatGame(sols[plays[0]].game, [sols[x].game for x in plays])
                    teams = [tm for tm in sorted(mix) if plays[tm] == "per-lance"]
                    for js in itertools.product(*(range(mix[tm][1].size) for tm in teams)):
                        plan = dict(zip(teams, js))
                        wj = float(np.prod([mix[tm][1][j] for tm, j in plan.items()]))
                        sig = [(mix[q % 2][0][plan[q % 2]] if q % 2 in plan else base) if x == "per-lance"
                               else (sols[x].sigma if mine is None else mine) for q, x in enumerate(plays)]
                        want[i, col] += wj * _walk(seat_game, sig, st, o, 0, None if value is None else value[lance])
    return want


def test_hand_scores_bet_each_hand_by_each_sets_own_strategies(hands, monkeypatch):
    """Each hand's score with the strategies that read who cut at one team and the per-lance
    ones at the other equals an exact walk of each lance's tree in which every seat looks up its
    own set's shipped strategy for its own state (the hand, and for the cut strategies the seat
    that cut; where correlated plans ship, the per-lance set's pair plays each plan by its
    weight); the two seatings differ, and a set against itself scores 0.  (No strategy solved per
    public state here: the next tests play them.)"""
    from musstats.analysis.whole_hand import hand_scores
    from musstats.engines.betting import store

    monkeypatch.setattr(store, "state_keys", lambda v, lance="pares": {})
    v = Variant()
    h = hands
    idx = np.r_[np.nonzero(h.mus)[0][:6], np.nonzero(~h.mus)[0][:18]]
    sub = type(h)(*(getattr(h, f)[idx] for f in ("dealt", "final", "mus", "cutter", "counts", "pares", "juego")))
    got = hand_scores(sub, "mus-read", "per-lance", v)
    want = _brute(sub, v)
    np.testing.assert_allclose(got, want, atol=1e-9)
    assert np.abs(got[:, 0] - got[:, 1]).max() > 1e-3  # who sits where matters
    same = hand_scores(sub, "per-lance", "per-lance", v)
    np.testing.assert_allclose(same[:, 0], same[:, 1], atol=1e-12)


@pytest.fixture
def chica_states(tmp_path, monkeypatch):
    """Chica strategies of the test's own for public states (cutter, grande's terminal node):
    ``write(nodes)`` ships the first action everywhere for every cutter and each of ``nodes``."""
    from musstats.engines.betting import store
    from musstats.engines.betting.specs import Spec

    monkeypatch.setattr(store, "states_path", lambda v, lance="pares": tmp_path / f"{lance}_states.npz")
    g = Spec(lance="chica", pattern=15, info="private", variant=Variant()).game()

    def write(nodes):
        q = store.S.quantise(_first_action(g), store.STATE_LEVELS)
        store.write_states([((15, c, int(n), -1), q) for c in range(4) for n in nodes], {"iterations": 1},
                           tmp_path / "chica_states.npz")
    return write


def _sub(h, idx):
    return type(h)(*(getattr(h, f)[idx] for f in ("dealt", "final", "mus", "cutter", "counts", "pares", "juego")))


def test_hand_scores_play_a_state_strategy_where_it_ships(hands, chica_states):
    """Where every chica state (each seat that cut, each of grande's terminals) ships the first
    action everywhere, the hands as dealt are bet in chica with the mus-read seats passing (or
    refusing) whatever happened in grande, the per-lance seats by their own: the exact walk with
    that strategy; the hands after a mus round, and the other lances, as before."""
    from musstats.analysis.whole_hand import hand_scores
    from musstats.engines.betting.tree import betting_tree

    v = Variant()
    t = betting_tree("grande", 15)
    chica_states([n for n in range(t.n_nodes) if t.nodes[n].is_terminal])
    h = hands
    sub = _sub(h, np.r_[np.nonzero(h.mus)[0][:3], np.nonzero(~h.mus)[0][:9]])
    got = hand_scores(sub, "mus-read", "per-lance", v)
    want = _brute(sub, v, replace=lambda lance, i, g: _first_action(g) if lance == "chica" and not sub.mus[i] else None)
    np.testing.assert_allclose(got, want, atol=1e-9)
    own = _brute(sub, v, lances=("chica",))
    mine = _brute(sub, v, lances=("chica",), replace=lambda lance, i, g: _first_action(g))
    assert np.abs(own - mine)[~sub.mus].max() > 0.1  # the state strategy is not the set's own


def test_hand_scores_draw_the_earlier_lances_that_decide_the_state(hands, chica_states):
    """Where only the chica states after grande en paso ship (the first action everywhere), a
    hand as dealt is bet in chica by that strategy as often as its seating reaches grande's en
    paso: over 3,000 copies of a hand, the mean chica score is P(en paso) x the state's value +
    (1 - P) x the set's own, P and both values from exact walks; within 4 standard errors."""
    from musstats.analysis.whole_hand import hand_scores
    from musstats.engines.betting.tree import betting_tree

    v = Variant()
    t = betting_tree("grande", 15)
    node = 0
    while not t.nodes[node].is_terminal:
        node = t.nodes[node].children[0]  # paso, paso, paso, paso
    chica_states([node])
    h = hands
    # hands as dealt that hold no pares and no juego: only grande, chica and punto are bet
    quiet = np.nonzero(~h.mus & (h.pares == 0) & (h.juego == 0))[0][:3]
    reps = 3000
    sub = _sub(h, np.repeat(quiet, reps))
    got = hand_scores(sub, "mus-read", "per-lance", v, seed=9)
    one = _sub(h, quiet)
    paso = np.zeros(t.n_nodes)
    paso[node] = 1.0
    p = _brute(one, v, lances=("grande",), value={"grande": paso})
    fixed = _brute(one, v, lances=("grande", "punto"))
    own = _brute(one, v, lances=("chica",))
    state = _brute(one, v, lances=("chica",), replace=lambda lance, i, g: _first_action(g))
    want = fixed + p * state + (1 - p) * own
    assert ((p > 0.05) & (p < 0.95)).any()  # the draw matters for some hand and seating
    for k in range(quiet.size):
        x = got[k * reps: (k + 1) * reps]
        se = x.std(axis=0, ddof=1) / np.sqrt(reps)
        assert (np.abs(x.mean(axis=0) - want[k]) <= 4 * se + 1e-9).all(), (k, x.mean(axis=0), want[k], se)


class _SeatGame:
    """A lance's tree whose seat ``q`` looks its strategy up in ``games[q]`` (each set's own
    game, the same tree)."""

    def __init__(self, g, games):
        self.tree, self.U, self.owner, self._games = g.tree, g.U, g.owner, games

    def strategy_at(self, sigma, node, state):
        return self._games[int(self.owner[node])].strategy_at(sigma, node, state)


def test_the_inputs_digest_reads_arrays_not_how_a_file_is_compressed(tmp_path, monkeypatch):
    """What simulated hands are keyed by changes with a shipped file's arrays, not with how the
    file is compressed (a file rewritten LZMA-compressed keeps every cached measurement)."""
    from musstats.analysis.whole_hand import _inputs_digest
    from musstats.base import files

    v = Variant()
    monkeypatch.setattr(files, "DATA_DIR", tmp_path)
    path = tmp_path / f"plans_{v.deck}_{v.juego_real}_as-dealt_private.npz"
    arrays = {"pares-7.sigma": np.arange(200, dtype=np.uint8).reshape(2, 100), "pares-7.weights": np.ones(2) / 2}
    files.write_npz(path, arrays, "zlib")
    first = _inputs_digest(v, code=False)
    files.write_npz(path, arrays, "lzma")
    assert _inputs_digest(v, code=False) == first
    files.write_npz(path, {**arrays, "pares-7.weights": np.array([0.25, 0.75])}, "lzma")
    assert _inputs_digest(v, code=False) != first


def test_the_sampled_rows_leave_the_hands_a_shipped_state_strategy_bets(hands, monkeypatch):
    """A sampled response's game holds the set's strategies given who cut, so the hands as dealt
    whose public state ships a strategy of the lance are left out of it (the exact history
    measures them); the hands after a mus round, and those of a state with none, stay."""
    from musstats.analysis import whole_hand as W
    from musstats.engines.betting import store

    v = Variant()
    pats, counts = np.unique(hands.pattern["pares"][hands.pattern["pares"] >= 0], return_counts=True)
    pat = int(pats[np.argmax(counts)])
    part = np.nonzero(hands.pattern["pares"] == pat)[0]
    cols = W.state_columns(hands, part, "pares", pat)
    dealt = ~np.asarray(hands.mus[part], bool)
    # ship the public state of the most frequent hand as dealt (each hand checked one by one)
    keys, n = np.unique(cols[dealt], axis=0, return_counts=True)
    key = tuple(int(x) for x in keys[np.argmax(n)])
    monkeypatch.setattr(store, "state_keys", lambda v, lance="pares": {key: 0})
    same = np.array([tuple(int(x) for x in c) == key for c in cols]) & dealt
    assert same.sum() == n.max() >= 20 and (~dealt).any()
    kept = W.outside_shipped(hands, part, "pares", pat, v)
    assert kept.tolist() == part[~same].tolist()
    monkeypatch.setattr(store, "state_keys", lambda v, lance="pares": {})
    assert W.outside_shipped(hands, part, "pares", pat, v).tolist() == part.tolist()
