"""Answers about hand photos: the tiles read, the score, and what scoring a photo adds."""
from __future__ import annotations

from pydantic import Field

from .base import Answer, HouseRuleSet


class ReadTile(Answer):
    """A tile as the recognizer read it from the photo (`vision.types.TileDetection`)."""

    id: int = Field(description="the tile's number in this photo (used to correct it)")
    pips: list[int] | None = Field(description="the two values, end 0 first; null when corrected to \"not a tile\"")
    corners: list[list[float]] = Field(description="four [x, y] corners in the photo's pixels")
    confidence: float = Field(description="how sure the detector is that this is a tile, 0 to 1")
    pip_confidence: float = Field(description="how sure the reader is of the values, 0 to 1")
    face_down: bool = Field(description="the tile lies face down")
    notes: list[str] | None = Field(None, description="what the reader changed and why; absent when nothing")
    read_pips: list[int] | None = Field(None, description="corrected tiles only: the values as first read")
    corrected: bool | None = Field(None, description="corrected tiles only: true")


class Correction(Answer):
    """One correction made by hand, kept beside the reading (never over it)."""

    tile_id: int = Field(description="the tile corrected")
    pips: list[int] | None = Field(description="the values given; null for \"not a tile\"")
    made_at: str = Field(description="when (UTC, ISO 8601)")


class Hand(Answer):
    """A hand photo as it stands: the reading with every correction applied, and its score."""

    hand_id: str = Field(description="the hand's id")
    game_id: str | None = Field(description="the game it was read for or counted in; null if none yet")
    image: str = Field(description="the upload's file name")
    width: int = Field(description="the photo's width in pixels")
    height: int = Field(description="the photo's height in pixels")
    set: int = Field(description="the set it was read as (double-N)")
    tiles: list[ReadTile] = Field(description="face-up tiles, corrections applied")
    face_down: int = Field(description="tiles lying face down (not counted)")
    total: int = Field(description="pips on the counted tiles")
    score: int = Field(description="the hand's score under its house rules")
    house_rules: HouseRuleSet = Field(description="the rules it is scored by")
    warnings: list[str] = Field(description="what a person should check in the photo")
    corrections: list[Correction] = Field(description="every correction, oldest first")


class ScoredHand(Answer):
    """A hand photo read and scored (the keys of `chickenfoot score --json`, and more)."""

    image: str = Field(description="the upload's file name")
    tiles: list[ReadTile] = Field(description="the face-up tiles read")
    face_down: int = Field(description="tiles lying face down (not counted)")
    total: int = Field(description="pips on the tiles read")
    score: int = Field(description="the hand's score under the house rules")
    set: int = Field(description="the set (given, the game's, or inferred from the tiles)")
    house_rules: HouseRuleSet = Field(description="the rules it was scored by")
    warnings: list[str] = Field(description="what a person should check in the photo")
    seconds: float = Field(description="time spent reading the photo")
    hand_id: str = Field(description="the kept reading, to correct a tile (PATCH /api/v1/hands/{hand_id}/tiles/...)")
    width: int = Field(description="the photo's width in pixels (tile corners are in these pixels)")
    height: int = Field(description="the photo's height in pixels")
    game_id: str | None = Field(description="the game it was scored for; null if none")
    annotated_image: str | None = Field(
        None, description="the photo with the tiles drawn on it, as a JPEG data URL; absent with annotate=false",
    )
