"""Formatting of results for the terminal, JSON and CSV."""

from __future__ import annotations

import csv
import io

import numpy as np
import json
import math
import sys

from musstats.analysis.odds import STATS, OddsResult
from musstats.tables.hands import LANCES

_HEADERS = {"p_team": "P(team)", "p_self": "P(self)", "p_played": "P(played)",
            "p_contested": "P(contested)", "ev_net": "EV net"}
_LANCE_ES = {"grande": "Grande", "chica": "Chica", "pares": "Pares", "juego": "Juego", "punto": "Punto"}


def _cell(stat: str, mean: float, se: float) -> str:
    if math.isnan(mean):
        return "–"
    if stat == "ev_net":
        txt = f"{mean:+.3f}"
        return txt + (f" ± {se:.3f}" if se > 0 else "")
    txt = f"{100 * mean:.2f} %"
    return txt + (f" ± {100 * se:.2f}" if se > 0 else "")


def render_table(res: OddsResult) -> str:
    """A readable table, one row per lance."""
    from rich.console import Console
    from rich.table import Table

    d = res.to_dict()
    title = f"{' '.join(d['hand'])} · {d['seat']} · {d['variant']}"
    if res.variant.juego_real != "off":
        title += f" · juego real {res.variant.juego_real}"
    if res.dead:
        title += f" · dead {' '.join(d['dead'])}"
    caption = "exact enumeration" if res.method == "exact" else (
        f"Monte Carlo, {res.trials:,} deals, seed {res.seed}" + (" (partial)" if res.partial else ""))
    caption += "; EV net = expected stones en paso, ours minus theirs"
    table = Table(title=title, caption=caption)
    table.add_column("Lance")
    for st in STATS:
        table.add_column(_HEADERS[st], justify="right")
    for li, lance in enumerate(LANCES):
        table.add_row(_LANCE_ES[lance], *[_cell(st, res.mean[li, si], res.se[li, si]) for si, st in enumerate(STATS)])
    buf = io.StringIO()
    con = Console(file=buf, width=110, force_terminal=False, color_system=None)
    con.print(table)
    if res.identities:
        sub = Table(title="With your jokers fixed (others still choose theirs)",
                    caption="each holder fixes his jokers to maximise his team's stones at the count")
        sub.add_column("Identity")
        for lance in LANCES:
            sub.add_column(f"{_LANCE_ES[lance]} EV", justify="right")
        sub.add_column("EV total", justify="right")
        for d in res.identities:
            sub.add_row(d["identity"], *[f"{d['mean'][li, 4]:+.3f}" for li in range(len(LANCES))],
                        f"{float(np.nansum(d['mean'][:, 4])):+.3f}")
        con.print(sub)
    return buf.getvalue()


