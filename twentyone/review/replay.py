"""A match's replay: one self-contained HTML page that steps through it round by round and decision by decision.

``render_replay`` writes the page from a ``LoggedMatch``, its rounds replayed (``rounds.RoundPlay``) and the
priced decisions of the seats to highlight (``costs.Priced``).  The page needs nothing but itself: its style
and script are inline, its data is one JSON block, and its Content-Security-Policy lets nothing else load
(``default-src 'none'``; the script is allowed by its SHA-256 hash).  Everything that came from a log (names,
a fault's text) reaches the page as data and is set with ``textContent``, never parsed as HTML; the few names
in the static header are escaped.

What it shows: the table at each step (the dealer's cards, the hole card face down until he shows it, each
seat's hands drawn as cards with their stakes, insurance and money), what happened in words, the steps of
the round, and for each decision of a highlighted seat the EV of every option, the one taken and the EV lost.
The arrow keys step (left, right) and jump a round (up, down); ``n`` and ``p`` jump to the next or previous
priced decision; Home and End go to the first and last round; the buttons do the same.  The address's
fragment follows the position: ``#round-37`` opens round 37, ``#round-37-step-3`` its step 3 (steps count
from 0, the deal), ``#round-37-foul`` the step where a reviewed seat fouled or faulted.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any, Final

from twentyone.i18n import N_, _, html_lang, ngettext, translated
from twentyone.review.costs import LETTERS, Priced, situation_words, true_count
from twentyone.review.logs import MAX_TEXT, LoggedMatch
from twentyone.review.rounds import RoundPlay
from twentyone.storedtext import fault_name, retold

__all__ = ["render_replay", "round_anchor", "REPLAY_JS", "WORDS"]

#: The words the page's script writes, in English; the page carries them in its language (``data.words``), each
#: ``{field}`` filled by the script.
WORDS: Final = {
    "total": N_("total {total}"), "seat": N_("Seat {seat}: {name}"), "reviewed": N_("(reviewed)"),
    "money": N_("money {money}"), "insurance": N_("insurance {amount}"), "net": N_("round {net}"),
    "hand": N_("hand {n}"), "stake": N_("stake {bet}"), "aside": N_("taken away by the Changer: {cards}"),
    "deals": N_("Seat {seat} ({name}) deals this round."), "notValued": N_("not valued"),
    "noDecision": N_("No decision of a reviewed seat at this step. Use n / p (or the buttons) to jump to the next "
                     "or previous one."),
    "insuranceOf": N_("Insurance of {name}{hand}: {cards} against {up} ({situation})"),
    "decisionOf": N_("Decision of {name}{hand}: {cards} against {up} ({situation})"),
    "handN": N_(" (hand {n})"), "seatN": N_("seat {seat}"), "option": N_("option"), "evPerBet": N_("EV per bet"),
    "best": N_("best"), "taken": N_("taken"), "bestTaken": N_("best, taken"),
    "foulTaken": N_("a foul ({foul}): the hand is lost, EV -1"),
    "takenLine": N_("Taken: {taken}. EV lost: {lost} of a bet."), "notPriced": N_("not priced"),
    "seen": N_("Off the {seen} cards the seat could have seen since the shuffle."),
    "where": N_("Round {round} ({index} of {count}) \u00b7 step {step} of {steps}"),
    "shoe": N_("{seen} cards seen since the shuffle before this round \u00b7 Hi-Lo true count {tc}"),
    "roundN": N_("round {round}"), "empty": N_("This log holds no round to replay."),
    "win": N_("win"), "lose": N_("lose"), "push": N_("push"),
}
#: Each action letter as the script names it in a hand's label.
ACTIONS: Final = {"h": N_("hit"), "s": N_("stand"), "d": N_("double"), "u": N_("surrender"), "p": N_("split"),
                  "c": N_("Changer"), "i": N_("insurance")}


def round_anchor(round_no: int, step: int | None = None, foul: bool = False) -> str:
    """The fragment of a round in a replay page: ``round-37``, a step of it ``round-37-step-3``, or the step with
    the reviewed seat's foul or fault ``round-37-foul``."""
    return f"round-{round_no}" + (f"-step-{step}" if step is not None else "-foul" if foul else "")


