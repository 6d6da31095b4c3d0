"""What the tracker reports: one dataclass per kind of happening, each with `to_dict()`.

Events are the tracker's only output besides its `state`; the CLI prints them, the
web service sends them over its WebSocket, and the evaluation matches them against
ground truth, so every event says where (frame index) and when (stream seconds) it
was decided, and plays carry the engine's verdict with the rule's stable code.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar


@dataclass
class TrackEvent:
    """Base of every event: the frame and stream time at which the tracker decided it."""

    frame: int
    t: float
    kind: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        d = {"kind": self.kind}
        d.update({k: v for k, v in asdict(self).items() if v is not None})
        if isinstance(d.get("t"), float):
            d["t"] = round(d["t"], 3)
        return d

    def describe(self) -> str:
        """One line for a person watching the terminal."""
        return self.kind.replace("_", " ")


@dataclass
class RoundStarted(TrackEvent):
    spinner: str
    round_index: int
    round_double: int
    first_player: int
    """Who plays first, by the engine (the player after the one who laid the spinner)."""
    kind: ClassVar[str] = "round_started"

    def describe(self) -> str:
        return f"round {self.round_index + 1} (double-{self.round_double}) started with spinner {self.spinner}; " \
               f"player {self.first_player} to play"


@dataclass
class TilePlayed(TrackEvent):
    tile: str
    player: int | None
    on: str | None
    """The tile it was laid against (None when it touches nothing)."""
    slot: int | None = None
    end: int | None = None
    """The engine's open-end id when the play was legal."""
    legal: bool = True
    rule: str | None = None
    """Engine code of the rule broken, for an illegal play."""
    message: str | None = None
    evidence: str | None = None
    """Image saved as evidence of an illegal play."""
    kind: ClassVar[str] = "tile_played"

    def describe(self) -> str:
        who = "someone" if self.player is None else f"player {self.player}"
        where = f" on {self.on}" if self.on else ""
        if self.legal:
            return f"{who} played {self.tile}{where}"
        text = f"ILLEGAL: {who} played {self.tile}{where}: {self.message} ({self.rule})"
        if self.evidence:
            text += f" [evidence {self.evidence}]"
        return text


@dataclass
class TileTakenBack(TrackEvent):
    tile: str
    player: int | None
    was_legal: bool
    kind: ClassVar[str] = "tile_taken_back"

    def describe(self) -> str:
        who = "someone" if self.player is None else f"player {self.player}"
        return f"{who} took back {self.tile}" + ("" if self.was_legal else " (the illegal play is withdrawn)")


@dataclass
class _TileReadAgain(TrackEvent):
    """A tile on the board turned out to be `tile`, though it was taken as `read_as`."""

    tile: str
    read_as: str
    message: str

    def describe(self) -> str:
        return self.message


@dataclass
class FlagWithdrawn(_TileReadAgain):
    """A tile flagged as not matching was misread: play went on from it as only the right
    reading allows, so the flag is withdrawn and the tile is taken as `tile`."""

    kind: ClassVar[str] = "flag_withdrawn"


@dataclass
class PlayCorrected(_TileReadAgain):
    """A tile taken as a legal play was misread (a closer look read it as another tile, with
    which the round and the play laid against it, or the play made elsewhere while it seemed a
    double waiting for tiles, are legal): the play is `tile` now, and a `TilePlayed` for it
    follows."""

    kind: ClassVar[str] = "play_corrected"


@dataclass
class BoardDisturbed(TrackEvent):
    missing: list[str] = field(default_factory=list)
    """Tiles gone from the layout that cannot be taken back (not the last play)."""
    moved: list[str] = field(default_factory=list)
    returned: list[str] = field(default_factory=list)
    """Tiles reported missing earlier that are back."""
    loose: list[str] = field(default_factory=list)
    """New tiles lying apart from the layout (not laid against anything)."""
    kind: ClassVar[str] = "board_disturbed"

    def describe(self) -> str:
        parts = []
        for name, tiles in (("missing", self.missing), ("moved", self.moved), ("back", self.returned),
                            ("lying apart", self.loose)):
            if tiles:
                parts.append(f"{name}: {', '.join(tiles)}")
        return "board disturbed (" + "; ".join(parts) + ")"


