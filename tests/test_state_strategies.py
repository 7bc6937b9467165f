"""Chica, pares and juego strategies solved per public state (who cut, the earlier lances' betting): how
they are kept and where they are played.

A strategy written by hand into a state file is read back exactly (its probabilities are
multiples of the kept steps); ``musstats hand`` bets by it in that public state and by the
strategy given who cut in any other; whole hands played by the set ``musstats hand`` plays
follow it in that state and only there; a later lance's public state weighs the ranges by it."""

from __future__ import annotations

import numpy as np
import pytest

from musstats.rules.variant import Variant

V = Variant()
CARDS = "R R 3 A"  # pares; mano cuts with it by the shipped cut law
HISTORY = "corto; grande: paso,paso,paso,paso; chica: paso,paso,paso,paso; pares mano+second"


def _pares_game(pattern: int, lance: str = "pares"):
    from musstats.engines.betting.specs import Spec

    return Spec(lance=lance, pattern=pattern, info="private", variant=V).game()


def _nodes(text: str, seat: int = 0, cards: str = CARDS) -> tuple[int, int]:
    from musstats.analysis.reading import parse_history
    from musstats.rules.cards import parse_hand
    from musstats.tables.hands import hand_tables

    h = parse_history(text, seat, hand_tables(V).index_of(parse_hand(cards)), V)
    by = {ln.lance: ln.node for ln in h.lances}
    return by["grande"], by["chica"]


@pytest.fixture
def state_file(tmp_path, monkeypatch):
    """Point the shipped per-state strategies at a file of the test's own."""
    from musstats.engines.betting import store

    monkeypatch.setattr(store, "states_path", lambda v, lance="pares": tmp_path / f"{lance}_states.npz")

    def write(entries, lance="pares"):
        store.write_states([(k, store.S.quantise(s, store.STATE_LEVELS)) for k, s in entries], {"iterations": 7},
                           tmp_path / f"{lance}_states.npz")
    return write


def test_a_state_strategy_is_read_back_in_its_steps(state_file):
    from musstats.engines.betting import store

    g = _pares_game(3)
    sigma = g.uniform()
    k = int(g.owner[0])
    b = g.block(sigma, 0)
    b[:, :] = 0.0
    b[:, 0], b[:, -1] = 0.25, 0.75  # multiples of 1/32: kept exactly
    state_file([((3, 0, 5, 6), sigma)])
    got = store.get_state_solved(V, (3, 0, 5, 6))
    assert got is not None and got.source == store.STATE_SOURCE and got.iterations == 7
    assert np.allclose(got.game.block(got.sigma, 0)[:, [0, -1]], [0.25, 0.75])
    assert got.game.block(got.sigma, 0)[:, 1:-1].sum() == 0.0
    assert int(got.game.owner[0]) == k
    assert store.get_state_solved(V, (3, 0, 5, 7)) is None and store.get_state_solved(V, (3, 1, 5, 6)) is None


def test_musstats_hand_bets_pares_by_the_state_strategy_only_in_its_state(state_file):
    from musstats.analysis.reading import hand

    g = _pares_game(3)
    sigma = g.uniform()
    b = g.block(sigma, 0)  # mano opens pares mano+second
    b[:, :] = 0.0
    b[:, -1] = 1.0  # the last action of the opening (the largest bet) with every hand
    gn, cn = _nodes(HISTORY)
    state_file([((3, 0, gn, cn), sigma)])
    r = hand(CARDS, "mano", history=HISTORY, samples=20_000, seed=3)
    acts = list(r.decision["actions"])
    assert r.decision["actions"][acts[-1]]["p"] == 1.0
    assert all(r.decision["actions"][a]["p"] == 0.0 for a in acts[:-1])
    assert "public state" in r.decision["source"]
    # another chica: no strategy ships for that state, so the one given who cut answers
    other = HISTORY.replace("chica: paso,paso,paso,paso", "chica: paso,paso,paso,envido 2,no quiero,no quiero")
    gn2, cn2 = _nodes(other)
    assert (gn2, cn2) != (gn, cn)
    r2 = hand(CARDS, "mano", history=other, samples=20_000, seed=3)
    assert "given who cut" in r2.decision["source"]
    assert r2.decision["actions"][acts[-1]]["p"] < 1.0


