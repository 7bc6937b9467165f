"""Órdago decisions: call one, accept one, or not (RULES.md "Betting", "Game").

**The answer** (:func:`ordago`, ``musstats ordago``) is against equilibrium opponents: the
lance's betting is solved at the score with P(win the game) as the payoff
(:mod:`musstats.analysis.ordago_eq`, :class:`musstats.engines.betting.game.GamePayoff`), and
for the asking hand: P(they accept our órdago), P(we win the lance | they accept), P(win the
game) if we call / pass, and against an órdago P(we win the lance | they called it) from
the callers' equilibrium range and P(win the game) if our team accepts / refuses, with the
solve's NashConv in P(win the game).  The decision is the action with the higher P(win the
game).  :func:`pushfold` gives the push/fold table of every hand and seat (``--chart``).

**The random-hands comparison** (``random_hands``; the answer itself only where there is
no equilibrium: ten kings, or ``equilibrium=False``) needs two numbers:

* ``p`` = P(our team wins the lance if the órdago is seen), exact over every deal of
  the other three hands consistent with the declarations and the partner's seña:

  - grande, chica: ``p_team`` (P(our team holds the best hand));
  - pares, juego: conditional on the lance being contested (both teams hold it,
    otherwise there is no betting): ``p_team_contested / p_contested``;
  - punto: conditional on punto being played (nobody holds juego):
    ``p_team / p_played``.

* ``W(a, b)`` = P(we win the game from our ``a`` stones against their ``b``) without
  the órdago, from the win-the-game model (:mod:`musstats.analysis.game`), with our team as
  mano's team in the hand when our seat is mano or third.

In pares and juego a player whose declaration is not given is assumed to hold the lance,
in both (the result's conditions name them).

Break-evens (with ``W(target, ·) = 1`` and ``W(·, target) = 0``):

* **Calling.**  If they accept, the lance decides the game: we win with ``p``.  If
  they refuse, we take the deje of 1 stone at once and play on: ``W(a + 1, b)``.
  Not calling leaves ``W(a, b)``.  With ``q`` = P(they accept), calling gains
  ``q (p - W(a, b)) + (1 - q) (W(a + 1, b) - W(a, b))``.  The second term is never
  negative, so against an opponent who accepts (the safe assumption) the
  break-even is **p_call = W(a, b)**: call when ``p >= W(a, b)``.  Below it a call
  is a bluff, which still pays when they accept less often than
  ``q* = g / (g + W(a, b) - p)``, ``g = W(a + 1, b) - W(a, b)`` (reported).
* **Accepting.**  Accepting wins the game with ``p``; refusing gives them 1 stone:
  ``W(a, b + 1)``.  Break-even **p_accept = W(a, b + 1)**: accept when ``p`` is above it.

Approximations of the comparison (also listed in every result):

1. ``W`` is the en-paso model evaluated at the *start* of a hand with the current
   mano, as if this hand had not been dealt: it ignores what our known cards are
   worth in the rest of this hand (the other lances, the count after a refused
   órdago) and all betting in later hands.
2. The deje is 1 stone: the órdago is the first bet of the lance (a refused órdago
   over an earlier bet gives the amount that stood before it).
3. ``p`` treats the other hands as random given the stated conditions: nothing is
   read from the mus phase or from how the others bet.
4. The game model plays every hand after one mus round in which all four players
   discard by the shipped strategy table (nobody cuts the mus).

"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.betting.deals import check_deal
from musstats.rules import checks
from musstats.rules.labels import LANCES, SEATS
from musstats.rules.variant import Variant, make_variant
from musstats.tables.context import Context, make_context
from musstats.tables.hands import JUEGO, PARES

__all__ = ["ORDAGO_LANCES", "OrdagoResult", "lance_probability", "break_evens", "decide", "ordago",
           "APPROXIMATIONS", "FRAME_COLUMNS", "frame_row", "full_declarations", "pushfold", "QUESTION_THREADS"]

ORDAGO_LANCES = LANCES
APPROXIMATIONS = (
    "P(win the game) is the en-paso model at the start of a hand with the current mano; "
    "the rest of this hand and later betting are ignored",
    "the deje of a refused órdago is 1 stone (the órdago is the first bet of the lance)",
    "the other hands are random given the stated declarations and seña",
    "the game model plays every hand after one mus round, all players discarding by the strategy table",
)
def lance_probability(ctx: Context, lance: str) -> dict[str, Any]:
    """P(our team wins ``lance`` if an órdago there is seen), exact, under the context's conditions.

    Returns ``{"p": Fraction, "basis": str, "p_contested" | "p_played": Fraction}``;
    MusError when the lance can never be bet under the conditions (pares/juego never
    contested, punto never played).
    """
    from musstats.engines.exact import ALL_STATS
    from musstats.engines.jokers import showdown_counts

    seat = ctx.seat
    # exact fractions for the plain game; Monte Carlo frequencies with ten kings
    counts, totals = showdown_counts(ctx, seats=(seat,))
    li = LANCES.index(lance)
    conv = Fraction if not ctx.variant.ten_kings else (lambda a, b: a / b)
    fr = {st: conv(int(counts[seat, li, si]), int(totals[seat])) for si, st in enumerate(ALL_STATS)}
    if lance in ("grande", "chica"):
        return {"p": fr["p_team"], "basis": "p_team"}
    if lance in ("pares", "juego"):
        if fr["p_contested"] == 0:
            raise MusError(f"no órdago at {lance}: under these conditions both teams never hold {lance}, "
                           "so there is no betting on it")
        return {"p": fr["p_team_contested"] / fr["p_contested"], "basis": "p_team_contested / p_contested",
                "p_contested": fr["p_contested"]}
    if fr["p_played"] == 0:
        t = ctx.tables
        if t.points[ctx.user] >= 31:
            raise MusError(f"no órdago at punto: you hold juego ({int(t.points[ctx.user])} points), "
                           "so punto is never played")
        raise MusError("no órdago at punto: under these conditions somebody always holds juego, "
                       "so punto is never played")
    return {"p": fr["p_team"] / fr["p_played"], "basis": "p_team / p_played", "p_played": fr["p_played"]}


def break_evens(model, us: int, them: int, mano: str) -> dict[str, float]:
    """W(a, b), W(a + 1, b), W(a, b + 1) from a :class:`~musstats.analysis.game.GameModel` and the break-evens."""
    w = model.p_win(us, them, mano)
    w_deje_us = model.p_win(us + 1, them, mano)
    w_deje_them = model.p_win(us, them + 1, mano)
    return {"p_game": w, "p_game_if_they_refuse": w_deje_us, "p_game_if_we_refuse": w_deje_them,
            "call": w, "accept": w_deje_them}


def decide(p: float, be: dict[str, float], lance: str = "lance") -> dict[str, Any]:
    """The decision and a one-line advice from ``p`` and :func:`break_evens`."""
    call = p >= be["call"]
    accept = p > be["accept"]
    gain = be["p_game_if_they_refuse"] - be["p_game"]
    bluff_q = None if call else (gain / (gain + be["call"] - p) if gain + be["call"] - p > 0 else 0.0)

    def pct(x: float | None) -> str:
        if x is None:
            return "–"
        return f"{100 * x:.1f} %"

    def close(x: float, y: float) -> str:
        return " (close)" if abs(x - y) < 0.01 else ""

    if call:
        first = f"Call the órdago: P(win {lance}) {pct(p)} ≥ break-even {pct(be['call'])}{close(p, be['call'])}"
    else:
        first = (f"Don't call: P(win {lance}) {pct(p)} < break-even {pct(be['call'])}{close(p, be['call'])}"
                 f" (as a bluff it pays only if they accept under {pct(bluff_q)} of the time)")
    second = (f"against theirs, {'accept' if accept else 'refuse'} "
              f"({pct(p)} {'>' if accept else '≤'} {pct(be['accept'])}{close(p, be['accept'])}).")
    return {"call": call, "accept": accept, "bluff_max_accept_rate": bluff_q, "advice": f"{first}; {second}"}


@dataclass
class OrdagoResult:
    """Call an órdago, accept one, or not: :func:`ordago`'s figures and advice.

    The top-level ``call``, ``accept``, ``recommended`` and ``advice`` are the answer against
    equilibrium opponents (``method == "equilibrium"``), or the random-hands one where there
    is no equilibrium (ten kings, ``equilibrium=False``: ``method == "random hands"``); the
    random-hands comparison is always under ``random_hands``."""

    context: Context
    data: dict[str, Any]

    @property
    def call(self) -> bool | None:
        return self.data["call"]

    @property
    def accept(self) -> bool | None:
        return self.data["accept"]

    @property
    def advice(self) -> str:
        return self.data["advice"]

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of ``musstats ordago --format json``."""
        return {**self.context.describe(), **self.data}

    def to_frame(self):
        """One row: the answer and its figures (equilibrium), the random-hands comparison in
        ``random_hands_*`` columns; metadata in ``attrs``."""
        import pandas as pd

        d = self.to_dict()
        row = frame_row(d)
        df = pd.DataFrame([row])
        df.attrs.update({k: v for k, v in d.items() if k not in row})
        return df