@dataclass
class CameraMoved(TrackEvent):
    shift_px: float
    rotation_deg: float
    tiles_matched: int
    kind: ClassVar[str] = "camera_moved"

    def describe(self) -> str:
        return f"camera moved ({self.shift_px:.0f} px, {self.rotation_deg:.1f} deg); board re-registered " \
               f"on {self.tiles_matched} tiles"


@dataclass
class FrameRejected(TrackEvent):
    reason: str
    kind: ClassVar[str] = "frame_rejected"

    def describe(self) -> str:
        return f"frame skipped: {self.reason}"


@dataclass
class StreamLost(TrackEvent):
    reason: str
    kind: ClassVar[str] = "stream_lost"

    def describe(self) -> str:
        return f"stream lost: {self.reason}; the game so far is kept, tracking resumes when frames return"


@dataclass
class StreamResumed(TrackEvent):
    kind: ClassVar[str] = "stream_resumed"

    def describe(self) -> str:
        return "stream back; tracking resumed"


@dataclass
class RoundScored(TrackEvent):
    round_index: int
    round_double: int
    raw: list[int]
    scores: list[int]
    totals: list[int]
    source: str
    """"hand_photos" or "typed"."""
    rules: str
    kind: ClassVar[str] = "round_scored"

    def describe(self) -> str:
        return f"round {self.round_index + 1} (double-{self.round_double}) scored from {self.source}: " \
               f"{self.scores}; totals {self.totals} [{self.rules}]"


@dataclass
class BoardCleared(TrackEvent):
    """Every tile left the table at once: the round's layout was swept up."""

    tiles: int
    scored: bool
    """Whether the round was already scored."""
    kind: ClassVar[str] = "board_cleared"

    def describe(self) -> str:
        text = f"the layout ({self.tiles} tiles) was cleared from the table"
        return text if self.scored else text + "; score the round from hand photos or typed totals"


@dataclass
class Notice(TrackEvent):
    """Something a person should know that is not a play (a spinner that is not the
    round's double, a misread the tracker chose to ignore)."""

    message: str
    kind: ClassVar[str] = "notice"

    def describe(self) -> str:
        return self.message


@dataclass
class LastTile(TrackEvent):
    """A player is down to one tile (dealt, minus plays, plus draws). Under the Chickenlittle
    rule `must_call` says the table should hear them call it before the next play."""

    player: int
    must_call: bool
    kind: ClassVar[str] = "last_tile"

    def describe(self) -> str:
        text = f"player {self.player} is down to one tile"
        return text + " — they must call Chickenlittle before the next play" if self.must_call else text


@dataclass
class ChickenlittlePenalty(TrackEvent):
    """A last-tile call was forgotten before another player laid a tile: the penalty the rules
    name (draw a tile; with the boneyard empty, miss a turn)."""

    player: int
    form: str
    """"draw" or "skip"."""
    by: int
    message: str
    kind: ClassVar[str] = "chickenlittle_penalty"

    def describe(self) -> str:
        return self.message


@dataclass
class RoundBlocked(TrackEvent):
    """Every seat passed in turn with nothing left to draw: the round is blocked, and why."""

    blocked: bool
    """Whether the table proves it (False: a tile that fits is still out, so someone passed wrongly)."""
    reason: str
    proof: dict[str, Any] = field(default_factory=dict)
    kind: ClassVar[str] = "round_blocked"

    def describe(self) -> str:
        return ("round blocked: " if self.blocked else "everyone passed, but the round is not blocked: ") + self.reason


EVENT_KINDS: dict[str, type[TrackEvent]] = {
    cls.kind: cls
    for cls in (RoundStarted, TilePlayed, TileTakenBack, FlagWithdrawn, PlayCorrected, BoardDisturbed, CameraMoved, FrameRejected,
                StreamLost, StreamResumed, RoundScored, BoardCleared, Notice, LastTile, ChickenlittlePenalty,
                RoundBlocked)
}
