"""Similar submissions: one ranked table of pairs, by code (``fingerprints``) and by play (``behaviour``).

``similarity_of(store)`` reads what a ``grade`` run stored (the graded files' text and the course's templates
in ``sources``, the decision traces kept with the first matches against ``stand``) and needs nothing else,
so ``twentyone report`` remakes the page; ``build`` does the same from values in memory (``twentyone
similar``).  Every pair of submissions of one language family is scored (past a class of 50, only the pairs that
share enough to be flagged, ``candidates``: the others are counted, with the reason, not scored one by one); a pair
is **flagged** on code when
its code score reaches ``similarity.code_flag`` with at least ``CODE_MIN_SHARED`` fingerprints in common,
and on play when ``behaviour.PairPlay.flagged`` says so (the margin over the references, and the sign test
at ``similarity.behaviour_alpha`` divided by the number of pairs compared).

The table is sorted by the strongest evidence: pairs flagged on both first, then on one, then the rest;
within each, by the larger of the two strengths, each measured against its own flag line.  A score is
evidence for a person to weigh, not a verdict.
"""

from __future__ import annotations

import gc
import math
import re
from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import islice
from pathlib import Path
from typing import Any, overload

from twentyone.grading.similarity.behaviour import (PairPlay, Play, Situations, Slot, compare_plays, decision_tokens,
                                                    pairs_met, plays_of)
from twentyone.grading.similarity.candidates import exact, overlap_pairs, play_need
from twentyone.grading.config import Similarity, config_from_dict
from twentyone.grading.similarity.fingerprints import (MAX_COMPARED, CodeScore, Source, code_candidates, code_scores,
                                                       common_prints, family, fingerprint, language_of, read_text,
                                                       template_grams)
from twentyone.grading.outcome import EntryKind
from twentyone.grading.store import EntryRow, SourceRow, Store
from twentyone.grading.similarity.traces import REFERENCE_TITLES, TraceRound
from twentyone.handin import HandInFileError, read_file

__all__ = ["SimilarityReport", "PairRow", "Member", "UnlistedPairs", "build", "similarity_of", "collect_sources", "template_sources",
           "traces_of", "reference_title", "CODE_MIN_SHARED", "MAX_LISTED", "MAX_UNLISTED", "VERDICT", "code_flagged",
           "play_alpha"]

#: A pair is flagged on code only with at least this many fingerprints in common.
CODE_MIN_SHARED = 10
#: Pairs listed (and given a page) besides every flagged one.
MAX_LISTED = 100
#: Pairs not listed whose reason the page and the JSON give, one by one (the counts by reason are always whole).
MAX_UNLISTED = 2000
#: What every page says.
VERDICT = ("A score is evidence for a person to weigh, not a verdict: read the two files and the shared "
           "decisions before concluding anything.")

_ROOT = Path(__file__).resolve().parents[3]
#: The course's templates: the handed-out mycodes.c, and its Python copy.
TEMPLATES = (("course template mycodes.c", _ROOT / "c_src" / "mycodes.c", "c"),
             ("course template mycodes.py", _ROOT / "mycodes" / "mycodes.py", "py"))


@dataclass
class Member:
    """One submission as the similarity page sees it."""

    name: str
    #: The graded file as shown ('' when none was found).
    shown: str
    language: str
    #: Fingerprints of its own (the template's and the class's common ones left out).
    prints: int
    decisions: int
    #: The reference it agrees with most over all its traced decisions, and that share.
    closest: str
    closest_share: float
    notes: list[str] = field(default_factory=list)
    #: Why the submission could not be played ('' when it could): its code is still compared.
    error: str = ""


