"""Formatting of results for the terminal, JSON and CSV."""

from __future__ import annotations

import csv
import io
import json
import math
import sys

from musstats.api import STATS, OddsResult
from musstats.hands import LANCES

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
    Console(file=buf, width=110, force_terminal=False, color_system=None).print(table)
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
