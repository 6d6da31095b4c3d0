"""One value, one pip colour: ends read alike but coloured apart are not all that value
(`vision.colour_check`)."""
from __future__ import annotations

from ..colour_check import colour_checked
from .candidates import Candidates, Flag
from .changes import Recoloured
from .context import Context


def check_colours(cands: Candidates, ctx: Context) -> Candidates:
    """Ends moved off a value whose ends show two or more pip colours; each face moved is marked
    RECOLOURED. The colours of the ends read sure are kept for the `Recognition`."""
    checked, _, ctx.sure_colours = colour_checked(list(cands.reading), list(cands.crop), ctx.set_max,
                                                  ctx.colour_anchors, ctx.config.colours)
    for i, (r, c) in enumerate(zip(cands.reading, checked)):
        if c.pips != r.pips:
            cands.mark(i, Flag.RECOLOURED, "check_colours", Recoloured(tuple(r.pips)))
    cands.reading = list(checked)
    return cands
