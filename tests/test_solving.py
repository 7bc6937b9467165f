"""The solver framework (musstats.engines.solving) on games whose answers are known.

Expected values come from hand calculation in the docstrings or from brute force over the
players' pure strategies, never from the program's own output.
"""

from __future__ import annotations

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
