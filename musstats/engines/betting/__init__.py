"""The betting equilibrium engine: one lance's betting solved by CFR (issue 10).

* :mod:`.abstraction` -- the bets the solver considers (one frozen dataclass);
* :mod:`.tree` -- the public tree of a lance under a declaration pattern, its text, and the
  parser of public histories;
* :mod:`.game` -- outcome codes and payoffs in stones (pluggable: :class:`.game.Payoff`);
* :mod:`.deals` -- chance: deals from the real joint distribution, conditioned on the
  declarations;
* :mod:`.solver` -- chance-sampled Discounted CFR (numba kernels in
  :mod:`musstats._kernels.cfr`);
* :mod:`.exploit` -- best responses and NashConv, exact or Monte Carlo with a bracket;
* :mod:`.store` -- solve one subgame from a :class:`.store.Spec`, cache it, ship it, load it;
* :mod:`.runner` -- independent solves through a runner (local, or Dask).

The user-facing API is :mod:`musstats.analysis.betting`.
"""
