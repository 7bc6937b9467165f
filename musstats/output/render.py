"""Results for the terminal, JSON and CSV -- every command's output is formed here.

Every output says what it computed: the title names the hand, the seat (and the table of
seats with other than four players), the variant and every switch that is on, and every
condition (dead cards, declarations, seña, fixed jokers); the caption names the method,
trials, seed and whether the run is partial.  JSON is one object (the result's
``to_dict()``); CSV starts with ``#`` comment lines holding the same metadata.  A lance
that is not played is shown as "–", never as 0 %.
"""

from __future__ import annotations

import io
import json
import math
from typing import Any

import numpy as np

from musstats.output.files import meta_comment
from musstats.rules.labels import LANCE_ES, LANCES, SEAT_ES

__all__ = ["title", "run_caption", "render", "to_json", "to_csv", "emit", "render_table_summary"]

_HEADERS = {"p_team": "P(team)", "p_self": "P(self)", "p_played": "P(played)",
            "p_contested": "P(contested)", "ev_net": "EV net"}
STATS = ("p_team", "p_self", "p_played", "p_contested", "ev_net")
_WIDTH = 120


def _console_text(*renderables) -> str:
    from rich.console import Console

    buf = io.StringIO()
    con = Console(file=buf, width=_WIDTH, force_terminal=False, color_system=None)
    for r in renderables:
        con.print(r)
    return buf.getvalue()


def title(d: dict[str, Any], what: str = "") -> str:
    """``R R 3 A · mano · 8-reyes · juego real figure · dead 7 7 · declared second:pares`` from a
    result's JSON document."""
    parts = []
    if d.get("hand"):
        parts.append(" ".join(d["hand"]))
    if d.get("seat"):
        seat = d["seat"]
        if d.get("players", 4) != 4 or d.get("individual"):
            seat += f" of {d['players']}" + (" (each for himself)" if d.get("individual") else
                                            f" (team {d.get('team', '')})")
        parts.append(seat)
    parts.append(d.get("variant", ""))
    rules = d.get("rules", {})
    if rules.get("juego_real", "off") != "off":
        parts.append(f"juego real {rules['juego_real']}")
    if rules.get("redeal_4567"):
        parts.append("4-5-6-7 redealt")
    if rules.get("mus_visto"):
        parts.append("mus visto")
    if d.get("dead"):
        parts.append("dead " + " ".join(d["dead"]))
    for k, v in (d.get("conditions") or {}).items():
        parts.append(f"{k} {v}")
    if what:
        parts.append(what)
    return " · ".join(p for p in parts if p)


def run_caption(d: dict[str, Any]) -> str:
    """``exact enumeration`` or ``Monte Carlo, 1,000,000 deals, seed 7 (partial: interrupted)``."""
    if d.get("method") == "exact":
        return "exact enumeration"
    txt = f"Monte Carlo, {d.get('trials') or 0:,} deals"
    if d.get("seed") is not None:
        txt += f", seed {d['seed']}"
    if d.get("partial"):
        txt += " (PARTIAL: stopped before the requested work was done)"
    return txt


def _pct_cell(mean: float, se: float) -> str:
    if mean is None or math.isnan(mean):
        return "–"
    return f"{100 * mean:.2f} %" + (f" ± {100 * se:.2f}" if se and se > 0 else "")


def _ev_cell(mean: float, se: float) -> str:
    if mean is None or math.isnan(mean):
        return "–"
    return f"{mean:+.3f}" + (f" ± {se:.3f}" if se and se > 0 else "")


def _odds_cells(mean: np.ndarray, se: np.ndarray, li: int) -> list[str]:
    """The cells of one lance; a lance that is never played shows "–" (not 0 %)."""
    played = mean[li, STATS.index("p_played")]
    cells = []
    for si, st in enumerate(STATS):
        m, s = mean[li, si], se[li, si]
        if played == 0 and st != "p_played":
            cells.append("–")
        elif st == "ev_net":
            cells.append(_ev_cell(m, s))
        else:
            cells.append(_pct_cell(m, s))
    return cells


# --------------------------------------------------------------------------- odds

def render_odds(res) -> str:
    """A readable table of :class:`~musstats.analysis.odds.OddsResult`, one row per lance."""
    from rich.table import Table

    d = res.to_dict()
    caption = run_caption(d) + "; EV net = expected stones en paso, ours minus theirs; – = not played"
    table = Table(title=title(d), caption=caption)
    table.add_column("Lance")
    for st in STATS:
        table.add_column(_HEADERS[st], justify="right")
    for li, lance in enumerate(LANCES):
        table.add_row(LANCE_ES[lance], *_odds_cells(res.mean, res.se, li))
    out = [table]
    if res.identities:
        from musstats.engines.jokers import IDENTITY_RULE

        sub = Table(title="With your jokers fixed (the other holders still choose theirs)",
                    caption="J = a joker (the sota de copas or de oros). Rule: " + IDENTITY_RULE)
        sub.add_column("Identity")
        for lance in LANCES:
            sub.add_column(f"{LANCE_ES[lance]} EV", justify="right")
        sub.add_column("EV total", justify="right")
        for it in res.identities:
            sub.add_row(it["identity"], *[_ev_cell(it["mean"][li, 4], 0) for li in range(len(LANCES))],
                        f"{float(np.nansum(it['mean'][:, 4])):+.3f}")
        out.append(sub)
    return _console_text(*out)


def odds_csv(res) -> str:
    """CSV, one row per lance, with standard errors, after the metadata comment block."""
    import csv

    d = res.to_dict()
    buf = io.StringIO()
    buf.write(meta_comment({k: v for k, v in d.items() if k not in ("lances", "identities")}))
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["lance", *STATS, *("se_" + s for s in STATS)])
    for li, lance in enumerate(LANCES):
        vals = [res.mean[li, si] for si in range(len(STATS))] + [res.se[li, si] for si in range(len(STATS))]
        w.writerow([lance, *("" if math.isnan(x) else repr(float(x)) for x in vals)])
    return buf.getvalue()


# --------------------------------------------------------------------------- discard and mus

