"""The person at the terminal: prompts in three languages, French keys, split and Changer offered by the rules."""

from __future__ import annotations

from tests.scripted import one_round
from twentyone.players.terminal import Human, parse_action
from twentyone.rules import PRESETS, get_rules


def test_french_keys_words_and_engine_letters() -> None:
    """In French t r d c v a b are the keys; the engine's letters and whole words in any language work too."""
    assert [parse_action(t, "fr") for t in ("t", "r", "d", "c", "v", "a", "b")] == list("hsdcpiu")
    assert [parse_action(t, "fr") for t in ("h", "s", "p", "tirer", "Rester", "diviser", "hit", "停牌")] == list("hsphsphs")
    assert parse_action("t", "en") == "t"  # not an action in English: the table re-asks
    assert parse_action("split") == "p" and parse_action("change") == "c"


def _play(cards: str, answers: list[str], lang: str, rules_name: str) -> tuple[list[str], list[str]]:
    prompts: list[str] = []
    said: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return answers.pop(0)

    one_round(cards + "9" * 40, [Human(lang, ask=ask, say=said.append)], 6, get_rules(rules_name))
    return prompts, said


def test_split_and_changer_are_offered_where_the_rules_have_them() -> None:
    """A pair under the French rules offers v diviser and c changer; the course offers neither."""
    prompts, _ = _play("88" "7T" "45", ["10", "v", "r", "r"], "fr", "french")
    assert prompts[1] == "  t tirer, r rester, d doubler, v diviser, c changer : "
    assert prompts[2].startswith("  t tirer, r rester")  # a split hand: no double after a split in the French game
    prompts, _ = _play("88" "7T", ["10", "s"], "en", "course")
    assert prompts[1] == "  h hit, s stand, d double, u surrender: "  # no i: the dealer shows a 7


def test_split_hands_are_shown_one_by_one() -> None:
    """Each split hand is shown as 'hand n of m' before its decision, and all hands at the end."""
    _, said = _play("88" "7T" "45", ["10", "p", "s", "s"], "en", "s17-3to2-6d")
    assert any("hand 1 of 2: 84 = 12" in s for s in said) and any("hand 2 of 2: 85 = 13" in s for s in said)
    assert said[-1] == "  seat 1 p1: 84 | 85 = 12 | 13, bet 20, split, lose -20, money 980"


def test_only_the_legal_actions_are_offered() -> None:
    """i only against an A and when it can be paid, d and u only on two cards, h s after a hit."""
    prompts, _ = _play("62" "3T", ["10", "h", "s"], "en", "course")  # a 3 up: no insurance
    assert prompts[1:] == ["  h hit, s stand, d double, u surrender: ", "  h hit, s stand: "]
    prompts, _ = _play("88" "A7", ["10", "i", "s"], "en", "course")  # an A up: insurance, then the two-card choices
    assert prompts[1:] == ["  i insure, h hit, s stand, d double, u surrender: ",
                           "  h hit, s stand, d double, u surrender: "]
    prompts, _ = _play("88" "A7", ["10", "s"], "en", "course,start_money=14")  # 4 left after the bet: I = 5
    assert prompts[1] == "  h hit, s stand, d double, u surrender: "
    prompts, _ = _play("88" "A7", ["1", "i", "s"], "en", "judge")  # a bet of 1: insurance costs 0 and is offered
    assert prompts[1].startswith("  i insure, h hit, s stand, d double")


def test_the_round_shows_every_seat_as_the_course_program_would() -> None:
    """At the end of a round every seat is shown: cards, total, bet, latest action, result and money."""
    from tests.scripted import Scripted

    said: list[str] = []
    answers = ["10", "s"]
    other = Scripted("h", bet=30)
    one_round("T8" "52" "T7" "9" + "9" * 40, [Human("en", ask=lambda p: answers.pop(0), say=said.append), other],
              6, PRESETS["course"])
    assert said[-3:] == ["round 1: dealer T7 = 17",
                         "  seat 1 p1: T8 = 18, bet 10, stand, win +10, money 1010",
                         "  seat 2 p2: 529 = 16, bet 30, stand, lose -30, money 970"]
    said.clear()
    answers[:] = ["10", "停牌"]
    one_round("T8" "AK" "T7" + "9" * 40, [Human("zh", ask=lambda p: answers.pop(0), say=said.append),
                                          Scripted("s", bet=20)], 6, PRESETS["course"])
    assert said[-1] == "  座位 2 p2：AK = 21，赌注 20，-，赢（黑杰克） +40，赌资 1040"  # a Black Jack decides nothing


def test_a_black_jack_is_asked_nothing_but_insurance() -> None:
    """A person's Black Jack is shown as one and asked nothing (a d shown as a double that is not one, then paid as
    Black Jack, was the bug); against an A only insurance or stand; the result shows no action."""
    prompts, said = _play("AK" "7T", ["10"], "zh", "course")
    assert prompts == ["座位 1，赌资 1000：请下注（10 .. 1000）[10]，q 退出："] and "  庄家明牌 7 | 你的牌 AK：黑杰克" in said
    assert said[-1] == "  座位 1 p1：AK = 21，赌注 10，-，赢（黑杰克） +20，赌资 1020"
    prompts, said = _play("KA" "A7", ["10", "i"], "en", "course")
    assert prompts[1:] == ["  i insure, s stand: "] and "  dealer shows A | you hold KA: Black Jack" in said
    assert said[-1].startswith("  seat 1 p1: KA = 21, bet 10, insure, win (Black Jack)")
    prompts, said = _play("AK" "7T", ["10"], "fr", "french")  # the French game: no insurance, nothing asked
    assert len(prompts) == 1 and said[-1].endswith("-, gagne (Blackjack) +15, budget 1015")


def test_a_changer_that_makes_21_is_a_plain_win_not_a_black_jack() -> None:
    """French rules: A-A changed into A-K is 21 on two cards, paid as a win and printed as one, not Blackjack."""
    prompts, said = _play("AA" "7T" "K", ["10", "c"], "fr", "french")
    assert "c changer" in prompts[1]
    assert said[-1] == "  place 1 p1 : AK = 21, mise 20, changer, gagne +20, budget 1020"


def test_q_leaves_at_any_question() -> None:
    """q (quit, 退出, quitter) at a bet or a decision ends the game as Ctrl-C does; the bet prompt says so."""
    import pytest

    for answers, lang in ((["q"], "en"), (["10", "退出"], "zh"), (["10", "quitter"], "fr")):
        with pytest.raises(KeyboardInterrupt):
            _play("88" "7T", answers, lang, "course" if lang != "fr" else "french")
    prompts, _ = _play("88" "7T", ["10", "s"], "fr", "french")
    assert prompts[0] == "place 1, budget 1000 : votre mise (1 .. 1000) [1], q pour quitter : "
