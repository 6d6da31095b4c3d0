"""The renderer's labels must describe its pixels exactly: the model learns from nothing else."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from lab.synth.dataset import SynthJob, _detect_label_lines, generate
from lab.synth.pips import MAX_PIPS, pip_layout
from lab.synth.scene import render_hand
from vision.rectify import CROP_L, CROP_W, rectify_tile

SEEDS = list(range(12))


@pytest.fixture(scope="module", params=[False, True], ids=["camera above", "steep camera"])
def scenes(request):
    return [render_hand(np.random.default_rng(s), (640, 480), steep=request.param) for s in SEEDS]


def _face_mask(shape, corners, shrink: float) -> np.ndarray:
    c = corners.mean(0) + (corners - corners.mean(0)) * shrink
    m = np.zeros(shape[:2], np.uint8)
    cv2.fillConvexPoly(m, c.astype(np.int32), 1)
    return m.astype(bool)


def _plain_face(shape, tile) -> np.ndarray:
    """The tile's face away from its labelled pips."""
    pipmask = np.zeros(shape[:2], np.uint8)
    for x, y, r, _ in tile.pip_points:
        cv2.circle(pipmask, (int(x), int(y)), int(r * 1.6) + 1, 1, -1)
    return _face_mask(shape, tile.corners, 0.9) & (pipmask == 0)


def test_every_pip_value_has_a_layout_with_that_many_dots():
    for n in range(MAX_PIPS + 1):
        for style in ("piecepackr", "rows"):
            pts = pip_layout(n, style)
            assert len(pts) == n
            assert len(set(pts)) == n, f"{n} has overlapping dots"
            assert all(0 <= u <= 1 and 0 <= v <= 1 for u, v in pts)


def test_labelled_pip_count_per_end_equals_the_tile_value(scenes):
    for sc in scenes:
        for t in sc.tiles:
            if t.face_down:
                assert not t.pip_points
                continue
            seen = [sum(1 for p in t.pip_points if p[3] == h) for h in (0, 1)]
            assert sum(seen) + t.pip_hidden == sum(t.pips)
            if t.pip_hidden == 0:
                assert seen == list(t.pips)


def test_pips_are_drawn_where_the_labels_put_them(scenes):
    """At a labelled pip the photo differs from the tile face around it."""
    hits = total = 0
    for sc in scenes:
        img = sc.image.astype(np.float32)
        for t in sc.tiles:
            if t.face_down or t.visible < 0.9 or not t.pip_points:
                continue
            plain = _plain_face(img.shape, t)
            if plain.sum() < 20:
                continue
            face_colour = np.median(img[plain], axis=0)
            for x, y, r, _ in t.pip_points:
                if r < 1.5:
                    continue
                total += 1
                patch = img[int(y) - 1:int(y) + 2, int(x) - 1:int(x) + 2].reshape(-1, 3).mean(0)
                hits += np.abs(patch - face_colour).max() > 18
    assert total > 50
    assert hits / total > 0.9, f"only {hits}/{total} labelled pips differ from their tile's face"


def test_labelled_corners_lie_on_the_tile_edge(scenes):
    """Inside the labelled outline the photo looks like the tile; just outside, it does not."""
    agree = total = 0
    for sc in scenes:
        img = sc.image.astype(np.float32)
        for t in sc.tiles:
            if t.visible < 0.95:
                continue
            inner = _face_mask(img.shape, t.corners, 0.8) & ~_face_mask(img.shape, t.corners, 0.6)
            ring = _face_mask(img.shape, t.corners, 1.35) & ~_face_mask(img.shape, t.corners, 1.12)
            if inner.sum() < 10 or ring.sum() < 10:
                continue
            total += 1
            inside_spread = img[inner].std(0).mean()
            gap = np.abs(np.median(img[inner], 0) - np.median(img[ring], 0)).max()
            agree += gap > inside_spread * 0.5 or gap > 25
    assert total > 10
    assert agree / total > 0.8


