"""The rules: cards, seats, variants, conditions, labels, and every check of a user's input."""

__all__: list[str] = []
