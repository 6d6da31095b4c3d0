"""The page on a phone (390x844, real headless Chromium): the end of a game, the confirmation of a
recorded round, the score sheet scrolled sideways, the Table tab's findings ringed on the photo,
and zooming a photo.

The server runs in this process; photo answers are served by the test (no tile models needed).
Screenshots of the states reached go to $CHICKENFOOT_SHOTS when it names a folder, else to the
test's tmp dir.
"""
from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest

from test_browser import _expect, _watch_errors, pytestmark  # noqa: F401
from test_browser_live import phone_browser, phone_page, serve_in_process

PHOTO_W, PHOTO_H = 1600, 1200
ACCENT, WARN = "rgb(31, 111, 74)", "rgb(181, 71, 8)"  # app.css --accent and --warn


def _shot(page, tmp_path: Path, name: str) -> None:
    folder = Path(os.environ.get("CHICKENFOOT_SHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def _json(route, body, status=200):
    route.fulfill(status=status, content_type="application/json", body=json.dumps(body))


def _tile(tid, x, y, w, h, pips):
    """A tile's box in photo pixels, its corners listed from one short end as the reader gives them."""
    corners = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]
    if w > h:
        corners = corners[3:] + corners[:3]
    return {"id": tid, "pips": pips, "corners": corners, "face_down": False}


TILES = [_tile(0, 200, 200, 200, 400, [6, 4]), _tile(1, 400, 300, 400, 200, [5, 2]),
         _tile(2, 1100, 600, 200, 400, [3, 1])]
# what the server drew: a picture with words of its own, which the page no longer shows
ANNOTATED = "data:image/jpeg;base64," + base64.b64encode(
    cv2.imencode(".jpg", np.zeros((PHOTO_H, PHOTO_W, 3), np.uint8))[1].tobytes()).decode()


def _audit(violations=(), ends=()) -> dict:
    return {"tiles": TILES, "width": PHOTO_W, "height": PHOTO_H, "set": 9, "warnings": [],
            "violations": list(violations), "open_ends": list(ends), "annotated_image": ANNOTATED}


@pytest.fixture(scope="module")
def photo(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("photos") / "table.jpg"
    cv2.imwrite(str(path), np.full((PHOTO_H, PHOTO_W, 3), (90, 120, 60), np.uint8))
    return path


@pytest.fixture(scope="module")
def browser():
    with phone_browser() as b:
        yield b


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    from service.app import create_app
    from service.deps import Settings

    home = tmp_path_factory.mktemp("finish_server")
    with serve_in_process(create_app(Settings(db_path=home / "g.sqlite3"))) as url:
        yield url


def _game(base, players, rounds=(), **extra) -> str:
    made = httpx.post(f"{base}/api/v1/games", json={"players": list(players), **extra})
    made.raise_for_status()
    gid = made.json()["id"]
    for i, points in enumerate(rounds):
        hands = [{"points": p} for p in points]
        httpx.post(f"{base}/api/v1/games/{gid}/rounds", json={"hands": hands, "index": i}).raise_for_status()
    return gid


def _open_game(page, base, gid):
    page.goto(base + "/")
    page.click("nav button[data-tab=game]")
    _expect(page.locator(f"#game-select option[value='{gid}']")).to_have_count(1)
    page.select_option("#game-select", gid)
    _expect(page.locator("#game-view")).to_be_visible()


def _box(locator) -> dict:
    box = locator.bounding_box()
    assert box is not None, "not shown"
    return box


# -- the end of a game --------------------------------------------------------------------------

def test_the_last_round_ends_the_game_and_says_who_won_and_how_the_tie_was_broken(browser, base, tmp_path):
    # a double-6 game has 7 rounds; six are in. Ann and Bob will tie on points (Ann has more
    # rounds at zero); Cy and Dee tie on everything and share a place.
    six = [(0, 5, 30, 30), (0, 5, 30, 30), (10, 5, 30, 30), (10, 5, 30, 30), (0, 0, 30, 30), (0, 0, 30, 30)]
    gid = _game(base, ("Ann", "Bob", "Cy", "Dee"), six, set=6, house_rules={"hand_size": 5})
    with phone_page(browser) as page:
        errors = _watch_errors(page)
        _open_game(page, base, gid)
        _expect(page.locator("#game-over")).to_be_hidden()
        for name, points in zip(("Ann", "Bob", "Cy", "Dee"), (3, 3, 0, 0)):
            page.fill(f"[aria-label='points for {name}']", str(points))
        page.click("#round-record")
        over = page.locator("#game-over")
        _expect(over).to_be_visible()
        _expect(over).to_contain_text("Game over")
        _expect(page.locator("#game-winner")).to_have_text(
            "Ann wins the tie on 23 points with Bob by having the most rounds at zero (4 against 2).")
        _expect(page.locator("#game-ties li")).to_have_text(["Cy and Dee tied on 180 points. Places: Cy and Dee share 3rd."])
        _expect(page.locator("#game-over-note")).to_have_text("Round 7 recorded: that was the last round.")
        _expect(over).to_be_in_viewport()
        _expect(page.locator("#sheet tfoot tr").nth(1).locator("td")).to_have_text(["Place", "1", "2", "3", "3"])
        # no further round: the form is gone, and the server would refuse one anyway
        _expect(page.locator("#round-form")).to_be_hidden()
        _expect(page.locator("#round-record")).to_be_hidden()
        refused = httpx.post(f"{base}/api/v1/games/{gid}/rounds", json={"hands": [{"points": 1}] * 4})
        assert refused.status_code == 409
        _shot(page, tmp_path, "game-over")

    # a finished game opened later: tied on points and on rounds at zero, the lowest single round decides
    gid = _game(base, ("Eve", "Fin"), [(0, 0), (3, 6), (7, 4), (5, 5), (5, 5), (5, 5), (5, 5)], set=6)
    with phone_page(browser) as page:
        _open_game(page, base, gid)
        _expect(page.locator("#game-winner")).to_have_text(
            "Eve wins the tie on 30 points with Fin: the same 1 round at zero as Fin, "
            "and the lowest single round (3 against 4).")
        _expect(page.locator("#round-form")).to_be_hidden()
        assert not errors, errors


def test_players_still_tied_after_both_tie_breaks_share_first_place(browser, base, tmp_path):
    gid = _game(base, ("Gil", "Hana", "Ike"), [(0, 0, 9), (3, 3, 9), (5, 5, 9), (2, 2, 9), (0, 0, 9), (1, 1, 9), (4, 4, 9)],
                set=6)
    with phone_page(browser) as page:
        errors = _watch_errors(page)
        _open_game(page, base, gid)
        _expect(page.locator("#game-winner")).to_have_text(
            "Gil and Hana share first place: 15 points, 2 rounds at zero and a lowest single round of 1 each.")
        _expect(page.locator("#game-ties")).to_be_hidden()
        _expect(page.locator("#sheet thead th.leader")).to_have_count(2)
        assert not errors, errors


# -- the score sheet on a phone, and the confirmation of a recorded round -----------------------------

def test_the_sheet_keeps_its_first_column_and_marks_the_leaders_and_a_recorded_round_is_confirmed_in_view(
        browser, base, tmp_path):
    names = ("Alexandra", "Bartholomew", "Cornelius", "Desdemona", "Evangeline", "Ferdinand")
    rounds = [(12, 0, 30, 4, 9, 20), (0, 12, 5, 8, 9, 7), (9, 5, 0, 11, 6, 3)]  # totals 21 17 35 23 24 30
    gid = _game(base, names, rounds, set=12)
    with phone_page(browser) as page:
        errors = _watch_errors(page)
        _open_game(page, base, gid)
        leader = page.locator("#sheet thead th.leader")
        _expect(leader).to_have_count(1)
        _expect(leader).to_contain_text("Bartholomew")
        _expect(page.locator("#sheet tfoot td.leader")).to_have_text(["17"])
        lit = page.eval_on_selector("#sheet tfoot td.leader", "el => getComputedStyle(el).backgroundColor")
        plain = page.eval_on_selector("#sheet tfoot td:last-child", "el => getComputedStyle(el).backgroundColor")
        assert lit != plain, "the leader's total looks like any other"
        _shot(page, tmp_path, "sheet-leader")

        # the sheet is wider than the phone: scrolled sideways, its first column stays put
        wrap = page.locator("#game-view .sheet-wrap").first
        assert page.eval_on_selector("#game-view .sheet-wrap", "el => el.scrollWidth > el.clientWidth + 100")
        first = page.locator("#sheet tbody tr").first.locator("td").first
        last = page.locator("#sheet tbody tr").first.locator("td").last
        before, last_before = _box(first), _box(last)
        page.eval_on_selector("#game-view .sheet-wrap", "el => { el.scrollLeft = 300; }")
        _expect(wrap).to_have_js_property("scrollLeft", 300)
        after, last_after = _box(first), _box(last)
        assert abs(last_before["x"] - last_after["x"] - 300) < 2, "the sheet did not scroll"
        assert abs(after["x"] - before["x"]) < 1, f"the first column moved from {before['x']} to {after['x']}"
        _shot(page, tmp_path, "sheet-scrolled")

        # a round recorded with the button at the bottom of the screen: the sheet grows above it, and
        # the confirmation still shows, right under the button
        for name, points in zip(names, (0, 10, 4, 2, 7, 6)):
            page.fill(f"[aria-label='points for {name}']", str(points))
        page.eval_on_selector("#round-record", "el => el.scrollIntoView({ block: 'end' })")
        page.click("#round-record")
        status = page.locator("#round-status")
        _expect(status).to_have_text("Round 4 recorded.")
        _expect(status).to_be_in_viewport(ratio=1)
        button, said = _box(page.locator("#round-record")), _box(status)
        assert 0 <= said["y"] - (button["y"] + button["height"]) < 40, (button, said)
        _expect(page.locator("#round-record")).to_be_in_viewport(ratio=1)
        _shot(page, tmp_path, "round-recorded")
        # Alexandra (21) now leads Bartholomew (27)
        _expect(leader).to_contain_text("Alexandra")
        assert not errors, errors


# -- the Table tab: findings ringed on the photo, numbers in screen pixels, and zoom ---------------------

def _on_screen(page, tile) -> dict:
    """Where a tile of the photo lies on the screen now (from the shown photo's box)."""
    img = _box(page.locator("#table-img"))
    sx, sy = img["width"] / PHOTO_W, img["height"] / PHOTO_H
    xs = [img["x"] + x * sx for x, _ in tile["corners"]]
    ys = [img["y"] + y * sy for _, y in tile["corners"]]
    return {"x0": min(xs), "y0": min(ys), "x1": max(xs), "y1": max(ys)}


def _rings_round(page, ring, tile) -> None:
    got, want = _box(ring), _on_screen(page, tile)
    # the ring lies just outside the tile's edges: a few screen pixels, whatever the zoom
    for edge, gap in (("x0", want["x0"] - got["x"]), ("y0", want["y0"] - got["y"]),
                      ("x1", got["x"] + got["width"] - want["x1"]), ("y1", got["y"] + got["height"] - want["y1"])):
        assert 2 <= gap <= 12, f"the ring's {edge} edge is {gap:.1f} px off tile {tile['id']} ({got} against {want})"


def test_table_findings_ring_their_tiles_and_the_photo_zooms_with_its_overlays(browser, base, tmp_path, photo):
    broken = _audit([{"rule": "ends_do_not_match", "message": "6-4 touches 5-2 with 4 against 5", "tiles": [0, 1]}],
                    [{"tile": 2, "value": 1, "free": 1, "playable_now": True}])
    answers = [broken, _audit()]
    with phone_page(browser) as page:
        errors = _watch_errors(page)
        page.route("**/api/v1/audit", lambda r: _json(r, answers.pop(0)))
        page.goto(base + "/")
        page.click("nav button[data-tab=table]")
        page.set_input_files("#table-photo", str(photo))
        chip = page.locator("#table-violations button")
        _expect(chip).to_have_text("6-4 touches 5-2 with 4 against 5")
        # the photo as taken (not the server's drawing), with the numbers drawn at screen size
        _expect(page.locator("#table-img")).to_have_attribute("src", re.compile(r"^blob:"))
        labels = page.locator("#table-result svg.labels text")
        _expect(labels).to_have_text(["6", "4", "5", "2", "3", "1"])
        assert min(_box(labels.nth(i))["height"] for i in range(6)) >= 14
        _expect(page.locator("#table-svg polygon.illegal")).to_have_count(2)  # the tiles breaking the rule, in red

        rings = page.locator("#table-result svg.labels .highlight")
        _expect(rings).to_have_count(0)
        chip.click()
        _expect(chip).to_have_attribute("aria-pressed", "true")
        _expect(rings).to_have_count(2)
        _rings_round(page, rings.nth(0), TILES[0])
        _rings_round(page, rings.nth(1), TILES[1])
        _shot(page, tmp_path, "table-violation-ringed")
        end = page.locator("#table-ends button")
        _expect(end).to_have_text(["1 (on 3-1)"])
        end.click()
        _expect(rings).to_have_count(1)
        _expect(chip).to_have_attribute("aria-pressed", "false")
        _rings_round(page, rings.first, TILES[2])

        # zoomed (the button, or a tap on the photo): twice the size, scrolled inside its frame,
        # the ring and the numbers still on their tiles
        fitted = _box(page.locator("#table-img"))
        page.click("#tab-table .zoom-btn")
        _expect(page.locator("#tab-table .zoom-btn")).to_have_attribute("aria-pressed", "true")
        zoomed = _box(page.locator("#table-img"))
        assert abs(zoomed["width"] - 2 * fitted["width"]) < 2, (fitted, zoomed)
        view = page.locator("#tab-table .zoom")
        assert page.eval_on_selector("#tab-table .zoom", "el => el.scrollWidth > el.clientWidth")
        view.evaluate("el => { el.scrollLeft = el.scrollWidth; }")  # the open end's tile is on the right
        _rings_round(page, rings.first, TILES[2])
        three = page.locator("#table-result svg.labels text", has_text="3")
        spot, tile = _box(three), _on_screen(page, TILES[2])
        assert tile["x0"] <= spot["x"] + spot["width"] / 2 <= tile["x1"]
        assert tile["y0"] <= spot["y"] + spot["height"] / 2 <= tile["y1"]
        assert _box(three)["height"] < 30, "the numbers grew with the photo instead of staying at screen size"
        _shot(page, tmp_path, "table-zoomed")
        view.click(position={"x": 20, "y": 20})  # a tap on the photo fits it again
        _expect(page.locator("#tab-table .zoom-btn")).to_have_attribute("aria-pressed", "false")
        assert abs(_box(page.locator("#table-img"))["width"] - fitted["width"]) < 2
        view.click(position={"x": 20, "y": 20})
        _expect(view).to_have_class(re.compile(r"\bzoomed\b"))

        # a layout with nothing against the rules says so calmly
        page.set_input_files("#table-photo", str(photo))
        calm = page.locator("#table-violations li")
        _expect(calm).to_have_text(["none"])
        _expect(view).not_to_have_class(re.compile(r"\bzoomed\b"))  # a new photo starts fitted
        colour = calm.evaluate("el => getComputedStyle(el).color")
        assert colour == ACCENT != WARN, colour
        _expect(rings).to_have_count(0)
        _shot(page, tmp_path, "table-clean")
        assert not errors, errors


def _hand(tiles) -> dict:
    total = sum(sum(t["pips"]) for t in tiles)
    return {"hand_id": "h1", "image": "x.jpg", "width": PHOTO_W, "height": PHOTO_H, "set": 9, "seconds": 0.3,
            "tiles": [{**t, "status": "ok", "pip_confidence": 0.9} for t in tiles], "face_down": 0,
            "total": total, "score": total, "house_rules": {"double_blank_value": 0}, "warnings": []}


def test_the_hand_photo_zooms_on_a_tap_or_a_pinch_and_a_tile_still_opens_the_fixer(browser, base, tmp_path, photo):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    try:
        page = context.new_page()
        errors = _watch_errors(page)
        page.route("**/api/v1/score", lambda r: _json(r, _hand(TILES)))
        page.goto(base + "/")
        page.set_input_files("#hand-photo", str(photo))
        _expect(page.locator("#hand-score")).to_have_text("21")
        view, img = page.locator("#tab-hand .zoom"), page.locator("#hand-img")
        fitted = _box(img)
        # a tap on a tile opens the fixer and does not zoom
        page.locator("#hand-svg polygon").first.tap()
        _expect(page.locator("#tile-dialog")).to_be_visible()
        page.keyboard.press("Escape")
        _expect(view).not_to_have_class(re.compile(r"\bzoomed\b"))
        # a tap beside the tiles zooms in twice, keeping the tapped spot under the finger
        spot = {"x": fitted["width"] * 0.8, "y": fitted["height"] * 0.2}
        img_spot = (fitted["x"] + spot["x"], fitted["y"] + spot["y"])
        page.touchscreen.tap(*img_spot)
        _expect(view).to_have_class(re.compile(r"\bzoomed\b"))
        zoomed = _box(img)
        assert abs(zoomed["width"] - 2 * fitted["width"]) < 2
        under = ((img_spot[0] - zoomed["x"]) / zoomed["width"], (img_spot[1] - zoomed["y"]) / zoomed["height"])
        assert abs(under[0] - 0.8) < 0.02 and abs(under[1] - 0.2) < 0.02, under
        labels = page.locator("#hand-result svg.labels text")
        assert max(_box(labels.nth(i))["height"] for i in range(labels.count())) < 30  # still screen-sized
        _shot(page, tmp_path, "hand-zoomed")
        page.touchscreen.tap(*img_spot)
        _expect(view).not_to_have_class(re.compile(r"\bzoomed\b"))

        # two fingers spread apart: the photo grows by as much (up to four times), not the page
        cdp = context.new_cdp_session(page)
        mid_x, mid_y = fitted["x"] + fitted["width"] / 2, fitted["y"] + fitted["height"] / 2

        def fingers(kind, apart):
            points = [] if kind == "touchEnd" else [
                {"x": mid_x - apart / 2, "y": mid_y, "id": 0}, {"x": mid_x + apart / 2, "y": mid_y, "id": 1}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        fingers("touchStart", 60)
        for apart in (80, 100, 120, 150):
            fingers("touchMove", apart)
        fingers("touchEnd", 0)
        _expect(view).to_have_class(re.compile(r"\bzoomed\b"))
        pinched = _box(img)
        assert abs(pinched["width"] / fitted["width"] - 2.5) < 0.05, pinched["width"] / fitted["width"]
        assert page.evaluate("() => visualViewport.scale") == 1
        outline, tile, sx = _box(page.locator("#hand-svg polygon").first), TILES[0], pinched["width"] / PHOTO_W
        centre = outline["x"] + outline["width"] / 2, outline["y"] + outline["height"] / 2
        want = pinched["x"] + 300 * sx, pinched["y"] + 400 * sx  # the middle of tile 0, grown with the photo
        assert abs(centre[0] - want[0]) < 2 and abs(centre[1] - want[1]) < 2, (centre, want, outline, tile)
        _expect(page.locator("#tab-hand .zoom-btn")).to_have_text("Fit")
        page.click("#tab-hand .zoom-btn")
        assert abs(_box(img)["width"] - fitted["width"]) < 2
        assert not errors, errors
    finally:
        context.close()