#: the columns of :meth:`OrdagoResult.to_frame` (and of the CSV): the answer's, then the random-hands comparison's
FRAME_COLUMNS = ("lance", "score_us", "score_them", "method", "call", "accept",
                 "p_call", "p_they_accept", "p_win_lance_if_accepted", "p_game_if_call", "p_game_if_pass",
                 "p_accept", "p_win_lance_if_called", "p_game_if_accept", "p_game_if_refuse", "nashconv",
                 "random_hands_p_lance", "random_hands_p_game", "random_hands_p_game_if_they_refuse",
                 "random_hands_p_game_if_we_refuse", "random_hands_call", "random_hands_accept")


def frame_row(d: dict[str, Any]) -> dict[str, Any]:
    """The one row of :meth:`OrdagoResult.to_frame` from the JSON document."""
    eq = d.get("equilibrium") or {}
    c, a = eq.get("call") or {}, eq.get("answer") or {}
    rh = d["random_hands"]
    return {"lance": d["lance"], "score_us": d["score"]["us"], "score_them": d["score"]["them"],
            "method": d["method"], "call": d["call"], "accept": d["accept"],
            "p_call": c.get("p_call"), "p_they_accept": c.get("p_they_accept"),
            "p_win_lance_if_accepted": c.get("p_win_lance_if_accepted"),
            "p_game_if_call": c.get("p_win_game_if_call"), "p_game_if_pass": c.get("p_win_game_if_pass"),
            "p_accept": a.get("p_accept"), "p_win_lance_if_called": a.get("p_win_lance_if_called"),
            "p_game_if_accept": a.get("p_win_game_if_accept"), "p_game_if_refuse": a.get("p_win_game_if_refuse"),
            "nashconv": (eq.get("nashconv") or {}).get("nashconv"),
            "random_hands_p_lance": rh["p_lance"], "random_hands_p_game": rh["p_game"],
            "random_hands_p_game_if_they_refuse": rh["p_game_if_they_refuse"],
            "random_hands_p_game_if_we_refuse": rh["p_game_if_we_refuse"],
            "random_hands_call": rh["call"], "random_hands_accept": rh["accept"]}


