"""The page at a phone's size (390x844) in real headless Chromium: fixing the sheet, re-scoring,
the open game's rules, slow answers, empty photos and double taps.

Shares `test_browser`'s server and Chromium; every test saves screenshots of the states it
reaches under its pytest tmp dir (never in git).
"""
from __future__ import annotations

import json
import re

import cv2
import httpx
import numpy as np
import pytest

from test_browser import _expect, _watch_errors, _write_y4m, chromium, pytestmark, server  # noqa: F401

# A hand as POST /score answers it, for answers the test serves itself.
FAKE_TILE = {"id": 0, "pips": [6, 6], "corners": [[10, 10], [60, 10], [60, 110], [10, 110]], "status": "ok"}


def _fake_hand(score: int, tiles: list) -> str:
    return json.dumps({
        "hand_id": "fake", "image": "x.jpg", "width": 640, "height": 480, "set": 9, "seconds": 0.1,
        "tiles": tiles, "face_down": 0, "total": sum(sum(t["pips"]) for t in tiles), "score": score,
        "house_rules": {"double_blank_value": 0}, "warnings": [],
    })


@pytest.fixture(scope="module")
def hand_photo(tmp_path_factory):
    from lab.synth.scene import render_hand

    path = tmp_path_factory.mktemp("photos") / "hand.jpg"
    cv2.imwrite(str(path), render_hand(np.random.default_rng(21), (1280, 960)).image)
    return path


@pytest.fixture(scope="module")
def plain_photo(tmp_path_factory):
    path = tmp_path_factory.mktemp("photos") / "plain.jpg"
    cv2.imwrite(str(path), np.full((480, 640, 3), 128, np.uint8))
    return path


def _game(server, players=("Ann", "Bob", "Cy"), rounds=(), **extra) -> str:
    gid = httpx.post(f"{server}/api/v1/games", json={"players": list(players), **extra}).json()["id"]
    for i, points in enumerate(rounds):
        httpx.post(f"{server}/api/v1/games/{gid}/rounds", json={"hands": list(points), "index": i}).raise_for_status()
    return gid


def _sheet(server, gid):
    return httpx.get(f"{server}/api/v1/games/{gid}/sheet").json()


def _no_browser_dialogs(page) -> list[str]:
    """alert()/confirm() would stop a phone's page; the page asks in its own dialogs."""
    seen: list[str] = []

    def dismiss(d):
        seen.append(f"{d.type}: {d.message}")
        d.dismiss()

    page.on("dialog", dismiss)
    return seen


def _open_game(page, server, gid):
    page.goto(server + "/")
    page.click("nav button[data-tab=game]")
    _expect(page.locator(f"#game-select option[value='{gid}']")).to_have_count(1)
    page.select_option("#game-select", gid)
    _expect(page.locator("#game-view")).to_be_visible()


# -- 1. a round or a game can be fixed or removed -----------------------------------

def test_a_sheet_cell_is_edited_and_the_last_round_deleted(server, tmp_path):
    gid = _game(server, rounds=[(52, 0, 10), (3, 4, 0)])
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        dialogs = _no_browser_dialogs(page)
        _open_game(page, server, gid)
        page.screenshot(path=str(tmp_path / "sheet.png"))
        page.click("#sheet tbody td[data-round='0'][data-seat='0']")
        _expect(page.locator("#round-dialog")).to_be_visible()
        _expect(page.locator("#round-delete")).to_be_hidden()  # not the last round
        page.fill("#round-edit-players label:nth-child(1) input", "25")
        page.screenshot(path=str(tmp_path / "round-edit.png"))
        page.click("#round-save")
        _expect(page.locator("#sheet tbody td[data-round='0'][data-seat='0']")).to_have_text("25")
        _expect(page.locator("#game-status")).to_have_text("Round 1 changed.")
        assert _sheet(server, gid)["rounds"][0]["scores"] == [25, 0, 10]

        page.click("#sheet tbody td[data-round='1'][data-seat='2']")
        page.click("#round-delete")
        _expect(page.locator("#confirm-dialog")).to_be_visible()
        page.screenshot(path=str(tmp_path / "round-delete-confirm.png"))
        page.click("#confirm-no")  # kept
        assert len(_sheet(server, gid)["rounds"]) == 2
        page.click("#sheet tbody td[data-round='1'][data-seat='2']")
        page.click("#round-delete")
        page.click("#confirm-yes")
        _expect(page.locator("#sheet tbody tr")).to_have_count(1)
        assert len(_sheet(server, gid)["rounds"]) == 1
        assert not errors and not dialogs, errors + dialogs


