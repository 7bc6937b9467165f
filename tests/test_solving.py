"""The solver framework (musstats.engines.solving) on games whose answers are known.

Expected values come from hand calculation in the docstrings or from brute force over the
players' pure strategies, never from the program's own output.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from musstats.base.errors import MusError
from musstats.rules.variant import Variant


def test_a_warm_start_continues_the_solve_exactly():
    """A solve of 8 iterations, kept, then 4 more from its state is the solve of 12 (the same
    samples, keyed by the iteration, and the same updates); a state of another game is refused."""
    from musstats.engines.betting.specs import Spec
    from musstats.engines.betting.vector import vector_game
    from musstats.engines.solving.cfr import SolveConfig, solve

    v = Variant()
    vg = vector_game(Spec(lance="pares", pattern=3).game(), v, 3).configure(batch=64, seed=7)
    full = solve(vg, SolveConfig(iterations=12))
    part = solve(vg, SolveConfig(iterations=8), keep_state=True)
    st = part.meta["state"]
    assert st.t == 8
    rest = solve(vg, SolveConfig(iterations=4), start=st, keep_state=True)
    np.testing.assert_array_equal(rest.sigma, full.sigma)
    assert rest.iterations == 4 and rest.meta["state"].t == 12 and rest.meta["warm_from_iteration"] == 8
    other = vector_game(Spec(lance="grande").game(), v, 15).configure(batch=64, seed=7)
    with pytest.raises(MusError, match="same game"):
        solve(other, SolveConfig(iterations=1), start=st)


# ---------------------------------------------------------------------------
# a team game with a poor equilibrium beside the team-optimal one


def trap_game():
    """The chica trap in miniature.  Team 0 is A (owner 0) and C (owner 2); owner 1 (team 1)
    never decides.  A holds x and C holds y, each "low" (0) or "high" (1) with probability 1/2,
    independently.  A bet of 2 stones stands against team 0: A answers first, ``no quiero``
    (passing the answer to his partner) or ``quiero``; if A passes, C answers, and if C refuses
    too the bet is refused (the rivals take 1).  Accepted, team 0 wins 2 if either holds high,
    else loses 2.

    By hand: A always accepting and C always refusing is an equilibrium of the individual
    players (A low: quiero 0 against no quiero -1, since C refuses; C is never asked) worth 1
    stone to team 0.  The team-optimal joint plan is worth 5/4: A passes with low and accepts
    with high; C accepts with high and refuses with low (x low, y low: -1; x low, y high: +2;
    x high: +2, +2).  No other of the 16 joint pure plans does better."""
    import itertools

    from musstats.engines.solving.game import make_custom_game

    tree = dict(is_term=[0, 0, 1, 1, 1], first=[1, 3, -1, -1, -1], n_act=[2, 2, 0, 0, 0],
                term=[-1, -1, 0, 1, 0], owner=[0, 2, -1, -1, -1])
    # node 0: A [no quiero -> node 1 (C), quiero -> node 2 (showdown)]; node 1: C [no quiero -> 3
    # (refused), quiero -> 4 (showdown)].  Terminal rows: 0 showdown, 1 refused; outcome 1 = team 0 wins.
    U = np.array([[-2.0, 2.0], [-1.0, -1.0]])
    g = make_custom_game(tree, U, [0, 1, 0], [2, 1, 2])
    st = np.array([(x, 0, y) for x, y in itertools.product((0, 1), repeat=2)], np.int32)
    o = (st[:, 0] | st[:, 2]).astype(np.int32)
    return g, (st, o, np.full(4, 0.25))


def _plan(g, sigma, node, actions):
    out = sigma.copy()
    blk = g.block(out, node)
    for s, a in enumerate(actions):
        blk[s] = np.eye(2)[a]
    return out


def test_team_deviation_finds_the_trap_of_a_poor_equilibrium():
    """From the poor equilibrium (A always accepts, C always refuses), no single player gains,
    but the team deviation finds the team-optimal plan: +1/4 stone (5/4 - 1, by hand)."""
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.exploit import measure

    g, data = trap_game()
    poor = _plan(g, _plan(g, g.uniform(), 0, [1, 1]), 1, [0, 0])
    e = measure(DealGame(g, data), poor)
    assert e.exact and e.value == pytest.approx(1.0, abs=1e-12)
    assert e.nashconv == pytest.approx(0.0, abs=1e-12)  # an equilibrium of the individual players
    assert e.team_gain[0] == pytest.approx(0.25, abs=1e-12)
    assert e.team_gain[1] == pytest.approx(0.0, abs=1e-12)  # team 1 never decides


def test_team_scheme_reaches_the_team_optimal_value_where_plain_cfr_does_not():
    """The driver's ``team`` scheme on the trap game reaches the team-optimal value 5/4 (by
    hand) and concedes nothing to a pair.  Plain DCFR from the uniform strategy settles in the
    poor equilibrium instead (C learns to accept with low before A passes only with low), and
    the team deviation measures the quarter stone it concedes."""
    from musstats.engines.solving.cfr import SolveConfig, solve
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.exploit import measure

    g, data = trap_game()
    dg = DealGame(g, data)
    s = solve(dg, SolveConfig.preset("team", 2000, team_every=500))
    e = measure(dg, s.sigma)
    assert e.value == pytest.approx(1.25, abs=0.01)
    assert e.team_gain[0] < 0.01 and e.nashconv < 0.01
    assert s.meta["team_moves"] and s.meta["team_moves"][0]["team"] == 0
    plain = measure(dg, solve(dg, SolveConfig.preset("dcfr", 2000)).sigma)
    assert plain.value == pytest.approx(1.0, abs=0.01) and plain.nashconv < 0.01
    assert plain.team_gain[0] == pytest.approx(0.25, abs=0.01)


def mini_lance():
    """A lance of four seats in miniature: each seat holds a card 0, 1 or 2 (independently,
    each 1/3); the best card wins, ties going to the seat nearer to mano (seat 0).  Mano
    passes or bets 2; after a pass, second passes (en paso: 1 stone to the best hand) or bets
    2; a bet is answered in turn by the other team (third then mano after second's bet,
    second then postre after mano's), the first to accept ending it (2 stones to the best
    hand), every refusal giving the bettors 1.  Owners 0-3 are the seats; teams 0, 1, 0, 1.

    Nodes: 0 mano [paso, envido]; 1 second [paso, envido]; 2 second [no quiero, quiero]; 3 en
    paso; 4 third [no quiero, quiero]; 5 postre [no quiero, quiero]; 6 accepted; 7 mano [no
    quiero, quiero]; 8 accepted; 9 refused by team 1; 10 accepted; 11 refused by team 0; 12
    accepted."""
    import itertools

    from musstats.engines.solving.game import make_custom_game

    tree = dict(is_term=[0, 0, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1], first=[1, 3, 5, -1, 7, 9, -1, 11, -1, -1, -1, -1, -1],
                n_act=[2, 2, 2, 0, 2, 2, 0, 2, 0, 0, 0, 0, 0], owner=[0, 1, 1, -1, 2, 3, -1, 0, -1, -1, -1, -1, -1],
                term=[-1, -1, -1, 0, -1, -1, 1, -1, 1, 2, 1, 3, 1])
    U = np.array([[-1.0, 1.0], [-2.0, 2.0], [1.0, 1.0], [-1.0, -1.0]])  # outcome 1: team 0 holds the best card
    g = make_custom_game(tree, U, [0, 1, 0, 1], [3, 3, 3, 3])
    st = np.array(list(itertools.product(range(3), repeat=4)), np.int32)
    best_seat = np.array([max(range(4), key=lambda q: (d[q], -q)) for d in st])
    o = (best_seat % 2 == 0).astype(np.int32)
    return g, (st, o, np.full(81, 1 / 81))


def _with_pure(g, sigma, choices):
    """A copy of ``sigma`` (game layout) with each ``((node, card), action)`` of ``choices`` played
    for sure."""
    sig = sigma.copy()
    for (n, c), a in choices:
        g.block(sig, n)[c] = np.eye(2)[a]
    return sig


def _random_strategy(g, rng):
    sigma = g.uniform()
    for n in range(g.tree.n_nodes):
        if not g.tree.is_term[n]:
            blk = g.block(sigma, n)
            p = rng.uniform(0.05, 1.0, blk.shape)
            blk[:] = p / p.sum(axis=1, keepdims=True)
    return sigma


def _brute_team_gain(g, data, sigma, t):
    """The best joint pure plan of team t's two seats against the others' strategies, by
    enumerating all of them (2^9 here), minus the profile's value for team t."""
    import itertools

    from musstats.engines.solving.dealt import deal_values

    st, o, w = data
    sign = 1.0 if t == 0 else -1.0
    isets = [(n, s) for n in range(g.tree.n_nodes) if not g.tree.is_term[n] and g.team[g.owner[n]] == t
             for s in range(3)]
    base = sign * float(deal_values(g, sigma, st, o) @ w)
    best = -np.inf
    for pure in itertools.product((0, 1), repeat=len(isets)):
        sig = _with_pure(g, sigma, zip(isets, pure))
        best = max(best, sign * float(deal_values(g, sig, st, o) @ w))
    return best - base


