"""Discard policies: keep masks indexed by (seat, hand index).

A keep mask has 4 bits over the hand's cards in ``cls4`` order (highest class first):
bit i set = keep card i.  Masks 0..14 discard at least one card; 15 keeps all (used
only where changing nothing is allowed, as in mus visto).
"""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import resources

import numpy as np

from musstats.rules.cards import Card
from musstats.base.errors import MusError
from musstats.tables.hands import hand_tables
from musstats.rules.labels import POLICY_HELP
from musstats.rules.variant import Variant

__all__ = ["KEEP_ALL", "HEURISTICS", "POLICIES", "POLICY_HELP", "keep_options", "keep_mask_for",
           "heuristic_policy", "table_path", "load_table", "get_policy", "policy_digest", "cut_flags", "betting_cut_flags", "flags_digest",
           "visto_policy"]

KEEP_ALL = 15
HEURISTICS = ("reyes-pairs", "grande", "chica", "31")
POLICIES = ("table",) + HEURISTICS


def keep_options(h: int, variant: Variant = Variant()) -> list[tuple[int, tuple[int, ...], str]]:
    """Distinct keep-sets of hand ``h``: (mask, kept class ids, label), keeping at most 3 cards.

    A hand of four different cards has 15; repeated cards give fewer distinct sets.
    """
    t = hand_tables(variant)
    cls = [int(c) for c in t.cls4[h]]
    labels = [variant.classes[c].label for c in cls]
    seen: dict[tuple[int, ...], int] = {}
    out = []
    for mask in range(15):
        kept = tuple(cls[i] for i in range(4) if mask >> i & 1)
        if kept in seen:
            continue
        seen[kept] = mask
        label = " ".join(labels[i] for i in range(4) if mask >> i & 1) or "–"
        out.append((mask, kept, label))
    return out


def keep_mask_for(cards: list[Card], keep: list[Card], variant: Variant = Variant(),
                  allow_all: bool = False) -> int:
    """The keep mask of ``keep`` within the hand ``cards``; validates it.

    Keeping all four cards is allowed only with ``allow_all`` (the mus-visto round)."""
    t = hand_tables(variant)
    h = t.index_of(cards)
    want = sorted(t.class_ids(keep), reverse=True)
    if len(want) > 4 or (len(want) == 4 and not allow_all):
        raise MusError("a mus discard keeps at most 3 cards: at least one card must go")
    avail = [int(c) for c in t.cls4[h]]
    mask = 0
    for c in want:
        for i in range(4):
            if avail[i] == c and not mask >> i & 1:
                mask |= 1 << i
                break
        else:
            shown = " ".join(k.label for k in keep)
            raise MusError(f"the keep-set {shown} is not part of the hand {t.labels[h]}")
    return mask


def _heuristic_mask(ranks: list[int], points: list[int], name: str, top: int, bottom: int) -> int:
    count = {r: ranks.count(r) for r in ranks}
    if name == "reyes-pairs":
        keep = [r == top or count[r] >= 2 for r in ranks]
    elif name == "grande":
        keep = [r == top for r in ranks]
    elif name == "chica":
        keep = [r <= bottom + 1 for r in ranks]
    elif name == "31":
        keep = [p == 10 for p in points]
        if sum(keep) > 3:
            keep = [True, True, True, False]
        if sum(keep) == 3 and 1 in points:
            keep[points.index(1)] = True
    else:  # pragma: no cover - validated by callers
        raise MusError(f"unknown policy {name!r}")
    if all(keep):
        # one card must go: the lowest for grande-minded policies, the highest for chica
        keep[0 if name == "chica" else 3] = False
    return sum(1 << i for i in range(4) if keep[i])


@lru_cache(maxsize=None)
def heuristic_policy(name: str, variant: Variant = Variant()) -> np.ndarray:
    """Keep masks uint8 [4, H] of a named heuristic (the same for every seat)."""
    if name not in HEURISTICS:
        raise MusError(f"unknown policy {name!r}; accepted: {', '.join(POLICIES)}")
    t = hand_tables(variant)
    classes = variant.classes
    top = max(c.rank for c in classes)
    bottom = min(c.rank for c in classes)
    row = np.array([
        _heuristic_mask([classes[c].rank for c in t.cls4[h]], [classes[c].points for c in t.cls4[h]],
                        name, top, bottom)
        for h in range(t.n_hands)], np.uint8)
    out = np.tile(row, (4, 1))
    out.setflags(write=False)
    return out


