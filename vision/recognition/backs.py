"""Backs among the faces: a box boxed as a face that shows neither dot nor divider is a tile's
back, unless it is cut by the picture's edge or a fainter look finds the double blank's divider
or a face's pale pattern (the judgments are in `faces`)."""
from __future__ import annotations

from .candidates import Candidates, Flag
from .changes import CutByEdge, TakenForBack
from .context import Context
from .faces import cut_by_edge, looks_a_face_by_pattern, looks_double_blank, looks_face_down


def mark_cut_by_edge(cands: Candidates, ctx: Context) -> Candidates:
    """Faces reaching the picture's edge are marked CUT_BY_EDGE: the tile may go on beyond it, so
    its dots may be incomplete and a blank-looking one is not taken for a back."""
    for i, c in enumerate(cands.corners):
        if cut_by_edge(c * ctx.img.scale, ctx.img.width, ctx.img.height):
            cands.mark(i, Flag.CUT_BY_EDGE, "mark_cut_by_edge", CutByEdge())
    return cands


def find_blank_faces(cands: Candidates, ctx: Context) -> Candidates:
    """Faces with neither dot nor divider, not cut by the edge, are marked LOOKS_BLANK."""
    for i, r in enumerate(cands.reading):
        if looks_face_down(r) and not cands.flags[i] & Flag.CUT_BY_EDGE:
            cands.mark(i, Flag.LOOKS_BLANK, "find_blank_faces")
    return cands


def spare_double_blanks(cands: Candidates, ctx: Context) -> Candidates:
    """A blank-looking face whose faint divider shows is the double blank
    (`faces.looks_double_blank`; a small one by the half reader, a large one by fainter looks)."""
    for i in cands.rows(cands.has(Flag.LOOKS_BLANK)):
        probs = cands.probs[i] if not cands.flags[i] & Flag.SMALL else None
        if looks_double_blank(cands.reading[i], cands.crop[i], probs, ctx.config.faces):
            cands.unmark(i, Flag.LOOKS_BLANK, "spare_double_blanks")
    return cands


def spare_faces_by_pattern(cands: Candidates, ctx: Context) -> Candidates:
    """A blank-looking face the half reader reads sure, with a fainter divider and its dots
    found on a colour view, is that face (`faces.looks_a_face_by_pattern`)."""
    for i in cands.rows(cands.has(Flag.LOOKS_BLANK)):
        if looks_a_face_by_pattern(cands.reading[i], cands.crop[i], ctx.count_dots, ctx.config.faces):
            cands.unmark(i, Flag.LOOKS_BLANK, "spare_faces_by_pattern")
    return cands


def turn_blanks_to_backs(cands: Candidates, ctx: Context) -> Candidates:
    """Faces still LOOKS_BLANK are backs: they go to `ctx.backs`, after the detector's own."""
    blank = cands.has(Flag.LOOKS_BLANK)
    if not blank.any():
        return cands
    for i in cands.rows(blank):
        cands.mark(i, Flag.BACK, "turn_blanks_to_backs", TakenForBack())
    ctx.backs = ctx.backs + cands[blank]
    return cands[~blank]