@pytest.mark.parametrize("seed", range(4))
def test_state_gains_and_sparing_responses_against_brute_force(seed):
    """On the mini lance, against random strategies, what a player's best response gains in each
    of his states (his card) is, by brute force, the best of his pure plans for that card alone
    (the other cards' play unchanged) minus the profile's value; a response that deviates only
    where a state gains more than a gate gains the sum of those states' gains, and nothing with a
    gate above them all."""
    from musstats.engines.solving.dealt import DealGame, deal_values
    from musstats.engines.solving.exploit import paired_gains, sparing_block, state_gains
    from musstats.engines.solving.game import SolverGame
    from musstats.engines.solving.game import Sample

    g, data = mini_lance()
    st, o, w = data
    sigma = _random_strategy(g, np.random.default_rng(seed))
    dg = DealGame(g, data)
    SIG = dg.layout.from_game(sigma)
    for k in (0, 1):  # mano (nodes 0 and 7) and second (nodes 1 and 2)
        sign = 1.0 if g.team[k] == 0 else -1.0
        base = sign * float(deal_values(g, sigma, st, o) @ w)
        nodes = [n for n in range(g.tree.n_nodes) if not g.tree.is_term[n] and g.owner[n] == k]
        want = np.array([max(sign * float(deal_values(g, _with_pure(g, sigma, zip([(n, c) for n in nodes], pure)),
                                                      st, o) @ w)
                             for pure in itertools.product((0, 1), repeat=len(nodes))) - base for c in range(3)])
        br, gains = state_gains(dg, k, SIG, Sample("choose"))
        np.testing.assert_allclose(gains, want, atol=1e-12)
        assert want.max() > 0.01
        gates = (-1.0, *np.sort(want)[:-1] + 1e-9, want.max() + 1e-9)
        blocks = [sparing_block(br, dg.layout.owner_rows(SIG, k), gains, gate) for gate in gates]
        got = paired_gains(dg, k, SIG, iter(blocks), (Sample("eval"), Sample("choose")))
        for gate, row in zip(gates, got):
            for gain, _ in row:
                assert gain == pytest.approx(float(want[want > gate].sum()), abs=1e-12)
        # the deals' shortcut (the profile made once, only k's slots written) values each block as
        # the profile with that block does
        for fast, slow in zip(dg.block_values(k, SIG, iter(blocks), (Sample("eval"),)),
                              SolverGame.block_values(dg, k, SIG, iter(blocks), (Sample("eval"),))):
            np.testing.assert_allclose(fast[0], slow[0], atol=1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_team_deviation_against_brute_force_over_joint_plans(seed):
    """On the mini lance, against random strategies, the team deviation of each team (alternating
    best responses from its starts) is never above the best of the 512 joint pure plans of the
    pair (it is a lower bound) and here reaches it."""
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.exploit import team_deviation

    g, data = mini_lance()
    sigma = _random_strategy(g, np.random.default_rng(seed))
    dg = DealGame(g, data)
    for t in (0, 1):
        want = _brute_team_gain(g, data, sigma, t)
        got = team_deviation(dg, dg.layout.from_game(sigma), t)
        assert want > 0.01  # random strategies concede something to a pair
        assert got.gain <= want + 1e-12
        assert got.gain == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_pooled_deviation_is_the_best_plan_of_a_pair_that_sees_both_hands(seed):
    """On the mini lance, a team that sees both its cards gains, by brute force, the sum over
    the 9 pairs of its cards (each pair has its own deals) of the best of the team's 2^5 pure
    plans for that pair, minus the profile's value; and seeing more never gains less than the
    team deviation."""
    import itertools

    from musstats.engines.solving.dealt import DealGame, deal_values
    from musstats.engines.solving.exploit import measure

    g, data = mini_lance()
    st, o, w = data
    sigma = _random_strategy(g, np.random.default_rng(seed))
    dg = DealGame(g, data)
    e = measure(dg, sigma, pooled=True)
    for t in (0, 1):
        sign = 1.0 if t == 0 else -1.0
        nodes = [n for n in range(g.tree.n_nodes) if not g.tree.is_term[n] and g.team[g.owner[n]] == t]
        base = sign * float(deal_values(g, sigma, st, o) @ w)
        total = 0.0
        for x, y in itertools.product(range(3), repeat=2):  # the pair's cards: its own deals
            mine = (st[:, t] == x) & (st[:, t + 2] == y)
            best = -np.inf
            for pure in itertools.product((0, 1), repeat=len(nodes)):
                sig = sigma.copy()
                for n, a in zip(nodes, pure):  # both partners play the pair's plan at their nodes
                    g.block(sig, n)[x if g.owner[n] == t else y] = np.eye(2)[a]
                best = max(best, sign * float(deal_values(g, sig, st[mine], o[mine]) @ w[mine]))
            total += best
        assert e.pooled_gain[t] == pytest.approx(total - base, abs=1e-12)
        assert e.pooled_gain[t] >= e.team_gain[t] - 1e-12


# ---------------------------------------------------------------------------
# a pair's correlated plans against a lone opponent (column generation)


def three_seat_lance():
    """The mini lance with three seats: mano (owner 0) and third (owner 2) against second
    (owner 1), each holding a card 0, 1 or 2 (independently, each 1/3), the best card winning,
    ties to the seat nearer to mano.  Mano passes or bets 2; after a pass second passes (en
    paso: 1 stone to the best hand) or bets 2; mano's bet is answered by second (a refusal
    gives mano's team 1), second's by third, then mano (the first to accept ends it: 2 stones to
    the best hand; two refusals give second 1).

    Nodes: 0 mano [paso, envido]; 1 second [paso, envido]; 2 second [no quiero, quiero]; 3 en
    paso; 4 third [no quiero, quiero]; 5 refused by second; 6 accepted; 7 mano [no quiero,
    quiero]; 8 accepted; 9 refused by mano's team; 10 accepted."""
    import itertools

    from musstats.engines.solving.game import make_custom_game

    tree = dict(is_term=[0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1], first=[1, 3, 5, -1, 7, -1, -1, 9, -1, -1, -1],
                n_act=[2, 2, 2, 0, 2, 0, 0, 2, 0, 0, 0], owner=[0, 1, 1, -1, 2, -1, -1, 0, -1, -1, -1],
                term=[-1, -1, -1, 0, -1, 2, 1, -1, 1, 3, 1])
    U = np.array([[-1.0, 1.0], [-2.0, 2.0], [1.0, 1.0], [-1.0, -1.0]])  # outcome 1: mano's team holds the best
    g = make_custom_game(tree, U, [0, 1, 0], [3, 3, 3])
    st = np.array(list(itertools.product(range(3), repeat=3)), np.int32)
    best_seat = np.array([max(range(3), key=lambda q: (d[q], -q)) for d in st])
    return g, (st, (best_seat % 2 == 0).astype(np.int32), np.full(27, 1 / 27))


def _matrix_value(M: np.ndarray, iterations: int = 20_000) -> tuple[float, float]:
    """The value of the zero-sum matrix game ``M`` (rows maximise) bracketed by the averaged
    strategies of regret matching+: [what the rows' mixture guarantees, what the columns'
    mixture concedes]."""
    K, J = M.shape
    rx, ry, sx, sy = np.zeros(K), np.zeros(J), np.zeros(K), np.zeros(J)
    for i in range(1, iterations + 1):
        x = np.maximum(rx, 0)
        x = x / x.sum() if x.sum() > 0 else np.full(K, 1 / K)
        y = np.maximum(ry, 0)
        y = y / y.sum() if y.sum() > 0 else np.full(J, 1 / J)
        ux, uy = M @ y, -(x @ M)
        rx, ry = np.maximum(rx + ux - x @ ux, 0), np.maximum(ry + uy - y @ uy, 0)
        sx, sy = sx + i * x, sy + i * y
    return float((sx / sx.sum() @ M).min()), float((M @ (sy / sy.sum())).max())


@pytest.fixture(scope="module")
def joint_plans_matrix():
    """The three-seat lance as the matrix game between the pair's 512 joint pure plans and
    second's 64 pure strategies, each entry valued by brute force."""
    import itertools

    from musstats.engines.solving.dealt import deal_values

    g, (st, o, w) = three_seat_lance()
    pair = [(n, s) for n in (0, 7, 4) for s in range(3)]
    lone = [(n, s) for n in (1, 2) for s in range(3)]

    def value(tp, lp):
        sig = _with_pure(g, g.uniform(), itertools.chain(zip(pair, tp), zip(lone, lp)))
        return float(deal_values(g, sig, st, o) @ w)

    return np.array([[value(a, b) for b in itertools.product((0, 1), repeat=6)]
                     for a in itertools.product((0, 1), repeat=9)])


@pytest.mark.parametrize("search", [dict(), dict(quick=(("strategy", 0), ("strategy", 1)), full_every=5)],
                         ids=["full search", "quick search"])
def test_correlated_plans_reach_the_value_of_the_game_over_joint_plans(joint_plans_matrix, search):
    """Column generation on the three-seat lance reaches the pair's correlated value: the value
    of the matrix game between the pair's 512 joint pure plans (mixed: the partners agree on one
    before the hand) and second's 64 pure strategies, each entry valued by brute force.  The
    mixture it returns guarantees that value (second's best response takes no more), beats the
    best single joint plan (4/9, by brute force: correlation is worth something here), and the
    oracle finds no plan that beats the opponent's strategy by more; with the oracle searching
    from two starts between full searches too."""
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.team import correlated_plans

    M = joint_plans_matrix
    lo, hi = _matrix_value(M)
    assert hi - lo < 5e-4  # the reference is that sharp
    assert M.min(axis=1).max() == pytest.approx(4 / 9, abs=1e-12)
    g, data = three_seat_lance()
    dg = DealGame(g, data)
    res = correlated_plans(dg, dg.layout.uniform(), 0, rounds=30, iterations=3000, tol=1e-4, **search)
    last = res.rounds[-1]
    assert not res.partial and res.weights.sum() == pytest.approx(1.0)
    assert last["search"] == "full"  # only a full search ends the rounds
    assert last["lower"] <= hi + 1e-9  # what the mixture guarantees is never above the game's value
    assert last["lower"] >= lo - 2e-3 and last["value"] == pytest.approx((lo + hi) / 2, abs=2e-3)
    assert last["lower"] > 4 / 9 + 0.01
    assert last["upper"] <= hi + 2e-3


def test_correlated_plans_go_on_from_a_stopped_run(joint_plans_matrix):
    """A run stopped after three rounds, then started again with its plans, reaches the value of
    the matrix game over every joint pure plan, as one run does."""
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.team import correlated_plans

    lo, hi = _matrix_value(joint_plans_matrix)
    g, data = three_seat_lance()
    dg = DealGame(g, data)
    first = correlated_plans(dg, dg.layout.uniform(), 0, rounds=3, iterations=3000, tol=1e-4)
    assert first.partial and len(first.plans) >= 3
    res = correlated_plans(dg, dg.layout.uniform(), 0, rounds=30, iterations=3000, tol=1e-4, plans=first.plans[1:])
    last = res.rounds[-1]
    assert not res.partial and len(res.rounds) < 30
    assert lo - 2e-3 <= last["lower"] <= hi + 1e-9 and last["upper"] <= hi + 2e-3


def test_correlated_plans_need_a_lone_opponent():
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.team import correlated_plans

    g, data = three_seat_lance()
    dg = DealGame(g, data)
    with pytest.raises(MusError, match="lone opponent"):
        correlated_plans(dg, dg.layout.uniform(), 1)  # second alone faces a pair


# ---------------------------------------------------------------------------
# both teams' plans at once: the exact double oracle


def _pure_plan_reach(g, st, seats):
    """For every pure plan of ``seats`` (one action at each of their (node, card)), enumerated
    here, the plan's reach of each terminal on each deal: (the plans as {(node, card): action},
    reach [plans, deals, terminals in node order])."""
    tree = g.tree
    nodes = [n for n in range(tree.n_nodes) if not tree.is_term[n] and int(g.owner[n]) in seats]
    terms = [n for n in range(tree.n_nodes) if tree.is_term[n]]
    parent = {}
    for n in range(tree.n_nodes):
        if not tree.is_term[n]:
            for a in range(int(tree.n_act[n])):
                parent[int(tree.first[n]) + a] = (n, a)
    paths = []
    for z in terms:
        path, c = [], z
        while c in parent:
            n, a = parent[c]
            path.append((n, a))
            c = n
        paths.append([(n, a) for n, a in path if n in nodes])
    isets = [(n, s) for n in nodes for s in range(3)]
    plans, reach = [], []
    for pure in itertools.product((0, 1), repeat=len(isets)):
        plan = dict(zip(isets, pure))
        r = np.ones((st.shape[0], len(terms)))
        for zi, path in enumerate(paths):
            for n, a in path:
                r[:, zi] *= np.array([plan[(n, int(c))] == a for c in st[:, int(g.owner[n])]], float)
        plans.append(plan)
        reach.append(r)
    return plans, np.array(reach), terms


@pytest.fixture(scope="module")
def four_seat_plans_matrix():
    """The mini lance as the matrix game between the joint pure plans of mano and third (512)
    and of second and postre (512), each entry summed here over the 81 deals from the plans'
    reach of each terminal."""
    g, (st, o, w) = mini_lance()
    p0, r0, terms = _pure_plan_reach(g, st, (0, 2))
    p1, r1, _ = _pure_plan_reach(g, st, (1, 3))
    wU = w[:, None] * np.array([[g.U[int(g.tree.term[z]), oc] for z in terms] for oc in o])
    return (r0 * wU).reshape(len(p0), -1) @ r1.reshape(len(p1), -1).T


def test_both_teams_plans_reach_the_value_of_the_game_over_joint_plans(four_seat_plans_matrix):
    """The double oracle on the mini lance reaches the value of the matrix game between both
    pairs' joint pure plans (by brute force), and team 0's mixture guarantees it: second and
    postre's best joint pure plan against it (all 512 tried) takes no more."""
    from musstats.engines.solving.dealt import DealGame, deal_values
    from musstats.engines.solving.team import team_plans

    lo, hi = _matrix_value(four_seat_plans_matrix)
    assert hi - lo < 1e-3
    g, data = mini_lance()
    st, o, w = data
    dg = DealGame(g, data)
    lay = dg.layout
    res = team_plans(dg, lay.uniform(), tol=1e-4)
    last = res.rounds[-1]
    assert not res.partial and last["upper"] - last["lower"] <= 1e-4
    assert last["value"] == pytest.approx((lo + hi) / 2, abs=1e-3)
    for t, (bound, worst) in enumerate(((lo, min), (hi, max))):  # each mixture against the other's 512 plans
        seats = (1, 3) if t == 0 else (0, 2)
        isets = [(n, c) for n in range(g.tree.n_nodes) if not g.tree.is_term[n] and int(g.owner[n]) in seats
                 for c in range(3)]
        sigmas = [(wt, lay.to_game(res.profile(lay.uniform(), lay, *((i, 0) if t == 0 else (0, i)))))
                  for i, wt in enumerate(res.weights[t]) if wt > 0]
        vals = []
        for pure in itertools.product((0, 1), repeat=len(isets)):
            v = 0.0
            for wt, sigma in sigmas:
                v += wt * float(deal_values(g, _with_pure(g, sigma, zip(isets, pure)), st, o) @ w)
            vals.append(v)
        assert worst(vals) == pytest.approx(bound, abs=1e-3)


@pytest.mark.parametrize("bank_bytes", [2 ** 30, 1.0])
def test_both_teams_plans_keep_every_plan_as_their_tables_grow(four_seat_plans_matrix, bank_bytes):
    """Started from 40 joint pure plans of each pair (the tables of the plans' reaches grow past
    their first size twice), the double oracle's first round solves the matrix game between
    exactly those plans: its value is that of the same 40 x 40 block of the brute-force matrix,
    and each pair's best plan against the other's mixture takes what the best of its 512 pure
    plans does -- with every plan's sums kept, and with the sums of all but the last plan of each
    pair dropped (a bank of one byte: the mixtures summed again over the deals)."""
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.team import team_plans

    g, data = mini_lance()
    st = data[0]
    dg = DealGame(g, data)
    lay = dg.layout
    rng = np.random.default_rng(4)
    picks = [rng.choice(512, 40, replace=False) for _ in (0, 1)]
    pure = [_pure_plan_reach(g, st, seats)[0] for seats in ((0, 2), (1, 3))]

    def profile(i0: int, i1: int) -> np.ndarray:
        return lay.from_game(_with_pure(g, g.uniform(), [*pure[0][i0].items(), *pure[1][i1].items()]))

    def blocks(S: np.ndarray, t: int) -> dict:
        return {k: lay.owner_rows(S, k) for k in range(lay.n_owners) if int(lay.team[k]) == t}

    SIG = profile(picks[0][0], picks[1][0])
    more = tuple([blocks(profile(i, picks[1][0]) if t == 0 else profile(picks[0][0], i), t) for i in picks[t][1:]]
                 for t in (0, 1))
    res = team_plans(dg, SIG, rounds=1, plans=more, bank_bytes=bank_bytes)
    assert [len(p) for p in res.plans] == [40, 40]
    M = four_seat_plans_matrix
    lo, hi = _matrix_value(M[np.ix_(picks[0], picks[1])])
    assert hi - lo < 1e-3
    row = res.rounds[0]
    assert row["value"] == pytest.approx((lo + hi) / 2, abs=1e-3)
    x, y = np.zeros(512), np.zeros(512)
    x[picks[0]], y[picks[1]] = res.weights
    # (the kept sums are float32)
    assert row["upper"] == pytest.approx(float((M @ y).max()), abs=1e-6)
    assert row["lower"] == pytest.approx(float((x @ M).min()), abs=1e-6)


@pytest.mark.parametrize("seed", range(2))
def test_both_teams_mixtures_measured_as_brute_force_does(four_seat_plans_matrix, seed):
    """A mixture of joint pure plans for each pair, measured from the pair sums: its value is the
    mixtures' product with the brute-force matrix, and each pair's best joint plan against the
    other's mixture gains what the best of its 512 pure plans does."""
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.team import measure_both_plans

    g, data = mini_lance()
    dg = DealGame(g, data)
    lay = dg.layout
    rng = np.random.default_rng(seed)
    pure = [_pure_plan_reach(g, data[0], seats)[0] for seats in ((0, 2), (1, 3))]
    picks = [rng.choice(512, 5, replace=False) for _ in (0, 1)]
    weights = [rng.dirichlet(np.ones(5)) for _ in (0, 1)]

    def blocks(t: int, i: int) -> dict:
        S = lay.from_game(_with_pure(g, g.uniform(), pure[t][i].items()))
        return {k: lay.owner_rows(S, k) for k in range(lay.n_owners) if int(lay.team[k]) == t}

    plans = tuple([blocks(t, i) for i in picks[t]] for t in (0, 1))
    got = measure_both_plans(dg, lay.uniform(), plans, tuple(weights))
    x, y = np.zeros(512), np.zeros(512)
    x[picks[0]], y[picks[1]] = weights
    M = four_seat_plans_matrix
    value = float(x @ M @ y)
    assert got["value"] == pytest.approx(value, abs=1e-9)
    assert got["gain"][0] == pytest.approx(float((M @ y).max()) - value, abs=1e-9)
    assert got["gain"][1] == pytest.approx(value - float((x @ M).min()), abs=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_both_teams_plans_measure_a_profile_as_brute_force_does(seed):
    """The double oracle's first round measures the profile it starts from: each pair's gain from
    its best joint plan is the best of its 512 joint pure plans (brute force), and what it takes
    seeing both its hands is the pooled deviation (itself checked against brute force above)."""
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.exploit import measure
    from musstats.engines.solving.team import team_plans

    g, data = mini_lance()
    sigma = _random_strategy(g, np.random.default_rng(seed))
    dg = DealGame(g, data)
    first = team_plans(dg, dg.layout.from_game(sigma), rounds=1).rounds[0]
    e = measure(dg, sigma, pooled=True)
    for t in (0, 1):
        assert first["gain"][t] == pytest.approx(_brute_team_gain(g, data, sigma, t), abs=1e-6)  # sums kept in float32
        assert first["seeing_both"][t] == pytest.approx(e.pooled_gain[t], abs=1e-6)


def test_both_teams_plans_against_a_lone_opponent(joint_plans_matrix):
    """With one player on a side (the three-seat lance) the double oracle reaches the value of
    the matrix game between the pair's 512 joint pure plans and second's 64 pure strategies."""
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.team import team_plans

    lo, hi = _matrix_value(joint_plans_matrix)
    g, data = three_seat_lance()
    dg = DealGame(g, data)
    res = team_plans(dg, dg.layout.uniform(), tol=1e-4)
    last = res.rounds[-1]
    assert not res.partial and last["upper"] - last["lower"] <= 1e-4
    assert lo - 1e-3 <= last["value"] <= hi + 1e-3


@pytest.mark.parametrize("seed", range(3))
def test_exact_pair_measures_against_brute_force(seed):
    """Measures read off the teams' pair sums (ExactPairs) on the mini lance: each owner's terminal
    sums are the deal-by-deal ones, and each pair's best joint plan gains what the best of its 512
    joint pure plans gains (brute force)."""
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.exploit import team_deviation
    from musstats.engines.solving.game import Sample
    from musstats.engines.solving.pairs import ExactPairs

    g, data = mini_lance()
    sigma = _random_strategy(g, np.random.default_rng(seed))
    dg = DealGame(g, data)
    ex = ExactPairs(dg)
    SIG = dg.layout.from_game(sigma)
    for k in range(4):
        np.testing.assert_allclose(ex.terminal_sums(k, SIG), dg.terminal_sums(k, SIG, Sample()), atol=1e-12)
    for t in (0, 1):
        got = team_deviation(ex, SIG, t)
        assert got.gain_se == 0.0 and got.gain == pytest.approx(_brute_team_gain(g, data, sigma, t), abs=1e-12)


def test_correlated_plans_on_exact_pair_measures(joint_plans_matrix):
    """Column generation measured exactly from the pair sums reaches the value of the matrix game
    over the three-seat lance's joint pure plans."""
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.pairs import ExactPairs
    from musstats.engines.solving.team import correlated_plans

    lo, hi = _matrix_value(joint_plans_matrix)
    g, data = three_seat_lance()
    ex = ExactPairs(DealGame(g, data))
    res = correlated_plans(ex, ex.layout.uniform(), 0, rounds=30, iterations=3000, tol=1e-4)
    last = res.rounds[-1]
    assert not res.partial
    assert lo - 2e-3 <= last["lower"] <= hi + 1e-9 and last["upper"] <= hi + 2e-3
