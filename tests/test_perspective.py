"""Photos taken at an angle: the view is found from the tiles and pips, and undone before reading."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.perspective import (_apply, _sides, find_level_view, guessed_steep_view, looks_from_above, looks_level,
                               pip_shapes, pips_show_a_tilt)
from vision.rectify import crop_homography


def _domino(cx: float, cy: float, length: float, angle: float) -> np.ndarray:
    """Corners in label order of a 2:1 tile on the table, turned by `angle` (radians)."""
    d = np.array([np.sin(angle), -np.cos(angle)])  # end 0 towards "up" at angle 0
    n = np.array([np.cos(angle), np.sin(angle)])
    c = np.array([cx, cy])
    h, w = d * length / 2, n * length / 4
    return np.array([c + h - w, c + h + w, c - h + w, c - h - w], np.float64)


def _table() -> list[np.ndarray]:
    """Eight tiles of one set on a 1600x1200 table, turned every which way."""
    rng = np.random.default_rng(5)
    return [_domino(300 + 330 * (i % 4), 350 + 500 * (i // 4), 220, rng.uniform(0, np.pi)) for i in range(8)]


def _steep(deg: float, w: int = 1600, h: int = 1200) -> np.ndarray:
    """A picture of the table from `deg` off straight down: shortened across the tilt, the far
    edge narrower (the form of `scripts/stress_real.py`'s steep copies)."""
    squash, narrow = np.cos(np.radians(deg)), np.sin(np.radians(deg)) / 3
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[narrow * w, 0], [(1 - narrow) * w, 0], [w, squash * h], [0, squash * h]])
    return cv2.getPerspectiveTransform(src, dst)


def _aspects(boxes: list[np.ndarray]) -> np.ndarray:
    length, width = _sides(np.stack(boxes)[None])
    return (length / width)[0]


def test_tiles_seen_from_straight_above_leave_the_view_as_it_is():
    assert looks_level(_table())
    assert find_level_view(_table(), 1600, 1200) is None


def test_tiles_seen_at_an_angle_are_levelled_to_dominoes_of_one_size():
    hm = _steep(55)
    seen = [_apply(hm, b) for b in _table()]
    assert not looks_level(seen)
    view = find_level_view(seen, 1600, int(1200 * np.cos(np.radians(55))))
    assert view is not None
    level = [_apply(view.homography, b).astype(np.float64) for b in seen]
    aspects = _aspects(level)
    assert np.all(np.abs(np.log(aspects / 2.0)) < 0.12)  # each within ~12 % of a domino's shape
    lengths = _sides(np.stack(level)[None])[0][0]
    assert lengths.max() / lengths.min() < 1.15
    assert 30 < view.degrees < 70


