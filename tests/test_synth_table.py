"""Table scenes: the ground truth must be a layout the engine accepts, drawn where the tiles are."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine import HouseRules, audit_layout
from lab.synth.scene import TileLabel
from lab.synth.table import PLANT_KINDS, plan_table, render_table, truth_layout


def _audit(plan_or_scene, labels: list[TileLabel]):
    meta = plan_or_scene.meta
    rules = HouseRules.from_dict(meta["rules"])
    return audit_layout(truth_layout(plan_or_scene.layout, labels), plan_or_scene.set_max, rules,
                        meta["round_double"])


def _gap(a: np.ndarray, b: np.ndarray) -> float:
    """Distance between two convex quads in pixels, or minus their overlap area."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    if inter > 1.0:
        return -float(inter)

    def point_to_quad(p: np.ndarray, q: np.ndarray) -> float:
        best = np.inf
        for i in range(4):
            s0, s1 = q[i], q[(i + 1) % 4]
            e = s1 - s0
            t = np.clip(np.dot(p - s0, e) / (np.dot(e, e) + 1e-12), 0, 1)
            best = min(best, float(np.linalg.norm(p - (s0 + t * e))))
        return best

    a, b = a.astype(np.float64), b.astype(np.float64)
    return min(min(point_to_quad(p, b) for p in a), min(point_to_quad(p, a) for p in b))


@pytest.mark.parametrize("seed", range(12))
def test_truth_of_a_legal_table_audits_clean(seed: int) -> None:
    plan = plan_table(np.random.default_rng(seed), plant_kind=None)
    report = _audit(plan, plan.labels())
    assert report.violations == [], report.violations
    assert plan.meta["planted"] == []
    assert report.spinner_id == plan.layout["spinner"]
    # every layout tile is a node of the truth and the tree has one edge per non-spinner tile
    assert len(plan.layout["edges"]) == len(plan.layout["tiles"]) - 1


@pytest.mark.parametrize("kind", PLANT_KINDS)
def test_planted_table_breaks_exactly_the_planted_rule(kind: str) -> None:
    plan = plan_table(np.random.default_rng(7), plant_kind=kind)
    report = _audit(plan, plan.labels())
    assert report.rules_broken() == [kind]
    assert plan.meta["planted"][0]["rule"] == kind
    assert plan.meta["planted"][0]["tiles"]


@pytest.mark.parametrize("seed", range(6))
def test_touching_tiles_touch_in_the_image(seed: int) -> None:
    plan = plan_table(np.random.default_rng(100 + seed), plant_kind=None)
    labels = plan.labels()
    for e in plan.layout["edges"]:
        a, b = labels[e["from"]].corners, labels[e["to"]].corners
        width = float(np.linalg.norm(a[0] - a[1]))
        gap = _gap(a, b)
        assert gap < 0.2 * width, (e, gap / width)  # a few millimetres at most
        assert gap > -0.02 * width * width, (e, gap)  # and never lying on each other


def test_unrelated_tiles_keep_clear_of_each_other() -> None:
    plan = plan_table(np.random.default_rng(3), plant_kind=None)
    labels = plan.labels()
    layout_ids = set(plan.layout["tiles"])
    for i in layout_ids:
        for j in layout_ids:
            if i < j:
                inter, _ = cv2.intersectConvexConvex(labels[i].corners, labels[j].corners)
                assert inter < 1.0, (i, j)


def test_rendered_table_has_layout_hands_and_boneyard_small_in_frame() -> None:
    from lab.synth.dataset import render_kind

    scene = render_kind("table", np.random.default_rng(11), (1280, 960), 12)
    assert scene.image.shape == (960, 1280, 3)
    assert scene.kind == "table"
    layout_tiles = [t for t in scene.tiles if t.node is not None]
    assert len(layout_tiles) == len(scene.layout["tiles"])
    assert any(t.face_down for t in scene.tiles)  # the boneyard, hands laid face down
    assert len(scene.tiles) > len(layout_tiles)
    widths = [float(np.linalg.norm(t.corners[0] - t.corners[1])) for t in layout_tiles]
    assert np.median(widths) < 0.06 * 1280  # a whole table in one photo: tiles are small
    assert _audit(scene, scene.tiles).violations == [] or scene.meta["planted"]


def test_sixty_tile_tables_can_be_laid() -> None:
    from lab.layout_eval import big_tables

    plans = big_tables(1, seed=0, min_tiles=55)
    assert plans and len(plans[0].layout["tiles"]) >= 55
    assert _audit(plans[0], plans[0].labels()).violations == []


def test_unknown_plant_kind_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown violation to plant"):
        plan_table(np.random.default_rng(0), plant_kind="cheating")


def test_render_table_draws_the_planted_variant() -> None:
    scene = render_table(np.random.default_rng(5), (640, 480), 9, plant_kind="too_many_toes")
    assert scene.meta["planted"][0]["rule"] == "too_many_toes"
    assert _audit(scene, scene.tiles).rules_broken() == ["too_many_toes"]
