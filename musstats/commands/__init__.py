"""One module per CLI command; each defines a click command named like the module.

Modules here import only click and light musstats modules at import time, so that
``musstats --help`` never imports numpy-heavy code or numba.
"""

#: command modules registered by musstats.cli, in help order
COMMANDS = ("odds", "discard", "mus", "ordago", "table", "plot", "game")
