"""Reading: each face's values, by the dot detector and the half reader, and the rules by which
the two readers settle an end they read apart (`vision.halfreader`'s checks), looks at other
views of the crop included."""
from __future__ import annotations

from ..halfreader import (bar_checked, blank_ends_in_doubt, classified_reading, dense_checked, disputed_ends,
                          double_checked, pale_ends_checked, pattern_checked, second_look_checked, split_checked)
from ..pipreader import (colour_distance_view, evenly_lit_view, faint_pips_view, faintest_pips_view,
                         shade_flattened_view, sharpened_view)
from .candidates import Candidates, Flag
from .context import Context

HALF_READER = "half reader"
"""`Context.pending` key of the half reader's run on every face (`start_half_reader`)."""


FURTHER_LOOKS = (colour_distance_view, sharpened_view, faint_pips_view, evenly_lit_view, shade_flattened_view,
                 faintest_pips_view)
"""Views of a large tile's crop read again, in turn, where the half reader is sure of more dots than
were counted: pips of a colour the dot detector is blind to, dots a blur has faded, pale pips on a
face lit to white, pips under a glare, pips a shadow's sharp edge crosses, pale pips all but washed
out. The classifier's value is taken only where a look finds exactly the dots it needs
(`halfreader.second_look_checked`), so a look that merges or invents dots costs nothing but its
time, and an end the dots already explain is never looked at again."""

def _large(cands: Candidates) -> list[int]:
    """Rows the half reader read that are not small: read by their dots, checked by the half reader."""
    return [i for i in range(len(cands)) if cands.probs[i] is not None and not cands.flags[i] & Flag.SMALL]


def start_half_reader(cands: Candidates, ctx: Context) -> Candidates:
    """Start the half reader on every face's crop, small ones first, on the helper thread: it runs
    beside the dot detector (`count_dots`), and `read_small_tiles` collects it."""
    if ctx.halves is None or not len(cands):
        return cands
    small = cands.rows(cands.has(Flag.SMALL))
    rows = small + cands.rows(~cands.has(Flag.SMALL))
    ctx.pending[HALF_READER] = (ctx.beside(ctx.halves.probabilities, [cands.crop[i] for i in rows]), rows)
    return cands


def count_dots(cands: Candidates, ctx: Context) -> Candidates:
    """The dot detector's reading of every face but the small ones whose divider shows: a small
    tile's values come from the half reader, and its dots are counted only to tell a back from a
    face, which a divider already does (see `halfreader.classified_reading`)."""
    counted = [i for i in range(len(cands)) if not (cands.flags[i] & Flag.SMALL and cands.bar[i] is not None)]
    for i, r in zip(counted, ctx.pips.read_crops([cands.crop[i] for i in counted], [cands.bar[i] for i in counted])):
        cands.reread(i, r, "count_dots")
    return cands


def read_small_tiles(cands: Candidates, ctx: Context) -> Candidates:
    """Collect the half reader's run: every face keeps its per-end probabilities, and a small
    face takes its values from them (`halfreader.classified_reading`)."""
    if HALF_READER not in ctx.pending:
        return cands
    future, rows = ctx.pending.pop(HALF_READER)
    for i, p in zip(rows, future.result()):
        cands.probs[i] = p
        if cands.flags[i] & Flag.SMALL:
            cands.reread(i, classified_reading(cands.reading[i], p, ctx.set_max, cands.bar[i]), "read_small_tiles")
    return cands


def check_bar(cands: Candidates, ctx: Context) -> Candidates:
    """A large face's divider taken for a row of pips, where the half reader says so
    (`halfreader.bar_checked`)."""
    for i in _large(cands):
        cands.reread(i, bar_checked(cands.reading[i], cands.probs[i], ctx.set_max), "check_bar")
    return cands


def check_split(cands: Candidates, ctx: Context) -> Candidates:
    """A large face's dots shared out between its ends as the half reader reads them
    (`halfreader.split_checked`)."""
    for i in _large(cands):
        cands.reread(i, split_checked(cands.reading[i], cands.probs[i], ctx.set_max), "check_split")
    return cands


def check_pattern(cands: Candidates, ctx: Context) -> Candidates:
    """A large face's faint end read by its pattern where its faint dots bear it out
    (`halfreader.pattern_checked`)."""
    for i in _large(cands):
        cands.reread(i, pattern_checked(cands.reading[i], cands.probs[i], ctx.set_max, ctx.pips.conf),
                     "check_pattern")
    return cands


def further_looks(cands: Candidates, ctx: Context) -> Candidates:
    """Ends still disputed get further looks, each on another view of the crop, until the dots of
    the classifier's value are found or the looks run out (see `FURTHER_LOOKS`)."""
    large = _large(cands)
    disputed = [i for i in large if disputed_ends(cands.reading[i], cands.probs[i], ctx.set_max)]
    for look in FURTHER_LOOKS:
        if not disputed:
            break
        views = ctx.pips.read_crops([look(cands.crop[i]) for i in disputed], [cands.bar[i] for i in disputed])
        for i, view in zip(disputed, views):
            cands.reread(i, second_look_checked(cands.reading[i], view, cands.probs[i], ctx.set_max, ctx.pips.conf),
                         f"further_looks:{look.__name__}")
        disputed = [i for i in disputed if disputed_ends(cands.reading[i], cands.probs[i], ctx.set_max)]
    return cands


def mark_still_disputed(cands: Candidates, ctx: Context) -> Candidates:
    """Large faces whose ends the two readers still read apart are marked DISPUTED, for the rules
    that settle what no look could (`check_dense`, `check_double`)."""
    for i in _large(cands):
        if disputed_ends(cands.reading[i], cands.probs[i], ctx.set_max):
            cands.mark(i, Flag.DISPUTED, "mark_still_disputed")
    return cands


def check_dense(cands: Candidates, ctx: Context) -> Candidates:
    """A dense end still disputed may have dots no look can part (`halfreader.dense_checked`)."""
    for i in cands.rows(cands.has(Flag.DISPUTED)):
        cands.reread(i, dense_checked(cands.reading[i], cands.probs[i], ctx.set_max), "check_dense")
    return cands


def check_double(cands: Candidates, ctx: Context) -> Candidates:
    """An end of a double still disputed may have lost its dots under a glare
    (`halfreader.double_checked`); not where the picture's edge cuts the tile, as the dots
    missing may lie beyond it."""
    from .faces import cut_by_edge

    height, width = ctx.img.bgr.shape[:2]
    for i in cands.rows(cands.has(Flag.DISPUTED)):
        if not cut_by_edge(cands.corners[i], width, height):
            cands.reread(i, double_checked(cands.reading[i], cands.probs[i], ctx.set_max), "check_double")
    return cands


def check_pale_ends(cands: Candidates, ctx: Context) -> Candidates:
    """Ends read blank that the half reader is not sure are blank: pips of one pale colour both
    readers may miss, looked for on the colour-distance view by both (`halfreader.pale_ends_checked`)."""
    doubtful = [i for i in _large(cands) if blank_ends_in_doubt(cands.reading[i], cands.probs[i])]
    if not doubtful:
        return cands
    views = [colour_distance_view(cands.crop[i]) for i in doubtful]
    view_probs = ctx.beside(ctx.halves.probabilities, views)
    view_dots = ctx.pips.read_crops(views, [cands.bar[i] for i in doubtful])
    for i, dots, probs in zip(doubtful, view_dots, view_probs.result()):
        cands.reread(i, pale_ends_checked(cands.reading[i], cands.probs[i], dots, probs, ctx.set_max),
                     "check_pale_ends")
    return cands