def render_discard(res) -> str:
    """A readable table of :class:`~musstats.analysis.discard.DiscardResult`; the column the
    keep-sets are ranked by is marked ▼."""
    from rich.table import Table

    d = res.to_dict()
    table = Table(title=title(d, f"objective {res.objective}"),
                  caption=f"{run_caption(d)} per keep-set; others discard by {res.policy}; "
                          f"{res.rounds} mus round(s), given that {d['given']}; net stones ± SE; "
                          f"▼ ranked by this column ({d['ranked_by']})")
    rank_col = ("With betting" if res.betting else "Total en paso" if res.objective == "total"
                else LANCE_ES[res.objective])
    mark_col = lambda name: f"{name} ▼" if name == rank_col else name  # noqa: E731
    table.add_column("")
    table.add_column("Keep")
    table.add_column("Throw", justify="right")
    for lance in LANCES:
        table.add_column(mark_col(LANCE_ES[lance]), justify="right")
    table.add_column(mark_col("Total en paso"), justify="right")
    if res.betting:
        table.add_column(mark_col("With betting"), justify="right")
    table.add_column("Gap", justify="right")
    for i, row in enumerate(res.rows):
        mark = "★" if row["recommended"] else ("◆" if i == res.chosen else "")
        extra = [f"{row['ev_total_with_betting']:+.3f} ± {row['se_objective']:.3f}"] if res.betting else []
        table.add_row(mark, row["keep"], str(row["discard"]), *[f"{row[f'ev_{lance}']:+.3f}" for lance in LANCES],
                      f"{row['ev_total']:+.3f} ± {row['se_total']:.3f}", *extra,
                      "" if i == 0 else f"{row['gap_to_best']:.3f} ± {row['se_gap']:.3f}")
    text = _console_text(table)
    if res.betting:
        text += f"Ranked by the total with betting; {d['with_betting']}.\n"
    text += f"Recommended: keep {res.rows[0]['keep']} (throw {res.rows[0]['discard']}).\n"
    if res.close:
        text += "Note: the top two keep-sets are within 2 standard errors of each other; more --trials may separate them.\n"
    if res.chosen is not None and res.chosen != 0:
        row = res.rows[res.chosen]
        text += f"Your keep-set {row['keep']} gives up {row['gap_to_best']:.3f} ± {row['se_gap']:.3f} stones.\n"
    text += (f"This ranks keep-sets given that {d['given']}; `musstats mus` takes its keep-set from this ranking "
             "and compares it with cutting on the same deals.\n")
    return text


def discard_csv(res) -> str:
    """CSV, one row per keep-set, after the metadata comment block."""
    d = res.to_dict()
    return meta_comment({k: v for k, v in d.items() if k != "keep_sets"}) + _rows_csv(res.rows)


def _rows_csv(rows: list[dict]) -> str:
    import csv

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def render_mus(res) -> str:
    """A readable table of :class:`~musstats.analysis.discard.MusAdvice`."""
    from rich.table import Table

    d = res.to_dict()
    given = "deals in which the other three ask for mus" if not res.variant.mus_visto else "deals"
    table = Table(title=title(d, "cut or mus"),
                  caption=f"mus: you keep {res.keep}, the others discard by {res.policy}, {res.rounds} round(s); "
                          f"{run_caption(d)} ({given})")
    table.add_column("Lance")
    table.add_column("P(team) cut", justify="right")
    table.add_column("EV cut", justify="right")
    table.add_column("P(team) mus", justify="right")
    table.add_column("EV mus", justify="right")
    for i, lance in enumerate(LANCES):
        table.add_row(LANCE_ES[lance], f"{100 * res.cut_p_team[i]:.2f} %", _ev_cell(res.cut_ev[i], res.cut_ev_se[i]),
                      f"{100 * res.mus_p_team[i]:.2f} %", _ev_cell(res.mus_ev[i], res.mus_ev_se[i]))
    table.add_row("Total", "", f"{res.cut_ev.sum():+.3f} ± {res.cut_total_se:.3f}", "",
                  f"{res.mus_ev.sum():+.3f} ± {res.mus_total_se:.3f}")
    text = _console_text(table)
    if not res.variant.mus_visto:
        text += (f"The mus happens only when the other three ask for it too: {100 * res.p_others_ask:.1f} % of "
                 f"deals; otherwise your choice changes nothing.\n")
    b = res.betting
    kept = (f"keeping {res.keep}, the best keep-set by the {res.ranked_by} (as `musstats discard` ranks them)"
            if res.ranked_by != "yours" else f"keeping {res.keep} (yours)")
    eq = res.equilibrium
    if eq is not None:
        text += (f"Advice: {res.advice}" + ("" if res.advice == "cut" else f", {kept}")
                 + f" (equilibrium: cut with probability {eq['p_cut']:.2f}; cut − ask = "
                 f"{eq['cut_minus_ask']:+.3f} ± {eq['se']:.3f} stones for your team, cut {eq['ev_cut']:+.3f}, ask "
                 f"{eq['ev_ask']:+.3f}; you speak in {100 * eq['speaks']:.1f} % of your deals; the mus is played in "
                 f"{100 * eq['mus_share']:.1f} % of hands).\n")
        text += f"  ({eq['what']})\n"
    if b is not None:
        text += (("Comparison, against the shipped cut flags" if eq is not None else f"Advice: {res.advice}")
                 + f", with betting: mus − cut = {b['difference']['value']:+.3f} ± "
                 f"{b['difference']['se']:.3f} stones (cut {b['cut']['ev_total']:+.3f}, mus {kept} "
                 f"{b['mus']['ev_total']:+.3f}; betting adds {b['cut']['betting_gain']:+.3f} to the hand you hold "
                 f"and {b['mus']['betting_gain']:+.3f} to the one you draw).\n")
        text += f"  ({b['what']})\n"
        text += (f"En paso: {res.advice_en_paso} (mus − cut = {res.diff:+.3f} ± {res.diff_se:.3f} stones, the table "
                 f"above).\n")
    elif eq is not None:
        text += (f"En paso: {res.advice_en_paso} (mus − cut = {res.diff:+.3f} ± {res.diff_se:.3f} stones, mus "
                 f"{kept}).\n")
    else:
        text += (f"Advice: {res.advice}, en paso: mus − cut = {res.diff:+.3f} ± {res.diff_se:.3f} stones "
                 f"(mus {kept}).\n")
    text += (f"`musstats table` gives the same en-paso numbers for this hand and seat with --seed {res.seed} "
             f"--trials {res.trials}.\n")
    return text