@dataclass
class PairRow:
    """Two submissions: their code score, their play, and whether each is flagged."""

    a: str
    b: str
    code: CodeScore | None
    play: PairPlay | None
    code_flag: bool
    play_flag: bool
    #: The file name of the pair's page (in ``similarity/``), '' when it has none.
    page: str = ""

    @property
    def code_score(self) -> float:
        """The code score (0 when nothing is shared or the two cannot be compared)."""
        return self.code.score if self.code else 0.0

    @property
    def code_strength(self) -> float:
        """The code score, lowered for pairs with fewer than ``CODE_MIN_SHARED`` fingerprints in common."""
        return self.code.score * min(1.0, self.code.shared / CODE_MIN_SHARED) if self.code else 0.0

    @property
    def play_score(self) -> float:
        """The behaviour score (0 when the two never met in a situation)."""
        return self.play.score if self.play else 0.0

    @property
    def play_strength(self) -> float:
        """The behaviour score's lower 95% bound (paired difference of the two agreements), at least 0."""
        p = self.play
        if p is None or not p.compared:
            return 0.0
        return max(0.0, (p.wins - p.losses - 1.96 * math.sqrt(p.wins + p.losses)) / p.compared)

    def strength(self, settings: Similarity) -> float:
        """The larger of the two strengths, each against its own flag line."""
        return max(self.code_strength / settings.code_flag,
                   self.play_strength / settings.behaviour_margin if settings.behaviour_margin else 0.0)

    @property
    def flags(self) -> int:
        """How many of code and play are flagged."""
        return int(self.code_flag) + int(self.play_flag)


