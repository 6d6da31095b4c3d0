"""Why a turn was refused, in a form both programs and players can use.

Every refusal is its own exception class so callers can catch exactly the
situations they care about, and each carries a stable `code` that the service
and the game record use instead of parsing English.
"""
from __future__ import annotations

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

    code: str = "illegal_play"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class RoundOver(IllegalPlay):
    code = "round_over"


class NotYourTurn(IllegalPlay):
    code = "not_your_turn"


class TileNotInSet(IllegalPlay):
    code = "tile_not_in_set"


class TileNotInHand(IllegalPlay):
    code = "tile_not_in_hand"


class NoSuchOpenEnd(IllegalPlay):
    code = "no_such_open_end"


class EndsDoNotMatch(IllegalPlay):
    code = "ends_do_not_match"


class SpinnerArmsUnfinished(IllegalPlay):
    code = "spinner_arms_unfinished"


class ChickieUnfinished(IllegalPlay):
    code = "chickie_unfinished"


class OnlyDrawnTile(IllegalPlay):
    code = "only_drawn_tile"


class MustDrawFirst(IllegalPlay):
    code = "must_draw_first"


class MustPlay(IllegalPlay):
    code = "must_play"


class AlreadyDrew(IllegalPlay):
    code = "already_drew"


class BoneyardEmpty(IllegalPlay):
    code = "boneyard_empty"


class TileNotInBoneyard(IllegalPlay):
    code = "tile_not_in_boneyard"


class NothingToAnnounce(IllegalPlay):
    code = "nothing_to_announce"


class CannotUndo(IllegalPlay):
    """The last action cannot be taken back: nothing was done yet, or another player has
    acted since."""

    code = "cannot_undo"


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
