"""Why a turn was refused, in a form both programs and players can use.

Every refusal is its own exception class so callers can catch exactly the
situations they care about, and each carries a stable `code` that the service
and the game record use instead of parsing English.
"""
from __future__ import annotations

from .rulecodes import Rule

_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six")


def number_word(n: int) -> str:
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else str(n)


def plural(n: int, singular: str, plural_form: str | None = None) -> str:
    word = singular if n == 1 else (plural_form or singular + "s")
    return f"{number_word(n)} {word}"


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class ConfigError(EngineError, ValueError):
    """A game that cannot be set up as asked (players, set size, hand size)."""


class HouseRulesError(ConfigError):
    """House rules that cannot be used: a value no published variant allows, or a
    description of the rules (preset name, JSON text, file) that cannot be read."""

    code: str = "invalid_house_rules"


class DealError(ConfigError):
    """The hands asked for would leave no boneyard to draw from."""


class IllegalPlay(EngineError):
    """A turn the rules do not allow; the state is left untouched."""

    code: str = Rule.ILLEGAL_PLAY

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"code": str(self.code), "message": self.message}


class RoundOver(IllegalPlay):
    code = Rule.ROUND_OVER


class NotYourTurn(IllegalPlay):
    code = Rule.NOT_YOUR_TURN


class TileNotInSet(IllegalPlay):
    code = Rule.TILE_NOT_IN_SET


class TileNotInHand(IllegalPlay):
    code = Rule.TILE_NOT_IN_HAND


class NoSuchOpenEnd(IllegalPlay):
    code = Rule.NO_SUCH_OPEN_END


class EndsDoNotMatch(IllegalPlay):
    code = Rule.ENDS_DO_NOT_MATCH


class SpinnerArmsUnfinished(IllegalPlay):
    code = Rule.SPINNER_ARMS_UNFINISHED


class ChickieUnfinished(IllegalPlay):
    code = Rule.CHICKIE_UNFINISHED


class OnlyDrawnTile(IllegalPlay):
    code = Rule.ONLY_DRAWN_TILE


class MustDrawFirst(IllegalPlay):
    code = Rule.MUST_DRAW_FIRST


class MustPlay(IllegalPlay):
    code = Rule.MUST_PLAY


class AlreadyDrew(IllegalPlay):
    code = Rule.ALREADY_DREW


class BoneyardEmpty(IllegalPlay):
    code = Rule.BONEYARD_EMPTY


class TileNotInBoneyard(IllegalPlay):
    code = Rule.TILE_NOT_IN_BONEYARD


class NothingToAnnounce(IllegalPlay):
    code = Rule.NOTHING_TO_ANNOUNCE


class CannotUndo(IllegalPlay):
    """The last action cannot be taken back: nothing was done yet, or another player has
    acted since."""

    code = Rule.CANNOT_UNDO


ILLEGAL_PLAY_TYPES: dict[str, type[IllegalPlay]] = {
    cls.code: cls
    for cls in (
        RoundOver,
        NotYourTurn,
        TileNotInSet,
        TileNotInHand,
        NoSuchOpenEnd,
        EndsDoNotMatch,
        SpinnerArmsUnfinished,
        ChickieUnfinished,
        OnlyDrawnTile,
        MustDrawFirst,
        MustPlay,
        AlreadyDrew,
        BoneyardEmpty,
        TileNotInBoneyard,
        NothingToAnnounce,
        CannotUndo,
    )
}
