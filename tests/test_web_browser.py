"""The page of ``musstats serve`` in a real browser: headless Chromium driven by Playwright.

The server runs as ``musstats serve --port 0`` in a process of its own.  The browser is
Debian's ``chromium`` (``apt-get install -y chromium``; CI installs it), or the binary in
``$MUSSTATS_CHROMIUM``; without one these tests are skipped, unless
``MUSSTATS_REQUIRE_BROWSER=1`` (set by CI) makes that a failure.  Screenshots at 380 and
1280 pixels wide are written to ``test-artifacts/``.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import pytest

from helpers import ROOT, start_server, stop_server

ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: first answers may wait for numba to load the compiled kernels (or compile them, on a fresh checkout)
SLOW = 120_000
QUICK = 30_000


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


def open_page(browser, server, width=1280, height=900, fragment=""):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(server + fragment)
    return page


@pytest.fixture
def page(browser, server):
    p = open_page(browser, server)
    yield p
    assert p.errors == [], p.errors  # no script error on the page
    p.close()


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
    page.get_by_label("Dead cards", exact=True).fill("R")
    err = page.locator("#error")
    expect(err).to_be_visible(timeout=QUICK)
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
    expect(page.locator("#team-line")).to_contain_text("Your partner is second")


def test_discard_mus_and_ordago_panels_fill_in(page):
    pick(page, "rey de oros", "rey de copas", "tres de oros", "as de oros")
    rows = page.locator("#discard-body tr")
    expect(rows.first).to_be_visible(timeout=SLOW)
    expect(rows.first).to_contain_text("★")
    expect(page.locator("#discard-best")).to_have_text(re.compile(r"^(Keep .+|Throw all four)\."))
    expect(page.locator("#mus-advice")).to_have_text(re.compile(r"^(Cut the mus|Ask for mus)$"), timeout=SLOW)
    expect(page.locator("#mus-detail")).to_contain_text("Mus − cut")
    grande = page.locator("#ordago-body tr[data-lance=grande]")
    expect(grande).to_contain_text("99.17", timeout=SLOW)
    expect(grande).to_contain_text("Call")
    expect(page.locator("#ordago-body tr[data-lance=punto]")).to_contain_text("no órdago at punto", timeout=QUICK)
    page.get_by_label("Us", exact=True).fill("30")
    page.get_by_label("Them", exact=True).fill("35")
    expect(page.locator("#ordago-h")).to_have_text("Órdago at 30-35", timeout=QUICK)
    expect(page.locator("#chart")).to_be_visible(timeout=SLOW)
    expect(page.locator("#chart")).to_have_attribute("alt", re.compile("R R 3 A at mano"))


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
    while True:
        st = http.get(server + "api/status", timeout=30).json()
        if st["cancelled"] >= before + 2 and st["pending"] == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert st["cancelled"] >= before + 2, st  # both runs stopped on the server, between batches
    assert st["pending"] == 0, st


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


def test_ordago_panel_against_equilibrium_opponents(browser, server):
    # R C 5 4 at postre, 0-0: the random-hands figures say call and accept grande; against
    # equilibrium opponents, neither (the decisions issue's hidden-hands sanity)
    page = open_page(browser, server, fragment="#hand=R C 5 4&seat=postre")
    try:
        grande = page.locator("#ordago-body tr[data-lance=grande]")
        expect(grande).to_contain_text("Call", timeout=SLOW)
        expect(grande.locator("td.why")).to_have_text("tick the box above")
        page.get_by_label(re.compile("^Órdago against equilibrium opponents")).check()
        expect(grande.locator("td[data-eq=call]")).to_have_text("Don't call", timeout=3 * SLOW)
        expect(grande.locator("td[data-eq=answer]")).to_have_text("Refuse")
        assert page.errors == [], page.errors
    finally:
        page.close()


@pytest.mark.parametrize("width", [380, 1280])
def test_screenshot(browser, server, width):
    page = open_page(browser, server, width=width, height=900, fragment="#hand=R R 3 A&seat=mano")
    try:
        expect(cell(page, "grande", "p_team")).to_have_text("99.17 %", timeout=SLOW)
        expect(page.locator("#discard-body tr").first).to_be_visible(timeout=SLOW)
        expect(page.locator("#mus-advice")).not_to_be_empty(timeout=SLOW)
        expect(page.locator("#ordago-body td.yes").first).to_be_visible(timeout=SLOW)
        expect(page.locator("#chart")).to_be_visible(timeout=SLOW)
        expect(page.locator("#status")).to_have_text("Up to date.", timeout=SLOW)
        page.wait_for_timeout(300)  # the chart image decoded
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width  # no sideways scrolling
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"serve-{width}.png"), full_page=True)
        assert page.errors == [], page.errors
    finally:
        page.close()
