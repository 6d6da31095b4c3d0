"""The set's rules correct what the camera read (vision.correct)."""
from __future__ import annotations

import numpy as np

from vision.correct import apply_rules, drop_overlapping_boxes, infer_set_max
from vision.pipreader import HalfReading, TileReading
from vision.recognition.config import FaceConfig
from vision.types import TileDetection

T = 0.5  # pip score threshold


def _reading(a_scores: list[float], b_scores: list[float]) -> TileReading:
    def half(sc):
        n = sum(s >= T for s in sc)
        return HalfReading(n, sorted(sc, reverse=True), 0.9 if all(abs(s - T) > 0.3 for s in sc) else 0.3)
    return TileReading((half(a_scores), half(b_scores)), [])


def _tile(i: int) -> TileDetection:
    return TileDetection(i, np.zeros((4, 2), np.float32), 0.9)


def test_a_value_above_the_sets_maximum_is_capped_and_noted():
    tiles = [_tile(0)]
    apply_rules(tiles, [_reading([0.9] * 7, [0.9] * 2)], set_max=6, threshold=T)
    assert tiles[0].pips == (6, 2)
    assert "maximum" in tiles[0].notes[0]


def test_a_tile_read_twice_takes_its_cheapest_second_reading():
    # both read 3-4; the second has a weak fourth dot on its 4 end, so it becomes 3-3
    sure = _reading([0.95] * 3, [0.95] * 4)
    unsure = _reading([0.95] * 3, [0.95] * 3 + [0.55])
    tiles = [_tile(0), _tile(1)]
    warnings = apply_rules(tiles, [sure, unsure], set_max=9, threshold=T)
    assert tiles[0].pips == (3, 4)
    assert tiles[1].pips == (3, 3)
    assert "corrected" in tiles[1].notes[0] and not warnings


def test_a_duplicate_without_a_plausible_second_reading_is_reported_not_hidden():
    a = _reading([0.99] * 2, [0.99] * 2)
    tiles = [_tile(0), _tile(1)]
    warnings = apply_rules(tiles, [a, a], set_max=2, threshold=T)  # 1-2 and 3-2 out of a double-2 set
    assert tiles[0].pips == tiles[1].pips == (2, 2)
    assert warnings and "appears twice" in warnings[0]


def test_a_duplicate_read_five_times_is_reported_with_its_count():
    """A real webcam photo (DomiBot's PIEZAS_TEST2) shows five 6-6 tiles of several sets; the
    warning said the tile "appears twice"."""
    sure = _reading([0.99] * 6, [0.99] * 6)
    tiles = [_tile(i) for i in range(5)]
    warnings = apply_rules(tiles, [sure] * 5, set_max=6, threshold=T)
    assert all(t.pips == (6, 6) for t in tiles)
    assert warnings == ["tile 6-6 appears 5 times; a set has one of each, so two sets are mixed "
                        "or one of them is misread"]


def test_a_duplicate_no_reading_resolves_does_not_stop_the_others_being_resolved():
    """Before, the first duplicate without a cheap second reading ended the search, and a later
    misread that a second reading would have mended stayed a duplicate."""
    sure22 = _reading([0.99] * 2, [0.99] * 2)
    sure34 = _reading([0.95] * 3, [0.95] * 4)
    unsure34 = _reading([0.95] * 3, [0.95] * 3 + [0.55])
    tiles = [_tile(i) for i in range(4)]
    warnings = apply_rules(tiles, [sure22, sure22, sure34, unsure34], set_max=6, threshold=T)
    assert [t.pips for t in tiles] == [(2, 2), (2, 2), (3, 4), (3, 3)]
    assert len(warnings) == 1 and warnings[0].startswith("tile 2-2 appears twice")


def test_the_set_is_inferred_from_the_highest_value_read():
    assert infer_set_max([5]) == 12
    assert infer_set_max([13]) == 15
    assert infer_set_max([18]) == 18


def test_few_tiles_all_low_leave_the_set_at_the_default():
    """Six tiles of a double-9 all show 6 or less one time in 70: not enough to call it a double-6."""
    assert infer_set_max([6] * 6) == 12


def test_enough_tiles_all_low_show_a_small_set():
    assert infer_set_max([6] * 7) == 6
    assert infer_set_max([9] + [4] * 8) == 9


def test_a_value_above_the_small_set_makes_the_set_larger():
    assert infer_set_max([6] * 9 + [7]) == 9


def test_no_tile_read_sure_leaves_the_set_at_the_default():
    assert infer_set_max([]) == 12


def test_one_tile_boxed_twice_is_counted_once():
    a = _tile(0)
    a.corners = np.array([[0, 0], [10, 0], [10, 20], [0, 20]], np.float32)
    b = _tile(1)
    b.corners = a.corners + [2, 3]
    b.confidence = 0.5
    r = _reading([0.9] * 3, [0.9] * 4)
    from vision.correct import drop_duplicate_boxes

    kept, readings = drop_duplicate_boxes([a, b], [r, r])
    assert kept == [a] and len(readings) == 1


