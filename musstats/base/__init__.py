"""Foundations used by every layer: the error type, atomic files, JSON values."""

__all__: list[str] = []
