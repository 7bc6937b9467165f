"""The juego/punto total of a hand: its exact distribution, dealt or after a discard."""

from __future__ import annotations

from itertools import combinations_with_replacement
from math import comb

from musstats.base.errors import MusError
from musstats.rules.variant import Variant, make_variant
from musstats.tables.hands import hand_tables

__all__ = ["totals_distribution"]


def totals_distribution(variant: str | Variant = "8-reyes", *, juego_real: str = "off", cards=None, keep=None):
    """Distribution of the juego/punto total (points) of a 4-card hand, exact.

    Without ``cards``: a hand dealt from the full deck (weights ``deal_weight`` / 91,390).
    With ``cards`` and ``keep`` (a sub-multiset, at most 3 cards; ``"none"`` or ``[]`` to
    throw all four): the hand after the discard, keep + a draw of the missing cards from
    the 36 cards not in the hand, every draw equally likely (hypergeometric over card
    classes).  Returns a pandas Series: probability indexed by total (only totals that
    can occur), summing to 1, with ``attrs`` describing the case.
    """
    import pandas as pd

    from musstats.rules.cards import parse_cards, parse_hand
    from musstats.tables.policies import keep_mask_for

    v = make_variant(variant, juego_real)
    t = hand_tables(v)
    probs: dict[int, float] = {}
    if cards is None:
        if keep is not None:
            raise MusError("--keep needs the hand's cards: musstats plot totals R R 7 A --keep R R")
        for h in range(t.n_hands):
            pts = int(t.points[h])
            probs[pts] = probs.get(pts, 0.0) + float(t.deal_weight[h])
        total = float(sum(probs.values()))
        desc = "dealt hand"
    else:
        hand = parse_hand(cards)
        rem = t.remaining(hand)
        if keep is None:
            raise MusError("totals for a hand needs --keep: the cards you keep (at most 3; "
                           "--keep none to throw all four)")
        if isinstance(keep, str) and keep.strip().lower() in ("none", "nada", "–", ""):
            kept: list = []
        else:
            kept = parse_cards(keep)
        mask = keep_mask_for(hand, kept, v) if kept else 0
        kept_cls = [int(t.cls4[t.index_of(hand)][i]) for i in range(4) if mask >> i & 1]
        base = sum(v.classes[c].points for c in kept_cls)
        n_draw = 4 - len(kept_cls)
        k = t.n_classes
        for draw in combinations_with_replacement(range(k), n_draw):
            w = 1
            for c in set(draw):
                w *= comb(int(rem[c]), draw.count(c))
            if w:
                pts = base + sum(v.classes[c].points for c in draw)
                probs[pts] = probs.get(pts, 0.0) + float(w)
        total = float(comb(int(rem.sum()), n_draw))
        desc = (f"{' '.join(c.label for c in hand)}, keep {' '.join(v.classes[c].label for c in kept_cls) or '–'}"
                f", draw {n_draw} of {int(rem.sum())}")
    s = pd.Series({k_: w / total for k_, w in sorted(probs.items())}, name="probability")
    s.index.name = "total"
    s.attrs.update({"variant": v.name, "case": desc})
    return s
