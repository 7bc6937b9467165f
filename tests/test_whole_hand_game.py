"""A small whole hand -- a mus round and two lances -- as one game of the solver framework.

The game (built below from the rules' shapes, not from the package's Mus tables): a deck of six
cards, ranks 1, 2 and 3 twice each.  Mano (team 0) and postre (team 1) are dealt one card each;
the next two cards of the deck are the cards each would draw in a mus round.  Mano says mus or
corto; corto ends the mus; after mano's mus postre says mus or corto; when both ask, each
throws his card and takes his new one (the count, one card each, is public).  Then two lances
on the cards held: grande (the higher card wins, mano wins ties) and chica (the lower card
wins, mano wins ties).  In each, mano passes or envida 1; after his paso postre passes or
envida; the envite is answered with no quiero (1 to the bettor) or quiero (2 to the better
card); both passing gives 1 to the better card (en paso).

A player's state is everything he sees privately in the hand: his card and the card he would
draw (3 x first + second).  Before the mus round ends with a draw he has seen only his card:
there his states are tied by it (:attr:`musstats.engines.solving.game.Game.ties`), so the
game has perfect recall and the framework's CFR and best response must respect what each
player knows when.  Checked against an independent solver and best response written here
(tabular CFR+ over the explicit information sets, vectorised over the deals) and against a
hand calculation.
"""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np
import pytest

from musstats.engines.solving.cfr import SolveConfig, solve
from musstats.engines.solving.dealt import DealGame, deal_values
from musstats.engines.solving.exploit import best_response, measure, ratio
from musstats.engines.solving.game import Sample, make_custom_game

# lance betting states: A mano first, B postre after paso, C mano after paso-envido, D postre after envido
_NEXT = {"A": ("B", "D"), "B": ("paso", "C"), "C": ("refused_by_mano", "accepted"), "D": ("refused_by_postre", "accepted")}
_WHO = {"A": 0, "B": 1, "C": 0, "D": 1}


def _lance_points(result: str, win: np.ndarray) -> np.ndarray:
    """Team 0's points of a lance's result, per outcome (``win``: mano holds the better card)."""
    if result == "paso":
        return np.where(win, 1.0, -1.0)
    if result == "accepted":
        return np.where(win, 2.0, -2.0)
    if result == "refused_by_mano":  # postre's envite refused: 1 to postre
        return np.full(win.shape, -1.0)
    return np.full(win.shape, 1.0)  # mano's envite refused by postre


