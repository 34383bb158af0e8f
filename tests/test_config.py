"""The grading configuration: course defaults, TOML overrides, and one clear line for bad keys."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from twentyone.grading.config import GradingConfig, config_from_dict, example_toml, load_config
from twentyone.errors import ConfigError


def test_defaults_are_the_course_rubric() -> None:
    """60 legal + 20 beat stand (90%) + 20 beat basic (60%), sandboxed, ties count half."""
    c = GradingConfig()
    assert (c.legal.weight, c.beat_stand.weight, c.beat_basic.weight) == (60, 20, 20)
    assert (c.beat_stand.threshold, c.beat_stand.opponent) == (0.9, "stand")
    assert (c.beat_basic.threshold, c.beat_basic.opponent) == (0.6, "basic")
    assert c.max_score == 100 and not c.isolation.trusted and c.ties == "half"


def test_example_toml_is_the_defaults() -> None:
    """The printed example parses back to the default configuration."""
    assert config_from_dict(tomllib.loads(example_toml())) == GradingConfig()


def test_toml_overrides_some_keys(tmp_path: Path) -> None:
    """A file that sets a few keys keeps the defaults for the rest."""
    f = tmp_path / "g.toml"
    f.write_text('ties = "loss"\n[beat_basic]\nthreshold = 0.55\nmax_matches = 400\n[tournament]\nbonus = [5, 2]\n')
    c = load_config(f)
    assert c.ties == "loss" and c.beat_basic.threshold == 0.55 and c.beat_basic.max_matches == 400
    assert c.beat_basic.opponent == "basic" and c.tournament.bonus == (5.0, 2.0) and c.legal.weight == 60


def test_round_trip_through_dict() -> None:
    """to_dict and config_from_dict are inverse (what the store keeps)."""
    c = config_from_dict({"seed": 9, "beat_stand": {"batch": 50, "min_matches": 100}})
    assert config_from_dict(c.to_dict()) == c


@pytest.mark.parametrize("text, message", [
    ("treshold = 0.9\n", "unknown key 'treshold'"),
    ("[beat_stand]\ntreshold = 0.9\n", "unknown key 'treshold' in [beat_stand]"),
    ("[beat_stand]\nthreshold = 1.5\n", "beat_stand.threshold out of range: 1.5"),
    ("[beat_basic]\nthreshold = 0\n", "beat_basic.threshold out of range: 0.0"),
    ("[beat_basic]\nbatch = 15\n", "beat_basic.batch out of range: 15"),
    ("[beat_basic]\nrule = \"looks\"\nmin_matches = 5000\n", "need batch <= min_matches <= max_matches"),
    ("[beat_basic]\nrule = \"wilson\"\n", "beat_basic.rule out of range: 'wilson' (sequential or looks)"),
    ("[beat_stand]\nzone = 0.1\n", "beat_stand.zone out of range: 0.1"),
    ("[beat_stand]\npass_error = 0.9\n", "beat_stand.pass_error out of range: 0.9"),
    ("[beat_basic]\nmax_matches = 1\n", "beat_basic.max_matches out of range: 1"),
    ("[beat_stand]\nopponent = \"me\"\n", "beat_stand.opponent out of range"),
    ("decks = 9\n", "decks out of range: 9"),
    ("ties = \"maybe\"\n", "ties out of range"),
    ("[legal]\nweight = \"sixty\"\n", "legal.weight must be a number"),
    ("[tournament]\nformat = \"swiss\"\n", "tournament.format out of range"),
    ("legal = 3\n", "[legal] must be a table"),
    ("seed = \n", "not valid TOML"),
])
def test_bad_config_gets_one_clear_line(tmp_path: Path, text: str, message: str) -> None:
    """An unknown key, a wrong type or an out-of-range value names itself and the file."""
    f = tmp_path / "g.toml"
    f.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_config(f)
    assert message in str(e.value) and str(f) in str(e.value) and "\n" not in str(e.value)


def test_unreadable_config(tmp_path: Path) -> None:
    """A missing file is one line, not a traceback."""
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / "nope.toml")
