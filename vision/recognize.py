"""Photo -> dominoes with pip values: the one function the CLI, the API and the tracker call."""
from __future__ import annotations

import os
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .correct import DEFAULT_SET, read_twice
from .detector import TileDetector
from .halfreader import HalfReader
from .imageio import LoadedImage, load_image
from .pipreader import PipReader
from .perspective import (LevelView, find_level_view, guessed_steep_view, looks_from_above, pip_shapes,
                          pips_show_a_tilt)
from .recognition import pipeline as stages
from .recognition.boxing import detected, shows_divider
from .recognition.candidates import Candidates
from .recognition.config import RecognizerConfig
from .recognition.context import Context
from .types import Recognition, TileDetection

REPO_MODELS = Path(__file__).resolve().parents[1] / "models"
DETECTOR_FILE = "tile_detector.onnx"
PIPS_FILE = "pip_detector.onnx"
HALVES_FILE = "half_reader.onnx"
BIG_HALVES_FILE = "half_reader_big.onnx"
def models_dir() -> Path:
    return Path(os.environ.get("CHICKENFOOT_MODELS", REPO_MODELS))

LEVEL_BACK_SHARE = 0.25
"""A back shorter than this share of the faces' median length is left out of the search for the
picture's angle (`_backs_of_a_size`)."""


def _backs_of_a_size(rec: Recognition) -> list[TileDetection]:
    """The backs that may be tiles of the set whose faces were read: the search for the angle
    looks for the view in which every box is a domino of one size. Why: a back is a plain box,
    and the detector's phantoms are most often backs; on a real copy seen from 65 degrees, two
    phantom backs on the coarse cloth at the picture's near edge, a tenth of the tiles' length,
    turned the view found from the tiles' 53 degrees to a skewed 63, and the levelled reading
    boxed halves as tiles. Real backs of the set stay: leaving every back out instead read fewer
    tiles of rendered steep tables exactly (seed 2613: 0.852 -> 0.790)."""
    if len(rec.tiles) < 2:
        return list(rec.face_down)
    median = float(np.median([t.length for t in rec.tiles]))
    return [t for t in rec.face_down if t.length >= LEVEL_BACK_SHARE * median]


def _faces_with_a_divider(img: LoadedImage, tiles: list[TileDetection], enough: int) -> int:
    """How many of the faces read show a divider, counted up to `enough`
    (`RecognizerConfig.guess_below_faces`). Why not the
    faces alone: seen from further than the detector learnt, a tile's two halves are boxed as two
    tiles, and a half shows no divider (rendered double-12 hands seen from 60-72 degrees: 41 of 204
    faces read showed one; hands from above 110 of 148)."""
    n = 0
    for t in tiles:
        if shows_divider(img.bgr, t.corners / img.scale):
            n += 1
            if n >= enough:
                break
    return n


