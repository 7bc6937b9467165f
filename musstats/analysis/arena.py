"""The arena: two strategy sets play each other, seats permuted, on common random deals.

* **Hands.**  Every deal is played twice, strategy set A at mano and third (team 0) and
  then at second and postre (team 1), B at the other seats; the score of the deal is
  A's mean expected stones over the two, exact over the players' randomisation (the
  sum over the lances, an accepted órdago worth the solver's K stones).  Mean ± SE over
  the deals.
* **Games.**  Whole games to the target: each game is played twice on the same
  sequence of deals, once with A's team mano in the first hand and once with B's, mano
  passing to the other team every hand; actions drawn from the strategies, dejes
  taken at once, then the count in lance order (the first to reach the target wins at
  that moment); an accepted órdago ends the game.  The score of the pair is A's share
  of its two games; mean ± SE over the pairs.

Strategy sets: :data:`musstats.analysis.play.STRATEGY_SETS`.  Hands are played as dealt
(no mus round), the hands the shipped equilibrium strategies were solved for.

**Whole hands** (:data:`WHOLE_HAND_SETS`): ``mus-read``, the strategies that read who cut,
and ``whole-hand``, the same betting with the cuts of the mus decision's equilibrium
(:mod:`musstats.analysis.cut_game`; each hand by its likelier choice), both betting chica, pares
and juego by the strategies solved per public state where they ship, play the equilibrium
(the per-lance strategies, with the shipped cut flags) or each other on whole hands: each hand
goes through the mus phase (each seat cutting by its set's rule, the discard table), then is
bet twice with the seats swapped (:func:`musstats.analysis.whole_hand.hand_scores`); where
the two sets cut by different rules each seating has its own mus phase on the same cards.
Games are not played in this mode.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from musstats.analysis.play import STRATEGY_SETS, _check_set, hand_steps, hand_values
from musstats.base.errors import MusError
from musstats.engines.betting import deals as D
from musstats.engines.betting.game import DEFAULT_ORDAGO_STONES
from musstats.engines.estimate import mean_se
from musstats.engines.run import Interrupt
from musstats.rules.variant import Variant, make_variant

__all__ = ["WHOLE_HAND_SETS", "ARENA_SETS", "pair_response", "PAIR_SAMPLES", "ArenaResult", "arena", "play_games", "MAX_HANDS_PER_GAME", "DEFAULT_HANDS", "DEFAULT_GAMES"]

#: strategy sets played on whole hands (the mus phase, then the lances bet by what each set reads)
WHOLE_HAND_SETS = ("mus-read", "whole-hand")
#: every set the arena plays
ARENA_SETS = STRATEGY_SETS + WHOLE_HAND_SETS
#: the betting each set plays whole hands with (:data:`musstats.analysis.whole_hand.STRATEGY_SETS`)
_WHOLE_NAME = {"equilibrium": "per-lance", "mus-read": "mus-read", "whole-hand": "mus-read"}
#: who cuts the mus in each set (:data:`musstats.analysis.cut_game.CUT_RULES`): the shipped cut flags, or the mus
#: decision's equilibrium
_WHOLE_CUTS = {"equilibrium": "flags", "mus-read": "flags", "whole-hand": "equilibrium"}

DEFAULT_HANDS = 200_000
DEFAULT_GAMES = 2_000
#: every hand awards at least 2 stones (grande and chica), so a game to T ends within T hands... x2: a bound
MAX_HANDS_PER_GAME = 80
_CHUNK = 1 << 17
#: hands valued between two looks at Ctrl-C (the values are exact per hand: the chunking changes nothing)
_HANDS_CHUNK = 1 << 15


@dataclass
class ArenaResult:
    """Strategy set ``a`` against ``b``: A's stones per hand (± SE) and share of games won (± SE)."""

    a: str
    b: str
    hands: int
    stones: float | None
    stones_se: float | None
    games: int
    won: float | None
    won_se: float | None
    partial: bool = False
    meta: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {**self.meta, "a": self.a, "b": self.b, "partial": self.partial,
                "hands": {"played": self.hands, "a_stones_per_hand": self.stones, "se": self.stones_se},
                "games": {"played": self.games, "a_share_won": self.won, "se": self.won_se}}

    def to_frame(self):
        """One row per measure: what, value, se, n."""
        import pandas as pd

        df = pd.DataFrame([{"measure": "stones per hand (A)", "value": self.stones, "se": self.stones_se,
                            "n": self.hands},
                           {"measure": "share of games won (A)", "value": self.won, "se": self.won_se,
                            "n": self.games}])
        df.attrs.update({**self.meta, "a": self.a, "b": self.b, "partial": self.partial})
        return df


