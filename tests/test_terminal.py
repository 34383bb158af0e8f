"""The person at the terminal: prompts in three languages, French keys, split and Changer offered by the rules."""

from __future__ import annotations

from tests.scripted import one_round
from twentyone.players.terminal import Human, parse_action
from twentyone.rules import PRESETS


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

    one_round(cards + "9" * 40, [Human(lang, ask=ask, say=said.append)], 6, PRESETS[rules_name])
    return prompts, said


def test_split_and_changer_are_offered_where_the_rules_have_them() -> None:
    """A pair under the French rules offers v diviser and c changer; the course offers neither."""
    prompts, _ = _play("88" "7T" "45", ["10", "v", "r", "r"], "fr", "french")
    assert prompts[1] == "  t tirer, r rester, d doubler, v diviser, c changer : "
    assert prompts[2].startswith("  t tirer, r rester")  # a split hand: no double after a split in the French game
    prompts, _ = _play("88" "7T", ["10", "s"], "en", "course")
    assert prompts[1] == "  i insure, h hit, s stand, d double, u surrender: "


def test_split_hands_are_shown_one_by_one() -> None:
    """Each split hand is shown as 'hand n of m' before its decision, and all hands at the end."""
    _, said = _play("88" "7T" "45", ["10", "p", "s", "s"], "en", "s17-3to2-6d")
    assert any("hand 1 of 2: 84 = 12" in s for s in said) and any("hand 2 of 2: 85 = 13" in s for s in said)
    assert any("you 84 | 85 = 12 | 13" in s for s in said)
