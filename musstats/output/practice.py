"""The practice table and its review for the terminal, JSON and CSV (``musstats play``,
``musstats review``)."""

from __future__ import annotations

import io
from typing import Any

from musstats.output.render import _console_text
from musstats.rules.labels import LANCE_ES, SEATS

__all__ = ["summary_table", "render_review", "review_csv", "emit_review", "emit_autoplay", "render_hand_review", "event_text",
           "bet_result_text", "render_hint", "render_count"]

_KIND = {"mus": "Mus", "discard": "Discard"}


def _num(x: float | None, digits: int = 3, sign: bool = True) -> str:
    if x is None:
        return "–"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _lance_name(lance: str) -> str:
    return LANCE_ES.get(lance, _KIND.get(lance, lance))


def _rules_text(meta: dict[str, Any]) -> str:
    r = meta.get("rules", {})
    parts = [r.get("variant", "8-reyes"), f"game to {r.get('target', 40)}"]
    m = meta.get("match")
    if m and m not in ("single",):
        parts.append(m)
    if meta.get("seed") is not None:
        parts.append(f"seed {meta['seed']}")
    if meta.get("strategy"):
        parts.append(f"your seat played by {meta['strategy']}")
    if meta.get("unfinished"):
        parts.append("unfinished")
    return " · ".join(parts)


def render_count(count: dict[str, Any] | None) -> str:
    """``us 7, them 2 (score 14-10): pares deje 1 us, grande 1 them, ...``"""
    if not count:
        return "the hand was not finished"
    ev = ", ".join(f"{e['lance']} {e['reason'].replace('count: ', '')} {e['stones']} {e['team']}"
                   for e in count["events"])
    win = {"us": "; we win the game", "them": "; they win the game"}.get(count.get("winner") or "", "")
    return f"us {count['stones'][0]}, them {count['stones'][1]} (score {count['score'][0]}-{count['score'][1]}" \
           f"{win}): {ev or 'nothing'}"


def render_hand_review(h: dict[str, Any]) -> str:
    """One hand of the review: the cards of every seat, what happened, and the table of your decisions."""
    from rich.table import Table

    you = h["you"]
    lines = [f"Game {h['game']}, hand {h['hand']} · you: {you} · score before {h['score_before'][0]}-"
             f"{h['score_before'][1]} (us-them)"]
    cards = h.get("cards") or {}
    dealt, final = cards.get("dealt") or {}, cards.get("after_mus") or {}
    for q in SEATS:
        if q not in dealt:
            continue
        who = "you" if q == you else ("partner" if SEATS.index(q) % 2 == SEATS.index(you) % 2 else "rival")
        shown = dealt[q] + (f" → {final[q]}" if final.get(q) and final[q] != dealt[q] else "")
        lines.append(f"  {q:<7} {who:<8} {shown}")
    lines.append("  count: " + render_count(h.get("count")))
    t = Table(title=None, show_edge=True)
    for c in ("Lance", "Cards", "Said before", "You", "Best", "EV you", "EV best", "Lost"):
        t.add_column(c, justify="right" if c.startswith("EV") or c == "Lost" else "left")
    for d in h["rows"]:
        lost = "–" if d["loss"] is None else f"{d['loss']:.3f}"
        t.add_row(_lance_name(d["lance"]), d["cards"], d["history"] or "·", d["action"], d["best"] or "–",
                  _num(d["ev"]), _num(d["ev_best"]), lost)
    notes = [f"    {_lance_name(d['lance'])} {d['action']}: {d['note']}" for d in h["rows"]
             if d.get("note") and d["note"] != "played by the equilibrium"]
    out = "\n".join(lines) + "\n"
    if h["rows"]:
        out += _console_text(t)
    else:
        out += "  (no decision of yours in this hand)\n"
    if notes:
        out += "\n".join(notes) + "\n"
    out += f"  this hand: {h['decisions']} decision(s) valued, {h['loss']:.3f} stones lost\n"
    return out


