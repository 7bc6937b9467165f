"""The whole-hand document with the exact-history rows: its figures by hand calculation."""

from __future__ import annotations

import pytest


def _doc():
    rows = []
    for lance, gains in (("chica", (0.01, 0.0, -0.002, 0.004)), ("pares", (0.05, 0.02, 0.015, 0.009))):
        for q, g in zip(("mano", "second", "third", "postre"), gains):
            rows.append({"lance": lance, "source": "lances", "reader": q, "kind": "seat", "gain": g,
                         "gain_se": 0.001, "gain_in": 0.1, "gate": 0.0001})
    return {"variant": "8-reyes", "units": "stones per hand", "hands": 1000, "seed": 1, "strategies": "s",
            "baseline": "b", "method": "m", "nashconv": 0.108, "nashconv_se": 0.0, "team_gain": [None, None],
            "team_gain_se": [None, None], "team_lances": [[], []], "baseline_nashconv": 1.0,
            "baseline_nashconv_se": 0.01, "by_source": {"lances": {"gain": 0.108, "gain_se": 0.0}}, "rows": rows}


def test_exact_history_rows_raise_the_figures_by_hand_calculation():
    from musstats.analysis.public_states import SOURCE, with_exact_history
    from musstats.output.render import render_whole_hand

    measured = {"per_seat": [0.2, 0.01, 0.0, 0.3], "per_seat_se": [0.01, 0.002, 0.0, 0.02], "share_measured": 0.5,
                "states": 10}
    base = {"per_seat": [0.5, 0.05, 0.3, 0.2], "per_seat_se": [0.02, 0.01, 0.01, 0.01], "share_measured": 0.5,
            "states": 10}
    out = with_exact_history(_doc(), measured, base, [(0.03, 0.002), (0.1, 0.003), (0.04, 0.003), (0.1, 0.003)])
    # chica: 0.01 + 0 + 0 (floored) + 0.004; pares per seat the larger: 0.2, 0.02, 0.015, 0.3
    assert out["nashconv"] == pytest.approx(0.014 + 0.2 + 0.02 + 0.015 + 0.3, abs=1e-9)
    # the baseline's pares rows replaced where the states gain more: mano, third, postre
    assert out["baseline_nashconv"] == pytest.approx(1.0 + (0.5 - 0.03) + (0.3 - 0.04) + (0.2 - 0.1), abs=1e-9)
    want_var = 0.01 ** 2 + (0.02 ** 2 - 0.002 ** 2) + (0.01 ** 2 - 0.003 ** 2) + (0.01 ** 2 - 0.003 ** 2)
    assert out["baseline_nashconv_se"] == pytest.approx(want_var ** 0.5, abs=1e-4)
    assert out["by_source"][SOURCE]["gain"] == pytest.approx(0.51, abs=1e-9)
    assert sum(r["source"] == SOURCE for r in out["rows"]) == 4
    # shipped again on the shipped document: the rows replaced, not added twice
    again = with_exact_history(out, measured, base, [(0.03, 0.002), (0.1, 0.003), (0.04, 0.003), (0.1, 0.003)])
    assert sum(r["source"] == SOURCE for r in again["rows"]) == 4 and again["nashconv"] == out["nashconv"]
    assert again["baseline_nashconv"] == out["baseline_nashconv"]
    text = render_whole_hand(out)
    assert "history" in text and "10 public states holding 50.0% of the hands" in text
    assert "plain best responses" not in text
