"""The page of ``musstats serve`` in a real browser: headless Chromium driven by Playwright.

The server runs as ``musstats serve --port 0`` in a process of its own.  The browser is
Debian's ``chromium`` (``apt-get install -y chromium``; CI installs it), or the binary in
``$MUSSTATS_CHROMIUM``; without one these tests are skipped, unless
``MUSSTATS_REQUIRE_BROWSER=1`` (set by CI) makes that a failure.  Screenshots of the page at
380 and 1280 pixels wide are written to ``test-artifacts/`` at the top of the checkout
(git-ignored), or to the folder in ``$MUSSTATS_ARTIFACTS``.

Expected values come from the rules (docs/rules.md) and from reasoning about them, not from
the program: R R R R at mano cannot lose grande (every tie goes to mano), so the equilibrium
never refuses a bet there; R C 5 4 at postre is a middling grande hand that the hands which
call or accept an órdago at 0-0 (the strongest) beat.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import pytest

from helpers import ROOT, start_server, stop_server

ARTIFACTS = Path(os.environ.get("MUSSTATS_ARTIFACTS") or ROOT / "test-artifacts")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: first answers may wait for numba to load the compiled kernels (or compile them, on a fresh checkout)
SLOW = 120_000
QUICK = 30_000
#: an órdago answer at a score not solved yet (a cold equilibrium solve of the lance)
SOLVE = 600_000


def _chromium() -> str | None:
    env = os.environ.get("MUSSTATS_CHROMIUM")
    if env:
        return env if Path(env).is_file() else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else None


def _unavailable(reason: str):
    if os.environ.get("MUSSTATS_REQUIRE_BROWSER") == "1":
        pytest.fail(f"MUSSTATS_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


CHROMIUM = _chromium()
try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover - the test extra is not installed
    sync_playwright = None

pytest.importorskip("fastapi", reason="the web extra (FastAPI, uvicorn) is not installed")
try:
    import httpx2 as http
except ImportError:
    import httpx as http


# --------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def server(cache_folder):
    """The URL of ``musstats serve --port 0`` (stopped with Ctrl-C at the end: exit status 130)."""
    p, url = start_server("--port", "0", env={"MUSSTATS_CACHE": str(cache_folder)})
    end = time.monotonic() + 300  # until the warm-up has loaded the compiled kernels
    while http.get(url + "api/status", timeout=30).json()["serialised"] and time.monotonic() < end:
        time.sleep(0.2)
    yield url
    code, err = stop_server(p)
    assert code == 130, err


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        _unavailable("no Chromium found: install Debian's chromium (apt-get install -y chromium) or set "
                     "MUSSTATS_CHROMIUM to a Chromium or Chrome binary")
    if sync_playwright is None:
        _unavailable("Playwright for Python is not installed (pip install playwright; no browser download "
                     "is needed)")
    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    except Exception as e:  # noqa: BLE001
        pw.stop()
        _unavailable(f"Chromium at {CHROMIUM} does not start: {str(e).splitlines()[0]}")
    yield b
    b.close()
    pw.stop()


def open_page(browser, server, width=1280, height=900, fragment="", locale="en-US"):
    page = browser.new_page(viewport={"width": width, "height": height}, locale=locale)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(server + fragment)
    return page


@pytest.fixture
def page(browser, server):
    p = open_page(browser, server)
    yield p
    assert p.errors == [], p.errors  # no script error on the page
    p.close(run_before_unload=True)  # the page cancels its computations as it goes


def pick(page, *names):
    for name in names:
        page.get_by_role("button", name=name).first.click()


def cell(page, lance, stat):
    return page.locator(f"#odds-body tr[data-lance={lance}] td[data-stat={stat}]")


def api_p_team(server, hand, seat, lance="grande"):
    r = http.post(server + "api/odds", json={"hand": hand, "seat": seat}, timeout=120)
    return f"{100 * r.json()['lances'][lance]['p_team']:.2f} %"


# --------------------------------------------------------------------------- the player's questions

def test_pick_rr3a_at_mano_shows_p_team_at_grande(page):
    pick(page, "rey de oros", "rey de copas", "tres de oros", "as de oros")
    expect(page.locator("#hand-text")).to_have_value("R R 3 A")
    expect(cell(page, "grande", "p_team")).to_have_text("99.17 %", timeout=SLOW)
    expect(cell(page, "chica", "p_team")).to_have_text("36.13 %")
    expect(cell(page, "punto", "p_team")).to_have_text("–")  # punto is never played: no 0 %
    expect(cell(page, "grande", "p_contested")).to_have_text("–")
    expect(page.locator("#hand-summary")).to_have_text("medias · juego 31")
    expect(page.locator("#odds-caption")).to_have_text("R R 3 A · mano · 8-reyes")
    expect(page.locator("#odds-cli")).to_have_text("musstats odds R R 3 A --seat mano")
    expect(page.locator("#hand-view button")).to_have_count(4)


def test_a_fifth_rey_with_4_reyes_shows_the_error(page):
    page.get_by_label("Deck", exact=True).select_option("4-reyes")
    page.get_by_label("Cards", exact=True).fill("R R R R")
    expect(cell(page, "grande", "p_team")).to_have_text(re.compile(r"\d+\.\d\d %"), timeout=SLOW)
    # the betting of 4 reyes does not ship: its solve (many minutes) runs only when asked for
    expect(page.locator("#bet-solve")).to_be_visible()
    page.get_by_label("Dead cards", exact=True).fill("R")
    err = page.locator("#error")
    expect(err).to_be_visible(timeout=SLOW)
    expect(err).to_contain_text("hand and dead cards: 5 cards of rank R but the deck holds 4")
    expect(page.locator("#odds-body tr")).to_have_count(0)
    # the picker cannot even give a fifth card to the hand
    page.get_by_label("Dead cards", exact=True).fill("")
    expect(err).to_be_hidden(timeout=QUICK)
    pick(page, "caballo de oros")
    expect(page.locator("#pick-message")).to_have_text("Your hand has four cards already: put one back first.")
    # a hand of five cards typed in is refused with the command line's message
    page.get_by_label("Cards", exact=True).fill("R R R R R")
    expect(err).to_contain_text("a hand has exactly 4 cards, got 5", timeout=QUICK)


def test_changing_the_seat_changes_the_table(page, server):
    pick(page, "rey de oros", "rey de copas", "tres de oros", "as de oros")
    expect(cell(page, "grande", "p_team")).to_have_text("99.17 %", timeout=SLOW)
    page.get_by_role("radio", name="Postre").check()
    want = api_p_team(server, "R R 3 A", "postre")
    assert want != "99.17 %"
    expect(cell(page, "grande", "p_team")).to_have_text(want, timeout=QUICK)
    expect(page.locator("#odds-caption")).to_have_text("R R 3 A · postre · 8-reyes")
    expect(page.locator("#team-line")).to_contain_text("Your partner is Second")


def test_discard_mus_and_ordago_panels_fill_in(page):
    pick(page, "rey de oros", "rey de copas", "tres de oros", "as de oros")
    rows = page.locator("#discard-body tr")
    expect(rows.first).to_be_visible(timeout=SLOW)
    expect(rows.first).to_contain_text("★")
    expect(page.locator("#discard-best")).to_have_text(re.compile(r"^(Keep .+|Throw all four)\."))
    expect(page.locator("#mus-advice")).to_have_text(re.compile(r"^(corto|mus) — "), timeout=SLOW)
    expect(page.locator("#mus-detail")).to_contain_text("mus − cut")
    # the advice is the mus decision's equilibrium; the flags' comparison is labelled beside it
    expect(page.locator("#mus-detail")).to_contain_text("Equilibrium of the mus decision: cut with probability")
    expect(page.locator("#mus-detail")).to_contain_text("Comparison, against the shipped cut flags")
    grande = page.locator("#ordago-body tr[data-lance=grande]")
    expect(grande.locator("td[data-eq=answer]")).to_have_attribute("data-decision", re.compile("^(accept|refuse)$"),
                                                                   timeout=SOLVE)
    expect(grande.locator("td[data-eq=call]")).to_have_attribute("data-decision", re.compile("^(call|pass)$"))
    # punto is not played with juego 31: the row says why
    expect(page.locator("#ordago-body tr[data-lance=punto]")).to_contain_text("punto", timeout=SOLVE)
    page.get_by_label("Us", exact=True).fill("30")
    page.get_by_label("Them", exact=True).fill("35")
    expect(page.locator("#ordago-h")).to_have_text("Órdago at 30-35", timeout=SOLVE)
    expect(page.locator("#chart")).to_be_visible(timeout=SLOW)
    expect(page.locator("#chart")).to_have_attribute("alt", re.compile("R R 3 A at mano"))


def test_the_throw_panel_shows_the_column_it_ranks_by(page, server):
    page.get_by_label("Cards", exact=True).fill("R R 7 A")
    rows = page.locator("#discard-body tr")
    expect(rows.first).to_be_visible(timeout=SLOW)
    d = http.post(server + "api/discard", json={"hand": "R R 7 A", "seat": "mano", "seed": 1}, timeout=300).json()
    rank = "objective" if "objective" in d["keep_sets"][0] else "ev_total"
    shown = [float(x.replace("−", "-")) for x in page.locator("#discard-body td[data-col=rank]").all_inner_texts()
             for x in [x.split("±")[0].split()[0]]]
    assert shown == sorted(shown, reverse=True)  # the column shown is the order of the rows
    assert shown[0] == pytest.approx(d["keep_sets"][0][rank], abs=5e-4)
    expect(rows.first).to_contain_text("★")
    # the mus panel keeps the keep-set the command line's mus keeps
    expect(page.locator("#mus-advice")).not_to_be_empty(timeout=SLOW)
    m = http.post(server + "api/mus", json={"hand": "R R 7 A", "seat": "mano", "seed": 1}, timeout=300).json()
    keep = (m.get("with_betting") or m)["keep"]
    expect(page.locator("#mus-advice span.say")).to_have_attribute("data-advice",
                                                                   "cut" if m["advice"] == "cut" else "mus")
    if m["advice"] != "cut":
        expect(page.locator("#mus-advice")).to_contain_text(keep)
    expect(page.locator("#mus-detail")).to_contain_text(f"keeping {keep}")


def test_a_long_computation_shows_progress_is_replaced_and_can_be_cancelled(page, server):
    pick(page, "caballo de oros", "sota de oros", "cuatro de oros", "as de oros")
    expect(cell(page, "grande", "p_team")).to_have_text(re.compile(r"%$"), timeout=SLOW)
    before = http.get(server + "api/status", timeout=30).json()["cancelled"]
    page.locator("details.advanced summary").click()
    page.get_by_label("Mus: deals per keep-set").fill("2000000")
    run = page.locator("#discard-panel .run")
    expect(run).to_be_visible(timeout=QUICK)
    expect(run.locator(".run-text")).to_contain_text("of 2,000,000 deals", timeout=SLOW)
    page.get_by_role("radio", name="Second").check()  # a new question replaces the running one ...
    expect(run.locator(".run-text")).to_contain_text("of 2,000,000 deals", timeout=SLOW)
    run.get_by_role("button", name="Cancel").click()  # ... and this one is cancelled by hand
    expect(page.locator("#discard-panel .panel-error")).to_contain_text("Cancelled", timeout=QUICK)
    expect(run).to_be_hidden()
    mus_run = page.locator("#mus-panel .run")  # the mus panel uses the same deals per keep-set
    if mus_run.is_visible():
        mus_run.get_by_role("button", name="Cancel").click()
        expect(mus_run).to_be_hidden()
    deadline = time.monotonic() + 20
    busy = lambda st: sum(st["pending_by_kind"].get(k, 0) for k in ("discard", "mus"))  # noqa: E731
    while True:
        st = http.get(server + "api/status", timeout=30).json()
        if st["cancelled"] >= before + 2 and busy(st) == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert st["cancelled"] >= before + 2, st  # both runs stopped on the server, between batches
    assert busy(st) == 0, st  # (the page's órdago solves may still run, in a lane of their own)


def test_cards_can_be_picked_with_the_keyboard(page):
    first = page.get_by_role("button", name="rey de oros")
    first.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    page.keyboard.press("ArrowDown")
    page.keyboard.press(" ")
    expect(page.locator("#hand-text")).to_have_value("C C")
    expect(page.get_by_role("button", name="caballo de copas, in your hand")).to_be_focused()
    expect(page.locator("#status")).to_have_text("Pick 2 more cards.")
    unlabelled = page.evaluate("() => [...document.querySelectorAll('input, select, button')]"
                               ".filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')"
                               " && !e.textContent.trim()).map(e => e.id || e.outerHTML.slice(0, 60))")
    assert unlabelled == []


def test_the_ordago_panel_leads_with_the_equilibrium(browser, server):
    # R C 5 4 at postre, 0-0, grande: against equilibrium opponents, pass and refuse theirs,
    # without ticking anything; the random-hands figures only as a labelled comparison
    page = open_page(browser, server, fragment="#hand=R C 5 4&seat=postre")
    try:
        assert page.locator("#equilibrium").count() == 0  # no box to tick
        grande = page.locator("#ordago-body tr[data-lance=grande]")
        call, answer = grande.locator("td[data-eq=call]"), grande.locator("td[data-eq=answer]")
        expect(call).to_have_attribute("data-decision", "pass", timeout=SOLVE)
        expect(call.locator(".say")).to_have_text("paso")
        expect(answer).to_have_attribute("data-decision", "refuse")
        expect(answer.locator(".say")).to_have_text("no quiero")
        expect(call).to_contain_text("P(win the game)")
        comparison = page.locator("#ordago-random")
        expect(comparison.locator("summary")).to_have_text("Comparison: random hands (no betting read)")
        expect(page.locator("#ordago-random-table")).to_be_hidden()  # folded until asked for
        comparison.locator("summary").click()
        expect(page.locator("#ordago-random-table")).to_be_visible()
        expect(page.locator("#ordago-random-body tr[data-lance=grande] td").first).to_have_text(re.compile(r"%"))
        assert page.errors == [], page.errors
    finally:
        page.close(run_before_unload=True)


def bet_rows(page) -> dict[str, float]:
    """The betting panel's table: action -> P(equilibrium) in %."""
    out = {}
    for row in page.locator("#bet-body tr").all():
        out[row.get_attribute("data-action")] = float(row.locator("td[data-col=p]").inner_text().split()[0])
    return out


