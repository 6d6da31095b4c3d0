import json
import random

import pytest

from engine import (
    PRESETS,
    ConfigError,
    Deal,
    DealError,
    GameConfig,
    HouseRules,
    HouseRulesError,
    make_deal,
    table_hand_size,
)


# --- players and hand sizes ---------------------------------------------------------


@pytest.mark.parametrize("players", range(2, 13))
def test_two_or_more_players_accepted_while_the_set_has_tiles(players: int) -> None:
    assert GameConfig(players, 18).players == players


@pytest.mark.parametrize("players", [0, 1])
def test_fewer_than_two_players_refused(players: int) -> None:
    with pytest.raises(ConfigError, match="at least 2"):
        GameConfig(players, 18)


def test_hand_size_is_seven_by_default() -> None:
    assert HouseRules().hand_size == 7
    assert GameConfig(4, 9).hand_size == 7


@pytest.mark.parametrize(
    "players, size", [(2, 21), (3, 14), (4, 11), (5, 8), (6, 7), (7, 6), (8, 5), (9, 5), (10, 4)]
)
def test_table_hand_size_is_42_over_players_rounded(players: int, size: int) -> None:
    assert table_hand_size(players) == size
    assert GameConfig(players, 9, HouseRules(hand_size="table")).hand_size == size


def test_table_hand_size_for_four_players_can_be_ten() -> None:
    rules = HouseRules(hand_size="table", table_half_up=False)
    assert GameConfig(4, 9, rules).hand_size == 10
    assert GameConfig(5, 9, rules).hand_size == 8  # only four players sit on a half


def test_fixed_hand_size_is_used_as_given() -> None:
    assert GameConfig(3, 12, HouseRules(hand_size=15)).hand_size == 15


def test_deal_refused_when_no_boneyard_left() -> None:
    with pytest.raises(DealError, match="boneyard"):
        GameConfig(4, 6)  # 4 x 7 = 28 = the whole double-6 set
    with pytest.raises(DealError):
        GameConfig(2, 6, HouseRules(hand_size="table"))  # 2 x 21 > 28
    GameConfig(3, 6)  # 21 of 28: seven left to draw


def test_deal_error_is_a_value_error_with_a_clear_message() -> None:
    with pytest.raises(ValueError) as info:
        GameConfig(10, 9)
    assert "70 tiles needed" in str(info.value)


def test_unsupported_set_refused_by_config() -> None:
    with pytest.raises(ConfigError, match="double-10"):
        GameConfig(4, 10)


def test_deal_gives_each_player_a_hand_and_the_rest_to_the_boneyard() -> None:
    config = GameConfig(5, 12, HouseRules(hand_size="table"))
    deal = make_deal(config, random.Random(1))
    assert [len(h) for h in deal.hands] == [8] * 5
    assert len(deal.boneyard) == 91 - 40
    deal.check(config)


def test_deal_check_refuses_a_tile_twice() -> None:
    config = GameConfig(2, 6)
    deal = make_deal(config, random.Random(0))
    broken = Deal((deal.hands[0], deal.hands[0]), deal.boneyard)
    with pytest.raises(DealError, match="twice"):
        broken.check(config)


def test_deal_arrange_puts_chosen_tiles_on_top_of_the_boneyard() -> None:
    config = GameConfig(2, 6)
    deal = Deal.arrange(config, [["6-6"], ["5-5"]], ["1-0", "2-0"])
    assert [str(t) for t in deal.boneyard[:2]] == ["1-0", "2-0"]
    assert len(deal.boneyard) == 26


# --- the house-rules object ---------------------------------------------------------


def test_house_rules_record_every_option() -> None:
    names = set(HouseRules().to_dict())
    assert names == {
        "hand_size", "table_half_up", "spinner_arms", "start_double", "double_draw", "first_round_draw",
        "voluntary_draw", "must_play_drawn", "double_blank_value", "curved_scoring", "chickenlittle",
    }


def test_house_rules_round_trip_through_json() -> None:
    rules = HouseRules(hand_size="table", table_half_up=False, spinner_arms=6, start_double="highest_available",
                       first_round_draw=True, voluntary_draw=True, double_blank_value=25, curved_scoring=True,
                       chickenlittle=True)
    assert HouseRules.from_json(rules.to_json()) == rules
    assert HouseRules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules


def test_house_rules_from_partial_dict_keeps_defaults() -> None:
    assert HouseRules.from_dict({"double_blank_value": 50}) == HouseRules(double_blank_value=50)


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("hand_size", 0, "hand_size"),
        ("hand_size", "many", "hand_size"),
        ("hand_size", True, "hand_size"),
        ("spinner_arms", 5, "4 or 6"),
        ("start_double", "lowest", "highest_available"),
        ("double_blank_value", 10, "0, 25 or 50"),
        ("curved_scoring", "yes", "true or false"),
        ("chickenlittle", 1, "true or false"),
    ],
)
def test_house_rules_invalid_values_refused_with_clear_error(field: str, value: object, words: str) -> None:
    with pytest.raises(HouseRulesError, match=words):
        HouseRules.from_dict({field: value})


def test_house_rules_unknown_option_refused() -> None:
    with pytest.raises(HouseRulesError, match="unknown house rule 'blanks_wild'"):
        HouseRules.from_dict({"blanks_wild": True})


def test_house_rules_bad_json_refused() -> None:
    with pytest.raises(HouseRulesError, match="not valid JSON"):
        HouseRules.from_json("{hand_size: 7")


def test_house_rules_are_immutable_and_hashable() -> None:
    rules = HouseRules()
    with pytest.raises(Exception):
        rules.hand_size = 9  # type: ignore[misc]
    assert hash(rules) == hash(HouseRules())
    assert rules.replace(chickenlittle=True).chickenlittle


def test_house_rules_describe_names_the_options() -> None:
    text = HouseRules(double_blank_value=50, curved_scoring=True, chickenlittle=True, spinner_arms=6).describe()
    for words in ("double-blank 50", "curved scoring", "chickenlittle", "6 arms"):
        assert words in text


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_published_presets_are_valid_rules(name: str) -> None:
    assert HouseRules.preset(name) == HouseRules.from_json(PRESETS[name].to_json())
