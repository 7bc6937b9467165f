"""The mus phase engine: expected stones of user keep-sets on common deals, and deals
after mus rounds in which everyone discards by a policy (see musstats._kernels.mus)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.estimate import covariance, mean_se, proportion
from musstats.engines.run import Progress, run_batches
from musstats.rules import checks
from musstats.rules.cards import Card

from musstats.rules.labels import LANCES
from musstats.rules.variant import Variant
from musstats.tables.hands import hand_tables
from musstats.tables.kernel import kernel_tables
from musstats.rules.seats import FOUR
from musstats.tables.context import Context, redeal_hand
from musstats.tables.policies import cut_flags, get_policy, visto_policy

__all__ = ["KeepEval", "deck_ids", "evaluate_keeps", "deals_after_mus", "deals_as_dealt", "DEFAULT_TRIALS",
           "N_CHUNKS"]

DEFAULT_TRIALS = 60_000
#: at least this many chunks per evaluation (each seeded on its own)
N_CHUNKS = 64
#: at most this many deals per chunk
CHUNK_MAX = 16_384
#: chunks per kernel call (about half a second): Ctrl-C and progress act between calls
BATCH_CHUNKS = 8
#: the share of deals meeting a restriction is counted exactly (not estimated from the
#: proposals) when the other seats' numbers of allowed hands multiply to at most this
#: (a few ms; the rare conditions, where the estimate would be poorest)
EXACT_SHARE_MAX = 1_000_000


@dataclass
class KeepEval:
    """Monte Carlo estimates for a set of user keep masks on common deals."""

    masks: np.ndarray  # int64 [K]
    trials: int
    seed: int
    ev: np.ndarray  # float [K, 5] mean net stones per lance
    ev_se: np.ndarray  # float [K, 5]
    p_team: np.ndarray  # float [K, 5] our team holds the best hand of the lance
    total: np.ndarray  # float [K] mean of the summed net stones
    total_cov: np.ndarray  # float [K, K] covariance of the totals (per trial)
    ev_m2: np.ndarray  # float [K, 5] mean of the squared net stones per lance
    p_deal_kept: float = 1.0  # share of the dealt deals that met the conditions
    partial: bool = False  # interrupted before all the trials were done
    hands: np.ndarray | None = None  # int64 [trials, K, players]: final hands (with record_hands)

    def total_se(self) -> np.ndarray:
        """Standard error of each total."""
        return np.sqrt(np.maximum(np.diag(self.total_cov), 0) / self.trials)

    def diff_se(self, a: int, b: int) -> float:
        """Standard error of total[a] - total[b] (common random numbers)."""
        c = self.total_cov
        return float(np.sqrt(max(c[a, a] + c[b, b] - 2 * c[a, b], 0.0) / self.trials))

    def objective(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard error of the objective for every keep-set."""
        if name == "total":
            return self.total, self.total_se()
        li = LANCES.index(name)
        if name == "juego":  # the fourth count step: juego, or punto when nobody has juego
            # per deal one of the two is 0, so E[(J + P)^2] = E[J^2] + E[P^2]
            mean = self.ev[:, 3] + self.ev[:, 4]
            n = self.trials
            var = np.maximum(self.ev_m2[:, 3] + self.ev_m2[:, 4] - mean**2, 0) * n / max(n - 1, 1)
            return mean, np.sqrt(var / n)
        return self.ev[:, li], self.ev_se[:, li]


def deck_ids(variant: Variant) -> np.ndarray:
    """Class id of each physical card id 0..39."""
    return np.repeat(np.arange(len(variant.classes)), [c.count for c in variant.classes]).astype(np.int64)


