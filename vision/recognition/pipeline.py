"""The recognizer's stages in the order they run, and the `Recognition` made of what they found.

Every stage is `stage(cands, ctx) -> cands`: it reads and writes the candidates' columns and
the picture-wide facts on the context, and drops rows by a mask. A stage may start work that a
later one collects (`reading.start_half_reader`, collected by `reading.read_small_tiles`)."""
from __future__ import annotations

import time
from typing import Callable, Iterable

from ..capture import small_tiles_warning
from ..types import Recognition, TileDetection, tile_length
from . import backs, boxing, colours, dropping, reading, settling
from .candidates import Candidates, Flag
from .changes import cut_off_warning, notes_of, repeated_tile_warning
from .context import Context

Stage = Callable[[Candidates, Context], Candidates]

DEFAULT_PIPELINE: tuple[Stage, ...] = (
    boxing.split_backs,               # the detector's backs aside; a large one whose divider shows is a face
    boxing.faces_among_backs,         # small "backs" beside a face that both readers read as one
    boxing.crop_faces,                # straightened crops, dividers, SMALL marked
    reading.start_half_reader,        # half reader on the helper thread ...
    reading.count_dots,               # ... beside the dot detector
    reading.read_small_tiles,         # collected: small faces take its values
    reading.check_bar,                # large faces: a divider that is a row of pips
    reading.check_split,              # large faces: dots shared out between the ends
    reading.check_pattern,            # large faces: a faint end read by its pattern
    reading.further_looks,            # disputed ends looked at on other views of the crop
    reading.mark_still_disputed,
    reading.check_dense,              # dense ends no look could part
    reading.check_double,             # an end of a double lost under a glare
    reading.check_pale_ends,          # blank ends the half reader doubts: pale pips on a colour view
    colours.check_colours,            # one value, one pip colour
    dropping.drop_duplicates,         # one tile boxed twice
    dropping.drop_overlaps,           # phantoms over a block of tiles
    dropping.drop_shared_dots,        # a box counting another's dots
    dropping.drop_table_patches,      # streaked patches of the table
    backs.mark_cut_by_edge,
    backs.find_blank_faces,           # neither dot nor divider ...
    backs.spare_double_blanks,        # ... unless the double blank's faint divider shows
    backs.spare_faces_by_pattern,     # ... or a face's pale pattern
    backs.turn_blanks_to_backs,
    settling.infer_set,
    settling.cap_at_set_max,
    settling.correct_duplicates,      # each tile once
    settling.list_second_readings,
    settling.back_second_readings,    # large faces: the half reader's belief makes them dearer
)
"""The recognizer's stages, in order (`Recognizer(pipeline=...)` runs another tuple)."""

REQUIRED_STAGES: tuple[Stage, ...] = (
    boxing.crop_faces, reading.start_half_reader, reading.count_dots, reading.read_small_tiles,
    settling.infer_set, settling.cap_at_set_max,
)
"""Stages the others and the `Recognition` depend on (crops, readings, values, the set): a
pipeline without one of them cannot read a picture; every other stage can be left out."""


def without(*left_out: Stage, pipeline: Iterable[Stage] = DEFAULT_PIPELINE) -> tuple[Stage, ...]:
    """`pipeline` with the stages `left_out` taken out (to measure what a stage does)."""
    return tuple(s for s in pipeline if s not in left_out)


def run(pipeline: Iterable[Stage], cands: Candidates, ctx: Context) -> Candidates:
    for stage in pipeline:
        cands = stage(cands, ctx)
    return cands


def recognition(cands: Candidates, ctx: Context, started: float) -> Recognition:
    """The `Recognition` of what the stages found: faces with their values, notes rendered from
    their traces, then the backs (the detector's, then faces taken for backs)."""
    img = ctx.img
    tiles = []
    for i in range(len(cands)):
        reading_ = cands.reading[i]
        tiles.append(TileDetection(
            i, cands.corners[i] * img.scale, float(cands.score[i]), pips=cands.pips[i],
            pip_confidence=cands.pip_confidence[i],
            pip_points=[(x, y, c, h) for x, y, c, h in reading_.points] if reading_ is not None else [],
            notes=notes_of(cands.trace[i]), second_readings=cands.seconds[i] or [],
            recoloured=bool(cands.flags[i] & Flag.RECOLOURED), cut_by_edge=bool(cands.flags[i] & Flag.CUT_BY_EDGE)))
    face_down = []
    for k in range(len(ctx.backs)):
        reading_ = ctx.backs.reading[k]
        face_down.append(TileDetection(
            len(tiles) + k, ctx.backs.corners[k] * img.scale, float(ctx.backs.score[k]), face_down=True,
            pip_points=[(x, y, c, h) for x, y, c, h in reading_.points] if reading_ is not None else [],
            notes=notes_of(ctx.backs.trace[k]), recoloured=bool(ctx.backs.flags[k] & Flag.RECOLOURED)))
    return Recognition(img.source, img.width, img.height, tiles, face_down, ctx.set_in_play,
                       time.perf_counter() - started, warnings(cands, ctx), ctx.sure_colours,
                       highest_read=ctx.highest_read)


def warnings(cands: Candidates, ctx: Context) -> list[str]:
    """The photo's warnings: tiles read more than once, faces cut by the edge, tiles too small."""
    out = [repeated_tile_warning(key, times) for key, times in ctx.repeated]
    cut = cut_off_warning(int(cands.has(Flag.CUT_BY_EDGE).sum()))
    if cut:
        out.append(cut)
    advice = small_tiles_warning([tile_length(c * ctx.img.scale) for c in cands.corners], ctx.set_in_play)
    if advice:
        out.append(advice)
    return out