def whole_hand_toy():
    """The game, its deals (every one, with its probability) and the nodes of each view."""
    outcomes = np.arange(16)
    bit = [(outcomes >> i) & 1 == 1 for i in range(4)]  # grande/chica on the dealt cards, on the drawn ones
    nodes: list[dict] = []

    def add(**kw) -> int:
        nodes.append(dict(kw, children=[]))
        return len(nodes) - 1

    root = add(kind="mus", who=0, phase=0)
    queue = deque([root])
    while queue:
        n = queue.popleft()
        nd = nodes[n]
        kind = nd["kind"]
        if kind == "mus":
            # corto: the lances on the dealt cards; mus: postre's call, or after both the drawn cards
            kids = [add(kind="lance", who=0, phase=0, lance=0, state="A", points=np.zeros(16))]
            if nd["who"] == 0:
                kids.append(add(kind="mus", who=1, phase=0))
            else:
                kids.append(add(kind="lance", who=0, phase=1, lance=0, state="A", points=np.zeros(16)))
        elif kind == "lance":
            kids = []
            for nxt in _NEXT[nd["state"]]:
                if nxt in _WHO:
                    kids.append(add(kind="lance", who=_WHO[nxt], phase=nd["phase"], lance=nd["lance"], state=nxt,
                                    points=nd["points"]))
                    continue
                win = bit[2 * nd["phase"] + nd["lance"]]
                pts = nd["points"] + _lance_points(nxt, win)
                if nd["lance"] == 0:
                    kids.append(add(kind="lance", who=0, phase=nd["phase"], lance=1, state="A", points=pts))
                else:
                    kids.append(add(kind="end", points=pts))
        else:
            continue
        nd["children"] = kids
        queue.extend(kids)
    N = len(nodes)
    is_term = np.array([nd["kind"] == "end" for nd in nodes], np.int64)
    first = np.array([nd["children"][0] if nd["children"] else -1 for nd in nodes], np.int64)
    n_act = np.array([len(nd["children"]) for nd in nodes], np.int64)
    owner = np.array([-1 if nd["kind"] == "end" else nd["who"] for nd in nodes], np.int64)
    term = np.full(N, -1, np.int64)
    ends = [i for i in range(N) if is_term[i]]
    term[ends] = np.arange(len(ends))
    U = np.array([nodes[i]["points"] for i in ends])
    early = {p: np.array([i for i in range(N) if owner[i] == p and nodes[i]["phase"] == 0], np.int64) for p in (0, 1)}
    group = np.arange(9) // 3  # before the draw a player knows his dealt card only
    g = make_custom_game(dict(is_term=is_term, first=first, n_act=n_act, term=term, owner=owner), U, [0, 1], [9, 9],
                         ties=[(0, early[0], group), (1, early[1], group)])
    # every deal: the ranks of mano's card, postre's, mano's draw, postre's draw (two cards of each rank)
    counts: dict[tuple, float] = {}
    for perm in itertools.permutations(range(6), 4):
        r = tuple(c // 2 for c in perm)
        counts[r] = counts.get(r, 0.0) + 1.0 / 360.0
    keys = list(counts)
    r = np.array(keys, np.int64)
    st = np.stack([3 * r[:, 0] + r[:, 2], 3 * r[:, 1] + r[:, 3]], axis=1).astype(np.int32)
    o = ((r[:, 0] >= r[:, 1]) * 1 + (r[:, 0] <= r[:, 1]) * 2 + (r[:, 2] >= r[:, 3]) * 4
         + (r[:, 2] <= r[:, 3]) * 8).astype(np.int64)
    w = np.array([counts[k] for k in keys])
    phase = np.array([nd.get("phase", -1) for nd in nodes], np.int64)
    return g, (st, o, w), phase


# ---------------------------------------------------------------------------
# an independent solver and best response over the explicit information sets


class Naive:
    """The toy's information sets spelled out: (node, the player's view there) with the view his
    dealt card before the draw and both his cards after it; everything vectorised over deals."""

    def __init__(self, g, data, phase):
        self.t = g.tree
        self.owner = g.owner
        self.U = g.U
        self.st, self.o, self.w = data
        self.phase = phase
        self.D = self.st.shape[0]

    def view(self, n: int) -> np.ndarray:
        s = self.st[:, int(self.owner[n])].astype(np.int64)
        return s // 3 if self.phase[n] == 0 else 3 + s  # views 0-2 (dealt card) and 3-11 (both cards)

    def strat(self, sig: dict, n: int) -> np.ndarray:
        """[deals, actions]: the strategy each deal meets at ``n``."""
        return sig[n][self.view(n)]

    def forward(self, sig):
        N = self.t.n_nodes
        reach = np.ones((N, 2, self.D))
        for n in range(N):
            if self.t.is_term[n]:
                continue
            p = int(self.owner[n])
            s = self.strat(sig, n)
            for a in range(int(self.t.n_act[n])):
                c = int(self.t.first[n]) + a
                reach[c] = reach[n]
                reach[c, p] = reach[n, p] * s[:, a]
        return reach

    def values(self, sig):
        N = self.t.n_nodes
        v = np.zeros((N, self.D))
        for n in range(N - 1, -1, -1):
            if self.t.is_term[n]:
                v[n] = self.U[int(self.t.term[n]), self.o]
            else:
                f, na = int(self.t.first[n]), int(self.t.n_act[n])
                v[n] = (self.strat(sig, n) * v[f: f + na].T).sum(axis=1)
        return v

    def uniform(self):
        return {n: np.full((12, int(self.t.n_act[n])), 1.0 / int(self.t.n_act[n]))
                for n in range(self.t.n_nodes) if not self.t.is_term[n]}

    def solve(self, iterations: int):
        """CFR+ (regrets floored at 0, linear averaging), both players updated together."""
        R = {n: np.zeros_like(x) for n, x in self.uniform().items()}
        S = {n: np.zeros_like(x) for n, x in R.items()}
        for it in range(1, iterations + 1):
            sig = {}
            for n, r in R.items():
                pos = np.maximum(r, 0.0)
                tot = pos.sum(axis=1, keepdims=True)
                sig[n] = np.where(tot > 0, pos / np.where(tot > 0, tot, 1.0), 1.0 / r.shape[1])
            reach = self.forward(sig)
            v = self.values(sig)
            for n in R:
                p = int(self.owner[n])
                sign = 1.0 if p == 0 else -1.0
                f, na = int(self.t.first[n]), int(self.t.n_act[n])
                cf = self.w * reach[n, 1 - p] * sign
                vw = self.view(n)
                for a in range(na):
                    reg = cf * (v[f + a] - v[n])
                    R[n][:, a] = np.maximum(R[n][:, a] + np.bincount(vw, reg, minlength=12), 0.0)
                    S[n][:, a] += it * np.bincount(vw, self.w * reach[n, p] * self.strat(sig, n)[:, a],
                                                   minlength=12) / np.maximum(np.bincount(vw, self.w, minlength=12), 1e-300)
        avg = {}
        for n, x in S.items():
            tot = x.sum(axis=1, keepdims=True)
            avg[n] = np.where(tot > 0, x / np.where(tot > 0, tot, 1.0), 1.0 / x.shape[1])
        return avg

    def value(self, sig) -> float:
        return float((self.w * self.values(sig)[0]).sum())

    def best_response_value(self, sig, p: int) -> float:
        """Player ``p``'s best response (team ``p``'s utility), bottom-up over his information sets."""
        reach = self.forward(sig)
        sign = 1.0 if p == 0 else -1.0
        N = self.t.n_nodes
        v = np.zeros((N, self.D))
        for n in range(N - 1, -1, -1):
            if self.t.is_term[n]:
                v[n] = sign * self.U[int(self.t.term[n]), self.o]
                continue
            f, na = int(self.t.first[n]), int(self.t.n_act[n])
            if int(self.owner[n]) == p:
                vw = self.view(n)
                cf = self.w * reach[n, 1 - p]
                score = np.stack([np.bincount(vw, cf * v[f + a], minlength=12) for a in range(na)])
                best = np.argmax(score, axis=0)[vw]
                v[n] = v[f + best, np.arange(self.D)]
            else:
                v[n] = (self.strat(sig, n) * v[f: f + na].T).sum(axis=1)
        return float((self.w * v[0]).sum())

    def from_framework(self, g, sigma) -> dict:
        """The framework's strategy (stored layout, full states) per view."""
        out = {}
        for n in range(self.t.n_nodes):
            if self.t.is_term[n]:
                continue
            blk = g.block(sigma, n)  # [9 states, actions]
            x = np.zeros((12, blk.shape[1]))
            x[3:] = blk
            x[:3] = blk[::3]  # the dealt card's view: the states of a tie play alike
            out[n] = x
        return out


@pytest.fixture(scope="module")
def toy():
    return whole_hand_toy()


def test_the_toy_hand_by_hand_calculation(toy):
    """Mano always cuts and both always pass: each lance gives 1 en paso to the better dealt
    card.  With two cards of each rank postre's card equals mano's with probability 1/5 and is
    higher or lower with 2/5 each, so mano wins each lance with 3/5: value 2 (3/5 - 2/5) = 0.4."""
    g, (st, o, w), phase = toy
    sigma = g.uniform()
    for n in range(g.tree.n_nodes):
        if not g.tree.is_term[n]:
            g.block(sigma, n)[:] = np.eye(int(g.tree.n_act[n]))[1 if n == 0 else 0]  # corto at the root, else paso
    assert float((deal_values(g, sigma, st, o) * w).sum()) == pytest.approx(0.4, abs=1e-12)
    assert abs(w.sum() - 1) < 1e-12


def _random_tied(g, rng):
    """A strategy that plays alike in the states of every tie."""
    sigma = g.uniform()
    for n in range(g.tree.n_nodes):
        if g.tree.is_term[n]:
            continue
        blk = g.block(sigma, n)
        x = rng.dirichlet(np.ones(blk.shape[1]), size=blk.shape[0])
        blk[:] = x
    for k, nodes, group in g.ties:
        for n in nodes:
            blk = g.block(sigma, int(n))
            blk[:] = blk[group * 3]  # each group's first state
    return sigma


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_whole_hand_best_response_against_an_independent_one(toy, seed):
    """The framework's best response of each player, which must choose one action for each
    information set of what he knows at that point, equals the independent one exactly."""
    g, data, phase = toy
    nv = Naive(g, data, phase)
    sigma = _random_tied(g, np.random.default_rng(seed))
    assert g.tied(sigma)
    dg = DealGame(g, data)
    SIG = dg.layout.from_game(sigma)
    for k in (0, 1):
        dev = dg.layout.with_rows(SIG, k, best_response(dg, k, SIG))
        fw = ratio(*dg.sample_values(k, dev, Sample()), exact=True)[0]
        assert fw == pytest.approx(nv.best_response_value(nv.from_framework(g, sigma), k), abs=1e-12)
        assert g.tied(dg.layout.to_game(dev))
    # a best response that ignored the ties (seeing the card to be drawn) would gain more
    untied = make_custom_game(dict(is_term=g.tree.is_term, first=g.tree.first, n_act=g.tree.n_act, term=g.tree.term,
                                   owner=g.owner), g.U, [0, 1], [9, 9])
    du = DealGame(untied, data)
    S2 = du.layout.from_game(sigma)
    dev2 = du.layout.with_rows(S2, 0, best_response(du, 0, S2))
    seeing = ratio(*du.sample_values(0, dev2, Sample()), exact=True)[0]
    assert seeing > nv.best_response_value(nv.from_framework(g, sigma), 0) + 1e-3


def test_whole_hand_solved_by_the_framework_agrees_with_an_independent_solution(toy):
    """CFR on the whole game (mus round and both lances together) reaches an equilibrium: its
    exact NashConv is small, the independent best responses agree with the framework's, its
    value equals the independent solver's, and the cut is decided by what each player knows."""
    g, data, phase = toy
    strat = solve(DealGame(g, data), SolveConfig.preset("dcfr", 3000))
    assert g.tied(strat.sigma)
    e = measure(DealGame(g, data), strat.sigma, team=False)
    assert e.exact and e.nashconv < 0.003
    nv = Naive(g, data, phase)
    mine = nv.from_framework(g, strat.sigma)
    br = [nv.best_response_value(mine, p) for p in (0, 1)]
    assert br[0] + br[1] == pytest.approx(e.nashconv, abs=1e-9)
    ref = nv.solve(1500)
    ref_nc = nv.best_response_value(ref, 0) + nv.best_response_value(ref, 1)
    assert ref_nc < 0.01  # the independent solution is itself an equilibrium
    assert e.value == pytest.approx(nv.value(ref), abs=0.01)
    assert e.value == pytest.approx(nv.value(mine), abs=1e-12)