def _mean_se(x: np.ndarray) -> tuple[float | None, float | None]:
    """Mean and standard error of the per-deal (per-pair) scores; None for nothing played."""
    if x.size == 0:
        return None, None
    m, se = mean_se(x.sum(), (x * x).sum(), x.size)
    return float(m), float(se)


def play_games(steps_a0: np.ndarray, steps_b0: np.ndarray, target: int, a_first: bool,
               start: tuple[int, int] = (0, 0)) -> np.ndarray:
    """Play games: ``steps_a0[g, j]`` are the 8 signed steps of hand ``j`` of game ``g``
    when A's team is mano's team (team 0), ``steps_b0`` when B's is.  Mano alternates,
    A's team mano first when ``a_first``; the score starts at ``start`` (A, B).
    Returns 1.0 where A won, 0.0 where B won, 0.5 where nobody reached the target."""
    g, h = steps_a0.shape[:2]
    a = np.full(g, int(start[0]), np.int64)
    b = np.full(g, int(start[1]), np.int64)
    winner = np.full(g, -1)
    for j in range(h):
        live = winner < 0
        if not live.any():
            break
        a_mano = (j % 2 == 0) == a_first
        s = steps_a0[:, j] if a_mano else steps_b0[:, j]
        for i in range(s.shape[1]):
            x = s[:, i]
            to_a = (x > 0) if a_mano else (x < 0)
            amt = np.abs(x)
            a += np.where(live & to_a, amt, 0)
            b += np.where(live & ~to_a, amt, 0)
            winner[live & (a >= target)] = 0
            winner[live & (b >= target)] = 1
            live = winner < 0
    return np.where(winner < 0, 0.5, (winner == 0).astype(np.float64))


