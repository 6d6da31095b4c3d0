"""One vocabulary of rules for refused turns and for layouts that break them."""
from __future__ import annotations

import json

import engine
from engine import AUDIT_RULES, EndsDoNotMatch, IllegalPlay, Rule
from engine.errors import ILLEGAL_PLAY_TYPES


def _refusals() -> list[type[IllegalPlay]]:
    return [obj for obj in vars(engine).values() if isinstance(obj, type) and issubclass(obj, IllegalPlay)]


def test_every_refused_turn_names_a_rule():
    assert all(isinstance(cls.code, Rule) for cls in _refusals())


def test_every_rule_a_layout_can_break_is_a_rule():
    assert all(isinstance(r, Rule) for r in AUDIT_RULES)


def test_a_rule_broken_in_play_and_in_a_photo_has_one_name():
    assert EndsDoNotMatch.code is Rule.ENDS_DO_NOT_MATCH and Rule.ENDS_DO_NOT_MATCH in AUDIT_RULES


def test_rules_travel_as_their_plain_names():
    assert json.dumps({"rule": Rule.TOO_MANY_TOES}) == '{"rule": "too_many_toes"}'
    assert EndsDoNotMatch("x").to_dict() == {"code": "ends_do_not_match", "message": "x"}
    assert ILLEGAL_PLAY_TYPES["ends_do_not_match"] is EndsDoNotMatch
