"""A person at the terminal: the ``human`` player, with prompts in Chinese or English.

Bad input is asked again with the reason; the cards and totals are printed before every decision.
"""

from __future__ import annotations

from collections.abc import Callable

from twentyone.records import SeatView
from twentyone.strategy import Strategy

__all__ = ["Human", "MESSAGES", "WORDS", "parse_action"]

MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        "bet": "seat {seat}, money {money}: your bet (10 .. {money}) [10]: ",
        "bet_bad": "  a bet is a whole number from 10 to {money}",
        "hand": "  dealer shows {up} | you hold {cards} = {total}{soft}",
        "soft": " (soft)",
        "first": "  i insure, h hit, s stand, d double, u surrender: ",
        "cont": "  h hit, s stand: ",
        "cont_i": "  h hit, s stand, d double, u surrender: ",
        "bad": "  '{a}' is not one of: {allowed}",
        "no_ins": "  insurance only when the dealer shows an A and you can pay {cost}",
        "no_dbl": "  a double only on your first two cards",
        "round": "round {round}: dealer {dealer} = {dtotal} | you {cards} = {total} | money {money}",
        "others": "  seat {seat}: {cards}",
    },
    "zh": {
        "bet": "座位 {seat}，赌资 {money}：请下注（10 .. {money}）[10]：",
        "bet_bad": "  赌注必须是 10 到 {money} 之间的整数",
        "hand": "  庄家明牌 {up} | 你的牌 {cards} = {total}{soft}",
        "soft": "（软）",
        "first": "  i 保险，h 拿牌，s 停牌，d 加倍，u 投降：",
        "cont": "  h 拿牌，s 停牌：",
        "cont_i": "  h 拿牌，s 停牌，d 加倍，u 投降：",
        "bad": "  '{a}' 不是可选动作：{allowed}",
        "no_ins": "  只有庄家明牌为 A 且你能支付 {cost} 时才能买保险",
        "no_dbl": "  只有头两张牌时才能加倍",
        "round": "第 {round} 局：庄家 {dealer} = {dtotal} | 你 {cards} = {total} | 赌资 {money}",
        "others": "  座位 {seat}：{cards}",
    },
}


#: Whole words a person may type instead of the action's letter.
WORDS: dict[str, str] = {
    "insure": "i", "insurance": "i", "hit": "h", "stand": "s", "double": "d", "surrender": "u",
    "保险": "i", "拿牌": "h", "要牌": "h", "停牌": "s", "加倍": "d", "投降": "u",
}


def parse_action(text: str) -> str:
    """The action letter a person means by ``text`` (one letter or a whole word), or '' if none."""
    t = text.strip().lower()
    if len(t) == 1:
        return t
    return WORDS.get(t, "")


class Human(Strategy):
    """Asks a person at the terminal for every decision."""

    name = "human"

    def __init__(self, lang: str = "en", ask: Callable[[str], str] = input,
                 say: Callable[[str], None] = print) -> None:
        if lang not in MESSAGES:
            raise ValueError(f"unknown language: {lang!r} (zh or en)")
        self.m = MESSAGES[lang]
        self._ask = ask
        self.say = say

    def ask(self, prompt: str) -> str:
        """Read one answer; the end of input ends the match like Ctrl-C (with the standings)."""
        try:
            return self._ask(prompt)
        except EOFError:
            raise KeyboardInterrupt from None

    def bet(self, view: SeatView) -> int:
        money = view.account
        while True:
            text = self.ask(self.m["bet"].format(seat=view.seat, money=money)).strip()
            if not text:
                return 10
            if text.isdigit() and 10 <= int(text) <= max(money, 10):
                return int(text)
            self.say(self.m["bet_bad"].format(money=money))

    def _decide(self, view: SeatView, allowed: str, prompt: str) -> str:
        soft = self.m["soft"] if view.soft else ""
        self.say(self.m["hand"].format(up=view.up_card, cards=view.my_cards, total=view.total, soft=soft))
        while True:
            text = self.ask(self.m[prompt])
            a = parse_action(text)
            if not a or a not in allowed:
                self.say(self.m["bad"].format(a=text.strip(), allowed=" ".join(allowed)))
            elif a == "i" and not view.can_insure:
                self.say(self.m["no_ins"].format(cost=view.bet // 2))
            elif a == "d" and not view.can_double:
                self.say(self.m["no_dbl"])
            else:
                return a

    def first_action(self, view: SeatView) -> str:
        return self._decide(view, "ihsdu", "first")

    def continue_action(self, view: SeatView) -> str:
        if len(view.my_cards) == 2:
            return self._decide(view, "hsdu", "cont_i")
        return self._decide(view, "hs", "cont")

    def show(self, view: SeatView) -> None:
        from twentyone.cards import calculate

        dealer = view.dealer_cards
        self.say(self.m["round"].format(round=view.round, dealer=dealer, dtotal=calculate(dealer),
                                        cards=view.my_cards or "-", total=view.total, money=view.account))
        for seat in range(1, view.seats + 1):
            if seat != view.seat and view.seat_cards(seat):
                self.say(self.m["others"].format(seat=seat, cards=view.seat_cards(seat)))
