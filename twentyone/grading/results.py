"""What grading and tournaments produce: plain records that every report is written from.

``grading.scoring`` builds a ``ClassReport`` from the results database alone; ``grading.report``
turns it into HTML pages, PNG charts, CSV and JSON, and Gradescope and PrairieLearn ``results.json``.
Everything here is plain data (``to_dict`` gives JSON-ready dicts).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from twentyone.i18n import N_, _
from twentyone.storedtext import fault_name

__all__ = ["Incident", "Status", "Criterion", "BankrollSample", "StudentScore", "StandingRow", "ClassReport",
           "CostlyDecision", "ReplayPage", "StudentReview", "cause_words", "replay_words", "match_title",
           "MATCH_WHAT"]


class Status(StrEnum):
    """Where a rubric line stands for one student."""

    PASS = "pass"
    FAIL = "fail"
    #: The interval still holds the threshold at the maximum number of matches.
    BORDERLINE = "borderline"
    #: The matches stopped before the criterion was decided (an interrupted run).
    INCOMPLETE = "incomplete"
    #: Nothing was played, e.g. the submission did not compile.
    NOT_PLAYED = "not played"
    #: A bonus line (the tournament).
    BONUS = "bonus"


def cause_words(cause: str) -> str:
    """An incident's cause (a foul or fault name as stored, ``crash``, maybe with ``(confirmed on replay)``) in the
    active language: the name itself in English."""
    kind, space, rest = cause.partition(" ")
    if cause == "more fouls (not all kept)":
        return _("more fouls (not all kept)")
    said = replay_words(rest)
    return fault_name(kind) + ("" if said.startswith("\uff08") else space) + said  # no space before "（"


#: What a match was, by its purpose: a bankroll sample's and a replay's title begin with it.
MATCH_WHAT = {"beat_stand": N_("vs stand"), "beat_basic": N_("vs basic"), "legal": N_("5-seat legal play"),
              "tournament": N_("tournament")}


def match_title(purpose: str, idx: int, seat: int | str) -> str:
    """A match as a bankroll sample and a replay page title it, in the active language: "vs stand, match 6,
    seat 1" (never its seed: RULES.md, **secret_seed**)."""
    what = _(MATCH_WHAT[purpose]) if purpose in MATCH_WHAT else purpose
    return _("{what}, match {n}, seat {seat}").format(what=what, n=idx, seat=seat)


def replay_words(rest: str) -> str:
    """What a replay said of a time-out, after its cause (``(confirmed on replay)`` ...), in the active language."""
    if rest == "(confirmed on replay)":
        return _("(confirmed on replay)")
    if rest == "(charged without a replay: a replay alone had confirmed an earlier time-out of this player)":
        return _("(charged without a replay: a replay alone had confirmed an earlier time-out of this player)")
    return rest


@dataclass
class Incident:
    """A foul, a fault (crash, time-out, forbidden call ...) or a setup error in one match."""

    match_key: str
    #: The round it happened in (0: before the first round, e.g. a player that could not be built).
    round: int
    #: The cause as the round log names it (``illegal_double``, ``timeout``, ``crash: SIGSEGV`` ...).
    cause: str
    #: The round-log excerpt: the round record as one JSON line, or the error's text.
    excerpt: str
    #: What the course's own program would have done in its place (``scoring.COURSE_PROGRAM``).
    course: str = ""
    #: False when the configuration does not count this kind against the legal-play points.
    counted: bool = True
    #: The student's seat in the match (0: not known); a one-seat duplicate's record shows it at seat 1.
    seat: int = 0
    #: For a foul that is not a fault: the function asked (``first_action``, ``continue_action``) and its answer.
    asked: str = ""
    answer: str = ""


@dataclass
class Criterion:
    """One line of the rubric for one student."""

    #: ``legal``, ``beat_stand``, ``beat_basic`` or ``tournament``.
    name: str
    #: Human title, e.g. "Beats the always-stand player in at least 90% of matches".
    title: str
    points: float
    max_points: float
    status: Status
    #: One line that says why, e.g. "912 of 1000 matches won (91.2%, 95% CI 89.3%-92.8%)"; for a win-rate criterion
    #: one short sentence a student understands (``Verdict.summary``).
    detail: str
    #: A win-rate criterion: why, with the statistics (the counts, the interval, the rule that decided and the
    #: error it allows: ``Verdict.why``); '' for the other lines.
    why: str = ""
    #: Win-rate criteria: wins (a tie counts as the configuration says), ties, losses, matches played.
    wins: float = 0.0
    ties: int = 0
    losses: int = 0
    matches: int = 0
    rate: float | None = None
    low: float | None = None
    high: float | None = None
    threshold: float | None = None
    #: (matches, rate, low, high) after each batch: how the interval narrowed (for the chart).
    running: list[tuple[int, float, float, float]] = field(default_factory=list)
    #: Mean final money of the student and of the opponent over these matches.
    mean_account: float | None = None
    opponent_mean_account: float | None = None
    #: The confidence level of ``low`` .. ``high`` (the criterion's ``confidence`` in the configuration).
    confidence: float = 0.95


@dataclass
class BankrollSample:
    """The money of every seat after each round of one sample match (for a bankroll chart)."""

    match_key: str
    title: str
    #: Seat names in seat order, e.g. ["alice", "basic"].
    names: list[str]
    #: curves[i][r] = money of seat i+1 after round r+1.
    curves: list[list[int]]