def mus_csv(res) -> str:
    """CSV, one row per lance (cut and mus), after the metadata comment block."""
    d = res.to_dict()
    rows = [{"lance": lance, "cut_ev_net": res.cut_ev[i], "cut_se_ev_net": res.cut_ev_se[i],
             "cut_p_team": res.cut_p_team[i], "mus_ev_net": res.mus_ev[i], "mus_se_ev_net": res.mus_ev_se[i],
             "mus_p_team": res.mus_p_team[i]} for i, lance in enumerate(LANCES)]
    return meta_comment({k: v for k, v in d.items() if k != "lances"}) + _rows_csv(rows)


# --------------------------------------------------------------------------- órdago and game

def render_ordago(res) -> str:
    """A readable account of :class:`~musstats.analysis.ordago.OrdagoResult`: the equilibrium
    answer beside the random-hands comparison (the comparison alone where there is no
    equilibrium)."""
    from rich.table import Table

    d = res.to_dict()
    if d.get("method") == "equilibrium":
        return render_ordago_eq(res)
    rh = d["random_hands"]
    sc = d["score"]
    table = Table(title=title(d, f"órdago a {d['lance']} at {sc['us']}-{sc['them']} (a {sc['target']}) · "
                                 "random hands"))
    table.add_column("")
    table.add_column("P", justify="right")
    pct = lambda x: f"{100 * x:.2f} %"  # noqa: E731
    table.add_row(f"P(win {d['lance']}) if the órdago is seen", pct(rh["p_lance"]))
    table.add_row("P(win the game) without it (break-even to call)", pct(rh["p_game"]))
    table.add_row("  … if they refuse ours (+1 stone)", pct(rh["p_game_if_they_refuse"]))
    table.add_row("  … if we refuse theirs (break-even to accept)", pct(rh["p_game_if_we_refuse"]))
    gm = rh["game_model"]
    foot = (f"Method: random hands (no equilibrium figures here). Lance: {rh['p_lance_method']}, "
            f"{rh['p_lance_basis']}.  Game: en-paso model, {gm['deals']:,} deals ({gm['source']}, seed "
            f"{gm['seed']}), evaluated at the start of the hand.\n")
    out = _console_text(table) + foot + d["advice"] + "\n"
    for n in d["notes"]:
        out += f"note: {n}\n"
    return out


def _game_grid(s: dict, label: str) -> Any:
    from rich.table import Table

    mano = {"us": "us (nosotros)", "them": "them (ellos)", "avg": "average of both"}[s["mano"]]
    meta = {k: v for k, v in s.items() if k != "hand"}  # "hand" holds the hand statistics here, not cards
    t = Table(title=title(meta, f"P(win the game) {label}· a {s['target']} · mano next hand: {mano}"),
              caption="rows: our score · columns: their score")
    t.add_column("us \\ them", justify="right")
    for b in s["scores"]:
        t.add_column(str(b), justify="right")
    for a, row in zip(s["scores"], s["p_win"]):
        t.add_row(str(a), *(f"{100 * x:.1f} %" for x in row))
    return t


def _game_lines(s: dict, what: str) -> list[str]:
    h = s["hand"]
    ordago = f"; an órdago is accepted in {100 * s['p_ordago_accepted']:.2f} % of hands" \
        if "p_ordago_accepted" in s else ""
    return [
        f"{what}From 0-0: {100 * s['p_win_from_0_0']['us_mano']:.2f} % when we are mano first, "
        f"{100 * s['p_win_from_0_0']['them_mano']:.2f} % when they are.",
        f"One hand: mano's team {h['mean_stones_mano_team']:.3f} stones on average, "
        f"the other team {h['mean_stones_other_team']:.3f}; mano's team takes grande "
        f"{100 * h['p_mano_team_grande']:.1f} %, chica {100 * h['p_mano_team_chica']:.1f} %, "
        f"pares {100 * h['p_mano_team_pares']:.1f} %, juego/punto {100 * h['p_mano_team_juego']:.1f} %{ordago}.",
        f"Model: {s['deals']:,} deals ({s['source']}, seed {s['seed']}), {s['outcomes']} distinct "
        f"outcomes; betting: {s['betting']}.",
    ]


def render_game(s: dict) -> str:
    """A readable summary of a game document (:func:`~musstats.analysis.game.model.game_report`):
    the grid of P(win), and the model with betting beside it when there is one."""
    b = s.get("with_betting")
    if b is None:
        label = "with betting " if s["betting"] != "none: every lance en paso" else ""
        return _console_text(_game_grid(s, label)) + "\n".join(_game_lines(s, "")) + "\n"
    e = s["betting_effect"]
    out = _console_text(_game_grid(s, "en paso "), _game_grid(b, "with betting "))
    lines = _game_lines(s, "En paso: ") + _game_lines(b, "With betting: ") + [
        f"Betting changes P(mano's team of the first hand wins from 0-0) from {100 * e['en_paso']:.2f} % "
        f"(en paso) to {100 * e['with_betting']:.2f} % ({100 * e['difference']:+.2f} points; both on the hands "
        "after the mus decision)."]
    return out + "\n".join(lines) + "\n"


def render_match(res) -> str:
    """One paragraph: P(we win the match) and where it comes from."""
    d = res.to_dict()
    gm = d["game_model"]
    return (f"{d['match']} (first to {d['games_to_win']} games) · games {d['games']['us']}-{d['games']['them']} · "
            f"this game {d['score']['us']}-{d['score']['them']} a {gm['target']} · mano next hand: {d['mano']} · "
            f"{gm['variant']}\n"
            f"P(we win this game) {100 * d['p_game']:.2f} %; P(we win a later game from 0-0) {100 * d['p_later_game']:.2f} %\n"
            f"P(we win the match) {100 * d['p_match']:.2f} %\n"
            f"Game model: {gm['deals']:,} deals ({gm['source']}, seed {gm['seed']}); {gm['betting']}.\n")


# --------------------------------------------------------------------------- the strategy table

def _advice_cell(r) -> str:
    txt = "cut" if r["advice"] == "cut" else f"mus, keep {r['best_keep']}"
    return txt + (" ?" if r["advice_close"] else "")


def _eq_cell(r) -> str:
    """The mus decision's equilibrium of a row: its advice and probability of cutting."""
    p = r.get("cut_p_eq", float("nan"))
    return "–" if p != p else f"{r['advice_eq']} (P(cut) {p:.2f})"