def ordago(
    hand: str | Iterable,
    seat: str | int = "mano",
    *,
    lance: str = "grande",
    score: str | tuple[int, int] = "0-0",
    variant: str | Variant = "8-reyes",
    juego_real: str = "off",
    target: int | None = None,
    redeal_4567: bool = False,
    mus_visto: bool = False,
    declared: str | Iterable[str] | None = None,
    signal: str | Iterable[str] | None = None,
    model=None,
    progress=None,
    equilibrium: bool = True,
    iterations: int | None = None,
    eq_trials: int | None = None,
    eq_seed: int | None = None,
    eval_samples: int | None = None,
    solve_progress=None,
    deal: str = "as-dealt",
    threads: int | None = None,
) -> OrdagoResult:
    """Should we call an órdago at ``lance`` (or accept one) at ``score`` (ours first)?

    Against equilibrium opponents (the default): the lance's betting is solved at the score
    with P(win the game) as the payoff (:mod:`musstats.analysis.ordago_eq`; ``iterations`` of
    the vector solver, cached on disk, warm-started from a nearby score;
    ``solve_progress(done, total)`` while solving), and the result's ``call``, ``accept``,
    ``recommended`` and ``advice`` are the actions with the higher P(win the game) at the
    seat's first turn and facing an opening órdago of theirs, with every figure in
    ``equilibrium``: P(they accept our órdago), P(we win the lance | they accept), P(win the
    game) if we call / pass, the equilibrium frequencies, P(we win the lance | they called
    it) from the callers' range, P(win the game) if our team accepts / refuses, the solve's
    NashConv in P(win) units.  ``deal``: the hands as dealt (``as-dealt``) or after one mus
    round (``after-mus``, the deal solver, cold).

    ``random_hands`` always holds the comparison against random hands: the lance
    probability (exact), P(win the game) without the órdago from the en-paso game model
    (``model``, or the cached default; ``progress(done, total)`` while it is simulated) and
    the break-evens (module docstring).  With ``equilibrium=False`` or ten kings it is the
    answer (``method == "random hands"``).

    In pares and juego a player whose declaration is not given is assumed to hold the lance
    (both figures use it; the result's ``conditions`` say so under ``assumed``).

    ``threads``: numba threads for the question (default :data:`QUESTION_THREADS`).
    """
    from musstats.engines.run import threads as run_threads

    n = QUESTION_THREADS if threads is None else checks.threads(threads)
    with run_threads(n):
        return _ordago(hand, seat, lance, score, variant, juego_real, target, redeal_4567, mus_visto, declared,
                       signal, model, progress, equilibrium, iterations, eq_trials, eq_seed, eval_samples,
                       solve_progress, deal)