@dataclass
class SimilarityReport:
    """Everything the similarity page shows."""

    title: str
    settings: Similarity
    members: list[Member]
    #: Every pair with something in common, strongest evidence first.
    pairs: list[PairRow]
    #: Pairs of submissions that met in at least one situation (the Bonferroni count).
    compared: int
    sources: dict[str, Source]
    plays: dict[str, Play]
    #: k-gram hashes that never match (the template's and the class's common fingerprints' k-grams).
    ignore: frozenset[int]
    notes: list[str] = field(default_factory=list)
    #: True when every pair was scored; False past ``candidates.EXACT_PAIRS``, where only candidates were.
    exact: bool = True
    #: Each member's traced matches' openings (``behaviour.Play.openings``): two that share one met in play.
    openings: dict[str, frozenset[Any]] = field(default_factory=dict)

    def listed(self) -> list[PairRow]:
        """The pairs shown in the table: every flagged one, then the strongest others up to ``MAX_LISTED``."""
        flagged = [p for p in self.pairs if p.flags]
        rest = [p for p in self.pairs if not p.flags and p.strength(self.settings) > 0][:MAX_LISTED]
        return flagged + rest

    @cached_property
    def _listed_rows(self) -> list[PairRow]:
        """``listed()``, made once the report is complete (for the reasons of the pairs left out)."""
        return self.listed()

    def flagged(self) -> list[PairRow]:
        """The pairs flagged on code or on play."""
        return [p for p in self.pairs if p.flags]

    def unlisted(self) -> UnlistedPairs:
        """Every pair of submissions the table does not list: (a, b, the kind of reason, the reason with its
        numbers), in member order (``why_not_listed``); made as they are read, so reading the first few of a large
        class costs no more than those."""
        return UnlistedPairs(self)

    @cached_property
    def _by_name(self) -> dict[str, Member]:
        return {m.name: m for m in self.members}

    @cached_property
    def _rows(self) -> dict[tuple[str, str], PairRow]:
        out = {}
        for p in self.pairs:
            out[(p.a, p.b)] = out[(p.b, p.a)] = p
        return out

    @cached_property
    def _listed(self) -> set[tuple[str, str]]:
        out: set[tuple[str, str]] = set()
        for p in self._listed_rows:
            out.update(((p.a, p.b), (p.b, p.a)))
        return out

    def _met(self, a: str, b: str) -> bool:
        """True when the two began a traced match in the same situation (they met in play)."""
        return bool(self.openings.get(a, frozenset()) & self.openings.get(b, frozenset()))

    def why_not_listed(self, a: str, b: str, row: PairRow | None) -> tuple[str, str]:
        """Why the pair ``a``, ``b`` (its ``row`` when it has one) is not in the table: (the kind of reason, the
        reason with its numbers and names)."""
        return self._why(self._by_name.get(a), self._by_name.get(b), a, b, row)

    def _why(self, ma: Member | None, mb: Member | None, a: str, b: str, row: PairRow | None) -> tuple[str, str]:
        for m in (ma, mb):
            if m is not None and not m.shown and not m.decisions:
                return ("one has nothing to compare (no source file and no decision trace)",
                        f"{m.name}: nothing to compare (no source file and no decision trace)")
        for m in (ma, mb):
            if m is not None and m.shown and not m.prints and not m.error and not m.decisions:
                return ("one is the template: no fingerprints of its own and no decision traced",
                        f"{m.name} is the template: no fingerprints of its own (its code is the course's or code "
                        "many files share), and no decision traced")
        (code_kind, code), (play_kind, play) = self._code_why(ma, mb, row), self._play_why(a, b, row)
        weaker = (f", and weaker than the {MAX_LISTED} strongest pairs listed"
                  if row is not None and row.strength(self.settings) > 0 else "")
        return f"{code_kind} and {play_kind}{weaker}", f"{code} and {play}{weaker}"

    def _code_why(self, ma: Member | None, mb: Member | None, row: PairRow | None) -> tuple[str, str]:
        if ma is not None and mb is not None and ma.language and mb.language and family(ma.language) != family(mb.language):
            return ("not comparable by code (C or C++ and Python)",) * 2
        for m in (ma, mb):
            if m is not None and m.shown and not m.prints:
                return ("one is the template by code: no fingerprints of its own",
                        f"{m.name} is the template by code: no fingerprints of its own")
        if row is None and not self.exact:
            return ("little or no code in common (not a candidate pair)",
                    "little or no code in common (their fingerprints are too unlike for the pair to be a candidate, "
                    "in a class this large only candidates are scored)")
        c = row.code if row is not None else None
        if c is None or not c.shared:
            return ("no code in common beyond the template and code many files share",) * 2
        if c.shared < CODE_MIN_SHARED:
            return ("too little code in common",
                    f"too little code in common ({c.shared} fingerprints, fewer than {CODE_MIN_SHARED})")
        return ("below the code threshold",
                f"below the code threshold (code score {c.score:.2f} < {self.settings.code_flag:g})")

    def _play_why(self, a: str, b: str, row: PairRow | None) -> tuple[str, str]:
        p = row.play if row is not None else None
        if p is None or not p.compared:
            if row is None and not self.exact and self._met(a, b):
                return ("no evidence by play (not a candidate pair)",
                        "no evidence by play (they share no choice that their closest references do not make, so "
                        "the pair is not a candidate: in a class this large only candidates are scored)")
            return ("never in the same situation in play",) * 2
        return ("no evidence by play",
                f"no evidence by play (behaviour score {100 * p.score:+.1f} points, sign test p = {p.p:.2g}; "
                f"flagged from {100 * self.settings.behaviour_margin:g} points with p <= "
                f"{self.settings.behaviour_alpha:g} / {self.compared})")

    def unlisted_counts(self) -> list[tuple[str, int]]:
        """How many pairs are not listed for each kind of reason, the most common first.

        Counted without listing the pairs: the pairs with no row have a reason that depends only on what kind of
        member each one is (``_sort``), so they are counted by kind; the rows are then counted one by one."""
        kinds: dict[tuple[Any, ...], list[Member]] = defaultdict(list)
        for m in self.members:
            kinds[self._sort(m)].append(m)
        groups = list(kinds.values())
        counts: dict[str, int] = defaultdict(int)
        for x, one in enumerate(groups):
            for y in range(x, len(groups)):
                other = groups[y]
                n = len(one) * (len(one) - 1) // 2 if x == y else len(one) * len(other)
                if n:
                    counts[self._why(one[0], other[0], one[0].name, other[0].name, None)[0]] += n
        for row in self.pairs:
            ma, mb = self._by_name.get(row.a), self._by_name.get(row.b)
            if ma is None or mb is None:
                continue
            counts[self._why(ma, mb, row.a, row.b, None)[0]] -= 1
            if (row.a, row.b) not in self._listed:
                counts[self._why(ma, mb, row.a, row.b, row)[0]] += 1
        return sorted(((k, n) for k, n in counts.items() if n), key=lambda kv: (-kv[1], kv[0]))

    def _sort(self, m: Member) -> tuple[Any, ...]:
        """What a member's reasons depend on, for a pair with no row: which kind of member it is."""
        return (not m.shown and not m.decisions, bool(m.shown and not m.prints and not m.error and not m.decisions),
                family(m.language) if m.language else "", bool(m.shown and not m.prints),
                self.openings.get(m.name, frozenset()))

    def summary(self) -> str:
        """One line for the class page."""
        n = len(self.members)
        f = len(self.flagged())
        return (f"{f} pair{'s' if f != 1 else ''} of {n * (n - 1) // 2} flagged among {n} submissions "
                "(code and play): evidence for a person to weigh, not a verdict")

    def to_dict(self) -> dict[str, Any]:
        """The table and the members as JSON-ready dicts."""
        def pair(p: PairRow) -> dict[str, Any]:
            d: dict[str, Any] = {"a": p.a, "b": p.b, "code_score": round(p.code_score, 4),
                                 "code_flagged": p.code_flag, "behaviour_score": None, "behaviour_flagged": p.play_flag,
                                 "page": f"similarity/{p.page}" if p.page else None}
            if p.code:
                d["code"] = {"shared": p.code.shared, "a": p.code.a, "b": p.code.b}
            if p.play:
                q = p.play
                d["behaviour_score"] = round(q.score, 4)
                d["behaviour"] = {"compared": q.compared, "agreement": round(q.agreement, 4),
                                  "reference": q.reference, "reference_of": [p.a, p.b][q.side],
                                  "reference_agreement": round(q.reference_agreement, 4), "wins": q.wins,
                                  "losses": q.losses, "p": q.p, "unusual": q.unusual,
                                  "unusual_bets": q.unusual_bets}
            return d

        return {"title": self.title, "verdict": VERDICT, "settings": self.settings.__dict__,
                "members": [{"name": m.name, "file": m.shown, "language": m.language, "fingerprints": m.prints,
                             "decisions": m.decisions, "closest": m.closest,
                             "closest_share": round(m.closest_share, 4), "notes": m.notes} for m in self.members],
                "pairs_compared": self.compared, "pairs": [pair(p) for p in self.listed()],
                "not_listed": [{"a": a, "b": b, "why": why} for a, b, _, why in self.unlisted()[:MAX_UNLISTED]],
                "notes": self.notes}