def table_path(variant: Variant) -> str:
    """File name of the shipped discard table for the variant's deck and juego-real rule."""
    return f"discard_{variant.deck}_{variant.juego_real}.npz"


def load_table(variant: Variant = Variant()) -> np.ndarray | None:
    """The shipped discard strategy table uint8 [4, H], or None when not built for the variant."""
    return _load_npz_field(variant, "policy")


def _load_npz_field(variant: Variant, name: str) -> np.ndarray | None:
    return _load_npz(Variant(variant.deck, variant.juego_real, ten_kings=variant.ten_kings)).get(name)


@lru_cache(maxsize=None)
def _load_npz(variant: Variant) -> dict:
    env = os.environ.get("MUSSTATS_DISCARD_TABLE")
    try:
        if env:
            with np.load(env) as z:
                data = {k: z[k] for k in z.files}
        else:
            ref = resources.files("musstats").joinpath("data", table_path(variant))
            if not ref.is_file() and variant.juego_real in ("figure", "sota"):
                # same hand index as without juego real: the plain table is a close stand-in
                ref = resources.files("musstats").joinpath("data", table_path(
                    Variant(variant.deck, "off", variant.target)))
            if not ref.is_file():
                return {}
            with ref.open("rb") as f:
                data = np.load(f)
                data = {k: data[k] for k in data.files}
    except OSError as e:  # pragma: no cover - corrupted install
        raise MusError(f"cannot read the discard table: {e}") from None
    shape = (4, hand_tables(variant).n_hands)
    out = {}
    for k in ("policy", "cut"):
        if k in data and np.shape(data[k]) == shape:
            arr = np.asarray(data[k], np.uint8 if k == "policy" else bool)
            arr.setflags(write=False)
            out[k] = arr
    return out


def get_policy(name: str, variant: Variant = Variant()) -> tuple[np.ndarray, str]:
    """Keep masks [4, H] of a policy name, and the name actually used.

    "table" falls back to "reyes-pairs" when no table is shipped for the variant.
    """
    name = str(name).strip().lower()
    if name == "table":
        table = load_table(variant)
        if table is not None:
            return table, "table"
        return heuristic_policy("reyes-pairs", variant), "reyes-pairs"
    if name not in HEURISTICS:
        raise MusError(f"unknown policy {name!r}; accepted: {', '.join(POLICIES)}")
    return heuristic_policy(name, variant), name


def policy_digest(name: str, variant: Variant = Variant()) -> str:
    """Short digest of the keep masks a policy name stands for (changes when the table does)."""
    import hashlib

    pol, used = get_policy(name, variant)
    return used + "-" + hashlib.sha1(np.ascontiguousarray(pol).tobytes()).hexdigest()[:10]


def flags_digest(flags: np.ndarray) -> str:
    """A short digest of cut flags bool [4, H] (a cache key's part)."""
    import hashlib

    return hashlib.sha1(np.ascontiguousarray(flags, np.bool_).tobytes()).hexdigest()[:12]


def cut_flags(variant: Variant = Variant()) -> np.ndarray:
    """bool [4, H]: hands a player keeps whole when he may (he would cut the mus).

    From the shipped table when it records them; otherwise the rule of thumb "medias,
    duples or 31"."""
    table_cut = _load_npz_field(variant, "cut")
    if table_cut is not None:
        return table_cut.astype(bool)
    t = hand_tables(variant)
    row = (t.pares_cat >= 2) | (t.points == 31)
    return np.tile(row, (4, 1))


def betting_cut_flags(variant: Variant = Variant()) -> np.ndarray:
    """bool [4, H]: who cuts in the deal model of the strategies that read who cut (``cut``):
    the cut law they were solved on, shipped beside them
    (``musstats/data/cut_betting_<deck>_<juego real>.npz``, field ``flags``: the mus decision's
    equilibrium, each hand by its likelier choice, when they were solved); without that file
    the shipped cut flags."""
    from musstats.base.files import data_file, read_npz

    z = read_npz(data_file("cut_betting", variant))
    if z is not None and "flags" in z and z["flags"].shape == (4, hand_tables(variant).n_hands):
        return z["flags"].astype(bool)
    return cut_flags(variant)


def visto_policy(policy: np.ndarray, variant: Variant = Variant()) -> np.ndarray:
    """The policy of the mus-visto round: hands a player would cut with are kept whole."""
    out = np.array(policy, np.uint8)
    flags = cut_flags(variant)
    if out.shape[0] != flags.shape[0]:  # another table of seats: mano's flags at every seat
        flags = np.tile(flags[:1], (out.shape[0], 1))
    out[flags] = KEEP_ALL
    return out
