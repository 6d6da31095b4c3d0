"""The score sheet: the engine's sheet, and the stored game's sheet built on it."""
from __future__ import annotations

from pydantic import Field

from .base import Answer, HouseRuleSet


class SheetRow(Answer):
    """One round on the sheet: the row label (its double) and each seat's score."""

    double: int = Field(description="the double the round started with")
    scores: list[int] = Field(description="each seat's score for the round, in seat order")


class Standing(Answer):
    """A seat's place, by the game's tie-breaks."""

    player: int = Field(description="the seat (0 first)")
    total: int = Field(description="points so far")
    zero_rounds: int = Field(description="rounds scored at zero (first tie-break: most wins)")
    lowest_nonzero: int | None = Field(description="lowest non-zero round (second tie-break); null if none")
    rank: int = Field(description="1 for the leader; players still tied share a rank")


class EngineSheet(Answer):
    """The running score as the engine keeps it (`engine.ScoreSheet`)."""

    players: int = Field(description="number of seats")
    rounds: list[SheetRow] = Field(description="one row per round, oldest first")
    totals: list[int] = Field(description="each seat's total, in seat order")
    standings: list[Standing] = Field(description="seats best first")
    rules: HouseRuleSet = Field(description="the house rules the sheet was counted by")
    rules_summary: str = Field(description="the rules in one line for people")


class CountedHand(Answer):
    """How one seat's hand was counted in a recorded round."""

    source: str = Field(description="\"typed points\", \"typed tiles\" or \"photo\"")
    hand_id: str | None = Field(None, description="photo only: the hand photo read by POST /api/v1/score")
    tiles: list[str] | None = Field(None, description="typed tiles or photo: the tiles counted, like \"6-4\"")
    points: int = Field(description="the points in the hand, before curved scoring")
    corrections: int | None = Field(None, description="photo only: tiles corrected by hand")


class RoundDetail(Answer):
    """A recorded round with how each hand was counted."""

    index: int = Field(description="the round's index (0 first); it fixes the round's double")
    double: int = Field(description="the round's double")
    recorded_at: str = Field(description="when it was recorded or last edited (UTC, ISO 8601)")
    hands: list[CountedHand] = Field(description="one per seat, in seat order")
    scores: list[int] = Field(description="the scores written on the sheet (after curved scoring, if on)")


class GameSheet(EngineSheet):
    """A stored game's score sheet: the engine's sheet plus the game and each round's detail."""

    game_id: str = Field(description="the game")
    player_names: list[str] = Field(description="names in seat order")
    set: int = Field(description="the set (double-N)")
    rounds_in_game: int = Field(description="rounds the game lasts")
    complete: bool = Field(description="true once every round is recorded")
    next_double: int | None = Field(description="the next round's double; null when the game is complete")
    round_details: list[RoundDetail] = Field(description="each recorded round, oldest first")
