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


def test_solved_states_ship_their_record_and_a_reship_keeps_it():
    """The figures shipped again with states solved: the rows are the new measurement's, the
    solved states' record is kept by a later ship that does not give one, and the text says
    what they hold."""
    from musstats.analysis.public_states import with_exact_history
    from musstats.output.render import render_whole_hand

    measured = {"per_seat": [0.1, 0.01, 0.0, 0.05], "per_seat_se": [0.01, 0.002, 0.0, 0.02], "share_measured": 0.5,
                "states": 10}
    base = {"per_seat": [0.5, 0.05, 0.3, 0.2], "per_seat_se": [0.02, 0.01, 0.01, 0.01], "share_measured": 0.5,
            "states": 10}
    solved = {"states": 4, "share": 0.125, "before": 0.3, "after": 0.01, "iterations": 1000}
    pares = [(0.03, 0.002), (0.1, 0.003), (0.04, 0.003), (0.1, 0.003)]
    out = with_exact_history(_doc(), measured, base, pares, solved=solved)
    # chica 0.014; pares per seat the larger of the rows: 0.1, 0.02, 0.015, 0.05
    assert out["nashconv"] == pytest.approx(0.014 + 0.1 + 0.02 + 0.015 + 0.05, abs=1e-9)
    assert out["exact_history"]["lances"]["pares"]["solved"] == solved
    again = with_exact_history(out, measured, base, pares)
    assert again["exact_history"]["lances"]["pares"]["solved"] == solved
    text = render_whole_hand(again)
    assert "In the 4 public states" in text and "12.5% of the hands" in text and "0.300 -> 0.010" in text
    assert "Measured again" not in text
    # measured again after an earlier lance's strategies changed: both figures said
    later = with_exact_history(out, measured, base, pares, solved={**solved, "now": {"measured": 3, "share": 0.1,
                                                                                     "gain": 0.05}})
    text = render_whole_hand(later)
    assert "0.300 -> 0.010" in text and "Measured again" in text and "3 of those states" in text and "0.050" in text


def test_a_second_lance_adds_its_rows_and_raises_the_baseline_by_hand_calculation():
    """Chica's states shipped after pares': both lances' rows count (per lance and seat the best
    source), and the baseline is raised by each lance's states where they gain more than its
    best row; pares' block stays."""
    from musstats.analysis.public_states import SOURCE, history_blocks, with_exact_history

    pm = {"per_seat": [0.2, 0.01, 0.0, 0.3], "per_seat_se": [0.01, 0.002, 0.0, 0.02], "share_measured": 0.5,
          "states": 10}
    pb = {"per_seat": [0.5, 0.05, 0.3, 0.2], "per_seat_se": [0.02, 0.01, 0.01, 0.01], "share_measured": 0.5,
          "states": 10}
    out = with_exact_history(_doc(), pm, pb, [(0.03, 0.002), (0.1, 0.003), (0.04, 0.003), (0.1, 0.003)])
    cm = {"per_seat": [0.005, 0.03, 0.0, 0.1], "per_seat_se": [0.001, 0.002, 0.0, 0.003], "share_measured": 0.9,
          "states": 5}
    cb = {"per_seat": [0.01, 0.2, 0.01, 0.1], "per_seat_se": [0.001, 0.004, 0.001, 0.002], "share_measured": 0.9,
          "states": 5}
    both = with_exact_history(out, cm, cb, [(0.017, 0.001), (0.1, 0.003), (0.023, 0.001), (0.196, 0.004)],
                              lance="chica")
    # chica per seat the larger of the rows: 0.01 (lances), 0.03, 0 (floored), 0.1; pares as before
    assert both["nashconv"] == pytest.approx(0.01 + 0.03 + 0.0 + 0.1 + 0.2 + 0.02 + 0.015 + 0.3, abs=1e-9)
    # the baseline: 1.0, pares raised for mano, third, postre; chica raised for second only
    assert both["baseline_nashconv"] == pytest.approx(1.0 + 0.47 + 0.26 + 0.1 + (0.2 - 0.1), abs=1e-9)
    assert sum(r["source"] == SOURCE for r in both["rows"]) == 8
    assert both["by_source"][SOURCE]["gain"] == pytest.approx(0.51 + 0.135, abs=1e-9)
    blocks, without = history_blocks(both)
    assert set(blocks) == {"chica", "pares"} and without == (1.0, 0.01)
    # the first shipped form (one flat pares block) reads as one block
    flat = {"lance": "pares", "hands": "as dealt", "method": "m", "set": pm, "baseline": pb,
            "baseline_pares_rows": [[0.03, 0.002]] * 4, "baseline_without": [1.0, 0.01]}
    blocks, without = history_blocks({"exact_history": flat})
    assert list(blocks) == ["pares"] and blocks["pares"]["baseline_rows"] == [[0.03, 0.002]] * 4
    assert without == (1.0, 0.01)


def test_a_pair_reading_the_history_by_hand_calculation():
    """Per state a pair gains the larger of its joint deviation (where measured) and each
    partner's own; summed as share x gain; the document's pair figures take, per lance, the
    source that gains most for that pair."""
    from musstats.analysis.public_states import summary, with_exact_history
    from musstats.output.render import render_whole_hand

    rows = [  # seats mano, second, third, postre; pairs mano+third, second+postre
        {"share": 0.5, "gains": [0.2, 0.1, 0.3, 0.0], "gains_se": [0.01, 0.02, 0.03, 0.04],
         "team_gains": [0.6, 0.05], "team_gains_se": [0.05, 0.06]},
        {"share": 0.25, "gains": [0.4, -0.1, 0.1, 0.2], "gains_se": [0.01, 0.02, 0.03, 0.04]},
    ]
    s = summary(rows)
    # mano+third: 0.5 x 0.6 (joint) + 0.25 x 0.4 (mano alone); second+postre: 0.5 x 0.1 + 0.25 x 0.2
    assert s["per_team"] == pytest.approx([0.3 + 0.1, 0.05 + 0.05], abs=1e-12)
    assert s["per_team_se"][0] == pytest.approx(((0.5 * 0.05) ** 2 + (0.25 * 0.01) ** 2) ** 0.5, abs=1e-12)
    assert s["per_team_se"][1] == pytest.approx(((0.5 * 0.02) ** 2 + (0.25 * 0.04) ** 2) ** 0.5, abs=1e-12)
    assert s["team_states"] == 1 and s["team_share"] == 0.5
    assert s["per_seat"] == pytest.approx([0.2, 0.025, 0.175, 0.05], abs=1e-12)
    base = {"per_seat": [0.5, 0.05, 0.3, 0.2], "per_seat_se": [0.02, 0.01, 0.01, 0.01], "share_measured": 0.5,
            "states": 10}
    doc = _doc()
    doc["rows"] = doc["rows"] + [{"lance": "pares", "source": "mus", "reader": who, "kind": "team", "gain": g,
                                  "gain_se": 0.001, "gain_in": None, "gate": None}
                                 for who, g in (("mano+third", 0.5), ("second+postre", 0.02))]
    out = with_exact_history(doc, {**s, "share_measured": 0.75, "states": 2}, base, [(0.03, 0.002)] * 4)
    # pares per pair the larger source: mano+third 0.5 (mus) > 0.4; second+postre 0.1 (history) > 0.02
    assert out["team_gain"] == pytest.approx([0.5, 0.1], abs=1e-9)
    assert out["team_lances"] == [["pares"], ["pares"]]
    text = render_whole_hand(out)
    assert "A pair reading it together in pares: mano and third 0.400" in text
    assert "measured in 1 of the states, holding 50.0% of the hands" in text
