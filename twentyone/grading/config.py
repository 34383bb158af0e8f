"""The grading configuration: every threshold, weight and budget of the rubric, read from TOML.

The defaults are the course rubric (RULES.md, "Grading"): 60 points for legal play, 20 for beating the
always-stand player in at least 90% of 2-seat matches, 20 for beating the basic-strategy player in at
least 60%, and a bonus by rank in a class tournament.  A TOML file changes any of them; an unknown key
or an out-of-range value is a ``ConfigError`` naming it.  ``example_toml()`` prints the full default file.
"""

from __future__ import annotations

import math
import secrets
import tomllib
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from twentyone.errors import ConfigError, RulesError
from twentyone.rules import get_rules

__all__ = ["seats_of", "DUPLICATE_GROUP", "DECISION_RULES", "TOURNAMENT_FORMATS", "GradingConfig", "LegalPlay",
           "WinRate", "TournamentBonus", "Isolation",
           "Similarity", "load_config", "config_from_dict", "stored_config", "example_toml", "draw_seed", "SEEDS"]

#: Base seeds are drawn from, and must lie in, 0 .. SEEDS-1 (a match's seed adds at most a million to it).
SEEDS = 2**63
BUILTIN_OPPONENTS = ("stand", "basic", "hilo")
#: Built-in players a grade may play as reference lines (no points): ``champion`` is the best known.
REFERENCE_PLAYERS = ("champion", "basic", "hilo", "stand")
#: Every kind of incident a match can record (the round log's ``foul`` values and the faults).
INCIDENT_KINDS = ("illegal_action", "illegal_insurance", "unaffordable_insurance", "unaffordable_double", "error",
                  "crash", "timeout")


#: Players compared on one seed in a duplicate group of a ``table5`` tournament under one-seat rules.
DUPLICATE_GROUP = 5


def seats_of(rules: str) -> int:
    """The seats of a table under the rule set ``rules`` (1 .. 5): every table of a run is sized to them
    (RULES.md, **grade_table_size**)."""
    return get_rules(rules).max_seats


@dataclass(frozen=True)
class LegalPlay:
    """Criterion 1: plays legally in every match it plays."""

    weight: float = 60.0
    #: Extra 5-seat matches next to built-in players, the submission at each seat in turn.
    matches: int = 10
    #: Incidents (fouls, crashes, time-outs) allowed before the criterion fails.
    max_incidents: int = 0
    #: The incident kinds that cost the legal-play points; the others are listed in the report but not
    #: counted.  By default every kind (see ``INCIDENT_KINDS``).
    incidents: tuple[str, ...] = ("illegal_action", "illegal_insurance", "unaffordable_insurance",
                                  "unaffordable_double", "error", "crash", "timeout")


#: The formats of a grade's class tournament (RULES.md, **grade_bonus**).
TOURNAMENT_FORMATS = ("duplicate", "table5", "pairs")
#: The decision rules of a win-rate criterion (RULES.md, **grade_decision**): the sequential test, and the
#: Wilson interval's looks after each batch (the rule before issue 33, kept for runs stored with it).
DECISION_RULES = ("sequential", "looks")


@dataclass(frozen=True)
class WinRate:
    """A "beats X in at least T of 2-seat matches" criterion and its match budget."""

    weight: float = 20.0
    threshold: float = 0.9
    opponent: str = "stand"
    #: How the criterion is decided: ``sequential`` (``grading.sequential``) or ``looks``.
    rule: str = "sequential"
    #: The sequential test's indifference zone, threshold - zone .. threshold + zone: a submission at or below its
    #: low edge reaches a pass with a chance of at most ``pass_error``, one at or above its high edge a fail with a
    #: chance of at most ``fail_error`` (a borderline verdict's points at ``max_matches`` come on top).
    zone: float = 0.02
    pass_error: float = 0.015
    fail_error: float = 0.008
    #: ``looks``: matches per batch (a look after each); even, since each seed is played twice with the seats
    #: swapped.
    batch: int = 100
    #: ``looks``: the first ordinary look.
    min_matches: int = 200
    #: Both rules: a criterion still undecided after this many matches is borderline.
    max_matches: int = 1000
    #: The interval shown beside a win rate (both rules), and the one the ``looks`` rule decides by.
    confidence: float = 0.95
    #: ``looks``: early looks (RULES.md, **grade_early_fail**): after each of these numbers of matches below
    #: ``min_matches`` (a look at or after it is the ordinary look's), the criterion fails when a submission that wins
    #: the threshold's share of its matches would win so few with a chance below ``early_error`` (a
    #: Chernoff-Hoeffding bound).  An early look never passes.
    early_looks: tuple[int, ...] = (20, 50, 100, 150)
    early_error: float = 0.0005


