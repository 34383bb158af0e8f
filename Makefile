# twentyone: every set-up step a fresh machine needs (Python 3.11, gcc and make are enough).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
CC     ?= gcc
MYCODES ?= c_src/mycodes.c
STAMP  := $(VENV)/.installed

.PHONY: all install demo test test-fast bench c-program typecheck clean twentyone-c

all: install

$(STAMP): setup.py pyproject.toml twentyone/_core_build.py c_src/tw_rng.c c_src/tw_rng.h c_src/twentyone.c c_src/twentyone.h \
          c_src/bridge/tw_core.c c_src/bridge/tw_core.h $(wildcard c_src/analysis/*.c c_src/analysis/*.h) \
          c_src/box/tw_confine.c c_src/box/tw_confine.h c_src/fast/tw_fast.c c_src/fast/tw_fast.h $(wildcard twentyone/i18n/locale/*/LC_MESSAGES/*.po)
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e '.[test,reports,dask]'
	touch $(STAMP)

install: $(STAMP)

demo: install c-program
	$(VENV)/bin/twentyone match --seed 2026 --decks 6 --player basic --player hilo --player stand --player c_src/mycodes.c:4 --player mycodes/mycodes.py:5

# The suite runs in two workers per CPU (pytest-xdist; TEST_WORKERS=0 runs it in one process): many tests wait on a
# child, a pty or a time-out, and a second worker per CPU keeps the CPU busy meanwhile. The files whose tests share
# a class graded once each run on one worker, and the slow tests start first (tests/conftest.py).
TEST_WORKERS ?= $(shell echo $$(( 2 * $$(nproc) )))
PYTEST := $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup

# The package is byte-compiled first: where PYTHONDONTWRITEBYTECODE is set (as on some CI hosts), every command a
# test starts would otherwise compile each module it imports again (0.2-0.3 s a command, hundreds of commands).
BYTECODE := $(PY) -m compileall -q -j 0 twentyone mycodes

test: install c-program
	$(VENV)/bin/lint-imports
	$(BYTECODE)
	$(PYTEST)

test-fast: install
	$(BYTECODE)
	$(PYTEST) -m "not slow"

bench: install c-program
	$(PIP) install --quiet -e '.[bench]'
	$(PY) -m tests.bench

c-program: twentyone-c

# Always rebuilt (a fraction of a second): MYCODES may name a file older than the last build.
# The student's file is compiled twice, each time from a copy in $(CPROG), so that a quoted include finds the
# project's headers, never a twentyone.h or mycodes.h beside the file (one that differs is named in a warning):
# manual.c is the file as it is (the manual game: no arguments); auto.c is the file as `twentyone match`
# compiles it, PERSON switched off by the same code (twentyone/players/c/program.py), its globals renamed
# tw_auto_* so that both link into one program (the automatic runs: --seed ...).
# The student's file sees only C's and POSIX's names, as twentyone match compiles it (STUDENT_C_FLAGS in
# twentyone/players/c/build.py), so globals called index, random, pause or link compile, as on Windows; a file
# that does not compile so (it uses M_PI, MAP_ANONYMOUS ...) is compiled with all of glibc's (GLIBC_C_FLAGS).
# c_src/compat/tw_compat.c is the key reader and the sleep behind the conio.h and windows.h stand-ins.
CPROG  := build/c-program
CPROG_CFLAGS := -O2 -std=gnu99 -Ic_src -Ic_src/compat
CPROG_STUDENT := -D_POSIX_C_SOURCE=200809L -Ulinux -Uunix
CPROG_GLIBC := -D_GNU_SOURCE
# $(call cprog_student,SOURCE,OBJECT): the student's messages are the first attempt's when neither compiles, and
# name the student's file, not its copy.
cprog_said = sed 's|$(1)|$(MYCODES)|g' $(2).err >&2
cprog_student = if $(CC) $(CPROG_CFLAGS) $(CPROG_STUDENT) -c $(1) -o $(2) 2>$(2).err; then $(call cprog_said,$(1),$(2)); \
	elif $(CC) $(CPROG_CFLAGS) $(CPROG_GLIBC) -c $(1) -o $(2) 2>/dev/null; then :; else $(call cprog_said,$(1),$(2)); false; fi
# The venv is order-only: the build step needs it to exist, not to be newer than setup.py.
# The previous program is removed first and the new one linked under another name, then moved: a build that fails
# at any step leaves no twentyone-c, never the previous student's.
twentyone-c: c_src/main.c c_src/twentyone.c c_src/tw_rng.c c_src/tw_person.c c_src/twentyone.h c_src/mycodes.h \
             c_src/tw_person.h c_src/compat/tw_compat.c c_src/compat/conio.h c_src/compat/windows.h c_src/compat/tw_msvc.h $(MYCODES) | $(STAMP)
	@rm -f $@ $(CPROG)/twentyone-c
	@mkdir -p $(CPROG)
	$(PY) -m twentyone.players.c.program '$(MYCODES)' $(CPROG)
	$(call cprog_student,$(CPROG)/manual.c,$(CPROG)/manual.o)
	$(call cprog_student,$(CPROG)/auto.c,$(CPROG)/auto.o)
	nm -g --defined-only $(CPROG)/auto.o | awk 'NF == 3 { print $$3, "tw_auto_" $$3 }' > $(CPROG)/auto.syms
	objcopy --redefine-syms=$(CPROG)/auto.syms $(CPROG)/auto.o
	$(CC) $(CPROG_CFLAGS) $$(cat $(CPROG)/main.flags) c_src/main.c c_src/twentyone.c c_src/tw_rng.c c_src/tw_person.c \
	      c_src/compat/tw_compat.c $(CPROG)/manual.o $(CPROG)/auto.o -o $(CPROG)/twentyone-c
	mv -f $(CPROG)/twentyone-c $@

typecheck: install
	$(PIP) install --quiet mypy
	$(PY) -m mypy

clean:
	rm -rf $(VENV) build *.egg-info twentyone/_core*.so twentyone-c .pytest_cache .hypothesis