def render_table_summary(df) -> str:
    """A readable terminal summary of a strategy table (rich, no colour)."""
    from rich.table import Table

    from musstats.analysis.table import seat_summary
    from musstats.rules.labels import SEATS

    seats = [s for s in SEATS if s in set(df["seat"])]
    a = df.attrs
    mus_info = a.get("mus", {})
    t = Table(title=title({"variant": a.get("variant", ""), "rules": a.get("rules", {})},
                          f"strategy table · {a.get('hands', '?')} hand{'' if a.get('hands') == 1 else 's'}" + (" · PARTIAL" if a.get("partial") else "")),
              caption=(f"EV = exact net stones en paso if the mus is cut now; mus − cut = one mus round keeping the "
                       f"best keep-set against cutting, on the deals in which the other three ask for mus, the "
                       f"others discarding by {mus_info.get('others_discard_by', '?')} "
                       f"({mus_info.get('trials_per_keep_set', 0):,} deals per keep-set, seed {mus_info.get('seed', '?')}"
                       f"); ? = within 2 SE; equilibrium = the mus decision's equilibrium, as `musstats mus` advises"))
    t.add_column("Hand", no_wrap=True)
    t.add_column("Dealt", justify="right", no_wrap=True)
    if len(seats) == 1:
        for lance in LANCES:
            t.add_column(LANCE_ES[lance], justify="right")
        for c in ("EV cut", "Best keep", "Mus − cut", "Advice", "Equilibrium", "Órdago at 0-0"):
            t.add_column(c, justify="right" if c in ("EV cut", "Mus − cut") else "left", no_wrap=c != "Órdago at 0-0")
        for _, r in df.iterrows():
            t.add_row(r["hand"], f"{100 * r['deal_freq']:.3f} %",
                      *[f"{100 * r[f'p_team_{lance}']:.1f} %" for lance in LANCES],
                      f"{r['ev_net_total']:+.3f}", r["best_keep"], f"{r['mus_gain']:+.3f} ± {r['mus_gain_se']:.3f}",
                      r["advice"] + (" ?" if r["advice_close"] else ""), _eq_cell(r), r["ordago_call"])
    else:
        for s in seats:
            t.add_column(f"{SEAT_ES[s]}: EV cut · advice")
        piv = {s: df[df["seat"] == s].set_index("hand_index") for s in seats}
        for h, r in piv[seats[0]].iterrows():
            t.add_row(r["hand"], f"{100 * r['deal_freq']:.3f} %",
                      *[f"{piv[s].loc[h]['ev_net_total']:+.2f} · {_advice_cell(piv[s].loc[h])}"
                        + ("" if _eq_cell(piv[s].loc[h]) == "–" else f" · eq. {piv[s].loc[h]['advice_eq']}")
                        for s in seats])
    lines = []
    for summ in seat_summary(df):
        lines.append(f"{summ['seat']}: cut with {summ['hands_cut']} of {summ['hands']} hands "
                     f"({100 * summ['share_cut']:.1f} % of these deals); mean EV cutting "
                     f"always {summ['mean_ev_cut']:+.3f}, following the advice {summ['mean_ev_best']:+.3f} stones.")
    be = df[["seat", "ordago_break_even_call", "ordago_break_even_accept"]].drop_duplicates("seat")
    for _, r in be.iterrows():
        lines.append(f"órdago at 0-0, {r['seat']}: call when P(win the lance) ≥ "
                     f"{100 * r['ordago_break_even_call']:.1f} %, accept when > "
                     f"{100 * r['ordago_break_even_accept']:.1f} % (P(win the game) from the game model).")
    lines.append(f"{len(df)} rows in {a.get('seconds', 0):.1f} s ({a.get('runner', 'local')}); "
                 "--out FILE.csv|.parquet|.md|.json writes every column.")
    return _console_text(t) + "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- betting

def render_bet(res) -> str:
    """The equilibrium betting of one hand (:class:`~musstats.analysis.betting.BetResult`): one
    table per point where the player speaks."""
    from rich.table import Table

    d = res.to_dict()
    ex = d.get("exploitability") or {}
    head = (f"{d['hand']} · {d['seat']} · {d['variant']} · {LANCE_ES[d['lance']]}"
            + (f" · holding {d['lance']}: {d['declared']} (a seat not named in --declared holds it)"
               if d.get("declared") else "")
            + f" · {d['deal']} · {d['info']} information"
            + (f" · {d['cut']} cut the mus" if d.get("cut") else ""))
    tables = []
    for nd in d["nodes"]:
        hist = ", ".join(nd["history"]) or "opening"
        share = nd.get("weight")
        t = Table(title=f"after: {hist}" + (f"  (reached in {100 * share:.1f} % of the deals that reach your first "
                                             f"turn{'; rare: few deals' if nd.get('rare') else ''})"
                                             if share is not None and nd is not d["nodes"][0] else ""))
        t.add_column("Action")
        t.add_column("P(equilibrium)", justify="right")
        t.add_column("EV (stones)", justify="right")
        for a, x in nd["actions"].items():
            ev = "–" if x["ev"] is None else f"{x['ev']:+.3f} ± {x['se']:.3f}"
            t.add_row(a, f"{100 * x['p']:.1f} %", ev)
        tables.append(t)
    pl = d.get("plans")
    if pl and "gain" in pl:  # both pairs play plans, measured exactly over every deal
        how = (f"{pl['plans'][0]} plans of {pl['pairs'][0]} and {pl['plans'][1]} of {pl['pairs'][1]}; exactly over "
               f"every deal, the best plan each pair's search finds gains {pl['gain'][0]:.3f} and "
               f"{pl['gain'][1]:.3f} against the other pair's plans")
    elif pl and pl.get("samples") == 0:  # measured exactly over every deal
        how = (f"{pl['plans']} plans; exactly over every deal, the best plan the pair's search finds gains "
               f"{pl['pair_gain']:.3f} against {pl['opponent']}'s strategy, his best response "
               f"{pl['opponent_gain']:.3f} against the plans")
    elif pl:
        how = (f"{pl['plans']} plans; the pair's best plan gains ≥ {pl['pair_gain']:.3f} ± {pl['pair_gain_se']:.3f} "
               f"against {pl['opponent']}'s strategy, his best response ≥ {pl['opponent_gain']:.3f} ± "
               f"{pl['opponent_gain_se']:.3f} against the plans")
    else:
        how = (f"{d.get('scheme', 'CFR')}, {d.get('iterations')} iterations, seed {d.get('seed')} "
               f"({d.get('strategy_source')}); NashConv of this subgame {_nashconv_text(ex)}")
    foot = (f"Strategy: {d.get('strategies', 'the per-lance equilibrium')}; {how}.  EV: {d['ev_method']}, "
            f"{d['ev_deals']:,} deals, seed "
            f"{d['ev_seed']}; {d['units']}; an accepted órdago is worth ±{d.get('ordago_stones')} stones.\n")
    notes = "".join(f"note: {n}\n" for n in d.get("notes", []))
    return head + "\n" + _console_text(*tables) + foot + notes


