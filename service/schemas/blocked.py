"""Why a table is or is not blocked (`engine.blocked.BlockProof`): part of an audit and a replay,
and the answer of POST /api/v1/blocked."""
from __future__ import annotations

from pydantic import Field

from .base import Answer


class EndFact(Answer):
    """A tile with free ends, the value they take, and whether play may go there now."""

    on: str = Field(description="the tile, like \"6-4\"")
    value: int = Field(description="the value its free ends take")
    free: int = Field(description="tiles it can still take: spinner arms, chickie toes, or 1")
    kind: str = Field(description="\"spinner\", \"chickie\" or \"tile\"")
    playable_now: bool = Field(description="false while a spinner or chickie elsewhere must be fed first")


class ValueCount(Answer):
    """The tiles of one value an open end takes: in the set, on the table, and still to come."""

    value: int = Field(description="the value")
    in_set: int = Field(description="tiles carrying it in the set")
    on_table: int = Field(description="of those, tiles on the table")
    in_hands: int = Field(description="tiles not on the table, so in a hand or the boneyard")
    in_boneyard: int | None = Field(description="of those, tiles in the boneyard, where known")
    exhausted: bool = Field(description="no tile of this value can still be laid")
    possible: list[str] = Field(description="the tiles of this value not on the table")


class DeadDouble(Answer):
    """A spinner or chickie short of tiles that the tiles left can no longer finish."""

    tile: str = Field(description="the double")
    kind: str = Field(description="\"spinner\" or \"chickie\"")
    missing: int = Field(description="arms or toes it still needs")
    possible: int = Field(description="tiles of its value that could still be laid on it")
    message: str = Field(description="the same in one sentence")


class BlockProof(Answer):
    """Whether play can go on, and the counts that prove it."""

    basis: str = Field(description="what the proof rests on: \"exact\", \"tracked\" or \"photo\"")
    basis_words: str = Field(description="the same in words")
    blocked: bool = Field(description="true when nobody can lay a tile and nobody can draw one that fits")
    cause: str | None = Field(
        description="dead_spinner, dead_chickie or values_exhausted when blocked; null when not",
    )
    reason: str = Field(description="one sentence for people")
    ends: list[EndFact] = Field(description="the open ends")
    values: list[ValueCount] = Field(description="one per value an open end takes, lowest first")
    dead: list[DeadDouble] = Field(description="doubles that can no longer be finished")
    waiting_on: str | None = Field(description="the spinner or chickie that must be fed first, if any")
    boneyard: int | None = Field(description="tiles left to draw, where known")
    playable: list[str] = Field(description="tiles not on the table that could be laid now")
    unread: int = Field(description="tiles in the picture whose values could not be read")
