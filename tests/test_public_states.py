"""Pares in a public state: the seats' ranges weighted by the history, against hands played whole.

The public state's game deals from the full deck and weighs each seat's hand by his own
probabilities of the history (musstats.analysis.public_states.range_weights).  Here the same
state is reached the other way: whole hands are dealt and played by the shipped cut rule and
strategies, actions drawn (musstats.analysis.whole_hand.simulate), and those whose public
history is the state's are kept.  The pares strategy's value on them, exact over the players'
randomisation per hand (the deal solver's kernel), is the state's value up to Monte Carlo
error; so is the range-weighted game's.  The two share no sampling code.
"""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def played():
    from musstats.analysis import whole_hand as W

    return W.simulate(1_000_000, 77, None, "mus-read", "equilibrium")


def _in_state(played, s):
    """The hands played whole whose public history is the state ``s``'s."""
    sel = (played.pattern[s.lance] == s.pattern) & ~played.mus & (played.cutter == s.cutter) & \
        (played.node["grande"] == s.grande)
    if s.lance in ("pares", "juego"):
        sel &= played.node["chica"] == s.chica
    if s.lance == "juego":
        sel &= (played.pares == s.pares) & (played.node["pares"] == s.pares_node)
    return sel


@pytest.mark.parametrize("lance,pattern,least", [("pares", 11, 500), ("chica", 15, 500), ("juego", 3, 300)])
def test_range_weighted_value_is_the_value_on_hands_played_whole(played, lance, pattern, least):
    from musstats.analysis import public_states as P
    from musstats.analysis import whole_hand as W
    from musstats.engines.betting.info import prepare
    from musstats.engines.betting.specs import Spec
    from musstats.engines.betting.store import get_state_solved
    from musstats.engines.betting.vector import vector_game
    from musstats.engines.solving.dealt import deal_values
    from musstats.engines.solving.exploit import ratio
    from musstats.engines.solving.game import Sample
    from musstats.rules.variant import Variant

    v = Variant()
    states, cnt = P.public_states(played, pattern, lance)
    assert cnt[0] >= cnt[-1] and cnt.sum() == ((played.pattern[lance] == pattern) & ~played.mus).sum()
    checked = 0
    z = []
    for s, n in zip(states[:3], cnt[:3]):
        sel = _in_state(played, s)
        assert sel.sum() == n and n > least, (s, n)
        # the strategy the hands were played with: the state's own where one ships, else the one given who cut
        sol = get_state_solved(v, s.store_key(), lance)
        sol = sol or W._lance_strategy(lance, pattern, "as-dealt", "mus-read", v)
        st, o, _ = prepare(sol.game, played.final[sel], v, lance, s.cutter if sol.game.info == "mus-read" else None)
        x = deal_values(sol.game, np.asarray(sol.sigma), st, o)
        want, want_se = float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size))
        spec = Spec(lance=lance, pattern=pattern, info="private", variant=v)
        game = spec.game()
        vg = vector_game(game, v, spec.pattern).configure(range_weights=P.range_weights(s, v), n_eval=40_000,
                                                          seed=5)
        SIG = vg.layout.from_game(P.state_strategy(game, s, v))
        got, got_se = ratio(*vg.sample_values(0, SIG, Sample("eval")))
        assert abs(got - want) < 4 * np.hypot(got_se, want_se), (s, got, want)
        prior, prior_se = ratio(*vg.configure(range_weights=None).sample_values(0, SIG, Sample("eval")))
        z.append(abs(prior - want) / np.hypot(prior_se, want_se))
        checked += 1
    assert checked == 3
    assert max(z) > 4  # the history matters: unweighted, the hands as dealt give another value


def test_a_public_state_names_who_cut():
    from musstats.analysis.public_states import PublicState, range_weights
    from musstats.base.errors import MusError

    with pytest.raises(MusError):
        range_weights(PublicState(11, -1, 0, 0))