def _nashconv_text(ex: dict) -> str:
    if not ex or ex.get("nashconv") is None:
        return "not measured"
    txt = f"≥ {ex['nashconv']:.3f} ± {ex.get('nashconv_se') or 0:.3f}"
    if ex.get("nashconv_in") is not None:
        txt += f" (in-sample {ex['nashconv_in']:.3f}, biased up)"
    txt += " stones per lance"
    team = ex.get("team_gain")
    if team is not None:
        se = ex.get("team_gain_se") or [0.0, 0.0]
        txt += (f"; a pair changing together gains ≥ {team[0]:.3f} ± {se[0]:.3f} (mano and third), "
                f"≥ {team[1]:.3f} ± {se[1]:.3f} (second and postre)")
    return txt


def bet_csv(res) -> str:
    """CSV, one row per (point, action), after the metadata comment block."""
    d = res.to_dict()
    rows = [{"history": ",".join(nd["history"]), "action": a, "p": x["p"], "ev": x["ev"], "se": x["se"]}
            for nd in d["nodes"] for a, x in nd["actions"].items()]
    return meta_comment({k: v for k, v in d.items() if k != "nodes"}) + _rows_csv(rows)


def emit_bet(res, fmt: str) -> str:
    """The text of a betting answer in ``fmt``."""
    return to_json(res) if fmt == "json" else bet_csv(res) if fmt == "csv" else render_bet(res)


def render_hand(res) -> str:
    """A hand as the table has seen it (:class:`~musstats.analysis.reading.HandReading`): the
    decision at your turn, then what the history says of each other player's hand."""
    from rich.table import Table

    from musstats.analysis.reading import READS

    d = res.to_dict()
    head = f"{d['hand']} · {d['seat']} · {d['variant']} · {d['deal']} · history: {d['history'] or '(the deal)'}"
    out = []
    dec = d.get("decision")
    lines: list[str] = []
    lines_after: list[str] = []
    if dec is None:
        lines.append("The hand is over: no decision is left.")
    elif not dec.get("actions"):
        lines.append(dec.get("note") or (f"Your discard by the shipped table: keep {dec['keep']} "
                                         f"({dec.get('source')})." if dec.get("kind") == "discard" else ""))
    else:
        where = {"mus": "the mus", "bet": LANCE_ES.get(dec.get("lance") or "", "")}.get(dec["kind"], dec["kind"])
        t = Table(title=f"Your decision in {where}" + (f" after: {', '.join(dec['history'])}" if dec.get("history")
                                                        else ""))
        lines_after = [f"Decision: {dec.get('source')}" + (f"; {dec['units']}" if dec.get("units") else "") + "."]
        if dec.get("difference") is not None:
            lines_after.append(f"Asking minus cutting: {dec['difference']:+.3f} ± {dec['difference_se']:.3f} stones.")
        t.add_column("Action")
        t.add_column("P(shipped)", justify="right")
        t.add_column("EV reading the table (stones)" if dec["kind"] == "bet" else "EV (stones)", justify="right")
        for a, x in dec["actions"].items():
            ev = "–" if x.get("ev") is None else f"{x['ev']:+.3f}" + (f" ± {x['se']:.3f}" if x.get("se") is not None
                                                                      else "")
            t.add_row(a + (" ←" if a == dec.get("best_reading") else ""), f"{100 * x['p']:.1f} %", ev)
        out.append(t)
    r = Table(title="What the table has shown (posterior ± SE; the prior, your cards alone, in brackets)")
    r.add_column("Seat")
    for _, label in READS:
        r.add_column(label, justify="right")
    for seat, x in d["reads"].items():
        cells = []
        for key, _ in READS:
            y = x[key]
            cells.append(f"{y['posterior']:.1f} ± {y['se']:.1f} [{y['prior']:.1f}]" if key == "points" else
                         f"{100 * y['posterior']:.1f} ± {100 * y['se']:.1f} % [{100 * y['prior']:.1f}]")
        r.add_row(SEAT_ES.get(seat, seat), *cells)
    out.append(r)
    foot = (f"Method: {d['method']}; a tremble of {d['tremble']:g} at each public action; {d['samples']:,} deals "
            f"(effective {d['effective_samples']:,.0f}), seed {d['seed']}.  Strategies: {d['strategies']}.\n")
    notes = "".join(f"note: {n}\n" for n in d.get("notes", []))
    return (head + "\n" + "".join(x + "\n" for x in lines) + _console_text(*out) + "".join(x + "\n" for x in lines_after)
            + foot + notes)