def test_touching_neighbours_that_read_alike_are_both_kept_for_the_duplicate_rule():
    a = _tile(0)
    a.corners = np.array([[0, 0], [10, 0], [10, 20], [0, 20]], np.float32)
    b = _tile(1)
    b.corners = a.corners + [10.5, 0]
    r = _reading([0.9] * 3, [0.9] * 4)
    from vision.correct import drop_duplicate_boxes

    kept, _ = drop_duplicate_boxes([a, b], [r, r])
    assert len(kept) == 2


def _box(x0: float, y0: float, x1: float, y1: float, conf: float) -> TileDetection:
    return TileDetection(0, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32), conf)


def _plain(a: int, b: int, bar: tuple[float, float] | None) -> TileReading:
    return TileReading((HalfReading(a, [0.9] * a, 0.9), HalfReading(b, [0.9] * b, 0.9)), [], bar)


def _block_of_four(phantom_conf: float, bar: tuple[float, float] | None, seam: tuple[float, float] | None):
    """Two tiles lying side by side across a 2x2 block (5-5 on top, 1-6 below), the two phantom
    "tiles" made of their left and right halves, and two undisputed tiles elsewhere."""
    tiles = [_box(0, 0, 200, 100, 0.68), _box(0, 100, 200, 200, 0.86),          # real: 5-5, 1-6
             _box(0, 0, 100, 200, phantom_conf), _box(100, 0, 200, 200, phantom_conf - 0.04),  # phantoms
             _box(300, 0, 500, 100, 0.95), _box(300, 200, 500, 300, 0.9)]      # elsewhere
    readings = [_plain(5, 5, bar), _plain(1, 6, bar), _plain(5, 1, seam), _plain(5, 6, seam),
                _plain(2, 3, bar), _plain(7, 7, bar)]
    return tiles, readings


def test_phantom_tiles_across_a_block_give_way_to_tiles_with_the_photos_bar():
    tiles, readings = _block_of_four(0.85, bar=(80.0, 8.0), seam=(80.0, 1.0))
    kept, kept_readings = drop_overlapping_boxes(tiles, readings)
    assert sorted(r.pips for r in kept_readings) == [(1, 6), (2, 3), (5, 5), (7, 7)]


def test_where_bars_say_nothing_one_tiling_is_kept_and_the_hand_total_is_unchanged():
    tiles, readings = _block_of_four(0.85, bar=None, seam=None)
    kept, kept_readings = drop_overlapping_boxes(tiles, readings)
    assert len(kept) == 4
    assert sum(sum(r.pips) for r in kept_readings) == 5 + 5 + 1 + 6 + 2 + 3 + 7 + 7


def test_a_tile_partly_lying_on_another_keeps_both():
    tiles = [_box(0, 0, 200, 100, 0.9), _box(60, 30, 260, 130, 0.6)]  # half of each covered
    readings = [_plain(3, 4, None), _plain(2, 2, None)]
    kept, _ = drop_overlapping_boxes(tiles, readings)
    assert len(kept) == 2


def test_a_phantom_over_parts_of_several_tiles_gives_way_though_no_one_tile_covers_it():
    """A box over three quarters of one tile and a quarter of its neighbour: neither covers it alone
    (a hand lined up in rows and photographed turned 45° made such a box over the halves of two
    diagonal neighbours, read 3-4 and counted on top of both)."""
    tiles = [_box(0, 0, 200, 100, 0.9), _box(200, 0, 400, 100, 0.9), _box(150, 0, 350, 100, 0.56)]
    readings = [_plain(3, 4, (80.0, 8.0)), _plain(5, 2, (80.0, 8.0)), _plain(4, 5, None)]
    kept, kept_readings = drop_overlapping_boxes(tiles, readings)
    assert sorted(r.pips for r in kept_readings) == [(3, 4), (5, 2)]


def test_a_box_with_neither_dot_nor_divider_is_a_tiles_back():
    from vision.recognition.faces import looks_face_down

    assert looks_face_down(_plain(0, 0, None))
    assert not looks_face_down(_plain(0, 0, (80.0, 6.0)))  # the double blank shows its divider
    assert not looks_face_down(_plain(0, 2, None))  # dots, but a divider too faint to see


def test_a_blank_looking_box_at_the_pictures_edge_is_not_called_a_back():
    from vision.recognition.faces import cut_by_edge

    inside = np.array([[100, 100], [140, 100], [140, 180], [100, 180]], np.float32)
    assert not cut_by_edge(inside, 640, 480)
    assert cut_by_edge(inside - [100, 0], 640, 480)  # its left side on the picture's edge


def _on_table(sp) -> np.ndarray:
    """A drawn tile sprite on a grey table with a 20-px margin (RGB)."""
    canvas = np.full((sp.length + 40, sp.width + 40, 3), 70, np.uint8)
    alpha = sp.rgba[..., 3:4] / 255.0
    canvas[20:20 + sp.length, 20:20 + sp.width] = (sp.rgba[..., :3] * alpha + 70 * (1 - alpha)).astype(np.uint8)
    return canvas


