"""Auditing a still picture of the layout: one test per provable violation."""
from __future__ import annotations

import json
import random

import pytest

from engine import (
    AuditReport,
    HouseRules,
    Layout,
    LayoutBuilder,
    LayoutEdge,
    audit_layout,
    layout_from_board,
    random_round,
)
from engine import AUDIT_RULES

RULES = HouseRules()


def audit(layout: Layout, rules: HouseRules = RULES, round_double: int | None = 9, set_max: int = 9) -> AuditReport:
    return audit_layout(layout, set_max, rules, round_double)


def only(report: AuditReport, rule: str) -> list[int]:
    """The tiles of the single violation, checking it is the only kind reported."""
    assert report.rules_broken() == [rule], report.violations
    assert len(report.violations) == 1, report.violations
    assert report.violations[0].message
    return report.violations[0].tiles


def full_spinner(b: LayoutBuilder, values: tuple[int, ...] = (1, 2, 3, 4)) -> tuple[int, list[int]]:
    s = b.tile(9, 9)
    return s, [b.tile(9, v, on=s) for v in values]


def test_legal_layout_has_no_violations() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b)
    c = b.tile(1, 1, on=arms[0])
    toes = [b.tile(1, v, on=c) for v in (5, 6, 7)]
    tail = b.tile(5, 0, on=toes[0])
    report = audit(b.build(spinner_id=s))
    assert report.ok and report.violations == []
    assert report.arms == arms
    assert [(ch.tile_id, ch.toe_ids, ch.missing) for ch in report.chickies] == [(c, toes, 0)]
    assert sorted((o.tile_id, o.value) for o in report.open_ends) == sorted(
        [(arms[1], 2), (arms[2], 3), (arms[3], 4), (toes[1], 6), (toes[2], 7), (tail, 0)]
    )
    assert all(o.playable_now for o in report.open_ends)


def test_ends_that_do_not_match() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b)
    bad = b.tile(3, 5, on=arms[3], touching=4)
    assert only(audit(b.build(s)), "ends_do_not_match") == sorted([arms[3], bad])


def test_spinner_with_more_arms_than_allowed() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b, (1, 2, 3, 4, 5))
    assert only(audit(b.build(s)), "too_many_arms") == sorted([s, *arms])


def test_six_arms_allowed_with_double_chickenfoot_but_not_seven() -> None:
    b = LayoutBuilder()
    s, _ = full_spinner(b, (1, 2, 3, 4, 5, 6))
    six = HouseRules(spinner_arms=6)
    assert audit(b.build(s), six).ok
    assert not audit(b.build(s)).ok
    b.tile(9, 7, on=s)
    only(audit(b.build(s), six), "too_many_arms")


def test_wrong_double_for_the_round() -> None:
    b = LayoutBuilder()
    s = b.tile(8, 8)
    b.tile(8, 1, on=s)
    assert only(audit(b.build(s), round_double=9), "wrong_spinner") == [s]
    assert audit(b.build(s), round_double=8).ok


def test_lower_spinner_allowed_with_highest_available_double_but_not_a_higher_one() -> None:
    b = LayoutBuilder()
    s = b.tile(8, 8)
    b.tile(8, 1, on=s)
    rules = HouseRules(start_double="highest_available")
    assert audit(b.build(s), rules, round_double=9).ok
    only(audit(b.build(s), rules, round_double=7), "wrong_spinner")


def test_spinner_that_is_not_a_double() -> None:
    b = LayoutBuilder()
    s = b.tile(9, 4)
    b.tile(4, 1, on=s)
    assert only(audit(b.build(s), round_double=None), "spinner_not_double") == [s]


def test_no_double_to_start_from() -> None:
    b = LayoutBuilder()
    a = b.tile(9, 4)
    b.tile(4, 1, on=a)
    report = audit(b.build(), round_double=None)
    assert report.rules_broken() == ["no_spinner"] and report.spinner_id is None