def render_whole_hand(d: dict) -> str:
    """What reading the whole hand gains against the strategies the document names
    (``musstats hand --exploitability``): per lance, source and reader, then the sums and,
    where it is another set, the baseline's."""
    from rich.table import Table

    t = Table(title=f"Reading the whole hand · {d.get('variant')} · {d.get('units')}",
              caption=f"{d.get('method')}; {d.get('hands') or 0:,} hands to choose on and as many to value on, "
                      f"seed {d.get('seed')}; strategies: {d.get('strategies')}")
    for c in ("Lance", "Reads", "Reader", "Gain ± SE", "In sample", "Gate"):
        t.add_column(c, justify="left" if c in ("Lance", "Reads", "Reader") else "right")
    for r in d.get("rows", []):
        gate = r.get("gate")
        t.add_row(LANCE_ES.get(r["lance"], r["lance"]), r["source"], r["reader"], f"{r['gain']:+.3f} ± {r['gain_se']:.3f}",
                  "" if r.get("gain_in") is None else f"{r['gain_in']:+.3f}", "" if gate is None else f"{gate:g}")
    team = d.get("team_gain") or [None, None]
    tse = d.get("team_gain_se") or [None, None]
    lines = [f"A seat reading the history (per lance the source that gains most, a negative bound at 0), summed over "
             f"the four seats and the lances (NashConv, a lower bound): {d['nashconv']:.3f} ± {d['nashconv_se']:.3f}"]
    if d.get("baseline") and d.get("baseline") != d.get("strategies"):
        lines.append(f"The same against {d['baseline']} (the baseline): "
                     f"{d['baseline_nashconv']:.3f} ± {d['baseline_nashconv_se']:.3f}")
    from musstats.analysis.public_states import history_blocks

    for xh in history_blocks(d)[0].values():
        lines.append(f"Rows reading `history` ({xh['lance']}, hands {xh['hands']}): {xh['method']}; "
                     f"{xh['set']['states']:,} public states holding {xh['set']['share_measured']:.1%} of the hands.")
        pt = xh["set"].get("per_team")
        if pt:
            ps = xh["set"]["per_team_se"]
            ts = xh["set"].get("team_states", 0)
            how = (f"the pair's joint deviation measured in {ts:,} of the states, holding "
                   f"{xh['set']['team_share']:.1%} of the hands; elsewhere the larger of the partners' own" if ts else
                   "in each state the larger of the partners' own; the pair's joint deviation not measured")
            lines.append(f"A pair reading it together in {xh['lance']}: mano and third {pt[0]:.3f} ± {ps[0]:.3f}, "
                         f"second and postre {pt[1]:.3f} ± {ps[1]:.3f} ({how}).")
        sv = xh.get("solved")
        if sv:
            lines.append(f"In the {sv['states']:,} public states where reading gained most ({sv['share']:.1%} of the "
                         f"hands) {xh['lance']} is bet by strategies solved per state with the ranges "
                         f"({sv['iterations']:,} DCFR iterations): there {sv['before']:.3f} -> {sv['after']:.3f} "
                         f"stones per hand. The rows of the other sources (simulated whole hands) were measured with "
                         f"{xh['lance']} bet as before in those states.")
            now = sv.get("now")
            if now:
                lines.append(f"Measured again with every lance as shipped now: {now['measured']:,} of those "
                             f"states among the states measured ({now['share']:.1%} of the hands), "
                             f"{now['gain']:.3f} stones per hand.")
    if any(r.get("kind") == "seat" and r.get("gate") is None and r.get("gain_in") is not None
           for r in d.get("rows", [])):
        lines.append("The seats' rows here are plain best responses (no gate): on these samples they learn the "
                     "noise of their many states, and a sparing response (a gate on each state's gain) finds more, "
                     "so these figures understate what reading gains.")
    tl = d.get("team_lances") or [[], []]
    for who, g, se, ls in (("mano and third", team[0], tse[0], tl[0]), ("second and postre", team[1], tse[1], tl[1])):
        if g is not None:
            lines.append(f"A pair reading together ({who}), in {', '.join(ls) or 'the lances measured'}: "
                         f"{g:.3f} ± {se:.3f}")
    return _console_text(t) + "".join(x + "\n" for x in lines)


def hand_csv(res) -> str:
    """CSV, one row per other seat and read, after the metadata comment block (the decision in it)."""
    d = res.to_dict()
    rows = [{"seat": s, "read": k, **y} for s, x in d["reads"].items() for k, y in x.items()]
    return meta_comment({k: v for k, v in d.items() if k != "reads"}) + _rows_csv(rows)


def emit_hand(res, fmt: str) -> str:
    """The text of a hand's reading in ``fmt``."""
    return to_json(res) if fmt == "json" else hand_csv(res) if fmt == "csv" else render_hand(res)


def render_exploitability(df) -> str:
    """How close to equilibrium every subgame's strategy is (``musstats bet --exploitability``):
    per player, against a pair that changes together, and against a pair that sees both hands."""
    from rich.table import Table

    a = df.attrs
    exact = bool(a.get("exact"))
    unpaired = not exact and not any(f"team{i}" in df and df[f"team{i}"].notna().any() for i in (0, 1))
    t = Table(title=f"Exploitability per lance · {a.get('variant')} · {a.get('deal')} · {a.get('info')} information"
                    f" · {a.get('scheme')}",
              caption=f"{a.get('units')}; lower bound ± standard error [in-sample estimate, biased up]; "
                      f"{a.get('method')}"
                      + ("; what a pair gains is not measured for these strategies" if unpaired else ""))

    def num(x) -> bool:
        return x is not None and x == x

    def fig(r, col) -> str:
        if not num(r[col]):
            return "–"
        if exact:
            return f"{r[col]:.4f}"
        return f"{r[col]:.3f} ± {r[col + '_se']:.3f} [{r[col + '_in']:.3f}]" if num(r.get(col + "_in")) else \
            f"{r[col]:.3f} ± {r[col + '_se']:.3f}"

    cols = [("NashConv", "nashconv")]
    if not exact:
        cols += [(f"{who} together", f"team{i}") for i, who in ((0, "Mano+third"), (1, "Second+postre"))
                 if f"team{i}" in df and df[f"team{i}"].notna().any()]
        cols += [(f"{who} seeing both", f"pooled{i}") for i, who in ((0, "Mano+third"), (1, "Second+postre"))
                 if f"pooled{i}" in df and df[f"pooled{i}"].notna().any()]
    for c in ("Lance", "Declared", "Nodes", "Iterations", *(c for c, _ in cols), "Value (mano's team)"):
        t.add_column(c, justify="left" if c in ("Lance", "Declared") else "right")
    for _, r in df.iterrows():
        val = "–" if not num(r["value_team0"]) else \
            f"{r['value_team0']:+.4f}" if exact else f"{r['value_team0']:+.3f} ± {r['value_se']:.3f}"
        t.add_row(LANCE_ES[r["lance"]], str(r["pattern"]), str(r["decision_nodes"]), str(r["iterations"]),
                  *(fig(r, col) for _, col in cols), val)
    if "plans" not in df or not df["plans"].notna().any():
        return _console_text(t)
    p = Table(title="Where pairs play correlated plans (what musstats bet plays there)",
              caption="stones per lance; ± standard error where sampled (a lower bound), no ± where exact over "
                      "every deal; each side's best change against what the other side plays: a pair's best joint "
                      "plan (the best its search finds), a lone holder's best response (his NashConv; a partner "
                      "changing alone is a joint plan of the pair, so the pair's figure bounds his); seeing both hands: "
                      "a pair that plays plans seeing both its hands (mano+third / second+postre where both do)")
    for c in ("Lance", "Declared", "Plans by", "Plans", "Mano+third's best", "Second+postre's best",
              "Seeing both hands", "Value (mano's team)"):
        p.add_column(c, justify="left" if c in ("Lance", "Declared", "Plans by") else "right")

    def pm(r, c: str) -> str:
        return "–" if not num(r[c]) else f"{r[c]:.3f}" if r[c + "_se"] == 0 else f"{r[c]:.3f} ± {r[c + '_se']:.3f}"

    for _, r in df[df["plans"].notna()].iterrows():
        both = r["plans_team"] == 2
        p.add_row(LANCE_ES[r["lance"]], str(r["pattern"]),
                  "both pairs" if both else "mano+third" if r["plans_team"] == 0 else "second+postre",
                  f"{int(r['plans0'])} + {int(r['plans1'])}" if both else str(int(r["plans"])),
                  pm(r, "plans_gain0"), pm(r, "plans_gain1"),
                  " / ".join(pm(r, f"plans_seeing{t}") for t in (0, 1) if num(r[f"plans_seeing{t}"])) or "–",
                  ("+" if r["plans_value"] >= 0 else "") + pm(r, "plans_value"))
    return _console_text(t, p)