def bet_walk(page, actions: list[str]) -> None:
    page.locator("#bet-restart").click() if page.locator("#bet-restart").is_enabled() else None
    expect(page.locator("#bet-history li")).to_have_text(["start of the lance"], timeout=QUICK)
    for i, a in enumerate(actions):
        page.locator(f"#bet-say button[data-say='{a}']").click()
        expect(page.locator("#bet-history li")).to_have_count(i + 1, timeout=QUICK)
        expect(page.locator("#bet-history li").last).to_contain_text(a)


def test_the_betting_panel_rrrr_at_mano_never_refuses(browser, server):
    # R R R R at mano is the best grande hand and mano wins every tie: refusing a bet can only
    # give stones away, so at every point where mano answers a bet "no quiero" stays at 0.5 % or less
    page = open_page(browser, server, fragment="#hand=R R R R&seat=mano")
    try:
        expect(page.locator("#bet-now")).to_have_text("Your turn (Mano): the equilibrium's actions with your hand",
                                                       timeout=SLOW)
        opening = bet_rows(page)
        assert "paso" in opening and "no quiero" not in opening  # nothing to refuse before a bet
        assert sum(opening.values()) == pytest.approx(100, abs=0.1)
        paths = [["paso", "envido 2", "no quiero"], ["paso", "envido 5", "no quiero"], ["paso", "órdago", "no quiero"],
                 ["paso", "paso", "paso", "envido 2"], ["paso", "paso", "paso", "órdago"],
                 ["envido 2", "+2", "no quiero"], ["envido 2", "órdago", "no quiero"],
                 ["paso", "paso", "envido 2", "+2"]]
        for path in paths:
            bet_walk(page, path)
            expect(page.locator("#bet-now")).to_contain_text("Your turn (Mano)", timeout=SLOW)
            expect(page.locator("#bet-caption")).to_contain_text(", ".join(path), timeout=SLOW)
            rows = bet_rows(page)
            assert "no quiero" in rows and "quiero" in rows, (path, rows)
            assert rows["no quiero"] <= 0.5, (path, rows)
        # another seat's turn: its legal actions as buttons, no figures
        bet_walk(page, ["paso"])
        expect(page.locator("#bet-now")).to_have_text("Second to speak")
        expect(page.locator("#bet-table")).to_be_hidden()
        said = page.locator("#bet-say button").all_inner_texts()
        assert "paso" in said and "órdago" in said and not {"quiero", "no quiero"} & set(said)  # no bet yet
        bet_walk(page, ["envido 2", "no quiero", "no quiero"])  # both refuse: mano's team takes the deje
        expect(page.locator("#bet-now")).to_contain_text("The betting is over: refused: mano and third take 1")
        assert page.errors == [], page.errors
    finally:
        page.close(run_before_unload=True)


