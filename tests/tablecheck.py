"""The rules checker of the other tables' round logs (bj, Lianzhong, the Monte Carlo report).

Each ``check_*`` replays a whole log written by ``--log`` and recomputes, from RULES.md alone (none of it
calls the engine), every card's place in the deck, the dealer's drawing, the money of every hand, the
dealer's seat and the totals; it raises ``AssertionError`` at the first record that breaks a rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TEN = set("TJQK")
RANKS = "A23456789TJQK"


def total(cards: str) -> int:
    """A counts 11 when that does not bust the hand, else 1."""
    t = sum(1 if c == "A" else 10 if c in TEN else int(c) for c in cards)
    return t + 10 if "A" in cards and t + 10 <= 21 else t


def soft(cards: str) -> bool:
    """An ace counts 11."""
    return "A" in cards and total(cards) != sum(1 if c == "A" else 10 if c in TEN else int(c) for c in cards)


def natural(cards: str) -> bool:
    """Two cards, an A and a ten-value card."""
    return len(cards) == 2 and "A" in cards and (cards[0] in TEN or cards[1] in TEN)


def value(c: str) -> int:
    return 10 if c in TEN else 1 if c == "A" else int(c)


def read(path: Path) -> list[dict[str, Any]]:
    """The records of a log file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def dealt(p: dict[str, Any]) -> str:
    """A player's cards in the order they were drawn after the first two: split hands' second cards left
    then right, then each hand's draws, left to right."""
    hands = p.get("hands")
    if not hands:
        return str(p["cards"][2:])
    return "".join(h["cards"][1] for h in hands) + "".join(h["cards"][2:] for h in hands)


def dealer_drew_s17(dealer: str) -> bool:
    """The dealer drew below 17 and stood from 17 (soft 17 too)."""
    return all(total(dealer[:i]) < 17 for i in range(2, len(dealer))) and total(dealer) >= 17


# -- bj ------------------------------------------------------------------------------------------------
def bj_delta(p: dict[str, Any], dealer: str) -> int:
    """The money of a bj hand, from its cards and actions (bj_money)."""
    ins = 1 if p["actions"].startswith("i") else 0
    hands = p.get("hands") or [p]
    stakes = sum(2 + (2 if h["doubled"] else 0) for h in hands)
    if p["foul"] is not None:
        return -stakes - ins
    if natural(dealer[:2]) and len(dealer) == 2:
        return -2 - ins + 3 * ins + (2 if natural(p["cards"]) else 0)
    if natural(p["cards"]):
        return 3 - ins
    d = total(dealer)
    out = -ins
    for h in hands:
        stake, t = 2 + (2 if h["doubled"] else 0), total(h["cards"])
        out += -stake if t > 21 else stake if d > 21 or t > d else 0 if t == d else -stake
    return out


def bj_action(p: dict[str, Any]) -> int:
    """The action of a bj hand as bj.s counted it (bj_money): $2, $1 for insurance, $2 a double, and $2 for
    each split hand dealt its second card (a foul ends the hand before the next is dealt), besides the dealt
    hand's $2."""
    hands = p.get("hands") or []
    return (1 if p["actions"].startswith("i") else 0) + 2 + 2 * sum(len(h["cards"]) > 1 for h in hands) + sum(
        2 for h in hands or [p] if h["doubled"])


