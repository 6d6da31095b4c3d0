"""The page's answers to "why is it blocked?", the last-tile watch, the deal advisor and the
replay of a game record, at a phone's size (390x844) in real headless Chromium.

Shares `test_browser`'s Chromium. The server runs in this process (none of this needs the tile
models), its live tracker the real `Tracker` fed scripted tiles instead of camera readings.
"""
from __future__ import annotations

import json
import random
import re
from typing import Iterator

import httpx
import numpy as np
import pytest

from test_browser import ROOT, _expect, _watch_errors, chromium, pytestmark  # noqa: F401
from test_browser_live import serve_in_process

DEMO = ROOT / "datasets" / "demo" / "hand.jpg"
PHONE_WIDTH = 390


def _fits_the_phone(page) -> None:
    width = page.eval_on_selector("html", "el => el.scrollWidth")
    assert width <= PHONE_WIDTH, f"the page is {width} px wide on a {PHONE_WIDTH} px phone"


# -- why is it blocked? ------------------------------------------------------------------------

def _dead_chickie_audit() -> dict:
    """A double-6 layout as the audit reads it from a photo: every 5 is down, and the chickie on
    5-5 still needs two toes, so nothing may be played anywhere."""
    tiles = ["6-6", "6-5", "6-4", "6-3", "6-2", "5-2", "5-0", "5-1", "5-3", "5-5", "5-4"]
    edges = [(1, 0), (2, 0), (3, 0), (4, 0), (5, 4), (6, 5), (7, 1), (8, 3), (9, 8), (10, 9)]
    return {
        "tiles": [{"id": i, "pips": [int(x) for x in t.split("-")]} for i, t in enumerate(tiles)],
        "layout": {"spinner": 0, "edges": [{"from": a, "to": b} for a, b in edges], "chickies": [{"tile": 9}]},
        "open_ends": [{"tile": 9, "value": 5, "free": 2, "playable_now": True},
                      {"tile": 10, "value": 4, "free": 1, "playable_now": False},
                      {"tile": 2, "value": 4, "free": 1, "playable_now": False},
                      {"tile": 6, "value": 0, "free": 1, "playable_now": False},
                      {"tile": 7, "value": 1, "free": 1, "playable_now": False}],
        "violations": [], "warnings": [], "width": 1280, "height": 960, "set": 6,
    }


def test_the_table_tab_says_why_the_photographed_round_is_blocked(server, tmp_path):
    audit = _dead_chickie_audit()
    proof = httpx.post(f"{server}/api/v1/blocked", json={"audit": audit, "set": 6}, timeout=10).json()
    assert proof["blocked"] and proof["cause"] == "dead_chickie"
    body = json.dumps({**audit, "blocked": proof})
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        page.route("**/api/v1/audit", lambda r: r.fulfill(status=200, content_type="application/json", body=body))
        page.goto(server + "/")
        page.click("nav button[data-tab=table]")
        page.set_input_files("#table-photo", str(DEMO))
        verdict = page.locator("#table-verdict")
        _expect(verdict).to_contain_text("Blocked: the chickie on 5-5 needs two more toes", timeout=20_000)
        proof_box = page.locator("#table-proof")
        _expect(proof_box).to_be_hidden()
        why = page.locator("#table-why")
        _expect(why).to_have_text("Why is it blocked?")
        why.focus()
        page.keyboard.press("Enter")  # reachable without a mouse
        _expect(proof_box).to_be_visible()
        _expect(why).to_have_attribute("aria-expanded", "true")
        _expect(proof_box).to_contain_text("(as far as the picture shows)")
        _expect(proof_box.locator(".dead li")).to_have_text(
            "The chickie on 5-5 can no longer be completed: it needs 2 more toes, "
            "and every tile with a 5 is already on the table.")
        ends = proof_box.locator(".ends li")
        _expect(ends).to_have_count(5)
        _expect(ends.first).to_have_text("The chickie 5-5 takes a 5 (room for 2 more)")
        _expect(ends.nth(1)).to_contain_text("5-4 takes a 4, but only once the double that must be fed first")
        fives = proof_box.locator("tr[data-value='5'] td")
        _expect(fives).to_have_text(["5s", "7", "7", "0"])
        _expect(proof_box.locator("tr[data-value='5']")).to_have_class("used-up")
        fours = proof_box.locator("tr[data-value='4'] td")
        _expect(fours).to_have_text(["4s", "7", "2", "5"])  # fours are still out, but must wait
        page.screenshot(path=str(tmp_path / "blocked.png"), full_page=True)
        _fits_the_phone(page)
        assert not errors, errors


# -- the last-tile watch -----------------------------------------------------------------------