#: numba threads of one question by default: its kernels are small, and on one thread a question
#: keeps its time when the machine is busy (measured on the 2-core machine with other work running:
#: 40 random questions at a warm server, p95 0.71 s on one thread, 5.4 s on two)
QUESTION_THREADS = 1


def _ordago(hand, seat, lance, score, variant, juego_real, target, redeal_4567, mus_visto, declared, signal, model,
            progress, equilibrium, iterations, eq_trials, eq_seed, eval_samples, solve_progress,
            deal) -> OrdagoResult:
    if hand is None:
        raise MusError('a hand is required, e.g. "R R 3 A"')
    v = make_variant(variant, juego_real, target, redeal_4567=redeal_4567, mus_visto=mus_visto)
    name = checks.lance(lance)
    us, them = checks.score(score, v.target)
    deal = check_deal(deal)
    if not isinstance(equilibrium, bool):
        raise MusError(f"equilibrium must be True or False, got {equilibrium!r}")
    declared = _declared_text(declared)
    ctx = make_context(v, hand, seat, declared=declared, signal=signal)
    full, assumed = full_declarations(ctx, name, declared)
    if assumed:
        ctx = make_context(v, hand, seat, declared=full, signal=signal)
    lp = _lance_probability_memo(ctx, name)
    given_model = model  # the equilibrium keys its solves on the default model's settings unless one is given
    if model is None:
        from musstats.analysis.game import game_model

        model = game_model(v, progress=progress)
    elif getattr(model, "variant", None) is None or not hasattr(model, "p_win"):
        raise MusError(f"model must be a musstats GameModel, got {type(model).__name__}")
    elif model.variant.cache_key() != v.cache_key():
        raise MusError(f"the game model is for other rules ({model.variant.name}, a game to {model.target}) "
                       f"than the question ({v.name}, a game to {v.target})")
    s = ctx.seat
    mano = "us" if s % 2 == 0 else "them"
    be = break_evens(model, us, them, mano)
    p = float(lp["p"])
    dec = decide(p, be, name)
    notes: list[str] = []
    t = ctx.tables
    li = {"pares": PARES, "juego": JUEGO}.get(name)
    if li is not None and t.key[li, ctx.user] == 0:
        notes.append(f"you do not hold {name}: only your partner can bet or answer it")
    conditions = dict(ctx.conditions)
    if assumed:
        conditions["assumed"] = (f"{', '.join(assumed)} hold{'s' if len(assumed) == 1 else ''} {name} "
                                 f"(not declared; --declared SEAT:no-{name} says otherwise)")
    random_hands = {
        "what": "the others' hands random given the stated conditions (no betting read), P(win the game) from "
                "the en-paso game model at the start of the hand",
        "p_lance": p,
        "p_lance_exact": str(lp["p"]) if not v.ten_kings else None,
        "p_lance_method": "exact" if not v.ten_kings else "Monte Carlo (400,000 deals, seed 2026)",
        "p_lance_basis": lp["basis"],
        "p_game": be["p_game"],
        "p_game_if_they_refuse": be["p_game_if_they_refuse"],
        "p_game_if_we_refuse": be["p_game_if_we_refuse"],
        "break_even": {"call": be["call"], "accept": be["accept"]},
        "call": dec["call"],
        "accept": dec["accept"],
        "bluff_max_accept_rate": dec["bluff_max_accept_rate"],
        "advice": dec["advice"],
        "game_model": {**model.describe(), "mano": "us" if mano == "us" else "them",
                       "evaluated_at": "start of the hand"},
    }
    eq = None
    if equilibrium:
        eq = _equilibrium(ctx, v, name, us, them, full if assumed else declared, given_model, iterations,
                          eq_trials, eq_seed, eval_samples, solve_progress, notes, deal)
    data: dict[str, Any] = {"lance": name, "score": {"us": us, "them": them, "target": v.target},
                            "conditions": conditions, "deal": deal}
    answer = _answer(eq) if eq is not None else None
    if eq is not None and answer is None and ctx.seating.name(ctx.seat) not in (eq.get("speakers") or []):
        # the lance is bet without this player: there is nothing for him to decide
        who = ", ".join(eq.get("speakers") or [])
        answer = {"call": None, "accept": None, "recommended": {"call": None, "answer": None},
                  "advice": f"Equilibrium: you have no say in {name} (only {who} declared it): your partner "
                            "bets and answers for your team."}
    if answer is None:
        data.update({"method": "random hands", "call": dec["call"], "accept": dec["accept"],
                     "recommended": {"call": "call" if dec["call"] else "pass",
                                     "answer": "accept" if dec["accept"] else "refuse"},
                     "advice": "Random hands: " + dec["advice"]})
    else:
        data.update({"method": "equilibrium", **answer})
    data["equilibrium"] = eq
    data["random_hands"] = random_hands
    data["approximations"] = (list(eq.get("approximations", ())) if eq else []) + \
        [f"random hands: {x}" for x in APPROXIMATIONS]
    data["notes"] = notes
    return OrdagoResult(ctx, data)


