"""A person at the terminal: the ``human`` player, with prompts in Chinese, English or French.

Bad input is asked again with the reason; the cards and totals are printed before every decision.
``q`` (or ``quit``, ``退出``, ``quitter``) at any question leaves the game as Ctrl-C does, with the standings;
the bet prompt says so.  A Black Jack is asked nothing (only insurance, when the dealer shows an A and the
rules offer it): it stands, and the round's result shows no action for it.
A prompt lists the actions the table's rules offer at that point (the course's: ``i h s d u`` first,
``h s`` later); a pair adds ``p`` (split) and the French game's ``c`` (Changer) where the rules have
them.  In French the keys are the French words' letters (``t`` tirer, ``r`` rester, ``d`` doubler,
``c`` changer, ``v`` diviser, ``a`` assurance, ``b`` abandonner); the engine's letters and the whole
words are understood in every language.  What it says is English in the code and comes from the catalogue
(``twentyone.i18n``) in the person's language: ``Human(lang)``, the command's ``--lang`` or the locale.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from twentyone.cards import calculate
from twentyone.i18n import LANGUAGES, N_, current, in_language
from twentyone.records import SeatView
from twentyone.strategy import Strategy

__all__ = ["Human", "MESSAGES", "WORDS", "KEYS", "ACTION_NAMES", "RESULTS", "QUIT", "parse_action", "natural"]

#: What the terminal says, in English; each is translated from the catalogue (``twentyone.i18n``) into the
#: person's language when it is said.
MESSAGES: Final = {
    "bet": N_("seat {seat}, money {money}: your bet ({lo} .. {hi}) [{lo}], q to leave: "),
    "bet_bad": N_("  a bet is a whole number from {lo} to {hi}"),
    "hand": N_("  dealer shows {up} | you hold {cards} = {total}{soft}"),
    "natural": N_("  dealer shows {up} | you hold {cards}: Black Jack"),
    "split_hand": N_("  dealer shows {up} | hand {n} of {m}: {cards} = {total}{soft}"),
    "soft": N_(" (soft)"),
    "sep": N_(", "),
    "end": N_(": "),
    "bad": N_("  '{a}' is not one of: {allowed}"),
    "no_ins": N_("  insurance only when the dealer shows an A and you can pay {cost}"),
    "no_dbl": N_("  a double only on your first two cards"),
    "no_split": N_("  a split only with a pair, and a second bet of {cost}"),
    "no_change": N_("  a change only with a pair, as your first decision"),
    "round": N_("round {round}: dealer {dealer} = {dtotal}"),
    "seat": N_("  seat {seat} {name}: {cards} = {total}, bet {bet}, {action}, {result} {delta}, money {money}"),
    "out": N_("  seat {seat} {name}: not in this round, money {money}"),
}

#: The name of each action, as a prompt shows it (translated as it is shown).
ACTION_NAMES: Final = {"i": N_("insure"), "h": N_("hit"), "s": N_("stand"), "d": N_("double"),
                       "u": N_("surrender"), "p": N_("split"), "c": N_("change")}

#: A hand's result at the end of a round, as the course's words say it (``tag``: what made it so).
RESULTS: Final = {"win": N_("win"), "push": N_("push"), "lose": N_("lose"), "bust": N_("bust"),
                  "bj": N_("Black Jack"), "u": N_("surrendered"), "none": "-", "tag": N_("{result} ({why})")}

#: The key a person types for each action, where a language's differs from the engine's letter.
KEYS: dict[str, dict[str, str]] = {"fr": {"i": "a", "h": "t", "s": "r", "d": "d", "u": "b", "p": "v", "c": "c"}}

#: Whole words a person may type instead of the action's letter.
WORDS: dict[str, str] = {
    "insure": "i", "insurance": "i", "hit": "h", "stand": "s", "double": "d", "surrender": "u", "split": "p",
    "change": "c",
    "保险": "i", "拿牌": "h", "要牌": "h", "停牌": "s", "加倍": "d", "投降": "u", "分牌": "p", "换牌": "c",
    "assurance": "i", "tirer": "h", "rester": "s", "doubler": "d", "abandonner": "u", "diviser": "p",
    "séparer": "p", "separer": "p", "changer": "c",
}


#: What a person types to leave the game (as Ctrl-C: the standings are shown).
QUIT: frozenset[str] = frozenset({"q", "quit", "exit", "退出", "quitter"})


def natural(view: SeatView) -> bool:
    """The dealt hand is a Black Jack (two cards, 21, no split)."""
    return len(view.hands) == 1 and len(view.my_cards) == 2 and view.total == 21


def parse_action(text: str, lang: str = "en") -> str:
    """The action letter a person means by ``text`` (a key, an engine letter or a whole word), or ''."""
    t = text.strip().lower()
    if len(t) == 1:
        keys = KEYS.get(lang, {})
        for action, key in keys.items():
            if key == t:
                return action
        return "" if t in keys.values() else t
    return WORDS.get(t, "")


class Human(Strategy):
    """Asks a person at the terminal for every decision."""

    name = "human"

    def __init__(self, lang: str | None = None, ask: Callable[[str], str] = input,
                 say: Callable[[str], None] = print) -> None:
        lang = lang or current()
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language: {lang!r} (zh, en or fr)")
        self.lang = lang
        self.m = {k: in_language(lang, v) for k, v in MESSAGES.items()}
        self.names = {k: in_language(lang, v) for k, v in ACTION_NAMES.items()}
        self.words = {k: in_language(lang, v) for k, v in RESULTS.items()}
        self.keys = KEYS.get(lang, {})
        self._ask = ask
        self.say = say

    def ask(self, prompt: str) -> str:
        """Read one answer; ``q`` and the end of input end the match like Ctrl-C (with the standings)."""
        try:
            text = self._ask(prompt)
        except EOFError:
            raise KeyboardInterrupt from None
        if text.strip().lower() in QUIT:
            raise KeyboardInterrupt
        return text

    def bet(self, view: SeatView) -> int:
        money = view.account
        rules = view.rules
        lo = rules.min_bet
        hi = max(min(money, rules.max_bet) if rules.max_bet is not None else money, lo)
        while True:
            text = self.ask(self.m["bet"].format(seat=view.seat, money=money, lo=lo, hi=hi)).strip()
            if not text:
                return lo
            if text.isdigit() and lo <= int(text) <= hi:
                return int(text)
            self.say(self.m["bet_bad"].format(lo=lo, hi=hi))

    def _offered(self, view: SeatView, first: bool) -> str:
        """The actions that are legal now, in prompt order (the view's ``can_x``, as the table decides them):
        ``i`` only against an A and when it can be paid, ``d`` and ``u`` where the hand and the rules allow."""
        rules = view.rules
        cards = view.my_cards
        # a split ace that took its one card may only stand (or be split again)
        ace_one = len(view.hands) > 1 and rules.split_aces_one_card and len(cards) == 2 and cards[0] == "A"
        out = "i" if first and view.can_insure else ""
        out += "s" if ace_one else "hs"
        if view.can_double and not ace_one:
            out += "d"
        if view.can_surrender:
            out += "u"
        if view.can_split:
            out += "p"
        if view.can_change:
            out += "c"
        return out

    def _key(self, a: str) -> str:
        return self.keys.get(a, a)

    def _decide(self, view: SeatView, allowed: str, shown: bool = False) -> str:
        """Ask for one of ``allowed``, the hand printed first (unless ``shown`` already)."""
        soft = self.m["soft"] if view.soft else ""
        hands = view.hands
        if shown:
            pass
        elif len(hands) > 1:
            self.say(self.m["split_hand"].format(up=view.up_card, n=view.hand + 1, m=len(hands), cards=view.my_cards,
                                                 total=view.total, soft=soft))
        else:
            self.say(self.m["hand"].format(up=view.up_card, cards=view.my_cards, total=view.total, soft=soft))
        prompt = "  " + self.m["sep"].join(f"{self._key(a)} {self.names[a]}" for a in allowed) + self.m["end"]
        while True:
            text = self.ask(prompt)
            a = parse_action(text, self.lang)
            if not a or a not in allowed:
                self.say(self.m["bad"].format(a=text.strip(), allowed=" ".join(self._key(x) for x in allowed)))
            elif a == "i" and not view.can_insure:
                self.say(self.m["no_ins"].format(cost=view.bet // 2))
            elif a == "d" and not view.can_double:
                self.say(self.m["no_dbl"])
            elif a == "p" and not view.can_split:
                self.say(self.m["no_split"].format(cost=view.bet))
            elif a == "c" and not view.can_change:
                self.say(self.m["no_change"])
            else:
                return a

    def first_action(self, view: SeatView) -> str:
        if natural(view):  # a Black Jack decides nothing: it stands, after insurance if offered
            self.say(self.m["natural"].format(up=view.up_card, cards=view.my_cards))
            return self._decide(view, "is", shown=True) if view.can_insure else "s"
        return self._decide(view, self._offered(view, True))

    def continue_action(self, view: SeatView) -> str:
        return self._decide(view, self._offered(view, False))

    def new_match(self, decks: int, seats: int, seat: int) -> None:
        self._money: dict[int, int] = {}

    def show(self, view: SeatView) -> None:
        """The round as the course program shows it: the dealer's hand, then every seat's cards, total, bet,
        latest action, result and money (the result is the change in its money since the last round)."""
        dealer = view.dealer_cards
        self.say(self.m["round"].format(round=view.round, dealer=dealer, dtotal=calculate(dealer) if dealer else 0))
        words = self.words
        money = getattr(self, "_money", {})
        self._money = money
        for i, p in enumerate(view.players()):
            seat = i + 1
            before = money.get(seat, view.rules.start_money)
            money[seat] = p.account
            cards = p.mycards[: p.count]
            total = str(p.points)
            if seat == view.seat and len(view.hands) > 1:
                cards = " | ".join(view.hands)
                total = " | ".join(str(calculate(h)) for h in view.hands)
            if not cards:
                self.say(self.m["out"].format(seat=seat, name=p.name, money=p.account))
                continue
            delta = p.account - before
            result = words["win" if delta > 0 else "push" if delta == 0 else "lose"]
            # two cards of 21 after a Changer ("c") are a plain 21, not a Black Jack
            bj = p.count == 2 and p.points == 21 and "|" not in total and p.state != "c"
            why = "bust" if p.points > 21 and "|" not in total else "bj" if bj else "u" if p.state == "u" else ""
            if why:
                result = words["tag"].format(result=result, why=words[why])
            action = words["none"] if bj and p.state != "i" else self.names.get(p.state, words["none"])
            self.say(self.m["seat"].format(seat=seat, name=p.name, cards=cards, total=total, bet=p.mybets,
                                           action=action, result=result, delta=f"{delta:+d}", money=p.account))