def test_a_game_is_deleted_after_the_page_asks(server, tmp_path):
    gid = _game(server, players=("Dee", "Eve"), rounds=[(5, 0)])
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        dialogs = _no_browser_dialogs(page)
        _open_game(page, server, gid)
        page.click("#game-delete")
        _expect(page.locator("#confirm-text")).to_contain_text("Dee, Eve")
        page.screenshot(path=str(tmp_path / "game-delete-confirm.png"))
        page.click("#confirm-yes")
        _expect(page.locator("#game-status")).to_have_text("Game deleted.")
        _expect(page.locator("#game-view")).to_be_hidden()
        assert httpx.get(f"{server}/api/v1/games/{gid}").status_code == 404
        _expect(page.locator(f"#game-select option[value='{gid}']")).to_have_count(0)
        assert not errors and not dialogs, errors + dialogs


def test_a_round_of_all_zeros_is_questioned_before_it_is_recorded(server, tmp_path):
    gid = _game(server, players=("Fay", "Gus"))
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        dialogs = _no_browser_dialogs(page)
        _open_game(page, server, gid)
        page.fill("[aria-label='points for Fay']", "0")
        page.fill("[aria-label='points for Gus']", "0")
        page.click("#round-record")
        _expect(page.locator("#confirm-dialog")).to_be_visible()
        _expect(page.locator("#confirm-text")).to_contain_text("Every player scored 0")
        page.screenshot(path=str(tmp_path / "zero-round.png"))
        assert _sheet(server, gid)["rounds"] == []  # not yet
        page.click("#confirm-no")
        assert _sheet(server, gid)["rounds"] == []
        page.click("#round-record")
        page.click("#confirm-yes")
        _expect(page.locator("#round-status")).to_have_text("Round 1 recorded.")  # beside the button
        assert _sheet(server, gid)["rounds"][0]["scores"] == [0, 0]
        assert not errors and not dialogs, errors + dialogs


# -- 2. another rule or the same file again reads the photo again ------------------------

def test_changing_the_rules_or_picking_the_same_file_reads_again(server, tmp_path, hand_photo):
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        sent: list[str] = []
        page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/api/v1/score") else None)
        page.goto(server + "/")
        page.set_input_files("#hand-photo", str(hand_photo))
        _expect(page.locator("#hand-detail")).to_contain_text("double-blank counts 0", timeout=30_000)
        assert page.eval_on_selector("#hand-photo", "el => el.value") == ""  # the same file can be picked again
        page.select_option("#hand-blank", "50")
        _expect(page.locator("#hand-detail")).to_contain_text("double-blank counts 50", timeout=30_000)
        assert len(sent) == 2
        page.select_option("#hand-set", "12")
        _expect(page.locator("#tab-hand")).to_have_attribute("aria-busy", "false", timeout=30_000)
        assert len(sent) == 3
        page.set_input_files("#hand-photo", str(hand_photo))
        _expect(page.locator("#tab-hand")).to_have_attribute("aria-busy", "false", timeout=30_000)
        assert len(sent) == 4
        page.screenshot(path=str(tmp_path / "rescored.png"))
        assert not errors, errors


# -- 3. the open game's rules ----------------------------------------------------------

def test_the_hand_tab_scores_under_the_open_games_rules(server, tmp_path, hand_photo):
    gid = _game(server, players=("Hal", "Ida"), house_rules={"double_blank_value": 50})
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        page.goto(server + "/")
        _expect(page.locator("#table-rules")).to_contain_text("No game is open")
        _open_game(page, server, gid)
        page.click("nav button[data-tab=hand]")
        _expect(page.locator("#hand-rules")).to_contain_text("open game's house rules (Hal, Ida)")
        _expect(page.locator("#hand-blank")).to_be_disabled()
        _expect(page.locator("#hand-blank")).to_have_value("50")
        page.set_input_files("#hand-photo", str(hand_photo))
        _expect(page.locator("#hand-detail")).to_contain_text("double-blank counts 50", timeout=30_000)
        page.screenshot(path=str(tmp_path / "hand-game-rules.png"))
        page.click("nav button[data-tab=table]")
        _expect(page.locator("#table-rules")).to_contain_text("open game's house rules (Hal, Ida)")
        _expect(page.locator("#table-rules")).to_contain_text("double-blank 50")
        page.screenshot(path=str(tmp_path / "table-game-rules.png"))
        assert not errors, errors


