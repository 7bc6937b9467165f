"""Engines: exact enumeration, Monte Carlo, the mus phase, jokers, scoring; seeding, batching, caches."""

__all__: list[str] = []
