"""The page on a phone (390x844, real headless Chromium) for people who use a keyboard or a screen
reader, read it at a glance, or lose the server: tab roles and arrow keys, the score in a live
region, tiles as buttons, focus that shows, numbers on the photo in screen pixels, errors beside
the control that caused them, a game store that cannot be written, and axe-core's check of every
tab (tests/fixtures/axe.min.js, axe-core 4.14.1, MPL-2.0: see tests/fixtures/axe-core.NOTICE).

The server runs in this process; photo answers are served by the test (no tile models needed).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest

from test_browser import ROOT, _expect, _watch_errors, pytestmark  # noqa: F401
from test_browser_live import phone_browser, phone_page, serve_in_process, shot

AXE = ROOT / "tests" / "fixtures" / "axe.min.js"
PHOTO_W, PHOTO_H = 4032, 3024  # a phone's landscape photo, as the server reports its size


def _tile(tid, x, y, w, h, pips, **extra):
    return {"id": tid, "pips": pips, "corners": [[x, y], [x + w, y], [x + w, y + h], [x, y + h]], "status": "ok",
            "pip_confidence": 0.9, **extra}


TILES = [_tile(0, 600, 700, 300, 600, [6, 4]), _tile(1, 2400, 1500, 200, 400, [5, 2]),
         _tile(2, 3200, 600, 300, 600, [3, 1], pip_confidence=0.3)]


def _hand(tiles=TILES, score=None) -> dict:
    total = sum(sum(t["pips"]) for t in tiles if t["pips"])
    return {"hand_id": "h1", "image": "x.jpg", "width": PHOTO_W, "height": PHOTO_H, "set": 9, "seconds": 0.4,
            "tiles": tiles, "face_down": 0, "total": total, "score": total if score is None else score,
            "house_rules": {"double_blank_value": 0}, "warnings": []}


def _json(route, body, status=200):
    route.fulfill(status=status, content_type="application/json", body=json.dumps(body))


@pytest.fixture(scope="module")
def photo(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("photos") / "table.jpg"
    cv2.imwrite(str(path), np.full((1200, 1600, 3), (90, 120, 60), np.uint8))
    return path


@pytest.fixture(scope="module")
def browser():
    with phone_browser() as b:
        yield b


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    from service.app import create_app
    from service.deps import Settings

    home = tmp_path_factory.mktemp("access_server")
    with serve_in_process(create_app(Settings(db_path=home / "g.sqlite3"))) as url:
        yield url


def _game(base, players=("Ann", "Bob"), rounds=()) -> str:
    gid = httpx.post(f"{base}/api/v1/games", json={"players": list(players)}).json()["id"]
    for i, points in enumerate(rounds):
        httpx.post(f"{base}/api/v1/games/{gid}/rounds", json={"hands": list(points), "index": i}).raise_for_status()
    return gid


def _open_game(page, base, gid):
    page.click("nav button[data-tab=game]")
    _expect(page.locator(f"#game-select option[value='{gid}']")).to_have_count(1)
    page.select_option("#game-select", gid)
    _expect(page.locator("#game-view")).to_be_visible()


def _no_browser_dialogs(page) -> list[str]:
    seen: list[str] = []
    page.on("dialog", lambda d: (seen.append(f"{d.type}: {d.message}"), d.dismiss()))
    return seen


def _serious_axe_violations(page) -> list[str]:
    found = page.evaluate("""async () => {
        const result = await axe.run(document, { resultTypes: ["violations"] });
        return result.violations.map((v) => ({ id: v.id, impact: v.impact,
            where: v.nodes.slice(0, 3).map((n) => n.target.join(" ") + ": " + (n.failureSummary || "").split("\\n")[1]) }));
    }""")
    return [f"{v['id']} ({v['impact']}): {v['where']}" for v in found if v["impact"] in ("serious", "critical")]


# -- tabs, live score, tiles as buttons, focus ------------------------------------------------------

def test_tabs_are_a_tablist_with_arrow_keys_and_the_score_is_announced(browser, base, tmp_path, photo):
    with phone_page(browser) as page:
        errors = _watch_errors(page)
        page.route("**/api/v1/score", lambda r: _json(r, _hand()))
        page.goto(base + "/")
        hand_tab = page.locator("nav [role=tab][data-tab=hand]")
        _expect(page.locator("nav")).to_have_attribute("role", "tablist")
        _expect(hand_tab).to_have_attribute("aria-controls", "tab-hand")
        _expect(page.locator("#tab-hand")).to_have_attribute("role", "tabpanel")
        _expect(page.locator("#tab-hand")).to_have_attribute("aria-labelledby", hand_tab.get_attribute("id") or "?")
        _expect(page.locator("nav [role=tab][tabindex='0']")).to_have_count(1)  # one stop in the Tab order

        hand_tab.focus()
        page.keyboard.press("ArrowRight")
        table_tab = page.locator("nav [role=tab][data-tab=table]")
        _expect(table_tab).to_be_focused()
        _expect(table_tab).to_have_attribute("aria-selected", "true")
        _expect(page.locator("#tab-table")).to_be_visible()
        page.keyboard.press("End")
        _expect(page.locator("nav [role=tab][data-tab=study]")).to_have_attribute("aria-selected", "true")
        page.keyboard.press("ArrowRight")  # round to the first
        _expect(hand_tab).to_have_attribute("aria-selected", "true")
        _expect(hand_tab).to_have_attribute("tabindex", "0")
        _expect(table_tab).to_have_attribute("tabindex", "-1")
        # the focus ring is there to see, on the green header too
        ring = page.eval_on_selector(":focus", "el => [getComputedStyle(el).outlineStyle, getComputedStyle(el).outlineWidth]")
        assert ring[0] == "solid" and float(ring[1].rstrip("px")) >= 3, ring
        shot(page, tmp_path, "tabs-focus")

        # the score is read out when it arrives; each tile read is a button that opens the fixer
        page.set_input_files("#hand-photo", str(photo))
        _expect(page.locator("#hand-score")).to_have_text("21")
        region = page.locator("#hand-score").locator("xpath=ancestor-or-self::*[@aria-live][1]")
        _expect(region).to_have_attribute("aria-live", "polite")
        _expect(region).to_contain_text("Score")
        chips = page.locator("#hand-chips button")
        _expect(chips).to_have_text(["6-4", "5-2", "3-1"])
        chips.nth(1).focus()
        page.keyboard.press("Enter")
        _expect(page.locator("#tile-dialog")).to_be_visible()
        _expect(page.locator("#tile-a")).to_have_value("5")
        page.keyboard.press("Escape")
        assert not errors, errors


def test_a_round_photos_tiles_are_buttons_too(browser, base, tmp_path, photo):
    gid = _game(base, players=("Cy", "Di"))
    with phone_page(browser) as page:
        errors = _watch_errors(page)
        page.route("**/api/v1/score", lambda r: _json(r, _hand(TILES[:2])))
        page.goto(base + "/")
        _open_game(page, base, gid)
        page.set_input_files(".player-row[data-seat='0'] input[type=file]", str(photo))
        chips = page.locator(".player-row[data-seat='0'] .chips button")
        _expect(chips).to_have_text(["6-4", "5-2"])
        chips.first.focus()
        page.keyboard.press("Enter")
        _expect(page.locator("#tile-dialog")).to_be_visible()
        _expect(page.locator("#tile-b")).to_have_value("4")
        page.keyboard.press("Escape")
        assert not errors, errors


# -- the numbers on the photo are sized for the screen, and open the fixer --------------------------

def test_tile_numbers_on_a_big_photo_stay_readable_and_open_the_fixer(browser, base, tmp_path, photo):
    fixed = _hand([{**TILES[0], "pips": [6, 5], "corrected": True}, *TILES[1:]])
    with phone_page(browser) as page:
        errors = _watch_errors(page)
        page.route("**/api/v1/score", lambda r: _json(r, _hand()))
        page.route("**/api/v1/hands/h1/tiles/0", lambda r: _json(r, fixed))
        page.goto(base + "/")
        page.set_input_files("#hand-photo", str(photo))
        _expect(page.locator("#hand-score")).to_have_text("21")
        labels = page.locator("#hand-result .photo-wrap text")
        _expect(labels.first).to_have_text("6")
        shown = page.eval_on_selector("#hand-img", "img => img.getBoundingClientRect().width")
        assert shown <= 390
        heights = [box["height"] for box in (labels.nth(i).bounding_box() for i in range(labels.count()))]
        assert min(heights) >= 14, f"labels {heights} px tall on a photo shown {shown:.0f} px wide"
        _expect(labels).to_have_text(["6", "4", "5-2", "3", "1"])  # a tile too small on screen for two gets one
        shot(page, tmp_path, "hand-labels")
        page.locator("#hand-result .photo-wrap text", has_text="6").first.click()  # a finger on a number
        _expect(page.locator("#tile-dialog")).to_be_visible()
        page.fill("#tile-b", "5")
        page.click("#tile-save")
        _expect(page.locator("#hand-chips button").first).to_have_text("6-5")
        _expect(labels.first).to_have_text("6")
        _expect(labels.nth(1)).to_have_text("5")
        assert not errors, errors


# -- errors beside their control, in plain words -----------------------------------------------------

def test_a_server_that_went_away_is_said_in_plain_words_beside_the_control(browser, base, tmp_path, photo):
    gid = _game(base, players=("Eve", "Fin"))
    unreachable = "Could not reach the server: check that chickenfoot serve is still running."
    with phone_page(browser) as page:
        dialogs = _no_browser_dialogs(page)
        crashes: list[str] = []
        page.on("pageerror", lambda e: crashes.append(str(e)))
        page.route("**/api/v1/score", lambda r: _json(r, _hand()))
        page.goto(base + "/")
        page.set_input_files("#hand-photo", str(photo))
        _expect(page.locator("#hand-score")).to_have_text("21")
        page.route("**/api/v1/hands/**", lambda r: r.abort("internetdisconnected"))
        page.click("#hand-chips button >> nth=0")
        page.click("#tile-save")
        _expect(page.locator("#hand-status")).to_have_text(unreachable)  # under the photo it was about

        _open_game(page, base, gid)
        page.route("**/api/v1/games/**", lambda r: r.abort("connectionrefused") if r.request.method != "GET"
                   else r.continue_())
        page.fill("[aria-label='points for Eve']", "7")
        page.fill("[aria-label='points for Fin']", "0")
        page.click("#round-record")
        status = page.locator("#round-status")
        _expect(status).to_have_text(unreachable)
        _expect(status).to_have_class("status error")
        _expect(page.locator("#round-record")).to_be_enabled()
        # right under the button that was tapped, in view
        button, said = page.locator("#round-record").bounding_box(), status.bounding_box()
        assert 0 <= said["y"] - (button["y"] + button["height"]) < 40, (button, said)
        shot(page, tmp_path, "round-unreachable")

        page.click("#game-new-toggle")
        page.route("**/api/v1/games", lambda r: r.abort("connectionrefused"))
        page.click("#game-start")
        _expect(page.locator("#new-status")).to_have_text(unreachable)
        page.click("#game-delete")
        page.click("#confirm-yes")
        _expect(page.locator("#delete-status")).to_have_text(unreachable)
        assert "Failed to fetch" not in page.inner_text("body")
        assert not dialogs and not crashes, dialogs + crashes


# -- a game store that cannot be written ------------------------------------------------------------

def test_a_game_store_that_cannot_be_written_is_shown_and_writing_turned_off(browser, tmp_path):
    from service.app import create_app
    from service.deps import Settings

    store = tmp_path / "store"
    with serve_in_process(create_app(Settings(db_path=store / "g.sqlite3"))) as url:
        gid = _game(url, players=("Gil", "Hy"), rounds=[(4, 0)])
        with phone_page(browser) as page:
            page.goto(url + "/")
            _open_game(page, url, gid)
            _expect(page.locator("#storage-banner")).to_be_hidden()
            _expect(page.locator("#round-record")).to_be_enabled()

            shutil.rmtree(store)  # the folder is deleted under the running server
            page.fill("[aria-label='points for Gil']", "3")
            page.fill("[aria-label='points for Hy']", "0")
            page.click("#round-record")  # refused (503): the page asks for the store's health
            banner = page.locator("#storage-banner")
            _expect(page.locator("#round-status")).to_contain_text("game store is gone", timeout=15_000)
            _expect(banner).to_be_visible(timeout=15_000)  # two round trips on a busy machine
            _expect(banner).to_contain_text("The game store is gone")
            for button in ("#round-record", "#game-delete", "#game-start"):
                _expect(page.locator(button)).to_be_disabled()
            shot(page, tmp_path, "store-gone")

            page.reload()  # and on load, before anything is tried
            page.click("nav button[data-tab=game]")
            _expect(page.locator("#storage-banner")).to_contain_text("The game store is gone", timeout=15_000)
            _expect(page.locator("#game-start")).to_be_disabled()


# -- axe-core on every tab ---------------------------------------------------------------------------

def test_axe_finds_nothing_serious_on_any_tab(browser, base, tmp_path, photo):
    gid = _game(base, players=("Ivy", "Jon", "Kat"), rounds=[(10, 0, 4), (0, 3, 8)])
    audit = {"tiles": TILES, "width": PHOTO_W, "height": PHOTO_H, "set": 9, "warnings": [],
             "violations": [{"rule": "ends_do_not_match", "message": "6-4 touches 5-2 with 4 against 5", "tiles": [0, 1]}],
             "open_ends": [{"tile": 2, "value": 1, "free": 1, "playable_now": True}]}
    with phone_page(browser) as page:
        errors = _watch_errors(page)
        page.add_init_script(path=str(AXE))  # as a script the browser adds itself: the page's policy allows no other
        page.route("**/api/v1/score", lambda r: _json(r, _hand()))
        page.route("**/api/v1/audit", lambda r: _json(r, audit))
        page.goto(base + "/")
        found = {}
        page.set_input_files("#hand-photo", str(photo))
        _expect(page.locator("#hand-score")).to_have_text("21")
        found["hand"] = _serious_axe_violations(page)
        page.click("nav button[data-tab=table]")
        page.set_input_files("#table-photo", str(photo))
        _expect(page.locator("#table-violations li")).to_have_count(1)
        found["table"] = _serious_axe_violations(page)
        _open_game(page, base, gid)
        page.click("#game-new-toggle")
        found["game"] = _serious_axe_violations(page)
        shot(page, tmp_path, "game-tab")
        page.click("nav button[data-tab=live]")
        found["live"] = _serious_axe_violations(page)
        page.click("nav button[data-tab=study]")
        page.click("#stats-stored")
        _expect(page.locator("#stats-table")).to_be_visible()
        found["study"] = _serious_axe_violations(page)
        assert not any(found.values()), found
        assert not errors, errors
