"""The betting equilibrium engine: solver, best response, tree, payoffs, API.

Expected values are derived by hand in the comments (Kuhn poker's value, the toy
bluffing game's equilibrium, the stones of the rules' worked example), never copied
from program output.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from musstats.base.errors import MusError
from musstats.engines.solving.cfr import SolveConfig, solve
from musstats.engines.solving.dealt import DealGame, deal_values
from musstats.engines.solving.exploit import best_response as response_block
from musstats.engines.solving.exploit import measure, ratio
from musstats.rules.variant import Variant
from musstats.engines.solving.game import Sample, chunk_bounds, make_custom_game


def solve_game(g, data, iterations: int, scheme: str = "dcfr-simultaneous"):
    """The framework's driver on a game whose deals are enumerated."""
    return solve(DealGame(g, data), SolveConfig.preset(scheme, iterations))


def exploitability(g, sigma, data):
    return measure(DealGame(g, data), sigma, team=False)


def best_response(g, sigma, st, o, w, k) -> float:
    """The value for owner k's team of k's best response (the framework's), exactly."""
    dg = DealGame(g, (st, o, w))
    SIG = dg.layout.from_game(sigma)
    dev = dg.layout.with_rows(SIG, k, response_block(dg, k, SIG))
    return ratio(*dg.sample_values(k, dev, Sample()), exact=True)[0]


# ---------------------------------------------------------------------------
# toy games


def kuhn():
    """Kuhn poker: cards J Q K (0 1 2), ante 1; player 0 checks or bets 1, ...

    Nodes (children contiguous): 0 P0 [check, bet]; 1 P1 after check [check, bet]; 2 P1 after
    bet [fold, call]; 3 showdown +-1; 4 P0 after check-bet [fold, call]; 5 P1 folds: +1;
    6 showdown +-2; 7 P0 folds: -1; 8 showdown +-2.  Outcome 1 = player 0's card is higher.
    """
    tree = dict(is_term=[0, 0, 0, 1, 0, 1, 1, 1, 1], first=[1, 3, 5, -1, 7, -1, -1, -1, -1],
                n_act=[2, 2, 2, 0, 2, 0, 0, 0, 0], term=[-1, -1, -1, 0, -1, 1, 2, 3, 2],
                owner=[0, 1, 1, -1, 0, -1, -1, -1, -1])
    U = np.array([[-1, 1], [1, 1], [-2, 2], [-1, -1]], float)
    g = make_custom_game(tree, U, [0, 1], [3, 3])
    deals = list(itertools.permutations(range(3), 2))
    st = np.array(deals, np.int32)
    o = (st[:, 0] > st[:, 1]).astype(np.int32)
    return g, (st, o, np.full(6, 1 / 6))


def bluff_game():
    """A Mus-like lance with two hand classes.  Player 0 (mano) holds the best hand (state 0)
    or the worst (state 1), each with probability 1/2; player 1 holds one class.  Player 0
    passes (1 stone to the better hand, en paso) or bets 2; player 1 refuses (deje: 1 to
    player 0) or accepts (2 to the better hand).

    By hand: the strong hand always bets.  Player 1 calls with y making the weak hand
    indifferent: paso -1 = bet (1 - y) - 2 y, so y = 2/3.  The weak hand bluffs with x making
    player 1 indifferent: refuse -1 = call 2 (x - 1) / (1 + x), so x = 1/3.  Value for
    player 0: (1/2)(2/3 * 2 + 1/3 * 1) + (1/2)(-1) = 1/3.
    """
    tree = dict(is_term=[0, 1, 0, 1, 1], first=[1, -1, 3, -1, -1], n_act=[2, 0, 2, 0, 0],
                term=[-1, 0, -1, 1, 2], owner=[0, -1, 1, -1, -1])
    U = np.array([[-1, 1], [1, 1], [-2, 2]], float)  # paso, refused, accepted; column 1 = p0 best
    g = make_custom_game(tree, U, [0, 1], [2, 1])
    st = np.array([[0, 0], [1, 0]], np.int32)
    o = np.array([1, 0], np.int32)
    return g, (st, o, np.array([0.5, 0.5]))


def test_kuhn_value_and_exploitability():
    g, data = kuhn()
    e = {}
    for it in (50, 2000):
        s = solve_game(g, data, it)
        e[it] = exploitability(g, s.sigma, data)
    assert e[2000].exact
    assert abs(e[2000].value - (-1 / 18)) < 0.004
    assert e[2000].nashconv < 0.01
    assert e[2000].nashconv < e[50].nashconv  # exploitability decreases with iterations


def test_bluff_game_equilibrium_by_hand():
    g, data = bluff_game()
    s = solve_game(g, data, 3000)
    e = exploitability(g, s.sigma, data)
    assert abs(e.value - 1 / 3) < 0.01
    bet_strong = g.strategy_at(s.sigma, 0, 0)[1]
    bluff = g.strategy_at(s.sigma, 0, 1)[1]
    call = g.strategy_at(s.sigma, 2, 0)[1]
    assert bet_strong > 0.98
    assert abs(bluff - 1 / 3) < 0.03
    assert abs(call - 2 / 3) < 0.03
    assert e.nashconv < 0.01


def test_best_response_matches_brute_force():
    """Player 1's best response in Kuhn poker against a fixed mixed strategy of player 0
    equals the best of his 2^6 pure strategies, each valued by enumerating the deals."""
    g, (st, o, w) = kuhn()
    rng = np.random.default_rng(5)
    sigma = g.uniform()
    for n in (0, 4):
        blk = g.block(sigma, n)
        p = rng.uniform(0.1, 0.9, size=3)
        blk[:, 0], blk[:, 1] = p, 1 - p
    br_value = best_response(g, sigma, st, o, w, 1)
    best = -np.inf
    for pure in itertools.product((0, 1), repeat=6):
        sig = sigma.copy()
        for i, n in enumerate((1, 2)):
            blk = g.block(sig, n)
            for card in range(3):
                a = pure[3 * i + card]
                blk[card] = (1.0 - a, float(a))
        val = -(deal_values(g, sig, st, o) * w).sum()  # player 1's team utility
        best = max(best, val)
    assert br_value == pytest.approx(best, abs=1e-12)