def _declared_text(declared) -> str | None:
    """``declared`` as one text (a string, or an iterable of strings)."""
    if declared is None:
        return None
    if isinstance(declared, str):
        return declared or None
    if isinstance(declared, (bytes, int, float, bool)) or not hasattr(declared, "__iter__"):
        raise MusError(f"declared must be text like \"second:pares,postre:no-juego\", got {declared!r}")
    items = list(declared)
    if not all(isinstance(x, str) for x in items):
        raise MusError(f"declared must be text like \"second:pares,postre:no-juego\", got {declared!r}")
    return ",".join(items) or None


def full_declarations(ctx: Context, lance: str, declared: str | None) -> tuple[str | None, list[str]]:
    """The declarations with the explicit default of pares and juego: every other player whose
    declaration of ``lance`` is not given holds it.  Returns (the declarations as text, the
    seats assumed); for grande, chica and punto nothing is assumed."""
    from musstats.rules.conditions import declared_text, parse_declared

    if lance not in ("pares", "juego"):
        return declared, []
    by = parse_declared(declared, ctx.seating)
    assumed = []
    for q in range(ctx.seating.players):
        if q != ctx.seat and lance not in by.get(q, {}):
            by.setdefault(q, {})[lance] = True
            assumed.append(ctx.seating.name(q))
    return declared_text(by, ctx.seating), assumed