@dataclass(frozen=True)
class TournamentBonus:
    """The class tournament and the bonus points by rank."""

    enabled: bool = True
    #: ``duplicate`` (every player alone on each deal's shoe, every decision priced, ranked by the EV lost:
    #: ``grading.deals``), ``table5`` (tables of up to 5, reseated every match) or ``pairs`` (2-seat round robin),
    #: both by pairwise win rate.
    format: str = "duplicate"
    #: Units per batch: deals (duplicate: a match of every player; table5: every table of a deal played once per
    #: seat rotation) or rounds of every pair (pairs).  Batches are added until the places with a bonus are
    #: separated (or, duplicate, can no longer be).
    matches: int = 5
    #: The budget: units at most.
    max_matches: int = 30
    #: The confidence of the intervals that separate places.
    confidence: float = 0.95
    #: Bonus points for place 1, 2, 3 ...; places past the list get nothing.  Players who cannot be told apart
    #: share the mean bonus of the places they span (duplicate: to the nearest half point).
    bonus: tuple[float, ...] = (10.0, 6.0, 3.0)


@dataclass(frozen=True)
class Isolation:
    """How submissions run: in the sandbox (default) with these limits, or trusted in process."""

    trusted: bool = False
    #: CPU seconds per decision (the box's own CPU time: machine load never counts): RULES.md,
    #: **grade_decision_limit** (the slowest real hand-in's decision takes about 3 ms).
    decision_timeout: float = 0.25
    #: Wall-clock seconds per match.
    match_timeout: float = 60.0
    #: Wall-clock seconds per decision, a backstop against sleeping and blocking (0: 10x decision_timeout).
    decision_wall_timeout: float = 0.0


@dataclass(frozen=True)
class Similarity:
    """The similarity page (README, "twentyone similar"): decision traces, and when a pair is flagged."""

    #: The first matches against ``stand`` that keep a decision trace of the submission (the same seeds and
    #: seats for everyone; about 240 decisions a match); 0 keeps none.
    traces: int = 8
    #: A pair's code is flagged from this code score (the share of fingerprints the two files have in common).
    code_flag: float = 0.5
    #: A pair's play is flagged when the two agree with each other by at least this much more than either
    #: agrees with any reference strategy over the same decisions ...
    behaviour_margin: float = 0.05
    #: ... and the sign test of that excess is significant at this level, divided by the number of pairs.
    behaviour_alpha: float = 0.01


