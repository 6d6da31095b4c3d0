"""The 3D renderer's light and its per-process caches: shadows fall where the light says, the
glossy streak sits at the mirror point, cached faces and surfaces change no label and no pixel."""
from __future__ import annotations

import cv2
import numpy as np

from lab.synth import render3d, surfacepool
from lab.synth.render3d import (POSES, Gloss, Lights, World, flat_box, render_hand3d, render_world,
                                   standing_box)
from lab.synth.tileface import FaceSprites, draw_tile, random_style


def _world(boxes) -> World:
    style = random_style(np.random.default_rng(0), 6)
    style.body = style.back_rgb = (230, 60, 60)
    style.texture = 0.0
    return World(boxes, style, 6, "test")


def _lights(toward: np.ndarray, elevation_deg: float = 35.0) -> Lights:
    e = np.radians(elevation_deg)
    d = np.array([np.cos(e) * toward[0], np.cos(e) * toward[1], np.sin(e)])
    return Lights([d / np.linalg.norm(d)], [0.8], 0.4, 0.0)


def _shot(boxes, lights: Lights, seed: int = 3):
    # camera straight down over the scene: world +x is picture right, +y picture up
    params = {"elevation": 90.0, "azimuth": 90.0, "fov": 60.0, "roll": 0.0, "k1": 0.0, "k2": 0.0}
    return render_world(np.random.default_rng(seed), _world(boxes), (640, 480), "test3d", cam_params=params,
                        effects=False, lights=lights)


def _brightness_beside(sc, box_label, offset_px: np.ndarray) -> float:
    """Mean grey level of a small square `offset_px` from the labelled face's centre."""
    c = box_label.corners.mean(0) + offset_px
    x, y = int(c[0]), int(c[1])
    patch = cv2.cvtColor(sc.image, cv2.COLOR_BGR2GRAY)[y - 6:y + 6, x - 6:x + 6]
    return float(patch.mean())


def test_a_standing_tile_shadows_the_table_on_the_side_away_from_the_light():
    # a tile standing along world y, one width high; the camera looks straight down (+x is right).
    # Both shots draw the same table and lamp falloff; only the light's side differs.
    wall = standing_box(0, 0, np.pi / 2, np.array([1.0, 0.0, 0.0]), 0.0, 2.0, 0.3, 3, 3)
    shots = {side: _shot([wall], _lights(np.array([side, 0.0, 0.0]))) for side in (1.0, -1.0)}
    t = shots[1.0].tiles[0]
    width_px = float(np.linalg.norm(t.corners[2] - t.corners[1])) / 2  # the label's long side is 2 widths
    step = np.array([1.05 * width_px, 0.0])  # 0.9 widths beyond the tile's side, inside a 1.4-width shadow
    for side in (1.0, -1.0):  # the point on this side is lit by a light on this side, shaded by the other
        lit = _brightness_beside(shots[side], t, step * side)
        shaded = _brightness_beside(shots[-side], t, step * side)
        assert shaded < 0.85 * lit, (side, lit, shaded)


def test_tall_tiles_shadow_flat_tiles_beside_them():
    flat = flat_box(0.9, 0, np.pi / 2, True, 2.0, 0.3, 0, 0)  # a blank face right of the wall
    wall = standing_box(0, 0, np.pi / 2, np.array([1.0, 0.0, 0.0]), 0.0, 2.0, 0.3, 0, 0)
    lit = _shot([flat, wall], _lights(np.array([1.0, 0.0, 0.0]), 25))  # light from the flat tile's side
    shaded = _shot([flat, wall], _lights(np.array([-1.0, 0.0, 0.0]), 25))  # light from behind the wall
    face_lit = next(t for t in lit.tiles if t.pose == "flat_up")
    face_shaded = next(t for t in shaded.tiles if t.pose == "flat_up")
    assert face_lit.visible > 0.9 and face_shaded.visible > 0.9  # shadows change pixels, not labels
    a = _brightness_beside(lit, face_lit, np.zeros(2))
    b = _brightness_beside(shaded, face_shaded, np.zeros(2))
    assert b < a - 15, (a, b)