class UnlistedPairs(Sequence[tuple[str, str, str, str]]):
    """``SimilarityReport.unlisted``: every pair not listed, in member order, each made when it is read; its
    length is known without them (every pair of the class, less the listed ones)."""

    def __init__(self, report: SimilarityReport) -> None:
        self._report = report
        n = len(report.members)
        self._len = n * (n - 1) // 2 - len(report._listed_rows)

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[tuple[str, str, str, str]]:
        r = self._report
        names = [m.name for m in r.members]
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                if (a, b) not in r._listed:
                    yield (a, b, *r.why_not_listed(a, b, r._rows.get((a, b))))

    @overload
    def __getitem__(self, k: int) -> tuple[str, str, str, str]: ...

    @overload
    def __getitem__(self, k: slice) -> list[tuple[str, str, str, str]]: ...

    def __getitem__(self, k: int | slice) -> tuple[str, str, str, str] | list[tuple[str, str, str, str]]:
        if isinstance(k, slice):
            start, stop, step = k.indices(self._len)
            if step != 1:
                return list(self)[k]
            return list(islice(self, start, stop))
        i = k + self._len if k < 0 else k
        if not 0 <= i < self._len:
            raise IndexError(k)
        return next(islice(self, i, None))


# ----------------------------------------------------------------------------------------- inputs

def template_sources() -> list[SourceRow]:
    """The course's templates as stored sources (a file that is not there is left out)."""
    out = []
    for name, path, language in TEMPLATES:
        try:
            out.append(SourceRow(name, "template", str(path.relative_to(_ROOT)), language,
                                 read_text(path.read_bytes())))
        except OSError:
            continue
    return out


def collect_sources(entries: Sequence[EntryRow]) -> list[SourceRow]:
    """The text of every entry's strategy file (read now, so the store keeps it), then the templates."""
    out = []
    for e in entries:
        if e.kind == EntryKind.BUILTIN or not e.spec:
            continue
        path = Path(re.sub(r":[1-5]$", "", e.spec))
        language = language_of(path)
        if not language:
            continue
        try:
            text = read_text(read_file(path))
        except HandInFileError:
            continue
        shown = e.source if e.graded in ("", e.source) else f"{e.source}/{e.graded}"
        out.append(SourceRow(e.name, "submission", shown, language, text))
    return out + template_sources()