def _user_cards(cards: list[Card], variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """Physical ids for the user's cards (sorted by class, highest first) and the unseen ids."""
    t = hand_tables(variant)
    card_class = deck_ids(variant)
    ids = sorted(t.class_ids(cards), reverse=True)
    used = []
    for c in ids:
        free = [i for i in np.nonzero(card_class == c)[0] if i not in used]
        used.append(int(free[0]))
    unseen = np.array([i for i in range(40) if i not in used], np.int64)
    return np.array(used, np.int64), unseen


def evaluate_keeps(
    ctx: Context,
    masks: Iterable[int],
    policy: np.ndarray | None = None,
    *,
    rounds: int = 1,
    trials: int = DEFAULT_TRIALS,
    seed: int | None = None,
    spawn_key: tuple[int, ...] = (),
    others_ask: bool = False,
    cut: np.ndarray | None = None,
    threads: int | None = None,
    progress: Progress | None = None,
    record_hands: bool = False,
) -> KeepEval:
    """Estimate the net stones en paso after ``rounds`` mus rounds for each user keep mask.

    The other seats (and the user after the first round) discard by ``policy`` [4, H]
    (default: the shipped table).  All masks are evaluated on the same deals and draws
    (common random numbers).  With mus visto (``variant.mus_visto``) the masks are the
    user's change in the visto round (15 = keep everything) and the others follow
    :func:`visto_policy` there.  The mask ``NO_MUS`` (16) is "the user cuts": nobody
    changes cards.  With ``others_ask`` only deals in which none of the other three holds a
    hand he would cut with count (the mus happens only when all four ask for it);
    ``KeepEval.p_deal_kept`` is their share; ``cut`` bool [4, H] are the hands the others
    cut with (default: the shipped flags, :func:`cut_flags`).  The context's masks (the
    4-5-6-7 redeal) likewise keep another seat's hand inside them.  Such conditions are met
    by drawing the other hands among the allowed ones (:func:`_restricted_deal`), not by
    rejecting deals, so that rare conditions cost no more than common ones.  Ctrl-C between
    batches returns the deals done so far (``KeepEval.partial``).  With ``record_hands``,
    ``KeepEval.hands`` holds every deal's final hand indices per mask (to value the deals
    otherwise, e.g. with betting).
    """
    from musstats._kernels.mus import keep_sets_eval
    from musstats.engines.random import seed_states

    variant = ctx.variant
    t = ctx.tables
    if ctx.seat < 0:
        raise MusError("a keep-set evaluation needs a hand and a seat")
    players = ctx.seating.players
    if policy is None:
        policy, _ = get_policy("table" if ctx.seating == FOUR else "reyes-pairs", variant)
    policy = np.asarray(policy)
    if policy.shape[0] != players:  # a policy of the same rule at every seat
        policy = np.tile(policy[:1], (players, 1))
    if players * 4 + 4 > 40:
        raise MusError(f"{players} players leave too few cards for a mus round")
    if others_ask and ctx.seating != FOUR:
        raise MusError("who cuts the mus is modelled for four players in partnerships")
    masks = np.asarray(list(masks), np.int64)
    trials = checks.whole(trials, "trials", 1, checks.MAX_KEEP_TRIALS)
    seed = checks.seed(seed)
    n_threads = checks.threads(threads)
    user, unseen = _user_cards(list(ctx.hand), variant)
    # 64 chunks (so results of up to 1M deals keep the streams they always had), more for
    # bigger runs so that a chunk stays small; batches of chunks let Ctrl-C in
    n_chunks = min(max(N_CHUNKS, -(-trials // CHUNK_MAX)), trials)
    per = np.full(n_chunks, trials // n_chunks, np.int64)
    per[: trials % n_chunks] += 1
    visto = bool(variant.mus_visto)
    pol_visto = visto_policy(policy, variant) if visto else policy
    reject = np.zeros((players, t.n_hands), np.int64)
    if ctx.allowed is not None:
        reject[~ctx.allowed] = 1
    if others_ask:
        flags = cut_flags(variant) if cut is None else np.asarray(cut, bool)
        if flags.shape != (4, t.n_hands):
            raise MusError(f"cut flags must be bool [4, {t.n_hands}]")
        reject[flags] = 1
    restricted, scale, exact_share = _restricted_deal(ctx, unseen, reject)
    args = (user, unseen, ctx.seat, masks, np.ascontiguousarray(policy, np.int64), rounds, deck_ids(variant),
            t.n_classes, t.idx4.astype(np.int64), ctx.team, ctx.lances, ctx.jokers.n_options, ctx.jokers.base,
            visto, np.ascontiguousarray(pol_visto, np.int64), *restricted)
    k_n = masks.shape[0]
    hands_out = np.zeros((trials if record_hands else 0, k_n, players), np.int64)
    out_off = np.concatenate([[0], np.cumsum(per)[:-1]]).astype(np.int64)
    acc = np.zeros((k_n, 5, 3), np.int64)
    tot = np.zeros(k_n, np.int64)
    cross = np.zeros((k_n, k_n), np.int64)
    att = 0

    def step(start: int, k: int) -> None:
        nonlocal acc, tot, cross, att
        call = (seed_states(seed, k, start, key=spawn_key), per[start: start + k], *args, hands_out,
                out_off[start: start + k])
        b_acc, b_tot, b_cross, attempts = keep_sets_eval(*call)
        if (attempts < 0).any():
            raise MusError("no deal satisfies the conditions (every deal was rejected)")
        acc, tot, cross = acc + b_acc.sum(axis=0), tot + b_tot.sum(axis=0), cross + b_cross.sum(axis=0)
        att += int(attempts.sum())

    done, partial = run_batches(n_chunks, BATCH_CHUNKS, step, n_threads=n_threads, progress=None if progress is None
                                else lambda d: progress(int(per[:d].sum()), trials))
    n = int(per[:done].sum())
    cross = np.triu(cross) + np.triu(cross, 1).T
    ev, ev_se = mean_se(acc[:, :, 1], acc[:, :, 2], n)
    p_team, _ = proportion(acc[:, :, 0], n)
    mean_tot = tot / n
    cov = covariance(tot, cross, n)
    return KeepEval(masks, n, seed, ev, ev_se, p_team, mean_tot, cov, acc[:, :, 2] / n,
                    float(n / att * scale) if exact_share is None else float(exact_share), partial,
                    hands_out[:n] if record_hands else None)


def _restricted_deal(ctx: Context, unseen: np.ndarray, reject: np.ndarray) -> tuple[tuple, float, float | None]:
    """The arguments of the kernel's restricted dealer (:func:`musstats._kernels.mus.deal_restricted`)
    for the rejection mask ``reject`` [players, H] (a flag off when nothing is rejected), the
    factor that turns its acceptance rate into the share of deals that meet the mask, and that
    share counted exactly when the allowed hands are few enough (else None).

    A proposal draws each other seat's hand among its F_q allowed hands of the unseen cards
    and is kept when no card repeats, so P(a deal meets the mask) = acceptance * prod_q F_q /
    prod_k C(unseen - 4 k, 4) over the other seats."""
    from math import comb, prod

    t = ctx.tables
    card_class = deck_ids(ctx.variant)
    k_cls = t.n_classes
    n_pool = np.array([(card_class[unseen] == c).sum() for c in range(k_cls)], np.int64)
    pool = np.zeros((k_cls, max(int(n_pool.max()), 1)), np.int64)
    for c in range(k_cls):
        pool[c, : n_pool[c]] = unseen[card_class[unseen] == c]
    players = reject.shape[0]
    counts = t.counts.astype(np.int64)
    kt = kernel_tables(ctx.variant)
    hcls, hmul, hk = kt.nz_cls, kt.nz_cnt, kt.nnz  # each hand's classes, how many of each, how many classes
    binom = kt.binom  # C(n, k) for n up to the largest class (8 cards)
    combos = binom[n_pool[None, :], counts].prod(axis=1)  # physical hands of each class in the unseen cards
    ok_list = np.zeros((players, t.n_hands), np.int64)
    cum = np.zeros((players, t.n_hands), np.int64)
    n_ok = np.zeros(players, np.int64)
    for q in range(players):
        ok = np.nonzero((reject[q] == 0) & (combos > 0))[0]
        ok_list[q, : len(ok)] = ok
        cum[q, : len(ok)] = np.cumsum(combos[ok])
        n_ok[q] = len(ok)
    restricted = bool(reject.any())
    scale, exact = 1.0, None
    if restricted:
        others = [q for q in range(players) if q != ctx.seat]
        if any(n_ok[q] == 0 for q in others):
            raise MusError("no deal satisfies the conditions (no allowed hand for some seat)")
        for k, q in enumerate(others):
            scale *= int(cum[q, n_ok[q] - 1]) / comb(len(unseen) - 4 * k, 4)
        if len(others) == 3 and int(np.prod(n_ok[others])) <= EXACT_SHARE_MAX:
            from musstats._kernels.mus import count_restricted

            n = count_restricted(np.array(others, np.int64), n_pool, ok_list, n_ok, counts, hcls, hmul, hk, binom)
            if n == 0:
                raise MusError("no deal satisfies the conditions (the allowed hands of the other seats "
                               "cannot be dealt together)")
            exact = n / prod(comb(len(unseen) - 4 * k, 4) for k in range(3))
    return (restricted, pool, n_pool, ok_list, cum, n_ok, hcls, hmul, hk), scale, exact


def deals_after_mus(n: int, seed: int, variant: Variant = Variant(), *, rounds: int = 1,
                    policy: str = "table", cut: np.ndarray | None = None, key: tuple[int, ...] = (),
                    with_rounds: bool = False, with_dealt: bool = False) -> np.ndarray:
    """``n`` random deals after ``rounds`` mus rounds in which all four players discard by
    ``policy``: final hand indices int64 [n, 4] in seat order (a deal source for the game model).

    ``cut`` (bool [4, H]): the mus decision -- before each round, a seat holding a hand it
    cuts with ends the mus (the hands are played as they stand); None: everyone asks.
    ``key``: the spawn key of the chunks' seeds (independent streams of one seed).
    ``with_rounds``: [n, 5], the fifth column the number of mus rounds each deal had;
    ``with_dealt``: [n, 9], then the hands as first dealt (seat order)."""
    from musstats._kernels.mus import deals_after_mus as _kernel
    from musstats.engines.random import chunk_trials, seed_states

    t = hand_tables(variant)
    pol, _ = get_policy(policy, variant)
    n = int(n)
    n_chunks = min(N_CHUNKS, max(1, n))
    per, offsets = chunk_trials(n, n_chunks)
    seeds = seed_states(seed, n_chunks, key=key)
    visto = bool(variant.mus_visto) and rounds > 0  # hands played as dealt see no visto round
    pol_visto = visto_policy(pol, variant) if visto else pol
    flags = np.zeros((0, t.n_hands), np.bool_) if cut is None else np.ascontiguousarray(cut, np.bool_)
    if flags.shape[0] and flags.shape != (4, t.n_hands):
        raise MusError(f"cut flags must be bool [4, {t.n_hands}], got shape {flags.shape}")
    out = _kernel(seeds, per, offsets, np.ascontiguousarray(pol, np.int64), rounds, deck_ids(variant),
                  t.n_classes, t.idx4.astype(np.int64), redeal_hand(variant), visto,
                  np.ascontiguousarray(pol_visto, np.int64), flags, bool(with_dealt))
    return out if with_rounds or with_dealt else np.ascontiguousarray(out[:, :4])




def deals_as_dealt(n: int, seed: int, variant: Variant = Variant()) -> np.ndarray:
    """``n`` uniformly random deals from a full deck: hand indices int64 [n, 4] in seat order.

    The hands are played as dealt (no mus round).  Reproducible for a given seed.
    """
    return deals_after_mus(n, seed, variant, rounds=0)