def test_the_glossy_streak_sits_where_the_face_mirrors_the_light():
    gloss = Gloss(np.array([1.0, 0.0, 0.0]), 0.2, 1.0, 0.5)
    light = np.array([0.0, 0.6, 0.8])
    eye = np.array([0.0, -6.0, 8.0])  # the face mirrors the light toward the eye at the origin
    quad = np.array([[-0.5, -1.0, 0.0], [0.5, -1.0, 0.0], [0.5, 1.0, 0.0], [-0.5, 1.0, 0.0]])
    n = np.array([0.0, 0.0, 1.0])
    g = gloss.streak(quad, n, eye, light, 40, 80)
    assert g is not None and g.shape == (80, 40)
    y, x = np.unravel_index(int(np.argmax(g)), g.shape)
    assert abs(x - 20) <= 1 and abs(y - 40) <= 1
    assert g.max() <= 0.5 + 1e-6 and g[0, 0] < 0.05 * g.max()
    assert gloss.streak(quad + [0, 20, 0], n, eye, light, 40, 80) is None  # far from the mirror point


def test_cached_faces_carry_the_same_pips_as_a_freshly_drawn_tile():
    style = random_style(np.random.default_rng(5), 12)
    sprites = FaceSprites(style, np.random.default_rng(1))
    for a, b, w in ((0, 12, 32), (6, 9, 48), (11, 3, 32)):
        cached = sprites.get(a, b, w, False)
        fresh = draw_tile(style, a, b, w, np.random.default_rng(2), False)
        assert cached.pips == fresh.pips and cached.rgba.shape == fresh.rgba.shape
    assert sprites.get(0, 0, 32, True) is sprites.get(5, 5, 32, True)  # one back per width


def test_scenes_do_not_depend_on_what_the_process_rendered_before():
    """Workers keep surfaces and noise between scenes; a scene must come out the same from a
    fresh worker as from one that has rendered others."""
    surfacepool._entries.clear()
    render3d._bank.clear()
    fresh = render_hand3d(np.random.default_rng(11), (320, 240))
    for s in range(3):
        render_hand3d(np.random.default_rng(100 + s), (320, 240))
    warm = render_hand3d(np.random.default_rng(11), (320, 240))
    assert np.array_equal(fresh.image, warm.image)
    assert fresh.to_dict() == warm.to_dict()


def test_table_textures_are_reproducible_and_varied():
    one = surfacepool.table_texture(np.random.default_rng(4), (300, 200), 20.0)
    two = surfacepool.table_texture(np.random.default_rng(4), (300, 200), 20.0)
    assert one[1].shape == (200, 300, 3) and one[1].dtype == np.uint8
    assert np.array_equal(one[1], two[1])
    means = {tuple(np.round(surfacepool.table_texture(np.random.default_rng(s), (64, 48), 8.0)[1].mean((0, 1)), -1))
             for s in range(12)}
    assert len(means) >= 8  # recoloured, not one colour over and over


def test_random_hands_show_every_kind_of_pose_with_visible_fractions():
    seen: set[str] = set()
    for seed in range(40):
        sc = render_hand3d(np.random.default_rng(seed), (320, 240), steep=True)
        for t in sc.tiles:
            seen.add(t.pose)
            d = t.to_dict()
            assert d["pose"] in POSES and 0.0 <= d["visible"] <= 1.0
    groups = {p.split("_")[0] for p in seen}
    assert groups >= {"flat", "stand", "lean", "stack"}, seen
    assert {"flat_up", "flat_down"} <= seen


def test_a_rack_wall_hides_the_backs_of_its_tiles_and_is_never_labelled():
    """Seen from across the table a rack's back wall covers most of each tile's back: the tile's
    visible fraction must say so, and the rack itself must not become a label."""
    from lab.synth.props import RACK, rack_slot, random_rack_look

    away = np.array([0.0, 1.0, 0.0])  # the camera stands on the -y side: these faces look away from it
    along = np.array([1.0, 0.0, 0.0])
    params = {"elevation": 20.0, "azimuth": 90.0, "fov": 60.0, "roll": 0.0, "k1": 0.0, "k2": 0.0}

    def shot(holder: bool):
        box = standing_box(0, 0, 0.0, away, 0.25, 2.0, 0.3, 4, 5, base_z=RACK.tray_height if holder else 0.0)
        look = {**random_rack_look(np.random.default_rng(1)), "wall": 0.8}
        world = _world([box])
        if holder:
            world.props = rack_slot(box.corners(), along, away, 2.1, look)
        return render_world(np.random.default_rng(2), world, (640, 480), "test3d", cam_params=params, effects=False)

    free, held = shot(False), shot(True)
    assert len(free.tiles) == len(held.tiles) == 1
    assert free.tiles[0].pose == held.tiles[0].pose == "lean_away"
    assert free.tiles[0].visible > 0.9
    assert held.tiles[0].visible < 0.6