_LP_MEMO: dict[str, dict[str, Any]] = {}


def _lance_probability_memo(ctx: Context, lance: str) -> dict[str, Any]:
    """:func:`lance_probability`, kept in memory per question (an exact enumeration takes
    about a second; the score does not enter it)."""
    import json

    key = json.dumps([ctx.describe(), lance], sort_keys=True, default=str)
    if key not in _LP_MEMO:
        if len(_LP_MEMO) > 4096:
            _LP_MEMO.clear()
        _LP_MEMO[key] = lance_probability(ctx, lance)
    return _LP_MEMO[key]


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.2f} %"


def _answer(eq: dict) -> dict[str, Any] | None:
    """The equilibrium answer at the top level: call / accept, recommended, and a one-line
    advice naming the better action with both figures; None when there are no equilibrium
    figures for this seat."""
    c, a = eq.get("call"), eq.get("answer")
    parts = []
    rec: dict[str, Any] = {"call": None, "answer": None}
    call = accept = None
    if c and c.get("decision"):
        call = c["decision"] == "call"
        rec["call"] = c["decision"]
        first, second = ("calling", c["p_win_game_if_call"]), ("passing", c["p_win_game_if_pass"])
        if not call:
            first, second = second, first
        mix = f"; the equilibrium calls {100 * c['p_call']:.0f} % of the time" if c.get("mixed") else ""
        parts.append(f"{'call the órdago' if call else 'pass (do not call)'}: P(win the game) "
                     f"{_pct(first[1])} {first[0]}, {_pct(second[1])} {second[0]}{_close(c, 'call_minus_pass')}{mix}")
    if a and a.get("decision"):
        accept = a["decision"] == "accept"
        rec["answer"] = a["decision"]
        first, second = ("accepting", a["p_win_game_if_accept"]), ("refusing", a["p_win_game_if_refuse"])
        if not accept:
            first, second = second, first
        team = " (your partner refusing too)" if a.get("partners_after") else ""
        parts.append(f"against theirs, {'accept' if accept else 'refuse'}: P(win the game) {_pct(first[1])} "
                     f"{first[0]}, {_pct(second[1])} {second[0]}{team}{_close(a, 'accept_minus_refuse')}")
    if not parts:
        return None
    return {"call": call, "accept": accept, "recommended": rec,
            "advice": "Equilibrium: " + "; ".join(parts) + "."}


def _close(part: dict, key: str) -> str:
    """`` (equal within the Monte Carlo error)`` when the two figures are within two standard errors."""
    g, se = part.get(key), part.get(f"{key}_se")
    if g is None or se is None:
        return ""
    return " (equal within the Monte Carlo error)" if abs(g) <= 2 * se else ""