class _Still:
    """A motion gate the script moves: one moving frame per scene, then still ones."""

    moving = False

    def update(self, frame):
        from vision.tracking.motion import MotionReading

        return MotionReading(self.moving, True, float(self.moving), 1.0)

    def set_reference(self):
        pass


def _det(corners, pips):
    from vision.types import TileDetection

    d = TileDetection(0, np.asarray(corners, np.float32), 0.9)
    d.pips = pips
    return d


def _scenes() -> list[list]:
    """Two players, three tiles each: Ann lays the spinner 6-6, Bob an arm, Ann another (one tile
    left), Bob another."""
    spinner = _det([[280, 260], [320, 260], [320, 340], [280, 340]], (6, 6))
    arm = _det(np.roll(np.array([[280, 180], [320, 180], [320, 260], [280, 260]], np.float32), 2, axis=0), (6, 2))
    right = _det([[320, 280], [320, 320], [400, 320], [400, 280]], (6, 1))
    below = _det([[280, 340], [320, 340], [320, 420], [280, 420]], (6, 3))
    return [[spinner], [spinner, arm], [spinner, arm, right], [spinner, arm, right, below]]


class ScriptedTracker:
    """The live tracker the service uses, but the tiles "seen" are the script's scenes, laid one by
    one up to `ScriptedTracker.laid_up_to` as frames come in."""

    laid_up_to = 0

    def __init__(self, options) -> None:
        from vision.tracking import Tracker
        from vision.tracking.live import LiveTracker

        self.live = LiveTracker(options, recognizer=object())
        self.tracker = self.live.tracker = Tracker(self.live.config, gate=_Still(),
                                                   player_names=list(options.player_names or []) or None)
        self.scenes = _scenes()
        self.laid = 0
        self.t = 0.0

    def _lay(self, scene) -> list:
        events = []
        for k in range(6):
            self.tracker.gate.moving = k == 0
            self.tracker.detector = lambda _frame, d=scene: list(d)
            events.extend(self.tracker.push(object(), self.t))
            self.t += 0.1
        return events

    def feed(self, image) -> list[dict]:
        events = []
        while self.laid < min(ScriptedTracker.laid_up_to, len(self.scenes)):
            events.extend(self._lay(self.scenes[self.laid]))
            self.laid += 1
        overlay = {"type": "overlay", "frame": self.tracker.frames, "width": image.width, "height": image.height,
                   "tiles": self.live._tiles(), "state": self.tracker.state.to_dict()}
        return [overlay, *(self.live.message(ev) for ev in events)]

    def tell(self, action: str, player: int) -> list[dict]:
        return self.live.tell(action, player)

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """The service in this process, its live tracker scripted."""
    from service.app import create_app
    from service.deps import Settings
    from service.ws_handshake import JsonHandshakeWebSockets

    home = tmp_path_factory.mktemp("scripted")
    app = create_app(Settings(db_path=home / "g.sqlite3", live_min_interval=0.05), tracker_factory=ScriptedTracker)
    with serve_in_process(app, ws=JsonHandshakeWebSockets) as base:
        yield base


