"""The limits a sandboxed strategy runs under, and the one range check for every time limit."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass

from twentyone.errors import ConfigError

__all__ = ["Limits", "WorkerConfig", "check_timeout", "MAX_SECONDS"]

#: The longest time limit accepted anywhere (seconds).
MAX_SECONDS = 3600.0


def check_timeout(what: str, seconds: float) -> float:
    """Return ``seconds``, or raise ConfigError naming ``what`` if it is not in (0, 3600]."""
    if not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS):
        raise ConfigError(f"{what} out of range: {seconds:g} (0 .. 3600 seconds)")
    return float(seconds)


@dataclass(frozen=True)
class Limits:
    """The limits a sandboxed strategy runs under; built once (``for_timeouts``) and carried in jobs."""

    decision_timeout: float = 1.0
    match_timeout: float = 60.0
    cpu_seconds: int = 60
    memory_bytes: int = 1 << 30
    output_bytes: int = 1 << 20
    open_files: int = 32
    #: Run the engine and the strategy's child on one CPU: a request then costs one context switch
    #: (about 10 us here) instead of a cross-CPU wake-up (about 50 us on this VM).  Zygotes, spare
    #: children and finished children use the other CPUs.
    pin_cpu: bool = True

    def __post_init__(self) -> None:
        check_timeout("decision_timeout", self.decision_timeout)
        check_timeout("match_timeout", self.match_timeout)

    @classmethod
    def for_timeouts(cls, decision: float, match: float) -> Limits:
        """The limits for a decision and a match time limit: the CPU limit is the match's, plus one second."""
        check_timeout("--decision-timeout", decision)
        check_timeout("--match-timeout", match)
        return cls(decision_timeout=decision, match_timeout=match, cpu_seconds=max(1, int(match) + 1))


@dataclass(frozen=True)
class WorkerConfig:
    """What the engine tells a zygote besides the strategy: the limits and where to run."""

    limits: Limits
    #: The engine's CPU: a child waits for its match there (-1: not pinned).
    cpu: int = -1
    #: The CPUs the zygote itself runs on (empty: anywhere).
    zygote_cpus: tuple[int, ...] = ()

    def to_json(self) -> str:
        """As the command-line argument the zygote reads."""
        return json.dumps({"limits": asdict(self.limits), "cpu": self.cpu, "zygote_cpus": list(self.zygote_cpus)})

    @classmethod
    def from_json(cls, text: str) -> WorkerConfig:
        """Read the command-line argument."""
        d = json.loads(text)
        return cls(Limits(**d["limits"]), int(d["cpu"]), tuple(int(c) for c in d["zygote_cpus"]))
