"""``twentyone doctor`` proves each line it prints, and each layer holds alone (sandbox v3).

Each layer's own probes run in a box where every other layer is turned off (``tw_box_config.off``, the switch only
the doctor and the tests reach): a layer whose code were skipped (Landlock's ``restrict_self``, the ``chroot``,
``close_from``, a limit dropped or a second longer) lets its probes through here, whatever the other layers do.
Then the commands' side: the doctor, and every command that seats unread code, refuse a host where a layer is
missing (``box.FORCE_OFF``, the tests' switch for "this host lacks it").
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import OrdinaryUser

from twentyone.errors import PlayerSpecError
from twentyone.players.sandbox import box as boxmod
from twentyone.players.sandbox import doctor, probes
from twentyone.players.sandbox.box import Layers, landlock_cap

pytestmark = pytest.mark.usefixtures("seccomp")


def _host_layers() -> list[Layers]:
    have = probes.host_layers()
    return [layer for layer in probes.LAYERS(landlock_cap()) if layer & have and layer != Layers.USERNS]


@pytest.mark.parametrize("layer", _host_layers(), ids=lambda layer: layer.name)
def test_each_layer_holds_alone(layer: Layers) -> None:
    """With every other layer off, the layer is observed by its box, the kernel shows it in /proc, and its own
    hostile probes hold."""
    program = probes.probe_program()
    start, seen, outcomes = probes.layer_alone(program, layer, landlock_cap())
    assert start.how == "ready", start
    assert start.layers & layer, f"the box did not observe {layer.name} alone: {start.layers!r}"
    off = probes.ALL_LAYERS & ~probes.LAYERS(landlock_cap())[layer][0]
    assert not start.layers & off & ~Layers.NO_PROCESSES, f"layers set that were turned off: {start.layers!r}"
    assert doctor._kernel_agrees(layer, seen) is None, (layer, seen)
    assert outcomes and all(o.held for o in outcomes), [o for o in outcomes if not o.held]


@pytest.fixture
def force_off(monkeypatch: pytest.MonkeyPatch) -> object:
    """Sets ``box.FORCE_OFF`` for one test, and forgets what the commands learned of this host."""
    from twentyone.players import spec

    def set_off(layers: Layers) -> None:
        monkeypatch.setattr(boxmod, "FORCE_OFF", layers)
        monkeypatch.setattr(spec, "_CONFINABLE", [])

    return set_off


@pytest.mark.parametrize(("layer", "code"), [(Layers.SECCOMP, 2), (Layers.DESCRIPTORS, 2), (Layers.LIMITS, 2),
                                             (Layers.LANDLOCK, 1), (Layers.EMPTY_ROOT, 1)],
                         ids=["seccomp", "descriptors", "limits", "landlock", "root"])
@pytest.mark.slow
def test_the_doctor_fails_a_host_that_lacks_a_layer(layer: Layers, code: int, force_off: object) -> None:
    """A host where a box lacks the filter, its descriptors or its limits: exit 2 (the minimum); a host where it
    lacks Landlock or its empty root (which the host could have): exit 1, the layer named missing."""
    if layer == Layers.LANDLOCK and landlock_cap() == 0:
        pytest.skip("no Landlock here to turn off")
    if layer == Layers.EMPTY_ROOT and os.geteuid() != 0:
        pytest.skip("an ordinary user's empty root needs a user namespace")
    force_off(layer)  # type: ignore[operator]
    lines: list[str] = []
    assert doctor.main(lines.append) == code, "\n".join(lines)
    row = next(line for line in lines if line.strip().startswith(doctor._NAMES[layer]))
    assert " missing " in row or " FAILED " in row, row
    assert lines[-1].startswith("result: "), lines[-1]
    assert "every layer held" not in lines[-1]


def test_a_command_refuses_unread_code_on_a_host_that_lacks_a_layer(force_off: object, tmp_path: Path) -> None:
    """Where the doctor's verdict fails, seating an untrusted file is one line that names what failed (the match
    would have run with less); --trusted, the explicit way round, still seats it."""
    from twentyone.players.spec import make_strategy

    force_off(Layers.LANDLOCK if landlock_cap() else Layers.DESCRIPTORS)  # type: ignore[operator]
    path = tmp_path / "stand.py"
    path.write_text("def bet1(N): return 10\ndef first_action1(t, n): return 's'\n"
                    "def continue_action1(p): return 's'\ndef show1(b, p, pNum, N, pos): pass\n")
    from twentyone.players.sandbox.limits import Limits

    with pytest.raises(PlayerSpecError) as e:
        make_strategy(str(path), sandbox=Limits())
    assert "cannot confine unread code" in str(e.value) and "\n" not in str(e.value)
    assert ("Landlock" in str(e.value)) == bool(landlock_cap()) or "do not hold" in str(e.value)
    make_strategy(str(path), sandbox=None).close()


def test_threads_that_ask_for_the_verdict_at_once_share_one_look(force_off: object,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A proof is seconds of probes: threads that ask while one looks (a grade's proof beside a Python hand-in's
    check) wait for that look instead of starting their own, whatever it finds (here a failing one, never kept)."""
    import threading

    force_off(Layers.SECCOMP)  # type: ignore[operator]
    looks: list[int] = []
    real = doctor.examine

    def examine(warn: object = None) -> doctor.Verdict:
        looks.append(1)
        return real(warn)  # type: ignore[arg-type]

    monkeypatch.setattr(doctor, "examine", examine)
    got: list[doctor.Verdict] = []
    threads = [threading.Thread(target=lambda: got.append(doctor.verdict())) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 3 and not got[0].minimum
    assert got[1] is got[0] and got[2] is got[0]
    assert len(looks) == 1


@pytest.mark.parametrize("command", ["grade", "tournament"])
def test_a_run_builds_beside_the_proof_and_is_refused_whole_where_it_fails(command: str, force_off: object,
                                                                            monkeypatch: pytest.MonkeyPatch,
                                                                            tmp_path: Path) -> None:
    """A grade's or tournament's submissions are prepared (built) while the doctor proves the host, on a thread of
    its own; where the proof fails, the run is one line naming it and leaves no --out behind."""
    import threading

    from twentyone.grading import commands, grader
    from twentyone.grading.config import GradingConfig, Isolation

    force_off(Layers.SECCOMP)  # type: ignore[operator]
    proving: list[bool] = []
    module, name = (grader, "prepare_entries") if command == "grade" else (commands, "tournament_entries")
    real = getattr(module, name)

    def prepare(*args: object, **kwargs: object) -> object:
        proving.append(any(t.name == "sandbox-proof" and t.is_alive() for t in threading.enumerate()))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, prepare)
    src = tmp_path / "mycodes.c"
    src.write_text((Path(__file__).resolve().parent.parent / "c_src" / "mycodes.c").read_text())
    out = tmp_path / "out"
    quiet = commands.Execution(progress=False, warn=lambda m: None)
    with pytest.raises(PlayerSpecError) as e:
        if command == "grade":
            commands.grade([src], GradingConfig(seed=1), out, False, quiet)
        else:
            commands.tournament([str(src), "basic"], 2, 1, "table5", 6, "course", out, False, Isolation(), quiet)
    assert proving == [True]
    assert "cannot confine unread code" in str(e.value) and "\n" not in str(e.value)
    assert not out.exists()