def _rendered_crop(a: int, b: int, seed: int, face_down: bool = False, bar_rgb=(10, 10, 10),
                   pattern: str = "plain", bar_frac: float | None = None) -> np.ndarray:
    from lab.synth.tileface import draw_tile, random_style
    from vision.rectify import rectify_tile

    rng = np.random.default_rng(seed)
    style = random_style(rng, 12)
    style.body = style.back_rgb = (236, 230, 214)
    style.bar_rgb, style.back_pattern = bar_rgb, pattern
    style.bar_frac = style.bar_frac if bar_frac is None else bar_frac
    sp = draw_tile(style, a, b, 60, rng, face_down=face_down)
    canvas = _on_table(sp)
    corners = np.array([[20, 20], [20 + sp.width, 20], [20 + sp.width, 20 + sp.length], [20, 20 + sp.length]],
                       np.float32)
    return rectify_tile(canvas[..., ::-1].copy(), corners)[0]


def test_a_double_blank_with_a_faint_divider_is_not_taken_for_a_back():
    from vision.pipreader import find_bar
    from vision.recognition.faces import looks_double_blank, looks_face_down

    for seed in range(4):
        crop = _rendered_crop(0, 0, seed, bar_rgb=(206, 196, 190))  # a thin pale bar on a cream face
        reading = TileReading((HalfReading(0, [], 0.9), HalfReading(0, [], 0.9)), [], find_bar(crop))
        assert looks_face_down(reading)  # the reader's own look misses the bar...
        assert looks_double_blank(reading, crop)  # ...a fainter second look finds it


def test_a_double_blank_boxed_off_square_is_not_taken_for_a_back():
    """A box turned 8 degrees off the tile's outline leaves its thin divider slanted across the
    crop, in no row long enough to be a bar (a crosswise 0-0 chickie of a rendered double-6 round
    was a back in every frame, and its toes were never followed): the crop is looked at turned."""
    import cv2

    from vision.pipreader import find_bar
    from vision.recognition.faces import looks_double_blank, looks_face_down

    for seed in range(4):
        crop = _rendered_crop(0, 0, seed, bar_rgb=(150, 150, 150), bar_frac=0.012)  # a thin grey line
        h, w = crop.shape[:2]
        off = cv2.warpAffine(crop, cv2.getRotationMatrix2D((w / 2, h / 2), 8, 1.0), (w, h),
                             borderMode=cv2.BORDER_REPLICATE)
        assert find_bar(off, contrast=FaceConfig().faint_bar_contrast) is None  # the divider, slanted, fills no row
        reading = TileReading((HalfReading(0, [], 0.9), HalfReading(0, [], 0.9)), [], find_bar(off))
        assert looks_face_down(reading)
        assert looks_double_blank(reading, off)


def test_a_box_over_a_tables_straight_edge_is_not_taken_for_a_double_blank():
    """A line across a blank box's middle, slanted, is a divider only with one face on both sides:
    a phantom box over a table's edge (cream border one side, dark table the other) was read 0-0."""
    import cv2

    from vision.recognition.faces import looks_double_blank

    crop = np.full((160, 80, 3), (200, 215, 225), np.uint8)
    pts = np.array([[0, 86], [80, 74], [80, 160], [0, 160]], np.int32)  # an edge 8 degrees off square
    cv2.fillPoly(crop, [pts], (170, 185, 195))  # the other side a shade darker: not the same face
    cv2.line(crop, (0, 86), (80, 74), (120, 120, 120), 2)  # the edge's shadow, a thin line
    reading = TileReading((HalfReading(0, [], 0.9), HalfReading(0, [], 0.9)), [], None)
    assert not looks_double_blank(reading, crop)


def test_a_tiles_back_is_not_taken_for_a_double_blank():
    from vision.recognition.faces import looks_double_blank

    for seed, pattern in enumerate(["plain", "ring", "dimples", "stripe"]):
        crop = _rendered_crop(0, 0, seed, face_down=True, pattern=pattern)
        reading = TileReading((HalfReading(0, [], 0.9), HalfReading(0, [], 0.9)), [], None)
        assert not looks_double_blank(reading, crop), pattern


def test_a_double_blank_is_not_taken_for_a_streaked_patch_of_table():
    from vision.recognition.faces import looks_mottled

    for seed in range(6):  # rendered faces with their grain, some with a shadow's edge across
        crop = _rendered_crop(0, 0, seed)
        if seed % 2:
            crop[:100] = (crop[:100] * 0.55).astype(np.uint8)
        assert not looks_mottled(crop), seed


def test_a_face_of_one_dot_is_not_taken_for_a_streaked_patch_of_table():
    """The dot read is left out of the face, so its rim does not count as a streak."""
    from vision.recognize import get_recognizer
    from vision.recognition.faces import looks_mottled

    pips = get_recognizer().pips
    read = 0
    for seed in range(6):
        crop = _rendered_crop(1, 0, seed)
        reading = pips.read_crops([crop])[0]
        read += reading.pips == (1, 0)
        if seed % 2:  # a shadow's edge across it
            crop[:100] = (crop[:100] * 0.55).astype(np.uint8)
        assert not looks_mottled(crop, reading.points), seed
    assert read >= 4  # (the dot's disc was left out on most)


def _streaked_patch(seed: int) -> np.ndarray:
    """Streaks of a glossy table's reflection, slanted as they fall, with a dark line across the
    box's middle that a divider search takes for a bar."""
    import cv2

    rng = np.random.default_rng(seed)
    crop = np.full((160, 80, 3), 150, np.uint8)
    for _ in range(60):
        x, y = int(rng.integers(-80, 80)), int(rng.integers(0, 160))
        cv2.line(crop, (x, y), (x + 80, y - 50), tuple(int(v) for v in rng.integers(60, 250, 3)), 2)
    cv2.line(crop, (0, 80), (80, 80), (30, 30, 30), 2)
    return crop


