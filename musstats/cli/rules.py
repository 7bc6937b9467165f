"""``musstats rules``: print the rules musstats implements."""

from __future__ import annotations

import click

from musstats.cli.common import Command

__all__ = ["rules"]


@click.command(cls=Command)
def rules() -> None:
    """Print the rules musstats implements (musstats/docs/rules.md): seats, deck, lances,
    betting, scoring, the mus, every variant switch and the reference figures."""
    from importlib import resources

    click.echo(resources.files("musstats").joinpath("docs", "rules.md").read_text(encoding="utf-8"), nl=False)
