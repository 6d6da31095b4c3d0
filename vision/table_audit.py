"""The audit of a table photo as one typed value, and its JSON.

The stages of the audit (`vision.layout`: reading the layout, the engine's verdicts, the
reader's close second readings; `vision.layout_pixels`: the photo's look at empty places)
each take a `TableAudit` and return a new one, so what a stage changed is in what it returns
and nothing it was given changes behind its caller's back. The JSON object that
`chickenfoot audit --json` prints and the web API answers is rendered from it once, by
`TableAudit.to_dict`, where it leaves the program.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from engine import HouseRules, Violation
from engine.rulecodes import Rule

from .config_values import Settings, Wording
from .types import SECOND_READING_COST, TileDetection

if TYPE_CHECKING:
    from .layout import LayoutReading

SLOT_RULES = (Rule.SPINNER_ARMS_UNFINISHED, Rule.CHICKIE_UNFINISHED)
"""Verdicts that rest on a tile not being there (a double left short of arms or toes)."""


class AuditConfigError(ValueError):
    """An audit configuration that cannot be used (an unknown name, a value of the wrong kind)."""


@dataclass(frozen=True)
class AuditConfig(Settings):
    """What the audit of a still photo believes; the defaults are the values it is measured with.
    The layout's reading (`vision.layout.read_layout`) and the photo's look at empty places
    (`vision.layout_pixels.second_look`) take it from the audit's entry points."""

    WORDING: ClassVar[Wording] = Wording(AuditConfigError, value="audit setting {name} must be {kind}, got {value!r}",
                                         unknown="unknown audit setting {names}; known settings are {known}",
                                         not_object="an audit configuration must be an object, got {type}")

    second_reading_cost: float = SECOND_READING_COST
    """How much less likely than its first a tile's second reading may be for the audit to take
    it where it removes a violation: a misread dot is likelier than an illegal play only where
    the reader nearly read it so (the same cost as the tracker's, see `vision.types`)."""
    max_second_readings: int = 6
    """Tiles at most that the audit reads as their second reading in one photo: more than a few
    would be fitting the layout to the rules rather than reading it."""
    near_layout: float = 0.6
    """Face-up tiles this close (tile widths) to the layout but not part of it are 'lying
    apart' (a violation); farther ones are hands, boneyard or strays, and left out."""
    heap_depth: float = 0.25
    """Tiles reaching this far into each other are piled up, not laid out."""
    evidence_weight: float = 0.75
    """How many violations one piece of spinner-like geometry (an arm off a short end, or
    minus a 45-degree toe) is worth when choosing the spinner."""
    tile_like: float = 0.4
    """Share of an empty slot's pixels closer to the tile colour than to the table colour that
    says a tile lies there (an empty slot measures ~0, a missed tile 0.5-1 on rendered
    tables: pips and shadows keep a real tile from scoring 1; `layout_pixels.slot_looks_occupied`)."""
    min_contrast: float = 12.0
    """Lab distance between tile and table colours below which the look at an empty slot is inconclusive."""
    touch: float = 0.55
    """Largest gap (tile widths) still read as a contact: people leave a few millimetres."""
    overlap: float = 0.3
    """Deepest an end may sit inside another tile and still be a contact (detector jitter)."""
    min_facing: float = 0.3
    """Least cosine between an end's outward direction and the way to the touched tile's centre
    for a contact (`layout_links.links_from_table`)."""
    gap_touch: float = 0.22
    """A tile inferred in a gap must touch its far neighbour at least this well (half the
    leftover gap plus misfit, tile widths; `layout_gaps.bridge`)."""
    max_gaps: int = 8
    """Tiles the detector missed that one photo's layout may have inferred, at most (`layout_gaps.bridge`)."""
    short_double_bonus: float = 0.3
    """Rank bonus (tile widths) for an inferred tile that fills a double's empty arm or toe."""
    stray_copy_penalty: float = 0.1
    """Rank penalty for an inferred tile that reads as a stray tile lying apart (see `layout_gaps.bridge`)."""
    match_cost: float = 0.52
    """Worst contact (gap plus misfit, tile widths) still taken when the ends agree (`layout_links.link`)."""
    mismatch_touch: float = 0.22
    """A contact whose ends disagree is believed only this close (tile widths): a proven
    violation needs tiles that plainly touch, not two that merely lie near each other."""
    mismatch_rank: float = 0.3
    """Rank penalty for disagreeing ends: with two candidates, the matching one wins."""
    ambiguous_margin: float = 0.08
    """Two contacts closer than this in rank, one taken over the other, are reported as ambiguous."""


