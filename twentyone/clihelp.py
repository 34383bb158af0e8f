"""The command line's shell habits: examples at the end of every command's ``--help``, and Tab completion.

``EXAMPLES`` holds two or three command lines for each command (the tests run each through the parser);
``add_examples`` puts them at the end of the commands' help.  Tab completion in bash and zsh is
argcomplete's: ``twentyone completion bash|zsh`` prints the shell code (``shell_code``), and ``complete``
answers the shell's question when argcomplete's environment variables say it is asking, completing
player SPECs with the built-in names and files.
"""

from __future__ import annotations

import argparse
from typing import Any

from twentyone.errors import TwentyOneError

__all__ = ["EXAMPLES", "add_examples", "complete", "shell_code"]


#: Two or three examples for each command, printed at the end of its --help (tests run them through the parser).
EXAMPLES: dict[str, tuple[str, ...]] = {
    "match": ("twentyone match -p basic -p hilo -p mycodes.c --seed 7",
              "twentyone match -p mycodes.c:1 -p mycodes.c:2 --trusted --log match.jsonl",
              "twentyone match -p li.zip -p champion --rules course-h17 --json"),
    "play": ("twentyone play --lang zh",
             "twentyone play --with basic --with mycodes.c --seed 3",
             "twentyone play --rules french --decks 2"),
    "grade": ("twentyone grade handins/*.zip --out grade-results",
              "twentyone grade handins/* --reference champion --workers 2",
              "twentyone grade --example-config > grading.toml"),
    "tournament": ("twentyone tournament basic hilo champion mycodes.c --matches 50",
                   "twentyone tournament a.c b.c c.c --format table5 --out results"),
    "report": ("twentyone report grade-results",
               "twentyone report tournament-results --quiet"),
    "autograder": ("twentyone autograder gradescope --out autograder.zip --config rubric.toml",
                   "twentyone autograder prairielearn --out pl-grader",
                   "twentyone autograder bonus --config rubric.toml --out bonus submissions/*"),
    "check": ("twentyone check mycodes.c",
              "twentyone check li.zip --config rubric.toml"),
    "similar": ("twentyone similar handins/*.zip --out similarity-results",
                "twentyone similar li.zip wang.zip --json"),
    "rules": ("twentyone rules | less",
              "twentyone rules --presets",
              "twentyone rules --options"),
    "edge": ("twentyone edge",
             "twentyone edge --rules s17-3to2-6d --all",
             "twentyone edge --decks 1 --rule dealer_hits_soft_17=true"),
    "chart": ("twentyone chart --png basic.png",
              "twentyone chart --rules french --compare french-expert",
              "twentyone chart --kind best --csv best.csv"),
    "ev": ("twentyone ev T6 vs 2",
           "twentyone ev 'A7 vs 9' '88 vs A' --rules s17-3to2-6d",
           "twentyone ev T6 vs T --shoe A:20,2:24,3:24,4:24,5:24,6:24,7:24,8:24,9:24,T:90"),
    "review": ("twentyone review match.jsonl",
               "twentyone review match.jsonl --seat 2 --html replay.html",
               "twentyone review bj.jsonl --json"),
    "solo": ("twentyone solo",
             "twentyone solo --player expert --rounds 100 --seed 1 --lang en"),
    "elimination": ("twentyone elimination --level expert",
                    "twentyone elimination --player basic --ai amateur --seed 5 --json"),
    "completion": ("twentyone completion bash >> ~/.bashrc",
                   "twentyone completion zsh >> ~/.zshrc"),
    "doctor": ("twentyone doctor",
               "twentyone doctor > doctor.txt"),
    "bj": ("twentyone bj",
           "twentyone bj --player basic --seed 1 --rounds 20",
           "twentyone bj --player mycodes.c --log bj.jsonl --json"),
    "lianzhong": ("twentyone lianzhong --player human --player basic --lang zh",
                  "twentyone lianzhong -p basic -p hilo -p mycodes.c --rounds 50 --seed 2",
                  "twentyone lianzhong -p human -p champion --timeout 30"),
    "judge": ("twentyone judge solution.cpp --seed 1",
              "twentyone judge solution.cpp --local",
              "twentyone judge subs/*.cpp --out judged"),
    "montecarlo": ("twentyone montecarlo",
                   "twentyone montecarlo --runs 10000 --seed 2026 --png totals.png",
                   "twentyone montecarlo --player basic --lang zh"),
}


class _ExampleFormatter(argparse.HelpFormatter):
    """argparse's formatter, except that lines of text starting with a space (the examples) stay as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(line if line.startswith(" ") else super(_ExampleFormatter, self)._fill_text(line, width, indent)
                         for line in text.splitlines())


def add_examples(sub: argparse._SubParsersAction[Any]) -> None:
    """End each command's --help with its examples (``EXAMPLES``)."""
    for name, parser in sub.choices.items():
        examples = EXAMPLES.get(name)
        if examples:
            parser.epilog = "examples:\n" + "\n".join(f"  {e}" for e in examples)
            parser.formatter_class = _ExampleFormatter


def _spec_completer(prefix: str, **kwargs: Any) -> list[str]:
    """Tab completion of a player SPEC: the built-in names, then files and folders."""
    from argcomplete.completers import FilesCompleter

    names = ["stand", "basic", "hilo", "champion", "amateur", "intermediate", "expert", "optimal", "human",
             "chart:french-expert"]
    return [n for n in names if n.startswith(prefix)] + list(FilesCompleter()(prefix, **kwargs))


def complete(parser: argparse.ArgumentParser) -> None:
    """Answer a shell's Tab (argcomplete sets _ARGCOMPLETE): print the completions and exit."""
    try:
        import argcomplete
    except ImportError:
        return
    for action in _spec_actions(parser):
        action.completer = _spec_completer  # type: ignore[attr-defined]
    argcomplete.autocomplete(parser)


def _spec_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """Every option or argument, in every command, that takes a player SPEC."""
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sp in action.choices.values():
                out += _spec_actions(sp)
        elif action.metavar == "SPEC":
            out.append(action)
    return out


def shell_code(shell: str) -> str:
    """What ``twentyone completion SHELL`` prints: the code that makes the shell ask twentyone for completions."""
    try:
        from argcomplete.shell_integration import shellcode
    except ImportError:
        raise TwentyOneError("completion needs argcomplete: pip install argcomplete") from None
    return shellcode(["twentyone"], shell=shell)
