"""``musstats game``: P(win the game) from every score (en-paso model)."""

from __future__ import annotations

import click

from musstats.cli.common import variant_options


@click.command()
@click.option("--target", type=click.Choice(["40", "30"]), default="40", show_default=True,
              help="Stones to win the game.")
@variant_options
@click.option("--mano", default="avg", show_default=True,
              type=click.Choice(["us", "them", "avg"], case_sensitive=False),
              help="Whose team is mano in the next hand (avg: the mean of both).")
@click.option("--out", "out", default=None, metavar="FILE",
              help="Write the table (.csv, .parquet) or a heatmap (.png, .svg, .pdf).")
@click.option("--deals", type=int, default=None,
              help="Deals to simulate for the hand-outcome table [default: 4,000,000, cached].")
@click.option("--seed", type=int, default=None, help="Seed of the simulation [default: 1].")
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "json"], case_sensitive=False), help="Summary format.")
def game(target, variant, juego_real, mano, out, deals, seed, fmt) -> None:
    """P(our team wins the game) from every score, with mano rotating every hand.

    Every hand is played en paso (no betting) after one mus round in which everyone
    discards by the strategy table; the count runs in
    lance order and the first team to reach the target wins at that moment.

    Example: musstats game --target 30 --out game30.png
    """
    import json

    from musstats.base.errors import MusError
    from musstats.analysis.game import DEFAULT_DEALS, DEFAULT_SEED, game_model
    from musstats.rules.variant import make_variant

    if deals is not None and deals < 1:
        raise MusError(f"--deals must be a positive whole number, got {deals}")
    if seed is not None and seed < 0:
        raise MusError(f"--seed must be a whole number >= 0, got {seed}")
    if out:
        from pathlib import Path

        from musstats.analysis.game import IMAGE_EXTS, TABLE_EXTS

        if Path(out).suffix.lower() not in TABLE_EXTS + IMAGE_EXTS:
            raise MusError(f"unknown output type {Path(out).name!r}; accepted: "
                           f"{', '.join('FILE' + e for e in TABLE_EXTS + IMAGE_EXTS)}")
    v = make_variant(variant, juego_real, int(target))
    model = game_model(v, deals=DEFAULT_DEALS if deals is None else deals,
                       seed=DEFAULT_SEED if seed is None else seed)
    if out:
        path = model.save(out, mano.lower())
        click.echo(f"wrote {path}", err=True)
        return
    summary = model.summary(mano.lower())
    if fmt.lower() == "json":
        click.echo(json.dumps(summary, ensure_ascii=False))
        return
    click.echo(_render(summary), nl=False)


def _render(s: dict) -> str:
    import io

    from rich.console import Console
    from rich.table import Table

    mano = {"us": "us (nosotros)", "them": "them (ellos)", "avg": "average of both"}[s["mano"]]
    rules = s["rules"]
    title = f"P(win the game) · a {s['target']} · {rules['deck']}"
    if rules["juego_real"] != "off":
        title += f" · juego real {rules['juego_real']}"
    title += f" · mano next hand: {mano}"
    table = Table(title=title, caption="rows: our score · columns: their score")
    table.add_column("us \\ them", justify="right")
    for b in s["scores"]:
        table.add_column(str(b), justify="right")
    for a, row in zip(s["scores"], s["p_win"]):
        table.add_row(str(a), *(f"{100 * x:.1f} %" for x in row))
    h = s["hand"]
    lines = [
        f"From 0-0: {100 * s['p_win_from_0_0']['us_mano']:.2f} % when we are mano first, "
        f"{100 * s['p_win_from_0_0']['them_mano']:.2f} % when they are.",
        f"One hand en paso: mano's team {h['mean_stones_mano_team']:.3f} stones on average, "
        f"the other team {h['mean_stones_other_team']:.3f}; mano's team takes grande "
        f"{100 * h['p_mano_team_grande']:.1f} %, chica {100 * h['p_mano_team_chica']:.1f} %, "
        f"pares {100 * h['p_mano_team_pares']:.1f} %, juego/punto {100 * h['p_mano_team_juego']:.1f} %.",
        f"Model: {s['deals']:,} deals ({s['source']}, seed {s['seed']}), {s['outcomes']} distinct "
        f"outcomes; no betting, every lance en paso.",
    ]
    buf = io.StringIO()
    Console(file=buf, width=110, force_terminal=False, color_system=None).print(table)
    return buf.getvalue() + "\n".join(lines) + "\n"