def _equilibrium(ctx, v, lance, us, them, declared, model, iterations, trials, seed, eval_samples, progress,
                 notes, deal="as-dealt") -> dict | None:
    """The equilibrium figures of :func:`ordago` (None, with a note, where there are none)."""
    from musstats.analysis import ordago_eq as E
    from musstats.analysis.betting import declaration_pattern
    from musstats.engines.betting.tree import betting_tree

    if v.ten_kings:
        notes.append("no equilibrium figures with ten kings (a joker's identity depends on the bets)")
        return None
    it = None if iterations is None else checks.positive(iterations, "iterations", checks.MAX_ITERATIONS)
    tr = E.DEFAULT_EQ_TRIALS if trials is None else checks.positive(trials, "trials", 5_000_000)
    sd = E.DEFAULT_EQ_SEED if seed is None else checks.seed(seed)
    ev = None if eval_samples is None else checks.positive(eval_samples, "evaluation samples", 1_000_000)
    q = ctx.seat
    a, b = (us, them) if q % 2 == 0 else (them, us)
    decl = declared
    if decl is not None and not isinstance(decl, str):
        decl = ",".join(str(x) for x in decl)
    pattern = declaration_pattern(lance, ctx.user, q, decl or None, v)
    if ctx.conditions.get("signal"):
        notes.append("the equilibrium figures ignore the seña (private information: nobody signals)")
    speakers = betting_tree(lance, pattern).speakers
    if q not in speakers:
        notes.append(f"equilibrium: you have no say in {lance} (only {', '.join(SEATS[x] for x in speakers)} "
                     f"declared it): no equilibrium figures for you")
        return {"lance": lance, "deal": deal, "call": None, "answer": None, "score_team0": a, "score_team1": b,
                "speakers": [SEATS[x] for x in speakers], "notes": [], "nashconv": None,
                "approximations": list(E.eq_approximations(deal))}
    # later hands are valued by the game model with betting where it ships (a given en-paso model
    # serves the random-hands figures only); a given model with betting is used as it is
    from musstats.analysis.game.model import PASO_TEXT

    grid = None if model is None or model.betting == PASO_TEXT else np.asarray(model.p[1])
    sol = E.score_solution(lance, pattern, v, a, b, iterations=it, seed=sd, eval_samples=ev, grid=grid,
                           progress=progress, deal=deal)
    fig = E.equilibrium_figures(sol, v, lance, pattern, ctx.user, q, list(ctx.hand), trials=tr, seed=sd)
    fig["score_team0"], fig["score_team1"] = a, b
    fig["speakers"] = [SEATS[x] for x in speakers]
    fig["approximations"] = list(E.eq_approximations(deal))
    notes.extend(f"equilibrium: {n}" for n in fig.get("notes", []))
    return fig


def pushfold(*, lance: str = "grande", score: str | tuple[int, int] = "0-0", variant: str | Variant = "8-reyes",
             juego_real: str = "off", target: int | None = None, redeal_4567: bool = False, mus_visto: bool = False,
             declared: str | Iterable[str] | None = None, iterations: int | None = None, seed: int | None = None,
             eval_samples: int | None = None, progress=None, solve_progress=None, deal: str = "as-dealt"):
    """The push/fold table of an órdago at ``lance`` and ``score`` (**mano's team first**):
    for every seat that speaks and every hand it can hold, the equilibrium frequency of
    calling an órdago at its first turn and of accepting an opening one
    (:func:`musstats.analysis.ordago_eq.pushfold_frame`).  ``declared`` gives who holds pares
    / juego (a seat not named holds it); ``deal``: as dealt or after the mus (see :func:`ordago`)."""
    from musstats.analysis import ordago_eq as E
    from musstats.analysis.betting import declaration_pattern

    v = make_variant(variant, juego_real, target, redeal_4567=redeal_4567, mus_visto=mus_visto)
    if v.ten_kings:
        raise MusError("no push/fold chart with ten kings: betting equilibria are not available there "
                       "(a joker's identity depends on the bets); accepted variants: 8-reyes, 4-reyes")
    name = checks.lance(lance)
    a, b = checks.score(score, v.target)
    deal = check_deal(deal)
    decl = declared
    if decl is not None and not isinstance(decl, str):
        decl = ",".join(str(x) for x in decl)
    pattern = declaration_pattern(name, None, None, decl or None, v)
    it = None if iterations is None else checks.positive(iterations, "iterations", checks.MAX_ITERATIONS)
    sd = E.DEFAULT_EQ_SEED if seed is None else checks.seed(seed)
    ev = None if eval_samples is None else checks.positive(eval_samples, "evaluation samples", 1_000_000)
    from musstats.analysis.game import game_model

    game_model(v, progress=progress)  # the values of the scores (cached)
    sol = E.score_solution(name, pattern, v, a, b, iterations=it, seed=sd, eval_samples=ev, progress=solve_progress,
                           deal=deal)
    return E.pushfold_frame(sol, v, name, pattern, a, b)
