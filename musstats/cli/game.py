"""``musstats game``: P(win the game) from every score (en paso, and with equilibrium betting)."""

from __future__ import annotations

import click

from musstats.cli.common import (RULES_EPILOG, Command, finish, number, progress_bar, run_options, target_option,
                                 variant_options)

__all__ = ["game"]


@click.command(cls=Command, epilog=RULES_EPILOG)
@target_option
@variant_options
@click.option("--mano", default="avg", show_default=True,
              type=click.Choice(["us", "them", "avg"], case_sensitive=False),
              help="Whose team is mano in the next hand (avg: the mean of both).")
@click.option("--out", "out", default=None, metavar="FILE",
              help="Write the table (.csv, .parquet, .md, .json) or a heatmap (.png, .svg, .pdf), atomically; "
                   "the folder must exist.")
@click.option("--deals", type=str, default=None,
              help="Deals to simulate for the hand-outcome table [default: 4,000,000, cached; at most 200,000,000].")
@click.option("--seed", type=str, default=None, help="Seed of the simulation [default: 1].")
@click.option("--model", "model", default=None, type=click.Choice(["paso", "betting", "both"], case_sensitive=False),
              help="paso: every lance en paso after one mus round; betting: every lance bet by the equilibrium "
                   "strategies, hands after the mus decision; both: paso with betting beside it [default: both "
                   "where the betting model ships (8 reyes), else paso].")
@click.option("--match", "match", default=None, type=click.Choice(["best-of-3", "first-to-3"], case_sensitive=False),
              help="P(we win the match): best of three games, or the first pair to win three.")
@click.option("--games", default="0-0", show_default=True, help="With --match: games won so far, ours first.")
@click.option("--score", default="0-0", show_default=True, help="With --match: the score of the game in progress.")
@run_options
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "json"], case_sensitive=False), help="Summary format.")
def game(variant, juego_real, mano, out, deals, seed, model, match, games, score, threads, quiet, fmt) -> None:
    """P(our team wins the game) from every score, with mano rotating every hand.

    En paso: every hand is played without betting after one mus round in which everyone
    discards by the strategy table.  With betting: every lance is bet by the shipped
    equilibrium strategies, on the hands after the mus decision (as dealt when a player
    holds a hand the mus decision's equilibrium cuts with, the strategies that read who
    cut betting them; else after one mus round): dejes are taken
    at once, then the count in lance order; an accepted órdago ends the game.  The effect
    of betting is measured against en paso on those same hands.  Either way the first team to reach
    the target wins at that moment.  --match and --out use the en-paso model unless
    --model betting.

    With --match: P(we win the match) from the games won and the score of the game in
    progress (later games from 0-0, mano unknown).

    Example: musstats game --target 30 --out game30.png
    """
    from musstats.analysis.game.model import game_report
    from musstats.engines.run import threads as run_threads
    from musstats.output.render import render_game, to_json
    from musstats.rules import checks

    if out:
        from musstats.output.files import IMAGE_EXTS, TABLE_EXTS
        from musstats.base.files import check_output

        check_output(out, TABLE_EXTS + IMAGE_EXTS, "output")
    with progress_bar(quiet, "game model: deals") as bar, run_threads(checks.threads(number(threads, "--threads"))):
        doc, model_ = game_report(variant, model=model.lower() if model else None, mano=mano.lower(),
                                  deals=number(deals, "--deals"), seed=number(seed, "--seed"), progress=bar)
    if match:
        from musstats.analysis.game.match import match_probability
        from musstats.output.render import render_match

        res = match_probability(model_, match.lower(), games, score, mano.lower())
        finish(to_json(res) if fmt.lower() == "json" else render_match(res))
        return
    if out:
        from musstats.output.plots import save_game

        path = save_game(model_, out, mano.lower())
        click.echo(f"wrote {path}", err=True)
        return
    finish(to_json(doc) if fmt.lower() == "json" else render_game(doc))
