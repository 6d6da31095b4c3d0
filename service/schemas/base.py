"""What every answer model shares, and the house rules that appear in most answers.

The models describe the dictionaries the engine, the store and the reader already build; the
routes return those dictionaries unchanged and FastAPI checks them against the model. Three
choices keep each answer exactly what it was before the models existed:

- fields are declared in the order the producing code writes them (a model writes its declared
  fields first, in declaration order, then any others);
- every model keeps keys it does not name (`extra="allow"`), so a key a later engine adds still
  reaches the client instead of being dropped by the model;
- a field that is only sometimes present has a default and the routes serialize with
  `response_model_exclude_unset`, so a key absent from the dictionary stays absent in the answer.
"""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Answer(BaseModel):
    """Base of the answer models (see the module docstring for why extra keys are kept)."""

    model_config = ConfigDict(extra="allow")


class HouseRuleSet(Answer):
    """The house rules a game, a hand or a replay was counted by (`engine.HouseRules`)."""

    hand_size: int | str = Field(description="tiles dealt to each player, or \"table\" for 42 / players")
    table_half_up: bool = Field(description="with hand_size \"table\" and four players: 11 tiles (true) or 10")
    spinner_arms: int = Field(description="tiles the starting double takes before anything else: 4 or 6")
    start_double: str = Field(description="which double starts a round: required, highest_available, highest_unused")
    double_draw: str = Field(description="how players draw for the starting double: in_turn or everyone")
    first_round_draw: bool = Field(description="first round only: everyone draws, the highest tile plays first")
    voluntary_draw: bool = Field(description="a player may draw and pass even when a tile fits")
    must_play_drawn: bool = Field(description="a drawn tile that fits must be played")
    double_blank_value: int = Field(description="points for a double-blank left in hand: 0, 25 or 50")
    curved_scoring: bool = Field(description="when nobody went out, the lowest hand is subtracted from every hand")
    chickenlittle: bool = Field(description="a player left with one tile must announce it")


class Preset(Answer):
    """One published set of house rules."""

    rules: HouseRuleSet = Field(description="the rules of the preset")
    summary: str = Field(description="the rules in one line for people")


class HouseRuleChoices(Answer):
    """The rules a client can offer: the defaults and every preset the engine knows."""

    default: HouseRuleSet = Field(description="the rules when none are given")
    presets: dict[str, Preset] = Field(description="preset name -> its rules and summary")