def kuhn_with_raise():
    """Kuhn poker where player 0, facing a bet after his check, may also raise by 1, and
    player 1 then folds or calls: a decision node (9) below another one (4), so that a
    node can be out of reach of both players *above* it.

    Nodes: 0 P0 [check, bet]; 1 P1 after check [check, bet]; 2 P1 after bet [fold, call];
    3 showdown +-1; 4 P0 after check-bet [fold, call, raise]; 5 P1 folds +1; 6 showdown +-2;
    7 P0 folds -1; 8 showdown +-2; 9 P1 after the raise [fold, call]; 10 P1 folds +2;
    11 showdown +-3.  Returns the game, its enumerated deals and each player's nodes."""
    tree = dict(is_term=[0, 0, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1], first=[1, 3, 5, -1, 7, -1, -1, -1, -1, 10, -1, -1],
                n_act=[2, 2, 2, 0, 3, 0, 0, 0, 0, 2, 0, 0], term=[-1, -1, -1, 0, -1, 1, 2, 3, 2, -1, 4, 5],
                owner=[0, 1, 1, -1, 0, -1, -1, -1, -1, 1, -1, -1])
    U = np.array([[-1, 1], [1, 1], [-2, 2], [-1, -1], [2, 2], [-3, 3]], float)
    g = make_custom_game(tree, U, [0, 1], [3, 3])
    st = np.array(list(itertools.permutations(range(3), 2)), np.int32)
    o = (st[:, 0] > st[:, 1]).astype(np.int32)
    return g, (st, o, np.full(6, 1 / 6)), {0: (0, 4), 1: (1, 2, 9)}


def _sparse_sigma(g, nodes, seed: int) -> np.ndarray:
    """A strategy in which many actions have probability exactly 0 (as in a shipped
    strategy, quantised to 1/255): so that some nodes are out of reach of both players."""
    rng = np.random.default_rng(seed)
    sigma = g.uniform()
    for n in sorted(nodes[0] + nodes[1]):
        blk = g.block(sigma, n)
        for card in range(blk.shape[0]):
            p = rng.uniform(0.1, 1.0, blk.shape[1]) * (rng.uniform(size=blk.shape[1]) < 0.6)
            if p.sum() == 0:
                p[int(rng.integers(blk.shape[1]))] = 1.0
            blk[card] = p / p.sum()
    return sigma


def _reach_reference(g, sigma, st, d):
    """Plain recursion: the reach of each player at every node for deal ``d``."""
    t = g.tree
    reach = np.ones((t.n_nodes, 2))

    def walk(n):
        if t.is_term[n]:
            return
        k = int(g.owner[n])
        p = g.block(sigma, n)[int(st[d, k])]
        for a in range(int(t.n_act[n])):
            c = int(t.first[n]) + a
            reach[c] = reach[n]
            reach[c, k] *= p[a]
            walk(c)

    walk(0)
    return reach


@pytest.mark.parametrize("seed", range(24))
def test_best_response_with_zero_probabilities_matches_brute_force(seed):
    """Both players' best responses (Kuhn poker with a raise) against strategies with exact
    zeros equal the best of their pure strategies, each valued by enumerating the deals.
    (A node below one out of reach of both players kept the reach of the previous deal.)"""
    g, (st, o, w), nodes = kuhn_with_raise()
    sigma = _sparse_sigma(g, nodes, seed)
    for k in (0, 1):
        br_value = best_response(g, sigma, st, o, w, k)
        sign = 1.0 if k == 0 else -1.0
        isets = [(n, card) for n in nodes[k] for card in range(3)]
        best = -np.inf
        for pure in itertools.product(*[range(int(g.tree.n_act[n])) for n, _ in isets]):
            sig = sigma.copy()
            for (n, card), a in zip(isets, pure):
                row = np.zeros(int(g.tree.n_act[n]))
                row[a] = 1.0
                g.block(sig, n)[card] = row
            best = max(best, sign * float((deal_values(g, sig, st, o) * w).sum()))
        assert br_value == pytest.approx(best, abs=1e-12)
        assert exploitability(g, sigma, (st, o, w)).gains[k] >= -1e-12


def _walk_sums(g, sigma, st, o, w, k, nodes):
    """Per deal, node and action: cf (the deal's weight times the other player's reach) and cf
    times k's team value after the action, by a plain recursive walk."""
    t = g.tree
    ref = np.zeros((st.shape[0], t.n_nodes, 3, 2))
    for d in range(st.shape[0]):
        reach = _reach_reference(g, sigma, st, d)

        def value(n):  # team 0's value below n for deal d
            if t.is_term[n]:
                return float(g.U[int(t.term[n]), int(o[d])])
            p = g.block(sigma, n)[int(st[d, int(g.owner[n])])]
            return sum(p[a] * value(int(t.first[n]) + a) for a in range(int(t.n_act[n])))

        for n in nodes[k]:
            cf = w[d] * reach[n, 1 - k]
            for a in range(int(t.n_act[n])):
                x = (1.0 if k == 0 else -1.0) * value(int(t.first[n]) + a)
                ref[d, n, a] = (cf, cf * x)
    return ref


