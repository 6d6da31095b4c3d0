"""The engine's study answers: deal advice, a replayed game, players' figures."""
from __future__ import annotations

from typing import Any

from pydantic import Field

from .base import Answer, HouseRuleSet
from .blocked import BlockProof
from .sheet import EngineSheet


class HandSizeFigures(Answer):
    """What playing many rounds dealt one hand size showed (`engine.advise.HandSizeStats`)."""

    hand_size: int = Field(description="tiles dealt to each player")
    rounds: int = Field(description="rounds played")
    stalled: int = Field(description="rounds that stalled (nobody could play or draw)")
    boneyard: int = Field(description="tiles left to draw after the deal")
    plays_mean: float = Field(description="tiles laid per round, after the spinner")
    turns_mean: float = Field(description="turns per round")
    points_left_mean: float = Field(description="points left in a hand at the end of a round, per player")
    points_left_stalled: float = Field(description="the same over stalled rounds only (0 when none stalled)")
    style_points: dict[str, float] = Field(description="points left per hand, by playing style")
    style_out: dict[str, float] = Field(description="share of a style's seats that went out")
    stall_share: float = Field(description="share of rounds that stalled")


class Advice(Answer):
    """How many tiles to deal: each hand size around the table's, played out, and the one recommended."""

    players: int = Field(description="players at the table")
    set: int = Field(description="the set (double-N)")
    table_hand_size: int = Field(description="the hand the 42 / players table deals")
    recommended: int = Field(description="the hand size recommended")
    reason: str = Field(description="why, in one sentence")
    rounds_per_size: int = Field(description="rounds played for each hand size")
    max_stall_share: float = Field(description="the share of stalled rounds a good hand size stays under")
    styles: dict[str, str] = Field(description="playing style -> what it plays")
    sizes: list[HandSizeFigures] = Field(description="one per hand size tried")
    seconds: float = Field(description="time spent")
    seed: int | None = Field(description="the seed, when one was given")
    rules: HouseRuleSet = Field(description="the house rules played by")


class DiagramTile(Answer):
    """One tile of a board diagram; a tile is 2 units long and 1 wide, the spinner at the origin."""

    index: int = Field(description="the tile's place in the order laid")
    tile: str = Field(description="the tile, like \"6-4\"")
    parent: int | None = Field(description="the tile it was laid against; null for the spinner")
    x: float = Field(description="centre, diagram units")
    y: float = Field(description="centre, diagram units (down is positive)")
    angle: float = Field(description="direction of its line, degrees (0 = right, 90 = down)")
    facing: int = Field(description="its value toward the parent")
    outer: int = Field(description="its other value")
    kind: str = Field(description="\"spinner\", \"chickie\" or \"tile\"")
    player: int | None = Field(description="the seat that laid it")
    double: bool = Field(description="the tile is a double (drawn across its line)")


class Flag(Answer):
    """Something the rules say about a step."""

    step: int = Field(description="the step it belongs to")
    rule: str = Field(description="the rule's stable code")
    message: str = Field(description="one sentence for people")
    player: int | None = Field(description="the seat concerned, if one")
    tile: str | None = Field(description="the tile concerned, if one")


class ReplayStep(Answer):
    """One turn of a round and the table after it."""

    index: int = Field(description="the step's number in the round")
    kind: str = Field(description="\"deal\", \"play\", \"draw\", \"pass\" or \"announce\"")
    player: int | None = Field(description="the seat that acted")
    text: str = Field(description="what happened, for people")
    board: list[DiagramTile] = Field(description="the board after the step")
    hand_sizes: list[int] = Field(description="tiles in each hand, in seat order")
    boneyard: int = Field(description="tiles left to draw")
    turn: int | None = Field(description="whose turn it is next; null once the round is over")
    flags: list[Flag] = Field(description="what the rules say about this step")


class RoundResult(Answer):
    """How a round ended and what each seat scored (`engine.round.RoundResult`)."""

    round: int = Field(description="the round's index")
    double: int = Field(description="the double the round was meant to start with")
    spinner: str = Field(description="the spinner laid")
    winner: int | None = Field(description="the seat that went out; null if nobody did")
    stalemate: bool = Field(description="the round stalled")
    hands: list[list[str]] = Field(description="each seat's tiles left, in seat order")
    raw: list[int] = Field(description="points in each hand before curved scoring")
    scores: list[int] = Field(description="the scores written on the sheet")
    rules: HouseRuleSet = Field(description="the house rules")


class RoundReplay(Answer):
    """One round replayed step by step."""

    index: int = Field(description="the round's index")
    double: int = Field(description="the round's double")
    steps: list[ReplayStep] = Field(description="every turn, the deal first")
    flags: list[Flag] = Field(description="every flag of the round's steps")
    result: RoundResult | None = Field(description="how it ended; null when the replay stopped inside it")
    blocked: BlockProof | None = Field(description="the proof of why it stalled, when it did; null otherwise")


class TurnError(Answer):
    """The first turn of a record the rules refuse; the replay stops there."""

    round: int = Field(description="the round")
    turn: int = Field(description="the index into that round's turns")
    code: str = Field(description="the rule's stable code")
    message: str = Field(description="one sentence for people")


class GameReplay(Answer):
    """A game record replayed round by round, step by step."""

    players: int = Field(description="number of seats")
    set: int = Field(description="the set (double-N)")
    names: list[str] = Field(description="names in seat order")
    rounds: list[RoundReplay] = Field(description="every round replayed")
    error: TurnError | None = Field(description="the turn the rules refused, if one did")
    sheet: EngineSheet | dict[str, Any] = Field(
        description="the score sheet: the one the record keeps when it has rounds (a game counted at the table, "
                    "passed on as the record gives it), else the one the replay made",
    )


class PlayerFigures(Answer):
    """A player's figures across games (players matched by name)."""

    name: str = Field(description="the player")
    games: int = Field(description="games played")
    rounds: int = Field(description="rounds played")
    points: int = Field(description="points over all rounds")
    points_per_round: float = Field(description="points per round (the standing is by this)")
    zero_rounds: int = Field(description="rounds scored at zero")
    rounds_won: int = Field(description="rounds in which nobody scored less")
    games_won: int = Field(description="games finished at rank 1")
    lowest_nonzero: int | None = Field(description="lowest non-zero round; null if none")
    standing: int = Field(description="1 for the best; by points per round, then the game's tie-breaks")


class Study(Answer):
    """Each player's figures across the game records given (or every stored game)."""

    players: list[PlayerFigures] = Field(description="best first")
    games: int = Field(description="game records read")