@dataclass(frozen=True)
class GradingConfig:
    """Everything ``twentyone grade`` needs to know besides the submissions."""

    #: Base seed: every submission plays the same seeds, so the same shoes.  None (the default): each run draws a
    #: secret one when it starts (``seeded``), keeps it in its store and shows it to the instructor only
    #: (RULES.md, **secret_seed**); a number pins it.
    seed: int | None = None
    decks: int = 6
    rules: str = "course"
    #: The submission's function set that is graded (bet1.., first_action1.., ...).
    function_set: int = 1
    #: How a tie counts in a win rate: ``half`` a win, or a ``loss``.
    ties: str = "half"
    #: Points for a borderline criterion: ``estimate`` (awarded if the observed rate reaches the
    #: threshold), ``pass`` or ``fail``.
    borderline: str = "estimate"
    legal: LegalPlay = field(default_factory=LegalPlay)
    beat_stand: WinRate = field(default_factory=WinRate)
    beat_basic: WinRate = field(default_factory=lambda: WinRate(threshold=0.6, opponent="basic", zone=0.04,
                                                                pass_error=0.003, fail_error=0.003))
    tournament: TournamentBonus = field(default_factory=TournamentBonus)
    isolation: Isolation = field(default_factory=Isolation)
    similarity: Similarity = field(default_factory=Similarity)
    #: Built-in players graded beside the class as reference lines, without points (the win-rate
    #: criteria only): ``champion`` shows what the best known player reaches.
    reference: tuple[str, ...] = ()

    def seeded(self) -> GradingConfig:
        """This configuration with its base seed: the one it names, or a secret one drawn now (``draw_seed``)."""
        return self if self.seed is not None else replace(self, seed=draw_seed())

    @property
    def base_seed(self) -> int:
        """The base seed of the run's matches; ConfigError if none was drawn yet (see ``seeded``)."""
        if self.seed is None:
            raise ConfigError("the run has no seed yet: GradingConfig.seeded() draws one")
        return self.seed

    @property
    def max_score(self) -> float:
        """Rubric points without the bonus."""
        return self.legal.weight + self.beat_stand.weight + self.beat_basic.weight

    def win_criteria(self) -> dict[str, WinRate]:
        """The win-rate criteria by name, in rubric order."""
        return {"beat_stand": self.beat_stand, "beat_basic": self.beat_basic}

    def to_dict(self) -> dict[str, Any]:
        """As a JSON/TOML-ready dict."""
        d = asdict(self)
        d["tournament"]["bonus"] = list(self.tournament.bonus)
        d["legal"]["incidents"] = list(self.legal.incidents)
        d["reference"] = list(self.reference)
        for name, c in self.win_criteria().items():
            d[name]["early_looks"] = list(c.early_looks)
        return d

    def check(self, where: str = "config") -> GradingConfig:
        """Raise ConfigError naming the first out-of-range value; return self."""
        def bad(key: str, value: Any, allowed: str) -> ConfigError:
            return ConfigError(f"{where}: {key} out of range: {value!r} ({allowed})")

        if self.seed is not None and not 0 <= self.seed < SEEDS:
            raise bad("seed", self.seed, "0 .. 2^63-1")
        try:
            rules = get_rules(self.rules)
        except RulesError as e:
            raise ConfigError(f"{where}: rules: {e}") from None
        if not rules.min_decks <= self.decks <= rules.max_decks:
            raise bad("decks", self.decks, f"{rules.min_decks} .. {rules.max_decks} under the rules {self.rules!r}")
        try:
            rules.check_table(self.decks, 1)
        except RulesError as e:
            raise ConfigError(f"{where}: {e}") from None
        unknown = [r for r in self.reference if r not in REFERENCE_PLAYERS]
        if unknown:
            raise bad("reference", unknown, "built-in players among " + ", ".join(REFERENCE_PLAYERS))
        if not 1 <= self.function_set <= 5:
            raise bad("function_set", self.function_set, "1 .. 5")
        if self.ties not in ("half", "loss"):
            raise bad("ties", self.ties, "half or loss")
        if self.borderline not in ("estimate", "pass", "fail"):
            raise bad("borderline", self.borderline, "estimate, pass or fail")
        lp = self.legal
        if not 0 <= lp.weight <= 1000:
            raise bad("legal.weight", lp.weight, "0 .. 1000")
        if not 0 <= lp.matches <= 10000:
            raise bad("legal.matches", lp.matches, "0 .. 10000")
        if lp.max_incidents < 0:
            raise bad("legal.max_incidents", lp.max_incidents, "0 or more")
        unknown = [k for k in lp.incidents if k not in INCIDENT_KINDS]
        if unknown:
            raise bad("legal.incidents", unknown, "kinds among " + ", ".join(INCIDENT_KINDS))
        for name, c in self.win_criteria().items():
            if not 0 <= c.weight <= 1000:
                raise bad(f"{name}.weight", c.weight, "0 .. 1000")
            if not 0 < c.threshold < 1:
                raise bad(f"{name}.threshold", c.threshold, "a rate strictly between 0 and 1, e.g. 0.9")
            if c.opponent not in BUILTIN_OPPONENTS:
                raise bad(f"{name}.opponent", c.opponent, "one of " + ", ".join(BUILTIN_OPPONENTS))
            if c.batch < 2 or c.batch % 2:
                raise bad(f"{name}.batch", c.batch, "an even number, 2 or more")
            if c.rule == "looks" and not c.batch <= c.min_matches <= c.max_matches <= 1_000_000:
                raise ConfigError(f"{where}: {name}: need batch <= min_matches <= max_matches <= 1000000, "
                                  f"got {c.batch}, {c.min_matches}, {c.max_matches}")
            if not 2 <= c.max_matches <= 1_000_000:
                raise bad(f"{name}.max_matches", c.max_matches, "2 .. 1000000")
            if not 0.5 <= c.confidence < 1:
                raise bad(f"{name}.confidence", c.confidence, "0.5 .. 0.999")
            if c.rule not in DECISION_RULES:
                raise bad(f"{name}.rule", c.rule, " or ".join(DECISION_RULES))
            if not 0 < c.zone < min(c.threshold, 1 - c.threshold):
                raise bad(f"{name}.zone", c.zone, f"above 0 and below {min(c.threshold, 1 - c.threshold):g}, so "
                          "that threshold - zone and threshold + zone are rates")
            for key in ("pass_error", "fail_error"):
                if not 1e-9 <= getattr(c, key) <= 0.5:
                    raise bad(f"{name}.{key}", getattr(c, key), "1e-09 .. 0.5")
            looks = list(c.early_looks)
            if any(e < 2 or e % 2 for e in looks) or looks != sorted(set(looks)):
                raise bad(f"{name}.early_looks", looks, "even numbers of matches, 2 or more, in increasing order")
            if not 1e-9 <= c.early_error <= (1 - c.confidence) / 2:
                raise bad(f"{name}.early_error", c.early_error,
                          f"1e-09 .. {(1 - c.confidence) / 2:g}, the interval's own one-sided error")
        t = self.tournament
        if t.format not in TOURNAMENT_FORMATS:
            raise bad("tournament.format", t.format,
                      ", ".join(TOURNAMENT_FORMATS[:-1]) + " or " + TOURNAMENT_FORMATS[-1])
        if not 1 <= t.matches <= 100000:
            raise bad("tournament.matches", t.matches, "1 .. 100000")
        if not t.matches <= t.max_matches <= 1_000_000:
            raise bad("tournament.max_matches", t.max_matches, f"{t.matches} (tournament.matches) .. 1000000")
        if not 0.5 <= t.confidence < 1:
            raise bad("tournament.confidence", t.confidence, "0.5 .. 0.999")
        if any(not 0 <= b <= 1000 for b in t.bonus):
            raise bad("tournament.bonus", list(t.bonus), "points from 0 to 1000 for rank 1, 2, ...")
        sim = self.similarity
        if not 0 <= sim.traces <= 1000:
            raise bad("similarity.traces", sim.traces, "0 .. 1000 matches")
        if not 0 < sim.code_flag <= 1:
            raise bad("similarity.code_flag", sim.code_flag, "a score above 0, at most 1")
        if not 0 <= sim.behaviour_margin < 1:
            raise bad("similarity.behaviour_margin", sim.behaviour_margin, "0 .. 0.99")
        if not 0 < sim.behaviour_alpha < 1:
            raise bad("similarity.behaviour_alpha", sim.behaviour_alpha, "a level strictly between 0 and 1")
        iso = self.isolation
        for key in ("decision_timeout", "match_timeout", "decision_wall_timeout"):
            v = getattr(iso, key)
            if key == "decision_wall_timeout" and v == 0:
                continue
            if not 0 < v <= 3600:
                raise bad(f"isolation.{key}", v, "0 .. 3600 seconds")
        return self


