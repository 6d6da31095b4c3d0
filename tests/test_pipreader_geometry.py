"""The pip reader's geometry: where the bar is, which dots count, which half a dot is in."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from lab.synth.tileface import draw_tile, random_style
from vision.pipreader import _split_row, find_bar
from vision.rectify import CROP_L, CROP_W, obb_to_corners, rectify_tile


def _crop(a: int, b: int, seed: int, shift: float = 0.0, bar_rgb: tuple[int, int, int] = (10, 10, 10),
          stud: bool | None = None) -> np.ndarray:
    rng = np.random.default_rng(seed)
    style = random_style(rng, 12)
    style.bar_rgb, style.body = bar_rgb, (245, 245, 240)
    style.pip_colours = [(10, 10, 10)] * 19
    if stud is not None:
        style.stud, style.stud_rgb = stud, (240, 238, 225)
    sp = draw_tile(style, a, b, 120, rng)
    canvas = np.full((sp.length + 80, sp.width + 80, 3), 60, np.uint8)
    alpha = sp.rgba[..., 3:4] / 255.0
    canvas[40:40 + sp.length, 40:40 + sp.width] = (sp.rgba[..., :3] * alpha + 60 * (1 - alpha)).astype(np.uint8)
    corners = np.array([[40, 40], [40 + sp.width, 40], [40 + sp.width, 40 + sp.length], [40, 40 + sp.length]],
                       np.float32) + [0, shift * sp.length]
    return rectify_tile(canvas[..., ::-1].copy(), corners)[0]


def test_bar_is_found_in_the_middle_of_a_straightened_tile():
    for seed in range(5):
        bar = find_bar(_crop(3, 5, seed))
        assert bar is not None
        assert abs(bar[0] - CROP_L / 2) < 0.03 * CROP_L


def test_bar_follows_the_tile_when_the_outline_is_off_along_its_length():
    bar = find_bar(_crop(2, 6, 1, shift=0.05))
    assert bar is not None and bar[0] < CROP_L / 2 - 0.02 * CROP_L


def _face_with_dots(dots: list[tuple[int, int]], radius: int = 6) -> np.ndarray:
    import cv2

    crop = np.full((CROP_L, CROP_W, 3), 235, np.uint8)
    for x, y in dots:
        cv2.circle(crop, (x, y), radius, (20, 20, 20), -1, cv2.LINE_AA)
    return crop


def test_a_row_of_pips_beside_the_centre_is_not_taken_for_the_bar():
    # the lower pair of a 5 sits near the middle (measured on a rendered webcam frame); with a
    # bar too faint to see, the old finder bridged the two dots across the centre fifth and the
    # reader dropped them as "on the bar", reading the 5 as a 3
    five = [(26, 31), (55, 29), (40, 46), (25, 62), (55, 60)]
    three = [(52, 129), (37, 115), (23, 102)]
    bar = find_bar(_face_with_dots(five + three))
    assert bar is None or abs(bar[0] - CROP_L / 2) < 0.03 * CROP_L


def test_bar_is_found_through_a_face_coloured_spinner_stud():
    for seed in range(5):
        bar = find_bar(_crop(4, 6, seed, stud=True))
        assert bar is not None
        assert abs(bar[0] - CROP_L / 2) < 0.03 * CROP_L


def test_a_plain_face_has_no_bar():
    crop = np.full((CROP_L, CROP_W, 3), 235, np.uint8)
    assert find_bar(crop) is None


def test_halves_split_at_the_widest_gap_near_the_middle():
    ys = np.array([20, 40, 60, 100, 120, 140], float)
    assert 60 < _split_row(ys) < 100
    assert _split_row(np.array([])) == CROP_L / 2


def test_obb_corners_keep_label_winding_and_long_axis():
    for theta in np.linspace(-3, 3, 13):
        c = obb_to_corners(100, 100, 40, 80, theta)
        length = np.linalg.norm(c[0] - c[3])
        width = np.linalg.norm(c[0] - c[1])
        assert length > width
        x, y = c[:, 0], c[:, 1]
        assert 0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) > 0


def _decode_points(points: list[tuple[float, float, float]], bar: tuple[float, float] | None = None):
    """Run the reader's decoding on model output holding these (x, y, score) crop-space dots."""
    from vision.onnx_yolo import Letterbox
    from vision.pipreader import PipReader

    reader = PipReader.__new__(PipReader)
    reader.conf, reader.iou, reader.max_pips = 0.5, 0.45, 18
    out = np.zeros((5, len(points)), np.float32)
    for k, (x, y, s) in enumerate(points):
        out[:, k] = (x + 40, y, 9, 9, s)  # a single crop sits 40 px in from the left
    return reader._decode(out, Letterbox(1.0, 40, 0), bar)


SIX_SIX = [(x, y, 0.9) for y in (30, 55, 105, 130) for x in (22, 40, 58)]


def test_a_row_of_touching_pips_taken_for_the_divider_is_counted_as_pips():
    # big pips touching each other make a row as dark and as wide as a divider; the real,
    # faint divider was not found
    reading = _decode_points(SIX_SIX, bar=(55.0, 8.0))
    assert reading.pips == (6, 6)
    assert reading.bar is None


def test_the_dividers_rounded_ends_read_as_dots_are_dropped():
    reading = _decode_points(SIX_SIX + [(14, 80, 0.7), (66, 80, 0.7)], bar=(80.0, 4.0))
    assert reading.pips == (6, 6)


