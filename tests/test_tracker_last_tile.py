"""The last-tile watch while tracking: hand sizes from the plays seen and what the table tells,
the Chickenlittle call and its penalty, and a round every seat passed in."""
from __future__ import annotations

import numpy as np
import pytest

from engine import GameConfig, HouseRules, NothingToAnnounce
from vision.tracking import Tracker
from vision.tracking.events import ChickenlittlePenalty, LastTile, RoundBlocked, TilePlayed
from vision.types import TileDetection


class _Still:
    moving = False

    def update(self, frame):
        from vision.tracking.motion import MotionReading

        return MotionReading(self.moving, True, float(self.moving), 1.0)

    def set_reference(self):
        pass


def _det(corners, pips) -> TileDetection:
    d = TileDetection(0, np.asarray(corners, np.float32), 0.9)
    d.pips = pips
    return d


SPINNER = _det([[280, 260], [320, 260], [320, 340], [280, 340]], (6, 6))
ARM = _det(np.roll(np.array([[280, 180], [320, 180], [320, 260], [280, 260]], np.float32), 2, axis=0), (6, 2))


def feed(tracker: Tracker, scenes, repeat: int = 5) -> list:
    out, t = [], 0.0
    for dets in scenes:
        for k in range(repeat + 1):
            tracker.gate.moving = k == 0
            tracker.detector = lambda _f, d=dets: list(d)
            out.extend(tracker.push(object(), t))
            t += 0.1
    return out


RIGHT = _det([[320, 280], [320, 320], [400, 320], [400, 280]], (6, 1))
BELOW = _det([[280, 340], [320, 340], [320, 420], [280, 420]], (6, 3))
SCENES = [[SPINNER], [SPINNER, ARM], [SPINNER, ARM, RIGHT], [SPINNER, ARM, RIGHT, BELOW]]


def three_tile_hands(**rules) -> Tracker:
    # three tiles each: player 0 lays the spinner, player 1 an arm, player 0 another and is left with one
    return Tracker(GameConfig(2, 6, HouseRules(hand_size=3, **rules)), gate=_Still())


def test_a_player_down_to_one_tile_is_told_to_call_it() -> None:
    tracker = three_tile_hands(chickenlittle=True)
    events = feed(tracker, SCENES[:3])
    last = [e for e in events if isinstance(e, LastTile)]
    assert [(e.player, e.must_call) for e in last] == [(0, True)]
    assert "must call Chickenlittle" in last[0].describe()
    hands = tracker.state.hands
    assert hands["sizes"] == [1, 2] and hands["unannounced"] == [0] and hands["boneyard"] == 22


def test_without_the_rule_the_last_tile_is_only_reported() -> None:
    events = feed(three_tile_hands(), SCENES[:3])
    assert [(e.player, e.must_call) for e in events if isinstance(e, LastTile)] == [(0, False)]


def test_a_forgotten_call_costs_a_draw_when_the_next_player_plays() -> None:
    tracker = three_tile_hands(chickenlittle=True)
    events = feed(tracker, SCENES)
    assert [e.player for e in events if isinstance(e, TilePlayed) and e.legal] == [1, 0, 1]
    penalties = [e for e in events if isinstance(e, ChickenlittlePenalty)]
    assert [(e.player, e.form, e.by) for e in penalties] == [(0, "draw", 1)]
    assert tracker.state.hands["sizes"] == [2, 1] and tracker.state.hands["boneyard"] == 21


def test_a_call_made_in_time_costs_nothing() -> None:
    tracker = three_tile_hands(chickenlittle=True)
    feed(tracker, SCENES[:3])
    assert tracker.tell("announce", 0) == []
    events = feed(tracker, SCENES[3:])
    assert not any(isinstance(e, ChickenlittlePenalty) for e in events)
    assert tracker.state.hands["sizes"] == [1, 1]
    with pytest.raises(NothingToAnnounce):
        tracker.tell("announce", 0)


def test_draws_the_table_reports_grow_the_hand() -> None:
    tracker = three_tile_hands()
    feed(tracker, [[SPINNER]])
    tracker.tell("draw", 1)
    assert tracker.state.hands["sizes"] == [2, 4] and tracker.state.hands["boneyard"] == 21


def test_every_seat_passing_with_nothing_to_draw_brings_the_proof() -> None:
    tracker = Tracker(GameConfig(2, 6, HouseRules(hand_size=13)), gate=_Still())  # two tiles to draw
    feed(tracker, [[SPINNER]])
    events = []
    for player in (1, 0, 1, 0):
        events += tracker.tell("pass", player)
    blocked = [e for e in events if isinstance(e, RoundBlocked)]
    assert len(blocked) == 1 and tracker.state.hands["boneyard"] == 0
    # 6s are still out: the table does not prove a block, so someone passed wrongly
    assert not blocked[0].blocked and "not on the table" in blocked[0].reason
    assert tracker.state.blocked["basis"] == "tracked"


def test_the_live_connection_takes_table_notes_and_answers_with_the_state(tmp_path) -> None:
    from fastapi.testclient import TestClient

    from service.app import create_app
    from service.deps import Settings
    from vision.tracking.live import LiveTracker

    def factory(options):
        live = LiveTracker(options, recognizer=object())
        live.tracker.gate = _Still()
        feed(live.tracker, SCENES[:3])  # the camera saw the spinner and two arms
        return live

    app = create_app(Settings(db_path=tmp_path / "g.sqlite3"), tracker_factory=factory)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client, \
            client.websocket_connect("/api/v1/live?players=2&set=6&house_rules=%7B%22hand_size%22%3A3%2C"
                                     "%22chickenlittle%22%3Atrue%7D", headers={"host": "127.0.0.1:8000"}) as ws:
        assert ws.receive_json()["type"] == "ready"
        ws.send_json({"type": "table", "action": "announce", "player": 0})
        state = ws.receive_json()
        assert state["type"] == "state" and state["state"]["hands"]["unannounced"] == []
        ws.send_json({"type": "table", "action": "announce", "player": 0})
        refused = ws.receive_json()
        assert refused["type"] == "error" and refused["error"] == "nothing_to_announce"
        ws.send_json({"type": "table", "action": "shout", "player": 0})
        assert ws.receive_json()["error"] == "bad_message"
