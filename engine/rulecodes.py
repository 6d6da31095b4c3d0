"""The names of the rules, one vocabulary for the whole engine.

A turn the engine refuses (`IllegalPlay.code`) and a layout a photo shows breaking a rule
(`audit.Violation.rule`) speak of the same rules: an end laid against the wrong number is
`ends_do_not_match` in both. Each is a `Rule`, a string enum, so it travels as its plain
value in JSON and compares equal to it.
"""
from __future__ import annotations

from enum import StrEnum


class Rule(StrEnum):
    # turns refused
    ILLEGAL_PLAY = "illegal_play"
    ROUND_OVER = "round_over"
    NOT_YOUR_TURN = "not_your_turn"
    TILE_NOT_IN_HAND = "tile_not_in_hand"
    NO_SUCH_OPEN_END = "no_such_open_end"
    ONLY_DRAWN_TILE = "only_drawn_tile"
    MUST_DRAW_FIRST = "must_draw_first"
    MUST_PLAY = "must_play"
    ALREADY_DREW = "already_drew"
    BONEYARD_EMPTY = "boneyard_empty"
    TILE_NOT_IN_BONEYARD = "tile_not_in_boneyard"
    NOTHING_TO_ANNOUNCE = "nothing_to_announce"
    CANNOT_UNDO = "cannot_undo"
    # both: a turn refused for it, and a layout that shows it broken
    ENDS_DO_NOT_MATCH = "ends_do_not_match"
    SPINNER_ARMS_UNFINISHED = "spinner_arms_unfinished"
    CHICKIE_UNFINISHED = "chickie_unfinished"
    TILE_NOT_IN_SET = "tile_not_in_set"
    # what only a layout shows
    TOO_MANY_ARMS = "too_many_arms"
    WRONG_SPINNER = "wrong_spinner"
    SPINNER_NOT_DOUBLE = "spinner_not_double"
    NO_SPINNER = "no_spinner"
    TOO_MANY_TOES = "too_many_toes"
    DUPLICATE_TILE = "duplicate_tile"
    NOT_CONNECTED = "not_connected"
    END_USED_TWICE = "end_used_twice"
    EXTRA_CONNECTION = "extra_connection"
    BAD_EDGE = "bad_edge"


AUDIT_RULES: tuple[Rule, ...] = (
    Rule.ENDS_DO_NOT_MATCH, Rule.TOO_MANY_ARMS, Rule.WRONG_SPINNER, Rule.SPINNER_NOT_DOUBLE, Rule.NO_SPINNER,
    Rule.TOO_MANY_TOES, Rule.SPINNER_ARMS_UNFINISHED, Rule.CHICKIE_UNFINISHED, Rule.DUPLICATE_TILE,
    Rule.TILE_NOT_IN_SET, Rule.NOT_CONNECTED, Rule.END_USED_TWICE, Rule.EXTRA_CONNECTION, Rule.BAD_EDGE,
)
"""The rules a still picture of a layout can show broken (`engine.audit`)."""