def test_a_dot_in_the_margin_in_line_with_a_counted_dot_is_the_rest_of_its_row():
    # the outline is short at end 0: its outer row (y 16-18) reaches into the crop's margin
    reading = _decode_points([(22, 15, 0.75), (62, 18, 0.8), (22, 40, 0.8), (62, 40, 0.8), (40, 120, 0.8)])
    assert reading.pips == (4, 1)


def test_a_lone_dot_in_the_margin_beyond_the_end_is_a_neighbours():
    reading = _decode_points([(40, 6, 0.9), (22, 40, 0.8), (62, 40, 0.8), (40, 120, 0.8)])
    assert reading.pips == (2, 1)


def _grid(cells: list[tuple[int, int]], spacing: float = 20.0) -> np.ndarray:
    return np.array([(40 + spacing * c, 40 + spacing * r) for r, c in cells], float)


SEVEN = [(-1, -1), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 1), (0, 0)]  # two lines of 3 + the centre
TEN = [(-1.5, -1), (-0.5, -1), (0.5, -1), (1.5, -1), (-1.5, 1), (-0.5, 1), (0.5, 1), (1.5, 1), (0, -1), (0, 1)]


def test_an_even_count_with_a_dot_at_the_centre_takes_the_near_miss_dot_parity_asks_for():
    from vision.pipreader import parity_count

    # a 7 whose corner dot scored just under the threshold: six counted, the centre among them
    xy = _grid(SEVEN[1:] + SEVEN[:1])
    scores = np.array([0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.35])
    assert parity_count(xy, scores, 6, 0.5) == (7, True)


def test_an_odd_count_with_the_centre_empty_takes_the_near_miss_dot_parity_asks_for():
    from vision.pipreader import parity_count

    xy = _grid(TEN)  # a 10 (4 + 2 + 4, centre empty) read as 9
    scores = np.array([0.8] * 9 + [0.48])
    assert parity_count(xy, scores, 9, 0.5) == (10, True)


def test_a_count_that_keeps_parity_is_left_alone_and_values_above_12_are_not_checked():
    from vision.pipreader import parity_count

    six = _grid([(-1, -1), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 1), (0, 0)])
    scores = np.array([0.8] * 6 + [0.45])
    assert parity_count(six, scores, 6, 0.5) == (6, False)  # a weak glint at the centre: 6 already keeps parity
    assert parity_count(_grid([(r, c) for r in range(-2, 2) for c in range(-2, 2)] + [(5, 5)]),
                        np.array([0.8] * 16 + [0.45]), 13, 0.5) == (13, False)


def test_a_confident_dot_is_not_dropped_for_parity():
    from vision.pipreader import parity_count

    xy = _grid(SEVEN[:6] + [(3, 3)])  # a 6 plus a clear extra dot off the pattern, nothing to add
    scores = np.array([0.8] * 7)
    n, changed = parity_count(xy, scores, 7, 0.5)
    assert (n, changed) == (7, False)


def test_channel_medians_are_numpys_medians():
    from vision.pipreader import channel_medians

    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 10, 11, 400, 401):
        px = rng.integers(0, 256, (n, 3)).astype(np.uint8)
        assert np.array_equal(channel_medians(px), np.median(px, axis=0))
    flat = np.full((7, 5, 3), 200, np.uint8)
    assert np.array_equal(channel_medians(flat), [200, 200, 200])


def test_a_divider_of_exactly_the_contrast_asked_is_not_a_divider():
    """A pixel counts as unlike the face only past `contrast` from it in some channel."""
    crop = np.full((160, 80, 3), 200, np.uint8)
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)
    bar = lab.copy()
    bar[78:82, 4:76, 0] -= 20  # a bar 20 levels darker in L
    crop = cv2.cvtColor(bar, cv2.COLOR_LAB2BGR)
    shift = int(np.abs(cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)[80, 40].astype(int) - lab[80, 40]).max())
    assert find_bar(crop, contrast=shift - 1) is not None
    assert find_bar(crop, contrast=shift) is None


def _shaded_face(face: tuple[int, int, int], pip: tuple[int, int, int]) -> np.ndarray:
    """An 80x160 straightened crop: a face with two rows of pips, a shadow's sharp edge running
    across it diagonally so that it cuts through pips, the shaded side at 45 % of the light."""
    import cv2

    crop = np.full((160, 80, 3), face, np.uint8)
    for y in (30, 55, 105, 130):
        for x in (22, 58):
            cv2.circle(crop, (x, y), 7, pip, -1, cv2.LINE_AA)
    yy, xx = np.mgrid[0:160, 0:80]
    shade = np.where(yy > 40 + 1.2 * xx, 0.45, 1.0)[..., None]
    return (crop * shade).astype(np.uint8)


@pytest.mark.parametrize("face, pip", [((235, 238, 240), (150, 40, 200)), ((30, 30, 30), (230, 230, 230))])
def test_a_shadows_sharp_edge_is_taken_out_of_the_face_and_the_pips_keep_their_colour(face, pip):
    """`shade_flattened_view`: on a white face with magenta pips, and on a black face with white
    pips, the face reads alike on both sides of the edge and each pip as it does in the light."""
    from vision.pipreader import shade_flattened_view

    crop = _shaded_face(face, pip)
    view = shade_flattened_view(crop).astype(np.float32)
    lit_face, shaded_face = view[10, 70], view[150, 10]  # no pip near either
    assert np.abs(lit_face - shaded_face).max() < 20
    lit_pip, shaded_pip = view[30, 58], view[130, 22]
    assert np.abs(crop[30, 58].astype(np.float32) - crop[130, 22]).max() > 60  # the shade told them apart
    assert np.abs(lit_pip - shaded_pip).max() < 25
    assert np.abs(lit_pip - lit_face).max() > 60  # the pips still stand out from the face