def test_the_betting_panel_reads_who_cut(browser, server):
    """Told that third cut the mus, the betting panel answers with the strategies given who cut:
    at postre's first turn in grande its probabilities are /api/bet's with that cut, and the
    caption says so."""
    page = open_page(browser, server, fragment="#hand=R R 3 A&seat=postre&cut=third")
    try:
        expect(page.locator("#bet-cut")).to_have_value("third")
        expect(page.locator("#bet-now")).to_contain_text("Mano to speak", timeout=SLOW)
        bet_walk(page, ["paso", "paso", "paso"])
        expect(page.locator("#bet-now")).to_contain_text("Your turn (Postre)", timeout=SLOW)
        expect(page.locator("#bet-caption")).to_contain_text("third corto", timeout=SLOW)
        rows = bet_rows(page)
        api = http.post(server + "api/bet", json={"hand": "R R 3 A", "seat": "postre", "lance": "grande",
                                                  "cut": "third", "history": "paso,paso,paso"}, timeout=120).json()
        want = {a: round(100 * x["p"], 1) for a, x in api["nodes"][0]["actions"].items()}
        assert rows == pytest.approx(want, abs=0.051)
        assert page.errors == [], page.errors
    finally:
        page.close(run_before_unload=True)


@pytest.mark.parametrize("hand, seat, declared, walk, note", [
    ("R R R A", "third", "mano:juego,second:juego,third:juego,postre:no-juego", ["paso", "paso"], "plan {plan} of"),
    ("C S 7 4", "postre", "mano:juego,second:juego,third:juego,postre:juego", ["paso", "paso", "paso"],
     "Both pairs play plans")])
