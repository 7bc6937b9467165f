"""Hands played by strategy sets: what the arena and the betting-aware game model share.

A *strategy set* says how a team bets in every lance (each of its two seats speaks with
his own hand only: the private information model):

* ``equilibrium`` -- the shipped equilibrium strategies (:mod:`musstats.analysis.betting`,
  solved for hands as dealt, or for hands after one mus round with ``deal="after-mus"``; the
  team-sound scheme);
* ``individual`` -- an equilibrium of the four individual players (DCFR without the
  exploration floor), kept for comparison: no player gains by changing alone, but a pair
  changing together does;
* ``paso`` -- the en-paso player of the random-hands model: never bets nor raises, and
  refuses every bet and every órdago;
* ``heuristic`` -- the random-hands player: with ``P`` = P(his team wins the lance | his
  hand, seat and the public declarations) against random hands, he opens ``envido 2``
  when ``P >= 0.65`` and ``órdago`` when ``P >= 0.90``, accepts a bet when ``P >= 0.55``
  and raises it (the smallest raise) when ``P >= 0.80``, and accepts an órdago when ``P >=
  0.50`` (today's naive órdago advice).  ``HEURISTIC`` holds the thresholds;
* ``random`` -- every legal action with equal probability.

Each lance of a deal is played in its subgame (lance and declaration pattern, as the
solver sees it); lances nobody can bet (pares or juego held by one team only) are
counted en paso.  :func:`hand_values` gives the expected stones of a deal over the
players' randomisation (exact given the deal); :func:`hand_steps` plays the actions out
(sampled) and returns the stones in the order they are taken: the dejes at once, lance
by lance, then the count in lance order; an accepted órdago ends the game.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.betting import deals as D
from musstats.engines.betting.game import paso_stones
from musstats.engines.solving.game import Game
from musstats.engines.betting.tree import ACCEPTED, ORDAGO, PASO, REFUSED, BettingTree
from musstats.rules.variant import Variant

__all__ = ["STRATEGY_SETS", "HEURISTIC", "ORDAGO_STEP", "STEP_NAMES", "strategy_sigma", "mixed_sigma",
           "sample_terminals", "sample_nodes", "terminal_steps", "hand_values", "unbet_stones", "hand_steps", "win_table"]

STRATEGY_SETS = ("equilibrium", "individual", "paso", "heuristic", "random")
#: the CFR scheme of the strategy sets that are solved strategies
SOLVED_SETS = {"equilibrium": "auto", "individual": "dcfr"}
#: thresholds of the heuristic player on P(his team wins the lance) against random hands
HEURISTIC = {"envido": 0.65, "ordago": 0.90, "accept": 0.55, "raise": 0.80, "accept_ordago": 0.50}
#: the signed "stones" of a step that ends the game (an accepted órdago): more than any target
ORDAGO_STEP = 999
#: the eight steps of :func:`hand_steps`: dejes at once, lance by lance, then the count
STEP_NAMES = ("deje grande", "deje chica", "deje pares", "deje juego/punto",
              "grande", "chica", "pares", "juego/punto")
_COUNT_STEP = {"grande": 0, "chica": 1, "pares": 2, "juego": 3, "punto": 3}


def _check_set(name: str) -> str:
    n = str(name).strip().lower()
    if n not in STRATEGY_SETS:
        raise MusError(f"unknown strategy set {name!r}; accepted: {', '.join(STRATEGY_SETS)}")
    return n


# ---------------------------------------------------------------------------
# strategy sets as behaviour strategies on a subgame's private game


@lru_cache(maxsize=8)
def win_table(variant: Variant, seed: int = 1) -> dict[tuple[str, int], np.ndarray]:
    """Per subgame: P(the team of seat q wins the lance | hand h at seat q), float [4, hands],
    against random hands in that subgame (as dealt; 4 blocks of deals; 0.5 for a hand
    never seen there)."""
    from musstats.tables.hands import hand_tables

    H = hand_tables(variant).n_hands
    pools = D.subgame_pools("as-dealt", variant, {sg: 1 << 22 for sg in D.SUBGAMES}, seed, D.HEURISTIC_KEY,
                            max_blocks=4)
    out = {}
    for (lance, pat), d in pools.items():
        p = np.full((4, H), 0.5)
        if d.shape[0]:
            o, _ = D.lance_states(d.astype(np.int64), lance, variant, False)
            s0 = (o // 49).astype(float)
            for q in range(4):
                win = s0 if q % 2 == 0 else 1 - s0
                n = np.bincount(d[:, q], minlength=H)
                w = np.bincount(d[:, q], win, H)
                p[q] = np.where(n > 0, w / np.maximum(n, 1), 0.5)
        out[(lance, pat)] = p
    return out


def _rule_choice(actions: tuple[str, ...], p: np.ndarray, name: str) -> np.ndarray:
    """The action index chosen by the paso or heuristic player, per state (P = ``p``)."""
    a = {x: i for i, x in enumerate(actions)}
    h = HEURISTIC
    n = p.shape[0]
    if "paso" in a:  # opening the lance
        out = np.full(n, a["paso"])
        if name == "heuristic":
            bets = [x for x in actions if x.startswith("envido")]
            if bets:
                out[p >= h["envido"]] = a[bets[0]]
            if "órdago" in a:
                out[p >= h["ordago"]] = a["órdago"]
        return out
    out = np.full(n, a["no quiero"])
    if name != "heuristic":
        return out
    if "paso" not in a and len(actions) == 2:  # facing an órdago
        out[p >= h["accept_ordago"]] = a["quiero"]
        return out
    out[p >= h["accept"]] = a["quiero"]
    raises = [x for x in actions if x.startswith("+")]
    if raises:
        out[p >= h["raise"]] = a[raises[0]]
    return out


def strategy_sigma(name: str, game: Game, eq_sigma: np.ndarray, lance: str, pattern: int,
                   variant: Variant) -> np.ndarray:
    """The behaviour strategy of strategy set ``name`` on a subgame's private game."""
    name = _check_set(name)
    if name in SOLVED_SETS:
        return eq_sigma
    if name == "random":
        return game.uniform()
    if game.info != "private":
        raise MusError("strategy sets play the private information model")
    # the paso player looks at nothing; the heuristic one at his odds against random hands
    H = int(game.n_states[0])
    p = win_table(variant)[(lance, pattern)] if name == "heuristic" else np.zeros((4, H))
    sigma = np.zeros(game.n_slots)
    t = game.tree
    for nd in t.nodes:
        if nd.is_terminal:
            continue
        ch = _rule_choice(nd.actions, p[nd.seat], name)
        blk = np.zeros((p.shape[1], len(nd.actions)))
        blk[np.arange(p.shape[1]), ch] = 1.0
        game.block(sigma, nd.id)[:] = blk
    return sigma


