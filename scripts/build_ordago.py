"""Build the shipped tables of the órdago at a score (musstats/data/ordago_*_<deck>_<juego real>.npz).

``rest``: the other lances of the hand at the count, en paso, per outcome code of every
subgame (grande, chica, the 9 contested patterns of pares and of juego, punto), for the hands
as dealt (:func:`musstats.analysis.ordago_eq.rest_of_hand`; after the mus it comes from the
solve's own training pool, drawn anyway): one pass over the deal stream, every subgame's
quota at once.

``anchors``: the warm starts of the equilibrium at a score, for the hands as dealt: every
subgame solved at the scores of :func:`musstats.analysis.ordago_eq.anchor_scores` (8 reyes, a
game to 40), each from the regrets of the nearest anchor solved before
(:data:`~musstats.analysis.ordago_eq.ANCHOR_ITERATIONS` iterations; the first of a subgame
cold), its NashConv measured; the regrets ship as float16 with their mantissa rounded to
:data:`~musstats.analysis.ordago_eq.ANCHOR_MANTISSA_BITS` bits.

Usage: python scripts/build_ordago.py rest [--variant 8-reyes]
       python scripts/build_ordago.py anchors [--variant 8-reyes] [--subgames grande-15,pares-15,...]
                                              [--refine NASHCONV]

``--refine X``: the anchors already built whose NashConv (in sample) is above X go on from their
own regrets for as many iterations again.

A progress bar on stderr; what is done (the deals of each block, each anchor's solve) is kept
in the disk cache folder (``MUSSTATS_CACHE``, else ~/.cache/musstats) as it is made, so an
interrupted run goes on from there; the data file is written atomically at the end.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def build_rest(variant_name: str, deals: list[str]) -> Path:
    import numpy as np

    from musstats.analysis import ordago_eq as E
    from musstats.base.files import write_npz
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
    write_npz(path, arrays)
    print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return path


def build_anchors(variant_name: str, subgames: list[tuple[str, int]] | None = None,
                  refine: float | None = None) -> Path:
    import json

    import numpy as np

    from musstats.analysis import ordago_eq as E
    from musstats.base.files import write_npz
    from musstats.engines.betting import deals as D
    from musstats.engines.betting.store import get_solved
    from musstats.engines.cache import load_named, save_named
    from musstats.output.progress import ProgressBar
    from musstats.rules.variant import make_variant

    v = make_variant(variant_name)
    g = E.next_hand_grid(v)
    todo = subgames or list(D.SUBGAMES)
    items = [(lance, pat, a, b) for lance, pat in todo for a, b in _order(E.anchor_scores(lance, pat))]
    arrays: dict[str, np.ndarray] = {}
    meta: dict[str, dict] = {}
    t0 = time.perf_counter()
    done: dict[tuple[str, int], dict[tuple[int, int], tuple[np.ndarray, int]]] = {sg: {} for sg in todo}
    with ProgressBar("anchors") as bar:
        for i, (lance, pat, a, b) in enumerate(items):
            name = f"ordago-anchor-{v.deck}-{v.juego_real}-{lance}-{pat}-{a}-{b}"
            z = load_named(name)  # resumable: each anchor's solve is kept in the cache folder
            if z is not None and refine is not None and json.loads(bytes(z["meta"]).decode())["nashconv_in"] > refine:
                # measured too far from equilibrium: go on from its own regrets
                spec = E.score_spec(lance, pat, v, a, b, grid=g)
                start = E.warm_state(spec, z["R"].astype(np.float64), int(z["t"]))
                spec = replace(spec, iterations=E.ANCHOR_ITERATIONS, warm=f"anchor {a}-{b}, refined")
                s0 = time.perf_counter()
                sol = get_solved(spec, keep_state=True, eval_deals=4000, cache=False, start=start)
                ex = sol.exploit or {}
                old = json.loads(bytes(z["meta"]).decode())
                z = {"R": sol.state.R.astype(np.float16), "t": np.int64(sol.state.t),
                     "meta": np.frombuffer(json.dumps({"nashconv": ex.get("nashconv"),
                                                       "nashconv_in": ex.get("nashconv_in"),
                                                       "warm": old["warm"] + "; refined", "iterations":
                                                       old["iterations"] + sol.iterations,
                                                       "seconds": round(old["seconds"] + time.perf_counter() - s0,
                                                                        2)}).encode(), np.uint8)}
                save_named(name, z)
            if z is None:
                spec = E.score_spec(lance, pat, v, a, b, grid=g)
                before = done[(lance, pat)]
                start = None
                if before:
                    (a0, b0) = min(before, key=lambda s: (abs(s[0] - a) + abs(s[1] - b), s))
                    start = E.warm_state(spec, before[(a0, b0)][0].astype(np.float64), before[(a0, b0)][1])
                    spec = replace(spec, iterations=E.ANCHOR_ITERATIONS, warm=f"anchor {a0}-{b0}")
                s0 = time.perf_counter()
                sol = get_solved(spec, keep_state=True, eval_deals=4000, cache=False, start=start)
                ex = sol.exploit or {}
                z = {"R": sol.state.R.astype(np.float16), "t": np.int64(sol.state.t),
                     "meta": np.frombuffer(json.dumps({"nashconv": ex.get("nashconv"),
                                                       "nashconv_in": ex.get("nashconv_in"),
                                                       "warm": spec.warm, "iterations": sol.iterations,
                                                       "seconds": round(time.perf_counter() - s0, 2)}).encode(),
                                           np.uint8)}
                save_named(name, z)
            done[(lance, pat)][(a, b)] = (z["R"], int(z["t"]))
            key = f"{lance}-{pat}-{a}-{b}"
            arrays[f"{key}.R"] = E.coarse_regrets(z["R"])
            arrays[f"{key}.t"] = np.int64(z["t"])
            meta[key] = json.loads(bytes(z["meta"]).decode())
            bar(i + 1, len(items))
    arrays["meta"] = np.frombuffer(json.dumps({"variant": v.cache_key(), "anchors": meta}).encode(), np.uint8)
    path = E.anchor_file(v)
    write_npz(path, arrays)
    ncs = [m["nashconv_in"] for m in meta.values() if m.get("nashconv_in") is not None]
    print(f"wrote {path} ({path.stat().st_size:,} bytes): {len(items)} anchors in "
          f"{time.perf_counter() - t0:.0f} s; NashConv (in-sample) median {np.median(ncs):.4f}, largest "
          f"{max(ncs):.4f} P(win the game)")
    for sg in todo:
        ms = [meta[f"{sg[0]}-{sg[1]}-{a}-{b}"] for a, b in E.anchor_scores(*sg)]
        print(f"  {sg[0]} {sg[1]}: NashConv in-sample median {np.median([m['nashconv_in'] for m in ms]):.4f}, "
              f"largest {max(m['nashconv_in'] for m in ms):.4f}; seconds {sum(m['seconds'] for m in ms):.0f}")
    return path


def _order(scores: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The anchors in the order they are solved: each next the one nearest to those before
    (the first the lowest score), so that every warm start goes on from a near neighbour."""
    left = sorted(scores)
    out = [left.pop(0)]
    while left:
        nxt = min(left, key=lambda s: (min(abs(s[0] - x) + abs(s[1] - y) for x, y in out), s))
        left.remove(nxt)
        out.append(nxt)
    return out


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in ("rest", "anchors"):
        print(__doc__)
        return 2
    variant = args[args.index("--variant") + 1] if "--variant" in args else "8-reyes"
    if args[0] == "rest":
        build_rest(variant, ["as-dealt"])
        return 0
    subgames = None
    if "--subgames" in args:
        subgames = [(x.split("-")[0], int(x.split("-")[1])) for x in args[args.index("--subgames") + 1].split(",")]
    refine = float(args[args.index("--refine") + 1]) if "--refine" in args else None
    build_anchors(variant, subgames, refine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
