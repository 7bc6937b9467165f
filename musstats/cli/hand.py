"""``musstats hand``: a hand as the table has seen it, and your decision in it."""

from __future__ import annotations

import click

from musstats.cli.common import RULES_EPILOG, SEAT_HELP, Command, finish, number, run_options, variant_options

__all__ = ["hand"]

HISTORY_HELP = ('The hand so far, parts separated by ";": the mus from mano (mus,mus,corto), after four mus the '
                'cards each seat threw (1,3,2,4), then each lance with its actions (grande: paso,envido 2,quiero; '
                'pares mano+third: paso; juego second: ...; punto: ...) [default: the deal, before the mus].')


@click.command(cls=Command, epilog=RULES_EPILOG)
@click.argument("cards", nargs=-1)
@click.option("--seat", default="mano", show_default=True, help=SEAT_HELP)
@click.option("--history", default=None, help=HISTORY_HELP)
@click.option("--exploitability", is_flag=True,
              help="Print what a player or a pair who reads the whole hand gains against the shipped strategies.")
@click.option("--samples", type=str, default=None, help="Deals drawn for the reading [default: 200,000; more while "
                                                          "few fit the history].")
@click.option("--seed", type=str, default=None, help="Seed of the deals [default: 1].")
@variant_options
@run_options
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "json", "csv"], case_sensitive=False), help="Output format.")
def hand(cards, seat, history, exploitability, samples, seed, variant, juego_real, threads, quiet, fmt) -> None:
    """What the table has shown of each other player's hand -- P(pares), P(juego), P(31),
    P(two or more reyes), expected points, against the prior -- and, at your turn, the
    shipped strategy's probabilities and the expected stones of each action over the deals
    the history leaves.

    Examples: musstats hand R R 3 A --seat mano --history "mus,mus,corto";
    musstats hand C C S 7 --seat second --history "mus,mus,mus,mus; 1,3,2,4; grande: paso"
    """
    from musstats.engines.run import threads as run_threads
    from musstats.output.render import emit_hand, render_whole_hand, to_json
    from musstats.rules import checks

    from musstats.analysis import reading, whole_hand

    fmt = fmt.lower()
    with run_threads(checks.threads(number(threads, "--threads"))):
        if exploitability:
            doc = whole_hand.whole_hand_exploitability(variant)
            finish(to_json(doc) if fmt == "json" else render_whole_hand(doc))
            return
        res = reading.hand(" ".join(cards), seat, history=history, variant=variant,
                           **({"samples": number(samples, "--samples")} if samples is not None else {}),
                           **({"seed": number(seed, "--seed")} if seed is not None else {}))
    finish(emit_hand(res, fmt))