@dataclass(frozen=True)
class TableViolation:
    """One of the engine's verdicts on the layout, with what it rests on in the picture.

    A verdict that a double was left short rests on a tile not being seen, and a missed
    detection looks the same: `rests_on` names the doubles whose shortness it needs,
    `unless_missed` those where one missed tile would explain it as well (until the photo
    shows bare table there, when `photo_checked` is set instead)."""

    verdict: Violation
    rests_on: tuple[int, ...] | None = None
    """Doubles whose shortness the verdict needs; None for a verdict not about a short double."""
    unless_missed: tuple[int, ...] = ()
    photo_checked: bool = False

    @property
    def rule(self) -> Rule:
        return self.verdict.rule

    @property
    def message(self) -> str:
        return self.verdict.message

    @property
    def tiles(self) -> list[int]:
        return self.verdict.tiles

    def to_dict(self) -> dict[str, Any]:
        out = self.verdict.to_dict()
        if self.rests_on is not None:
            out["rests_on"] = list(self.rests_on)
        if self.unless_missed:
            out["unless_missed"] = list(self.unless_missed)
        if self.photo_checked:
            out["photo_checked"] = True
        return out


@dataclass(frozen=True)
class SecondReading:
    """A tile the audit read as the reader's close second, because the layout needs it."""

    tile_id: int
    first: tuple[int, int]
    taken: tuple[int, int]
    cost: float

    @property
    def note(self) -> str:
        """What the tile's notes say of it."""
        return (f"read as {self.taken[0]}-{self.taken[1]}, the reader's close second to "
                f"{self.first[0]}-{self.first[1]}: the layout needs it")


@dataclass(frozen=True)
class PhotoFacts:
    """What the recognizer says of the photo the layout was read from."""

    image: str
    width: int
    height: int
    warnings: tuple[str, ...] = ()
    seconds: float = 0.0
    """Time the recognizer took."""


@dataclass(frozen=True)
class ShownTile:
    """A tile as the audit shows it: a detection, or a tile inferred in a gap."""

    id: int
    pips: tuple[int, int] | None
    """None when face down or unread."""
    corners: np.ndarray | None
    """Four corners, rounded to 0.1 pixel as the report gives them; None where a detection's
    corners are not four points."""
    face_down: bool
    inferred: bool = False

    def to_dict(self) -> dict[str, Any]:
        out = {"id": self.id, "pips": None if self.pips is None else list(self.pips),
               "corners": None if self.corners is None else self.corners.tolist(), "face_down": self.face_down}
        if self.inferred:
            out["inferred"] = True
        return out


@dataclass(frozen=True)
class TreeEdge:
    """Two touching tiles, child to parent as the audit read the tree from the spinner."""

    child: int
    child_pips: int
    parent: int
    parent_pips: int

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.child, "from_pips": self.child_pips, "to": self.parent, "to_pips": self.parent_pips}