def test_a_streaked_patch_of_table_with_a_speck_taken_for_a_pip_is_not_a_face_of_one_dot():
    import cv2

    from vision.recognition.faces import looks_mottled

    crop = _streaked_patch(1)
    cv2.circle(crop, (40, 40), 7, (20, 20, 20), -1)
    assert looks_mottled(crop, [(40.0, 40.0, 0.6, 0)])


def test_a_blank_face_cut_by_the_pictures_edge_is_not_taken_for_a_patch_of_table_by_the_edge_repeated_beyond_it():
    """The crop of a box reaching past the picture repeats the picture's edge in streaks there;
    only the pixels from inside the picture are judged."""
    from vision.recognition.faces import looks_mottled
    from vision.rectify import inside_picture, rectify_tile

    picture = np.full((200, 300, 3), 200, np.uint8)  # a plain face filling the picture...
    picture[:, -1] = np.random.default_rng(0).integers(0, 255, (200, 3))  # ...its last column speckled
    corners = np.array([[250, 30], [330, 30], [330, 170], [250, 170]], np.float32)  # half beyond the right edge
    crop = rectify_tile(picture, corners)[0]
    inside = inside_picture(picture.shape, corners)
    assert inside[:, :20].all() and not inside[:, -20:].any()
    assert inside_picture(picture.shape, corners - [150, 0]) is None  # (a box well inside: no mask to ask)
    assert looks_mottled(crop)  # the repeated edge, streaked
    assert not looks_mottled(crop, inside=inside)


def test_a_streaked_patch_of_table_with_a_line_across_its_middle_is_not_a_double_blank_face():
    from vision.pipreader import find_bar
    from vision.recognition.faces import looks_mottled

    crop = _streaked_patch(0)
    assert find_bar(crop) is not None
    assert looks_mottled(crop)


def _sure_of_zeros() -> np.ndarray:
    """Half-reader probabilities sure of 0 on both ends."""
    p = np.full((2, 19), 0.1 / 18)
    p[:, 0] = 0.9
    return p


def test_a_double_blank_with_an_engraved_groove_is_the_double_blank_when_the_half_reader_reads_both_zeros():
    """A groove hardly darker than a cream face escapes even the fainter second look; where the half
    reader is sure of 0 on both ends, a third look, fainter still, finds it (a 0-0 spinner was
    thrown away as a back in every frame of a rendered round)."""
    from vision.pipreader import find_bar
    from vision.recognition.faces import looks_double_blank, looks_face_down

    for seed in range(4):
        crop = _rendered_crop(0, 0, seed, bar_rgb=(222, 216, 200))
        reading = TileReading((HalfReading(0, [], 0.9), HalfReading(0, [], 0.9)), [], find_bar(crop))
        assert looks_face_down(reading)
        assert not looks_double_blank(reading, crop)  # the groove alone is too faint to go by
        assert looks_double_blank(reading, crop, _sure_of_zeros())


def test_a_tiles_back_is_not_taken_for_a_double_blank_even_when_the_half_reader_reads_both_zeros():
    """The half reader reads a plain back as 0-0, sure; only a divider tells the double blank."""
    from vision.recognition.faces import looks_double_blank

    for seed, pattern in enumerate(["plain", "ring", "dimples", "stripe"] * 3):
        crop = _rendered_crop(0, 0, seed, face_down=True, pattern=pattern)
        reading = TileReading((HalfReading(0, [], 0.9), HalfReading(0, [], 0.9)), [], None)
        assert not looks_double_blank(reading, crop, _sure_of_zeros()), (seed, pattern)


def test_a_small_blank_box_is_the_double_blank_only_when_the_half_reader_is_sure_of_both_zeros():
    from vision.halfreader import CLASSES, ClassifiedHalf
    from vision.recognition.faces import looks_double_blank

    def half(p0: float) -> ClassifiedHalf:
        p = np.full(CLASSES, (1 - p0) / (CLASSES - 1))
        p[0] = p0
        return ClassifiedHalf(0, p, 0)

    blank_crop = np.full((160, 80, 3), 230, np.uint8)
    assert looks_double_blank(TileReading((half(0.95), half(0.8)), [], None), blank_crop)
    assert not looks_double_blank(TileReading((half(0.95), half(0.4)), [], None), blank_crop)


def _classified_ends(value: int, p0: float):
    return _classified_pair(value, value, p0)


def test_a_small_blank_looking_box_is_the_face_the_half_reader_is_sure_of_where_a_fainter_look_finds_its_divider():
    """A pale double-13 on a small tile: no dot reaches the dot detector and the divider is too
    faint for the reader's own look, but the half reader is sure of 13 on each end."""
    from vision.recognition.faces import looks_a_face_by_pattern, looks_face_down

    for seed in range(4):
        crop = _rendered_crop(6, 6, seed, bar_rgb=(206, 196, 190))
        reading = _classified_ends(13, 0.96)
        assert looks_face_down(reading)
        assert looks_a_face_by_pattern(reading, crop)
        assert not looks_a_face_by_pattern(_classified_ends(13, 0.7), crop)  # not sure enough