_SECTIONS: dict[str, type] = {"legal": LegalPlay, "beat_stand": WinRate, "beat_basic": WinRate,
                              "tournament": TournamentBonus, "isolation": Isolation, "similarity": Similarity}


def draw_seed() -> int:
    """A secret base seed, from the operating system's randomness: nobody can predict a run's shoes."""
    return secrets.randbelow(SEEDS)


def _coerce(where: str, key: str, value: Any, default: Any) -> Any:
    """Check ``value`` has the type of ``default`` (ints are accepted for floats; the seed is a whole number)."""
    if key == "seed":  # a whole number, or none (null in a stored configuration): drawn when the run starts
        if value is None:
            return None
        default = 0
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        value = float(value) if ok else value
    elif isinstance(default, tuple) and (not default or isinstance(default[0], str)):
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        value = tuple(value) if ok else value
    elif isinstance(default, tuple) and isinstance(default[0], int):
        ok = isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        value = tuple(value) if ok else value
    elif isinstance(default, tuple):
        ok = isinstance(value, list) and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                             for v in value)
        value = tuple(float(v) for v in value) if ok else value
    else:
        ok = isinstance(value, str)
    if not ok:
        if isinstance(default, tuple):
            kind = ("a list of strings" if not default or isinstance(default[0], str) else
                    "a list of whole numbers" if isinstance(default[0], int) else "a list of numbers")
        else:
            kind = {bool: "true or false", int: "a whole number", float: "a number"}.get(type(default), "a string")
        raise ConfigError(f"{where}: {key} must be {kind}, not {value!r}")
    return value


