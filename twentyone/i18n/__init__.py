"""The language of everything a student reads: Chinese, English, and French where the French game has it.

One gettext catalogue per language is the only place a translation lives: ``locale/zh/LC_MESSAGES/twentyone.po``
and ``locale/fr/LC_MESSAGES/twentyone.po`` beside this file, plain text a translator reads and edits (English is
the messages themselves).  ``setup.py`` compiles each into its ``.mo`` when the package is built, and Python's
own ``gettext`` loads it; a ``.po`` newer than its ``.mo`` (a translator's edit in a checkout) is read as it is.
``python -m twentyone.i18n.extract --update`` adds every new message of the code to each catalogue.

In the code a message is English, with named ``{fields}`` filled after the translation::

    from twentyone.i18n import _, ngettext
    print(_("round {round}: dealer {cards}").format(round=3, cards="T7"))
    print(ngettext("{n} round", "{n} rounds", n).format(n=n))

``N_`` marks a message kept in a table and translated where it is shown (``_(WHY[kind])``); ``pgettext``
tells apart an English word with two meanings (``pgettext("action", "double")``).

Which language: ``--lang`` when a command is given it; else the locale, as gettext reads it (the first of
``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set, ``zh_CN.UTF-8`` is Chinese, ``C`` and ``POSIX``
say nothing); else the command's own (English, but French for the French game's ``solo`` and ``elimination``
and Chinese for the Lianzhong table and the Monte Carlo report).  ``activate`` sets it for the process once the
command line is read; ``using`` sets it for a block (a test, a page written in another language).
"""

from __future__ import annotations

import argparse
import gettext as _gettext
import io
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Final

__all__ = ["LANGUAGES", "DOMAIN", "LOCALE_DIR", "CatalogueError", "from_environment", "choose", "activate",
           "current", "using", "translations", "_", "N_", "ngettext", "pgettext", "html_lang", "add_lang_option",
           "catalogue_path", "LANGUAGE_NAMES", "in_language", "translated", "EN_ZH", "width", "ljust"]

#: The languages a student may read: English (the messages themselves), Chinese, French.
LANGUAGES: Final = ("en", "zh", "fr")
#: How each language names itself (``--lang`` help, the pages' language).
LANGUAGE_NAMES: Final = {"en": "English", "zh": "中文", "fr": "français"}
#: The gettext domain: the catalogues' file name.
DOMAIN: Final = "twentyone"
#: Where the catalogues are: ``LANG/LC_MESSAGES/twentyone.po`` (and ``.mo`` once built).
LOCALE_DIR: Final = Path(__file__).resolve().parent / "locale"
#: The environment variables gettext reads for the language, in its order.
_ENVIRONMENT: Final = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_active = "en"


class CatalogueError(RuntimeError):
    """A language's catalogue is missing from the installation (a package built without its ``.mo``)."""


def _code(name: str) -> str | None:
    """The language of a locale name: ``zh_CN.UTF-8`` -> zh, ``fr`` -> fr, ``en_US`` -> en; None for others."""
    base = name.split(".", 1)[0].split("@", 1)[0].replace("-", "_").split("_", 1)[0].lower()
    return base if base in LANGUAGES else None


def from_environment(env: Mapping[str, str] | None = None) -> str | None:
    """The language the locale asks for, read as gettext reads it: the first of LANGUAGE, LC_ALL, LC_MESSAGES
    and LANG that is set, a list of ``:``-separated names taken in order; None when it names none of ours or
    says nothing (unset, ``C``, ``POSIX``, ``C.UTF-8``)."""
    env = os.environ if env is None else env
    for var in _ENVIRONMENT:
        value = env.get(var, "")
        if not value:
            continue
        for name in value.split(":"):
            if name in ("C", "POSIX") or name.startswith("C."):
                return None
            code = _code(name)
            if code is not None:
                return code
        return None
    return None


def choose(given: str | None, fallback: str = "en", env: Mapping[str, str] | None = None,
           languages: tuple[str, ...] = LANGUAGES) -> str:
    """The language of a command: ``given`` (its ``--lang``) when set, else the locale's when the command speaks
    it (one of ``languages``), else ``fallback``."""
    if given:
        return given
    wanted = from_environment(env)
    return wanted if wanted in languages else fallback