# -- 4. a late answer never overwrites a newer photo's result -------------------------------

def test_an_older_answer_arriving_last_is_dropped(server, tmp_path, hand_photo, plain_photo):
    held = []

    def route(r):
        if len(held) == 0 and r.request.method == "POST":
            held.append(r)  # the first photo's answer waits: a slow connection
        else:
            r.continue_()

    with chromium(tmp_path) as browser:
        page = browser.new_page()
        crashes: list[str] = []
        page.on("pageerror", lambda e: crashes.append(str(e)))
        page.route("**/api/v1/score", route)
        page.goto(server + "/")
        page.set_input_files("#hand-photo", str(plain_photo))
        _expect(page.locator("#hand-status")).to_have_text("Reading the tiles…")
        page.set_input_files("#hand-photo", str(hand_photo))
        _expect(page.locator("#hand-score")).to_have_text(re.compile(r"^\d+$"), timeout=30_000)
        newer = page.text_content("#hand-score")
        # the first answer arrives now, last, and says something else
        try:
            held[0].fulfill(status=200, content_type="application/json", body=_fake_hand(999, [FAKE_TILE]))
        except Exception:  # noqa: BLE001 - the page already gave up on it (aborted): as good
            pass
        page.wait_for_timeout(500)
        assert page.text_content("#hand-score") == newer != "999"
        _expect(page.locator("#hand-status")).to_contain_text("Tap a tile")
        _expect(page.locator("#tab-hand")).to_have_attribute("aria-busy", "false")

        # while a newer photo is read, the old result stays but is dimmed
        page.unroute("**/api/v1/score")
        slow = []
        page.route("**/api/v1/score", lambda r: slow.append(r))
        page.set_input_files("#hand-photo", str(hand_photo))
        _expect(page.locator("#tab-hand")).to_have_attribute("aria-busy", "true")
        _expect(page.locator("#hand-result")).to_have_class(re.compile(r"\bstale\b"))
        page.screenshot(path=str(tmp_path / "reading-dimmed.png"))
        slow[0].fulfill(status=200, content_type="application/json", body=_fake_hand(12, [FAKE_TILE]))
        _expect(page.locator("#hand-score")).to_have_text("12")
        _expect(page.locator("#hand-result")).not_to_have_class(re.compile(r"\bstale\b"))
        assert not crashes, crashes


# -- 7. a photo with no domino is not a player who went out -----------------------------------

def test_a_photo_with_no_domino_asks_for_a_retake(server, tmp_path, plain_photo):
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        page.route("**/api/v1/score", lambda r: r.fulfill(status=200, content_type="application/json",
                                                           body=_fake_hand(0, [])))
        page.goto(server + "/")
        page.set_input_files("#hand-photo", str(plain_photo))
        _expect(page.locator("#hand-none")).to_have_text("No dominoes found — retake the photo?")
        _expect(page.locator("#hand-none")).to_be_visible()
        _expect(page.locator("#hand-score-line")).to_be_hidden()
        _expect(page.locator("#hand-status")).to_have_text(re.compile(r"^Read in "))
        page.screenshot(path=str(tmp_path / "no-dominoes.png"))
        assert not errors, errors


def test_a_round_photo_with_no_domino_leaves_the_points_to_fill(server, tmp_path, plain_photo):
    gid = _game(server, players=("Jo", "Kim"))
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        page.route("**/api/v1/score", lambda r: r.fulfill(status=200, content_type="application/json",
                                                           body=_fake_hand(0, [])))
        _open_game(page, server, gid)
        page.set_input_files(".player-row[data-seat='0'] input[type=file]", str(plain_photo))
        _expect(page.locator(".player-row[data-seat='0'] .read")).to_have_text("No dominoes found — retake the photo?")
        _expect(page.locator("[aria-label='points for Jo']")).to_have_value("")
        assert not errors, errors