def summary_table(s: dict[str, Any], what: str) -> str:
    from rich.table import Table

    t = Table(title=what)
    for c in ("", "Decisions", "Stones lost", "Per decision"):
        t.add_column(c, justify="left" if not c else "right")
    for lance, x in s["by_lance"].items():
        t.add_row(_lance_name(lance), str(x["decisions"]), f"{x['loss']:.3f}", f"{x['mean_loss']:.4f}")
    for g in s.get("by_game", []) if len(s.get("by_game", [])) > 1 else []:
        t.add_row(f"game {g['game']}", str(g["decisions"]), f"{g['loss']:.3f}",
                  "–" if g["mean_loss"] is None else f"{g['mean_loss']:.4f}")
    mean = "–" if s["mean_loss"] is None else f"{s['mean_loss']:.4f}" + (
        f" ± {s['mean_loss_se']:.4f}" if s.get("mean_loss_se") is not None else "")
    t.add_row("Total", str(s["decisions"]), f"{s['loss']:.3f}", mean)
    return _console_text(t)


def _method_lines(meta: dict[str, Any]) -> str:
    m = meta.get("method", {})
    return ("Stones: net stones of your team; an action the equilibrium plays (P ≥ "
            f"{meta.get('played_p', 0.01):g}) loses 0.\n"
            f"Betting: {m.get('betting', '')}; {meta.get('bet_trials', 0):,} deals, seed {meta.get('bet_seed')}.\n"
            f"Mus: {m.get('mus', '')}. Discard: {m.get('discard', '')}; {meta.get('mus_trials', 0):,} deals per "
            f"keep-set, seed {meta.get('mus_seed')}.\n")


def render_review(d: dict[str, Any]) -> str:
    """The review document (:meth:`Review.to_dict`) for the terminal."""
    head = f"Review · {_rules_text(d)}"
    won = d.get("games_won")
    if won:
        head += f" · games won {won['us']}-{won['them']} (us-them)"
    out = [head + (f"\nBots: {d['bots']}" if d.get("bots") else "") + "\n"]
    for h in d["hands"]:
        out.append(render_hand_review(h))
    out.append(summary_table(d["review"], "Stones lost against the best action"))
    out.append(_method_lines(d))
    return "\n".join(out)


def review_csv(d: dict[str, Any]) -> str:
    import csv

    from musstats.output.files import meta_comment

    cols = ["game", "hand", "seat", "lance", "cards", "history", "action", "best", "loss", "ev", "ev_best", "se",
            "p", "valued", "rare", "note"]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for h in d["hands"]:
        for r in h["rows"]:
            w.writerow(r)
    meta = {k: v for k, v in d.items() if k not in ("hands",)}
    return meta_comment(meta) + buf.getvalue()


def emit_review(d: dict[str, Any], fmt: str) -> str:
    from musstats.output.render import to_json

    if fmt == "json":
        return to_json(d)
    if fmt == "csv":
        return review_csv(d)
    return render_review(d)


def emit_autoplay(d: dict[str, Any], fmt: str) -> str:
    """``musstats play --autoplay``: the review's totals (JSON: ``{"review": {...}}``)."""
    from musstats.output.render import to_json

    if fmt == "json":
        return to_json(d)
    s = d["review"]
    if fmt == "csv":
        import csv

        from musstats.output.files import meta_comment

        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["lance", "decisions", "loss", "mean_loss"])
        for lance, x in s["by_lance"].items():
            w.writerow([lance, x["decisions"], x["loss"], x["mean_loss"]])
        w.writerow(["total", s["decisions"], s["loss"], s["mean_loss"]])
        return meta_comment({k: v for k, v in d.items() if k != "review"} | {"mean_loss_se": s["mean_loss_se"]}) \
            + buf.getvalue()
    title = (f"Autoplay · your seat: {d['strategy']} · bots: equilibrium · {d['hands']} hands · "
             f"{_rules_text({**d, 'strategy': None})}")
    return title + "\n" + summary_table(s, "Stones lost against the best action") + _method_lines(d)


# ---------------------------------------------------------------------------- the table in the terminal

