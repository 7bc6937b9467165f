"""Build the shipped tables of the órdago at a score (musstats/data/ordago_*_<deck>_<juego real>.npz).

``rest``: the other lances of the hand at the count, en paso, per outcome code of every
subgame (grande, chica, the 9 contested patterns of pares and of juego, punto), for the hands
as dealt (:func:`musstats.analysis.ordago_eq.rest_of_hand`; after the mus it comes from the
solve's own training pool, drawn anyway): one pass over the deal stream, every subgame's
quota at once.

Usage: python scripts/build_ordago.py rest [--variant 8-reyes]

A progress bar on stderr; the deals of a deal model are kept in the disk cache folder
(``MUSSTATS_CACHE``, else ~/.cache/musstats) as they are drawn, so an interrupted run goes on
from there; the data file is written atomically at the end.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def build_rest(variant_name: str, deals: list[str]) -> Path:
    import numpy as np

    from musstats.analysis import ordago_eq as E
    from musstats.base.files import atomic_write
    from musstats.engines.betting import deals as D
    from musstats.engines.cache import load_named, prune, save_named
    from musstats.output.progress import ProgressBar
    from musstats.rules.variant import make_variant

    v = make_variant(variant_name)
    arrays: dict[str, np.ndarray] = {}
    for deal in deals:
        quotas = {sg: E.REST_DEALS for sg in D.SUBGAMES}
        t0 = time.perf_counter()
        pools: dict = {sg: [] for sg in quotas}
        have = {sg: 0 for sg in quotas}
        dg = D.deal_digest(deal, v) or "-"
        prefix = f"ordago-rest-block-{deal}-{dg}-{v.deck}-{v.juego_real}-{E.REST_SEED}"
        with ProgressBar(f"{deal}: subgame deals") as bar:
            b = 0
            total = sum(quotas.values())
            while any(have[sg] < quotas[sg] for sg in quotas) and b < D.MAX_BLOCKS.get(D.GAME_KEY, 4096):
                name = f"{prefix}-{b}"
                # resumable: each block's share of every subgame is kept in the cache folder
                got = load_named(name)
                if got is None:
                    blk = D.block_deals(deal, v, E.REST_SEED, D.GAME_KEY, b)
                    pm, jm = D.holder_masks(blk, v)
                    got = {f"{lance}-{pat}": blk[D.in_subgame(pm, jm, lance, pat)][:q] for (lance, pat), q in
                           quotas.items()}
                    save_named(name, got)
                for (lance, pat), q in quotas.items():
                    need = q - have[(lance, pat)]
                    if need > 0:
                        sel = got[f"{lance}-{pat}"][:need]
                        pools[(lance, pat)].append(sel)
                        have[(lance, pat)] += sel.shape[0]
                b += 1
                bar(sum(min(have[sg], quotas[sg]) for sg in quotas), total)
        for (lance, pat) in D.SUBGAMES:
            d = np.concatenate(pools[(lance, pat)]) if pools[(lance, pat)] else np.zeros((0, 4), np.int16)
            src = E.rest_source(lance, pat, v, deal)
            r = E.rest_from_deals(lance, pat, v, d.astype(np.int64), src)
            key = f"{deal}-{lance}-{pat}"
            arrays[f"{key}.o"] = r.o.astype(np.int16)
            arrays[f"{key}.stones"] = r.stones.astype(np.int8)
            arrays[f"{key}.weight"] = r.weight.astype(np.float64)
            arrays[f"{key}.source"] = np.frombuffer(src.encode(), np.uint8)
        prune(prefix, 0)  # the blocks served their purpose
        print(f"{deal}: {b} blocks, {time.perf_counter() - t0:.1f} s; deals per subgame "
              + ", ".join(f"{lance} {pat}: {have[(lance, pat)]:,}" for lance, pat in D.SUBGAMES), flush=True)
    path = E.rest_file(v)

    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **arrays)

    atomic_write(path, write)
    print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return path


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in ("rest",):
        print(__doc__)
        return 2
    variant = args[args.index("--variant") + 1] if "--variant" in args else "8-reyes"
    build_rest(variant, ["as-dealt"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
