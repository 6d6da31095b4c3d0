"""The motion gate: what decides, for a few microseconds a frame, whether to run the recognizer."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from lab.synth.sequence import SequenceRenderer, plan_sequence, sequence_rng
from vision.tracking.motion import MotionGate, _edge_entry
from vision.tracking.tuning import PictureConfig


@pytest.fixture(scope="module")
def filmed():
    plan = plan_sequence(sequence_rng(5, 0), (640, 360), 6, max_plays=5)
    renderer = SequenceRenderer(plan)
    return plan, [renderer.frame(i) for i in range(len(plan.frames))]


def test_still_frames_with_sensor_noise_do_not_count_as_motion(filmed):
    plan, frames = filmed
    gate = MotionGate()
    false_moves = still = 0
    for f, img in zip(plan.frames, frames):
        r = gate.update(img)
        prev = plan.frames[f.index - 1] if f.index else None
        if prev is not None and not f.moving and not prev.moving and f.tiles == prev.tiles and \
                abs(f.light - prev.light) < 0.02:
            still += 1
            false_moves += r.moving
    assert still > 20 and false_moves == 0


def test_a_moving_hand_counts_as_motion(filmed):
    plan, frames = filmed
    gate = MotionGate()
    seen = moving = 0
    for f, img in zip(plan.frames, frames):
        r = gate.update(img)
        prev = plan.frames[f.index - 1] if f.index else None
        if prev is not None and f.hand is not None and prev.hand is not None and \
                f.hand.progress > 0.6 and abs(f.hand.progress - prev.hand.progress) > 0.1:
            seen += 1
            moving += r.moving
    assert seen > 5 and moving >= 0.9 * seen


def test_a_lamp_flicker_is_not_motion():
    rng = np.random.default_rng(0)
    img = np.clip(rng.normal(90, 25, (360, 640, 3)), 0, 255).astype(np.uint8)
    cv2.rectangle(img, (300, 150), (340, 230), (235, 235, 235), -1)  # a white tile
    gate = MotionGate()
    gate.update(img)
    for gain in (0.8, 1.1, 0.95):
        assert not gate.update(cv2.convertScaleAbs(img, alpha=gain)).moving


def test_a_still_board_on_a_near_black_table_is_not_motion():
    """White tiles on a table whose grey level is about 5.5: the thumbnail's median of whole
    grey levels stepped between 5 and 6 from frame to frame, a 20 % step that made every tile
    "move" (a rendered double-15 round never read its last three plays)."""
    rng = np.random.default_rng(0)
    frames = []
    for share in (0.45, 0.55, 0.45, 0.55):  # of pixels at 6 rather than 5: the same dark cloth
        img = np.where(rng.random((720, 1280, 1)) < share, 6, 5).astype(np.uint8).repeat(3, axis=2)
        for x in range(100, 1200, 110):
            cv2.rectangle(img, (x, 300), (x + 40, 380), (225, 225, 225), -1)  # white tiles
        frames.append(img)
    gate = MotionGate()
    gate.update(frames[0])
    assert not any(gate.update(f).moving for f in frames[1:])


def test_a_lamp_step_on_a_near_black_table_is_not_motion():
    """On a near-black cloth the picture's median is the cloth's noise: two frames a lamp 0.4 %
    apart had medians of 8.5 and 9.4 grey levels, and dividing by them made every tile "move" by
    10 %. A planted play lying still for a dozen frames was never read twice in a row (in a fresh
    rendered round). The step is measured on the lit pixels instead."""
    rng = np.random.default_rng(1)
    frames = []
    for low in (4, 5, 4, 5):  # the cloth's noise, a grey level darker or lighter from frame to frame
        img = rng.integers(low, low + 10, (720, 1280, 1)).astype(np.uint8).repeat(3, axis=2)
        for x in range(100, 1200, 110):
            cv2.rectangle(img, (x, 300), (x + 40, 380), (200, 200, 200), -1)  # tiles, not clipped white
        frames.append(img)
    gate = MotionGate()
    gate.update(frames[0])
    assert not any(gate.update(f).moving for f in frames[1:])
    # and a tile laid there still counts
    laid = frames[-1].copy()
    cv2.rectangle(laid, (600, 500), (640, 580), (200, 200, 200), -1)
    assert gate.update(laid).moving


def test_a_one_frame_lamp_flash_that_clips_the_tiles_to_white_is_not_motion():
    """A lamp 20 % brighter for one frame clips tiles of 215-235 grey levels to white, and their
    blurred rims rise by less than the light did: a gate that took that for motion took every tile
    for moving, and a planted play lying still across the flash was never read (in a rendered round)."""
    rng = np.random.default_rng(2)
    img = np.clip(rng.normal(60, 12, (720, 1280, 3)), 0, 255).astype(np.uint8)
    for x in range(100, 1200, 110):
        cv2.rectangle(img, (x, 300), (x + 40, 380), (232, 232, 232), -1)  # tiles a flash clips
    gate = MotionGate()
    gate.update(img)
    flash = cv2.convertScaleAbs(img, alpha=1.2)
    assert not gate.update(flash).moving and not gate.update(img).moving


def test_a_new_tile_makes_the_picture_differ_from_the_settled_one(filmed):
    plan, frames = filmed
    first_play = next(e for e in plan.events if e.kind == "play")
    before = first_play.frame - 4
    while plan.frames[before].moving:
        before -= 1
    after = first_play.frame + 1
    while plan.frames[after].moving:
        after += 1
    gate = MotionGate()
    gate.update(frames[before])
    gate.update(frames[before])
    gate.set_reference()
    gate.update(frames[after])
    assert gate.update(frames[after]).changed
    gate.set_reference()
    assert not gate.update(frames[after]).changed


def test_the_arm_s_way_into_the_picture_is_found_on_the_right_edge():
    mask = np.zeros((90, 160), bool)
    mask[30:50, 120:160] = True  # an arm coming in from the right
    x, y = _edge_entry(mask)
    assert x == 1.0 and 0.3 < y < 0.6
    mask[:] = True  # the whole picture moves: a knocked camera, no arm to follow
    assert _edge_entry(mask) is None


def test_a_frame_no_different_from_the_last_one_read_says_so(filmed):
    plan, frames = filmed
    gate = MotionGate()
    still = next(i for i in range(2, len(frames)) if not any(plan.frames[k].moving for k in (i - 2, i - 1, i)))
    gate.update(frames[still - 1])
    assert not gate.update(frames[still]).same_as_read  # nothing read yet
    gate.mark_read()
    assert gate.update(frames[still]).same_as_read
    changed = frames[still].copy()
    cv2.rectangle(changed, (200, 100), (240, 180), (235, 235, 235), -1)  # a tile laid
    gate.update(changed)
    assert not gate.update(changed).same_as_read
    gate.reset()
    gate.update(frames[still])
    assert not gate.update(frames[still]).same_as_read


def test_thumbnails_shrink_by_a_whole_factor():
    gate = MotionGate()
    for (w, h), size in (((1280, 720), (256, 144)), ((640, 480), (213, 160)), ((1920, 1080), (240, 135))):
        thumb, white, level = gate.thumbnail(np.full((h, w, 3), 100, np.uint8))
        assert thumb.shape[::-1] == size and not white.any() and level == 100


def test_a_tile_laid_on_a_white_table_changes_the_picture():
    """On a white tablecloth the camera clips the table to white; a tile laid there (an ivory
    face, a grey rim, dark pips) turns white pixels into not-white ones, which is a change.
    Only pixels near white in both pictures (a clipped area lit a little differently) are left
    out; the gate once left out pixels near white in either, so a tile laid on a white table
    went unseen until the next periodic re-read (measured on a rendered double-12 round)."""
    rng = np.random.default_rng(1)
    table = np.clip(rng.normal(250, 2, (720, 1280, 3)), 0, 255).astype(np.uint8)
    laid = table.copy()
    cv2.rectangle(laid, (600, 300), (621, 341), (150, 150, 150), -1)  # the rim's shadow
    cv2.rectangle(laid, (602, 302), (619, 339), (215, 222, 226), -1)  # an ivory face
    for y in (308, 318, 332):
        cv2.circle(laid, (610, y), 2, (30, 30, 30), -1)
    gate = MotionGate()
    gate.update(table)
    gate.update(table)
    gate.set_reference()
    gate.update(laid)
    assert gate.update(laid).changed


def test_a_picture_that_differs_from_the_settled_one_is_never_the_one_last_read():
    """A 40-px tile laid on a big table changes a few thumbnail pixels, near the threshold of
    both tests: the reading of the empty place must not be reused for it (the board would
    settle without the tile, which then looks like part of the table)."""
    base = np.full((135, 240, 3), 90, np.uint8)  # thumbnail scale: one pixel each
    settled = base.copy()
    settled[20, 20] = 200  # the settled picture differs a little from the one read (noise)
    laid = base.copy()
    laid[100, 100] = 200  # a small tile laid
    gate = MotionGate()
    share = lambda a, b: gate._share(gate.thumbnail(a), gate.thumbnail(b))[0]  # noqa: E731
    assert share(laid, base) <= gate.config.change_share < share(laid, settled)  # the case in point
    gate.update(base)
    gate.update(base)
    gate.mark_read()
    assert not gate.update(settled).moving
    gate.set_reference()
    gate.update(laid)
    r = gate.update(laid)
    assert not r.moving and r.changed
    assert not r.same_as_read


def test_a_double_s_place_still_looks_the_same_after_a_toe_is_laid_against_its_side():
    """A toe laid against a double's side shades the double's edge and fills the strip beside it
    that a box a little larger than the tile takes in (detector boxes are); the double itself did
    not change, and its place must not look changed, or a double the reader then loses is taken
    for gone with every play on it (in a fresh rendered double-15 round, a 15-15 and its toes)."""
    from vision.tracking.board import same_picture, tile_patch
    from vision.tracking.geometry import TilePose

    pictures = PictureConfig()
    plan = plan_sequence(sequence_rng(2, 7), (1280, 720), 15)
    tid = next(i for i, t in enumerate(plan.tiles) if t.name == "15-15")
    renderer = SequenceRenderer(plan)
    before, after = 1504, 1520  # the 15-10 toe lies at one corner; then the 15-0 is laid against its side
    assert plan.frames[before].camera == plan.frames[after].camera
    c = plan.image_corners(tid, plan.frames[before].camera)
    boxed = TilePose(c.mean(0) + (c - c.mean(0)) * 1.1, (15, 15))
    then, now = tile_patch(renderer.frame(before), boxed, pictures), tile_patch(renderer.frame(after), boxed, pictures)
    assert same_picture(then, now, pictures)
    # while the place before the double was laid there (a still frame, no hand) looks different
    bare = max(f.index for f in plan.frames[:before] if tid not in f.tiles and f.hand is None and not f.moving)
    c0 = plan.image_corners(tid, plan.frames[bare].camera)
    boxed0 = TilePose(c0.mean(0) + (c0 - c0.mean(0)) * 1.1, (15, 15))
    assert not same_picture(then, tile_patch(renderer.frame(bare), boxed0, pictures), pictures)


def test_a_small_tile_laid_on_a_light_table_is_a_change_to_read():
    """A 40-px tile on a light grey table, its face hardly brighter than the cloth, changes only
    its pips and edges: in a rendered double-15 round that was 14 pixels of a 256×144
    thumbnail, and a planted tile lying still for ten frames went unread."""
    base = np.full((144, 256, 3), 214, np.uint8)  # thumbnail scale: one pixel each
    laid = base.copy()
    for y, x in [(66, 120), (66, 121), (66, 122), (67, 121), (67, 122), (68, 121), (68, 122),
                 (69, 118), (69, 119), (69, 120)]:
        laid[y, x] = 170  # pips and a shaded edge, a little darker than the table
    gate = MotionGate()
    share = gate._share(gate.thumbnail(laid), gate.thumbnail(base))[0]
    assert 0.0002 < share < 0.0004  # the case in point: under the change share asked before
    gate.update(base)
    gate.update(base)
    gate.mark_read()
    gate.set_reference()
    gate.update(laid)
    r = gate.update(laid)
    assert not r.moving and r.changed and not r.same_as_read


def test_a_lamp_falling_back_from_a_flash_that_clipped_part_of_each_face_is_not_motion():
    """Tiles whose faces a brighter lamp clipped in part: as the light falls back their thumbnail
    pixels fall by less than the light did, neither white nor stepping with the light. The gate
    took two such frames for motion, and a planted play lying still between them was read once
    (in a rendered double-9 round). A tile laid in the same step still counts."""
    rng = np.random.default_rng(3)
    lit = rng.normal(60, 12, (720, 1280, 3))
    for x in range(100, 1200, 110):
        lit[300:380, x:x + 40] = rng.normal(250, 25, (80, 40, 3))  # faces grained enough to clip in part
    bright = np.clip(lit * 1.15, 0, 255).astype(np.uint8)
    dim = np.clip(lit * 0.94, 0, 255).astype(np.uint8)
    gate = MotionGate()
    gate.update(bright)
    assert not gate.update(dim).moving and not gate.update(bright).moving
    laid = dim.copy()
    cv2.rectangle(laid, (600, 500), (640, 580), (200, 200, 200), -1)
    assert gate.update(laid).moving
