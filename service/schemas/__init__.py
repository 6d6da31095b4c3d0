"""The shapes of the API's answers, one module per area, for /openapi.json and /docs.

`service.apischema` declares the error answers; these declare the successful ones. The routes
return the dictionaries the engine, the store and the reader build, and FastAPI checks each
against its model here (see `base` for how that leaves every answer exactly as built).
"""
from .audit import Audit
from .base import HouseRuleChoices
from .blocked import BlockProof
from .games import Game, GameDeleted, GamePage, GameRecord, LiveEvents, RoundDeleted, RoundEdited, RoundRecorded
from .health import Health
from .hands import Hand, ScoredHand
from .sheet import GameSheet
from .study import Advice, GameReplay, Study

__all__ = [
    "Advice", "Audit", "BlockProof", "Game", "GameDeleted", "GamePage", "GameRecord", "GameReplay", "GameSheet",
    "Hand", "Health", "HouseRuleChoices", "LiveEvents", "RoundDeleted", "RoundEdited", "RoundRecorded",
    "ScoredHand", "Study",
]
