"""The set's rules: which set is in play, no value above its maximum, each tile once, and the
second readings a caller that knows more may take instead."""
from __future__ import annotations

from ..correct import infer_set_max, second_readings, settle_values
from .candidates import Candidates, Flag
from .changes import Capped, Corrected
from .context import Context


def infer_set(cands: Candidates, ctx: Context) -> Candidates:
    """The set in play: the one declared, or the smallest the faces read sure show
    (`correct.infer_set_max`); and the highest value read before any capping."""
    sure = ctx.config.sure_reading
    ctx.set_in_play = ctx.set_max or infer_set_max(
        [max(r.pips) for r in cands.reading if r.confidence >= sure], config=ctx.config.corrections)
    ctx.highest_read = max((max(r.pips) for r in cands.reading), default=0)
    return cands


def cap_at_set_max(cands: Candidates, ctx: Context) -> Candidates:
    """Each face's values, capped at the set's maximum (marked CAPPED), and how sure they are."""
    ruling = settle_values(list(cands.reading), ctx.set_in_play, ctx.pips.conf, corrected=False,
                           config=ctx.config.corrections)
    cands.pips = list(ruling.pips)
    cands.pip_confidence = [r.confidence for r in cands.reading]
    for i, changes in enumerate(ruling.changes):
        for change in changes:
            if isinstance(change, Capped):
                cands.mark(i, Flag.CAPPED, "cap_at_set_max", change)
    return cands


def correct_duplicates(cands: Candidates, ctx: Context) -> Candidates:
    """A tile read twice: the less sure one takes its cheapest plausible second reading (marked
    CORRECTED); a repeat no cheap second reading resolves is kept for a warning
    (`correct.settle_values`)."""
    ruling = settle_values(list(cands.reading), ctx.set_in_play, ctx.pips.conf, config=ctx.config.corrections)
    cands.pips = list(ruling.pips)
    for i, changes in enumerate(ruling.changes):
        for change in changes:
            if isinstance(change, Corrected):
                cands.mark(i, Flag.CORRECTED, "correct_duplicates", change)
    ctx.repeated = list(ruling.repeated)
    return cands


def list_second_readings(cands: Candidates, ctx: Context) -> Candidates:
    """Each face's next likeliest values, cheapest first (`correct.second_readings`)."""
    cands.seconds = [second_readings(p, r, ctx.set_in_play, ctx.pips.conf, ctx.config.corrections)
                     for p, r in zip(cands.pips, cands.reading)]
    return cands


def back_second_readings(cands: Candidates, ctx: Context) -> Candidates:
    """A large face's second readings made dearer by the half reader's belief in the value read
    (see `backed_costs`)."""
    for i in range(len(cands)):
        if cands.probs[i] is not None and not cands.flags[i] & Flag.SMALL and cands.seconds[i] is not None:
            cands.seconds[i] = backed_costs(cands.seconds[i], cands.pips[i], cands.probs[i])
    return cands


def backed_costs(seconds: list[tuple[tuple[int, int], float]], pips: tuple[int, int], probs
                 ) -> list[tuple[tuple[int, int], float]]:
    """A large tile's second readings, each made dearer by how much more the half reader believes
    the value read than the other: a dot both readers see is not dropped to make a play legal.

    Why: the tracker takes a second reading that makes a play legal when it costs less than
    `SECOND_READING_COST`, and a large tile's reading cost only its dot scores. In a rendered round,
    a planted 2-1 on a 0 had its 1's dot scored 0.65 (cost 0.15 to drop) and was taken
    as a legal 2-0, though the half reader read that end 1. Only the tracker reads these costs."""
    out = []
    for alt, cost in seconds:
        end = 0 if alt[0] != pips[0] else 1
        if max(alt[end], pips[end]) < len(probs[end]):
            cost += max(0.0, float(probs[end][pips[end]] - probs[end][alt[end]]))
        out.append((alt, round(float(cost), 3)))
    return sorted(out, key=lambda a: a[1])