def test_the_betting_panel_plays_the_pairs_agreed_plan(browser, server, hand, seat, declared, walk, note):
    """With the plan number 5 agreed with the partner -- third in juego with mano, second and
    third declared (his pair against second), postre in juego with all four declared (both pairs
    play plans) --: at his first turn the panel's probabilities are /api/bet's for his pair's
    plan (0 or 100 %, a plan being one joint pure plan or the per-lance strategies), and the
    note names the plan, or says that both pairs play plans."""
    page = open_page(browser, server, fragment=f"#hand={hand}&seat={seat}&bet=juego&declared={declared}&plan=5")
    try:
        expect(page.locator("#bet-plan")).to_have_value("5")
        expect(page.locator("#bet-now")).to_contain_text("Mano to speak", timeout=SLOW)
        bet_walk(page, walk)
        expect(page.locator("#bet-now")).to_contain_text(f"Your turn ({seat.capitalize()})", timeout=SLOW)
        rows = bet_rows(page)
        api = http.post(server + "api/bet", json={"hand": hand, "seat": seat, "lance": "juego", "declared": declared,
                                                  "plan_seed": 5, "history": ",".join(walk)}, timeout=120).json()
        want = {a: round(100 * x["p"], 1) for a, x in api["nodes"][0]["actions"].items()}
        assert rows == pytest.approx(want, abs=0.051)
        expect(page.locator("#bet-note")).to_contain_text(note.format(plan=api["plans"]["plan"]), timeout=SLOW)
        assert page.errors == [], page.errors
    finally:
        page.close(run_before_unload=True)