def traces_of(store: Store, traced: int, dropped: Collection[str] = ()) -> dict[str, dict[Slot, list[TraceRound]]]:
    """The stored decision traces (of the first ``traced`` matches against stand), by submission and by match
    (seed, seat); not those of the matches ``dropped`` (stored past a verdict, by the workers' timing)."""
    out: dict[str, dict[Slot, list[TraceRound]]] = defaultdict(dict)
    for row in store.matches("beat_stand", below=traced):
        if row.key in dropped:
            continue
        o = row.outcome
        if o.trace and o.seat is not None:
            out[row.subject][(row.seed, o.seat)] = list(o.trace)
    return out


# ------------------------------------------------------------------------------------------ build

def similarity_of(store: Store, dropped: Collection[str] = ()) -> SimilarityReport:
    """The similarity page of a grade run, from its store alone; ``dropped``: the stored matches the grade does
    not count (``scoring.class_report``), whose traces are left out."""
    config = config_from_dict(store.meta("config", {}), "stored configuration")
    entries = [e for e in store.entries() if e.kind != EntryKind.BUILTIN]
    sources = store.sources()
    report = build([e.name for e in entries], sources, traces_of(store, config.similarity.traces, dropped), config.similarity,
                   f"Similarity: {store.meta('title', 'twentyone')}", {e.name: e.error for e in entries if e.error})
    if not sources:
        report.notes.append("this run stored no source files (it was made before they were kept): code is not "
                            "compared")
    return report