@pytest.mark.parametrize("seed", range(24))
def test_node_sums_weights_match_a_plain_walk(seed):
    """The weights of ``musstats bet``'s figures (node_sums: the other player's reach at each
    of a player's nodes, and that weight times his team's value after each action) equal a
    plain recursive walk, with strategies that have exact zeros."""
    from musstats._kernels.cfr import node_sums

    g, (st, o, w), nodes = kuhn_with_raise()
    sigma = _sparse_sigma(g, nodes, seed)
    t = g.tree
    for k in (0, 1):
        acc = node_sums(chunk_bounds(st.shape[0]), st, o, w, sigma, g.kernel_args(), g.U, k, 3).sum(axis=0)
        ref = _walk_sums(g, sigma, st, o, w, k, nodes).sum(axis=0)
        for n in nodes[k]:
            na = int(t.n_act[n])
            np.testing.assert_allclose(acc[n, :na][:, [0, 2]], ref[n, :na], atol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_node_sums_against_a_mixture_of_plans(seed):
    """The other player mixing profiles drawn before play (a pair's correlated plans; here three,
    the third the first again): per deal the weights and values are the weighted sums of each
    profile's by the plain walk, and the squares are those of the deal's mixed figures (the
    standard error's terms)."""
    from musstats._kernels.cfr import mixture_node_sums

    g, (st, o, w), nodes = kuhn_with_raise()
    t = g.tree
    for k in (0, 1):
        other = 1 - k
        base = _sparse_sigma(g, nodes, seed)
        sigmas = []
        for s in (seed, seed + 100, seed):  # the others' rows from each profile, k's from the first
            sig = base.copy()
            src = _sparse_sigma(g, nodes, s)
            lo, hi = int(g.obase[other]), int(g.obase[other]) + int(g.n_states[other]) * int(g.stride[other])
            sig[lo:hi] = src[lo:hi]
            sigmas.append(sig)
        sigmas = np.stack(sigmas)
        mix = np.array([0.2, 0.5, 0.3])
        is_term = np.asarray(t.is_term)
        read = np.nonzero((is_term == 1) | (g.owner == k))[0]
        rel = np.full(t.n_nodes, -1, np.int64)
        rel[read] = np.arange(read.shape[0])
        Aw = g.own_reach_of(sigmas, other, read) * mix
        acc = mixture_node_sums(chunk_bounds(st.shape[0]), st, o, w, base, other, -1, Aw, np.ones((1,) + Aw.shape[1:]),
                                rel, g.kernel_args(), g.U, k, 3).sum(axis=0)
        per = sum(m * _walk_sums(g, s, st, o, w, k, nodes) for m, s in zip(mix, sigmas))  # [deal, node, action, 2]
        cf, y = per[..., 0], per[..., 1]
        want = np.stack([cf, cf * cf, y, cf * y, y * y], axis=-1).sum(axis=0)
        for n in nodes[k]:
            na = int(t.n_act[n])
            np.testing.assert_allclose(acc[n, :na, :5], want[n, :na], atol=1e-12)


# ---------------------------------------------------------------------------
# the tree


def test_tree_turns_answers_and_dejes():
    from musstats.engines.betting.tree import REFUSED, betting_tree

    t = betting_tree("grande")
    # mano bets; second, then postre answer; when both refuse mano's team takes 1
    n = t.parse_history("envido 2,no quiero")
    assert t.nodes[n].seat == 3
    end = t.nodes[t.parse_history("envido 2,no quiero,no quiero")]
    term = t.terminals[end.terminal]
    assert (term.kind, term.by, term.deje) == (REFUSED, 0, 1)
    # a pass before any bet keeps a player in: mano passed, third bets, then postre and
    # second answer (in order from the bettor), and mano's turn comes after a raise
    assert t.nodes[t.parse_history("paso,paso,envido 2")].seat == 3
    assert t.nodes[t.parse_history("paso,paso,envido 2,no quiero")].seat == 1
    assert t.nodes[t.parse_history("paso,paso,envido 2,no quiero,+2")].seat == 2  # third answers first
    # refused raise: 2, raised to 4, refused -> the raisers take the 2 that stood before
    x = t.terminals[t.nodes[t.parse_history("envido 2,+2,no quiero,no quiero")].terminal]
    assert (x.kind, x.by, x.deje) == (REFUSED, 1, 2)
    # facing an órdago only quiero / no quiero
    assert t.nodes[t.parse_history("órdago")].actions == ("no quiero", "quiero")
    # pares: only the holders speak
    p = betting_tree("pares", 0b0011)
    assert set(p.seat[p.is_term == 0]) == {0, 1}
    assert p.n_decisions < 40 and t.n_decisions < 200
    assert "mano to act" in t.text(max_depth=1)


def test_tree_text_gives_the_whole_payoff_of_a_refusal():
    """docs/rules.md: after a refused bet in pares or juego the bettors still count their own
    hands' values, at punto 1 more: the tree's text says so; in grande only the deje."""
    from musstats.engines.betting.tree import betting_tree

    g = betting_tree("grande").text()
    assert "refused: second and postre take 1 (deje)\n" in g + "\n" and "at the count" not in g
    assert "take 1 (deje), then at the count the pares of second and postre" in betting_tree("pares", 0b0011).text()
    assert "take 1 (deje), then at the count the juego of mano and third" in betting_tree("juego", 0b1001).text()
    assert "take 1 (deje), then 1 more at the count" in betting_tree("punto").text()


@pytest.mark.parametrize("history, seat, message", [
    ("paso,quiero", 1, "not a legal sequence"),
    ("envido 2", 2, "not this seat's turn"),
    ("envido 2,no quiero,no quiero,paso", 0, "not a legal sequence"),
    ("envido 3", 0, "not a legal sequence"),
])
def test_history_errors_one_line(history, seat, message):
    from musstats.engines.betting.tree import betting_tree

    with pytest.raises(MusError) as e:
        betting_tree("grande").parse_history(history, seat)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_pares_not_bet_under_one_team():
    from musstats.engines.betting.tree import betting_tree

    with pytest.raises(MusError, match="holder in each team"):
        betting_tree("pares", 0b0101)


# ---------------------------------------------------------------------------
# payoffs against the scoring rules


def _u(lance, pattern, hands, terminal):
    from musstats.engines.betting.deals import lance_states
    from musstats.engines.betting.game import StonePayoff
    from musstats.engines.betting.tree import betting_tree
    from musstats.rules.cards import parse_hand
    from musstats.rules.variant import Variant
    from musstats.tables.hands import hand_tables

    v = Variant()
    t = hand_tables(v)
    d = np.array([[t.index_of(parse_hand(h)) for h in hands]], np.int64)
    o, _ = lance_states(d, lance, v, False)
    tree = betting_tree(lance, pattern)
    return StonePayoff().table(tree)[tree.terminals.index(terminal), int(o[0])]


def _score_lance(hands, lance, bet):
    from musstats.engines.scoring import score_hand

    hs = score_hand(hands, bets=None if bet is None else {lance: bet})
    net = 0
    for name, team, n, _ in hs.events:
        if name == lance:
            net += n if team == 0 else -n
    return net


# the worked example of docs/rules.md: A 7-7-2-As (duples), B 3-3-S-2 (R R S A, 31),
# C R-R-S-As (R R S A, 31), D C-C-C-6 (medias, 36)
EXAMPLE = ["7 7 2 A", "3 3 S 2", "R R S A", "C C C 6"]
# no juego anywhere: mano 19, second 29, third 17, postre 21 points
PUNTO = ["R 7 A A", "C S 5 4", "6 6 4 A", "7 7 6 A"]


def test_payoffs_agree_with_scoring_rules():
    from musstats.engines.betting.tree import ACCEPTED, PASO, REFUSED, Terminal
    from musstats.engines.scoring import Bet

    cases = [
        # pares, all four hold: A's duples win; team 0 counts 3 + 1 = 4 en paso
        ("pares", 15, EXAMPLE, Terminal(PASO), None, 4),
        # 5 accepted: 3 + 1 + 5 = 9
        ("pares", 15, EXAMPLE, Terminal(ACCEPTED, 5), Bet.accepted(5), 9),
        # team 0 bet 2, team 1 raised to 4, team 0 refused: deje 2 + B's par 1 + D's medias 2
        ("pares", 15, EXAMPLE, Terminal(REFUSED, 0, 1, 2), Bet.refused(2, by=1), -5),
        # grande: B's R R S A beats C's (tie to the seat nearer mano): 1, bet 5, deje 1 to team 0
        ("grande", 15, EXAMPLE, Terminal(PASO), None, -1),
        ("grande", 15, EXAMPLE, Terminal(ACCEPTED, 5), Bet.accepted(5), -5),
        ("grande", 15, EXAMPLE, Terminal(REFUSED, 0, 0, 1), Bet.refused(1, by=0), 1),
        # juego, held by B, C, D: B's 31 wins: 3 + D's 2 = 5 en paso; 2 accepted: 7
        ("juego", 0b1110, EXAMPLE, Terminal(PASO), None, -5),
        ("juego", 0b1110, EXAMPLE, Terminal(ACCEPTED, 2), Bet.accepted(2), -7),
        # C bets, refused: deje 1 + C's own 31 (3) though it lost the tie
        ("juego", 0b1110, EXAMPLE, Terminal(REFUSED, 0, 0, 1), Bet.refused(1, by=0), 4),
        # punto: second's 29 wins: 1 en paso, bet 2 accepted: 3, refused bet by team 0: 1 + 1
        ("punto", 15, PUNTO, Terminal(PASO), None, -1),
        ("punto", 15, PUNTO, Terminal(ACCEPTED, 2), Bet.accepted(2), -3),
        ("punto", 15, PUNTO, Terminal(REFUSED, 0, 0, 1), Bet.refused(1, by=0), 2),
    ]
    for lance, pat, hands, term, bet, expected in cases:
        assert _u(lance, pat, hands, term) == expected, (lance, term)
        assert _score_lance(hands, lance, bet) == expected, (lance, bet)


def test_ordago_stones_documented():
    from musstats.analysis.game.model import ordago_stones
    from musstats.engines.betting.game import DEFAULT_ORDAGO_STONES

    # the same formula on a smaller game model: within a few tenths of the documented figure
    assert abs(ordago_stones(deals=400_000) - DEFAULT_ORDAGO_STONES) < 1.0


# ---------------------------------------------------------------------------
# Mus subgames (small solves)


def _small(lance, pattern, info="private", **kw):
    from musstats.engines.betting.solve import solve_subgame
    from musstats.engines.betting.specs import Spec

    spec = Spec(lance=lance, pattern=pattern, info=info, iterations=kw.pop("iterations", 120),
                batch=kw.pop("batch", 4000), pool=kw.pop("pool", 100_000), seed=kw.pop("seed", 3))
    return solve_subgame(spec, eval_deals=kw.pop("eval_deals", 40_000), **kw)


def test_dominated_actions_never_played():
    from musstats.engines.betting.tree import betting_tree
    from musstats.rules.cards import parse_hand
    from musstats.tables.hands import hand_tables

    t = hand_tables()
    # juego held by mano and postre only: postre's 33 (R R 7 6) can never win (mano's juego is
    # at least 33, and ties go to mano): it never accepts an órdago
    s = _small("juego", 0b1001, iterations=60)
    tree = s.game.tree
    h33 = t.index_of(parse_hand("R R 7 6"))
    for n in tree.decision_nodes:
        nd = tree.nodes[n]
        if nd.seat == 3 and nd.history and nd.history[-1] == "órdago":
            assert s.game.strategy_at(s.sigma, n, h33)[nd.actions.index("quiero")] < 1e-3  # early iterations only
    # grande: R R R R at mano can never lose: it never refuses a bet.  (Where third still
    # answers after him, mano's "no quiero" only passes the answer to his partner -- that is
    # not a refusal of the bet, and can be part of an equilibrium.)
    g = _small("grande", 15, iterations=40, pool=40_000, batch=4000, eval_deals=0)
    rrrr = t.index_of(parse_hand("R R R R"))
    tg = betting_tree("grande")
    for n in tg.decision_nodes:
        nd = tg.nodes[n]
        if nd.seat == 0 and "no quiero" in nd.actions and tg.nodes[nd.children[0]].is_terminal:
            assert g.game.strategy_at(g.sigma, n, rrrr)[nd.actions.index("no quiero")] < 1e-3


def test_pooled_value_not_below_private():
    """A team that sees both its hands does at least as well, within the reported errors."""
    pr = _small("pares", 0b0111)
    # team 0 enumerates every pair of its hands on each sample: fewer, dearer samples
    p0 = _small("pares", 0b0111, info="pooled-0", iterations=300, batch=64, eval_deals=4_000)
    tol = pr.exploit["nashconv_in"] + p0.exploit["nashconv_in"] + 3 * (pr.exploit["value_se"] + p0.exploit["value_se"])
    assert p0.exploit["value"] >= pr.exploit["value"] - tol


def test_same_seed_same_strategy_any_threads():
    import numba

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads")
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        a = _small("pares", 0b0011, iterations=30, eval_deals=0)
        numba.set_num_threads(2)
        b = _small("pares", 0b0011, iterations=30, eval_deals=0)
    finally:
        numba.set_num_threads(old)
    assert np.array_equal(a.sigma, b.sigma)


def test_partial_solve_on_stop():
    calls = []
    s = _small("pares", 0b0011, iterations=50, eval_deals=0, stop=lambda: len(calls) >= 5,
               progress=lambda i, sec, ex: calls.append(i))
    assert s.partial and s.iterations == 5


# ---------------------------------------------------------------------------
# the API


def test_bet_api_and_errors():
    from musstats.analysis.betting import bet, tree_text

    r = bet("R R R R", "mano", lance="grande", trials=3000)
    d = r.to_dict()
    assert d["lance"] == "grande" and d["nodes"][0]["history"] == []
    first = d["nodes"][0]["actions"]
    assert set(first) >= {"paso", "envido 2", "envido 5", "órdago"}
    assert abs(sum(x["p"] for x in first.values()) - 1) < 0.02
    from musstats.engines.betting.tree import betting_tree

    tg = betting_tree("grande")
    for nd in d["nodes"]:
        node = tg.nodes[tg.node_id(tuple(nd["history"]))]
        if "no quiero" in nd["actions"] and tg.nodes[node.children[0]].is_terminal:
            assert nd["actions"]["no quiero"]["p"] == 0.0  # the last answerer never refuses
    assert len(r.to_frame()) >= 4
    assert "mano to act" in tree_text("grande")
    # it says which strategies: the scheme, and what one player and a pair gain against them
    from musstats.output.render import render_bet

    assert d["scheme"].startswith("the team scheme")
    assert bet("R R R R", "mano", lance="grande", deal="after-mus", trials=1000).to_dict()["scheme"] == "DCFR"
    foot = render_bet(r).splitlines()
    foot = next(x for x in foot if x.startswith("Strategy:"))
    assert "the team scheme" in foot and "NashConv of this subgame ≥" in foot
    assert "a pair changing together gains ≥" in foot and "(second and postre)" in foot
    for kw, msg in [
        (dict(lance="grandes"), "unknown lance"),
        (dict(lance="grande", history="envido 2"), "not this seat's turn"),
        (dict(lance="grande", history="paso,quiero"), "not a legal sequence"),
        (dict(lance="pares", declared="mano:no-pares"), "does not match"),
        (dict(lance="pares", declared="second:no-pares,postre:no-pares"), "holder in each team"),
        (dict(lance="punto"), "punto is not played"),
    ]:
        with pytest.raises(MusError, match=msg) as e:
            bet("R R R R", "mano", trials=1000, **kw)
        assert "\n" not in str(e.value)


def test_solve_is_cached(tmp_path, monkeypatch):
    from musstats.analysis.betting import solve
    from musstats.engines.solving.store import MEMO

    monkeypatch.setenv("MUSSTATS_CACHE", str(tmp_path))
    MEMO.clear()
    kw = dict(pattern=0b0011, iterations=20, seed=9, pool=50_000, batch=5000, eval_deals=20_000)
    a = solve("pares", **kw)
    MEMO.clear()
    b = solve("pares", **kw)
    assert a.source == "solved" and b.source == "cache"
    assert np.abs(a.sigma - b.sigma).max() <= 3 / 255  # uint8 quantisation, rows renormalised
    assert list(tmp_path.glob("strategy-*.npz"))


def test_value_gap_table_puts_the_two_models_side_by_side():
    from musstats.analysis.betting import exploitability_table, value_gap_table

    df = value_gap_table(lance="grande", iterations=60, eval_samples=2000)
    assert list(df.lance) == ["grande"] and int(df.iterations_pooled.iloc[0]) == 60
    r = df.iloc[0]
    # the pooled side as dealt is the exact solver's: no Monte Carlo error, one NashConv
    assert r.pooled_exact and r.value_pooled_se == 0 and r.nashconv_pooled == r.nashconv_pooled_in
    # the private side is the shipped strategy, as `musstats bet --exploitability` reports it
    ship = exploitability_table(lance="grande").iloc[0]
    assert r.value_private == ship.value_team0 and r.nashconv_private_in == ship.nashconv_in
    assert r.gap == pytest.approx(r.value_pooled - r.value_private)
    assert r.gap_se == pytest.approx(np.hypot(r.value_private_se, r.value_pooled_se))
    assert r.gap_bound == pytest.approx(r.nashconv_private_in + r.nashconv_pooled_in) and r.gap_bound > 0
    # a grande is worth at most an órdago: a value per lance within the stakes
    assert abs(r.value_pooled) < 5


def test_pooled_is_private_where_each_team_has_one_holder():
    # pares mano+second: one holder per team, whose partner does not speak; seeing the
    # partner's hand changes nothing, so the two models are one game with one value
    from musstats.engines.betting.solve import solve_subgame
    from musstats.engines.betting.specs import Spec

    pr, po = (solve_subgame(Spec("pares", 0b0011, info=i, iterations=40), eval_deals=4000) for i in ("private", "pooled"))
    a, b = pr.exploit, po.exploit
    assert abs(a["value"] - b["value"]) <= 3 * np.hypot(a["value_se"], b["value_se"]) + 1e-9


@pytest.mark.parametrize("deal, info", [("as-dealt", "private"), ("after-mus", "private"), ("as-dealt", "pooled")])
def test_shipped_strategies_cover_every_subgame(deal, info):
    """The three shipped strategy files (private information with the hands as dealt and
    after one mus round; pooled information as dealt) hold every one of the 21 subgames of
    8 reyes with the default settings, so that a plain question never waits for a solve,
    each with its measured NashConv; the private strategies are at the goal,
    NashConv <= 0.02 stones per lance by the lower bound; the pooled ones, measured exactly,
    at 0.01."""
    from musstats.analysis.betting import exploitability_table
    from musstats.engines.betting.deals import SUBGAMES

    df = exploitability_table(deal=deal, info=info)
    assert len(df) == len(SUBGAMES) == 21
    # which strategies: the team scheme for private information as dealt and in chica after the
    # mus, DCFR elsewhere
    team = (info == "private") & ((deal == "as-dealt") | (df["lance"] == "chica"))
    want = np.where(team, "the team scheme (DCFR with an exploration floor)", "DCFR")
    assert (df["scheme"] == want).all(), df[["lance", "pattern", "scheme"]]
    assert (df["source"] == "shipped").all(), df[df["source"] != "shipped"]
    assert df["nashconv"].notna().all()
    if info == "pooled":  # the exact solver: the exact NashConv of the strategies as stored
        assert df["exact"].all() and (df["nashconv"] == df["nashconv_in"]).all() and (df["nashconv_se"] == 0).all()
        assert ((df["nashconv"] > 0) & (df["nashconv"] <= 0.01)).all(), df[["lance", "pattern", "nashconv"]]
        return
    assert (df["nashconv_se"] > 0).all() and not df["exact"].any()
    assert (df["nashconv_in"] >= df["nashconv"] - 4 * (df["nashconv_se"] + df["nashconv_in_se"])).all()
    if info == "private":
        above = df[df["nashconv"] > 0.02]
        assert above.empty, above[["lance", "pattern", "nashconv", "nashconv_se"]]
        if deal == "as-dealt":  # the team scheme, measured three ways
            _pair_measures(df)


#: subgames of the hands as dealt where the shipped strategies miss the goal for a pair changing
#: together (0.02 stones per lance): two holders of a team against one holder after mano, all
#: four declared, punto, and in juego two holders against a lone mano (measured exactly; the
#: sampled measure leaves it within its error) (docs/quality.md)
PAIR_GOAL_MISSED = [(lance, p) for lance in ("pares", "juego")
                    for p in ("mano+second+third", "mano+third+postre", "second+third+postre",
                              "mano+second+third+postre")] + [("punto", "all"), ("juego", "mano+second+postre")]


def _pair_measures(df):
    """What a pair gains by changing together, each still seeing only his own hand, is measured
    for every subgame, and within 0.02 stones outside PAIR_GOAL_MISSED (grande, chica, every
    pattern where each team has one holder, and two holders against a lone mano in pares); what a pair
    that also sees both its hands gains is measured and bounds it from above."""
    for c in ("team0", "team1", "pooled0", "pooled1"):
        assert df[c].notna().all(), c
    missed = [(lance, p) in PAIR_GOAL_MISSED for lance, p in zip(df.lance, df.pattern)]
    sound = df[~np.array(missed)]
    assert len(sound) == 21 - len(PAIR_GOAL_MISSED) == 11
    for c in ("team0", "team1"):
        above = sound[sound[c] > 0.02]
        assert above.empty, above[["lance", "pattern", c, c + "_se"]]
    for t in ("0", "1"):
        assert (df["pooled" + t] >= df["team" + t] - 4 * df["team" + t + "_se"] - 4 * df["pooled" + t + "_se"]).all()


@pytest.mark.xfail(reason="correlated plans ship for eight of these subgames only; elsewhere the team scheme "
                          "trains no lone holder against the pair's joint plans and no pair towards its best joint "
                          "plan: pairs gain 0.02-1.2 stones there (docs/quality.md)", strict=True)
def test_a_pair_cannot_beat_the_hardest_subgames():
    """The goal for a pair changing together, 0.02 stones per lance, in the subgames where the
    per-lance strategies miss it, measured on what musstats bet plays: the correlated plans where
    they ship (the pair's best plan, and the lone holder's best response), else the per-lance
    strategies."""
    from musstats.analysis.betting import exploitability_table

    df = exploitability_table(deal="as-dealt", info="private").set_index(["lance", "pattern"])
    missed = df.loc[PAIR_GOAL_MISSED]
    played = missed[["team0", "team1"]].max(axis=1).where(
        missed["plans"].isna(), missed[["plans_gain0", "plans_gain1"]].max(axis=1))
    assert played.loc[[("juego", p) for p in ("mano+second+third", "mano+third+postre", "second+third+postre",
                                              "mano+second+postre", "mano+second+third+postre")]
                      + [("pares", p) for p in ("mano+second+third", "second+third+postre",
                                                "mano+third+postre")]].max() <= 0.02
    assert (played <= 0.02).all(), played


def test_chica_after_the_mus_is_sound_against_a_pair():
    """After the mus a pair changing its chica play together beat the individual equilibrium
    by 0.39 stones a chica (docs/quality.md); the shipped chica, the team scheme's, is within
    the goal for both pairs and per player (0.02 stones per lance, lower bounds), and the
    individual equilibrium's is still there for the strategy set individual."""
    from musstats.analysis.betting import exploitability_table
    from musstats.analysis.practice.bots import solved
    from musstats.rules.variant import Variant

    r = exploitability_table(deal="after-mus", lance="chica").iloc[0]
    assert r["scheme"].startswith("the team scheme")
    assert r["nashconv"] <= 0.02 and r["team0"] <= 0.02 and r["team1"] <= 0.02
    assert solved("chica", 15, "after-mus", Variant(), "dcfr").spec.method == "dcfr"


@pytest.mark.parametrize("deal, info", [("as-dealt", "private"), ("as-dealt", "pooled")])
def test_grande_and_chica_have_one_value(deal, info):
    """With 8 reyes the hands as dealt make grande and chica one game (reverse the ranks: R and A
    hold 8 cards each, C and 4, S and 5, 7 and 6 four each), so a solution a pair cannot beat
    values them alike for mano's team: within 0.01 stones (within the values' errors), under both
    information models.  After the mus they are two games: the discard keeps reyes more than
    aces, so the hands are no longer alike under the reversal (docs/quality.md)."""
    from musstats.analysis.betting import exploitability_table

    df = exploitability_table(deal=deal, info=info).set_index("lance")
    g, c = df.loc["grande"], df.loc["chica"]
    assert abs(g.value_team0 - c.value_team0) <= 0.01 + 2 * np.hypot(g.value_se, c.value_se)


def test_the_reversal_of_the_ranks_makes_grande_chica():
    """With 8 reyes the reversal of the ranks swaps R and A (8 cards each), C and 4, S and 5, 7
    and 6 (four each): R R R R becomes A A A A, R R R 5 becomes S A A A; done twice it is the
    identity, and the chica order of the hands is the grande order of their reverses.  With 4
    reyes too; not where the sota de oros is a class of its own (juego real sota-oros)."""
    from musstats.rules.cards import parse_hand
    from musstats.rules.variant import Variant
    from musstats.tables.hands import CHICA, GRANDE, hand_tables, reversed_hands

    v = Variant()
    t, rev = hand_tables(v), reversed_hands(v)
    h = {x: t.index_of(parse_hand(x)) for x in ("R R R R", "A A A A", "R R R 5", "S A A A", "R C 7 A", "R 6 4 A")}
    assert rev[h["R R R R"]] == h["A A A A"] and rev[h["R R R 5"]] == h["S A A A"] and rev[h["R C 7 A"]] == h["R 6 4 A"]
    assert (rev[rev] == np.arange(t.n_hands)).all()
    # chica: A A A A beats S A A A (hand comparison by RULES.md: the lowest cards first)
    assert t.key[CHICA][h["A A A A"]] > t.key[CHICA][h["S A A A"]]
    assert t.key[GRANDE][rev[h["A A A A"]]] > t.key[GRANDE][rev[h["S A A A"]]]
    assert reversed_hands(Variant("4-reyes")) is not None
    assert reversed_hands(Variant(juego_real="sota-oros")) is None


def test_grande_and_chica_have_one_value_exactly():
    """Grande as dealt ships as chica's solution with every hand reversed (Spec.mirror).  Measured
    on grande's own game, over every deal (the teams' exact pair sums, no sampling), its value for
    mano's team and its NashConv are chica's: equal to 1e-9, as the reversal of the ranks says
    they must be (within the goal of 0.01 by far)."""
    from musstats.engines.betting.solve import solver_game
    from musstats.engines.betting.specs import Spec
    from musstats.engines.betting.store import get_solved
    from musstats.engines.solving.exploit import nashconv
    from musstats.engines.solving.pairs import ExactPairs
    from musstats.rules.variant import Variant
    from musstats.tables.hands import reversed_hands

    figures = []
    sols = []
    for lance in ("grande", "chica"):
        spec = Spec(lance=lance, pattern=15, deal="as-dealt", info="private", variant=Variant())
        ex = ExactPairs(solver_game(spec, purpose="measure", samples=1_000))
        sol = get_solved(spec, solve=False)
        sols.append(sol)
        S = ex.layout.from_game(sol.sigma)
        x, n = ex.sample_values(0, S)
        figures.append((x[0] / n[0], nashconv(ex, S).nashconv))
    assert sols[0].spec.mirror is not None and sols[0].source == "shipped"
    g = sols[0].game
    rev = reversed_hands(Variant())
    assert np.array_equal(g.block(sols[0].sigma, 0), sols[1].game.block(sols[1].sigma, 0)[rev])  # mano's opening
    assert abs(figures[0][0] - figures[1][0]) <= 1e-9 and abs(figures[0][1] - figures[1][1]) <= 1e-9, figures


def test_patterns_that_are_one_game_with_the_seats_renamed():
    """With the hands as dealt only the holders' teams in the order of speech make a pattern's
    game (RULES.md: ties go to the holder nearer mano, a bet is answered in turn from the
    bettor): mano+second, mano+postre and third+postre are one game (team 0 speaks first) and
    second+third that game with the teams swapped; second+third+postre is mano+second+third with
    the teams swapped; the others stand alone.  Over every deal (exact pair sums), the shipped
    juego strategies of each renamed pattern give mano's team exactly the value of its mirror
    (negated where the teams swap) and the same NashConv."""
    from musstats.engines.betting.solve import solver_game
    from musstats.engines.betting.specs import Spec, seat_source
    from musstats.engines.betting.store import get_solved
    from musstats.engines.solving.exploit import nashconv
    from musstats.engines.solving.pairs import ExactPairs

    want = {6: 3, 9: 3, 12: 3, 14: 7}
    for lance in ("pares", "juego"):
        for p in (3, 6, 7, 9, 11, 12, 13, 14, 15):
            assert seat_source(lance, p) == want.get(p), (lance, p)
            assert (Spec(lance=lance, pattern=p).mirror is not None) == (p in want)
    assert Spec(lance="juego", pattern=14, deal="after-mus").mirror is None  # the discard reads the seat

    def figures(p):
        spec = Spec(lance="juego", pattern=p)
        ex = ExactPairs(solver_game(spec, purpose="measure", samples=1_000))
        S = ex.layout.from_game(get_solved(spec, solve=False).sigma)
        x, n = ex.sample_values(0, S)
        return x[0] / n[0], nashconv(ex, S).nashconv

    for p, q in want.items():
        (a, na), (b, nb) = figures(p), figures(q)
        sign = 1 if p in (9, 12) else -1
        assert abs(a - sign * b) <= 1e-9 and abs(na - nb) <= 1e-9, (p, q, a, b, na, nb)


def test_shipped_pooled_is_private_where_each_team_has_one_holder():
    """Where each team has one holder (pares and juego mano+second, second+third,
    mano+postre, third+postre) seeing the partner's hand changes nothing: the shipped pooled
    and private strategies, solved apart, value the lance alike for mano's team (within 4
    standard errors plus the two in-sample NashConv, which bound how far each value is from
    the game's); elsewhere pooled is a different game."""
    from musstats.analysis.betting import exploitability_table

    a, b = (exploitability_table(deal="as-dealt", info=i).set_index(["lance", "pattern"]) for i in ("private", "pooled"))
    single = [(lance, p) for lance in ("pares", "juego")
              for p in ("mano+second", "second+third", "mano+postre", "third+postre")]
    assert set(single) <= set(a.index) and len(single) == 8
    for k in single:
        d = abs(a.loc[k, "value_team0"] - b.loc[k, "value_team0"])
        tol = 4 * np.hypot(a.loc[k, "value_se"], b.loc[k, "value_se"]) + a.loc[k, "nashconv_in"] + b.loc[k, "nashconv_in"]
        assert d <= tol, (k, d, tol)


def test_after_mus_deals_are_the_deals_with_a_mus_round(monkeypatch):
    """The after-mus deal model keeps the deals in which all four ask for mus (RULES.md:
    one player cutting ends the mus phase): with nobody cutting it is the plain round
    (every deal kept, the same stream); with everybody cutting there is no such deal (one
    clear error); other flags given are played instead of the shipped ones; and the
    strategies' key depends on the cut flags, so a table solved for other flags is never
    read."""
    from musstats.engines.betting import deals as D
    from musstats.engines.betting.specs import Spec
    from musstats.engines.musphase import deals_after_mus
    from musstats.rules.variant import Variant
    from musstats.tables import policies

    v = Variant()
    shipped = policies.cut_flags(v)
    key = Spec("grande", 15, deal="after-mus").key
    assert Spec("grande", 15, deal="as-dealt").fields().get("mus") is None
    monkeypatch.setattr(policies, "cut_flags", lambda variant=v: np.zeros_like(shipped))
    got = D.mus_round_deals(5000, 7, v)
    plain = deals_after_mus(D.MUS_ROUND_DRAW, 7, v, rounds=1, key=(0,))[:5000]
    assert np.array_equal(got, plain)
    assert Spec("grande", 15, deal="after-mus").key != key
    monkeypatch.setattr(policies, "cut_flags", lambda variant=v: np.ones_like(shipped))
    with pytest.raises(MusError, match="nobody asks for mus"):
        D.mus_round_deals(10, 7, v)
    # other flags given (the rounds another cut rule plays): those, not the shipped ones
    assert np.array_equal(D.mus_round_deals(5000, 7, v, np.zeros_like(shipped)), plain)


def test_cut_deals_of_other_flags_and_their_measurement_pools():
    """The cut deal model for other cut flags (the hands a strategy that reads who cut is
    measured on when another rule cuts): with everybody cutting every deal as dealt is kept,
    stream for stream; with only third cutting, with half his hands, every deal holds one of
    them there; and a
    measurement pool given with the seat that cut is prepared with that seat, not the one the
    shipped flags name."""
    from musstats.engines.betting import deals as D
    from musstats.engines.betting.info import prepare
    from musstats.engines.betting.solve import solver_game
    from musstats.engines.betting.specs import Spec
    from musstats.engines.musphase import deals_as_dealt
    from musstats.rules.variant import Variant
    from musstats.tables.hands import hand_tables

    v = Variant()
    H = hand_tables(v).n_hands
    every = np.ones((4, H), bool)
    assert np.array_equal(D.cut_deals(3000, 5, v, every), deals_as_dealt(3000, D.derived_seed(5, 0), v))
    one = np.zeros((4, H), bool)
    one[2, ::2] = True  # third cuts with the even hand indices, nobody else cuts
    d = D.cut_deals(5000, 5, v, one)
    assert d.shape == (5000, 4) and (d[:, 2] % 2 == 0).all() and (D.cutter(d, v, one) == 2).all()
    pools = D.subgame_pools(D.CUT, v, {("grande", 15): 4000}, 1, D.CHOOSE_KEY, flags=one, max_blocks=4)
    assert pools[("grande", 15)].shape == (4000, 4) and (pools[("grande", 15)][:, 2] % 2 == 0).all()
    spec = Spec("grande", 15, deal=D.CUT, info="mus-read", variant=v)
    game = spec.game()
    dd = pools[("grande", 15)].astype(np.int64)
    c = np.full(dd.shape[0], 2)
    sg = solver_game(spec, purpose="measure", samples=dd.shape[0], pools={"choose": (dd, c), "eval": (dd, c)})
    assert np.array_equal(sg.choose[0], prepare(game, dd, v, "grande", 2)[0])
    assert not np.array_equal(sg.choose[0], prepare(game, dd, v, "grande", 0)[0])


def test_kept_subgame_deals_are_the_streams_and_never_read_for_other_flags(monkeypatch):
    """The deals a solve trains and is measured on, kept in memory and on disk after the mus:
    the same deals as the stream's (first n of the subgame), and a cached file of one deal
    model (cut flags, discard table) is never read for another."""
    from musstats.engines.betting import deals as D
    from musstats.engines.cache import cache_dir
    from musstats.rules.variant import Variant

    v = Variant()
    want = D.subgame_deals("after-mus", v, "pares", 15, 3000, 5, D.CHOOSE_KEY)
    got = D.kept_subgame_deals("after-mus", v, "pares", 15, 3000, 5, D.CHOOSE_KEY)
    assert np.array_equal(got, want)
    files = sorted(p.name for p in cache_dir().glob(f"subgame-deals-after-mus-*-pares-15-3000-5-{D.CHOOSE_KEY}*"))
    assert len(files) == 1 and D.deal_digest("after-mus", v) in files[0]
    D.kept_subgame_deals.cache_clear()  # from the disk now: the same deals
    assert np.array_equal(D.kept_subgame_deals("after-mus", v, "pares", 15, 3000, 5, D.CHOOSE_KEY), want)
    D.kept_subgame_deals.cache_clear()
    other = D.subgame_deals("after-mus", v, "pares", 15, 3000, 6, D.CHOOSE_KEY)
    monkeypatch.setattr(D, "deal_digest", lambda deal, variant: "other-flags")
    monkeypatch.setattr(D, "subgame_deals", lambda *a: other)
    assert np.array_equal(D.kept_subgame_deals("after-mus", v, "pares", 15, 3000, 5, D.CHOOSE_KEY), other)
    D.kept_subgame_deals.cache_clear()


def test_share_of_deals_with_a_mus_round():
    """With the shipped flags, the share of deals with a mus round (what the after-mus deal
    model keeps) is the share of deals as dealt in which no seat holds a hand it cuts with,
    counted here with NumPy on an independent stream."""
    from musstats.engines.musphase import deals_after_mus, deals_as_dealt
    from musstats.rules.variant import Variant
    from musstats.tables.policies import cut_flags

    v = Variant()
    flags = cut_flags(v)
    dealt = deals_as_dealt(400_000, 11, v)
    p = 1.0 - flags[np.arange(4)[None, :], dealt].any(axis=1).mean()
    full = deals_after_mus(400_000, 12, v, rounds=1, cut=flags, with_rounds=True)
    q = (full[:, 4] > 0).mean()
    assert abs(p - q) <= 4 * np.sqrt(2 * p * (1 - p) / 400_000), (p, q)
    assert 0.05 < q < 0.3


def test_convergence_frame_carries_the_three_measures(tmp_path):
    """``musstats plot convergence-cfr``'s data: per snapshot the per-player NashConv (a lower
    bound and the in-sample value, the latter not below the former beyond noise), each pair's
    deviation and, as dealt, each pair's exact pooled deviation, which a pair seeing both hands
    always has at least as much of as nothing (>= 0); then the chart."""
    from musstats.analysis.betting import convergence_frame
    from musstats.output import plots

    df = convergence_frame("pares", declared="third:no-pares,postre:no-pares", iterations=20, every=20)
    assert list(df.iteration) == [20] and (df.seconds > 0).all()
    for c in ("nashconv", "nashconv_in", "team0", "team1", "pooled0", "pooled1"):
        assert df[c].notna().all(), c
    assert (df.pooled0 >= -1e-12).all() and (df.pooled1 >= -1e-12).all()
    assert (df.nashconv_in >= df.nashconv - 0.05).all()
    path = tmp_path / "cfr.png"
    plots.save_figure(plots.plot_cfr_convergence({"pares": df}), path)
    assert path.stat().st_size > 10_000


def test_the_mus_calls_fit_the_cut_flags_as_the_rules_order_them():
    """The mus goes round from mano and the first to cut ends it (RULES.md): when seat c cut,
    every seat before it asked and it cut; the seats after it said nothing."""
    from musstats.analysis.betting import _calls_fit
    from musstats.tables.policies import betting_cut_flags

    V = Variant()
    flags = betting_cut_flags(V)  # the cut law of the strategies that read who cut
    cuts = [int(np.nonzero(flags[s])[0][0]) for s in range(4)]  # a hand each seat cuts with
    asks = [int(np.nonzero(~flags[s])[0][0]) for s in range(4)]  # and one it asks with
    deals = np.array([[asks[0], asks[1], cuts[2], cuts[3]],  # third cut after two asks
                      [asks[0], asks[1], cuts[2], asks[3]],  # postre never spoke: anything
                      [cuts[0], asks[1], cuts[2], asks[3]],  # mano would have cut first
                      [asks[0], asks[1], asks[2], cuts[3]]], np.int64)  # third asked
    assert _calls_fit(deals, V, 2).tolist() == [True, True, False, False]
    assert _calls_fit(deals, V, 2, skip=0).tolist() == [True, True, True, False]  # mano's own call not judged
    # mano cut: only his call counts, and it is his hand's flag
    assert _calls_fit(deals[:, [3, 0, 1, 2]], V, 0).tolist() == [bool(flags[0, h]) for h in deals[:, 3]]


def test_bet_given_who_cut_is_the_answer_of_hand_after_that_cut():
    """bet --cut answers with the strategies that read who cut: the probabilities at postre's
    first turn in grande after mano and second asked and third cut are those of ``musstats
    hand`` with that history, and they are not the per-lance ones; a call of one's own against
    the cut law they were solved on gets the per-lance strategies and a note; the cut is for the hands as dealt
    in the private model."""
    from musstats.analysis.betting import bet
    from musstats.analysis.reading import hand
    from musstats.tables.hands import hand_cards
    from musstats.tables.policies import betting_cut_flags

    r = bet("R R 3 A", "postre", lance="grande", cut="third", trials=4000).to_dict()
    assert r["cut"] == "third" and "given who cut" in r["strategies"]
    assert not any("departs" in n for n in r["notes"])
    first = r["nodes"][0]
    assert first["history"] == ["paso", "paso", "paso"]
    h = hand("R R 3 A", "postre", history="mus,mus,corto; grande: paso,paso,paso", samples=20_000)
    assert {a: x["p"] for a, x in h.decision["actions"].items()} == pytest.approx(
        {a: x["p"] for a, x in first["actions"].items()}, abs=1e-4)
    plain = bet("R R 3 A", "postre", lance="grande", trials=4000).to_dict()
    assert plain["cut"] is None and "per-lance" in plain["strategies"]
    assert any(abs(plain["nodes"][0]["actions"][a]["p"] - x["p"]) > 0.01 for a, x in first["actions"].items())
    # mano holds a hand the cut law of those strategies cuts with, yet second cut: mano asked against it
    V = Variant()
    h0 = int(np.nonzero(betting_cut_flags(V)[0])[0][0])
    cards = " ".join(c.label for c in hand_cards(h0, V))
    off = bet(cards, "mano", lance="grande", cut="second", trials=2000).to_dict()
    assert "departs from the cut law" in off["notes"][0] and "per-lance" in off["strategies"]
    for kw, msg in [(dict(deal="after-mus"), "hands as dealt"), (dict(info="pooled"), "private model"),
                    (dict(cut="sixth"), "seat")]:
        with pytest.raises(MusError, match=msg) as e:
            bet("R R 3 A", "postre", lance="grande", trials=1000, **{"cut": "third", **kw})
        assert "\n" not in str(e.value)


def test_remeasure_refuses_a_cut_rule_where_nobody_cuts(capsys):
    """``remeasure.py --cuts`` picks who cuts the mus, so it applies to the cut model and to the
    rounds after the mus, not to the hands as dealt: exit 2 and one line; an unknown deal model
    too.  After the mus its samples are the rounds the given flags play."""
    import importlib.util

    from helpers import ROOT

    spec = importlib.util.spec_from_file_location("remeasure_script", ROOT / "scripts" / "remeasure.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--deal", "as-dealt", "--cuts", "equilibrium", "--subgames", "grande-15"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("remeasure: --cuts") and "\n" not in err
    assert mod.main(["--deal", "after-round", "--subgames", "grande-15"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("remeasure:") and "\n" not in err
    # after the mus, the samples are the rounds the given flags play: with nobody cutting, every
    # deal of the plain round, stream for stream (no seat that cut rides along)
    from musstats.engines.betting import deals as D
    from musstats.engines.betting.specs import Spec
    from musstats.engines.musphase import deals_after_mus
    from musstats.tables.policies import cut_flags

    v = Variant()
    sp = Spec("grande", 15, deal="after-mus", variant=v)
    pools = mod._cut_pools(sp, np.zeros_like(cut_flags(v)), 100, 1)
    plain = deals_after_mus(D.MUS_ROUND_DRAW, D.derived_seed(sp.seed, D.EVAL_KEY + 100, 0), v, rounds=1, key=(0,))
    assert isinstance(pools["eval"], np.ndarray) and np.array_equal(pools["eval"], plain[:100])
