"""Errors raised for bad user input."""

from __future__ import annotations

__all__ = ["MusError"]


class MusError(ValueError):
    """Bad input. The message says what was wrong and what is accepted, in one line."""
