"""The practice table of ``musstats serve``: its API (FastAPI's test client) and its page in a
real browser (headless Chromium driven by Playwright, as in test_web_browser.py).

Expected values come from the rules: an action the tree does not allow at that point is
refused (``quiero`` when nobody has bet), a game ends when a team reaches the target; and from
the contract of the API: 4xx with one line and nothing changed, 404 for an unknown game, no
game visible from another.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from helpers import run_cli

pytest.importorskip("fastapi", reason="the web extra (FastAPI, uvicorn) is not installed")
try:
    import httpx2 as http  # noqa: F401 - the test client needs it
except ImportError:
    http = pytest.importorskip("httpx", reason="FastAPI's test client needs httpx2 (or httpx)")
from fastapi.testclient import TestClient  # noqa: E402

from musstats.analysis.practice import load_history  # noqa: E402
from musstats.web.app import create_app  # noqa: E402
from musstats.web.play import PlayStore  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(workers=2), raise_server_exceptions=False) as c:
        end = time.monotonic() + 300
        while c.get("/api/status").json()["serialised"] and time.monotonic() < end:
            time.sleep(0.1)
        yield c


def new(client, **body) -> tuple[str, dict]:
    r = client.post("/api/play", json=body)
    assert r.status_code == 201, r.text
    d = r.json()
    return d["id"], d["state"]


def one_line_error(r, status: int) -> str:
    assert r.status_code == status, (r.status_code, r.text)
    msg = r.json()["error"]
    assert "\n" not in msg and "Traceback" not in msg
    return msg


def play_hand(client, gid: str, st: dict) -> dict:
    """Play to the end of the hand with the first legal action (the first card in the discard)."""
    for _ in range(200):
        if st["hand_over"]:
            return st
        turn = st["turn"]
        body = {"action": "throw", "cards": st["cards"][0]["label"]} if turn["phase"] == "discard" else \
            {"action": turn["actions"][0]}
        r = client.post(f"/api/play/{gid}/act", json=body)
        assert r.status_code == 200, r.text
        st = r.json()
    raise AssertionError("the hand did not end")


def test_a_new_game_waits_for_your_turn(client):
    gid, st = new(client, seed=3, target=30)
    assert len(gid) >= 20 and st["target"] == 30 and len(st["cards"]) == 4
    assert st["your_turn"] and st["turn"]["actions"]
    assert st["events"][0]["kind"] == "deal"
    assert client.get(f"/api/play/{gid}").json()["turn"] == st["turn"]


def test_an_illegal_action_is_a_4xx_and_changes_nothing(client):
    gid, st = new(client, seed=5)
    before = client.get(f"/api/play/{gid}").json()
    legal = st["turn"]["actions"]
    bad = "quiero" if "quiero" not in legal else "envido 2"
    msg = one_line_error(client.post(f"/api/play/{gid}/act", json={"action": bad}), 400)
    assert "not legal" in msg or "may say" in msg
    one_line_error(client.post(f"/api/play/{gid}/act", json={"action": "envido 7"}), 400)
    one_line_error(client.post(f"/api/play/{gid}/next"), 400)  # the hand is not over
    one_line_error(client.post(f"/api/play/{gid}/act", json={"action": 3}), 422)
    one_line_error(client.post(f"/api/play/{gid}/act", json={"action": "paso", "extra": 1}), 422)
    one_line_error(client.post("/api/play", json={"target": 50}), 400)
    assert client.get(f"/api/play/{gid}").json() == before


def test_an_unknown_game_is_a_404(client):
    for method, path in (("GET", "/api/play/nope"), ("POST", "/api/play/nope/next"),
                         ("GET", "/api/play/nope/hint"), ("GET", "/api/play/nope/review"),
                         ("GET", "/api/play/nope/history"), ("DELETE", "/api/play/nope")):
        one_line_error(client.request(method, path), 404)
    one_line_error(client.post("/api/play/nope/act", json={"action": "paso"}), 404)


def test_two_games_never_see_each_other(client):
    a, sa = new(client, seed=9)
    b, sb = new(client, seed=9)
    assert a != b
    before_b = client.get(f"/api/play/{b}").json()
    play_hand(client, a, sa)
    assert client.get(f"/api/play/{b}").json() == before_b  # same seed, same deal, untouched
    assert client.delete(f"/api/play/{a}").status_code == 200
    one_line_error(client.get(f"/api/play/{a}"), 404)
    assert client.get(f"/api/play/{b}").status_code == 200


def test_games_are_bounded_in_number_and_age(client):
    store: PlayStore = client.app.state.play
    old = (store.max_games, store.max_idle)
    try:
        store.max_games = 2
        ids = [new(client, seed=i)[0] for i in range(3)]
        one_line_error(client.get(f"/api/play/{ids[0]}"), 404)  # the oldest went first
        assert client.get(f"/api/play/{ids[2]}").status_code == 200
        assert client.get("/api/play").json()["games"] <= 2
        store.max_idle = 0.05
        time.sleep(0.1)
        one_line_error(client.get(f"/api/play/{ids[2]}"), 404)
    finally:
        store.max_games, store.max_idle = old


def test_hint_review_and_history(client, capsys, tmp_path):
    gid, st = new(client, seed=12)
    h = client.get(f"/api/play/{gid}/hint")
    assert h.status_code == 200, h.text
    hint = h.json()
    assert hint["phase"] == st["turn"]["phase"] and hint["best"] in (
        st["turn"]["actions"] if hint["phase"] != "discard" else hint["options"])
    st = play_hand(client, gid, st)
    one_line_error(client.get(f"/api/play/{gid}/hint"), 400)  # not your turn: the hand is over
    assert st["shown"] and st["count"]["stones"]
    r = client.get(f"/api/play/{gid}/review")
    assert r.status_code == 200, r.text
    rv = r.json()
    assert rv["hand"]["rows"] and rv["game_review"]["decisions"] == rv["hand"]["decisions"]
    hist = client.get(f"/api/play/{gid}/history")
    assert "attachment" in hist.headers["content-disposition"]
    p = tmp_path / "web.json"
    p.write_text(hist.text, encoding="utf-8")
    assert len(load_history(p).hands()) == 1
    code, out, err = run_cli(capsys, ["review", str(p), "--format", "json"])
    assert code == 0, err
    cli = json.loads(out)
    assert cli["review"]["loss"] == rv["game_review"]["loss"]
    assert cli["hands"][0]["rows"] == rv["hand"]["rows"]


def test_a_whole_game_through_the_api(client):
    gid, st = new(client, seed=1, target=30)
    for _ in range(60):
        st = play_hand(client, gid, st)
        if st["game_over"]:
            break
        r = client.post(f"/api/play/{gid}/next")
        assert r.status_code == 200
        st = r.json()
    assert st["game_over"] and st["match_over"] and max(st["score"].values()) >= 30
    one_line_error(client.post(f"/api/play/{gid}/next"), 400)  # a single game: over


# ---------------------------------------------------------------------------- the page in a browser

from test_web_browser import ARTIFACTS, OVERFLOW_JS, SLOW, browser, expect, server  # noqa: E402,F401


def open_play(context, server, width=1280):
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(server + "play")
    return page


def start(page, target="30", seed=None):
    expect(page.locator("#actions button").first).to_be_visible(timeout=SLOW)  # the game the page opened with
    page.locator("#pace").select_option("0")  # the bots at once
    page.locator("#new-target").select_option(target)
    if seed is not None:
        page.locator("#new-seed").fill(str(seed))
    page.locator("#new-btn").click()


def step(page, asked_mus: list) -> str:
    """One click of the player: returns what was done ('over' at the end of the game)."""
    expect(page.locator("#actions button").first).to_be_visible(timeout=SLOW)
    if page.locator("#again-btn").count():
        return "over"
    if page.locator("#next-btn").count():
        expect(page.locator("#review-total")).to_be_visible(timeout=SLOW)  # reviewed before the next hand
        page.locator("#next-btn").click()
        expect(page.locator("#next-btn")).to_have_count(0, timeout=SLOW)  # the next hand is dealt
        return "next"
    if page.locator("#throw-btn").count():
        page.locator("#my-cards button").first.click()
        page.locator("#throw-btn").click()
        return "throw"
    acts = [b.get_attribute("data-action") for b in page.locator("#actions button.act").all()]
    if "mus" in acts:
        choice = "mus" if not asked_mus else "corto"
        asked_mus.append(1)
    else:
        choice = next((a for a in ("órdago", "quiero") if a in acts), acts[0])
    page.locator(f'#actions button[data-action="{choice}"]').click()
    return choice


def test_the_page_plays_a_whole_game_and_its_history_reviews_the_same(browser, server, tmp_path, capsys):
    context = browser.new_context(locale="en-US", accept_downloads=True)
    page = open_play(context, server)
    try:
        start(page, seed=17)
        asked: list = []
        done = []
        for _ in range(400):
            d = step(page, asked)
            done.append(d)
            if d == "over":
                break
        assert done[-1] == "over", done[-20:]
        expect(page.locator("#game-loss")).to_be_visible(timeout=SLOW)
        expect(page.locator("#prompt")).to_have_text(re.compile(r"The (game|match) is over: (we|they) win\."))
        decisions = int(page.locator("#game-decisions").inner_text())
        loss = float(page.locator("#game-loss").inner_text())
        with page.expect_download() as dl:
            page.locator("#save-btn").click()
        path = tmp_path / "saved.json"
        dl.value.save_as(str(path))
        rec = load_history(path)
        assert rec.games[0].winner() in ("us", "them") and max(rec.games[0].score()) >= 30
        code, out, err = run_cli(capsys, ["review", str(path), "--format", "json"])
        assert code == 0, err
        r = json.loads(out)["review"]
        assert r["decisions"] == decisions and f"{r['loss']:.3f}" == f"{loss:.3f}"
        assert page.errors == [], page.errors
    finally:
        page.close()
        context.close()


def test_two_tabs_play_two_games(browser, server):
    context = browser.new_context(locale="en-US")
    try:
        a, b = open_play(context, server), open_play(context, server)
        for p in (a, b):
            expect(p.locator("#actions button").first).to_be_visible(timeout=SLOW)
        ida = a.evaluate("sessionStorage.getItem('musstats-play-id')")
        idb = b.evaluate("sessionStorage.getItem('musstats-play-id')")
        assert ida and idb and ida != idb
        a.reload()  # a tab keeps its own game
        expect(a.locator("#actions button").first).to_be_visible(timeout=SLOW)
        assert a.evaluate("sessionStorage.getItem('musstats-play-id')") == ida
    finally:
        context.close()


@pytest.mark.parametrize("width,locale", [(380, "es-ES"), (1280, "en-US")])
def test_layout_and_screenshots(browser, server, width, locale):
    context = browser.new_context(locale=locale)
    page = open_play(context, server, width)
    try:
        start(page, target="40", seed=2)
        asked: list = []
        for _ in range(60):  # to the end of the first hand: the review is drawn
            expect(page.locator("#actions button").first).to_be_visible(timeout=SLOW)
            if page.locator("#next-btn").count() or page.locator("#again-btn").count():
                break
            step(page, asked)
        expect(page.locator("#review-total")).to_be_visible(timeout=SLOW)
        if locale.startswith("es"):
            expect(page.locator("#review-h")).to_have_text("Repaso de la mano")
        got = page.evaluate(OVERFLOW_JS)
        assert got["scrollWidth"] <= width, got
        assert got["wide"] == [], got["wide"]
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"play-{width}.png"), full_page=True)
        assert page.errors == [], page.errors
    finally:
        page.close()
        context.close()