def check_bj(records: list[dict[str, Any]]) -> None:
    """Replay a bj log: the deck, the deal, the questions asked, the dealer and the money."""
    assert records[0]["type"] == "match" and records[0]["rules"].startswith("unix-bj")
    assert records[-1]["type"] == "end"
    seen: set[str] = set()
    refills = 0
    standing = action = 0
    for r in records[1:-1]:
        if r["type"] == "shuffle":
            assert r["action"] == action
            if r["mid_round"]:  # a draw with one card left: the standing has the hand's settled part too
                assert r["left"] == 1
                refills += 1
            else:
                assert r["left"] == 52 - len(seen) < 15 and r["standing"] == standing
                seen = set()
            continue
        assert r["type"] == "round"
        assert 52 - len(seen) >= 15 or refills, "a hand began with fewer than 15 cards left"
        faces = [r["drawn"][i:i + 2] for i in range(0, len(r["drawn"]), 2)]
        for f in faces:
            assert f[0] in RANKS and f[1] in "HSDC", f
            if len(seen) == 51 and refills:  # the last card goes back with the others
                refills -= 1
                seen = set()
            assert len(seen) < 51, "a card was drawn with one card left"
            assert f not in seen, f"{f} drawn twice from one deck"
            seen.add(f)
        assert refills == 0
        (p,) = r["players"]
        dealer = r["dealer"]
        hands = p.get("hands") or [p]
        mine = "".join(h["cards"][1:] for h in hands) if p.get("hands") else p["cards"][2:]
        order = dealer[:2] + p["cards"][:2] + mine + dealer[2:]  # the dealer's two first; split hands in turn
        assert "".join(f[0] for f in faces) == order
        cards = p["cards"]
        if "p" in p["actions"]:
            assert value(cards[0]) == value(cards[1]) and len(p["hands"]) == 2
        for h in hands:
            if h["doubled"]:
                two = h["cards"][:2]
                assert total(two) in (10, 11) and not soft(two) and len(h["cards"]) == 3
        live = p["foul"] is None and not natural(cards) and not natural(dealer[:2])
        if live and any(total(h["cards"]) <= 21 for h in hands):
            assert dealer_drew_s17(dealer), dealer
        else:
            assert len(dealer) == 2
        assert r["dealer_bj"] == natural(dealer[:2])
        delta = bj_delta(p, dealer)
        assert p["account_after"] - p["account_before"] == delta, (p, dealer)
        standing += delta
        action += bj_action(p)
        assert (r["standing"], r["action"]) == (standing, action)
    end = records[-1]
    assert (end["standing"], end["action"]) == (standing + end.get("cut", {}).get("settled", 0), action)


# -- Lianzhong --------------------------------------------------------------------------------------------
def lz_hand_delta(h: dict[str, Any], bet: int, bj: bool, dealer: str, dealer_bust: bool) -> int:
    """One hand against the dealer (lianzhong_settlement): Black Jack 1:1, BJ > 21 > others, ties push."""
    stake = bet + (h.get("added", bet) if h["doubled"] else 0)
    t = total(h["cards"])
    if t > 21:
        return -stake
    if natural(dealer):
        return 0 if bj else -stake
    if bj:
        return bet
    d = 22 if dealer_bust else total(dealer)
    return stake if d > 21 or t > d else 0 if t == d else -stake


def lz_dealer_ok(dealer: str, choices: str, foul: bool) -> bool:
    """The dealer hit below 17, stood on a hard 17+, chose only on a soft 17 or a two-card soft 18-20."""
    i = 0
    for n in range(2, len(dealer) + 1):
        hand = dealer[:n]
        t = total(hand)
        may = soft(hand) and (t == 17 or (n == 2 and 17 <= t <= 20))
        drew = n < len(dealer)
        if t < 17:
            if not drew:
                return False
        elif may:
            if i >= len(choices):
                return False
            c = choices[i]
            i += 1
            if c not in "hs":
                return foul and not drew and i == len(choices)
            if (c == "h") != drew:
                return False
        elif drew:
            return False
    return i == len(choices) and not foul