def test_a_dimpled_back_the_half_reader_takes_for_one_one_stays_a_back():
    from vision.recognition.faces import looks_a_face_by_pattern

    for seed in range(4):
        crop = _rendered_crop(0, 0, seed, face_down=True, pattern="dimples")
        assert not looks_a_face_by_pattern(_classified_ends(1, 0.93), crop)


def _classified_pair(a: int, b: int, p0: float):
    from vision.halfreader import CLASSES, ClassifiedHalf

    def end(value: int) -> ClassifiedHalf:
        p = np.full(CLASSES, (1 - p0) / (CLASSES - 1))
        p[value] = p0
        return ClassifiedHalf(value, p, 0)

    return TileReading((end(a), end(b)), [], None)


def test_a_small_blank_looking_box_with_one_blank_end_is_the_face_the_half_reader_is_sure_of():
    """A 43-px 15-0 whose pale 15 showed the dot detector nothing (in a rendered round): a face,
    since a fainter look finds its divider; both ends blank stays the double blank's own test."""
    from vision.recognition.faces import looks_a_face_by_pattern

    for seed in range(4):
        crop = _rendered_crop(6, 6, seed, bar_rgb=(206, 196, 190))
        assert looks_a_face_by_pattern(_classified_pair(15, 0, 0.95), crop)
        assert not looks_a_face_by_pattern(_classified_pair(0, 0, 0.95), crop)
        assert not looks_a_face_by_pattern(_classified_pair(15, 0, 0.8), crop)  # not sure enough


def test_a_back_the_half_reader_takes_for_a_face_with_one_blank_end_stays_a_back():
    from vision.recognition.faces import looks_a_face_by_pattern

    for seed, pattern in enumerate(["plain", "ring", "dimples", "stripe"] * 2):
        crop = _rendered_crop(0, 0, seed, face_down=True, pattern=pattern)
        for a, b in ((1, 0), (0, 1), (15, 0)):
            assert not looks_a_face_by_pattern(_classified_pair(a, b, 0.95), crop), (seed, pattern, a, b)


def _tiles_drawn(style, rng, size: tuple[int, int], table: int, top: int, width: int,
                 tiles: list[tuple[int, int, bool, int]]) -> bytes:
    """A PNG of upright tiles (a, b, face down, left edge) drawn `width` px wide on a plain table."""
    import cv2

    from lab.synth.tileface import draw_tile

    img = np.full((*size, 3), table, np.uint8)
    for a, b, down, x0 in tiles:
        sp = draw_tile(style, a, b, width, rng, face_down=down)
        alpha = sp.rgba[..., 3:4] / 255.0
        roi = img[top:top + sp.length, x0:x0 + sp.width]
        img[top:top + sp.length, x0:x0 + sp.width] = (sp.rgba[..., :3] * alpha + roi * (1 - alpha)).astype(np.uint8)
    return cv2.imencode(".png", img[..., ::-1])[1].tobytes()


def _recognizer_boxing_as_backs(is_back):
    """The committed recognizer, its detector calling every box `is_back` accepts a back."""
    from pathlib import Path

    import pytest

    from vision.detector import CLASS_BACK, RawBox
    from vision.recognize import Recognizer

    models = Path(__file__).resolve().parents[1] / "models"
    if not (models / "tile_detector.onnx").exists():
        pytest.skip("no committed models")
    rec = Recognizer(models)
    detect = rec.detector.detect
    rec.detector.detect = lambda im, tile_px=None: [
        RawBox(b.corners, b.score, CLASS_BACK if is_back(b) else b.cls) for b in detect(im)]
    return rec


def test_a_large_box_the_detector_calls_a_back_is_a_face_where_its_divider_shows():
    """Every face has a divider and no back has one; the detector told a plain 0-0 seen from low
    down from a back by little more than its missing dots, and the tile was left out."""
    from lab.synth.tileface import random_style

    rng = np.random.default_rng(5)
    style = random_style(rng, 12)
    style.body = style.back_rgb = (240, 236, 226)
    style.bar_rgb, style.back_pattern = (15, 15, 15), "ring"
    data = _tiles_drawn(style, rng, (420, 640), 45, 60, 110, [(0, 0, False, 80), (0, 0, True, 380)])
    rec = _recognizer_boxing_as_backs(lambda box: True)
    result = rec.recognize(data, set_max=12)
    assert [t.pips for t in result.tiles] == [(0, 0)]
    assert len(result.face_down) == 1
    assert result.tiles[0].corners[:, 0].max() < 320  # the face, not the back


def test_a_small_blank_looking_box_whose_ends_need_several_dots_is_a_face_with_a_divider_fainter_still():
    """A 54-px 10-10 spinner with a dashed pale divider and small pale pips (in a rendered
    round) showed the dot detector nothing and its divider only at the faintest look; the half
    reader read 10-10, sure. Taken for a back, it cost the round."""
    from vision.pipreader import find_bar
    from vision.recognition.faces import looks_a_face_by_pattern

    for seed in range(4):
        crop = _rendered_crop(6, 6, seed, bar_rgb=(218, 210, 196))  # a divider hardly darker than the face
        assert find_bar(crop, contrast=FaceConfig().faint_bar_contrast) is None
        assert looks_a_face_by_pattern(_classified_pair(10, 10, 0.95), crop)
        assert not looks_a_face_by_pattern(_classified_pair(10, 1, 0.95), crop)  # an end of 0 or 1: a back's pattern