def test_the_live_tab_counts_hands_and_asks_the_table_to_confirm_a_last_tile(server, tmp_path):
    base = server
    gid = httpx.post(f"{base}/api/v1/games", json={"players": ["Ann", "Bob"], "set": 6,
                                                   "house_rules": {"hand_size": 3, "chickenlittle": True}}).json()["id"]
    ScriptedTracker.laid_up_to = 1
    fake_camera = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
    with chromium(tmp_path, fake_camera) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        notes: list[dict] = []
        page.on("websocket", lambda ws: ws.on("framesent", lambda f: notes.append(json.loads(f))
                                              if isinstance(f, str) and '"table"' in f else None))
        page.goto(base + "/")
        page.click("nav button[data-tab=game]")
        _expect(page.locator(f"#game-select option[value='{gid}']")).to_have_count(1)
        page.select_option("#game-select", gid)
        _expect(page.locator("#game-view")).to_be_visible()
        page.click("nav button[data-tab=live]")
        page.click("#live-start")
        rows = page.locator("#live-hand-list li")
        _expect(rows).to_have_count(2, timeout=30_000)
        _expect(rows.locator(".who")).to_have_text(["Ann", "Bob"])  # by name: the game is open
        _expect(rows.locator(".count")).to_have_text(["2 tiles", "3 tiles · to play"])
        call = page.locator("#live-call")
        _expect(call).to_be_hidden()

        ScriptedTracker.laid_up_to = 3  # Bob lays an arm, Ann another: Ann holds one tile
        _expect(call).to_contain_text("Ann is down to one tile. Did Ann call it", timeout=10_000)
        _expect(rows.locator(".count")).to_have_text(["1 tile", "2 tiles · to play"])
        _expect(page.locator("#live-events")).to_contain_text("Ann is down to one tile and must call it")
        _expect(page.locator("#live-events")).to_contain_text("Ann played 6-1 on 6-6.")
        page.screenshot(path=str(tmp_path / "last-tile.png"), full_page=True)

        ScriptedTracker.laid_up_to = 4  # Bob plays before Ann called it
        penalty = page.locator("#live-penalty")
        _expect(penalty).to_have_text("Ann did not call their last tile before Bob played: Ann draws a tile.",
                                      timeout=10_000)
        _expect(rows.locator(".count")).to_have_text(["2 tiles · to play", "1 tile"])
        _expect(call).to_contain_text("Bob is down to one tile")
        _expect(call).not_to_contain_text("Ann")
        assert notes == []  # nothing told the table's side yet

        page.get_by_role("button", name="Yes, Bob called it").click()
        _expect(call).to_be_hidden()
        _expect(page.locator("#live-note-status")).to_have_text("Noted: Bob called their last tile.")
        _expect(page.locator("#live-boneyard")).to_have_text("21 tiles left to draw.")
        page.get_by_role("button", name="Ann passed").click()  # she drew one and still could not play
        _expect(rows.locator(".count")).to_have_text(["3 tiles", "1 tile · to play"])
        page.get_by_role("button", name="Bob drew a tile").click()
        _expect(rows.locator(".count")).to_have_text(["3 tiles", "2 tiles · to play"])
        _expect(page.locator("#live-boneyard")).to_have_text("19 tiles left to draw.")
        assert notes == [{"type": "table", "action": "announce", "player": 1},
                         {"type": "table", "action": "pass", "player": 0},
                         {"type": "table", "action": "draw", "player": 1}]
        _expect(page.locator("#live-state")).to_have_text("watching")  # the notes did not upset the frames
        page.screenshot(path=str(tmp_path / "noted.png"), full_page=True)
        _fits_the_phone(page)
        page.click("#live-stop")
        _expect(page.get_by_role("button", name="Bob drew a tile")).to_be_disabled()
        assert not errors, errors


# -- replaying a game record, and players' figures ------------------------------------------------

@pytest.fixture(scope="module")
def game_record(tmp_path_factory):
    """A whole random game of three with the last-tile rule: a forgotten call in the first round,
    and rounds that block behind a chickie that can no longer be finished."""
    from engine import GameConfig, HouseRules, random_game

    game = random_game(GameConfig(3, 6, HouseRules(hand_size=5, chickenlittle=True)), random.Random(4))
    path = tmp_path_factory.mktemp("records") / "game.json"
    path.write_text(json.dumps(game.to_record(["Ann", "Bob", "Cy"])))
    return path


def _js(number: float) -> str:
    """A number as JavaScript writes it into an attribute."""
    return "0" if number == 0 else f"{number:g}"


