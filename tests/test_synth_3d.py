"""The 3D renderer's labels must describe its pixels: poses, faces, walls and occlusion."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from lab.synth.dataset import _detect_label_lines
from lab.synth.render3d import (POSES, READABLE_POSES, World, flat_box, render_hand3d, render_table3d,
                                   render_world, standing_box)
from lab.synth.tileface import random_style

RED = (210, 40, 40)  # RGB of the test set's faces and bodies: unlike any table surface hue check below


def _world(boxes, seed: int = 0) -> World:
    style = random_style(np.random.default_rng(seed), 6)
    style.body = RED
    style.back_rgb = RED
    style.texture = 0.0
    return World(boxes, style, 6, "test")


def _camera(elevation: float) -> dict:
    # azimuth 90: the camera looks along +y, so it stands on the -y side of the tiles
    return {"elevation": elevation, "azimuth": 90.0, "fov": 70.0, "roll": 0.0, "k1": 0.0, "k2": 0.0}


def _shot(boxes, elevation: float, seed: int = 1, size=(640, 480)):
    return render_world(np.random.default_rng(seed), _world(boxes), size, "test3d",
                        cam_params=_camera(elevation), effects=False)


def _quad_mask(shape, corners, scale: float = 1.0) -> np.ndarray:
    c = corners.mean(0) + (corners - corners.mean(0)) * scale
    m = np.zeros(shape[:2], np.uint8)
    cv2.fillConvexPoly(m, np.round(c).astype(np.int32), 1)
    return m.astype(bool)


def _reddish(img: np.ndarray) -> np.ndarray:
    b, g, r = (img[..., k].astype(int) for k in range(3))
    return (r > g + 50) & (r > b + 50)


def test_same_seed_same_picture_and_labels():
    for render in (render_hand3d, render_table3d):
        one = render(np.random.default_rng(7), (320, 240))
        two = render(np.random.default_rng(7), (320, 240))
        other = render(np.random.default_rng(8), (320, 240))
        assert np.array_equal(one.image, two.image)
        assert json.dumps(one.to_dict()) == json.dumps(two.to_dict())  # also: the labels are plain JSON
        assert not np.array_equal(one.image, other.image)


def test_labels_carry_pose_and_count_every_pip():
    for seed in range(6):
        sc = render_hand3d(np.random.default_rng(seed), (480, 360))
        for t in sc.tiles:
            assert t.pose in POSES
            assert t.face_down == (t.pose not in READABLE_POSES)
            assert 0.0 <= t.visible <= 1.0
            if t.face_down:
                assert not t.pip_points
            else:
                assert len(t.pip_points) + t.pip_hidden == sum(t.pips)
            assert set(t.to_dict()) >= {"corners", "pose", "visible", "face_down", "level"}


def test_face_up_label_quad_lies_on_the_face():
    sc = _shot([flat_box(0, 0, 0.3, True, 2.0, 0.3, 0, 0)], 50)
    (t,) = sc.tiles
    assert t.pose == "flat_up" and not t.face_down
    inside = _quad_mask(sc.image.shape, t.corners, 0.8)
    assert inside.sum() > 500
    assert _reddish(sc.image)[inside].mean() > 0.9  # a blank (0|0) face: all body colour
    ring = _quad_mask(sc.image.shape, t.corners, 1.5) & ~_quad_mask(sc.image.shape, t.corners, 1.15)
    assert _reddish(sc.image)[ring].mean() < 0.5  # and the label does not reach far past it


def test_backs_are_labelled_unreadable_and_never_as_faces():
    facing_away = np.array([0.0, 1.0, 0.0])  # the camera is on the -y side
    boxes = [flat_box(-1.5, 0, 0.0, False, 2.0, 0.3, 3, 4),
             standing_box(1.5, 0, 0.0, facing_away, 0.0, 2.0, 0.3, 5, 6)]
    sc = _shot(boxes, 30)
    poses = {t.pips: t for t in sc.tiles}
    assert poses[(3, 4)].pose == "flat_down" and poses[(3, 4)].face_down
    assert poses[(5, 6)].pose == "stand_away" and poses[(5, 6)].face_down
    assert all(not t.pip_points and not t.readable for t in sc.tiles)
    h, w = sc.image.shape[:2]
    lines = _detect_label_lines(sc, w, h)
    assert lines and all(line.startswith("1 ") for line in lines)  # class "back", never "tile"


def test_standing_tile_facing_the_camera_is_readable():
    toward = np.array([0.0, -1.0, 0.0])
    sc = _shot([standing_box(0, 0, 0.0, toward, 0.2, 2.0, 0.3, 2, 5)], 25)
    (t,) = sc.tiles
    assert t.pose == "lean_toward" and not t.face_down
    assert len(t.pip_points) == 7


def test_low_camera_shows_side_walls_beside_the_face():
    def wall_pixels(elevation: float) -> int:
        sc = _shot([flat_box(0, 0, 0.0, True, 2.0, 0.3, 0, 0)], elevation)
        (t,) = sc.tiles
        near = _quad_mask(sc.image.shape, t.corners, 1.6) & ~_quad_mask(sc.image.shape, t.corners, 1.03)
        return int((_reddish(sc.image) & near).sum()), int(_quad_mask(sc.image.shape, t.corners).sum())

    low, low_face = wall_pixels(20)
    top, top_face = wall_pixels(90)
    assert low > 0.08 * low_face  # the wall toward the camera shows below the face
    assert top < 0.05 * top_face  # from straight above the walls are hidden under the face


def test_visible_fraction_drops_behind_an_occluder():
    back_tile = flat_box(0, 0, 0.0, True, 2.0, 0.3, 1, 2)
    alone = _shot([back_tile], 20)
    toward = np.array([0.0, -1.0, 0.0])
    wall = standing_box(0, -0.9, 0.0, toward, 0.0, 2.0, 0.3, 3, 3)
    hidden = _shot([flat_box(0, 0, 0.0, True, 2.0, 0.3, 1, 2), wall], 20)
    vis_alone = alone.tiles[0].visible
    vis_hidden = next(t for t in hidden.tiles if t.pips == (1, 2)).visible
    assert vis_alone > 0.9
    assert vis_hidden < vis_alone - 0.2


@pytest.mark.parametrize("kind", ["hand3d", "table3d"])
def test_dataset_renders_the_3d_kinds(kind):
    from lab.synth.dataset import render_kind

    sc = render_kind(kind, np.random.default_rng(3), (320, 240), None)
    assert sc.kind == kind and sc.image.shape == (240, 320, 3)
    assert "camera" in sc.meta


def test_labels_follow_the_bent_lens():
    """A wide-angle lens moves a tile near the frame's corner; its label must move with it."""
    params = {**_camera(60), "k1": 0.25, "k2": 0.02, "fov": 100.0}
    boxes = [flat_box(-4.0, 2.5, 0.4, True, 2.0, 0.3, 0, 0), flat_box(4.0, -2.5, 1.2, True, 2.0, 0.3, 0, 0)]
    sc = render_world(np.random.default_rng(2), _world(boxes), (640, 480), "test3d", cam_params=params,
                      effects=False)
    assert sc.meta["camera"]["k1"] == 0.25
    for t in sc.tiles:
        inside = _quad_mask(sc.image.shape, t.corners, 0.75)
        assert inside.sum() > 200
        assert _reddish(sc.image)[inside].mean() > 0.9