def test_whole_hands_follow_the_state_strategy_in_its_state_only(state_file):
    from musstats.analysis import whole_hand as W
    from musstats.analysis.public_states import public_states
    from musstats.engines.betting.tree import betting_tree

    before = W.simulate(100_000, 41, None, "mus-read", "equilibrium")
    states, cnt = public_states(before, 3)
    s = states[0]
    assert cnt[0] >= 20
    g = _pares_game(3)
    sigma = g.uniform()
    for node in range(int(g.tree.n_nodes)):
        if not g.tree.nodes[node].is_terminal:
            b = g.block(sigma, node)
            b[:, :] = 0.0
            b[:, 0] = 1.0  # paso everywhere
    state_file([((3, s.cutter, s.grande, s.chica), sigma)])
    after = W.simulate(100_000, 41, None, "mus-read", "equilibrium")
    t = betting_tree("pares", 3)
    node = 0
    while not t.nodes[node].is_terminal:
        node = t.nodes[node].children[0]
    pat = after.pattern["pares"] == 3
    assert np.array_equal(before.node["grande"], after.node["grande"])  # the lances before pares as before
    there = pat & ~after.mus & (after.cutter == s.cutter) & (after.node["grande"] == s.grande) & \
        (after.node["chica"] == s.chica)
    assert there.sum() == cnt[0]
    assert (after.node["pares"][there] == node).all()
    assert (before.node["pares"][there] != node).any()  # the set's own strategy bets there
    elsewhere = pat & ~there
    assert np.array_equal(before.node["pares"][elsewhere], after.node["pares"][elsewhere])


def _all_paso(g):
    sigma = g.uniform()
    for node in range(int(g.tree.n_nodes)):
        if not g.tree.nodes[node].is_terminal:
            b = g.block(sigma, node)
            b[:, :] = 0.0
            b[:, 0] = 1.0  # paso, or the first answer
    return sigma


def test_musstats_hand_bets_chica_by_its_state_strategy(state_file):
    from musstats.analysis.reading import hand

    history = "corto; grande: paso,paso,paso,paso; chica"
    g = _pares_game(15, "chica")
    sigma = g.uniform()
    b = g.block(sigma, 0)  # mano opens chica
    b[:, :] = 0.0
    b[:, 1] = 1.0
    gn = _nodes("corto; grande: paso,paso,paso,paso; chica: paso,paso,paso,paso")[0]
    state_file([((15, 0, gn, -1), sigma)], lance="chica")
    r = hand(CARDS, "mano", history=history, samples=20_000, seed=3)
    acts = list(r.decision["actions"])
    assert r.decision["lance"] == "chica" and r.decision["actions"][acts[1]]["p"] == 1.0
    assert "chica solved in this public state" in r.decision["source"]
    r2 = hand(CARDS, "mano", history="corto; grande: paso,paso,paso,envido 2,no quiero,no quiero; chica",
              samples=20_000, seed=3)
    assert "given who cut" in r2.decision["source"]


def test_a_pares_state_weighs_the_ranges_by_chicas_state_strategy(state_file):
    """Chica of (mano cut, grande en paso) shipped as paso at every node: in the pares states
    after it, each seat's chica factor is 1 with every hand where chica went en paso, and 0 for
    the seat who bet where chica did not (hand calculation), so the weights are the chica
    state's own (the cut and grande) or nothing."""
    from musstats.analysis.public_states import PublicState, range_weights
    from musstats.engines.betting.tree import betting_tree

    gn, cn = _nodes(HISTORY)  # chica en paso
    state_file([((15, 0, gn, -1), _all_paso(_pares_game(15, "chica")))], lance="chica")
    before = range_weights(PublicState(15, 0, gn, lance="chica"), V)
    after = range_weights(PublicState(3, 0, gn, cn), V)
    assert np.array_equal(before, after)
    t = betting_tree("chica", 15)
    bet = t.nodes[t.nodes[0].children[0]].children[1]  # mano paso, second bets
    while not t.nodes[bet].is_terminal:
        bet = t.nodes[bet].children[0]
    w = range_weights(PublicState(3, 0, gn, bet), V)
    assert not w[1].any() and np.array_equal(w[0], before[0])


