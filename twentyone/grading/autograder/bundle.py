"""The autograder bundles: Gradescope's zip and PrairieLearn's external grader, each from a fresh wheel.

Both carry the same content: a wheel of twentyone built now from this checkout (with its compiled C core, for
the Python that builds it), ``setup.sh`` (system packages with ``apt-get`` only when missing, then the wheel
into a virtual environment), the rubric as ``rubric.toml``, and the script the platform runs for each
submission (``twentyone autograder run``).

- **Gradescope** (``autograder.zip``): ``setup.sh``, ``run_autograder``, the wheel, ``rubric.toml`` and
  ``README.txt`` at the zip's root, as Gradescope's autograder specification lays it out (it unpacks the zip
  into ``/autograder/source``, runs ``setup.sh`` there once and copies ``run_autograder`` to ``/autograder``).
- **PrairieLearn** (a folder): ``Dockerfile`` (from ``python:3.X-slim-bookworm``, a public image) with its
  build context ``image/`` (``setup.sh`` and the wheel, installed under ``/opt/twentyone``);
  ``serverFilesCourse/twentyone/`` (``grade.sh``, the entrypoint, and ``rubric.toml``); ``question/`` (an
  ``info.json`` with its ``externalGradingOptions`` and a ``question.html`` that takes ``mycodes.c``); and
  ``README.txt``.

**The rubric's seed.** Unless the rubric pins one, a secret seed is drawn when the bundle is built and written
into its ``rubric.toml``: every submission is graded on the same shoes (as in a class ``grade``), a
resubmission cannot draw other shoes until one happens to pass, and the seed stays with the instructor (the
bundle is never shown to students).

**Offline.** ``setup.sh`` installs the wheel's dependencies through pip's own configuration (``PIP_INDEX_URL``,
``PIP_FIND_LINKS``, ``pip.conf``, its cache), or, when the bundle was built with ``--wheelhouse DIR``, only
from the wheels copied from ``DIR`` into the bundle's ``wheels/`` (``pip install --no-index``), with no network.

The wheel carries the course's C sources (``c_src/``) at its root, where the installed package looks for them
(``players.c.headers.C_SRC``): a student's C file is compiled against them.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from collections.abc import Callable
from pathlib import Path

from twentyone.errors import TwentyOneError
from twentyone.grading.config import config_from_dict, draw_seed, example_toml, load_config

__all__ = ["project_root", "build_wheel", "rubric_text", "gradescope_bundle", "prairielearn_bundle", "FILES"]

#: The scripts and templates of the bundles.
FILES = Path(__file__).resolve().parent / "files"


def project_root() -> Path:
    """The checkout twentyone runs from (``setup.py`` and ``c_src/`` beside the package): its wheel is built from
    it.  TwentyOneError when twentyone was installed without its sources."""
    import twentyone

    root = Path(twentyone.__file__).resolve().parent.parent
    if not (root / "setup.py").is_file() or not (root / "c_src" / "twentyone.h").is_file():
        raise TwentyOneError(f"the autograder bundles are built from twentyone's source folder (setup.py and c_src/ "
                             f"beside the package), not found at {root}: run this command from a checkout "
                             "installed with 'make install'")
    return root


def build_wheel(work: Path, say: Callable[[str], None]) -> Path:
    """Build twentyone's wheel into ``work`` with this Python (``pip wheel``, the C core compiled), and add the
    course's C sources to it; the wheel's path."""
    root = project_root()
    say(f"building the wheel of twentyone from {root} with Python {sys.version_info[0]}.{sys.version_info[1]} "
        "(a minute or two)")
    # pip builds in the source folder it is given (its build/ and the compiled core): built from a private copy,
    # two bundles made at once (two instructors, or two courses on one checkout) never build over each other,
    # and the checkout is left as it was.
    source = work / "source"
    _copy_sources(root, source)
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(work),
                        str(source)], capture_output=True, text=True)
    wheels = sorted(work.glob("twentyone-*.whl"))
    if r.returncode != 0 or not wheels:
        last = [ln for ln in (r.stderr or r.stdout).splitlines() if ln.strip() and not ln.startswith("WARNING")]
        raise TwentyOneError(f"pip could not build the wheel of twentyone: {last[-1].strip() if last else 'no wheel'}")
    wheel = wheels[-1]
    _add_c_sources(wheel, root / "c_src")
    return wheel


#: What the wheel is built from: the checkout's files a build reads (its tests, virtual environment, caches and
#: earlier builds stay behind).
_SOURCES = ("setup.py", "pyproject.toml", "MANIFEST.in", "README.md", "twentyone", "mycodes", "c_src")


def _copy_sources(root: Path, dest: Path) -> None:
    """Copy what the wheel is built from (``_SOURCES``) from ``root`` to ``dest``, without compiled files."""
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.o", "*.egg-info")
    dest.mkdir(parents=True)
    for name in _SOURCES:
        src = root / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=junk)
        elif src.is_file():
            shutil.copy2(src, dest / name)


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _add_c_sources(wheel: Path, c_src: Path) -> None:
    """Put ``c_src/`` (C and C++ sources and headers) at the wheel's root, each file in its RECORD."""
    files = sorted(p for p in c_src.rglob("*") if p.is_file() and p.suffix in (".c", ".h", ".cpp", ".hpp"))
    tmp = wheel.with_suffix(".tmp")
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        record_name = next(n for n in src.namelist() if n.endswith(".dist-info/RECORD"))
        record = src.read(record_name).decode("utf-8").splitlines()
        for info in src.infolist():
            if info.filename != record_name:
                dst.writestr(info, src.read(info.filename))
        added = []
        for p in files:
            name = "c_src/" + p.relative_to(c_src).as_posix()
            data = p.read_bytes()
            dst.writestr(name, data)
            added.append(_record_line(name, data))
        kept = [ln for ln in record if ln and not ln.startswith(record_name + ",")]
        dst.writestr(record_name, "\n".join(kept + added + [f"{record_name},,"]) + "\n")
    os.replace(tmp, wheel)


