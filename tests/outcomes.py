"""Hand-made match outcomes for grading tests: only what a test cares about, the rest filled in."""

from __future__ import annotations

from twentyone.grading.outcome import JobInfo, MatchOutcome


def outcome(ranks: list[int], faults: list[str | None] | None = None, accounts: list[int] | None = None,
            fouls: list[int] | None = None, seat: int | None = None, purpose: str = "tournament",
            subject: str = "", idx: int = 0, seed: int = 1, names: list[str] | None = None, key: str = "k",
            rounds: int = 10) -> MatchOutcome:
    """A MatchOutcome with these ranks (and faults, money, fouls); everything else neutral."""
    n = len(ranks)
    info = JobInfo(purpose, subject, idx, seed, tuple(names or [f"p{i + 1}" for i in range(n)]), seat)
    return MatchOutcome(key, info, "rounds", rounds, accounts or [1000] * n, list(ranks), [rounds] * n,
                        fouls or [0] * n, faults or [None] * n, [""] * n)