def check_lianzhong(records: list[dict[str, Any]], start: int = 1000, min_bet: int = 10) -> None:
    """Replay a Lianzhong log: the dealer's seat, a new deck each round, the deal, the dealer, the money."""
    m = records[0]
    assert m["type"] == "match" and m["game"] == "lianzhong"
    n = len(m["seats"])
    money = {s["seat"]: start for s in m["seats"]}
    out: set[int] = set()
    dealer = None
    orders: dict[int, str] = {}
    for r in records[1:-1]:
        if r["type"] == "shuffle":
            assert sorted(r["order"]) == sorted(RANKS * 4)
            orders[r["shoe"]] = r["order"]
            continue
        out |= {s for s, v in money.items() if v < min_bet}
        faulted = {f["seat"] for f in r.get("faults", [])}
        in_game = [s for s in range(1, n + 1) if s not in out]
        want = m["first_dealer"] if dealer is None else next(
            (dealer + k - 1) % n + 1 for k in range(1, n + 1) if (dealer + k - 1) % n + 1 in in_game)
        dealer = r["dealer_seat"]
        assert dealer == want, (dealer, want)
        seats = [p["seat"] for p in r["players"]]
        assert seats == [(dealer + k - 1) % n + 1 for k in range(1, n) if (dealer + k - 1) % n + 1 in in_game]
        assert r["first_card"] == 0 and r["shoe"] in orders
        ps, d = r["players"], r["dealer"]
        want_cards = ("".join(p["cards"][:2] for p in ps) + d[:2] + "".join(dealt(p) for p in ps) + d[2:])
        got = orders[r["shoe"]][: len(want_cards)]
        k = r["shoe"]
        while len(got) < len(want_cards):  # a new deck in the middle of the round
            k += 1
            got += orders[k][: len(want_cards) - len(got)]
        assert got == want_cards
        live = [p for p in ps if p["foul"] is None and not p["bj"] and any(
            total(h["cards"]) <= 21 for h in (p.get("hands") or [p]))]
        if live:
            assert lz_dealer_ok(d, r["dealer_actions"], r["dealer_foul"]), (d, r["dealer_actions"])
        else:
            assert len(d) == 2 and r["dealer_actions"] == ""
        assert r["dealer_bj"] == natural(d)
        assert r["dealer_before"] == money[dealer]
        total_delta = 0
        for p in ps:
            assert p["account_before"] == money[p["seat"]] >= min_bet
            assert p["insurance"] == 0 and not p["surrendered"]
            assert p["bj"] == natural(p["cards"])
            if p["foul"] is not None:
                stakes = sum(h["bet"] + (h.get("added", h["bet"]) if h["doubled"] else 0)
                             for h in (p.get("hands") or [p]))
                delta = -stakes
            elif p.get("hands"):
                assert value(p["cards"][0]) == value(p["cards"][1]) and len(p["hands"]) == 2
                delta = sum(lz_hand_delta(h, h["bet"], False, d, r["dealer_foul"]) for h in p["hands"])
                assert all(not h["doubled"] for h in p["hands"])
            else:
                if p["doubled"]:
                    assert p["actions"][0] == "d" and len(p["cards"]) == 3
                delta = lz_hand_delta(p, p["bet"], p["bj"], d, r["dealer_foul"])
            assert p["account_after"] - p["account_before"] == delta, (p, d)
            money[p["seat"]] = p["account_after"]
            total_delta += delta
        assert r["dealer_after"] - r["dealer_before"] == -total_delta
        money[dealer] = r["dealer_after"]
        out |= faulted
    end = records[-1]
    assert end["type"] == "end"
    assert {e["seat"]: e["account"] for e in end["ranking"]} == money
    assert sum(e["score"] for e in end["ranking"]) == 0  # money only moves between the players


# -- the Monte Carlo report --------------------------------------------------------------------------------
def mc_score(me: str, dealer: str, foul: bool) -> int:
    """The report's text: bust -2; dealer bust or higher: +3 with a natural, else +2; equal 0; lower -2."""
    t = total(me)
    if foul or t > 21:
        return -2
    d = total(dealer)
    if d > 21 or t > d:
        return 3 if natural(me) else 2
    return 0 if t == d else -2


def check_montecarlo(records: list[dict[str, Any]], mimic: bool = False) -> None:
    """Replay a Monte Carlo log: a new two-deck shoe each game, the report's deal and dealer, the scores."""
    assert records[0]["type"] == "match" and records[0]["game"] == "montecarlo"
    orders: dict[int, str] = {}
    scores = []
    for r in records[1:-1]:
        if r["type"] == "shuffle":
            assert sorted(r["order"]) == sorted(RANKS * 8)
            orders[r["shoe"]] = r["order"]
            continue
        (p,) = r["players"]
        me, d = p["cards"], r["dealer"]
        assert r["first_card"] == 0 and r["shoe"] == max(orders)
        assert orders[r["shoe"]][: len(me) + len(d)] == me[0] + d[0] + me[1] + d[1] + me[2:] + d[2:]
        if mimic:
            assert dealer_drew_s17(me) or total(me) > 21, me
        if total(me) > 21 or p["foul"] is not None:
            assert len(d) == 2 and r["dealer_shown"] is False
        else:
            assert dealer_drew_s17(d) and r["dealer_shown"] is True, d
        score = mc_score(me, d, p["foul"] is not None)
        assert r["score"] == score, (me, d, r["score"])
        assert p["account_after"] - p["account_before"] == p["bet"] * score // 2  # a score is a bet of 2's
        scores.append(score)
    assert records[-1]["type"] == "end" and records[-1]["total"] == sum(scores)