@pytest.mark.parametrize("userns", ["1", "0"], ids=["user-namespace", "no-user-namespace"])
@pytest.mark.slow
def test_the_doctor_holds_for_an_ordinary_user(userns: str, ordinary_user: OrdinaryUser) -> None:
    """Run by an ordinary user, with or without a user namespace: exit 0, every layer the host gives it held alone
    and every probe held (the filter alone holds the minimum where no namespace is allowed)."""
    r = ordinary_user.run(["doctor"], ordinary_user.folder("doctor"), TWENTYONE_USERNS=userns)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "ESCAPED" not in r.stdout and "FAILED" not in r.stdout
    assert ("user namespace                holds" in r.stdout) == (userns == "1"), r.stdout


def test_the_verdict_is_kept_per_host_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    """The verdict is looked for once per configuration (kernel, root, Landlock cap, user namespaces, the sandbox's
    code) and kept; another configuration has a verdict of its own."""
    v = doctor.verdict()
    path = doctor._verdict_file()
    assert path.is_file() and json.loads(path.read_text())["host"] == v.host
    monkeypatch.setenv("TWENTYONE_USERNS", "0" if os.environ.get("TWENTYONE_USERNS", "1") != "0" else "1")
    assert doctor._verdict_file() != path


# -- what the doctor sees from outside ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["kill", "ptrace", "prlimit", "fsetown", "write", "create", "connect"])
def test_a_probe_that_gets_out_is_seen_from_outside(name: str) -> None:
    """With every layer off, a probe aimed outside gets out, and the doctor sees its effect itself (the victim
    ended, stopped, traced or limited; the file changed or made; the port reached), not only the box's word."""
    program = probes.probe_program()
    with probes.targets() as t:
        outcome = probes._run(program, name, t, probes.ALL_LAYERS)
        assert not outcome.held and outcome.how == "GOT OUT (seen from outside)", outcome


@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGTERM", "SIGSTOP", "SIGIO"])
def test_the_victim_is_watched_until_it_has_taken_what_was_sent(signal_name: str) -> None:
    """A signal sent to the victim just before the doctor looks is seen (the victim is not settled while it is
    pending or being acted on); a victim left alone is settled, and nothing is seen."""
    import signal as signals

    with probes.targets() as t:
        kill = probes._PROBES["kill"]
        assert not probes._witnessed(kill, t) and t.victim_settled()
        os.kill(t.victim.pid, getattr(signals, signal_name))
        assert probes._witnessed(kill, t), signal_name


def test_a_probe_with_nothing_outside_to_see_is_not_watched() -> None:
    """read, env, fork ... have no outside effect: the doctor does not wait for one (their answer decides)."""
    with probes.targets() as t:
        for name in ("read", "env", "fork", "mem", "nap"):
            assert probes._PROBES[name].escaped is None and not probes._witnessed(probes._PROBES[name], t)