def arena(a: str = "equilibrium", b: str = "paso", *, hands: int = DEFAULT_HANDS, games: int = DEFAULT_GAMES,
          seed: int = 1, variant: str | Variant = "8-reyes", target: int | None = None,
          progress: Callable[[int, int], None] | None = None) -> ArenaResult:
    """Strategy set ``a`` against ``b`` over ``hands`` deals and ``games`` games (an even
    number: pairs of games with each side mano first; 0 skips either part).  Ctrl-C
    returns what was played so far, marked partial."""
    from musstats.rules import checks

    a, b = _arena_set(a), _arena_set(b)
    v = make_variant(variant, "off", target)
    if v.ten_kings:
        raise MusError("the arena needs the betting equilibria, which are not available with ten kings")
    n_hands = checks.whole(hands, "hands", 0, 10_000_000)
    n_games = checks.whole(games, "games", 0, 1_000_000)
    if n_games % 2:
        raise MusError(f"games are played in pairs (each side mano first once): give an even number, got {n_games}")
    sd = checks.seed(seed)
    if a in WHOLE_HAND_SETS or b in WHOLE_HAND_SETS:
        return _whole_hand_arena(a, b, n_hands, sd, v, progress)
    total = n_hands + (n_games // 2) * MAX_HANDS_PER_GAME
    done = 0
    xs: list[np.ndarray] = []
    ws: list[np.ndarray] = []
    partial = False
    with Interrupt() as ctrl_c:
        for start in range(0, n_hands, _HANDS_CHUNK):
            if ctrl_c.hit:
                partial = True
                break
            d = D.stream_deals(v, sd, start, min(_HANDS_CHUNK, n_hands - start), D.ARENA_KEY)
            try:
                x = (hand_values(d, v, a, b, stop=lambda: ctrl_c.hit)
                     - hand_values(d, v, b, a, stop=lambda: ctrl_c.hit))
            except KeyboardInterrupt:  # stopped between two subgames: the chunk is dropped
                partial = True
                break
            xs.append(x / 2)
            done += d.shape[0]
            if progress is not None:
                progress(done, total)
        pairs_per_chunk = max(1, _CHUNK // MAX_HANDS_PER_GAME)
        for p0 in range(0, n_games // 2, pairs_per_chunk):
            if ctrl_c.hit:
                partial = True
                break
            np_ = min(pairs_per_chunk, n_games // 2 - p0)
            d = D.stream_deals(v, sd, p0 * MAX_HANDS_PER_GAME, np_ * MAX_HANDS_PER_GAME, D.GAME_KEY)
            key = sd * 1_000_003 + p0
            s_a0 = hand_steps(d, v, a, b, key).reshape(np_, MAX_HANDS_PER_GAME, 8)
            s_b0 = hand_steps(d, v, b, a, key).reshape(np_, MAX_HANDS_PER_GAME, 8)
            ws.append((play_games(s_a0, s_b0, v.target, True) + play_games(s_a0, s_b0, v.target, False)) / 2)
            done += d.shape[0]
            if progress is not None:
                progress(done, total)
    x = np.concatenate(xs) if xs else np.zeros(0)
    w = np.concatenate(ws) if ws else np.zeros(0)
    m, se = _mean_se(x)
    mw, sew = _mean_se(w)
    meta = {"variant": v.name, "rules": v.describe(), "target": v.target, "seed": sd, "deal": "as-dealt",
            "info": "private", "ordago_stones_in_hands": DEFAULT_ORDAGO_STONES,
            "method": ("hands: each deal played with A at team 0 and at team 1, A's mean expected stones "
                       "(exact over the strategies' randomisation); games: pairs of games on common deals, "
                       "each side mano first once, actions drawn (seeded), dejes at once then the count"),
            "strategy_sets": list(STRATEGY_SETS)}
    return ArenaResult(a, b, int(x.size), m, se, int(2 * w.size), mw, sew, partial, meta)



def _arena_set(name: str) -> str:
    n = str(name).strip().lower()
    if n not in ARENA_SETS:
        raise MusError(f"unknown strategy set {name!r}; accepted: {', '.join(ARENA_SETS)}")
    return n


def _whole_hand_arena(a: str, b: str, n_hands: int, sd: int, v: Variant,
                      progress: Callable[[int, int], None] | None) -> ArenaResult:
    """``a`` against ``b`` on whole hands (module doc)."""
    from musstats.analysis.cut_game import cut_rule_flags
    from musstats.analysis.whole_hand import deal_hands, hand_scores

    for name in (a, b):
        if name not in _WHOLE_NAME:
            raise MusError(f"on whole hands {' and '.join(WHOLE_HAND_SETS)} play the equilibrium (the per-lance "
                           f"strategies) or each other, not {name!r}")
    one_rule = _WHOLE_CUTS[a] == _WHOLE_CUTS[b]
    fa, fb = cut_rule_flags(_WHOLE_CUTS[a], v), cut_rule_flags(_WHOLE_CUTS[b], v)
    xs: list[np.ndarray] = []
    partial = False
    with Interrupt() as ctrl_c:
        for i, start in enumerate(range(0, n_hands, _CHUNK)):
            if ctrl_c.hit:
                partial = True
                break
            m, s = min(_CHUNK, n_hands - start), D.derived_seed(sd, D.ARENA_KEY, 1, i)
            if one_rule:  # one mus phase for both seatings
                h = deal_hands(m, s, v, fa)
                sc = hand_scores(h, _WHOLE_NAME[a], _WHOLE_NAME[b], v, seed=s)
                x0, x1 = sc[:, 0], sc[:, 1]
            else:  # each seating's own mus phase (a seat cuts by its set's rule), the same cards
                x0 = hand_scores(deal_hands(m, s, v, np.where(_TEAM0[:, None], fa, fb)), _WHOLE_NAME[a],
                                 _WHOLE_NAME[b], v, seed=s)[:, 0]
                x1 = hand_scores(deal_hands(m, s, v, np.where(_TEAM0[:, None], fb, fa)), _WHOLE_NAME[a],
                                 _WHOLE_NAME[b], v, seed=s)[:, 1]
            xs.append((x0 - x1) / 2)
            if progress is not None:
                progress(start + m, n_hands)
    x = np.concatenate(xs) if xs else np.zeros(0)
    mean, se = _mean_se(x)
    meta = {"variant": v.name, "rules": v.describe(), "target": v.target, "seed": sd, "deal": "whole hands",
            "info": "private", "ordago_stones_in_hands": DEFAULT_ORDAGO_STONES,
            "method": ("hands: each hand through the mus phase (each seat cutting by its set's rule: the shipped "
                       "cut flags, or for whole-hand the mus decision's equilibrium) and the discard table, then bet "
                       "with A at team 0 and at team 1, A's mean expected stones (each lance exact over the "
                       "strategies' randomisation given its public state; the per-lance strategies read nothing of "
                       "the mus, mus-read and whole-hand read who cut and bet chica, pares and juego by the "
                       "strategy solved for the public state where one ships, the earlier lances' betting drawn "
                       "from each seating's strategies); games: not played on whole hands"),
            "cuts": {a: _WHOLE_CUTS[a], b: _WHOLE_CUTS[b]},
            "strategy_sets": list(ARENA_SETS)}
    return ArenaResult(a, b, int(x.size), mean, se, 0, None, None, partial, meta)


#: seats of team 0 (mano and third)
_TEAM0 = np.array([True, False, True, False])


#: samples per owner of :func:`pair_response`'s search and valuation
PAIR_SAMPLES = 50_000


def pair_response(strategy: str = "equilibrium", lance: str = "chica", *, samples: int = PAIR_SAMPLES,
                  variant: str | Variant = "8-reyes") -> dict:
    """What a pair gains against strategy set ``strategy`` in ``lance`` (hands as dealt, every
    seat declaring pares or juego there) by changing both partners' play together, each still
    seeing only his own hand: the team deviation (alternating best responses from several starts,
    chosen on ``samples`` samples per owner and valued on as many independent ones: a lower
    bound), for mano and third (``team0``) and for second and postre (``team1``), in stones per
    lance, ± standard error, beside the in-sample value (biased up)."""
    from musstats.analysis.betting import _strategy
    from musstats.analysis.play import SOLVED_SETS, strategy_sigma
    from musstats.engines.betting.solve import solver_game
    from musstats.engines.betting.specs import Spec
    from musstats.engines.betting.tree import ALL_SEATS
    from musstats.engines.solving.exploit import team_deviation
    from musstats.rules import checks

    strategy = _check_set(strategy)
    lance = checks.lance(lance)
    v = make_variant(variant, "off", None)
    n = checks.whole(samples, "samples", 1_000, 10_000_000)
    sol = _strategy(lance, ALL_SEATS, "as-dealt", "private", v, method=SOLVED_SETS.get(strategy, "auto"))
    sigma = strategy_sigma(strategy, sol.game, sol.sigma, lance, ALL_SEATS, v)
    sg = solver_game(Spec(lance=lance, pattern=ALL_SEATS, variant=v), purpose="measure", samples=n)
    SIG = sg.layout.from_game(sigma)
    out: dict = {"strategy": strategy, "lance": lance, "samples": n, "units": "stones per lance",
                 "method": "the partners' alternating best responses from several starts, chosen on one sample "
                           "and valued on an independent one (a lower bound); gain_in: in sample"}
    for t in (0, 1):
        g = team_deviation(sg, SIG, t)
        out[f"team{t}"] = {"gain": g.gain, "gain_se": g.gain_se, "gain_in": g.gain_in, "found_from": g.how}
    return out
