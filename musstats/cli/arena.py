"""``musstats arena``: two strategy sets play each other, seats permuted, common deals."""

from __future__ import annotations

import click

from musstats.cli.common import (RULES_EPILOG, Command, finish, number, progress_bar, run_options, target_option,
                                 variant_options)

__all__ = ["arena"]

_SETS = "equilibrium|individual|paso|heuristic|random|mus-read|whole-hand"


@click.command(cls=Command, epilog=RULES_EPILOG)
@click.option("--a", "a", default="equilibrium", show_default=True, help=f"Strategy set A: {_SETS}.")
@click.option("--b", "b", default="paso,heuristic,random", show_default=True,
              help=f"Strategy set(s) B, comma-separated: {_SETS}.")
@click.option("--hands", type=str, default=None, help="Deals played (each twice, seats swapped) [default: 200,000; 0: none].")
@click.option("--games", type=str, default=None,
              help="Games played, in pairs with each side mano first once [default: 2,000; 0: none].")
@click.option("--seed", type=str, default=None, help="Seed of the deals and of the actions drawn [default: 1].")
@click.option("--pair-response", "pair_lance", default=None, metavar="LANCE",
              help="Also: what a pair gains in LANCE (e.g. chica) by changing both partners' play together "
                   "against A and against each B (about a minute each).")
@target_option
@variant_options
@run_options
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "json", "csv"], case_sensitive=False), help="Output format.")
def arena(a, b, hands, games, seed, pair_lance, variant, juego_real, threads, quiet, fmt) -> None:
    """Play strategy set A against B: stones per hand and share of games won, ± standard error.

    Strategy sets: equilibrium (the shipped per-lance equilibrium betting, the team scheme's),
    individual (an equilibrium of four individual players, kept for comparison), paso (never bets, refuses
    every bet: the random-hands model's en-paso player), heuristic (bets, accepts and calls
    órdago by P(win the lance) against random hands: envido 2 at 65 %, órdago at 90 %,
    accept at 55 %, raise at 80 %, accept an órdago at 50 %), random (every legal action
    alike).  Every deal is played twice with the seats swapped and each game twice with
    the other side mano first, on the same deals; hands as dealt (no mus round).  mus-read
    (the strategies that read who cut) and whole-hand (the same, cutting by the mus decision's
    equilibrium) play the equilibrium or each other on whole hands: the mus phase, each seat
    cutting by its set's rule, then every lance bet by what each set reads; stones per hand only.

    Example: musstats arena --a equilibrium --b heuristic --games 10000
    """
    from musstats.analysis.arena import DEFAULT_GAMES, DEFAULT_HANDS, WHOLE_HAND_SETS, arena as run_arena, pair_response
    from musstats.base.errors import MusError
    from musstats.engines.run import threads as run_threads
    from musstats.output.render import emit_arena
    from musstats.rules import checks

    bs = [x.strip() for x in str(b).split(",") if x.strip()]
    if not bs:
        raise MusError("--b needs at least one strategy set: " + _SETS)
    whole = [str(a).lower() in WHOLE_HAND_SETS or x.lower() in WHOLE_HAND_SETS for x in bs]
    if any(whole) and not all(whole):
        raise MusError("mus-read and whole-hand play on whole hands: match them with the equilibrium or each "
                       "other in a run of their own")
    if any(whole) and pair_lance:
        raise MusError("--pair-response measures the strategy sets of hands as dealt, not mus-read or whole-hand")
    n_h = DEFAULT_HANDS if hands is None else number(hands, "--hands")
    n_g = DEFAULT_GAMES if games is None else number(games, "--games")
    sd = 1 if seed is None else number(seed, "--seed")
    results = []
    with progress_bar(quiet, "arena: deals") as bar, run_threads(checks.threads(number(threads, "--threads"))):
        for x in bs:
            r = run_arena(a, x, hands=n_h, games=n_g, seed=sd, variant=variant, progress=bar)
            results.append(r)
            if r.partial:
                break
        pairs = [pair_response(x, pair_lance, variant=variant) for x in dict.fromkeys([a, *bs])] if pair_lance else []
    finish(emit_arena(results, fmt.lower(), pairs), partial=any(r.partial for r in results))