_PLACE = ("you", "right", "partner", "left")


def bet_result_text(r: dict[str, Any] | None) -> str:
    if not r:
        return ""
    return {"paso": "en paso", "accepted": f"{r.get('stake')} accepted", "ordago": "órdago accepted",
            "refused": f"refused: {r.get('by')} take {r.get('deje')}"}.get(r.get("kind", ""), "")


def event_text(e: dict[str, Any]) -> str | None:
    """One line of the table's public log (None for an event that prints nothing)."""
    k = e["kind"]
    mano = int(e.get("_mano", 0))

    def who(p: int | None) -> str:
        return f"{_PLACE[p]} ({SEATS[(p - mano) % 4]})" if p is not None else "?"

    if k == "deal":
        return f"— new hand: mano is {_PLACE[e['mano']]}, {_PLACE[e['dealer']]} deals —"
    if k == "mus":
        return f"{who(e['place'])}: {e['action']}"
    if k == "throw":
        return f"{who(e['place'])} throws {e['n']}"
    if k == "reshuffle":
        return f"the stock ran out: the discards are shuffled into a new stock ({e['cards']} cards)"
    if k == "mus_end":
        return None
    if k == "declare":
        holders = ", ".join(_PLACE[p] for p in e["holders"]) or "nobody"
        return f"{e['lance']}: {holders} {'holds' if len(e['holders']) == 1 else 'hold'} {e['lance']}"
    if k == "lance":
        return f"[{LANCE_ES[e['lance']]}]" + ("" if e["bet"] else " (no betting)")
    if k == "bet":
        return f"  {who(e['place'])}: {e['action']}"
    if k == "lance_end":
        return f"  {LANCE_ES[e['lance']]}: {bet_result_text(e.get('result'))}"
    if k == "count":
        return "count: " + render_count(e)
    if k == "game_over":
        return f"— the game is over: {'we' if e['winner'] == 'us' else 'they'} win —"
    if k == "match_over":
        return f"— the match is over: {'we' if e['winner'] == 'us' else 'they'} win —"
    return None


def render_hint(h: dict[str, Any]) -> str:
    """A hint: the figures of the decision now."""
    from rich.table import Table

    if h["phase"] == "betting":
        t = Table(title=f"{h['cards']} · {h['seat']} · {LANCE_ES[h['lance']]} after "
                        f"{','.join(h['history']) or 'the start'} · {h['meta']['deal']}")
        for c in ("Action", "P(equilibrium)", "EV (stones)"):
            t.add_column(c, justify="left" if c == "Action" else "right")
        for a, x in h["options"].items():
            ev = "–" if x.get("ev") is None else f"{x['ev']:+.3f} ± {x['se']:.3f}"
            t.add_row(a + (" ★" if a == h["best"] else ""), f"{100 * x['p']:.1f} %", ev)
        out = _console_text(t)
        if h.get("rare"):
            out += "Rarely reached: these figures rest on few deals.\n"
        return out
    if h["phase"] == "mus":
        o = h["options"]
        return (f"{h['cards']} · {h['seat']}: mus {o['mus']['ev']:+.3f}, corto {o['corto']['ev']:+.3f} stones "
                f"(mus − cut {h['difference']:+.3f} ± {h['se']:.3f}; with betting, on the deals in which the other "
                f"three ask: {100 * h['p_others_ask']:.1f} % of deals; mus keeping {h['keep']}). Best: {h['best']}."
                + (f" {h['note']}." if h.get("note") else "") + "\n")
    t = Table(title=f"{h['cards']} · {h['seat']} · what to keep ({h['by']})")
    for c in ("Keep", "Throw", "EV (stones)", "Gap"):
        t.add_column(c, justify="left" if c == "Keep" else "right")
    for i, (k, x) in enumerate(h["options"].items()):
        if i >= 6:
            break
        t.add_row(k + (" ★" if k == h["best"] else ""), str(x["throw"]), f"{x['ev']:+.3f} ± {x['se']:.3f}",
                  f"{x['gap']:.3f}")
    return _console_text(t)
