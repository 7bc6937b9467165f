import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture(autouse=True)
def _musstats_cache(tmp_path_factory, monkeypatch):
    """Keep the game-model disk cache of the tests out of the user's cache folder."""
    monkeypatch.setenv("MUSSTATS_CACHE", str(tmp_path_factory.getbasetemp() / "musstats-cache"))