# --------------------------------------------------------------------------- the arena

def _pm(x, se, scale: float = 1.0, digits: int = 3) -> str:
    if x is None:
        return "–"
    return f"{scale * x:+.{digits}f} ± {scale * se:.{digits}f}" if scale == 1.0 else \
        f"{scale * x:.{digits}f} ± {scale * se:.{digits}f} %"


def arena_document(results: list) -> dict:
    """The JSON document of ``musstats arena``: the shared metadata and one entry per match."""
    meta = dict(results[0].meta) if results else {}
    return {**meta, "partial": any(r.partial for r in results),
            "matches": [{k: v for k, v in r.to_dict().items() if k not in meta} for r in results]}


def render_arena(results: list) -> str:
    """One row per match: A's stones per hand and share of games won, ± standard error."""
    from rich.table import Table

    d = arena_document(results)
    t = Table(title=title(d, f"arena · a {d.get('target')} · seed {d.get('seed')}"
                             + (" · partial" if d["partial"] else "")),
              caption="hands: each deal played twice, seats swapped (A's expected stones, an accepted órdago "
                      f"worth {d.get('ordago_stones_in_hands')} stones); "
                      + ("whole hands: the mus phase (each set cutting by its rule), then the lances; games not played"
                         if d.get("deal") == "whole hands" else
                         "games: pairs on common deals, each side mano first once; hands as dealt"))
    for c in ("A", "B", "Stones per hand (A)", "z", "Deals", "Games won (A)", "z ", "Games"):
        t.add_column(c, justify="left" if c in ("A", "B") else "right")
    for r in results:
        z1 = "–" if not r.stones_se else f"{r.stones / r.stones_se:+.0f}"
        z2 = "–" if not r.won_se else f"{(r.won - 0.5) / r.won_se:+.0f}"
        t.add_row(r.a, r.b, _pm(r.stones, r.stones_se), z1 if r.stones is not None else "–", f"{r.hands:,}",
                  _pm(r.won, r.won_se, 100.0, 1), z2 if r.won is not None else "–", f"{r.games:,}")
    return _console_text(t) + "z: the margin in standard errors (stones against 0, games against 50 %).\n"


def render_pair_responses(pairs: list) -> str:
    """What a pair gains against each strategy set by changing both partners' play together."""
    from rich.table import Table

    t = Table(title=f"a pair changing together · {pairs[0]['lance']} · stones per lance",
              caption=f"{pairs[0]['method']}; {pairs[0]['samples']:,} samples per owner")
    for c in ("Against", "Mano+third", "Second+postre"):
        t.add_column(c, justify="left" if c == "Against" else "right")
    for p in pairs:
        t.add_row(p["strategy"], *(f"{p[k]['gain']:+.3f} ± {p[k]['gain_se']:.3f} [{p[k]['gain_in']:+.3f}]"
                                   for k in ("team0", "team1")))
    return _console_text(t)


def emit_arena(results: list, fmt: str, pairs: list | None = None) -> str:
    """The text of ``musstats arena`` in ``fmt`` (``pairs``: :func:`musstats.analysis.arena.pair_response`
    of each strategy set, when asked)."""
    pairs = pairs or []
    if fmt == "json":
        d = arena_document(results)
        if pairs:
            d["pair_responses"] = pairs
        return to_json(d)
    if fmt == "csv":
        d = arena_document(results)
        if pairs:  # a different table: in the metadata block
            d["pair_responses"] = pairs
        rows = [{"a": r.a, "b": r.b, "stones_per_hand": r.stones, "stones_se": r.stones_se, "deals": r.hands,
                 "games_won": r.won, "games_won_se": r.won_se, "games": r.games} for r in results]
        return meta_comment({k: v for k, v in d.items() if k != "matches"}) + _rows_csv(rows)
    return render_arena(results) + (render_pair_responses(pairs) if pairs else "")


# --------------------------------------------------------------------------- dispatch

def to_json(res) -> str:
    """One JSON object (a dict, or a result's ``to_dict()``), one line."""
    from musstats.base.jsonable import jsonable

    return json.dumps(jsonable(res if isinstance(res, dict) else res.to_dict()), ensure_ascii=False) + "\n"


def render(res) -> str:
    """The terminal text of any result object."""
    from musstats.analysis.discard import DiscardResult, MusAdvice
    from musstats.analysis.odds import OddsResult
    from musstats.analysis.ordago import OrdagoResult

    if isinstance(res, OddsResult):
        return render_odds(res)
    if isinstance(res, DiscardResult):
        return render_discard(res)
    if isinstance(res, MusAdvice):
        return render_mus(res)
    if isinstance(res, OrdagoResult):
        return render_ordago(res)
    raise TypeError(f"no renderer for {type(res).__name__}")