def _python_version(wheel: Path) -> str:
    """The Python a wheel was built for, ``3.11``, from its tag (``cp311``)."""
    m = re.search(r"-cp3(\d+)-", wheel.name)
    return f"3.{m.group(1)}" if m else f"{sys.version_info[0]}.{sys.version_info[1]}"


def rubric_text(config: Path | None) -> tuple[str, bool]:
    """The bundle's ``rubric.toml``: the given file (checked: one line naming what is wrong), or the course's
    defaults, with a secret seed drawn now when it pins none; (the text, whether the seed was drawn)."""
    if config is not None:
        parsed = load_config(config)
        text = config.read_text(encoding="utf-8")
    else:
        text = example_toml()
        parsed = config_from_dict(tomllib.loads(text), "rubric")
    if parsed.seed is not None:
        return text, False
    head = (f"seed = {draw_seed()}  # drawn when this bundle was built: every submission is graded on the same "
            "shoes; keep it secret\n")
    return head + text, True


def _template(name: str, **values: str) -> str:
    text = (FILES / name).read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    return text


def _wheelhouse(wheelhouse: Path | None) -> list[Path]:
    if wheelhouse is None:
        return []
    wheels = sorted(wheelhouse.glob("*.whl")) if wheelhouse.is_dir() else []
    if not wheels:
        raise TwentyOneError(f"--wheelhouse {wheelhouse}: no wheels (.whl files) in it")
    return wheels


def _readme(kind: str, py: str, drawn: bool) -> str:
    seed = ("The rubric's seed was drawn when the bundle was built (rubric.toml): every submission is graded on "
            "the same shoes. Keep the bundle from students.\n" if drawn else "")
    bonus = ("The class tournament cannot be played one submission at a time: each result says so, with 0 of 0 "
             "points for it. Once every hand-in is in, download them (one folder per submission) and add the bonus "
             "with:\n  twentyone autograder bonus --config rubric.toml --out bonus submissions/*\n"
             "which plays the class tournament by this rubric and writes bonus/bonus.csv (each student's place and "
             "bonus points).\n")
    if kind == "gradescope":
        return ("twentyone's Gradescope autograder (Python " + py + ")\n\n"
                "Upload this zip as the programming assignment's autograder (Configure Autograder, Zip file upload). "
                "Set the assignment's points to the rubric's maximum (100 by default).\n"
                "setup.sh installs a C compiler and Python " + py + " with apt-get if missing, and twentyone into "
                "/autograder/twentyone-venv. run_autograder grades /autograder/submission (mycodes.c, a .py, a folder "
                "or a zip holding one) in twentyone's sandbox and writes /autograder/results/results.json.\n"
                + seed + bonus)
    return ("twentyone's PrairieLearn external grader (Python " + py + ")\n\n"
            "1. Build and publish the image: docker build -t YOURNAME/twentyone-grader . && "
            "docker push YOURNAME/twentyone-grader\n"
            "2. Copy serverFilesCourse/twentyone/ into your course's serverFilesCourse/ (keep grade.sh "
            "executable: chmod +x).\n"
            "3. Copy question/ into your course's questions/ as a new question, and set its info.json's image to "
            "yours (and a new uuid).\n"
            "The grader grades /grade/student (the uploaded mycodes.c) in twentyone's sandbox and writes "
            "/grade/results/results.json.\n" + seed + bonus)