def test_a_back_with_a_stripe_is_not_read_as_a_face_by_the_faintest_divider():
    from vision.recognition.faces import looks_a_face_by_pattern

    for seed, pattern in enumerate(["plain", "ring", "dimples", "stripe"] * 2):
        crop = _rendered_crop(0, 0, seed, face_down=True, pattern=pattern)
        assert not looks_a_face_by_pattern(_classified_pair(10, 10, 0.95), crop), pattern


def _dot_counter():
    from pathlib import Path

    import pytest

    from vision.pipreader import PipReader

    models = Path(__file__).resolve().parents[1] / "models"
    if not (models / "pip_detector.onnx").exists():
        pytest.skip("no committed models")
    reader = PipReader(models / "pip_detector.onnx")
    return lambda view, bar: reader.read_crops([view], [bar])[0].pips


def _small_coloured_crop(a: int, b: int, seed: int, set_max: int, body, bar, pip, scale: float,
                         face_down: bool = False, pattern: str = "plain") -> np.ndarray:
    """A 60-px-wide tile of one set's colours (RGB), shrunk by `scale` on its table and rectified as
    the recognizer sees a small tile."""
    import cv2

    from lab.synth.tileface import draw_tile, random_style
    from vision.rectify import rectify_tile

    rng = np.random.default_rng(seed)
    style = random_style(rng, set_max)
    style.body = style.back_rgb = body
    style.bar_rgb, style.stud, style.back_pattern = bar, False, pattern
    style.pip_colours = [pip] * (set_max + 1)
    sp = draw_tile(style, a, b, 60, rng, face_down=face_down)
    small = cv2.resize(_on_table(sp), None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    m, h, w = 20 * scale, sp.length * scale, sp.width * scale  # `_on_table`'s margin, shrunk
    corners = np.array([[m, m], [m + w, m], [m + w, m + h], [m, m + h]], np.float32)
    return rectify_tile(small[..., ::-1].copy(), corners)[0]


def _pale_pip_crop(a: int, b: int, seed: int) -> np.ndarray:
    """A ~36-px tile with pale cyan pips and a divider hardly darker than its white face (the 1-1
    spinner of a rendered double-12 round)."""
    return _small_coloured_crop(a, b, seed, 12, (246, 246, 244), (212, 216, 200), (90, 200, 235), 0.3)


def test_a_small_blank_looking_box_whose_pale_pips_a_colour_view_counts_as_the_half_reader_reads_is_a_face():
    """Pale cyan 1s and 2s on small white tiles showed the dot detector nothing and their divider
    only at the faintest look; the half reader was sure of 1-1 and 1-2. Taken for backs, the spinner
    and four of its arms were lost in every frame of a rendered round."""
    from vision.recognition.faces import looks_a_face_by_pattern

    from vision.pipreader import find_bar

    count_dots = _dot_counter()
    for seed in (1, 2, 4, 7):  # tiles whose divider shows only at the faintest look
        crop = _pale_pip_crop(1, 2, seed)
        assert find_bar(crop, contrast=FaceConfig().faint_bar_contrast) is None
        assert not looks_a_face_by_pattern(_classified_pair(1, 2, 0.95), crop)  # no colour look: a back
        assert looks_a_face_by_pattern(_classified_pair(1, 2, 0.95), crop, count_dots), seed
        for a, b in ((2, 1), (1, 1), (0, 2)):  # not the dots it shows
            assert not looks_a_face_by_pattern(_classified_pair(a, b, 0.95), crop, count_dots), (seed, a, b)


def test_a_back_whose_pattern_the_half_reader_takes_for_ones_stays_a_back_on_the_colour_views():
    from vision.recognition.faces import looks_a_face_by_pattern

    count_dots = _dot_counter()
    for seed, pattern in enumerate(["plain", "ring", "dimples", "stripe"] * 2):
        crop = _rendered_crop(0, 0, seed, face_down=True, pattern=pattern)
        for a, b in ((1, 1), (1, 0), (1, 2), (2, 1)):
            assert not looks_a_face_by_pattern(_classified_pair(a, b, 0.95), crop, count_dots), (seed, pattern, a, b)


def _sure_end_beside_unsure_blank(value: int, blank_p: float, value_p: float = 0.95):
    """The half reader's reading of a small box: `value` on end 0, sure, and 0 on end 1 at `blank_p`."""
    from vision.halfreader import CLASSES, ClassifiedHalf

    def end(v: int, p0: float) -> ClassifiedHalf:
        p = np.full(CLASSES, (1 - p0) / (CLASSES - 1))
        p[v] = p0
        return ClassifiedHalf(v, p, 0)

    return TileReading((end(value, value_p), end(0, blank_p)), [], None)


def _lilac_eight_blank_crop(seed: int) -> np.ndarray:
    """A ~36-px 8-0 with yellow-green pips and a divider hardly darker than its lilac face (an 8-0
    toe of a rendered round)."""
    return _small_coloured_crop(8, 0, seed, 15, (214, 200, 214), (180, 166, 180), (190, 235, 70), 0.3)


def test_a_small_blank_looking_box_with_a_sure_end_of_dots_beside_an_unsure_blank_end_is_a_face_where_a_colour_view_counts_them():
    """An 8-0 toe of yellow-green pips on a lilac face (in a rendered round): the dot detector
    found nothing on its crop, nor its divider, and the half reader was sure of the 8 (0.94) but
    not of the blank beside it (0.24). Taken for a back in every frame, its play was lost."""
    from vision.pipreader import find_bar
    from vision.recognition.faces import looks_a_face_by_pattern

    count_dots = _dot_counter()
    for seed in range(5):
        crop = _lilac_eight_blank_crop(seed)
        assert find_bar(crop) is None and find_bar(crop, contrast=FaceConfig().faint_bar_contrast) is not None
        assert looks_a_face_by_pattern(_sure_end_beside_unsure_blank(8, 0.24), crop, count_dots), seed
        assert not looks_a_face_by_pattern(_sure_end_beside_unsure_blank(8, 0.24), crop)  # no colour look
        assert not looks_a_face_by_pattern(_sure_end_beside_unsure_blank(4, 0.24), crop, count_dots)  # not its dots
        assert not looks_a_face_by_pattern(_sure_end_beside_unsure_blank(8, 0.24, 0.8), crop, count_dots)  # 8 unsure


def test_a_colour_view_that_finds_a_stray_dot_or_two_on_the_blank_end_of_many_dots_still_shows_a_face():
    """The dot detector's count on a colour view moves by a dot or two between builds of the same
    libraries: an 8-0 counted as 8-1 or 8-2 is still that face, not a back."""
    from vision.pipreader import find_bar
    from vision.recognition.faces import looks_a_face_by_pattern

    count_dots = _dot_counter()
    for strays in (1, 2):
        def drifted(view, bar, strays=strays):
            a, b = count_dots(view, bar)
            return a, b + strays
        for seed in range(3):
            crop = _lilac_eight_blank_crop(seed)
            assert find_bar(crop, contrast=FaceConfig().faint_bar_contrast) is not None
            assert looks_a_face_by_pattern(_sure_end_beside_unsure_blank(8, 0.24), crop, drifted), (strays, seed)


def test_a_count_of_many_dots_agrees_within_a_quarter_of_its_value_and_a_count_of_few_exactly():
    from vision.recognition.faces import dots_agree

    assert dots_agree((8, 0), (8, 0))
    assert dots_agree((8, 2), (8, 0)) and dots_agree((7, 1), (8, 0)) and dots_agree((10, 12), (12, 12))
    assert not dots_agree((8, 3), (8, 0)) and not dots_agree((5, 0), (8, 0))
    assert not dots_agree((1, 1), (1, 0)) and not dots_agree((2, 1), (3, 0)) and not dots_agree((0, 0), (1, 0))
    assert dots_agree((4, 1), (4, 0)) and not dots_agree((4, 2), (4, 0))


def test_a_back_the_half_reader_reads_as_a_sure_end_beside_an_unsure_blank_stays_a_back():
    from vision.recognition.faces import looks_a_face_by_pattern

    count_dots = _dot_counter()
    for seed, pattern in enumerate(["plain", "ring", "dimples", "stripe"] * 2):
        crop = _rendered_crop(0, 0, seed, face_down=True, pattern=pattern)
        for value in (1, 2, 8, 15):
            assert not looks_a_face_by_pattern(_sure_end_beside_unsure_blank(value, 0.3), crop, count_dots), \
                (seed, pattern, value)


def _small_lilac_crop(a: int, b: int, seed: int, face_down: bool = False, pattern: str = "plain") -> np.ndarray:
    """A ~60-px tile of a lilac set with pale yellow pips and a divider hardly darker than its face
    (a 1-0 toe of a rendered round)."""
    return _small_coloured_crop(a, b, seed, 9, (196, 190, 232), (184, 178, 220), (222, 206, 90), 0.5,
                                face_down, pattern)


def _both_readers():
    from pathlib import Path

    import pytest

    from vision.halfreader import HalfReader
    from vision.pipreader import PipReader, find_bar

    models = Path(__file__).resolve().parents[1] / "models"
    if not (models / "half_reader.onnx").exists():
        pytest.skip("no committed models")
    halves, pips = HalfReader(models / "half_reader.onnx"), PipReader(models / "pip_detector.onnx")
    return lambda crop: (halves.probabilities([crop])[0], pips.read_crops([crop], [find_bar(crop)])[0].pips)


def test_a_small_box_called_a_back_is_a_face_where_both_readers_read_the_same_dots():
    """A 1-0 toe with one pale yellow pip on a lilac face (in a rendered round) was boxed as a
    back in every frame, though the half reader read 1-0, sure, and the dot detector found its pip."""
    from vision.recognition.faces import looks_a_face_by_its_dots

    read = _both_readers()
    for seed in (1, 2, 3):
        probs, dots = read(_small_lilac_crop(1, 0, seed))
        assert dots == (1, 0)
        assert looks_a_face_by_its_dots(probs, None) and looks_a_face_by_its_dots(probs, dots), seed
        assert not looks_a_face_by_its_dots(probs, (0, 0))  # the dots must be there too


def test_a_back_whose_dimples_the_half_reader_reads_one_one_stays_a_back_without_dots():
    from vision.recognition.faces import looks_a_face_by_its_dots

    read = _both_readers()
    for seed, pattern in enumerate(["plain", "ring", "dimples", "stripe"] * 2):
        probs, dots = read(_small_lilac_crop(0, 0, seed, face_down=True, pattern=pattern))
        assert not looks_a_face_by_its_dots(probs, dots), (seed, pattern)


def test_a_small_tile_boxed_as_a_back_beside_a_face_is_read_as_the_face_it_shows():
    """The recognizer looks again at small boxes called backs that lie against a face: the 1-0 is
    read, the real back beside it stays a back."""
    from lab.synth.tileface import random_style

    rng = np.random.default_rng(5)
    style = random_style(rng, 9)
    style.body = style.back_rgb = (196, 190, 232)
    style.bar_rgb, style.stud, style.back_pattern = (184, 178, 220), False, "plain"
    style.pip_colours = [(190, 150, 30)] * 10
    # tiles 40 x 78 px (small): a back, the 9-0, the 1-0 beside it
    data = _tiles_drawn(style, rng, (360, 560), 60, 120, 40, [(0, 0, True, 57), (9, 0, False, 100), (1, 0, False, 143)])
    rec = _recognizer_boxing_as_backs(lambda box: box.corners[:, 0].mean() > 143)  # the 1-0 boxed as a back
    result = rec.recognize(data, set_max=9)
    assert sorted(tuple(sorted(t.pips)) for t in result.tiles) == [(0, 1), (0, 9)]
    assert len(result.face_down) == 1 and result.face_down[0].corners[:, 0].max() < 100


def _lying(x0: float, x1: float, y0: float, y1: float, conf: float) -> TileDetection:
    """A tile lying along the picture's rows, its first end at x0."""
    return TileDetection(0, np.array([[x0, y1], [x0, y0], [x1, y0], [x1, y1]], np.float32), conf)


def _counting(tile: TileDetection, dots: list[tuple[float, float]]) -> TileReading:
    """A reading of `tile` whose dots lie at these points of the picture."""
    import cv2

    from vision.rectify import CROP_L, crop_homography

    to_crop = crop_homography(tile.corners)
    at = cv2.perspectiveTransform(np.array([dots], np.float64), to_crop)[0] if dots else np.zeros((0, 2))
    points = [(float(x), float(y), 0.9, int(y >= CROP_L / 2)) for x, y in at]
    counts = [sum(p[3] == h for p in points) for h in (0, 1)]
    return TileReading((HalfReading(counts[0], [0.9] * counts[0], 0.9), HalfReading(counts[1], [0.9] * counts[1], 0.9)),
                       points, (80.0, 8.0))


def _eight(cx: float, cy: float) -> list[tuple[float, float]]:
    return [(cx + dx, cy + dy) for dx in (-30, 0, 30) for dy in (-30, 0, 30) if (dx, dy) != (0, 0)]


def test_a_box_counting_the_dots_of_a_surer_tile_is_dropped():
    """One end of an 8-8 boxed with a square of the table beside it: the box reads 0-8, its 8 the
    very dots of the 8-8's end (a cast shadow's edge bounded the square like a tile's end)."""
    from vision.correct import drop_boxes_sharing_dots

    double = _lying(0, 200, 0, 100, 0.93)
    phantom = _lying(100, 300, 0, 100, 0.52)
    readings = [_counting(phantom, _eight(150, 50)), _counting(double, _eight(50, 50) + _eight(150, 50))]
    kept, kept_readings = drop_boxes_sharing_dots([phantom, double], readings)
    assert kept == [double] and kept_readings[0].pips == (8, 8)


def test_neighbours_each_counting_their_own_dots_are_both_kept():
    from vision.correct import drop_boxes_sharing_dots

    a, b = _lying(0, 200, 0, 100, 0.9), _lying(200, 400, 0, 100, 0.6)
    readings = [_counting(a, _eight(50, 50) + _eight(150, 50)), _counting(b, _eight(250, 50) + _eight(350, 50))]
    kept, _ = drop_boxes_sharing_dots([a, b], readings)
    assert kept == [a, b]


def test_a_tile_counting_a_few_dots_of_the_tile_under_it_is_kept():
    """Where one tile lies partly on another, the lower one's box may take in a few of the upper
    one's dots; most of its dots are its own, so it is a tile, not a phantom."""
    from vision.correct import drop_boxes_sharing_dots

    upper, lower = _lying(0, 200, 0, 100, 0.9), _lying(160, 360, 0, 100, 0.7)
    upper_dots = _eight(50, 50) + _eight(150, 50)
    under_upper = [d for d in upper_dots if d[0] >= 170]  # the upper tile's dots within the lower's box
    readings = [_counting(upper, upper_dots), _counting(lower, under_upper + _eight(300, 50))]
    kept, _ = drop_boxes_sharing_dots([upper, lower], readings)
    assert kept == [upper, lower]