def mixed_sigma(game: Game, team0: np.ndarray, team1: np.ndarray) -> np.ndarray:
    """One profile: the owners of team 0 play ``team0``, those of team 1 ``team1``."""
    out = np.array(team0, np.float64, copy=True)
    for k in range(game.n_owners):
        if int(game.team[k]) == 1:
            lo = int(game.obase[k])
            hi = lo + int(game.n_states[k]) * int(game.stride[k])
            out[lo:hi] = team1[lo:hi]
    return out


def sample_terminals(game: Game, sigma: np.ndarray, st: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Play every deal down the tree: at each decision the owner's action is drawn from
    ``sigma`` with the uniform ``u[deal, depth]``.  Returns the terminal row of each deal."""
    return game.tree.term[sample_nodes(game, sigma, st, u)]


def sample_nodes(game: Game, sigma: np.ndarray, st: np.ndarray, u: np.ndarray) -> np.ndarray:
    """:func:`sample_terminals`, returning the terminal node of each deal (its path: who bet)."""
    t = game.tree
    n = st.shape[0]
    node = np.zeros(n, np.int64)
    max_act = int(t.n_act.max())
    for depth in range(u.shape[1]):
        idx = np.nonzero(t.is_term[node] == 0)[0]
        if idx.size == 0:
            break
        nd = node[idx]
        k = game.owner[nd]
        base = game.obase[k] + st[idx, k].astype(np.int64) * game.stride[k] + game.noff[nd]
        na = t.n_act[nd]
        cum = np.zeros(idx.size)
        chosen = np.full(idx.size, -1, np.int64)
        last = np.zeros(idx.size, np.int64)
        x = u[idx, depth]
        for a in range(max_act):
            ok = a < na
            pa = np.where(ok, sigma[np.where(ok, base + a, 0)], 0.0)
            last[pa > 0] = a
            cum += pa
            chosen[(chosen < 0) & ok & (pa > 0) & (x < cum)] = a
        chosen = np.where(chosen < 0, last, chosen)
        node[idx] = t.first[nd] + chosen
    if (t.is_term[node] == 0).any():  # pragma: no cover - u too short for the tree
        raise MusError("internal: the tree is deeper than the uniforms given")
    return node


def terminal_steps(tree: BettingTree, term: np.ndarray, o: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per deal: (stones taken at once, stones at the count, órdago winner) of terminal
    ``term`` with outcome code ``o``; stones signed (+ team 0, - team 1), the winner 0/1
    where an órdago was accepted, -1 elsewhere."""
    lance = tree.lance
    kind = np.array([x.kind for x in tree.terminals])[term]
    stake = np.array([x.stake for x in tree.terminals])[term]
    by = np.array([x.by for x in tree.terminals])[term]
    deje = np.array([x.deje for x in tree.terminals])[term]
    s_bit = o // 49
    v0, v1 = (o // 7) % 7, o % 7
    sign = np.where(s_bit == 1, 1, -1)
    if lance in ("pares", "juego"):
        vw = np.where(s_bit == 1, v0, v1)
        vby = np.where(by == 0, v0, v1)
    elif lance == "punto":
        vw = vby = np.ones_like(o)
    else:
        vw, vby = np.zeros_like(o), np.zeros_like(o)
    paso_value = vw if lance in ("pares", "juego") else np.ones_like(o)
    by_sign = np.where(by == 0, 1, -1)
    now = np.where(kind == REFUSED, by_sign * deje, 0)
    count = np.select([kind == PASO, kind == ACCEPTED, kind == REFUSED],
                      [sign * paso_value, sign * (stake + vw), by_sign * vby], 0)
    winner = np.where(kind == ORDAGO, 1 - s_bit, -1)
    return now.astype(np.int64), count.astype(np.int64), winner.astype(np.int64)


# ---------------------------------------------------------------------------
# whole hands


def _profiles(lance: str, pat: int, v: Variant, team0: str, team1: str, deal: str = "as-dealt"
              ) -> tuple:
    """A subgame's solved game and how it is played when team 0 plays set ``team0`` and team 1
    ``team1``: (sol, the profile (stored layout), the teams that mix plans ``{team: (plans,
    weights)}``).  Where shipped correlated plans exist
    (:func:`musstats.analysis.betting.played_profiles`) and a team that plays them plays the
    ``equilibrium`` set, its partners draw one plan together (each team apart), read for its
    owners (:class:`~musstats.engines.solving.dealt.MixedValues`, :func:`plan_groups`); the
    lone holder's ``equilibrium`` is his strategy against the pair's mixture, whatever the pair
    plays.  Elsewhere the profile alone and ``{}``."""
    from musstats.analysis.betting import _strategy, played_profiles

    sol = _strategy(lance, pat, deal, "private", v)
    sets = (team0, team1)
    base, mix = played_profiles(sol) if "equilibrium" in sets else (sol.sigma, {})

    def sigma_of(name: str) -> np.ndarray:
        if name == "equilibrium":
            return base
        got = _strategy(lance, pat, deal, "private", v, method=SOLVED_SETS[name]) if name in SOLVED_SETS else sol
        return strategy_sigma(name, sol.game, got.sigma, lance, pat, v)

    own = {name: sigma_of(name) for name in set(sets)}
    profile = own[team0] if team0 == team1 else mixed_sigma(sol.game, own[team0], own[team1])
    return sol, profile, {t: m for t, m in mix.items() if sets[t] == "equilibrium"}


def plan_groups(mixtures: dict, n: int, rng: np.random.Generator) -> list[tuple[dict, np.ndarray]]:
    """Each of ``n`` deals draws the plan of every team of ``mixtures`` (``{team: (plans,
    weights)}``, by the weights; a team's partners play the same plan, each team drawn apart):
    (``{team: plan}``, the deals that drew those plans) for every combination drawn.  No mixture:
    every deal plays the profile and nothing is drawn."""
    code = np.zeros(n, np.int64)
    sizes = {t: int(np.asarray(mixtures[t][1]).size) for t in sorted(mixtures)}
    for t, size in sizes.items():
        w = np.asarray(mixtures[t][1], np.float64)
        code = code * size + (rng.choice(size, size=n, p=w / w.sum()) if size > 1 else 0)
    out = []
    for c in np.unique(code):
        js, rest = {}, int(c)
        for t in reversed(sizes):
            js[t], rest = rest % sizes[t], rest // sizes[t]
        out.append((js, np.nonzero(code == c)[0]))
    return out


def with_plans(game: Game, profile: np.ndarray, mixtures: dict, plans: dict) -> np.ndarray:
    """``profile`` with each team of ``plans`` (``{team: plan}``) playing that plan of its
    mixture (``mixtures[team]``) for its owners."""
    out = profile
    for t, j in plans.items():
        mine = mixtures[t][0][j]
        out = mixed_sigma(game, mine, out) if t == 0 else mixed_sigma(game, out, mine)
    return out


def hand_values(deals: np.ndarray, v: Variant, team0: str, team1: str, deal: str = "as-dealt",
                stop: Callable[[], bool] | None = None) -> np.ndarray:
    """Team 0's expected stones of each deal (float [N]) when team 0 (mano and third) plays
    strategy set ``team0`` and team 1 plays ``team1``: the sum over the lances, an
    accepted órdago worth the payoff's K stones (the solver's game).  ``deal``: the hand
    distribution whose equilibrium strategies the ``equilibrium`` set plays
    (:data:`musstats.engines.betting.deals.DEALS`).  ``stop``: looked at between subgames; when
    it says so, KeyboardInterrupt (the caller keeps what it had)."""
    from musstats.analysis.betting import _variant
    from musstats.engines.betting.info import prepare
    from musstats.engines.solving.dealt import MixedValues

    v = _variant(v, "off")
    team0, team1, deal = _check_set(team0), _check_set(team1), D.check_deal(deal)
    d = np.ascontiguousarray(deals, np.int64)
    total = unbet_stones(d, v)
    for lance, _, _, subs in D.lance_parts(d, v):
        for pat, sel in subs:
            if stop is not None and stop():
                raise KeyboardInterrupt
            sol, profile, mix = _profiles(lance, pat, v, team0, team1, deal)
            st, oo, _ = prepare(sol.game, d[sel], v, lance)
            total[sel] += MixedValues(sol.game, profile, mix)(st, oo)
    return total


def unbet_stones(deals: np.ndarray, v: Variant) -> np.ndarray:
    """Team 0's en-paso stones of each deal (float [N]) from the lances played outside every
    betting subgame (held by one team only: nobody bets them)."""
    total = np.zeros(deals.shape[0])
    for lance, o, played, subs in D.lance_parts(deals, v):
        x = np.where(played, paso_stones(lance, o), 0.0)
        for _, sel in subs:
            x[sel] = 0.0
        total += x
    return total


def hand_steps(deals: np.ndarray, v: Variant, team0: str, team1: str, seed: int,
               record: list | None = None, deal: str = "as-dealt", cutter: np.ndarray | None = None) -> np.ndarray:
    """The stones of each deal in the order they are taken, actions drawn from the
    strategies (seeded): int64 [N, 8] in ``STEP_NAMES`` order, signed (+ team 0, - team 1).
    An accepted órdago is the step ``±ORDAGO_STEP`` at its lance's deje position (the
    game ends there: the later steps are 0).  ``record``: a list that receives
    ``(lance, deal indices, tree, terminal rows)`` of every subgame played; ``deal`` as in
    :func:`hand_values`.  ``cutter`` (int [N], the seat that cut each deal; hands as dealt,
    both teams ``equilibrium``): the hands are bet by the strategies that read who cut."""
    from musstats.analysis.betting import _variant, played_strategy
    from musstats.engines.betting.info import prepare

    v = _variant(v, "off")
    team0, team1, deal = _check_set(team0), _check_set(team1), D.check_deal(deal)
    if cutter is not None and (deal != "as-dealt" or team0 != "equilibrium" or team1 != "equilibrium"):
        raise MusError("the strategies that read who cut bet hands as dealt, both teams by the equilibrium")
    d = np.ascontiguousarray(deals, np.int64)
    n = d.shape[0]
    steps = np.zeros((n, 8), np.int64)
    rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(D.PLAY_KEY,)))
    for lance, o, played, subs in D.lance_parts(d, v):
        i = _COUNT_STEP[lance]
        steps[:, 4 + i] += np.where(played, paso_stones(lance, o), 0).astype(np.int64)
        for pat, sel in subs:
            if cutter is None:
                sol, profile, mix = _profiles(lance, pat, v, team0, team1, deal)
                st, oo, _ = prepare(sol.game, d[sel], v, lance)
            else:
                sol = played_strategy(lance, int(pat), deal, v, read_cut=True)
                st, oo, _ = prepare(sol.game, d[sel], v, lance, np.asarray(cutter, np.int64)[sel])
                profile, mix = sol.sigma, {}
            u = rng.random((sel.size, 32))
            term = np.zeros(sel.size, np.int64)
            for plans, rows in plan_groups(mix, sel.size, rng):
                term[rows] = sample_terminals(sol.game, with_plans(sol.game, profile, mix, plans), st[rows], u[rows])
            if record is not None:
                record.append((lance, sel, sol.game.tree, term))
            now, count, winner = terminal_steps(sol.game.tree, term, oo)
            steps[sel, i] = now
            steps[sel, 4 + i] = count
            w = winner >= 0
            steps[sel[w], i] = np.where(winner[w] == 0, ORDAGO_STEP, -ORDAGO_STEP)
    # an accepted órdago ends the game: nothing after it is taken
    big = np.abs(steps) >= ORDAGO_STEP
    first = np.where(big.any(axis=1), big.argmax(axis=1), 8)
    later = np.arange(8)[None, :] > first[:, None]
    steps[later] = 0
    return steps

