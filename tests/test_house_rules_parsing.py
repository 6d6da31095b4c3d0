"""House rules are given one way everywhere: `HouseRules.parse`, behind every `--rules`
option and every API field that takes house rules."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from engine import PRESETS, HouseRules, HouseRulesError
from engine.rules import MAX_RULES_CHARS
from service.app import create_app
from service.cli import main
from service.commands import common
from service.commands import score as score_command
from service.deps import Settings, get_recognizer
from vision.types import Recognition, TileDetection

REPO = Path(__file__).resolve().parents[1]
BASE = "http://127.0.0.1:8000"
HOWTO = HouseRules(double_blank_value=50)
HOWTO_JSON = '{"double_blank_value": 50}'
PRESET_NAMES = ", ".join(PRESETS)


def _corners(x: float) -> np.ndarray:
    return np.array([[x, 10], [x + 20, 10], [x + 20, 50], [x, 50]], np.float32)


class HandOfDoubleBlankAndSixFour:
    """Stands in for the recognizer: every photo shows 0-0 and 6-4 (10 pips)."""

    def recognize_loaded(self, img, set_max=None, level=False) -> Recognition:
        tiles = [TileDetection(0, _corners(10), 1.0, False, (0, 0), 1.0),
                 TileDetection(1, _corners(40), 1.0, False, (6, 4), 1.0)]
        return Recognition(img.source, img.width, img.height, tiles, [], set_max or 9)


@pytest.fixture
def rules_file(tmp_path) -> Path:
    path = tmp_path / "rules.json"
    path.write_text(HOWTO_JSON)
    return path


@pytest.fixture
def photo(tmp_path) -> Path:
    path = tmp_path / "hand.png"
    cv2.imwrite(str(path), np.full((120, 160, 3), 200, np.uint8))
    return path


@pytest.fixture
def fake_recognizer(monkeypatch) -> None:
    monkeypatch.setattr(score_command, "load_recognizer", lambda model: HandOfDoubleBlankAndSixFour())


def _one_line_error(spec, **kwargs) -> str:
    with pytest.raises(HouseRulesError) as err:
        HouseRules.parse(spec, **kwargs)
    message = str(err.value)
    assert "\n" not in message and len(message) < 300, message
    return message


# -- the parser -------------------------------------------------------------------

@pytest.mark.parametrize("spec", [None, "", "   "])
def test_no_rules_given_means_the_default_rules(spec) -> None:
    assert HouseRules.parse(spec) == HouseRules()


def test_a_preset_a_json_file_an_inline_object_and_a_dict_give_the_same_rules(rules_file) -> None:
    forms = ["howto", f"  {HOWTO_JSON} ", {"double_blank_value": 50}, rules_file]
    assert [HouseRules.parse(f) for f in forms] == [HOWTO] * len(forms)
    assert HouseRules.parse(str(rules_file), allow_files=True) == HOWTO


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_name_gives_that_preset(name: str) -> None:
    assert HouseRules.parse(name) == HouseRules.preset(name) == PRESETS[name]


def test_rules_already_parsed_are_taken_as_they_are() -> None:
    assert HouseRules.parse(HOWTO) is HOWTO


def test_a_file_holding_a_game_record_gives_the_rules_in_it(tmp_path) -> None:
    record = tmp_path / "game.json"
    record.write_text(json.dumps({"players": 3, "set": 9, "rules": HOWTO.to_dict(), "rounds": []}))
    assert HouseRules.parse(record) == HOWTO


def test_text_is_read_as_a_file_only_when_the_caller_allows_it(rules_file) -> None:
    message = _one_line_error(str(rules_file))
    assert "cannot be read from a file here" in message


def test_a_preset_name_wins_over_a_file_of_the_same_name(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("plain").write_text(HOWTO_JSON)
    assert HouseRules.parse("plain", allow_files=True) == HouseRules()
    assert HouseRules.parse("./plain", allow_files=True) == HOWTO


def test_an_unknown_preset_is_a_clear_error_naming_the_presets() -> None:
    assert _one_line_error("nonsense") == (
        f"unknown preset 'nonsense'; choose one of {PRESET_NAMES}, or give a JSON object"
    )
    assert "unknown preset 'nonsense' and no such file" in _one_line_error("nonsense", allow_files=True)


def test_bad_json_is_a_clear_error() -> None:
    assert _one_line_error('{"double_blank_value": 50').startswith("house rules are not valid JSON")


@pytest.mark.parametrize("spec, words", [
    ("[1, 2]", "must be a JSON object, got a list"),
    ('{"double_blank_value": "50"}', "double_blank_value must be 0, 25 or 50, got '50'"),
    ('{"double_blank_value": 25.0}', "double_blank_value must be 0, 25 or 50"),
    ('{"spinner_arms": true}', "spinner_arms must be 4 or 6"),
    ('{"chickenlittle": "yes"}', "chickenlittle must be true or false"),
    ('{"hand_size": [7]}', "hand_size must be a single value, got a list of 1"),
    ('{"hand_size": null}', "hand_size must be a whole number"),
    ('{"blanks_wild": true}', "unknown house rule 'blanks_wild'"),
    (42, "must be a preset name, a JSON object or a file, got a number"),
])
def test_wrong_types_are_refused_by_name(spec, words: str) -> None:
    assert words in _one_line_error(spec)


def test_absurdly_nested_json_is_refused_not_a_crash() -> None:
    assert "nested too deeply" in _one_line_error("[" * 100_000)
    assert "single value" in _one_line_error('{"hand_size": ' + "[" * 500 + "]" * 500 + "}")


def test_huge_text_and_huge_numbers_are_refused_unread(tmp_path) -> None:
    padded = '{"hand_size": 7' + " " * MAX_RULES_CHARS + "}"
    assert "too long" in _one_line_error(padded)
    big = tmp_path / "big.json"
    big.write_text(padded)
    assert "too big" in _one_line_error(big)
    assert "far too long" in _one_line_error('{"hand_size": ' + "9" * 5000 + "}")
    assert "..." in _one_line_error('{"start_double": "' + "x" * 10_000 + '"}')


def test_an_unreadable_file_is_a_clear_error(tmp_path) -> None:
    assert "does not exist" in _one_line_error(tmp_path / "missing.json")
    assert "is not a regular file" in _one_line_error(str(tmp_path), allow_files=True)
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"hand_size": "\xe9"}')
    assert "not UTF-8" in _one_line_error(latin)
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert "broken.json': house rules are not valid JSON" in _one_line_error(broken)


def test_house_rules_errors_carry_the_code_the_service_answers_with() -> None:
    with pytest.raises(HouseRulesError) as err:
        HouseRules.parse("nonsense")
    assert err.value.code == "invalid_house_rules"


def test_the_rules_help_on_the_cli_and_the_api_names_every_preset() -> None:
    from service.routers.common import RULES_HELP as API_RULES_HELP

    assert all(name in common.RULES_HELP and name in API_RULES_HELP for name in PRESETS)


# -- the command line -------------------------------------------------------------

@pytest.mark.parametrize("command", ["score", "audit", "watch", "simulate"])
def test_every_command_that_uses_house_rules_takes_the_rules_option(command: str) -> None:
    from service.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    rules = [a for a in sub.choices[command]._actions if a.dest == "rules"]
    assert rules and rules[0].metavar == "PRESET|FILE|JSON"


def _score(capsys, *argv: str) -> dict:
    assert main(["score", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_score_rules_accepts_a_preset_a_file_and_an_inline_object(photo, rules_file, fake_recognizer, capsys) -> None:
    assert _score(capsys, str(photo))["score"] == 10
    for spec in ("howto", str(rules_file), HOWTO_JSON):
        report = _score(capsys, "--rules", spec, str(photo))
        assert report["score"] == 60 and report["house_rules"] == HOWTO.to_dict(), spec


def test_score_double_blank_option_overrides_the_rules(photo, fake_recognizer, capsys) -> None:
    report = _score(capsys, "--rules", "howto", "--double-blank", "25", str(photo))
    assert report["score"] == 35 and report["house_rules"]["double_blank_value"] == 25


def test_score_with_bad_rules_is_a_one_line_error_before_any_photo_is_read(photo, fake_recognizer, capsys) -> None:
    assert main(["score", "--rules", "nonsense", str(photo)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"chickenfoot score: --rules: unknown preset 'nonsense' and no such file; give a preset " \
                           f"({PRESET_NAMES}), a JSON object or a JSON file\n"


@pytest.fixture(scope="module")
def table_scene():
    from lab.synth.table import render_table

    return render_table(np.random.default_rng(8), (800, 600), 9, plant_kind="too_many_arms")


@pytest.fixture
def table_photo(table_scene, tmp_path, monkeypatch) -> Path:
    class LabelsAsDetector:
        def recognize_loaded(self, img, set_max=None, level=False) -> Recognition:
            tiles = table_scene.tiles
            up = [TileDetection(t.id, t.corners, 1.0, False, t.pips, 1.0) for t in tiles if not t.face_down]
            down = [TileDetection(t.id, t.corners, 1.0, True) for t in tiles if t.face_down]
            return Recognition(img.source, img.width, img.height, up, down, set_max or 9)

    monkeypatch.setattr(common, "load_recognizer", lambda model: LabelsAsDetector())
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), table_scene.image)
    return path


def _audit(capsys, *argv: str) -> dict:
    assert main(["audit", "--json", "--set", "9", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_audit_rules_accepts_a_preset_a_file_and_an_inline_object(table_photo, tmp_path, capsys) -> None:
    """The planted spinner has five arms: too many under four-arm rules, unfinished under six."""
    rules_file = tmp_path / "six.json"
    rules_file.write_text('{"spinner_arms": 6}')
    assert "too_many_arms" in [v["rule"] for v in _audit(capsys, str(table_photo))["violations"]]
    for spec in ("montgomery", str(rules_file), '{"spinner_arms": 6}'):
        result = _audit(capsys, "--rules", spec, str(table_photo))
        rules = [v["rule"] for v in result["violations"]]
        assert "too_many_arms" not in rules and "spinner_arms_unfinished" in rules, spec
        assert result["house_rules"]["spinner_arms"] == 6


def test_audit_arms_option_overrides_the_rules(table_photo, capsys) -> None:
    result = _audit(capsys, "--rules", "montgomery", "--arms", "4", str(table_photo))
    assert result["house_rules"]["spinner_arms"] == 4 and result["house_rules"]["double_blank_value"] == 50


def _cli(*argv: str) -> subprocess.CompletedProcess:
    code = "from service.cli import main; raise SystemExit(main())"
    return subprocess.run([sys.executable, "-c", code, *argv], cwd=REPO, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("command", ["score", "audit"])
def test_bad_rules_exit_non_zero_with_one_line_from_the_real_command(command: str, photo) -> None:
    proc = _cli(command, "--rules", '{"double_blank_value": 7}', str(photo))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"chickenfoot {command}: --rules: double_blank_value must be 0, 25 or 50, got 7\n"


# -- the API ----------------------------------------------------------------------

@pytest.fixture
def app(tmp_path):
    app = create_app(Settings(db_path=tmp_path / "games.sqlite3", live_min_interval=0.0))
    app.dependency_overrides[get_recognizer] = HandOfDoubleBlankAndSixFour
    return app


@pytest.fixture
def client(app):
    with TestClient(app, base_url=BASE) as c:
        yield c


def _png() -> dict:
    ok, buf = cv2.imencode(".png", np.full((120, 160, 3), 200, np.uint8))
    return {"photo": ("hand.png", buf.tobytes(), "image/png")}


def _rules_refused(resp) -> str:
    assert resp.status_code == 422, resp.text
    body = resp.json()
    assert body["error"] == "invalid_house_rules" and "Traceback" not in body["message"]
    return body["message"]


def test_api_score_agrees_with_the_cli_on_every_form(client, photo, rules_file, fake_recognizer, capsys) -> None:
    for spec in ("howto", HOWTO_JSON):
        api = client.post("/api/v1/score?annotate=false", files=_png(), data={"house_rules": spec}).json()
        cli = _score(capsys, "--rules", spec, str(photo))
        assert api["score"] == cli["score"] == 60 and api["house_rules"] == cli["house_rules"], spec


@pytest.mark.parametrize("spec, words", [
    ("nonsense", "unknown preset 'nonsense'"),
    ("{not json", "not valid JSON"),
    ('{"spinner_arms": 5}', "4 or 6"),
    ("[" * 50_000, "nested too deeply"),
])
def test_api_score_and_audit_refuse_bad_rules_with_json_422(client, spec: str, words: str) -> None:
    for route in ("/api/v1/score", "/api/v1/audit"):
        assert words in _rules_refused(client.post(route, files=_png(), data={"house_rules": spec})), route


def test_api_never_reads_a_file_named_as_house_rules(client, rules_file) -> None:
    message = _rules_refused(client.post("/api/v1/score", files=_png(), data={"house_rules": str(rules_file)}))
    assert "cannot be read from a file here" in message


def test_api_games_take_house_rules_as_a_preset_an_object_or_json_text(client) -> None:
    for spec in ("howto", {"double_blank_value": 50}, HOWTO_JSON):
        game = client.post("/api/v1/games", json={"players": ["A", "B"], "house_rules": spec})
        assert game.status_code == 201 and game.json()["house_rules"] == HOWTO.to_dict(), spec
    message = _rules_refused(client.post("/api/v1/games", json={"players": ["A", "B"], "house_rules": "{bad"}))
    assert message.startswith("house rules are not valid JSON")


def test_api_live_reads_house_rules_the_same_way_and_refuses_bad_ones(tmp_path) -> None:
    seen = []

    class Recorder:
        def __init__(self, options) -> None:
            seen.append(options)

        def close(self) -> None:
            pass

    app = create_app(Settings(db_path=tmp_path / "g.sqlite3", live_min_interval=0.0), tracker_factory=Recorder)
    headers = {"host": "127.0.0.1:8000"}
    with TestClient(app, base_url=BASE) as c:
        with c.websocket_connect(f"/api/v1/live?house_rules={quote(HOWTO_JSON)}", headers=headers) as ws:
            assert json.loads(ws.receive_text())["type"] == "ready"
        with c.websocket_connect("/api/v1/live?house_rules=nonsense", headers=headers) as ws:
            error = json.loads(ws.receive_text())
    assert seen[0].rules == HOWTO
    assert error["type"] == "error" and error["error"] == "invalid_house_rules"
    assert "unknown preset 'nonsense'" in error["message"]