def test_the_reading_panel_reads_the_hand_so_far(page, server):
    """The hand so far typed in: the panel shows what /api/hand answers (musstats hand): second's
    envite in grande read as reyes, third's decision with its four answers; a bad history is
    the command line's one line in the panel."""
    page.get_by_label("Cards", exact=True).fill("R R 7 5")
    page.get_by_role("radio", name="Third").check()
    history = "mus,corto; grande: paso,envido 2"
    page.get_by_label("The hand so far", exact=True).fill(history)
    want = http.post(server + "api/hand", json={"hand": "R R 7 5", "seat": "third", "history": history},
                     timeout=120).json()
    reyes = want["reads"]["second"]["reyes2"]
    cell_ = page.locator("#read-body tr[data-seat=second] td[data-read=reyes2]")
    expect(cell_).to_contain_text(f"{100 * reyes['posterior']:.1f} %", timeout=SLOW)
    expect(cell_).to_contain_text(f"[{100 * reyes['prior']:.0f} %]")
    expect(page.locator("#read-decision-body tr")).to_have_count(4)
    expect(page.locator("#read-now")).to_contain_text("Grande")
    best = want["decision"]["best_reading"]
    expect(page.locator(f"#read-decision-body tr.best[data-action='{best}']")).to_have_count(1)
    page.get_by_label("The hand so far", exact=True).fill("corto; grande: órdago,quiero; chica: paso")
    expect(page.locator("#read-panel .panel-error")).to_contain_text("órdago accepted in grande", timeout=SLOW)