def test_chickie_with_more_than_three_toes() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b)
    c = b.tile(2, 2, on=arms[1])
    toes = [b.tile(2, v, on=c) for v in (0, 3, 5, 6)]
    assert only(audit(b.build(s)), "too_many_toes") == sorted([c, *toes])


def test_play_beyond_an_unfinished_chickie() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b)
    c = b.tile(2, 2, on=arms[1])
    t1 = b.tile(2, 5, on=c)
    t2 = b.tile(2, 6, on=c)
    beyond = b.tile(5, 0, on=t1)
    report = audit(b.build(s))
    assert only(report, "chickie_unfinished") == sorted([c, beyond])
    assert "one more toe" in report.violations[0].message
    assert t2 not in report.violations[0].tiles


def test_two_unfinished_chickies_at_once() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b)
    c1 = b.tile(1, 1, on=arms[0])
    b.tile(1, 5, on=c1)
    c2 = b.tile(3, 3, on=arms[2])
    report = audit(b.build(s))
    assert only(report, "chickie_unfinished") == sorted([c1, c2])
    assert len(report.chickies) == 2


def test_one_unfinished_chickie_alone_is_legal_and_blocks_the_other_ends() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b)
    c = b.tile(4, 4, on=arms[3])
    b.tile(4, 0, on=c)
    report = audit(b.build(s))
    assert report.ok
    assert report.chickies[0].missing == 2
    now = {(o.tile_id, o.value, o.free) for o in report.open_ends if o.playable_now}
    assert now == {(c, 4, 2)}
    assert all(o.accepts is None for o in report.open_ends if o.tile_id != c)


def test_play_beyond_the_spinner_before_its_arms_are_done() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b, (1, 2))
    beyond = b.tile(1, 7, on=arms[0])
    report = audit(b.build(s))
    assert only(report, "spinner_arms_unfinished") == sorted([s, beyond])
    assert "two more arms" in report.violations[0].message


def test_spinner_still_short_of_arms_with_nothing_beyond_is_legal() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b, (1, 2))
    report = audit(b.build(s))
    assert report.ok
    assert [(o.tile_id, o.free, o.playable_now) for o in report.open_ends if o.tile_id == s] == [(s, 2, True)]
    assert not any(o.playable_now for o in report.open_ends if o.tile_id != s)


def test_a_tile_that_appears_twice() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b)
    again = b.tile(1, 9, on=arms[0], touching=1)  # a second 9-1 hanging off the first
    assert only(audit(b.build(s)), "duplicate_tile") == sorted([arms[0], again])


def test_a_tile_not_in_the_set() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b)
    odd = b.tile(4, 11, on=arms[3])
    assert only(audit(b.build(s)), "tile_not_in_set") == [odd]
    assert audit(b.build(s), set_max=12).ok


def test_tiles_not_connected_to_the_layout() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b)
    a = b.tile(7, 5)
    c = b.tile(5, 3, on=a)
    lone = b.tile(8, 0)
    report = audit(b.build(s))
    assert report.rules_broken() == ["not_connected"]
    assert sorted(v.tiles for v in report.violations) == sorted([sorted([a, c]), [lone]])
    assert report.loose_tile_ids == sorted([a, c, lone])


def test_an_end_used_twice() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b)
    x = b.tile(4, 0, on=arms[3])
    y = b.tile(4, 5, on=arms[3])
    assert only(audit(b.build(s)), "end_used_twice") == sorted([arms[3], x, y])


def test_tiles_touching_in_a_ring() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b)
    x = b.tile(1, 5, on=arms[0])
    y = b.tile(2, 5, on=arms[1])
    b.connect(x, 5, y, 5)
    assert only(audit(b.build(s)), "extra_connection") == sorted([x, y])


def test_contacts_that_name_missing_tiles_or_ends() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b)
    b.connect(arms[0], 1, 99, 1)
    b.connect(arms[1], 7, s, 9)
    assert audit(b.build(s)).rules_broken() == ["bad_edge"]