JUEGO_HISTORY = "corto; grande: paso,paso,paso,paso; chica: paso,paso,paso,paso; pares mano+third; juego mano+second"


def _juego_key(pares: int) -> tuple[int, ...]:
    gn, cn = _nodes(JUEGO_HISTORY)
    return (3, 0, gn, cn, pares, -1)  # juego mano+second; pares not bet (one team declared it)


def test_musstats_hand_bets_juego_by_its_state_strategy(state_file):
    """Juego's public state holds the pares declarations: a strategy shipped for the state where
    mano and third declared pares is played there, and not where mano alone did."""
    from musstats.analysis.reading import hand

    g = _pares_game(3, "juego")
    sigma = g.uniform()
    b = g.block(sigma, 0)  # mano opens juego mano+second
    b[:, :] = 0.0
    b[:, -1] = 1.0
    state_file([(_juego_key(5), sigma)], lance="juego")  # pares: mano (bit 0) + third (bit 2)
    r = hand(CARDS, "mano", history=JUEGO_HISTORY, samples=20_000, seed=3)
    acts = list(r.decision["actions"])
    assert r.decision["lance"] == "juego" and r.decision["actions"][acts[-1]]["p"] == 1.0
    assert "juego solved in this public state" in r.decision["source"]
    assert "pares declarations" in r.decision["source"]
    r2 = hand(CARDS, "mano", history=JUEGO_HISTORY.replace("pares mano+third", "pares mano"), samples=20_000, seed=3)
    assert "given who cut" in r2.decision["source"]
    assert r2.decision["actions"][acts[-1]]["p"] < 1.0


def test_whole_hands_follow_the_juego_state_strategy_in_its_state_only(state_file):
    from musstats.analysis import whole_hand as W
    from musstats.analysis.public_states import public_states
    from musstats.engines.betting.tree import betting_tree

    before = W.simulate(100_000, 41, None, "mus-read", "equilibrium")
    states, cnt = public_states(before, 3, "juego")
    s = states[0]
    assert cnt[0] >= 20 and len(s.store_key()) == 6
    state_file([(s.store_key(), _all_paso(_pares_game(3, "juego")))], lance="juego")
    after = W.simulate(100_000, 41, None, "mus-read", "equilibrium")
    t = betting_tree("juego", 3)
    node = 0
    while not t.nodes[node].is_terminal:
        node = t.nodes[node].children[0]
    for x in ("grande", "chica", "pares"):  # the lances before juego as before
        assert np.array_equal(before.node[x], after.node[x])
    there = (after.pattern["juego"] == 3) & ~after.mus & (after.cutter == s.cutter) & \
        (after.node["grande"] == s.grande) & (after.node["chica"] == s.chica) & (after.pares == s.pares) & \
        (after.node["pares"] == s.pares_node)
    assert there.sum() == cnt[0]
    assert (after.node["juego"][there] == node).all()
    assert (before.node["juego"][there] != node).any()  # the set's own strategy bets there
    elsewhere = (after.pattern["juego"] == 3) & ~there
    assert np.array_equal(before.node["juego"][elsewhere], after.node["juego"][elsewhere])


def test_a_public_state_solved_with_its_ranges_is_less_exploitable(state_file):
    """Pares mano+second after a cut by mano and grande and chica en paso: the strategy given who
    cut, which reads nothing of the earlier lances, leaves each seat's best response a gain in
    the range-weighted game; DCFR on that game (300 iterations) cuts the summed gain to under a
    third, measured on samples apart from those the responses are chosen on."""
    from musstats.analysis.public_states import PublicState, resolve_state, state_exploitability

    gn, cn = _nodes(HISTORY)
    s = PublicState(3, 0, gn, cn)
    before = sum(state_exploitability(s, V, n_eval=4000, seed=3)["gains"])
    strat, after = resolve_state(s, V, iterations=300, n_eval=4000, seed=3)
    assert before > 0.1
    assert sum(after["gains"]) < before / 3
    assert strat.sigma.shape == (_pares_game(3).n_slots,)
