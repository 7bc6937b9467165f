"""Write tests/golden/exact.json: exact showdown odds as fractions, from the slow reference
of tests/naive.py (never from the package).

    .venv/bin/python tests/make_golden.py

The fast tests (tests/test_exact.py, tests/test_conditions.py) compare the exact engine with
these fractions; the slow ones (``-m slow``) check that the reference still produces them.
Each case lists the seats it holds (a seat that makes a declaration cannot be the user's).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import naive  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden" / "exact.json"

#: (hand, deck, dead cards, juego real, declarations, partner's seña); cards one character each
CASES = [
    ("R R 3 A", "8-reyes", "", "off", None, None),
    ("C S 4 A", "8-reyes", "", "off", None, None),
    ("7 7 6 5", "8-reyes", "R R 3 A A 2 4", "off", None, None),
    ("7 7 7 S", "8-reyes", "C 4 5", "figure", None, None),
    ("R 7 3 A", "4-reyes", "2 2 2 2 5 5 5 5 6 6 6 6", "off", None, None),
    ("A 2 4 4", "4-reyes", "R R R R C C C C 7 7 7 7", "sota", None, None),
    ("C S 4 A", "8-reyes", "", "off", "second:pares,postre:no-pares", None),
    ("R 7 7 5", "8-reyes", "", "off", "mano:juego", "duples"),
]


def case_id(hand, deck, dead, jr, declared, signal) -> str:
    parts = [hand, deck]
    if dead:
        parts.append("dead " + dead)
    if jr != "off":
        parts.append("juego real " + jr)
    if declared:
        parts.append("declared " + declared)
    if signal:
        parts.append("signal " + signal)
    return ", ".join(parts)


def seats_of(declared) -> list[int]:
    """The user's seats a case holds: every seat that makes no declaration."""
    taken = {naive.SEAT_NAMES.index(item.split(":")[0]) for item in (declared or "").split(",") if item}
    return [s for s in range(4) if s not in taken]


def reference(case: dict) -> dict:
    """The reference's fractions of one case, {seat: {lance: {stat: Fraction}}} on its seats."""
    deck = case["deck"]
    cond = None
    if case["declared"] or case["signal"]:
        cond = naive.condition_of(case["declared"], case["signal"], deck)
    ref = naive.showdown_reference(naive.kinds_of(case["hand"], deck), deck,
                                   naive.kinds_of(case["dead"], deck), juego_real=case["juego_real"],
                                   condition=cond)
    return {s: ref[s] for s in case["seats"]}


def cases() -> list[dict]:
    return [{"id": case_id(*c), "hand": c[0], "deck": c[1], "dead": c[2], "juego_real": c[3],
             "declared": c[4], "signal": c[5], "seats": seats_of(c[4])} for c in CASES]


def main() -> None:
    out = []
    for case in cases():
        t0 = time.perf_counter()
        case["odds"] = naive.fractions_to_json(reference(case))
        print(f"{case['id']}: {time.perf_counter() - t0:.1f} s", flush=True)
        out.append(case)
    doc = {"about": "exact showdown odds as fractions num/den, {seat index (0 = mano): {lance: {stat}}}, "
                    "from tests/naive.py showdown_reference; regenerate with tests/make_golden.py",
           "cases": out}
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")


if __name__ == "__main__":
    main()
