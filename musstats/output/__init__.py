"""Outputs: terminal tables, JSON and CSV, charts, the report, table files."""

__all__: list[str] = []
