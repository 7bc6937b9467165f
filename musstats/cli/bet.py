"""``musstats bet``: the equilibrium betting of a lance."""

from __future__ import annotations

import click

from musstats.cli.common import (RULES_EPILOG, SEAT_HELP, Command, deal_option, finish, number, run_options,
                                 variant_options)

__all__ = ["bet"]


@click.command(cls=Command, epilog=RULES_EPILOG)
@click.argument("cards", nargs=-1)
@click.option("--seat", default="mano", show_default=True, help=SEAT_HELP)
@click.option("--lance", default=None, help="grande|chica|pares|juego|punto.")
@click.option("--history", default=None,
              help='The public actions of the lance so far, comma-separated, e.g. "paso,envido 2" '
                   "[default: your first turn].")
@click.option("--declared", default=None, multiple=True,
              help="Pares and juego: who declared it, e.g. second:pares,postre:no-pares (a seat not named holds it).")
@deal_option
@click.option("--info", default="private", show_default=True, type=click.Choice(["private", "pooled"], case_sensitive=False),
              help="private: each player sees his own hand (the real game); pooled: each team sees both "
                   "its hands (perfect señas).")
@click.option("--partner", default=None, multiple=True, help="Pooled model: your partner's hand.")
@click.option("--cut", default=None, metavar="SEAT",
              help="The seat that cut the mus (hands as dealt): the lance is bet by the equilibrium given who cut, "
                   "as musstats hand after a cut.")
@click.option("--plan-seed", default=None, metavar="N",
              help="Where your pair plays correlated plans (pares and juego with three declared, juego with all "
                   "four): the number you and your partner agreed, which draws the plan you both play.")
@click.option("--tree", "tree", is_flag=True, help="Print the public betting tree of --lance (no cards needed).")
@click.option("--export", "export", default=None, metavar="FILE",
              help="Write the whole strategy (every lance, or --lance) to FILE.parquet or FILE.csv.")
@click.option("--exploitability", is_flag=True, help="Print how close to equilibrium the strategies are, per lance.")
@click.option("--trials", type=str, default=None, help="Deals of the Monte Carlo EVs [default: 20,000].")
@click.option("--seed", type=str, default=None, help="Seed of the Monte Carlo EVs.")
@variant_options
@run_options
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "json", "csv"], case_sensitive=False), help="Output format.")
def bet(cards, seat, lance, history, declared, deal, info, partner, cut, plan_seed, tree, export, exploitability,
        trials, seed, variant, juego_real, threads, quiet, fmt) -> None:
    """At your turn in a lance: the equilibrium probability of each action (paso, envido,
    quiero, no quiero, raises, órdago) and the expected stones of each, at that point and at
    every later point where you speak.

    The strategies solve the betting of each lance among the four players (CFR; the
    abstraction of the bets is printed by --tree) and ship with musstats.

    Examples: musstats bet R R R A --seat mano --lance grande;
    musstats bet C C S 7 --seat second --lance pares --declared mano:pares --history paso;
    musstats bet R R 3 A --seat postre --lance grande --cut third;
    musstats bet R R R A --seat mano --lance juego --declared postre:no-juego --plan-seed 17
    """
    from musstats.base.errors import MusError
    from musstats.engines.run import threads as run_threads
    from musstats.output.render import emit_bet, render_exploitability, to_json
    from musstats.rules import checks

    from musstats.analysis import betting

    declared_txt = ",".join(declared) or None
    with run_threads(checks.threads(number(threads, "--threads"))):
        if tree:
            if not lance:
                raise MusError("--tree needs --lance LANCE")
            finish(betting.tree_text(lance, declared=declared_txt, variant=variant))
            return
        if export:
            from musstats.base.files import check_output
            from musstats.output.files import write_frame

            check_output(export, (".parquet", ".csv"), "strategy file")
            df = betting.strategy_frame(lance, info=info.lower(), deal=deal, variant=variant)
            path = write_frame(df, export)
            click.echo(f"wrote {path} ({len(df):,} rows)", err=True)
            return
        if exploitability:
            df = betting.exploitability_table(deal=deal, info=info.lower(), variant=variant, lance=lance)
            finish(to_json({"meta": df.attrs, "rows": df.to_dict("records")}) if fmt == "json" else
                   render_exploitability(df))
            return
        if not lance:
            raise MusError("give --lance LANCE (grande|chica|pares|juego|punto), or --tree/--export/--exploitability")
        res = betting.bet(" ".join(cards), seat, lance=lance, history=history, declared=declared_txt,
                          deal=deal, info=info.lower(), variant=variant, partner=" ".join(partner) or None, cut=cut,
                          **({"trials": number(trials, "--trials")} if trials is not None else {}),
                          **({"seed": number(seed, "--seed")} if seed is not None else {}),
                          **({"plan_seed": number(plan_seed, "--plan-seed", 0)} if plan_seed is not None else {}))
    finish(emit_bet(res, fmt.lower()))