class Recognizer:
    """Photo -> `Recognition`: the models loaded once, and the stages (`recognition.pipeline`)
    run on each picture. `config`: the recognizer's tuning (`RecognizerConfig`; `detector_conf`,
    `pip_conf` and `small_tiles`, where given, replace its fields); `pipeline`: the stages to run,
    `DEFAULT_PIPELINE` unless a lab script measures another."""

    def __init__(self, model_dir: str | Path | None = None, detector_conf: float | None = None,
                 pip_conf: float | None = None, threads: int | None = None, small_tiles: bool | None = None,
                 config: RecognizerConfig | None = None,
                 pipeline: tuple[stages.Stage, ...] = stages.DEFAULT_PIPELINE):
        given = {k: v for k, v in (("detector_conf", detector_conf), ("pip_conf", pip_conf),
                                   ("small_tiles", small_tiles)) if v is not None}
        self.config = replace(config or RecognizerConfig(), **given)
        self.pipeline = tuple(pipeline)
        d = Path(model_dir) if model_dir else models_dir()
        if d.is_file():  # --model may name the detector file itself
            det_path, d = d, d.parent
        else:
            det_path = d / DETECTOR_FILE
        self.detector = TileDetector(det_path, conf=self.config.detector_conf, threads=threads)
        self.pips = PipReader(d / PIPS_FILE, conf=self.config.pip_conf, threads=threads)
        # a model folder without the half reader (an older one) reads every tile by its dots
        self.halves = HalfReader(d / HALVES_FILE, threads=threads) \
            if self.config.small_tiles and (d / HALVES_FILE).exists() else None
        self.big_halves = HalfReader(d / BIG_HALVES_FILE, threads=threads) \
            if self.halves is not None and (d / BIG_HALVES_FILE).exists() else None
        self._helper = ThreadPoolExecutor(1, thread_name_prefix="half-reader")  # its thread starts at first use

    @property
    def small_tile_px(self) -> float:
        """Tiles shorter than this (pixels of the picture read) are read by the half reader."""
        return self.config.small_tile_px

    def _beside(self, fn: Callable[..., Any], *args: Any) -> Future:
        """`fn(*args)` started on the recognizer's one helper thread. Why: the two small readers'
        runs are too short to keep both cores busy alone (onnxruntime splits little of a 36x32
        end's work), so the half reader run after the dot detector costs a hand frame ~6 ms and a
        table frame ~10 ms more than run beside it (measured paired, in one process; every real
        photo and webcam frame read the same either way). Made with the recognizer, not at first
        use, so that requests the service reads side by side share one."""
        return self._helper.submit(fn, *args)

    def recognize_loaded(self, img: LoadedImage, set_max: int | None = None,
                         tile_px: float | None = None, level: bool = False,
                         colour_anchors: Sequence[tuple[int, Any]] = ()) -> Recognition:
        """`tile_px`: the tiles' length in the picture read, where the caller knows it (see
        `TileDetector.detect`). `level`: where the boxes found show the picture was taken at an
        angle, read it again levelled (see `levelled`); for photos, not for a webcam's frames,
        whose tracker knows the view from the frames before. `colour_anchors`: the
        `Recognition.pip_colours` of earlier pictures of the same set (see `colour_check`)."""
        rec = self._read(img, set_max, tile_px, colour_anchors)
        rec = self.levelled(img, rec, set_max) if level else rec
        if set_max is None and rec.highest_read > rec.set_max and rec.set_max < DEFAULT_SET:
            # enough faces read sure show a small set, and faces read unsure gave values it does
            # not hold: read again within that set, so that the readers choose among its values
            # (see `infer_set_max`). Not where the set is only the default: read again as a named
            # double-12, real low-seat frames lost tiles they had read unconstrained
            first = rec.seconds
            rec = self.recognize_loaded(img, rec.set_max, tile_px, level, colour_anchors)
            rec.seconds += first
        return rec

    def context(self, img: LoadedImage, set_max: int | None = None, tile_px: float | None = None,
                colour_anchors: Sequence[tuple[int, Any]] = ()) -> Context:
        """What the stages are given for one picture: a declared big set is read by the big sets'
        half reader (`RecognizerConfig.big_set_min`), where the model folder has one."""
        big = self.big_halves is not None and set_max and set_max >= self.config.big_set_min
        return Context(img, set_max, self.config, self.detector, self.pips, self.big_halves if big else self.halves,
                       self._beside, tile_px, colour_anchors)

    def read_candidates(self, img: LoadedImage, set_max: int | None = None, tile_px: float | None = None,
                        colour_anchors: Sequence[tuple[int, Any]] = ()) -> tuple[Candidates, Context]:
        """The faces left after the pipeline's stages, with their flags and traces, and the context
        holding the backs and the boxes dropped: what `_read` makes its `Recognition` of."""
        ctx = self.context(img, set_max, tile_px, colour_anchors)
        return stages.run(self.pipeline, detected(ctx), ctx), ctx

    def _read(self, img: LoadedImage, set_max: int | None = None, tile_px: float | None = None,
              colour_anchors: Sequence[tuple[int, Any]] = ()) -> Recognition:
        started = time.perf_counter()
        cands, ctx = self.read_candidates(img, set_max, tile_px, colour_anchors)
        return stages.recognition(cands, ctx, started)

    def recognize(self, src: str | Path | bytes, set_max: int | None = None, name: str | None = None,
                  level: bool = True) -> Recognition:
        """A photo's tiles, as `chickenfoot score` reads them. `level`: where the boxes found show
        the photo was taken at an angle, read it again levelled (see `vision.perspective`)."""
        return self.recognize_loaded(load_image(src, name=name), set_max, level=level)

    def levelled(self, img: LoadedImage, rec: Recognition, set_max: int | None = None) -> Recognition:
        """`rec` read again on the picture levelled (`vision.perspective.find_level_view`), its
        corners mapped back to the photo's pixels, where the boxes show the photo was taken at an
        angle. Of the levelled readings, the one with the most faces is kept, the later of equals
        (a second round may go astray where the first read well: a real copy seen from 45 degrees
        lost a tile in it), unless it reads more tiles twice than the photo as it is (see
        `RecognizerConfig.level_more_twice`); where every levelled reading does, `rec` is kept. A photo of too
        few faces showing a divider to show its angle is read again in a guessed steep view
        (`RecognizerConfig.guess_below_faces`), kept only where the pips read in it are squashed in the photo as
        from 50 degrees or more (`perspective.pips_show_a_tilt`), and levelled from there."""
        readings: list[tuple[Recognition, LevelView | None]] = [(rec, None)]
        seconds, view, again = rec.seconds, None, rec
        rounds, guessed = self.config.level_rounds, False
        while rounds > 0:
            rounds -= 1
            boxes = [t.corners / img.scale for t in again.tiles + _backs_of_a_size(again)]
            pips = pip_shapes(img.bgr, boxes[:len(again.tiles)], [[p[:2] for p in t.pip_points] for t in again.tiles])
            if guessed and not pips_show_a_tilt(pips):
                readings.pop()  # the pips read in the guessed view do not bear it out
                break
            guessed = False
            found = find_level_view(boxes, img.bgr.shape[1], img.bgr.shape[0], pips)
            if found is None and view is None and not looks_from_above(pips) \
                    and _faces_with_a_divider(img, rec.tiles, self.config.guess_below_faces) \
                    < self.config.guess_below_faces:
                # too few faces with a divider to show the angle: guess it, and let its pips judge it
                found, guessed, rounds = guessed_steep_view(img.bgr.shape[1], img.bgr.shape[0]), True, rounds + 1
            if found is None or (view is not None and found.near(view)):
                break
            view = found
            flat = LoadedImage(view.warp(img.bgr), 1.0, view.size[0], view.size[1], img.source)
            again = self._read(flat, set_max)
            seconds += again.seconds
            found_here = again.tiles + again.face_down
            if found_here:
                back = view.to_picture(np.stack([t.corners for t in found_here])) * img.scale
                for t, c in zip(found_here, back):
                    t.corners = c
            again.width, again.height = img.width, img.height
            readings.append((again, view))
        # a levelled reading that reads more tiles twice than the photo as it is did misreads them
        # (see `RecognizerConfig.level_more_twice`): the view it was read in is not the table's
        plain = read_twice(rec.tiles)
        trusted = [rv for rv in readings[1:] if read_twice(rv[0].tiles) <= plain + self.config.level_more_twice]
        best, best_view = max(reversed(trusted), key=lambda rv: len(rv[0].tiles)) if trusted else readings[0]
        best.seconds = seconds
        if best_view is not None:
            best.warnings.append(f"taken at an angle (about {best_view.degrees:.0f} degrees off straight down): "
                                 "read on a levelled view of the photo")
        return best


@lru_cache(maxsize=4)
def get_recognizer(model_dir: str | None = None) -> Recognizer:
    """One loaded model per process: sessions take ~100 ms to build."""
    return Recognizer(model_dir)


def tile_identities(rec: Recognition) -> list[tuple[int, int]]:
    return sorted((min(t.pips), max(t.pips)) for t in rec.tiles if t.pips is not None)


__all__ = ["Recognizer", "get_recognizer", "tile_identities"]