def _cap(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "\u2026"


def _num(v: float | None) -> float | None:
    return None if v is None else round(v, 4)


def _shown_event(event: tuple[Any, ...]) -> list[Any]:
    """A step's event as the page shows it: a foul's or fault's kind and detail in the active language."""
    if event and event[0] == "foul" and len(event) >= 4:
        return [event[0], event[1], fault_name(str(event[2])), retold(str(event[3]))]
    return list(event)


def replay_data(match: LoggedMatch, plays: Mapping[int, RoundPlay], priced: Iterable[Priced],
                highlight: Iterable[int]) -> dict[str, Any]:
    """The page's data: seats, rounds with their steps and events, priced decisions, and the words its script
    writes in the active language (``words``, ``actions``; ``names`` the answer letters', ``letters`` their English
    names, as ``data-option`` has them).  A decision is a list, ``[seat, round, kind, hand, cards, up, situation
    (in words), [[letter, EV], ...], taken, foul, best, EV lost, seen, note]``; a step ``{"t": text, "e": events,
    "d": its decisions, "s": its seat}`` without empty keys."""
    mine = set(highlight)
    decisions: list[list[Any]] = []
    at: dict[tuple[int, int], list[int]] = {}
    for p in priced:
        at.setdefault((p.round, p.step), []).append(len(decisions))
        decisions.append([p.seat, p.round, p.kind, p.hand, p.cards, p.up, situation_words(p.situation),
                          [[a, _num(v)] for a, v in p.options], p.taken, p.foul, p.best, _num(p.loss), p.seen,
                          p.note])
    rounds = []
    by_number = {r.number: r for r in match.rounds}
    for n in sorted(plays):
        play = plays[n]
        rnd = by_number.get(n)
        steps = []
        for k, s in enumerate(play.steps):
            step: dict[str, Any] = {"t": _cap(s.text), "e": [_shown_event(e) for e in s.events]}
            if (n, k) in at:
                step["d"] = at[(n, k)]
            if s.seat:
                step["s"] = s.seat
            steps.append(step)
        seen = sum(rnd.seen_before) if rnd is not None else 0
        tc = true_count(rnd.seen_before, match.shoe_size) if rnd is not None else 0.0
        rounds.append({"n": n, "seen": seen, "tc": round(tc, 2), "seats": list(play.seats),
                       "dealerSeat": play.dealer_seat, "steps": steps})
    seats = [{"seat": s.seat, "name": s.name, "player": s.player, "mine": s.seat in mine} for s in match.seats]
    return {"seats": seats, "rounds": rounds, "decisions": decisions, "letters": LETTERS,
            "names": translated(LETTERS), "words": translated(WORDS), "actions": translated(ACTIONS)}


CSS: Final = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
main{max-width:1200px;margin:0 auto;padding:18px 24px 40px}
h1{font-size:22px;margin:0 0 4px}.meta{color:#5a6472;margin:0 0 10px}.note{color:#5a6472;font-size:13px}
a{color:#1f5fbf}
#controls{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:8px 0}
#controls button{font:inherit;padding:4px 10px;border:1px solid #b9c0ca;border-radius:6px;background:#fff;cursor:pointer}
#controls button:focus{outline:2px solid #2d6cdf}
#where{font-weight:600;margin-left:8px}
#felt{background:#1f6b43;border-radius:14px;padding:14px 16px;color:#fff;margin:8px 0}
.area{display:flex;gap:12px;flex-wrap:wrap;align-items:flex-start}
.seat{background:#ffffff1a;border:2px solid transparent;border-radius:10px;padding:8px 10px;min-width:170px}
.seat.mine{border-color:#ffd54a;background:#ffd54a26}
.seat.out{opacity:.45}.seat.acting{box-shadow:0 0 0 3px #ffffffb0}
.seat h3{margin:0 0 4px;font-size:14px}.seat .you{color:#ffd54a;font-weight:700}
.money{font-size:13px}.hand{margin:6px 0 2px}.hand .label{font-size:12px}
.cards{display:flex;gap:4px;min-height:58px}
.card{width:38px;height:54px;border-radius:5px;background:#fff;color:#1d2430;display:flex;align-items:center;
  justify-content:center;font-weight:700;font-size:18px;box-shadow:0 1px 2px #0006}
.card.red{color:#c0392b}.card.back{background:repeating-linear-gradient(45deg,#2d4f9e,#2d4f9e 4px,#3b62bd 4px,#3b62bd 8px)}
.card.aside{opacity:.5}
.result{font-weight:700}.result.win{color:#9cf29c}.result.lose{color:#ffb3a8}
.foul{color:#ffd0c8;font-weight:700;font-size:13px;word-break:break-word}
#dealer h3{margin:0 0 4px;font-size:14px}
#caption{background:#fff;border:1px solid #d9dde3;border-radius:8px;padding:8px 12px;margin:8px 0;min-height:22px}
#panels{display:flex;gap:14px;flex-wrap:wrap;align-items:flex-start}
#decision{background:#fff;border:1px solid #d9dde3;border-radius:8px;padding:8px 12px;min-width:320px;flex:1}
#decision table{border-collapse:collapse}#decision td,#decision th{padding:3px 10px;border-bottom:1px solid #e6e9ee;
  text-align:left}#decision td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.best td{font-weight:700}tr.taken td{background:#fff4d1}.lost{font-weight:700}.lost.bad{color:#b02a1e}
#steps{background:#fff;border:1px solid #d9dde3;border-radius:8px;padding:8px 12px 8px 34px;margin:0;flex:1;
  min-width:320px;font-size:13px}
#steps li{cursor:pointer}#steps li[aria-current=step]{font-weight:700;background:#eef4ff}
"""

REPLAY_JS: Final = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var rounds = data.rounds, decisions = data.decisions, LETTERS = data.letters, NAMES = data.names;
  var W = data.words, WORD = data.actions;
  var names = {}, mine = {};
  data.seats.forEach(function (s) { names[s.seat] = s.name; mine[s.seat] = s.mine; });
  var root = document.getElementById("replay");
  var pos = {r: 0, s: 0};
  var RANK = {T: "10"};
  function say(key, values) {
    return W[key].replace(/\{(\w+)\}/g, function (m, k) { return values && k in values ? String(values[k]) : m; });
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function card(c, back) {
    if (back) { return el("div", "card back", ""); }
    return el("div", "card", RANK[c] || c);
  }
  function fresh(round) {
    var st = {dealer: [], hole: null, holeUp: false, seats: {}};
    round.seats.forEach(function (s) {
      st.seats[s] = {hands: [{cards: [], bet: 0, acts: "", result: ""}], money: null, ins: 0, foul: "",
                     fault: "", aside: [], net: null};
    });
    return st;
  }
  function apply(st, e) {
    var s = st.seats[e[1]];
    switch (e[0]) {
      case "bet": s.hands[0].bet = e[2]; s.money = e[3]; break;
      case "card": s.hands[e[2]].cards.push(e[3]); break;
      case "up": st.dealer.push(e[1]); break;
      case "hole": st.hole = "?"; break;
      case "reveal": st.hole = e[1]; st.holeUp = true; break;
      case "dcard": st.dealer.push(e[1]); break;
      case "act": s.hands[e[2]].acts += e[3]; break;
      case "stake": s.hands[e[2]].bet = e[3]; s.money = e[4]; break;
      case "ins": s.ins = e[2]; s.money = e[3]; break;
      case "change": s.aside.push(s.hands[0].cards.pop()); s.hands[0].bet = e[3]; s.money = e[4]; break;
      case "split":
        var h = s.hands[e[2]];
        var right = {cards: [h.cards.pop()], bet: e[3], acts: "", result: ""};
        s.hands.splice(e[2] + 1, 0, right);
        s.money = e[4];
        break;
      case "result": s.hands[e[2]].result = e[3]; break;
      case "money": s.money = e[2]; s.net = e[3]; break;
      case "foul": s.foul = e[2]; s.fault = e[3]; break;
    }
  }
  function stateAt(r, k) {
    var round = rounds[r], st = fresh(round);
    for (var i = 0; i <= k; i++) { round.steps[i].e.forEach(function (e) { apply(st, e); }); }
    return st;
  }
  function total(cards) {
    var hard = 0, ace = false;
    cards.forEach(function (c) { hard += c === "A" ? 1 : ("TJQK".indexOf(c) >= 0 ? 10 : Number(c)); if (c === "A") { ace = true; } });
    return ace && hard <= 11 ? hard + 10 : hard;
  }
  function drawTable(st, round, step) {
    var dealer = document.getElementById("dealer-cards");
    dealer.textContent = "";
    var dcards = st.dealer.slice(0, 1);
    dcards.forEach(function (c) { dealer.appendChild(card(c)); });
    if (st.hole !== null) { dealer.appendChild(card(st.hole, !st.holeUp)); }
    st.dealer.slice(1).forEach(function (c) { dealer.appendChild(card(c)); });
    var shown = st.dealer.slice(0, 1).concat(st.holeUp ? [st.hole] : [], st.dealer.slice(1));
    document.getElementById("dealer-total").textContent = st.holeUp ? say("total", {total: total(shown)}) : "";
    var area = document.getElementById("seats");
    area.textContent = "";
    var acting = step.s || 0;
    round.seats.forEach(function (n) {
      var s = st.seats[n];
      var box = el("div", "seat" + (mine[n] ? " mine" : "") + (acting === n ? " acting" : ""));
      box.setAttribute("data-seat", String(n));
      var h3 = el("h3", "", say("seat", {seat: n, name: names[n] || ""}));
      if (mine[n]) { h3.appendChild(document.createTextNode(" ")); h3.appendChild(el("span", "you", say("reviewed"))); }
      box.appendChild(h3);
      var money = say("money", {money: s.money === null ? "?" : s.money}) + (s.ins ? " \u00b7 " + say("insurance", {amount: s.ins}) : "");
      if (s.net !== null) { money += " \u00b7 " + say("net", {net: (s.net > 0 ? "+" : "") + s.net}); }
      box.appendChild(el("div", "money", money));
      s.hands.forEach(function (h, i) {
        var hd = el("div", "hand");
        var label = (s.hands.length > 1 ? say("hand", {n: i + 1}) + " \u00b7 " : "") + say("stake", {bet: h.bet});
        if (h.cards.length) { label += " \u00b7 " + say("total", {total: total(h.cards)}); }
        if (h.acts) { label += " \u00b7 " + h.acts.split("").map(function (a) { return WORD[a] || a; }).join(", "); }
        hd.appendChild(el("div", "label", label));
        var cs = el("div", "cards");
        h.cards.forEach(function (c) { cs.appendChild(card(c)); });
        hd.appendChild(cs);
        if (h.result) { hd.appendChild(el("div", "result " + h.result, W[h.result] || h.result)); }
        box.appendChild(hd);
      });
      if (s.aside.length) { box.appendChild(el("div", "note", say("aside", {cards: s.aside.join(" ")}))); }
      if (s.foul) { box.appendChild(el("div", "foul", s.foul + (s.fault ? ": " + s.fault : ""))); }
      area.appendChild(box);
    });
    if (round.dealerSeat) { area.appendChild(el("div", "note", say("deals", {seat: round.dealerSeat, name: names[round.dealerSeat] || ""}))); }
  }
  function fmt(v) { return v === null ? say("notValued") : (v > 0 ? "+" : "") + v.toFixed(3); }
  function drawDecision(step) {
    var box = document.getElementById("decision");
    box.textContent = "";
    if (!step.d) {
      box.appendChild(el("p", "note", say("noDecision")));
      return;
    }
    step.d.forEach(function (i) {
      var a = decisions[i];
      var d = {seat: a[0], round: a[1], kind: a[2], hand: a[3], cards: a[4], up: a[5], sit: a[6], opts: a[7],
               taken: a[8], foul: a[9], best: a[10], loss: a[11], seen: a[12], note: a[13]};
      var word = function (l) { return NAMES[l] || l; };
      var h = el("h3", "", say(d.kind === "insurance" ? "insuranceOf" : "decisionOf", {name: names[d.seat] || say("seatN", {seat: d.seat}), hand: d.hand ? say("handN", {n: d.hand + 1}) : "", cards: d.cards, up: d.up, situation: d.sit}));
      box.appendChild(h);
      var t = el("table", "options");
      var head = el("tr"); [say("option"), say("evPerBet"), ""].forEach(function (x) { head.appendChild(el("th", "", x)); });
      t.appendChild(head);
      d.opts.forEach(function (o) {
        var tr = el("tr", (o[0] === d.best ? "best" : "") + (o[0] === d.taken ? " taken" : ""));
        tr.setAttribute("data-option", LETTERS[o[0]] || o[0]);
        tr.appendChild(el("td", "", word(o[0])));
        tr.appendChild(el("td", "num", fmt(o[1])));
        var mark = o[0] === d.best ? (o[0] === d.taken ? say("bestTaken") : say("best")) : (o[0] === d.taken ? say("taken") : "");
        tr.appendChild(el("td", "", mark));
        t.appendChild(tr);
      });
      box.appendChild(t);
      var taken = d.foul ? say("foulTaken", {foul: d.foul}) : word(d.taken);
      var lost = el("p", "lost" + (d.loss > 0.001 ? " bad" : ""), say("takenLine", {taken: taken, lost: d.loss === null ? say("notPriced") : d.loss.toFixed(3)}));
      lost.setAttribute("data-loss", d.loss === null ? "" : String(d.loss));
      box.appendChild(lost);
      box.appendChild(el("p", "note", say("seen", {seen: d.seen}) + (d.note ? " " + d.note + "." : "")));
    });
  }
  function drawSteps(round, k) {
    var ol = document.getElementById("steps");
    ol.textContent = "";
    round.steps.forEach(function (s, i) {
      var li = el("li", "", s.t);
      li.setAttribute("data-step", String(i));
      if (i === k) { li.setAttribute("aria-current", "step"); }
      li.addEventListener("click", function () { go(pos.r, i); });
      ol.appendChild(li);
    });
  }
  function render() {
    var round = rounds[pos.r], step = round.steps[pos.s];
    var st = stateAt(pos.r, pos.s);
    drawTable(st, round, step);
    document.getElementById("caption").textContent = step.t;
    document.getElementById("where").textContent = say("where", {round: round.n, index: pos.r + 1, count: rounds.length, step: pos.s, steps: round.steps.length - 1});
    document.getElementById("shoe").textContent = say("shoe", {seen: round.seen, tc: (round.tc > 0 ? "+" : "") + round.tc});
    drawDecision(step);
    drawSteps(round, pos.s);
    root.setAttribute("data-round", String(round.n));
    root.setAttribute("data-step", String(pos.s));
    var sel = document.getElementById("round-select");
    if (sel.value !== String(pos.r)) { sel.value = String(pos.r); }
  }
  function go(r, s, keepHash) {
    if (!rounds.length) { return; }
    r = Math.max(0, Math.min(rounds.length - 1, r));
    s = Math.max(0, Math.min(rounds[r].steps.length - 1, s));
    pos = {r: r, s: s};
    render();
    if (!keepHash && window.history && history.replaceState) {
      try { history.replaceState(null, "", "#round-" + rounds[r].n + (s ? "-step-" + s : "")); } catch (err) { /* a page opened from a file may refuse */ }
    }
  }
  function step(dir) {
    var r = pos.r, s = pos.s + dir;
    if (s < 0) { if (r === 0) { return; } r -= 1; s = rounds[r].steps.length - 1; }
    else if (s >= rounds[r].steps.length) { if (r === rounds.length - 1) { return; } r += 1; s = 0; }
    go(r, s);
  }
  function decision(dir) {
    var r = pos.r, s = pos.s;
    while (true) {
      s += dir;
      if (s < 0) { r -= 1; if (r < 0) { return; } s = rounds[r].steps.length - 1; }
      else if (s >= rounds[r].steps.length) { r += 1; if (r >= rounds.length) { return; } s = 0; }
      if (rounds[r].steps[s].d) { go(r, s); return; }
    }
  }
  function foulStep(round) {
    for (var k = 0; k < round.steps.length; k++) {
      var hit = round.steps[k].e.some(function (e) { return e[0] === "foul" && mine[e[1]]; });
      if (hit) { return k; }
    }
    return 0;
  }
  function fromHash() {
    var m = /^#round-(\d+)(?:-step-(\d+)|-(foul))?$/.exec(window.location.hash);
    if (!m) { return false; }
    for (var i = 0; i < rounds.length; i++) {
      if (rounds[i].n === Number(m[1])) {
        go(i, m[2] ? Number(m[2]) : (m[3] ? foulStep(rounds[i]) : 0), true);
        return true;
      }
    }
    return false;
  }
  var sel = document.getElementById("round-select");
  rounds.forEach(function (r, i) { var o = el("option", "", say("roundN", {round: r.n})); o.value = String(i); sel.appendChild(o); });
  sel.addEventListener("change", function () { go(Number(sel.value), 0); });
  var buttons = {"first-round": function () { go(0, 0); }, "prev-round": function () { go(pos.r - 1, 0); },
                 "prev-step": function () { step(-1); }, "next-step": function () { step(1); },
                 "next-round": function () { go(pos.r + 1, 0); }, "last-round": function () { go(rounds.length - 1, 0); },
                 "prev-decision": function () { decision(-1); }, "next-decision": function () { decision(1); }};
  Object.keys(buttons).forEach(function (id) { document.getElementById(id).addEventListener("click", buttons[id]); });
  document.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey || (ev.target && ev.target.tagName === "SELECT")) { return; }
    var act = {ArrowRight: buttons["next-step"], ArrowLeft: buttons["prev-step"], ArrowDown: buttons["next-round"],
               ArrowUp: buttons["prev-round"], PageDown: buttons["next-round"], PageUp: buttons["prev-round"],
               Home: buttons["first-round"], End: buttons["last-round"], n: buttons["next-decision"],
               p: buttons["prev-decision"]}[ev.key];
    if (act) { ev.preventDefault(); act(); }
  });
  window.addEventListener("hashchange", fromHash);
  if (rounds.length) {
    if (!fromHash()) { go(0, 0, true); }
  } else {
    document.getElementById("caption").textContent = say("empty");
  }
  root.setAttribute("data-ready", "1");
})();
"""


def _csp(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    return (f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; base-uri 'none'; "
            "form-action 'none'")


def _json_block(data: dict[str, Any]) -> str:
    """``data`` as JSON safe inside a ``<script type="application/json">`` element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_replay(match: LoggedMatch, plays: Mapping[int, RoundPlay], priced: Iterable[Priced],
                  highlight: Sequence[int], title: str, note: str = "", back: tuple[str, str] | None = None) -> str:
    """The replay page of ``match``: ``plays`` its rounds replayed, ``priced`` the decisions to annotate,
    ``highlight`` the seats to mark; ``note`` a line under the title, ``back`` a (href, text) link above it."""
    data = replay_data(match, plays, priced, highlight)
    seats = _(", ").join(_("seat {seat} {name}").format(seat=s["seat"], name=s["name"])
                         + (f" ({s['player']})" if s["player"] else "") + (_(" \u2014 reviewed") if s["mine"] else "")
                         for s in data["seats"])
    desc = _("rules {rules}").format(rules=match.rules.name) + " \u00b7 " + ngettext(
        "{n} deck", "{n} decks", match.decks).format(n=match.decks)
    if match.seed is not None:
        desc += " \u00b7 " + _("seed {seed}").format(seed=match.seed)
    if match.game:
        desc += " \u00b7 " + _("game {game}").format(game=match.game)
    n_rounds = len(data["rounds"])
    keys = _("Keys: \u2190 \u2192 step, \u2191 \u2193 round, n / p the next or previous decision of the reviewed seat, "
             "Home / End.")
    head = ""
    if back is not None:
        head = f'<p><a href="{escape(back[0])}">{escape(back[1])}</a></p>\n'
    body = f"""{head}<h1>{escape(title)}</h1>
<p class="meta">{escape(desc)} \u00b7 {escape(ngettext("{n} round", "{n} rounds", n_rounds).format(n=n_rounds))} \u00b7 {escape(seats)}</p>
{f'<p class="note">{escape(note)}</p>' if note else ''}
<div id="replay">
<div id="controls">
<button type="button" id="first-round" title="Home">« {escape(_("first"))}</button>
<button type="button" id="prev-round" title="{escape(_("Up arrow"))}">\u25b2 {escape(_("round"))}</button>
<button type="button" id="prev-step" title="{escape(_("Left arrow"))}">\u25c0 {escape(_("step"))}</button>
<button type="button" id="next-step" title="{escape(_("Right arrow"))}">{escape(_("step"))} \u25b6</button>
<button type="button" id="next-round" title="{escape(_("Down arrow"))}">{escape(_("round"))} \u25bc</button>
<button type="button" id="last-round" title="End">{escape(_("last"))} »</button>
<button type="button" id="prev-decision" title="p">\u2190 {escape(_("decision"))}</button>
<button type="button" id="next-decision" title="n">{escape(_("decision"))} \u2192</button>
<select id="round-select" aria-label="{escape(_("round"))}"></select>
<span id="where"></span>
</div>
<p class="note">{escape(keys)}
{escape(_("EVs are per initial bet of the hand, exact off the cards the seat could have seen since the shuffle."))}</p>
<div id="felt">
<div id="dealer"><h3>{escape(_("Dealer"))} <span id="dealer-total" class="note"></span></h3><div class="cards" id="dealer-cards"></div></div>
<div class="area" id="seats"></div>
</div>
<p id="shoe" class="note"></p>
<div id="caption" role="status" aria-live="polite"></div>
<div id="panels">
<div id="decision"></div>
<ol id="steps" start="0"></ol>
</div>
</div>
<script type="application/json" id="replay-data">{_json_block(data)}</script>"""
    script = REPLAY_JS
    return (f'<!DOCTYPE html>\n<html lang="{html_lang()}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{_csp(script)}">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n{body}\n</main>\n"
            f"<script>{script}</script>\n</body>\n</html>\n")