@dataclass
class StudentScore:
    """A student's rubric result."""

    name: str
    source: str
    #: ``c`` or ``py`` (empty when the submission could not be used).
    kind: str
    #: Why the submission could not be graded (one line), or None.
    error: str | None
    #: The compiler's messages when a C file did not compile.
    messages: str
    #: Rubric points (0..max_score) plus bonus points.
    score: float
    max_score: float
    bonus: float
    criteria: list[Criterion]
    #: The first incidents (capped); ``incident_count`` is the total.
    incidents: list[Incident]
    incident_count: int
    samples: list[BankrollSample]
    tournament_rank: int | None = None
    tournament_size: int = 0
    #: Warnings of the intake and the build (another copy not graded, PERSON switched off ...), one line each.
    notes: list[str] = field(default_factory=list)
    #: The graded file as shown to people: its path in the zip or folder, or the file's path.
    graded: str = ""
    #: A built-in player graded beside the class for comparison, without points (``reference``).
    reference: bool = False

    @property
    def total(self) -> float:
        """Rubric score plus bonus."""
        return self.score + self.bonus


@dataclass
class CostlyDecision:
    """One of a student's costliest decisions in the reviewed matches (issue 26), linked to its round in a replay."""

    #: The replay page (relative to ``students/``) and the fragment of the decision's step in it.
    replay: str
    anchor: str
    match_key: str
    round: int
    cards: str
    up: str
    situation: str
    #: What the strategy answered, and the best option, in words.
    answer: str
    best: str
    #: EV lost, in initial bets.
    loss: float


@dataclass
class ReplayPage:
    """A replay page of one match for one student, ``students/<path>`` (``grading.replay``)."""

    path: str
    match_key: str
    title: str
    #: The student's seat in the match.
    seat: int
    #: ``match`` (every round) or ``incidents`` (only the rounds with a foul were kept).
    scope: str
    #: Who sat at each seat, in seat order (as the stored match names them).
    names: list[str] = field(default_factory=list)
    #: The kept round log, packed (``grading.keptlog``); left out of scores.json.
    log: str = field(default="", repr=False)


@dataclass
class StudentReview:
    """What a student's strategy did in the matches the grade traces, decision by decision (issue 26): EV lost
    per 100 hands, the costliest decisions, the EV lost by situation and dealer's card, and the replay pages."""

    #: Traced matches reviewed, hands (rounds the student played) and decisions priced in them.
    matches: int
    hands: int
    decisions: int
    #: EV lost in all and per 100 hands, in initial bets.
    ev_lost: float
    per_100: float | None
    costliest: list[CostlyDecision]
    #: (situation, up card, EV lost, decisions) for every cell of the heat map with a decision.
    cells: list[tuple[str, str, float, int]]
    bet_note: str
    replays: list[ReplayPage] = field(default_factory=list)


@dataclass
class StandingRow:
    """One line of a tournament's standings."""

    rank: int
    name: str
    spec: str
    matches: int
    #: Pairwise results: in a 2-seat match one per match; at a table of k seats k-1 per match.
    wins: int
    ties: int
    losses: int
    #: (wins + ties / 2) / (wins + ties + losses), with its Wilson 95% interval.
    rate: float
    low: float
    high: float
    mean_account: float
    fouls: int
    #: Matches in which the player faulted (crash, time-out ...), and the causes seen.
    faults: int
    fault_causes: list[str] = field(default_factory=list)
    error: str | None = None
    #: Warnings of the intake and the build, one line each.
    notes: list[str] = field(default_factory=list)
    #: A ``duplicate`` tournament (``grading.deals``): the EV lost per 100 hands against the best play, the mean over
    #: its deals, with its interval, and the hands priced; None elsewhere.
    ev_lost: float | None = None
    ev_low: float | None = None
    ev_high: float | None = None
    hands: int = 0


@dataclass
class ClassReport:
    """Everything a report shows: a graded class, or a tournament's standings."""

    #: ``grade`` or ``tournament``.
    kind: str
    title: str
    #: ISO date and time the report was made.
    created: str
    #: The grading configuration as a dict (shown on the class page and stored in scores.json).
    config: dict[str, Any]
    students: list[StudentScore] = field(default_factory=list)
    standings: list[StandingRow] = field(default_factory=list)
    #: Matches and rounds in the database.
    matches: int = 0
    rounds: int = 0
    #: A graded class's similarity page in one line ('' when there is none).
    similarity: str = ""
    #: Stored rows left out because they are damaged or belong to no entry, one line each (for the instructor:
    #: the terminal and the class page; ``scores.json`` leaves them out, as it leaves out the seed).
    damaged: list[str] = field(default_factory=list)
    #: Each student's decision review, by name (``grading.decisions``; none for a student with no traced match).
    reviews: dict[str, StudentReview] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """As a JSON-ready dict (student totals included): what ``scores.json`` holds, which students may be
        given, so without the run's seed (RULES.md, **secret_seed**), without ``damaged`` and without the
        replays' kept logs."""
        d = asdict(self)
        for s, sd in zip(self.students, d["students"]):
            sd["total"] = s.total
        del d["damaged"]
        d["config"] = {k: v for k, v in d["config"].items() if k != "seed"}
        for review in d["reviews"].values():
            for page in review["replays"]:
                del page["log"]
        return d
