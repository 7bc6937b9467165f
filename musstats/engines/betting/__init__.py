"""The betting engine: each lance's betting as a game, solved by the framework of
:mod:`musstats.engines.solving`.

* :mod:`.abstraction` -- the bets the solver considers (one frozen dataclass);
* :mod:`.tree` -- the public tree of a lance under a declaration pattern, its text, and the
  parser of public histories;
* :mod:`.game` -- outcome codes and payoffs (stones, or P(win the game) at a score);
* :mod:`.deals` -- chance: deals from the real joint distribution, conditioned on the
  declarations (as dealt, or after the mus);
* :mod:`.info` -- the information models (private, pooled) and a game's states of deals;
* :mod:`.vector` -- public chance sampling over one seat's hands (the hands as dealt);
* :mod:`.pooled` -- the pooled model with exact chance;
* :mod:`.specs` -- what a solved subgame depends on, and the solvers' default sizes;
* :mod:`.solve` -- solve and measure one subgame;
* :mod:`.store` -- keep solved subgames (memory, shipped files, disk cache);
* :mod:`.runner` -- independent solves through a runner (local, or Dask).

The user-facing API is :mod:`musstats.analysis.betting`.
"""