def activate(lang: str) -> None:
    """Make ``lang`` the language of every message from now on (ValueError for a language we do not have)."""
    global _active
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language: {lang!r} ({', '.join(LANGUAGES)})")
    _active = lang


def current() -> str:
    """The active language."""
    return _active


@contextmanager
def using(lang: str) -> Iterator[str]:
    """``lang`` active for the block, the language before restored after it."""
    before = _active
    activate(lang)
    try:
        yield lang
    finally:
        activate(before)


def catalogue_path(lang: str, suffix: str = ".po") -> Path:
    """The catalogue file of ``lang``: ``locale/LANG/LC_MESSAGES/twentyone.po`` (or ``.mo``)."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


@lru_cache(maxsize=None)
def translations(lang: str) -> _gettext.NullTranslations:
    """The loaded catalogue of ``lang`` (English: the messages as they are).  The compiled ``.mo`` is read
    unless its ``.po`` is newer (a translator's edit in a checkout: compiled here, in memory); CatalogueError
    when neither is there."""
    if lang == "en":
        return _gettext.NullTranslations()
    po, mo = catalogue_path(lang), catalogue_path(lang, ".mo")
    if mo.is_file() and not (po.is_file() and po.stat().st_mtime > mo.stat().st_mtime):
        with open(mo, "rb") as f:
            return _gettext.GNUTranslations(f)
    if po.is_file():
        from twentyone.i18n.po import compile_po

        return _gettext.GNUTranslations(io.BytesIO(compile_po(po.read_text(encoding="utf-8"))))
    raise CatalogueError(f"the {lang} catalogue is not installed: {mo} (reinstall twentyone)")


def _(message: str) -> str:
    """``message`` in the active language (itself when the catalogue has no translation)."""
    return message if _active == "en" else translations(_active).gettext(message)


def N_(message: str) -> str:
    """``message`` itself: marks a message stored in a table for the catalogue, translated where it is shown."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for the number ``n`` in the active language (Chinese has one form)."""
    if _active == "en":
        return singular if n == 1 else plural
    return translations(_active).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the active language, in ``context`` (one English word, two meanings)."""
    return message if _active == "en" else translations(_active).pgettext(context, message)


def html_lang(lang: str | None = None) -> str:
    """The ``<html lang>`` of a page in ``lang`` (the active language): ``zh-CN``, ``en``, ``fr``."""
    lang = lang or _active
    return "zh-CN" if lang == "zh" else lang


#: The languages of a command that has no French (everything but play, match and the French game).
EN_ZH: Final = ("en", "zh")


def add_lang_option(parser: argparse.ArgumentParser, fallback: str = "en",
                    languages: tuple[str, ...] = EN_ZH) -> None:
    """``--lang`` on a command whose output a student reads, one of ``languages``: ``args.lang`` is None unless
    given; ``args.lang_fallback`` is the command's own language, for when neither ``--lang`` nor the locale
    says one it speaks (the command line then activates ``choose(args.lang, args.lang_fallback, ...,
    args.lang_choices)``)."""
    parser.add_argument("--lang", choices=languages, default=None,
                        help=f"language of what it prints and writes: {', '.join(languages)} "
                             f"(default: the locale's, LANG=zh_CN.UTF-8 is zh; else {fallback})")
    parser.set_defaults(lang_fallback=fallback, lang_choices=languages)


def in_language(lang: str, message: str) -> str:
    """``message`` in ``lang`` whatever the active language (a person at the table who reads another language
    than the command's output); mark the message with ``N_`` where it is written."""
    return message if lang == "en" else translations(lang).gettext(message)


def translated(table: Mapping[str, str], lang: str | None = None) -> dict[str, str]:
    """A table of messages (each marked ``N_``) in ``lang`` (the active language): each value translated."""
    lang = lang or _active
    return {k: in_language(lang, v) for k, v in table.items()}


def width(text: str) -> int:
    """The columns ``text`` takes on a terminal: a Chinese character (East Asian wide or full-width) takes two."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text)


def ljust(text: str, columns: int) -> str:
    """``text`` padded with spaces to ``columns`` terminal columns (``str.ljust`` counts a Chinese character as one)."""
    return text + " " * max(0, columns - width(text))