@dataclass(frozen=True)
class TableAudit:
    """A photo's layout, the verdicts on it and what the photo says of them."""

    reading: LayoutReading
    tiles: tuple[TileDetection, ...]
    """The detections read, as the audit took them (`Recognition.tiles`, but for the tiles it read
    as their second reading)."""
    face_down: tuple[TileDetection, ...]
    """Detections of tiles lying face down (`Recognition.face_down`)."""
    violations: tuple[TableViolation, ...]
    warnings: tuple[str, ...]
    """What a person should check, that the engine cannot prove from the picture."""
    set_max: int
    round_double: int | None
    rules: HouseRules
    layout_seconds: float
    second_readings: tuple[SecondReading, ...] = ()
    """Tiles read as the reader's close second (`vision.layout.fit_second_readings`)."""
    unread_slots: tuple[int, ...] = ()
    """Doubles whose empty place the photo shows a tile in (`vision.layout_pixels`): their
    short-double verdicts were withdrawn, and said as warnings."""
    photo: PhotoFacts | None = None
    """The photo's own facts; None for an audit of detections alone."""

    @property
    def detections(self) -> tuple[TileDetection, ...]:
        """Every detection, face-up first."""
        return self.tiles + self.face_down

    def shown_tiles(self) -> list[ShownTile]:
        """Every detection, then the tiles inferred in gaps, as the report lists them."""
        unread = set(self.reading.unread)
        out = []
        for t in self.detections:
            try:
                corners = np.round(np.asarray(t.corners, np.float64).reshape(4, 2), 1)
            except (TypeError, ValueError):
                corners = None
            pips = None if t.pips is None or t.face_down or t.id in unread else (int(t.pips[0]), int(t.pips[1]))
            out.append(ShownTile(t.id, pips, corners, bool(t.face_down)))
        for g in self.reading.gaps:
            out.append(ShownTile(g.id, (g.pips[0], g.pips[1]), np.round(g.corners, 1).astype(np.float64), False,
                                 inferred=True))
        return out

    def tree_edges(self) -> list[TreeEdge]:
        """The layout's contacts, each oriented child to parent as the engine read the tree."""
        report, layout = self.reading.report, self.reading.layout
        if report is None or layout is None:
            return []
        out = []
        for e in layout.edges:
            if report.parents.get(e.to_id) == e.from_id:
                out.append(TreeEdge(e.to_id, e.to_pips, e.from_id, e.from_pips))
            else:
                out.append(TreeEdge(e.from_id, e.from_pips, e.to_id, e.to_pips))
        return out

    def to_dict(self) -> dict[str, Any]:
        """The `chickenfoot audit --json` object (also what the web API returns)."""
        reading, report = self.reading, self.reading.report
        layout: dict[str, Any] = {"spinner": None, "edges": [], "chickies": [], "arms": []}
        open_ends: list[dict[str, Any]] = []
        if report is not None and reading.layout is not None:
            layout = {
                "spinner": report.spinner_id,
                "edges": [e.to_dict() for e in self.tree_edges()],
                "chickies": [{"tile": c.tile_id, "toes": list(c.toe_ids), "missing": c.missing}
                             for c in report.chickies],
                "arms": list(report.arms),
            }
            open_ends = [{"tile": o.tile_id, "value": o.value, "free": o.free, "playable_now": o.playable_now,
                          "accepts": o.accepts} for o in report.open_ends]
        out: dict[str, Any] = {}
        if self.photo is not None:
            out.update(image=self.photo.image, width=self.photo.width, height=self.photo.height)
        warnings = list(self.photo.warnings if self.photo is not None else ()) + list(self.warnings)
        out.update({
            "status": reading.status,
            "message": reading.message,
            "tiles": [t.to_dict() for t in self.shown_tiles()],
            "layout": layout,
            "open_ends": open_ends,
            "violations": [v.to_dict() for v in self.violations],
            "loose_tiles": list(reading.loose),
            "gaps": [g.to_dict() for g in reading.gaps],
            "ambiguities": list(reading.ambiguities),
            "other_layouts": [list(m) for m in reading.others],
            "unread_tiles": list(reading.unread),
            "face_down_tiles": list(reading.face_down),
            "warnings": warnings,
            "set": self.set_max,
            "round_double": self.round_double,
            "house_rules": self.rules.to_dict(),
            "layout_seconds": self.layout_seconds,
        })
        if self.unread_slots:
            out["unread_slots"] = list(self.unread_slots)
        if self.photo is not None:
            out["seconds"] = round(self.photo.seconds + self.layout_seconds, 3)
        return out
