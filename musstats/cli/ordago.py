"""``musstats ordago``: call, accept or refuse an órdago at a given score."""

from __future__ import annotations

import click

from musstats.cli.common import condition_options, variant_options
from musstats.rules.seats import ACCEPTED_SEATS

LANCE_HELP = "grande|chica|pares|juego|punto"


@click.command()
@click.argument("cards", nargs=-1)
@click.option("--seat", default="mano", show_default=True, help=ACCEPTED_SEATS + ".")
@click.option("--lance", required=True, help=f"The lance of the órdago: {LANCE_HELP}.")
@click.option("--score", required=True, help="The score before the hand, ours first: A-B, e.g. 12-30.")
@condition_options
@variant_options
@click.option("--target", type=click.Choice(["40", "30"]), default="40", show_default=True,
              help="Stones to win the game.")
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "json"], case_sensitive=False), help="Output format.")
def ordago(cards, seat, lance, score, declared, signal, variant, juego_real, target, fmt) -> None:
    """Should we call an órdago at a lance, and accept or refuse one?

    Compares P(our team wins the lance), exact, with P(we win the game) from the
    score without it (en-paso game model, cached on disk).

    Example: musstats ordago R R R R --seat mano --lance grande --score 20-35
    """
    import json

    from musstats.analysis.ordago import ordago as compute

    res = compute(" ".join(cards), seat, lance, score, variant, juego_real, int(target),
                  declared=declared, signal=signal)
    if fmt.lower() == "json":
        click.echo(json.dumps(res, ensure_ascii=False))
        return
    click.echo(_render(res), nl=False)


def _pct(x: float) -> str:
    return f"{100 * x:.2f} %"


def _render(res: dict) -> str:
    import io

    from rich.console import Console
    from rich.table import Table

    sc = res["score"]
    title = (f"Órdago a {res['lance']} · {' '.join(res['hand'])} · {res['seat']} · "
             f"{sc['us']}-{sc['them']} a {sc['target']} · {res['variant']}")
    if res["rules"]["juego_real"] != "off":
        title += f" · juego real {res['rules']['juego_real']}"
    for k, v in res["conditions"].items():
        title += f" · {k} {v}"
    gm = res["game_model"]
    foot = (f"Lance: {res['p_lance_method']}, {res['p_lance_basis']}.  Game: en-paso model, {gm['deals']:,} deals "
            f"({gm['source']}, seed {gm['seed']}), evaluated at the start of the hand.\n")
    table = Table(title=title)
    table.add_column("")
    table.add_column("P", justify="right")
    table.add_row(f"P(win {res['lance']}) if the órdago is seen", _pct(res["p_lance"]))
    table.add_row("P(win the game) without it (break-even to call)", _pct(res["p_game"]))
    table.add_row("  … if they refuse ours (+1 stone)", _pct(res["p_game_if_they_refuse"]))
    table.add_row("  … if we refuse theirs (break-even to accept)", _pct(res["p_game_if_we_refuse"]))
    buf = io.StringIO()
    con = Console(file=buf, width=110, force_terminal=False, color_system=None)
    con.print(table)
    out = buf.getvalue() + foot + res["advice"] + "\n"
    for n in res["notes"]:
        out += f"note: {n}\n"
    return out
