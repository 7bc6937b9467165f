"""Chance for the betting solver: deals from the real joint distribution of the four hands.

Deals come from the deal engines of :mod:`musstats.engines.musphase` (whole deals of the
40 physical cards, so card removal between the four hands is exact): ``"as-dealt"``
(the hands as dealt) or ``"after-mus"`` (the hands after the mus round, given that it
happened: the deals in which all four hold hands they ask for mus with, by the shipped
cut flags, and then discard by the shipped discard table; :func:`mus_round_deals`).  A
subgame keeps the deals of its condition:

* grande, chica: every deal;
* pares, juego under a declaration pattern: the deals in which exactly the seats of the
  pattern hold the lance;
* punto: the deals in which nobody holds juego.

A *stream* of deals is cut into blocks of ``BLOCK`` deals; block ``b`` of the stream with
seed ``seed`` and key ``key`` is drawn with its own seed derived from (seed, key, b), so
every block, and so every pool, is reproducible and independent of the number of threads.
Independent streams (training, evaluation, the EV of a question) use different keys.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.betting.tree import ALL_SEATS, LANCE_INDEX, contested, pattern_text
from musstats.rules.variant import Variant

__all__ = ["DEALS", "CUT", "derived_seed", "SOLVED_DEALS", "cut_deals", "cutter", "BLOCK", "block_deals", "holder_masks", "in_subgame", "subgame_pools", "subgame_deals",
           "kept_subgame_deals", "SUBGAMES", "subgames", "conditioned_deals", "TRAIN_KEY", "EVAL_KEY", "CHOOSE_KEY",
           "EV_KEY", "HEURISTIC_KEY", "PLAY_KEY", "ARENA_KEY", "GAME_KEY", "MUS_GAIN_KEY",
           "PLAYED_LANCES", "lance_parts", "stream_deals", "mus_round_deals", "deal_digest"]

DEALS = ("as-dealt", "after-mus")
#: the deal model of the hands played as dealt because a seat cut (by the shipped cut flags), for
#: the strategies that read who cut (information model ``mus-read``)
CUT = "cut"
#: every deal model a subgame may be solved on
SOLVED_DEALS = DEALS + (CUT,)
#: deals per block of a stream
BLOCK = 1 << 20
#: stream keys: training pool, exploitability (choose the response / evaluate it), EV of a question
TRAIN_KEY, CHOOSE_KEY, EVAL_KEY, EV_KEY = 11, 12, 13, 14
#: stream keys of played hands: the heuristic player's odds, the actions drawn, the arena's and the game model's
#: deals, the deals of the mus decision's betting gain (the other three asking)
HEURISTIC_KEY, PLAY_KEY, ARENA_KEY, GAME_KEY, MUS_GAIN_KEY = 15, 16, 17, 18, 19


def subgames() -> list[tuple[str, int]]:
    """Every (lance, declaration pattern) whose betting is solved: grande, chica, the 9
    contested patterns of pares and of juego, punto (pattern 15 = every seat speaks)."""
    pats = [m for m in range(1, 16) if contested(m)]
    return ([("grande", ALL_SEATS), ("chica", ALL_SEATS)] + [("pares", m) for m in pats]
            + [("juego", m) for m in pats] + [("punto", ALL_SEATS)])


SUBGAMES = subgames()


def derived_seed(seed: int, *spawn_key: int) -> int:
    """A non-negative 63-bit seed drawn from ``seed`` and a spawn key (its own stream)."""
    ss = np.random.SeedSequence(int(seed), spawn_key=tuple(int(x) for x in spawn_key))
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def block_deals(deal: str, variant: Variant, seed: int, key: int, b: int, n: int = BLOCK,
                flags: np.ndarray | None = None) -> np.ndarray:
    """Block ``b`` of a stream: ``n`` deals, hand indices int16 [n, 4] in seat order (``flags``:
    the cut flags of the ``cut`` model, or those the four ask for a mus round with after the mus;
    default each model's own)."""
    from musstats.engines.musphase import deals_as_dealt

    s = derived_seed(seed, key, b)
    if deal == "as-dealt":
        d = deals_as_dealt(n, s, variant)
    elif deal == "after-mus":
        d = mus_round_deals(n, s, variant, flags)
    elif deal == CUT:
        d = cut_deals(n, s, variant, flags)
    else:
        raise MusError(f"unknown deal model {deal!r}; accepted: {', '.join(SOLVED_DEALS)}")
    return d.astype(np.int16)


def cutter(deals: np.ndarray, variant: Variant, flags: np.ndarray | None = None) -> np.ndarray:
    """The seat that cuts the mus on each deal as dealt (the first from mano whose hand the cut
    law of the ``cut`` model, :func:`musstats.tables.policies.betting_cut_flags`, or ``flags``
    bool [4, H], cuts with), -1 where all four ask for mus."""
    from musstats.tables.policies import betting_cut_flags

    f = betting_cut_flags(variant) if flags is None else np.asarray(flags, bool)
    cuts = f[np.arange(4)[None, :], np.asarray(deals, np.int64)]
    return np.where(cuts.any(axis=1), cuts.argmax(axis=1), -1).astype(np.int64)


def cut_deals(n: int, seed: int, variant: Variant, flags: np.ndarray | None = None) -> np.ndarray:
    """``n`` deals as dealt (hand indices int64 [n, 4]) given that a seat cuts the mus (the cut
    law of the ``cut`` model, or ``flags`` bool [4, H]): the hands that are played as dealt.
    Draws ``n`` deals at a time, each draw its own stream of ``seed``."""
    from musstats.engines.musphase import deals_as_dealt

    kept, have, j = [], 0, 0
    while have < n:
        d = deals_as_dealt(int(n), derived_seed(seed, j), variant)
        d = d[cutter(d, variant, flags) >= 0]
        kept.append(d)
        have += d.shape[0]
        j += 1
    return np.concatenate(kept)[:n]


#: raw deals drawn at a time by :func:`mus_round_deals` (about 11 % of them have a mus round
#: with the shipped cut flags of 8 reyes)
MUS_ROUND_DRAW = 1 << 20


def mus_round_deals(n: int, seed: int, variant: Variant, flags: np.ndarray | None = None) -> np.ndarray:
    """``n`` deals (final hand indices int64 [n, 4]) after a mus round, given that the round
    happened: deals from a full deck are kept when all four hold hands they ask for mus with
    (``flags`` bool [4, H], default the shipped cut flags,
    :func:`musstats.tables.policies.cut_flags`); the four then discard by the shipped table and
    draw.  Draws ``MUS_ROUND_DRAW`` deals at a time, each draw its own stream of ``seed``:
    reproducible, whatever the threads."""
    from musstats.engines.musphase import deals_after_mus
    from musstats.tables.policies import cut_flags

    flags = cut_flags(variant) if flags is None else np.asarray(flags, bool)
    kept, have, j = [], 0, 0
    while have < n:
        full = deals_after_mus(MUS_ROUND_DRAW, seed, variant, rounds=1, cut=flags, key=(j,), with_rounds=True)
        d = full[full[:, 4] > 0, :4]
        if j > 64 and have == 0:
            raise MusError("nobody asks for mus with these cut flags: there are no deals after a mus round")
        kept.append(d)
        have += d.shape[0]
        j += 1
    return np.concatenate(kept)[:n]


def deal_digest(deal: str, variant: Variant) -> str | None:
    """What a deal model depends on beyond the variant: after the mus, the shipped discard
    table and cut flags; given a cut, the cut law of the ``cut`` model (a short digest, part of
    a strategy's key); None as dealt."""
    if deal not in ("after-mus", CUT):
        return None
    import hashlib

    from musstats.tables.policies import betting_cut_flags, cut_flags, policy_digest

    flags = np.ascontiguousarray(betting_cut_flags(variant) if deal == CUT else cut_flags(variant), np.bool_)
    digest = "cut-" + hashlib.sha1(flags.tobytes()).hexdigest()[:10]
    return digest if deal == CUT else policy_digest("table", variant) + "-" + digest


@lru_cache(maxsize=8)
def _held(variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    from musstats.tables.hands import JUEGO, PARES, hand_tables

    t = hand_tables(variant.lance_rules)
    return (t.key[PARES] > 0).astype(np.int64), (t.key[JUEGO] > 0).astype(np.int64)


def holder_masks(deals: np.ndarray, variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """Bit masks (bit q = seat q) of the pares holders and the juego holders of each deal."""
    hp, hj = _held(variant)
    d = deals.astype(np.int64)
    pm = hp[d[:, 0]] | hp[d[:, 1]] << 1 | hp[d[:, 2]] << 2 | hp[d[:, 3]] << 3
    jm = hj[d[:, 0]] | hj[d[:, 1]] << 1 | hj[d[:, 2]] << 2 | hj[d[:, 3]] << 3
    return pm, jm


def in_subgame(pm: np.ndarray, jm: np.ndarray, lance: str, pattern: int) -> np.ndarray:
    """Which deals (holder masks ``pm``, ``jm``) belong to the subgame."""
    if lance in ("grande", "chica"):
        return np.ones(pm.shape[0], bool)
    if lance == "pares":
        return pm == pattern
    if lance == "juego":
        return jm == pattern
    return jm == 0


#: blocks of a stream searched for the deals of a subgame (a subgame rarer than these blocks
#: hold gets fewer deals than asked).  After the mus they fill every subgame's 8,000,000
#: training and 2,000,000 evaluation deals (punto, the rarest, is 2.0 % of the deals after a
#: round: 390 blocks).  With 48 and 12, punto trained on 981,410 deals and was measured on
#: 245,169: NashConv [0.032, 0.071] on 2,000,000 fresh deals, not the [-0.045, 0.184] the
#: small samples said
MAX_BLOCKS = {TRAIN_KEY: 512, CHOOSE_KEY: 128, EVAL_KEY: 128}


def subgame_pools(deal: str, variant: Variant, quotas: dict[tuple[str, int], int], seed: int, key: int,
                  max_blocks: int | None = None, flags: np.ndarray | None = None) -> dict[tuple[str, int], np.ndarray]:
    """Deals of several subgames from one stream: the first ``quotas[sg]`` deals of the
    stream that belong to each subgame ``sg`` (int16 [n, 4]), searched in the first
    ``max_blocks`` blocks (default ``MAX_BLOCKS[key]``): a rare subgame may get fewer.
    ``flags``: other cut flags (:func:`block_deals`)."""
    if max_blocks is None:
        max_blocks = MAX_BLOCKS.get(key, 4096)
    parts: dict[tuple[str, int], list[np.ndarray]] = {sg: [] for sg in quotas}
    have = {sg: 0 for sg in quotas}
    b = 0
    while any(have[sg] < quotas[sg] for sg in quotas):
        if b >= max_blocks:
            break
        d = block_deals(deal, variant, seed, key, b, flags=flags)
        pm, jm = holder_masks(d, variant)
        for (lance, pat), q in quotas.items():
            need = q - have[(lance, pat)]
            if need <= 0:
                continue
            sel = d[in_subgame(pm, jm, lance, pat)][:need]
            parts[(lance, pat)].append(sel)
            have[(lance, pat)] += sel.shape[0]
        b += 1
    return {sg: (np.concatenate(parts[sg]) if parts[sg] else np.zeros((0, 4), np.int16)) for sg in quotas}


def subgame_deals(deal: str, variant: Variant, lance: str, pattern: int, n: int, seed: int, key: int
                  ) -> np.ndarray:
    """The first ``n`` deals of a stream that belong to one subgame."""
    return subgame_pools(deal, variant, {(lance, pattern): n}, seed, key)[(lance, pattern)]


@lru_cache(maxsize=6)
def kept_subgame_deals(deal: str, variant: Variant, lance: str, pattern: int, n: int, seed: int, key: int
                       ) -> np.ndarray:
    """:func:`subgame_deals`, kept in memory and, after the mus, in the disk cache (a rare
    subgame's deals take a minute to find: punto is 2 % of the deals after a round).  The
    name holds the deal model's digest, so deals of other cut flags or discard tables are
    never read."""
    if deal == "as-dealt":
        return subgame_deals(deal, variant, lance, pattern, n, seed, key)
    from musstats.engines import cache

    path = cache.entry_path(f"subgame-deals-{deal}-{deal_digest(deal, variant)}-{lance}-{pattern}-{n}-{seed}-{key}")
    z = cache.load(path)
    if z is None or "a" not in z:
        arr = subgame_deals(deal, variant, lance, pattern, n, seed, key)
        cache.save(path, False, a=arr)
        return arr
    return z["a"]


# ---------------------------------------------------------------------------
# deals conditioned on one player's hand


@lru_cache(maxsize=4)
def _after_mus_pool(variant: Variant, n: int, seed: int) -> np.ndarray:
    """A pool of after-mus deals, cached in memory and on disk (the cache folder)."""
    from musstats.engines import cache

    path = cache.entry_path("after-mus-pool", variant.deck, variant.juego_real, deal_digest("after-mus", variant), n,
                            seed)
    z = cache.load(path)
    if z is None or "a" not in z:
        blocks = [block_deals("after-mus", variant, seed, EV_KEY, b) for b in range(-(-n // BLOCK))]
        arr = np.concatenate(blocks)[:n]
        cache.save(path, False, a=arr)
        return arr
    return z["a"]


#: after-mus deals searched for those in which the player holds his hand
AFTER_MUS_POOL = 8 * BLOCK


def conditioned_deals(deal: str, variant: Variant, hand: int, seat: int, n: int, seed: int,
                      cards=None) -> np.ndarray:
    """Deals in which ``seat`` holds hand index ``hand``: int64 [m, 4].

    As dealt: ``n`` deals of the other three hands from the 36 unseen cards (exact
    conditioning on the player's cards).  After the mus: the deals of a pool of
    ``AFTER_MUS_POOL`` after-mus deals in which the seat ends with that hand (at most
    ``n``; rare hands get fewer, and the standard errors say so).
    """
    if deal == "as-dealt":
        from musstats._kernels.betting import deal_others
        from musstats.engines.musphase import _user_cards, deck_ids
        from musstats.engines.random import chunk_trials, seed_states
        from musstats.tables.hands import hand_cards, hand_tables

        t = hand_tables(variant)
        if cards is None:
            cards = hand_cards(hand, variant)
        user, unseen = _user_cards(list(cards), variant)
        n_chunks = 16
        per, offsets = chunk_trials(n, n_chunks)
        seeds = seed_states(seed, n_chunks, key=(EV_KEY, seat, hand))
        return deal_others(seeds, per, offsets, user, unseen, seat, deck_ids(variant), t.n_classes,
                           t.idx4.astype(np.int64))
    pool = _after_mus_pool(variant, AFTER_MUS_POOL, int(seed))
    sel = pool[pool[:, seat] == hand][:n]
    return sel.astype(np.int64)


def lance_states(deals: np.ndarray, lance: str, variant: Variant, pooled: bool) -> tuple[np.ndarray, np.ndarray]:
    """Outcome codes int32 [N] and states int32 [N, 4] of deals for one lance
    (:func:`musstats._kernels.betting.lance_features`)."""
    from musstats._kernels.betting import lance_features
    from musstats.tables.kernel import lance_table

    return lance_features(np.ascontiguousarray(deals, np.int64), LANCE_INDEX[lance], lance_table(variant),
                          bool(pooled))


#: the lances of a hand in order, juego and punto both (one of them is played)
PLAYED_LANCES = ("grande", "chica", "pares", "juego", "punto")


def lance_parts(deals: np.ndarray, variant: Variant):
    """Per lance of ``PLAYED_LANCES``: (lance, outcome codes, played mask, [(pattern, deal
    indices)] of the subgames in which the lance is bet).  Pares and juego are played when
    somebody holds them, punto when nobody holds juego; a played lance outside every
    subgame (held by one team only) is counted en paso."""
    pm, jm = holder_masks(deals, variant)
    for lance in PLAYED_LANCES:
        o, _ = lance_states(deals, lance, variant, False)
        if lance == "pares":
            played = pm > 0
        elif lance == "juego":
            played = jm > 0
        elif lance == "punto":
            played = jm == 0
        else:
            played = np.ones(deals.shape[0], bool)
        subs = []
        for lance2, pat in SUBGAMES:
            if lance2 == lance:
                sel = np.nonzero(in_subgame(pm, jm, lance, pat) & played)[0]
                if sel.size:
                    subs.append((pat, sel))
        yield lance, o, played, subs


def check_deal(deal: str, solved: bool = False) -> str:
    """A deal model's name (``solved``: also the models only strategies are solved on)."""
    d = str(deal).strip().lower().replace("_", "-").replace(" ", "-")
    d = {"asdealt": "as-dealt", "dealt": "as-dealt", "aftermus": "after-mus", "mus": "after-mus"}.get(d, d)
    accepted = SOLVED_DEALS if solved else DEALS
    if d not in accepted:
        raise MusError(f"unknown deal model {deal!r}; accepted: {', '.join(accepted)}")
    return d


def stream_deals(variant: Variant, seed: int, start: int, n: int, key: int, deal: str = "as-dealt") -> np.ndarray:
    """Deals ``start .. start + n`` (hand indices int64 [n, 4] in seat order) of the stream
    ``key`` of a deal model: the window of its blocks of :data:`BLOCK` deals."""
    out = []
    b0, b1 = start // BLOCK, (start + n - 1) // BLOCK
    for b in range(b0, b1 + 1):
        blk = _kept_block(deal, variant, int(seed), int(key), b)
        lo = max(start - b * BLOCK, 0)
        hi = min(start + n - b * BLOCK, BLOCK)
        out.append(blk[lo:hi])
    return np.concatenate(out).astype(np.int64)


@lru_cache(maxsize=2)
def _kept_block(deal: str, variant: Variant, seed: int, key: int, b: int) -> np.ndarray:
    return block_deals(deal, variant, seed, key, b)