def render_csv(res: OddsResult) -> str:
    """CSV, one row per lance, with standard errors."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["lance", *STATS, *("se_" + s for s in STATS)])
    for li, lance in enumerate(LANCES):
        vals = [res.mean[li, si] for si in range(len(STATS))] + [res.se[li, si] for si in range(len(STATS))]
        w.writerow([lance, *("" if math.isnan(x) else repr(float(x)) for x in vals)])
    return buf.getvalue()


def emit(res: OddsResult, fmt: str) -> None:
    """Print ``res`` on stdout in the given format."""
    if fmt == "json":
        text = json.dumps(res.to_dict(), ensure_ascii=False) + "\n"
    elif fmt == "csv":
        text = render_csv(res)
    else:
        text = render_table(res)
        if res.method == "mc":
            print(f"seed {res.seed} (repeat with --seed {res.seed})", file=sys.stderr)
    sys.stdout.write(text)


def _console_text(renderable) -> str:
    from rich.console import Console

    buf = io.StringIO()
    Console(file=buf, width=120, force_terminal=False, color_system=None).print(renderable)
    return buf.getvalue()


def _write_csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def emit_discard(res, fmt: str) -> None:
    """Print a DiscardResult."""
    if fmt == "json":
        sys.stdout.write(json.dumps(res.to_dict(), ensure_ascii=False) + "\n")
        return
    if fmt == "csv":
        sys.stdout.write(_write_csv(res.rows))
        return
    from rich.table import Table

    d = res.to_dict()
    table = Table(title=f"{' '.join(d['hand'])} · {d['seat']} · {d['variant']} · objective {res.objective}",
                  caption=f"others discard by: {res.policy}; {res.trials:,} deals per keep-set, "
                          f"seed {res.seed}; net stones en paso ± SE")
    table.add_column("")
    table.add_column("Keep")
    table.add_column("Throw", justify="right")
    for lance in LANCES:
        table.add_column(_LANCE_ES[lance], justify="right")
    table.add_column("Total", justify="right")
    table.add_column("Gap", justify="right")
    for i, row in enumerate(res.rows):
        mark = "★" if row["recommended"] else ("◆" if i == res.chosen else "")
        table.add_row(mark, row["keep"], str(row["discard"]),
                      *[f"{row[f'ev_{lance}']:+.3f}" for lance in LANCES],
                      f"{row['ev_total']:+.3f} ± {row['se_total']:.3f}",
                      "" if i == 0 else f"{row['gap_to_best']:.3f} ± {row['se_gap']:.3f}")
    text = _console_text(table)
    text += f"Recommended: keep {res.rows[0]['keep']} (throw {res.rows[0]['discard']}).\n"
    if res.close:
        text += (f"Note: the top two ({res.rows[0]['keep']} / {res.rows[1]['keep']}) are within "
                 f"2 standard errors of each other; more --trials may separate them.\n")
    if res.chosen is not None and res.chosen != 0:
        row = res.rows[res.chosen]
        text += f"Your keep-set {row['keep']} gives up {row['gap_to_best']:.3f} ± {row['se_gap']:.3f} stones.\n"
    sys.stdout.write(text)


def emit_mus(res, fmt: str) -> None:
    """Print a MusAdvice."""
    d = res.to_dict()
    if fmt == "json":
        sys.stdout.write(json.dumps(d, ensure_ascii=False) + "\n")
        return
    if fmt == "csv":
        rows = [{"lance": lance, "cut_ev_net": res.cut_ev[i], "cut_se_ev_net": res.cut_ev_se[i],
                 "cut_p_team": res.cut_p_team[i], "mus_ev_net": res.mus_ev[i], "mus_se_ev_net": res.mus_ev_se[i],
                 "mus_p_team": res.mus_p_team[i]} for i, lance in enumerate(LANCES)]
        sys.stdout.write(_write_csv(rows))
        return
    from rich.table import Table

    table = Table(title=f"{' '.join(d['hand'])} · {d['seat']} · {d['variant']} · cut or mus",
                  caption=f"mus: you keep {res.keep}, the others discard by {res.policy}; "
                          f"{res.trials:,} deals in which the other three ask for mus, seed {res.seed}")
    table.add_column("Lance")
    table.add_column("P(team) cut", justify="right")
    table.add_column("EV cut", justify="right")
    table.add_column("P(team) mus", justify="right")
    table.add_column("EV mus", justify="right")
    for i, lance in enumerate(LANCES):
        table.add_row(_LANCE_ES[lance], f"{100 * res.cut_p_team[i]:.2f} %",
                      f"{res.cut_ev[i]:+.3f} ± {res.cut_ev_se[i]:.3f}",
                      f"{100 * res.mus_p_team[i]:.2f} %", f"{res.mus_ev[i]:+.3f} ± {res.mus_ev_se[i]:.3f}")
    cut_tot = f"{res.cut_ev.sum():+.3f} ± {res.cut_total_se:.3f}"
    table.add_row("Total", "", cut_tot, "", f"{res.mus_ev.sum():+.3f} ± {res.mus_total_se:.3f}")
    text = _console_text(table)
    if not res.variant.mus_visto:
        text += (f"The mus happens only when the other three ask for it too: "
                 f"{100 * res.p_others_ask:.1f} % of deals; otherwise your choice changes nothing.\n")
    text += (f"Advice: {res.advice} (mus − cut = {res.diff:+.3f} ± {res.diff_se:.3f} stones).\n")
    sys.stdout.write(text)
