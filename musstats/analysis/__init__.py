"""Analyses: the answers to a player's questions, from the engines (odds, discard, mus, ordago, game, table)."""

__all__: list[str] = []