def test_a_game_record_is_replayed_play_by_play_and_players_figures_added_up(server, tmp_path, game_record):
    from engine.replay import replay_game, study_games

    record = json.loads(game_record.read_text())
    replay = replay_game(record)
    first = replay.rounds[0]
    flag = first.flags[0]
    blocked = next(r for r in replay.rounds if r.blocked)
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        page.goto(server + "/")
        page.click("nav button[data-tab=study]")
        page.set_input_files("#replay-file", str(game_record))
        _expect(page.locator("#replay-status")).to_have_text("Ann, Bob, Cy: double-6 set, 7 rounds.", timeout=20_000)
        board = page.locator("#replay-board g.domino")
        _expect(page.locator("#replay-position")).to_have_text(f"Step 1 of {len(first.steps)}")
        _expect(board).to_have_count(1)
        _expect(page.locator("#replay-text")).to_have_text(first.steps[0].text + ".")
        _expect(page.locator("#replay-prev")).to_be_disabled()
        # step on: each play adds the tile it laid, where the replay's diagram puts it
        placed_seen = 0
        for k, step in enumerate(first.steps[1:4], start=2):
            page.click("#replay-next")
            _expect(page.locator("#replay-position")).to_have_text(f"Step {k} of {len(first.steps)}")
            _expect(page.locator("#replay-text")).to_have_text(step.text + ".")
            _expect(board).to_have_count(len(step.board))
            if step.kind == "play":
                newest = step.board[-1].to_dict()
                placed = page.locator("#replay-board g.domino.new")
                _expect(placed).to_have_attribute("data-tile", newest["tile"])
                _expect(placed).to_have_attribute(
                    "transform", f"translate({_js(newest['x'])} {_js(newest['y'])}) rotate({_js(newest['angle'])})")
                placed_seen += 1
        assert placed_seen, "the first steps hold no play to check"
        page.click("#replay-prev")
        _expect(page.locator("#replay-position")).to_have_text(f"Step 3 of {len(first.steps)}")
        # the round's flag, named by its rule in words, leads to its step
        page.locator("#replay-round-flags button").first.click()
        _expect(page.locator("#replay-position")).to_have_text(f"Step {flag.step + 1} of {len(first.steps)}")
        shown = page.locator("#replay-flags li")
        _expect(shown).to_have_count(1)
        _expect(shown).to_have_text(f"Call your last tile before the next player lays one: {flag.message}")
        page.screenshot(path=str(tmp_path / "replay-flag.png"), full_page=True)
        # a blocked round ends with the proof of why
        page.select_option("#replay-round", str(blocked.index))
        _expect(page.locator("#replay-position")).to_have_text(f"Step 1 of {len(blocked.steps)}")
        page.click("#replay-last")
        _expect(page.locator("#replay-next")).to_be_disabled()
        _expect(page.locator("#replay-result")).to_contain_text("Nobody could play: the round is blocked.")
        proof = page.locator("#replay-proof")
        _expect(proof).to_contain_text("(exact: every tile's place is known)")
        _expect(proof.locator(".dead li").first).to_contain_text("can no longer be completed")
        _expect(page.locator("#replay-board g.domino")).to_have_count(len(blocked.steps[-1].board))
        page.screenshot(path=str(tmp_path / "replay-blocked.png"), full_page=True)
        _fits_the_phone(page)

        # players' figures: the games kept on the server, then the record's
        gid = httpx.post(f"{server}/api/v1/games", json={"players": ["Dee", "Eve"], "set": 6}).json()["id"]
        for i, points in enumerate([[0, 12], [7, 3]]):
            httpx.post(f"{server}/api/v1/games/{gid}/rounds",
                       json={"hands": [{"points": p} for p in points], "index": i}).raise_for_status()
        page.click("#stats-stored")
        # place, player, games, rounds, points per round, rounds at 0, rounds won, games won (the place
        # depends on other tests' games on this server: only the order of these two is theirs)
        place = re.compile(r"^\d+$")
        dee = page.locator("#stats-table tr[data-player='Dee'] td")
        eve = page.locator("#stats-table tr[data-player='Eve'] td")
        _expect(dee).to_have_text([place, "Dee", "1", "2", "3.50", "1", "1", "1"], timeout=20_000)
        _expect(eve).to_have_text([place, "Eve", "1", "2", "7.50", "0", "1", "0"])
        assert int(dee.first.text_content()) < int(eve.first.text_content())
        page.set_input_files("#stats-files", str(game_record))
        for s in study_games([record]):
            _expect(page.locator(f"#stats-table tr[data-player='{s.name}'] td")).to_have_text(
                [str(s.standing), s.name, "1", str(s.rounds), f"{s.points_per_round:.2f}", str(s.zero_rounds),
                 str(s.rounds_won), str(s.games_won)], timeout=20_000)
        _expect(page.locator("#stats-table tr[data-player='Dee']")).to_have_count(0)
        assert not errors, errors


# -- the deal advisor --------------------------------------------------------------------------

def test_the_advisor_suggests_a_hand_size_and_the_new_game_deals_it(server, tmp_path):
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        page.goto(server + "/")
        page.click("nav button[data-tab=game]")
        page.click("#game-new-toggle")
        page.fill("#new-players", "Fay\nGus\nHal\nIvy")
        with page.expect_response(lambda r: r.url.endswith("/api/v1/advise"), timeout=60_000) as answered:
            page.click("#advice-run")
        advice = answered.value.json()
        rows = page.locator("#advice-table tbody tr")
        _expect(rows).to_have_count(5)
        assert advice["players"] == 4 and advice["set"] == 9
        best = advice["recommended"]
        row = page.locator(f"#advice-table tr[data-size='{best}']")
        _expect(row).to_have_class("recommended")
        stats = next(s for s in advice["sizes"] if s["hand_size"] == best)
        _expect(row.locator("td")).to_have_text([re.compile(rf"^{best}\s*suggested"), str(stats["boneyard"]),
                                                 f"{stats['stall_share'] * 100:.1f}%", f"{stats['turns_mean']:.1f}",
                                                 f"{stats['points_left_mean']:.1f}"])
        _expect(page.locator("#advice-pick")).to_contain_text(f"Suggested: {best} tiles each")
        page.screenshot(path=str(tmp_path / "advice.png"), full_page=True)
        _fits_the_phone(page)
        page.click("#advice-use")
        _expect(page.locator("#new-hand-size")).to_have_value(str(best))
        page.click("#game-start")
        _expect(page.locator("#game-status")).to_have_text("Game started.", timeout=10_000)
        gid = page.eval_on_selector("#game-select", "s => s.value")
        assert httpx.get(f"{server}/api/v1/games/{gid}").json()["house_rules"]["hand_size"] == best
        assert not errors, errors
