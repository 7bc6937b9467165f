"""``python -m musstats`` runs the command line."""

from musstats.cli import main

main()