_INFO_JSON = """{
    "uuid": "00000000-0000-4000-8000-000000000021",
    "title": "21点: your mycodes.c, graded by the course rubric",
    "topic": "21点",
    "tags": ["twentyone"],
    "type": "v3",
    "singleVariant": true,
    "gradingMethod": "External",
    "externalGradingOptions": {
        "enabled": true,
        "image": "YOURNAME/twentyone-grader",
        "serverFilesCourse": ["twentyone/"],
        "entrypoint": "/grade/serverFilesCourse/twentyone/grade.sh",
        "timeout": 1200
    }
}
"""
_QUESTION_HTML = """<pl-question-panel>
  <p>Upload your <code>mycodes.c</code> (function set 1 is graded by the course rubric, in a sandbox).</p>
</pl-question-panel>
<pl-file-upload file-names="mycodes.c"></pl-file-upload>
<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
"""


def gradescope_bundle(out: Path, config: Path | None, wheelhouse: Path | None, say: Callable[[str], None],
                      lang: str = "en") -> Path:
    """Write Gradescope's ``autograder.zip`` to ``out`` (replacing a file there); its path.  ``lang``: the language
    of the students' results (``run_autograder`` passes it as ``--lang``)."""
    rubric, drawn = rubric_text(config)
    extra = _wheelhouse(wheelhouse)
    with tempfile.TemporaryDirectory(prefix="twentyone-bundle-") as tmp:
        wheel = build_wheel(Path(tmp), say)
        py = _python_version(wheel)
        part = out.with_name(out.name + ".part")
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as z:
                _add(z, "setup.sh", _template("setup.sh", PY_VERSION=py, WHEEL=wheel.name), executable=True)
                _add(z, "run_autograder", _template("run_autograder", LANG=lang), executable=True)
                z.write(wheel, wheel.name)
                _add(z, "rubric.toml", rubric)
                _add(z, "README.txt", _readme("gradescope", py, drawn))
                for w in extra:
                    z.write(w, f"wheels/{w.name}")
            os.replace(part, out)
        except OSError as e:
            part.unlink(missing_ok=True)
            raise TwentyOneError(f"cannot write {out}: {e.strerror or e}") from None
    return out


def _add(z: zipfile.ZipFile, name: str, text: str, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = ((0o755 if executable else 0o644) | 0o100000) << 16
    z.writestr(info, text.encode("utf-8"))


def prairielearn_bundle(out: Path, config: Path | None, wheelhouse: Path | None,
                        say: Callable[[str], None], lang: str = "en") -> Path:
    """Write PrairieLearn's external grader into the folder ``out`` (new, or empty); its path.  ``lang``: the
    language of the students' results (``grade.sh`` passes it as ``--lang``)."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise TwentyOneError(f"--out {out} already exists and is not an empty folder: choose another")
    rubric, drawn = rubric_text(config)
    extra = _wheelhouse(wheelhouse)
    with tempfile.TemporaryDirectory(prefix="twentyone-bundle-") as tmp:
        wheel = build_wheel(Path(tmp), say)
        py = _python_version(wheel)
        try:
            image = out / "image"
            course = out / "serverFilesCourse" / "twentyone"
            question = out / "question"
            for d in (image, course, question):
                d.mkdir(parents=True, exist_ok=True)
            (out / "Dockerfile").write_text(_template("Dockerfile", PY_VERSION=py), encoding="utf-8")
            _script(image / "setup.sh", _template("setup.sh", PY_VERSION=py, WHEEL=wheel.name))
            shutil.copyfile(wheel, image / wheel.name)
            if extra:
                (image / "wheels").mkdir()
                for w in extra:
                    shutil.copyfile(w, image / "wheels" / w.name)
            _script(course / "grade.sh", _template("grade.sh", LANG=lang))
            (course / "rubric.toml").write_text(rubric, encoding="utf-8")
            (question / "info.json").write_text(_INFO_JSON, encoding="utf-8")
            (question / "question.html").write_text(_QUESTION_HTML, encoding="utf-8")
            (out / "README.txt").write_text(_readme("prairielearn", py, drawn), encoding="utf-8")
        except OSError as e:
            raise TwentyOneError(f"cannot write into {out}: {e.strerror or e}") from None
    return out


def _script(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