def test_tiles_in_one_part_of_a_wide_picture_keep_their_size_when_levelled():
    """A camera low across a table sees the room above it too. Levelled as a whole about the
    picture's centre, the far side is blown up and the pixel cap shrinks the near tiles; framed on
    the tiles, they come out no shorter than they were, and the picture no larger."""
    from vision.perspective import MAX_PIXELS_GAIN, _level_view

    w, h = 1920, 1080
    tiles = np.stack([_domino(700 + 110 * (i % 5), 650 + 120 * (i // 5), 70, i * 0.6) for i in range(15)])
    before = np.median(_sides(tiles[None])[0][0])

    def median_length(view) -> float:
        return float(np.median(_sides(np.stack([_apply(view.homography, b).astype(np.float64) for b in tiles])[None])[0][0]))

    whole, framed = _level_view(1.7, 2.0, 0.0, w, h), _level_view(1.7, 2.0, 0.0, w, h, tiles)
    assert median_length(whole) < 0.6 * before  # the failure: the tiles shrunk
    assert median_length(framed) >= 0.95 * before
    assert framed.size[0] * framed.size[1] <= MAX_PIXELS_GAIN * w * h + 2 * (w + h)
    corners = np.stack([_apply(framed.homography, b) for b in tiles]).reshape(-1, 2)
    assert corners.min() >= -1 and (corners.max(0) <= np.array(framed.size) + 1).all()


def test_a_lone_box_out_of_shape_without_pips_is_not_evidence_of_an_angle():
    """A close-up of one tile is boxed loosely: levelling the real double-6 tile photos by their
    boxes alone read fewer of them right (0.986 exact instead of 0.998)."""
    box = _domino(800, 600, 240, 0.0)
    box[:, 1] = 600 + (box[:, 1] - 600) * 0.6
    assert not looks_level([box])
    assert find_level_view([box], 1600, 1200) is None


def _tile_picture(squash: float) -> tuple[np.ndarray, np.ndarray, list[tuple[float, float]]]:
    """A white 6-6 tile with round black pips on a dark table, 400 px long, the picture then
    shortened to `squash` of its height; returns it, the tile's box and its pips in crop coordinates."""
    img = np.full((600, 600, 3), 40, np.uint8)
    box = _domino(300, 300, 400, 0.0)
    cv2.fillPoly(img, [box.astype(np.int32)], (235, 235, 235))
    pips = [(x, y) for x in (250, 350) for y in (130, 180, 230, 370, 420, 470)]
    for x, y in pips:
        cv2.circle(img, (x, y), 16, (20, 20, 20), -1, lineType=cv2.LINE_AA)
    img = cv2.resize(img, (600, int(round(600 * squash))), interpolation=cv2.INTER_AREA)
    box[:, 1] *= squash
    at = np.array([(x, y * squash) for x, y in pips], np.float64)
    in_crop = _apply(crop_homography(box.astype(np.float32)), at)
    return img, box, [tuple(p) for p in in_crop]


@pytest.mark.parametrize("squash", [1.0, 0.7, 0.5])
def test_round_pips_seen_at_an_angle_measure_shortened_across_the_tilt(squash):
    img, box, pips = _tile_picture(squash)
    at, covs = pip_shapes(img, [box], [pips])
    assert len(at) == 12
    evals, evecs = np.linalg.eigh(covs)
    ratio = np.sqrt(evals[:, 0] / evals[:, 1])
    assert abs(float(np.median(ratio)) - squash) < 0.08
    if squash < 1.0:  # the short axis runs along the picture's height, the way it was shortened
        assert np.all(np.abs(evecs[:, 1, 0]) > 0.95)


def test_pips_of_a_tile_turned_on_dark_cloth_are_measured_against_its_face():
    """A white tile turned 45 degrees fills less than half of the rectangle around it: the face's
    colour must come from inside its box, not from the cloth (a real copy seen from 65 degrees
    measured two of its thirty pips, and was read as it was)."""
    img = np.full((700, 700, 3), 45, np.uint8)
    angle = np.radians(45)
    box = _domino(350, 350, 420, angle)
    cv2.fillPoly(img, [box.astype(np.int32)], (235, 235, 235))
    d, n = np.array([np.sin(angle), -np.cos(angle)]), np.array([np.cos(angle), np.sin(angle)])
    at = np.array([350 + a * d * 420 + b * n * 210 for a in (-0.35, -0.2, 0.2, 0.35)
                   for b in (-0.25, 0.25)], np.float64)
    for x, y in at:
        cv2.circle(img, (int(round(x)), int(round(y))), 15, (20, 20, 20), -1, lineType=cv2.LINE_AA)
    in_crop = _apply(crop_homography(box.astype(np.float32)), at)
    centres, covs = pip_shapes(img, [box], [[tuple(p) for p in in_crop]])
    assert len(centres) == len(at)
    ev = np.linalg.eigvalsh(covs)
    assert np.all(np.sqrt(ev[:, 0] / ev[:, 1]) > 0.9)  # round, as drawn


def test_a_pale_pip_beside_the_dark_divider_is_measured_whole():
    """The pip's own contrast sets its outline: with the patch's darkest pixel (the divider) setting
    it, a pale cyan pip was cut to its shaded rim, measured as a thin crescent, and a quarter of a
    real steep photo's pips said the picture was seen from 64 degrees instead of about 50."""
    img = np.full((600, 600, 3), 40, np.uint8)
    box = _domino(300, 300, 400, 0.0)
    cv2.fillPoly(img, [box.astype(np.int32)], (235, 235, 235))
    cv2.line(img, (215, 300), (385, 300), (15, 15, 15), 8)
    pips = [(x, y) for x in (250, 350) for y in (265, 335)]
    for x, y in pips:
        cv2.circle(img, (x, y), 15, (215, 200, 120), -1, lineType=cv2.LINE_AA)  # pale cyan (BGR)
    img = cv2.resize(img, (600, 360), interpolation=cv2.INTER_AREA)
    box[:, 1] *= 0.6
    at = np.array([(x, y * 0.6) for x, y in pips], np.float64)
    in_crop = _apply(crop_homography(box.astype(np.float32)), at)
    centres, covs = pip_shapes(img, [box], [[tuple(p) for p in in_crop]])
    assert len(centres) == len(pips)
    ev = np.linalg.eigvalsh(covs)
    assert np.all(np.abs(np.sqrt(ev[:, 0] / ev[:, 1]) - 0.6) < 0.1)


def test_round_pips_set_the_view_when_the_boxes_say_little():
    """One tile: its pips, squashed to 0.6, give the view."""
    img, box, pips = _tile_picture(0.6)
    view = find_level_view([box], img.shape[1], img.shape[0], pip_shapes(img, [box], [pips]))
    assert view is not None
    assert 45 < view.degrees < 60  # arccos(0.6) = 53


def test_squashed_pips_set_the_view_though_every_box_looks_like_a_domino():
    """The detector boxes a squashed tile as a domino (it learnt them from above): a photo whose
    boxes all look 2:1 is still taken at an angle where its pips say so (real copies seen by a
    camera turned 55 degrees: pips 0.53-0.64, every box 2:1, read as they were)."""
    img, box, pips = _tile_picture(0.6)
    shapes = pip_shapes(img, [box], [pips])
    boxed = _domino(300, 180, 240, 0.0)  # the squashed tile's height, boxed 2:1
    assert looks_level([boxed])
    view = find_level_view([boxed], img.shape[1], img.shape[0], shapes)
    assert view is not None
    assert 40 < view.degrees < 65


def test_round_pips_keep_a_picture_from_above_as_it_is_whatever_its_boxes():
    img, box, pips = _tile_picture(1.0)
    loose = box.copy()
    loose[:, 1] = 300 + (loose[:, 1] - 300) * 0.8  # a box a tile's end short
    assert not looks_level([loose])
    assert find_level_view([loose], img.shape[1], img.shape[0], pip_shapes(img, [box], [pips])) is None


def test_a_guessed_steep_view_is_borne_out_only_by_squashed_pips():
    """Boxes read in a view stretched to suit them prove nothing about the table; the pips,
    measured in the photo as it is, do."""
    for squash, tilted in ((1.0, False), (0.75, False), (0.42, True)):
        img, box, pips = _tile_picture(squash)
        assert pips_show_a_tilt(pip_shapes(img, [box], [pips])) is tilted


def test_a_guessed_steep_view_is_not_borne_out_by_a_few_pips():
    img, box, pips = _tile_picture(0.42)
    assert not pips_show_a_tilt(pip_shapes(img, [box], [pips[:4]]))


def test_a_few_round_pips_show_a_photo_was_taken_from_above():
    img, box, pips = _tile_picture(1.0)
    assert looks_from_above(pip_shapes(img, [box], [pips[:4]]))
    assert not looks_from_above(pip_shapes(img, [box], [pips[:3]]))  # too few to tell
    img, box, pips = _tile_picture(0.42)
    assert not looks_from_above(pip_shapes(img, [box], [pips]))


def test_the_guessed_steep_view_lengthens_the_picture_along_its_height():
    view = guessed_steep_view(1600, 900)
    tall, wide = view.size[1] / 900, view.size[0] / 1600
    assert tall / wide == pytest.approx(2.0, rel=0.01)
    assert view.degrees == pytest.approx(60.0)


@pytest.fixture(scope="module")
def recognizer():
    from vision.recognize import Recognizer

    return Recognizer()


def _truth(scene) -> list[tuple[int, int]]:
    return sorted(tuple(sorted(t.pips)) for t in scene.tiles if not t.face_down and t.visible > 0.8)


@pytest.mark.parametrize("seed", [1, 7, 11])
def test_a_hand_photographed_at_a_steep_angle_is_read_on_the_levelled_view(recognizer, seed):
    """Rendered double-12 hands seen 50-63 degrees off straight down: the committed detector read
    2, 2 and 0 of their tiles right as they are, every one levelled."""
    from lab.synth.scene import render_hand
    from vision.imageio import LoadedImage

    scene = render_hand(np.random.default_rng(seed), (1280, 960), set_max=12, n=6, steep=True)
    rec = recognizer.recognize_loaded(LoadedImage(scene.image, 1.0, 1280, 960, "steep"), 12, level=True)
    assert sorted(tuple(sorted(t.pips)) for t in rec.tiles) == _truth(scene)
    assert any("taken at an angle" in w for w in rec.warnings)
    # the corners are the photo's: each box lies over its tile as the photo shows it
    for t in rec.tiles:
        assert min(np.linalg.norm(t.centre - lab.corners.mean(0)) for lab in scene.tiles) < 0.25 * t.length


def test_a_hand_photographed_from_above_is_read_once(recognizer):
    from lab.synth.scene import render_hand
    from vision.imageio import LoadedImage

    scene = render_hand(np.random.default_rng(3), (1280, 960), set_max=12, n=6)
    rec = recognizer.recognize_loaded(LoadedImage(scene.image, 1.0, 1280, 960, "flat"), 12, level=True)
    assert sorted(tuple(sorted(t.pips)) for t in rec.tiles) == _truth(scene)
    assert not any("taken at an angle" in w for w in rec.warnings)


def test_a_table_seen_from_above_is_not_read_in_a_levelled_view_that_reads_its_tiles_twice():
    """Rendered double-12 table 2702-16 (1280x720, seen from above, blurred, its tiles packed so
    tight their boxes do not look like dominoes) was "levelled" as if seen from 59 degrees; that
    reading found more faces but read 17 tiles twice, and 17 of 52 tiles right, against 51 as it
    was. A set holds each tile once: a levelled reading with more repeats is not taken."""
    from lab.evaluate import score_rendered
    from lab.synth.table import render_table
    from vision.correct import read_twice
    from vision.recognize import get_recognizer

    rng = np.random.default_rng(np.random.SeedSequence([2702, 16]))
    scene = render_table(rng, (1280, 720), 12)
    jpeg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()  # as `synth` saves it
    rec = get_recognizer().recognize(jpeg, set_max=12)
    score = score_rendered(scene.to_dict()["tiles"], [(t.corners, t.pips) for t in rec.tiles])
    assert not any("taken at an angle" in w for w in rec.warnings), rec.warnings
    assert read_twice(rec.tiles) <= 2
    # the levelled reading got 17 of 52 right; read as it is, 51 with the packages the bound was set
    # with and 45 with those the registry gave on 2026-11-27 (onnxruntime 1.32, numpy 2.4.6,
    # OpenCV 4.14.0.94, Pillow 13; older onnxruntime, numpy, OpenCV or Pillow alone did not bring
    # 51 back; cause not found): the bound tells the two readings apart
    assert score.exact >= 0.8 * score.true_tiles, score


def test_a_back_far_smaller_than_the_faces_does_not_steer_the_search_for_the_angle():
    """The search looks for the view in which every box is a domino of one size: a back a tenth
    of the faces' length is a phantom of the detector (coarse cloth at a steep photo's near edge),
    while a back of the faces' size may be the set's and is kept."""
    from vision.recognize import _backs_of_a_size
    from vision.types import Recognition, TileDetection

    faces = [TileDetection(i, _domino(300 + 400 * i, 400, 300, 0.3).astype(np.float32), 0.9, pips=(i, 5))
             for i in range(3)]
    small = TileDetection(3, _domino(100, 1100, 30, 0.0).astype(np.float32), 0.6, face_down=True)
    real = TileDetection(4, _domino(900, 900, 260, 1.0).astype(np.float32), 0.8, face_down=True)
    rec = Recognition("steep", 1600, 1200, faces, [small, real], 12)
    assert _backs_of_a_size(rec) == [real]


def _squashed(image: np.ndarray, deg: float) -> np.ndarray:
    """The picture shortened along its height to cos(`deg`): a table seen from that far off straight down."""
    h, w = image.shape[:2]
    return cv2.resize(image, (w, int(h * np.cos(np.radians(deg)))), interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize("seed,n", [(5, 6), (6, 4)])
def test_a_hand_seen_from_65_degrees_with_no_face_boxed_is_read_in_a_guessed_steep_view(recognizer, seed, n):
    """Rendered double-12 hands shortened to cos(65 degrees): the detector, which learnt tiles
    seen from at most ~62 degrees, boxed no face of either, so no angle could be found from
    boxes, and without a guessed view neither tile is read."""
    from lab.synth.scene import render_hand
    from vision.imageio import LoadedImage

    scene = render_hand(np.random.default_rng(seed), (1280, 960), set_max=12, n=n)
    img = _squashed(scene.image, 65)
    rec = recognizer.recognize_loaded(LoadedImage(img, 1.0, img.shape[1], img.shape[0], "65"), 12, level=True)
    assert sorted(tuple(sorted(t.pips)) for t in rec.tiles) == _truth(scene)
    assert any("taken at an angle" in w for w in rec.warnings)


def test_a_lone_tile_photographed_from_above_is_not_read_in_the_guessed_steep_view(recognizer):
    """One face is too few to show the angle, so the guessed view is tried: its pips, round in the
    photo, turn it down."""
    from lab.synth.scene import render_hand
    from vision.imageio import LoadedImage

    scene = render_hand(np.random.default_rng(3), (1280, 960), set_max=12, n=1)
    assert len(_truth(scene)) == 1
    rec = recognizer.recognize_loaded(LoadedImage(scene.image, 1.0, 1280, 960, "flat"), 12, level=True)
    assert sorted(tuple(sorted(t.pips)) for t in rec.tiles) == _truth(scene)
    assert not any("taken at an angle" in w for w in rec.warnings)


def test_a_lone_tile_whose_round_pips_show_it_was_taken_from_above_is_read_once(recognizer, monkeypatch):
    """A guessed view costs a second reading with the detector's closest look; the 4-5's nine round
    pips spare it."""
    from lab.synth.scene import render_hand
    from vision.imageio import LoadedImage

    scene = render_hand(np.random.default_rng(2), (1280, 960), set_max=12, n=1)
    assert _truth(scene) == [(4, 5)]
    reads = []
    read = recognizer._read
    monkeypatch.setattr(recognizer, "_read", lambda *a, **k: reads.append(1) or read(*a, **k))
    rec = recognizer.recognize_loaded(LoadedImage(scene.image, 1.0, 1280, 960, "flat"), 12, level=True)
    assert sorted(tuple(sorted(t.pips)) for t in rec.tiles) == [(4, 5)]
    assert len(reads) == 1


@pytest.mark.parametrize("seed", [1, 6])
def test_a_hand_whose_halves_are_boxed_as_tiles_is_read_in_a_guessed_steep_view(recognizer, monkeypatch, seed):
    """Rendered double-12 hands of eight tiles seen from 60-72 degrees, further than the detector
    learnt: it boxed halves of tiles as tiles, two faces or more, whose boxes look like dominoes,
    so no angle was found, and no guess was tried while the faces alone were counted. A half
    shows no divider."""
    import lab.synth.scene as scene_module
    from vision.imageio import LoadedImage

    monkeypatch.setattr(scene_module, "STEEP_DEGREES", (60.0, 72.0))
    scene = scene_module.render_hand(np.random.default_rng(seed), (1024, 1024), set_max=12, n=8, steep=True)
    rec = recognizer.recognize_loaded(LoadedImage(scene.image, 1.0, 1024, 1024, "steep"), 12, level=True)
    assert sorted(tuple(sorted(t.pips)) for t in rec.tiles) == _truth(scene)
    assert any("taken at an angle" in w for w in rec.warnings)