def config_from_dict(data: dict[str, Any], where: str = "config") -> GradingConfig:
    """Build and check a GradingConfig from a dict shaped like the TOML file."""
    base = GradingConfig()
    top: dict[str, Any] = {}
    known_top = [f.name for f in fields(GradingConfig)]
    for key, value in data.items():
        if key not in known_top:
            raise ConfigError(f"{where}: unknown key {key!r} (known: {', '.join(known_top)})")
        default = getattr(base, key)
        if key in _SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: [{key}] must be a table of keys")
            known = [f.name for f in fields(_SECTIONS[key])]
            section: dict[str, Any] = {}
            for k, v in value.items():
                if k not in known:
                    raise ConfigError(f"{where}: unknown key {k!r} in [{key}] (known: {', '.join(known)})")
                section[k] = _coerce(where, f"{key}.{k}", v, getattr(default, k))
            top[key] = replace(default, **section)
        else:
            top[key] = _coerce(where, key, value, default)
    return replace(base, **top).check(where)


def stored_config(data: dict[str, Any]) -> GradingConfig:
    """The configuration a run stored (``GradingConfig.to_dict``).  A run stored before the sequential test
    (issue 33) has no ``rule`` in its criteria: they were decided by the looks, and are again, so that ``report`` and
    ``--resume`` give the grade the run gave."""
    data = dict(data)
    for name in ("beat_stand", "beat_basic"):
        section = data.get(name)
        if isinstance(section, dict) and "rule" not in section:
            data[name] = {**section, "rule": "looks"}
    return config_from_dict(data, "stored configuration")


def load_config(path: Path | None) -> GradingConfig:
    """The course defaults, changed by the TOML file at ``path`` if given."""
    if path is None:
        return GradingConfig()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read config {str(path)!r}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"cannot read config {str(path)!r}: not UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    return config_from_dict(data, str(path))