def to_csv(res) -> str:
    """The CSV text of any result object that has rows."""
    from musstats.analysis.discard import DiscardResult, MusAdvice
    from musstats.analysis.odds import OddsResult

    if isinstance(res, OddsResult):
        return odds_csv(res)
    if isinstance(res, DiscardResult):
        return discard_csv(res)
    if isinstance(res, MusAdvice):
        return mus_csv(res)
    raise TypeError(f"no CSV form for {type(res).__name__}")


def emit(res, fmt: str) -> str:
    """The text of ``res`` in ``fmt`` (table, json or csv)."""
    if fmt == "json":
        return to_json(res)
    if fmt == "csv":
        return to_csv(res)
    return render(res)


# --------------------------------------------------------------------------- órdago at equilibrium

def warm_note(warm: str | None) -> str:
    """The words that say where a warm-started equilibrium solve started ("" for a cold one)."""
    return f" warm-started from the solve at {warm}" if warm else ""


def deal_text(deal: str | None) -> str:
    """``"hands as dealt"`` / ``"hands after the mus"``: the deal model of an equilibrium."""
    return "hands after the mus" if deal == "after-mus" else "hands as dealt"


def render_ordago_eq(res) -> str:
    """The equilibrium answer of an órdago question (the first column, and the first line
    below the table) beside the random-hands comparison."""
    from rich.table import Table

    d = res.to_dict()
    eq = d.get("equilibrium") or {}
    rh = d["random_hands"]
    sc = d["score"]
    pct = lambda x: "–" if x is None else f"{100 * x:.2f} %"  # noqa: E731

    def pm(x, se):
        return "–" if x is None else pct(x) + ("" if se is None else f" ± {100 * se:.2f}")

    t = Table(title=title(d, f"órdago a {d['lance']} at {sc['us']}-{sc['them']} (a {sc['target']})"))
    t.add_column("")
    t.add_column("equilibrium (the answer)", justify="right")
    t.add_column("random hands (comparison)", justify="right")
    c = eq.get("call") or {}
    a = eq.get("answer") or {}
    best = "[b]{}[/b]".format
    if c:
        t.add_row("[b]Calling[/b] (your first turn" + (f": after {','.join(c['history'])}" if c.get("history") else "")
                  + ")", "", "")
        t.add_row("  P(they accept our órdago)", pm(c.get("p_they_accept"), c.get("p_they_accept_se")),
                  "100 % (assumed)")
        t.add_row(f"  P(win {d['lance']} | they accept)",
                  pm(c.get("p_win_lance_if_accepted"), c.get("p_win_lance_if_accepted_se")), pct(rh["p_lance"]))
        t.add_row("  P(win the game) if we call", pct(c.get("p_win_game_if_call")), pct(rh["p_lance"]))
        t.add_row("  P(win the game) if we pass", pct(c.get("p_win_game_if_pass")), pct(rh["p_game"]))
        t.add_row("  your órdago frequency", f"{100 * c['p_call']:.0f} %{' (mixed)' if c['mixed'] else ''}", "")
        t.add_row("  best", best("call" if c.get("decision") == "call" else "pass"),
                  "call" if rh["call"] else "pass")
    if a:
        t.add_row("[b]Against their órdago[/b]" + (f" (after {','.join(a['history'])})" if a.get("history") else ""),
                  "", "")
        t.add_row(f"  P(win {d['lance']} | they called it)",
                  pm(a.get("p_win_lance_if_called"), a.get("p_win_lance_if_called_se")), pct(rh["p_lance"]))
        t.add_row("  P(win the game) if we accept", pct(a.get("p_win_game_if_accept")), pct(rh["p_lance"]))
        t.add_row("  P(win the game) if we refuse" + (" (both of us)" if a.get("partners_after") else ""),
                  pct(a.get("p_win_game_if_refuse")), pct(rh["p_game_if_we_refuse"]))
        t.add_row("  your quiero frequency" + (" (your partner answers after you)" if a.get("partners_after") else ""),
                  f"{100 * a['p_accept']:.0f} %{' (mixed)' if a['mixed'] else ''}", "")
        t.add_row("  best", best(a.get("decision") or "–"), "accept" if rh["accept"] else "refuse")
    out = (_console_text(t) if (c or a) else title(d, f"órdago a {d['lance']} at {sc['us']}-{sc['them']} "
                                                      f"(a {sc['target']})") + "\n") + d["advice"] + "\n"
    out += "Random hands (comparison): " + rh["advice"] + "\n"
    gm = rh["game_model"]
    foot = (f"Random hands: lance {rh['p_lance_method']}, {rh['p_lance_basis']}; game: en-paso model, "
            f"{gm['deals']:,} deals ({gm['source']}, seed {gm['seed']}).\n")
    if eq.get("iterations") is not None:
        nc = eq.get("nashconv") or {}
        ncs = ("not measured" if nc.get("nashconv") is None else
               f"≥ {nc['nashconv']:.4f} ± {nc.get('nashconv_se') or 0:.4f} (in-sample {nc.get('nashconv_in') or 0:.4f})")
        foot = (f"Equilibrium: the {d['lance']} betting"
                + (f" ({eq['declared']} declared)" if eq.get("declared") else "")
                + f" solved at {eq['score_team0']}-{eq['score_team1']} (mano's team first) with P(win the game) "
                f"as the payoff, {deal_text(eq.get('deal'))}, {eq['iterations']} iterations"
                + warm_note(eq.get("warm_start"))
                + f" ({eq['strategy_source']}); NashConv {ncs} P(win the "
                f"game); figures over {eq.get('deals', 0):,} deals weighted by the others' equilibrium reach "
                f"(seed {eq.get('trials_seed')}).\n") + foot
    out += foot
    for n in d["notes"]:
        out += f"note: {n}\n"
    return out


def ordago_csv(res) -> str:
    """CSV of an órdago result: one row -- the answer's columns (``method``: equilibrium, or
    random hands where there is none), then the ``random_hands_*`` comparison -- after the
    metadata comment block."""
    d = res.to_dict()
    df = res.to_frame()
    rows = [{k: (None if v != v else v) if isinstance(v, float) else v for k, v in r.items()}
            for r in df.to_dict("records")]
    return meta_comment({k: v for k, v in d.items() if k not in df.columns}) + _rows_csv(rows)