def test_rectified_crop_puts_the_divider_in_the_middle(scenes):
    """Cut out with its labelled corners, a face-up tile's bar row is darker or lighter than the face."""
    ok = total = 0
    for sc in scenes:
        for t in sc.tiles:
            if t.face_down or t.visible < 0.95 or np.ptp(t.corners[:, 0]) < 30:
                continue
            crop, _ = rectify_tile(sc.image, t.corners)
            g = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
            band = g[:, int(CROP_W * 0.35):int(CROP_W * 0.65)].mean(1)  # centre column, pips mostly off it
            mid = band[CROP_L // 2 - 2:CROP_L // 2 + 3]
            face = np.median(band[int(CROP_L * 0.12):int(CROP_L * 0.88)])
            total += 1
            ok += np.abs(mid - face).max() > 8
    assert total > 10
    assert ok / total > 0.75


def test_same_seed_renders_the_same_scene():
    a = render_hand(np.random.default_rng(42), (320, 240))
    b = render_hand(np.random.default_rng(42), (320, 240))
    assert np.array_equal(a.image, b.image)
    assert [t.pips for t in a.tiles] == [t.pips for t in b.tiles]


def test_hue_coded_sets_have_pips_as_bright_as_the_face_but_another_hue():
    """Lilac on orange: the pips are told from the face by hue alone."""
    import colorsys

    from lab.synth.tileface import HUE_PIP_LUMA_GAP, _luma, random_style

    for seed in range(20):
        style = random_style(np.random.default_rng(seed), 12, face="hue-coded")
        body_hue = colorsys.rgb_to_hsv(*(c / 255 for c in style.body))[0]
        for pip in style.pip_colours:
            assert abs(_luma(pip) - _luma(style.body)) < HUE_PIP_LUMA_GAP
            gap = abs(colorsys.rgb_to_hsv(*(c / 255 for c in pip))[0] - body_hue)
            assert min(gap, 1 - gap) > 0.13  # 0.15 drawn, then rounded to whole RGB levels


def test_hue_coded_pips_are_drawn_where_the_labels_put_them():
    scene = render_hand(np.random.default_rng(3), (640, 480), 12, n=6, face="hue-coded")
    hsv = cv2.cvtColor(scene.image, cv2.COLOR_BGR2HSV).astype(np.float32)
    hits = total = 0
    for t in scene.tiles:
        if t.face_down or t.visible < 0.9 or not t.pip_points:
            continue
        face_hue = np.median(hsv[_plain_face(hsv.shape, t), 0])
        for x, y, r, _ in t.pip_points:
            if r < 1.5:
                continue
            total += 1
            d = abs(hsv[int(y), int(x), 0] - face_hue)
            hits += min(d, 180 - d) > 10
    assert total > 20
    assert hits / total > 0.8, f"only {hits}/{total} labelled pips differ in hue from their face"


def test_an_unknown_face_kind_is_refused():
    from lab.synth.tileface import random_style

    with pytest.raises(ValueError, match="unknown face"):
        random_style(np.random.default_rng(0), 12, face="glow-in-the-dark")


def test_yolo_obb_labels_are_normalised_and_cover_visible_tiles(scenes):
    for sc in scenes:
        h, w = sc.image.shape[:2]
        lines = _detect_label_lines(sc, w, h)
        for line in lines:
            parts = line.split()
            assert parts[0] in ("0", "1") and len(parts) == 9
            assert all(0.0 <= float(v) <= 1.0 for v in parts[1:])


def test_generate_writes_images_labels_and_json(tmp_path):
    stats = generate(SynthJob(str(tmp_path), "hand", 3, (320, 240), 12), 4, workers=1, progress=False)
    assert stats["images"] == 4
    imgs = list((tmp_path / "detect" / "images").rglob("*.jpg"))
    labels = list((tmp_path / "detect" / "labels").rglob("*.txt"))
    assert len(imgs) == 4 and len(labels) == 4
    assert len(list((tmp_path / "scenes").glob("*.json"))) == 4
    for crop_label in (tmp_path / "pips" / "labels").rglob("*.txt"):
        for line in filter(None, crop_label.read_text().splitlines()):
            cls, x, y, bw, bh = line.split()
            assert cls == "0" and 0 <= float(x) <= 1 and 0 <= float(y) <= 1


def test_a_table_the_planner_cannot_lay_out_is_drawn_again_from_a_derived_seed(tmp_path, monkeypatch):
    import lab.synth.dataset as dataset
    from lab.synth.table import LayoutFailed

    real = dataset.render_kind
    calls = []

    def first_fails(kind, rng, size, set_max, face=None, steep=False):
        calls.append(kind)
        if len(calls) == 1:
            raise LayoutFailed("could not lay out a table scene in 40 attempts")
        return real("hand", rng, size, set_max)

    monkeypatch.setattr(dataset, "render_kind", first_fails)
    stats = generate(SynthJob(str(tmp_path), "table", 3, (320, 240), 9), 1, workers=1, progress=False)
    assert stats["images"] == 1 and len(calls) == 2
    assert len(list((tmp_path / "scenes").glob("*.json"))) == 1


def test_synth_command_reports_an_unplannable_table_in_one_line(tmp_path, monkeypatch, capsys):
    import lab.synth.dataset as dataset
    from lab.synth.table import LayoutFailed
    from service.cli import main

    def never(kind, rng, size, set_max, face=None, steep=False):
        raise LayoutFailed("could not lay out a table scene in 40 attempts")

    monkeypatch.setattr(dataset, "render_kind", never)
    code = main(["lab", "synth", "--kind", "table", "--count", "1", "--out", str(tmp_path / "s"), "--workers", "1"])
    err = capsys.readouterr().err
    assert code != 0
    assert "could not lay out a table scene" in err and "Traceback" not in err


def _foreshortening(camera) -> float:
    """How much shorter a small square at the middle of the view looks across the tilt than along it."""
    x0, y0, x1, y1 = camera.region
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    q = cv2.perspectiveTransform(np.float32([[cx, cy], [cx + 5, cy], [cx, cy + 5]]).reshape(-1, 1, 2), camera.hm)
    q = q.reshape(-1, 2)
    return float(np.linalg.norm(q[2] - q[0]) / np.linalg.norm(q[1] - q[0]))


def test_a_steep_camera_sees_the_table_shortened_across_its_tilt():
    from lab.synth.scene import random_camera

    above = [_foreshortening(random_camera(np.random.default_rng(s), 640, 480)) for s in range(50)]
    steep = [_foreshortening(random_camera(np.random.default_rng(s), 640, 480, steep=True)) for s in range(50)]
    assert min(above) > 0.85  # nearly straight down: the middle of the view is hardly shortened
    assert max(steep) < 0.85 and min(steep) > 0.4  # 35-62 degrees off: cos(angle), and a keystone