def test_the_language_switch(browser, server):
    page = open_page(browser, server, fragment="#hand=R R 3 A&seat=mano")
    try:
        expect(page.locator("html")).to_have_attribute("lang", "en")
        expect(page.locator("#discard-h")).to_have_text("What to throw")
        expect(cell(page, "grande", "p_team")).to_have_text("99.17 %", timeout=SLOW)
        page.get_by_role("button", name="ES", exact=True).click()
        expect(page.locator("html")).to_have_attribute("lang", "es")
        for sel, text in (("#hand-h", "Tus cartas"), ("#discard-h", "Qué descartar"), ("#bet-h", "Envites"),
                          ("#mus-h", "¿Mus o corto?"), ("#odds-h", "Probabilidades de cada lance")):
            expect(page.locator(sel)).to_have_text(text)
        expect(page.get_by_label("Nosotros", exact=True)).to_be_visible()
        expect(cell(page, "grande", "p_team")).to_have_text("99,17 %")  # decimal comma
        # lance and action names stay Spanish in both languages
        expect(page.locator("#odds-body tr[data-lance=grande] th")).to_have_text("Grande")
        page.get_by_role("button", name="EN", exact=True).click()
        expect(page.locator("#discard-h")).to_have_text("What to throw")
        expect(page.locator("#odds-body tr[data-lance=grande] th")).to_have_text("Grande")
        assert page.errors == [], page.errors
    finally:
        page.close(run_before_unload=True)
    # a browser that prefers Spanish gets the page in Spanish
    page = open_page(browser, server, locale="es-ES")
    try:
        expect(page.locator("html")).to_have_attribute("lang", "es")
        expect(page.locator("#status")).to_have_text("Elige cuatro cartas.")
        expect(page.locator("#ordago-lead")).to_contain_text("Contra rivales de equilibrio")
    finally:
        page.close(run_before_unload=True)