def build(names: Sequence[str], sources: Sequence[SourceRow], traces: Mapping[str, Mapping[Slot, Sequence[TraceRound]]],
          settings: Similarity, title: str, errors: Mapping[str, str] | None = None) -> SimilarityReport:
    """Score every pair of ``names`` from their sources and traces (``errors``: why a submission could not be
    played), and rank them.

    Python's cyclic garbage collector is paused meanwhile: the tokens and traces of a class are millions of small
    objects that live until the end, and each collection would walk them all again (a class of 300 took half as
    long again per file as a class of 30)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _build(names, sources, traces, settings, title, errors or {})
    finally:
        if paused:
            gc.enable()


def _build(names: Sequence[str], sources: Sequence[SourceRow], traces: Mapping[str, Mapping[Slot, Sequence[TraceRound]]],
           settings: Similarity, title: str, errors: Mapping[str, str]) -> SimilarityReport:
    templates = [(s.text, s.language) for s in sources if s.role == "template"]
    ignore_template = template_grams(templates)
    by_name = {s.name: s for s in sources if s.role == "submission"}
    prints: dict[str, Source] = {}
    done: dict[tuple[str, str], Source] = {}  # identical copies are fingerprinted once
    for n in names:
        s = by_name.get(n)
        if s is not None:
            same = done.get((s.text, s.language))
            prints[n] = replace(same, name=n) if same is not None else fingerprint(n, s.text, s.language,
                                                                                  ignore_template)
            done.setdefault((s.text, s.language), prints[n])
    fingerprinted = list(prints.values())
    usable = [s for s in fingerprinted if not s.error]
    common = common_prints(usable)
    plays = plays_of({n: traces[n] for n in names if n in traces})
    index = {p.name: i for i, p in enumerate(plays)}
    every = exact(len(names))
    met = len(plays) * (len(plays) - 1) // 2 if every else pairs_met(plays)
    if every:
        scores = code_scores(usable)
        comparison = compare_plays(plays)
    else:  # a large class: only the pairs that could be flagged (``candidates``), each scored on code and on play
        at = {s.name: i for i, s in enumerate(usable)}
        candidates = {(usable[i].name, usable[j].name)
                      for i, j in code_candidates(usable, settings.code_flag, CODE_MIN_SHARED)}
        situations = Situations(plays)
        unusual, made = decision_tokens(plays, situations)
        need = play_need(play_alpha(settings, met))
        shared = overlap_pairs(unusual, made, [need] * len(plays))
        candidates |= {(plays[i].name, plays[j].name) for i, j in shared if i < j and (j, i) in shared}
        scores = code_scores(usable, {(min(at[a], at[b]), max(at[a], at[b])) for a, b in candidates
                                      if a in at and b in at})
        comparison = compare_plays(plays, {(min(index[a], index[b]), max(index[a], index[b])) for a, b in candidates
                                           if a in index and b in index}, situations)
    code: dict[tuple[str, str], CodeScore] = {(usable[i].name, usable[j].name): v for (i, j), v in scores.items()}
    by_play = {(plays[i].name, plays[j].name): v for (i, j), v in comparison.pairs.items()}
    compared = len(by_play) if every else met
    alpha = play_alpha(settings, compared)

    order = {n: k for k, n in enumerate(names)}
    keys = set(code) | set(by_play)
    rows = []
    for a, b in {tuple(sorted(k, key=order.__getitem__)) for k in keys}:
        c = code.get((a, b)) or code.get((b, a))
        p = by_play.get((a, b))
        if p is None and (b, a) in by_play:
            p = _swap(by_play[(b, a)])
        code_flag = c is not None and code_flagged(c, settings)
        play_flag = p is not None and p.flagged(settings.behaviour_margin, alpha)
        rows.append(PairRow(a, b, c, p, code_flag, play_flag))
    rows.sort(key=lambda r: (-r.flags, -r.strength(settings), -r.code_score, -r.play_score, order[r.a], order[r.b]))

    members = []
    play_by = {p.name: p for p in plays}
    for n in names:
        fp = prints.get(n)
        notes = []
        if fp is None:
            notes.append("no source file to compare")
        elif fp.error:
            notes.append(f"code not compared: {fp.error}")
        elif fp.cut:
            notes.append(f"code compared on its first {MAX_COMPARED:,} characters only (it is longer)")
        pl = play_by.get(n)
        if n in errors:
            notes.append(f"not played: {errors[n]}")
        elif pl is None:
            notes.append("no decision trace (its traced matches were not played)")
        closest, share = pl.closest() if pl else ("", 0.0)
        row = by_name.get(n)
        members.append(Member(n, row.shown if row else "", row.language if row else "",
                              len(fp.prints - common) if fp and not fp.error else 0, pl.decisions if pl else 0,
                              closest, share, notes, errors.get(n, "")))
    report = SimilarityReport(title, settings, members, rows, compared, prints, play_by, ignore_template | common,
                              exact=every, openings={p.name: p.openings for p in plays})
    _name_pages(report)
    for shown in report.listed():  # the unusual shared choices of the pairs shown
        if shown.play is not None:
            i, j = index[shown.a], index[shown.b]
            found = comparison.detail(min(i, j), max(i, j))
            shown.play.unusual, shown.play.unusual_bets = found.unusual, found.unusual_bets
            shown.play.sample = found.sample if i < j else [(y, x) for x, y in found.sample]
    return report


def code_flagged(c: CodeScore, settings: Similarity) -> bool:
    """A pair is flagged on code from a code score of ``settings.code_flag`` with at least ``CODE_MIN_SHARED``
    fingerprints in common (two small files that share a few lines score high on little evidence)."""
    return c.score >= settings.code_flag and c.shared >= CODE_MIN_SHARED


def play_alpha(settings: Similarity, compared: int) -> float:
    """The sign test's level for one pair: ``behaviour_alpha`` divided by the ``compared`` pairs (Bonferroni), so
    that a class of independent strategies is flagged at all with a chance of at most ``behaviour_alpha``."""
    return settings.behaviour_alpha / max(1, compared)


def _swap(p: PairPlay) -> PairPlay:
    """``p`` with its two sides exchanged."""
    return PairPlay(p.compared, p.agreed, p.reference, 1 - p.side, p.reference_agreed, p.wins, p.losses, p.p)


def _name_pages(report: SimilarityReport) -> None:
    """Give each listed pair a page name: pair-N-A--B.html, made safe for any file system."""
    for k, row in enumerate(report.listed(), 1):
        row.page = f"pair-{k:03d}-{_slug(row.a)}--{_slug(row.b)}.html"


def _slug(name: str) -> str:
    """A name for a file name: letters, digits (any script), '-', '_' and '.'; at most 40 characters."""
    s = re.sub(r"[^\w.\-]+", "_", name).strip("._") or "x"
    return s[:40]


def reference_title(name: str) -> str:
    """How a reference is named on the pages."""
    return REFERENCE_TITLES.get(name, name)
