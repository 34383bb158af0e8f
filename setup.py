"""Build and install twentyone: the 21点 course engine, its strategies and the C bridge."""

import importlib.util
import re
import sys
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py


def _po_module():
    """twentyone/i18n/po.py, loaded by its path: the package cannot be imported before it is built."""
    spec = importlib.util.spec_from_file_location("_twentyone_po", Path("twentyone/i18n/po.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


class BuildWithCatalogues(build_py):
    """build_py that also compiles each gettext catalogue (twentyone/i18n/locale/*/LC_MESSAGES/*.po) into its
    .mo: into the build (a wheel), or beside the .po for an editable install (pip install -e)."""

    def run(self):
        super().run()
        po = _po_module()
        for source in sorted(Path("twentyone/i18n/locale").glob("*/LC_MESSAGES/*.po")):
            root = Path(".") if getattr(self, "editable_mode", False) else Path(self.build_lib)
            target = root / source.with_suffix(".mo")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(po.compile_po(source.read_text(encoding="utf-8")))


# One version: twentyone.__version__, which `twentyone --version` prints.
VERSION = re.search(r'^__version__ = "([^"]+)"', open("twentyone/__init__.py", encoding="utf-8").read(), re.M)[1]

setup(
    name="twentyone",
    version=VERSION,
    description="Tournament and grading engine for the 21 (blackjack) course project",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.11",
    packages=find_packages(include=["twentyone", "twentyone.*", "mycodes", "mycodes.*"]),
    package_data={"twentyone": ["py.typed", "RULES.md", "analysis/data/*.csv", "judge/JUDGE.md", "judge/data/*.cpp",
                                "i18n/locale/*/LC_MESSAGES/*.mo"],
                  "mycodes": ["py.typed"]},
    setup_requires=["cffi>=1.16"],
    cffi_modules=["twentyone/_core_build.py:ffi"],
    # tree-sitter and its C and C++ grammars: the similarity page parses every submission (grading.fingerprints)
    # argcomplete: Tab completion in bash and zsh (twentyone completion bash|zsh)
    install_requires=["cffi>=1.16", "rich>=13", "numpy>=1.24", "tree-sitter>=0.23", "tree-sitter-c>=0.23",
                      "tree-sitter-cpp>=0.23", "argcomplete>=3.1"],
    extras_require={
        "test": ["pytest>=8", "pytest-timeout>=2.2", "pytest-xdist>=3.5", "hypothesis>=6", "import-linter>=2.1"],
        "reports": ["matplotlib>=3.8", "pypinyin>=0.50"],
        "dask": ["dask[distributed]>=2024.1"],
        "bench": ["gymnasium>=1.0"],
    },
    entry_points={"console_scripts": ["twentyone = twentyone.cli:main"]},
    cmdclass={"build_py": BuildWithCatalogues},  # the gettext catalogues, compiled (twentyone/i18n)
    zip_safe=False,
)