def test_bad_input_clears_the_previous_hand(page):
    page.get_by_label("Cards", exact=True).fill("R R 3 A")
    expect(cell(page, "grande", "p_team")).to_have_text("99.17 %", timeout=SLOW)
    expect(page.locator("#discard-best")).not_to_be_empty(timeout=SLOW)
    expect(page.locator("#mus-advice")).not_to_be_empty(timeout=SLOW)
    expect(page.locator("#ordago-h")).to_have_text("Órdago at 0-0", timeout=SOLVE)
    page.get_by_label("Cards", exact=True).fill("R R X A")
    err = page.locator("#error")
    expect(err).to_contain_text("unknown card", timeout=QUICK)
    assert "\n" not in err.inner_text().strip()
    for sel in ("#discard-best", "#mus-advice", "#mus-detail", "#bet-now", "#odds-run"):
        expect(page.locator(sel)).to_be_empty()
    expect(page.locator("#ordago-h")).to_have_text("Órdago")  # no score of the previous hand's answer
    for sel in ("#odds-body tr", "#discard-body tr", "#bet-body tr"):
        expect(page.locator(sel)).to_have_count(0)
    expect(page.locator("#ordago-body td.decision")).to_have_count(0)
    expect(page.locator("#chart")).to_be_hidden()
    expect(page.locator("#status")).to_have_text("That hand cannot be computed.")


#: every element's box inside the viewport, unless a box that scrolls or clips holds it (a wide
#: table may scroll inside its own box; that box must fit)
OVERFLOW_JS = """() => {
  const vw = document.documentElement.clientWidth, out = [];
  for (const e of document.querySelectorAll('body *')) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    if (e.classList.contains('skip') || e.closest('svg.defs')) continue;  // off-screen until focused; 0-size defs
    let a = e.parentElement, held = false;
    while (a && a !== document.body) {
      const ox = getComputedStyle(a).overflowX;
      if (ox === 'auto' || ox === 'scroll' || ox === 'hidden') { held = true; break; }
      a = a.parentElement;
    }
    if (held) continue;
    if (r.right > vw + 0.5 || r.left < -0.5)
      out.push(`${e.tagName.toLowerCase()}#${e.id}.${e.className} ${Math.round(r.left)}..${Math.round(r.right)} `
               + `"${(e.textContent || '').trim().slice(0, 30)}"`);
  }
  return {scrollWidth: document.documentElement.scrollWidth, width: vw, wide: out};
}"""


@pytest.mark.parametrize("width", [380, 1280])
def test_layout_and_screenshots(browser, server, width):
    page = open_page(browser, server, width=width, height=900, fragment="#hand=R R 3 A&seat=mano")
    try:
        expect(cell(page, "grande", "p_team")).to_have_text("99.17 %", timeout=SLOW)
        expect(page.locator("#discard-body tr").first).to_be_visible(timeout=SLOW)
        expect(page.locator("#mus-advice")).not_to_be_empty(timeout=SLOW)
        expect(page.locator("#ordago-body td.decision").first).to_be_visible(timeout=SOLVE)
        expect(page.locator("#bet-body tr").first).to_be_visible(timeout=SLOW)
        expect(page.locator("#chart")).to_be_visible(timeout=SLOW)
        expect(page.locator("#status")).to_have_text("Up to date.", timeout=SOLVE)
        page.wait_for_timeout(300)  # the chart image decoded
        for box in page.locator("details.comparison").all():  # the folded parts must fit too
            box.locator("summary").click()
        page.locator("details.advanced summary").click()
        page.get_by_role("button", name=re.compile("^Show all")).click()
        got = page.evaluate(OVERFLOW_JS)
        assert got["scrollWidth"] <= width, got  # no sideways scrolling
        assert got["wide"] == [], got["wide"]  # and no element sticking out
        # the answer first: the score is on the first screen, the answers before the other rules
        assert page.locator("#score-us").bounding_box()["y"] < 900
        top = {k: page.locator(k).bounding_box()["y"] for k in ("#ordago-panel", "#bet-panel", "#table-h")}
        assert top["#ordago-panel"] < top["#bet-panel"]
        if width < 1000:
            assert top["#ordago-panel"] < top["#table-h"]  # one column: the rules come after the answers
            assert top["#ordago-panel"] < 1300
        # the chart is drawn for its box: its text is not shrunk below its size
        ratio = page.evaluate("() => { const i = document.getElementById('chart'); "
                              "return i.naturalWidth / i.getBoundingClientRect().width; }")
        assert 0.75 < ratio < 1.35, ratio
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"serve-{width}.png"), full_page=True)
        assert page.errors == [], page.errors
    finally:
        page.close(run_before_unload=True)
