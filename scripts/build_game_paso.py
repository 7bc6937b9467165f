"""Build the shipped en-paso outcome tables of the win-the-game model
(musstats/data/game_paso_<deck>_<juego real>.npz): the default deals and seed, for the deal
sources a first run needs (after one mus round, the default; after the mus decision, which
``musstats game`` sets beside the model with betting).  Each table is made exactly as
:func:`musstats.analysis.game.game_model` makes it (a progress bar on stderr); the file is
written atomically.

Usage: python scripts/build_game_paso.py [--variant 8-reyes]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SOURCES = ("after-mus", "mus-decision")


def main(argv: list[str] | None = None) -> int:
    import numpy as np

    from musstats.analysis.game.model import DEFAULT_DEALS, DEFAULT_SEED, paso_shipped_key, paso_shipped_path
    from musstats.analysis.game.outcomes import paso_outcomes
    from musstats.base.files import write_npz
    from musstats.output.progress import ProgressBar
    from musstats.rules.variant import make_variant

    args = list(sys.argv[1:] if argv is None else argv)
    v = make_variant(args[args.index("--variant") + 1] if "--variant" in args else "8-reyes")
    arrays = {}
    for source in SOURCES:
        t0 = time.perf_counter()
        with ProgressBar(f"{source}: deals") as bar:
            out = paso_outcomes(v, deals=DEFAULT_DEALS, seed=DEFAULT_SEED, source=source, progress=bar)
        key = paso_shipped_key(v, source, DEFAULT_DEALS, DEFAULT_SEED)
        arrays[f"{source}.signed"] = out.signed
        arrays[f"{source}.prob"] = out.prob
        arrays[f"{source}.meta"] = np.frombuffer(json.dumps(list(key)).encode(), np.uint8)
        print(f"{source}: {out.signed.shape[0]} outcomes in {time.perf_counter() - t0:.1f} s", flush=True)
    path = paso_shipped_path(v)
    write_npz(path, arrays)
    print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
