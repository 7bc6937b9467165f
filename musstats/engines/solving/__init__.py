"""The solver framework: one game interface, one CFR driver, one exploitability module,
storage apart.

* :mod:`.game` -- a game: public tree, owners and their private states, payoff; its stored
  and working layouts; the interface a game with chance gives the solver
  (:class:`.game.SolverGame`);
* :mod:`.dealt` -- chance as listed deals (exact enumerations, or samples);
* :mod:`.cfr` -- the CFR driver and its schemes (DCFR, CFR+, linear CFR, the team-sound
  scheme with an exploration floor), progress, Ctrl-C, targets, warm starts;
* :mod:`.exploit` -- what any strategy of any game concedes: per player, to a pair that
  changes together, to a pair that sees both its hands;
* :mod:`.team` -- a pair's correlated plans against a lone opponent (column generation over
  joint plans, its restricted game solved by the CFR driver);
* :mod:`.store` -- keys, quantisation, shipped files, memory.

Every game -- a lance's betting, the órdago at a score, the toy games of the tests --
plugs into it; no solver owns its own loop.
"""
