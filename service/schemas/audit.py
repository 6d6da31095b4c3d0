"""The layout audit of a table photo (`vision.layout.audit_photo(...).to_dict()`, plus what the route adds)."""
from __future__ import annotations

from pydantic import Field

from .base import Answer, HouseRuleSet
from .blocked import BlockProof


class AuditTile(Answer):
    """A tile in the picture as the audit took it."""

    id: int = Field(description="the tile's number, used by the layout, open ends and violations")
    pips: list[int] | None = Field(description="the two values; null when face down or unread")
    corners: list[list[float]] | None = Field(description="four [x, y] corners in the photo's pixels")
    face_down: bool = Field(description="the tile lies face down")
    inferred: bool | None = Field(
        None, description="true for a tile missing from the picture that the layout says lies there; absent otherwise",
    )


class LayoutEdge(Answer):
    """Two touching tiles, child to parent as the audit read the tree from the spinner."""

    from_: int = Field(alias="from", description="the tile laid against the other")
    from_pips: int = Field(description="its end that touches")
    to: int = Field(description="the tile it was laid against")
    to_pips: int = Field(description="that tile's end that is touched")


class Chickie(Answer):
    """A double played off the spinner's lines, with the toes laid on it."""

    tile: int = Field(description="the double")
    toes: list[int] = Field(description="the tiles laid on it")
    missing: int = Field(description="toes it still needs")


class LayoutGraph(Answer):
    """The layout as a tree from the spinner."""

    spinner: int | None = Field(description="the spinner tile; null when no layout was found")
    edges: list[LayoutEdge] = Field(description="every pair of touching tiles")
    chickies: list[Chickie] = Field(description="doubles off the lines and their toes")
    arms: list[int] = Field(description="the tiles laid on the spinner")


class OpenEnd(Answer):
    """Where the next tile can go."""

    tile: int = Field(description="the tile with the free end")
    value: int = Field(description="the value the end shows")
    free: int = Field(description="tiles it can still take: spinner arms, chickie toes, or 1")
    playable_now: bool = Field(description="false while a spinner or chickie elsewhere must be fed first")
    accepts: int | None = Field(description="the value a tile needs to go here now; null if nothing may yet")


class Violation(Answer):
    """A rule the layout breaks."""

    rule: str = Field(description="the rule's stable code (see engine.rulecodes)")
    message: str = Field(description="one sentence for people")
    tiles: list[int] = Field(description="the tiles involved")


class Gap(Answer):
    """A tile the detector missed, inferred from the layout around the hole."""

    tile: int = Field(description="the inferred tile's number (also in `tiles`, with inferred true)")
    pips: list[int] = Field(description="the values the layout says it has")
    between: list[int] = Field(description="the two tiles it lies between")
    corners: list[list[float]] = Field(description="four [x, y] corners in the photo's pixels")
    message: str = Field(description="one sentence for people")


class Audit(Answer):
    """A table photo read as a layout: spinner, lines and chickie feet, open ends, rule violations,
    loose tiles; with the picture drawn and whether play can go on when asked."""

    image: str = Field(description="the upload's file name")
    width: int = Field(description="the photo's width in pixels (corners are in these pixels)")
    height: int = Field(description="the photo's height in pixels")
    status: str = Field(description="how the layout read, as a code (\"ok\" when one layout was found)")
    message: str = Field(description="the same in one sentence")
    tiles: list[AuditTile] = Field(description="every tile in the picture, then the inferred ones")
    layout: LayoutGraph = Field(description="the layout tree")
    open_ends: list[OpenEnd] = Field(description="where the next tile can go")
    violations: list[Violation] = Field(description="rules the layout breaks")
    loose_tiles: list[int] = Field(description="tiles lying apart from the layout")
    gaps: list[Gap] = Field(description="tiles missing from the picture that the layout says lie there")
    ambiguities: list[str] = Field(description="places the picture can be read more than one way")
    other_layouts: list[list[int]] = Field(description="groups of tiles that look like a second layout")
    unread_tiles: list[int] = Field(description="tiles whose values could not be read")
    face_down_tiles: list[int] = Field(description="tiles lying face down")
    warnings: list[str] = Field(description="what a person should check in the photo")
    set: int = Field(description="the set (given or inferred)")
    round_double: int | None = Field(description="the round's double, when given")
    house_rules: HouseRuleSet = Field(description="the rules the layout was checked by")
    layout_seconds: float = Field(description="time spent reading the layout")
    seconds: float = Field(description="time spent in all")
    annotated_image: str | None = Field(
        None, description="the audit drawn on the photo, as a JPEG data URL; absent with annotate=false",
    )
    blocked: BlockProof | None = Field(
        None, description="whether play can go on, as far as the picture shows; absent with explain_block=false",
    )