def test_every_violation_kind_has_a_test() -> None:
    covered = {
        "ends_do_not_match", "too_many_arms", "wrong_spinner", "spinner_not_double", "no_spinner",
        "too_many_toes", "spinner_arms_unfinished", "chickie_unfinished", "duplicate_tile",
        "tile_not_in_set", "not_connected", "end_used_twice", "extra_connection", "bad_edge",
    }
    assert covered == set(AUDIT_RULES)


# --- orienting, inferring, converting ----------------------------------------------------


def test_edges_may_arrive_in_either_direction_and_twice() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b)
    c = b.tile(1, 1, on=arms[0])
    for v in (5, 6, 7):
        b.tile(1, v, on=c)
    layout = b.build(s)
    flipped = [
        LayoutEdge(e.to_id, e.to_pips, e.from_id, e.from_pips) if i % 2 else e for i, e in enumerate(layout.edges)
    ]
    report = audit(Layout(layout.tiles, flipped + layout.edges[:3], s))
    assert report.ok
    assert report.parents[c] == arms[0] and report.parents[s] is None


def test_spinner_is_inferred_when_the_camera_does_not_know_it() -> None:
    b = LayoutBuilder()
    c = b.tile(1, 1)
    arm = b.tile(1, 9, on=c)
    s = b.tile(9, 9, on=arm)
    for v in (2, 3, 4):
        b.tile(9, v, on=s)
    b.tile(1, 5, on=c)
    report = audit(b.build())
    assert report.spinner_id == s and report.spinner_inferred
    assert report.ok


@pytest.mark.parametrize("set_max, players, rules", [
    (6, 2, HouseRules()),
    (9, 4, HouseRules()),
    (9, 4, HouseRules(start_double="highest_available")),
    (12, 6, HouseRules(spinner_arms=6)),
    (15, 8, HouseRules(hand_size="table", spinner_arms=6)),
    (18, 10, HouseRules(voluntary_draw=True, chickenlittle=True)),
])
def test_layouts_from_real_play_have_no_violations(set_max: int, players: int, rules: HouseRules) -> None:
    rng = random.Random(set_max * 100 + players)
    for i in range(25):
        state = random_round(set_max, players, rng, rules, round_index=i % (set_max + 1),
                             max_plays=None if i % 3 else rng.randrange(1, 30))
        report = audit_layout(state.to_layout(), set_max, rules, state.round_double)
        assert report.violations == [], (i, report.violations)
        assert report.loose_tile_ids == []
        assert len(report.parents) == len(state.board)
        engine_ends = sorted((e.node, e.value) for e in state.open_ends())
        audit_ends = sorted((o.tile_id, o.value) for o in report.open_ends for _ in range(o.free))
        assert audit_ends == engine_ends
        forced = state.board.forced_ends()
        if forced is not None:
            assert {o.tile_id for o in report.open_ends if o.playable_now} == {forced[0].node}
        unknown = Layout(state.to_layout().tiles, list(reversed(state.to_layout().edges)))
        assert audit_layout(unknown, set_max, rules).violations == []


def test_layout_from_board_gives_one_tile_per_placement_and_child_to_parent_edges() -> None:
    state = random_round(9, 4, random.Random(7), max_plays=12)
    layout = layout_from_board(state.board)
    assert len(layout.tiles) == len(state.board) and len(layout.edges) == len(state.board) - 1
    assert layout.spinner_id == 0
    assert all(e.from_pips == e.to_pips for e in layout.edges)


def test_report_and_layout_serialise_to_json() -> None:
    b = LayoutBuilder()
    s, arms = full_spinner(b)
    b.tile(3, 5, on=arms[3], touching=4)
    layout = b.build(s)
    assert Layout.from_dict(json.loads(json.dumps(layout.to_dict()))) == layout
    data = json.loads(json.dumps(audit(layout).to_dict()))
    assert data["ok"] is False
    assert data["violations"][0]["rule"] == "ends_do_not_match"
    assert set(data) >= {"violations", "spinner_id", "chickies", "open_ends", "loose_tile_ids", "rules"}


def test_empty_layout_is_clean() -> None:
    assert audit(Layout([], [])).ok