# -- 9. double taps -------------------------------------------------------------------------

def _game_count(server) -> int:
    return httpx.get(f"{server}/api/v1/games?limit=1").json()["total"]


def test_a_double_tap_on_start_game_makes_one_game(server, tmp_path):
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        page.goto(server + "/")
        page.click("nav button[data-tab=game]")
        page.click("#game-new-toggle")
        page.fill("#new-players", "Lou\nMay")
        before = _game_count(server)
        page.dblclick("#game-new button[type=submit]")
        _expect(page.locator("#game-status")).to_have_text("Game started.")
        _expect(page.locator("#game-view")).to_be_visible()
        page.wait_for_timeout(500)
        assert _game_count(server) == before + 1
        page.screenshot(path=str(tmp_path / "game-started.png"))
        assert not errors, errors


def test_a_double_tap_on_start_camera_opens_one_camera_and_stop_ends_it(server, tmp_path):
    from lab.synth.scene import render_hand

    video = tmp_path / "table.y4m"
    _write_y4m(video, [render_hand(np.random.default_rng(31), (640, 480)).image] * 5)
    fake_camera = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                   f"--use-file-for-fake-video-capture={video}"]
    with chromium(tmp_path, fake_camera) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        sockets = []
        page.on("websocket", lambda ws: sockets.append(ws))
        page.goto(server + "/")
        page.click("nav button[data-tab=live]")
        page.dblclick("#live-start")
        _expect(page.locator("#live-state")).to_have_text("watching", timeout=30_000)
        page.wait_for_timeout(1000)
        assert len(sockets) == 1, [s.url for s in sockets]
        page.screenshot(path=str(tmp_path / "live.png"))
        page.click("#live-stop")
        _expect(page.locator("#live-state")).to_have_text("stopped")
        _expect(page.locator("#live-start")).to_be_enabled()
        deadline = 50
        while not all(s.is_closed() for s in sockets) and deadline:
            page.wait_for_timeout(100)
            deadline -= 1
        assert all(s.is_closed() for s in sockets)
        assert page.eval_on_selector("#live-video", "v => v.srcObject === null")
        assert not errors, errors


def test_a_game_chosen_while_the_list_reloads_stays_open(server, tmp_path):
    """Opening the Game tab reloads the list of games; a game chosen before that answer arrives
    stays open (the list's late answer used to close it)."""
    gid = _game(server, players=("Fay", "Gus"), rounds=[(7, 0)])
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        page.goto(server + "/")
        _expect(page.locator(f"#game-select option[value='{gid}']")).to_have_count(1)  # the first list
        held = []
        page.route("**/api/v1/games?limit=*", lambda route: held.append(route))
        page.click("nav button[data-tab=game]")  # asks for the list again: held
        page.wait_for_timeout(300)
        assert held, "the Game tab did not reload the list"
        page.select_option("#game-select", gid)
        _expect(page.locator("#game-view")).to_be_visible()
        held[0].continue_()
        page.wait_for_timeout(500)
        _expect(page.locator("#game-view")).to_be_visible()
        _expect(page.locator("#game-select")).to_have_value(gid)
        _expect(page.locator("#sheet thead")).to_contain_text("Fay")
        assert not errors, errors


def test_a_game_chosen_before_and_now_older_than_the_list_shows_still_opens(server, tmp_path):
    """The page lists the newest games only; the game a phone had open stays open when newer
    games have pushed it off the list."""
    old = _game(server, players=("Hal", "Ida"), rounds=[(4, 0)])
    for _ in range(101):
        _game(server, players=("X", "Y"))
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        page.goto(server + "/")
        _expect(page.locator("#game-select option")).to_have_count(101)  # "—" and the newest 100: loaded
        page.evaluate(f"localStorage.setItem('chickenfoot.game', '{old}')")
        page.reload()
        page.click("nav button[data-tab=game]")
        _expect(page.locator("#game-view")).to_be_visible()
        _expect(page.locator("#game-select")).to_have_value(old)
        _expect(page.locator("#sheet thead")).to_contain_text("Hal")
        assert not errors, errors
