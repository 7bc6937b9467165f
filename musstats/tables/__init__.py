"""Per-hand tables: the hand index, the kernels' lookup tables, joker options, discard policies, the context of a question."""

__all__: list[str] = []