def example_toml() -> str:
    """The default configuration as a commented TOML file."""
    c = GradingConfig()
    lines = [
        "# twentyone grading configuration: the course rubric (every key is optional)",
        "# seed = 2026            # pins the base seed (every submission plays the same seeds); without it each run",
        "                         # draws a secret one, kept in results.sqlite and shown to the instructor only",
        f"decks = {c.decks}",
        f'rules = "{c.rules}"         # a preset, then any ",KEY=VALUE" overrides (twentyone rules --presets)',
        f"function_set = {c.function_set}         # the function set graded (bet1, first_action1, ...)",
        f'ties = "{c.ties}"            # a tie counts half a win, or "loss"',
        f'borderline = "{c.borderline}"  # points for a borderline result: "estimate", "pass" or "fail"',
        "reference = [" + ", ".join(f'"{r}"' for r in c.reference) + ']  # built-ins graded beside the class as '
        'reference lines, no points, e.g. ["champion"]',
        "",
        "[legal]                  # no foul, crash or time-out in any match the submission plays",
        f"weight = {c.legal.weight:g}",
        f"matches = {c.legal.matches}             # extra 5-seat matches beside built-in players",
        f"max_incidents = {c.legal.max_incidents}",
        "# the incident kinds that cost these points (the others are listed, not counted)",
        "incidents = [" + ", ".join(f'"{k}"' for k in c.legal.incidents) + "]",
    ]
    for name, w in c.win_criteria().items():
        lines += [
            "",
            f"[{name}]",
            f"weight = {w.weight:g}",
            f"threshold = {w.threshold:g}",
            f'opponent = "{w.opponent}"',
            f'rule = "{w.rule}"   # the sequential test, or "looks" (the Wilson interval after each batch)',
            f"zone = {w.zone:g}           # sequential: the indifference zone, threshold - zone .. threshold + zone",
            f"pass_error = {w.pass_error:g}    # sequential: the chance at most of a pass at threshold - zone",
            f"fail_error = {w.fail_error:g}    # sequential: the chance at most of a fail at threshold + zone",
            f"max_matches = {w.max_matches}    # still undecided here: borderline",
            f"confidence = {w.confidence:g}     # of the interval shown beside the rate (and the looks')",
            f"batch = {w.batch}           # looks: matches per look (each seed twice, seats swapped)",
            f"min_matches = {w.min_matches}     # looks: the first ordinary look",
            "# looks: early looks fail (never pass) when a submission at the threshold would do as badly",
            "# with a chance below early_error (at each look)",
            "early_looks = [" + ", ".join(map(str, w.early_looks)) + "]",
            f"early_error = {w.early_error:g}",
        ]
    t, iso = c.tournament, c.isolation
    lines += [
        "",
        "[tournament]             # class tournament; bonus points by rank",
        f"enabled = {'true' if t.enabled else 'false'}",
        f'format = "{t.format}"    # everyone alone on the same shoes, ranked by EV lost; or "table5", "pairs"',
        f"matches = {t.matches}              # units per batch: deals (duplicate, table5) or pair rounds",
        f"max_matches = {t.max_matches}         # budget: batches are added until the bonus places are settled",
        f"confidence = {t.confidence:g}",
        f"bonus = [{', '.join(f'{b:g}' for b in t.bonus)}]",
        "",
        "[isolation]",
        f"trusted = {'true' if iso.trusted else 'false'}          # true runs submissions in process (never for unread code)",
        f"decision_timeout = {iso.decision_timeout:g}      # CPU seconds per decision (machine load never counts)",
        f"decision_wall_timeout = {iso.decision_wall_timeout:g}  # wall-clock seconds per decision; 0: 10x decision_timeout",
        f"match_timeout = {iso.match_timeout:g}        # wall-clock seconds per match",
        "",
        "[similarity]             # the similarity page: evidence for a person to weigh, never a verdict",
        f"traces = {c.similarity.traces}               # matches against stand that keep a decision trace",
        f"code_flag = {c.similarity.code_flag:g}          # code score from which a pair is flagged",
        f"behaviour_margin = {c.similarity.behaviour_margin:g}  # agreement with each other over the best reference",
        f"behaviour_alpha = {c.similarity.behaviour_alpha:g}   # sign-test level, divided by the number of pairs",
    ]
    return "\n".join(lines) + "\n"
