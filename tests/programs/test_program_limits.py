"""Small hostile programs: a YAML alias bomb, includes that double, a huge power, deep nesting, a device or a FIFO
to read. Each gets one line naming the file and the limit and exit 2, never a hang, a traceback or all the memory.

The interp processes here run with their address space capped and a short timeout, so that a regression fails the
test instead of taking the machine."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import INTERP, write_script

from interp.programs import ProgramError, load
from interp.programs.bounded import MAX_LENGTH, BoundedEnvironment
from interp.programs.limits import MAX_READ_BYTES, deeper_than
from interp.programs.parse import parse_output

MEMORY = 3 << 30  # bytes of address space for each interp (a kernel's child starts under it too)


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def interp(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*INTERP, *args], input="", capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout, preexec_fn=_capped)


def laughs(levels: int) -> str:
    """A program whose defs hold 2**levels items, in `levels` lines."""
    lines = ["defs:", "  a0: &a0 [lol]", *(f"  a{n}: &a{n} [*a{n - 1}, *a{n - 1}]" for n in range(1, levels + 1))]
    return "\n".join(lines) + "\ntext: hi\n"


def doubling_includes(folder: Path, levels: int) -> Path:
    for n in range(levels):
        (folder / f"inc{n}.pdl").write_text(f"- include: inc{n + 1}.pdl\n- include: inc{n + 1}.pdl\n")
    (folder / f"inc{levels}.pdl").write_text("- hi\n")
    return folder / "inc0.pdl"


def one_line(result: subprocess.CompletedProcess[str], fragment: str) -> str:
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == 2, result.stderr[-2000:]
    lines = [line for line in result.stderr.splitlines() if not line.startswith("interp: journal saved")]
    assert len(lines) == 1, result.stderr
    assert fragment in lines[0], lines[0]
    return lines[0]


HOSTILE = {
    "billion laughs": lambda d: (d / "p.pdl", laughs(30), "more than 100,000 YAML nodes"),
    "recursive alias": lambda d: (d / "p.pdl", "text: &a [hi, *a]\n", "an alias refers to a node that contains it"),
    "300 brackets": lambda d: (d / "p.pdl", "[" * 300 + "x" + "]" * 300, "nested too deeply"),
    "3000 brackets": lambda d: (d / "p.pdl", "[" * 3000 + "x" + "]" * 3000, "nested too deeply"),
    "read a device": lambda d: (d / "p.pdl", "- read: /dev/zero\n", "/dev/zero is not a regular file (a device)"),
    "include a device": lambda d: (d / "p.pdl", "- include: /dev/zero\n", "not a regular file (a device)"),
}


@pytest.mark.parametrize("case", HOSTILE)
@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "run"])
def test_hostile_program_is_one_line_and_exit_2(case: str, dry_run: bool, tmp_path: Path,
                                                env: dict[str, str]) -> None:
    path, text, fragment = HOSTILE[case](tmp_path)
    path.write_text(text)
    flags = ["--dry-run"] if dry_run else ["-y", "--model", f"script:{write_script(tmp_path, [])}"]
    line = one_line(interp(["run", str(path), *flags], env, tmp_path), fragment)
    assert line.startswith(f"interp: {path}"), line


def test_includes_that_double_at_each_level_are_refused(tmp_path: Path, env: dict[str, str]) -> None:
    one_line(interp(["run", str(doubling_includes(tmp_path, 25)), "--dry-run"], env, tmp_path), "too many includes")
    wide = tmp_path / "wide.pdl"
    (tmp_path / "leaf.pdl").write_text("- hi\n")
    wide.write_text("- include: leaf.pdl\n" * 201)
    one_line(interp(["run", str(wide), "--dry-run"], env, tmp_path), "at most 200 in all")


def test_a_fifo_to_read_is_refused_without_waiting_for_a_writer(tmp_path: Path, env: dict[str, str]) -> None:
    os.mkfifo(tmp_path / "pipe")
    program = tmp_path / "p.pdl"
    program.write_text("- read: pipe\n")
    one_line(interp(["run", str(program), "--dry-run"], env, tmp_path), "is not a regular file (a FIFO)")


def test_a_huge_power_is_refused_at_run_time_and_not_folded_while_checking(tmp_path: Path,
                                                                          env: dict[str, str]) -> None:
    program = tmp_path / "p.pdl"
    program.write_text("- 'a'\n- '${ 9 ** (9 ** 9) }'\n")
    dry = interp(["run", str(program), "--dry-run"], env, tmp_path, timeout=30)
    assert dry.returncode == 0 and "9 ** (9 ** 9)" in dry.stdout
    script = write_script(tmp_path, [])
    line = one_line(interp(["run", str(program), "-y", "--model", f"script:{script}"], env, tmp_path),
                    "9 ** 387420489 is too large")
    assert line.startswith(f"interp: {program}:2: ")


def test_a_file_read_at_run_time_is_checked_then(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "big.txt").write_bytes(b"x" * (MAX_READ_BYTES + 1))
    program = tmp_path / "p.pdl"
    program.write_text("- read: ${ name }\n")
    script = write_script(tmp_path, [])
    for name, fragment in (("/dev/zero", "not a regular file (a device)"), ("big.txt", "larger than 4 MiB")):
        result = interp(["run", str(program), "-y", "--model", f"script:{script}", "--var", f"name={name}"], env,
                        tmp_path)
        assert one_line(result, fragment).startswith(f"interp: {program}:1: read: cannot read {name}")


def test_deep_or_exploding_parser_input_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="nested too deeply"):
        parse_output("json", "[" * 100_000 + "]" * 100_000)
    bomb = "\n".join(["a0: &a0 [x, x]", *(f"a{n}: &a{n} [*a{n - 1}, *a{n - 1}]" for n in range(1, 30))])
    with pytest.raises(ValueError, match="more than 100,000 YAML nodes"):
        parse_output("yaml", bomb)
    assert deeper_than(parse_output("json", "[" * 150 + "]" * 150))  # parsed; the runner refuses it (below)


def test_parsed_data_nested_past_the_limit_stops_the_program_at_its_line(tmp_path: Path,
                                                                          env: dict[str, str]) -> None:
    program = tmp_path / "p.pdl"
    program.write_text("- 'a'\n- data: '" + "[" * 150 + "]" * 150 + "'\n  parser: json\n")
    script = write_script(tmp_path, [])
    line = one_line(interp(["run", str(program), "-y", "--model", f"script:{script}"], env, tmp_path),
                    "the value is nested more than 100 levels deep")
    assert line.startswith(f"interp: {program}:2: ")


def test_a_program_file_that_is_a_device_or_too_large_is_one_line(tmp_path: Path, env: dict[str, str]) -> None:
    device = tmp_path / "p.pdl"
    device.symlink_to("/dev/zero")
    loads = "from interp.programs import ProgramError, load\ntry:\n    load('p.pdl')\nexcept ProgramError as e:\n" \
        "    print(e)\n"
    result = subprocess.run([sys.executable, "-c", loads], capture_output=True, text=True, env=env, cwd=tmp_path,
                            timeout=60, preexec_fn=_capped)  # in a child: today's /dev/zero would fill this one
    assert result.stdout == "p.pdl: cannot read it: not a regular file (a device)\n", result.stderr[-2000:]
    big = tmp_path / "big.pdl"
    big.write_text("- hi\n" * 300_000)
    with pytest.raises(ProgramError, match="larger than 1 MiB"):
        load(big)


def test_ctrl_c_while_a_program_is_checked_exits_130_in_one_line(monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from interp.programs import command

    def interrupted(_path: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "load", interrupted)
    try:
        code = command.prepare("p.pdl", argparse.Namespace(var=[], dry_run=True), None)
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C while checking a program came out of prepare() (a traceback at the terminal)")
    assert code == 130
    assert capsys.readouterr().err == "interp: p.pdl: interrupted while checking the program\n"


# Expressions: (expression, refused). Refused ones would otherwise take minutes or gigabytes.
EXPRESSIONS = [
    ("9 ** (9 ** 9)", True), ("3 ** 12000", True), ("2 ** 10000", False), ("(-3) ** 3", False), ("2 ** -2", False),
    ("'x' * 10 ** 9", True), ("[0] * 10 ** 9", True), ("'ab' * 3", False), ("10 ** 3000 * 10 ** 3000", True),
    ("'x'|center(10 ** 9)", True), ("'x'|center(9)", False), ("'x'.ljust(999999999)", True),
    ("'%999999999d' % 1", True), ("'%*d' % (999999999, 1)", True), ("'%5d|%-3s' % (4, 'a')", False),
    ("'%(a)999999999s' % {'a': 1}", True), ("7 % 3", False),
    ("'{:>999999999}'.format(1)", True), ("'{:>{}}'.format(1, 999999999)", True), ("'{:,}'.format(1234567)", False),
    ("('x' * 1000000)|replace('x', 'x' * 100)", True), ("'a b'|replace(' ', '_')", False),
    ("('\\n' * 10000)|indent(100000, blank=true)", True), ("'a\\nb'|indent(2, true)", False),
    ("range(100000)|join('x' * 100000)", True), ("range(5)|map('string')|join('-')", False),
    ("('x' * 100000).join(range(100000)|map('string'))", True), ("'-'.join(['a', 'b'])", False),
    ("[1, 2]|tojson(indent=99999999)", True), ("range(10)|slice(999999999)|list", True),
    ("range(10)|slice(3)|list|length", False), ("range(10 ** 9)|length", True),
]


@pytest.mark.parametrize(("expression", "refused"), EXPRESSIONS)
def test_expressions_that_would_grow_without_bound_are_refused(expression: str, refused: bool) -> None:
    env = BoundedEnvironment()
    if refused:
        with pytest.raises(Exception, match="refused|MAX_RANGE|too large"):
            env.compile_expression(expression)()
    else:
        env.compile_expression(expression)()


def test_statements_are_text_as_in_pdl_and_lipsum_is_gone() -> None:
    env = BoundedEnvironment(variable_start_string="${", variable_end_string="}")
    assert env.from_string("{% for x in range(2) %}y{% endfor %} ${ 1 + 1 }").render() == \
        "{% for x in range(2) %}y{% endfor %} 2"
    assert "lipsum" not in env.globals
    assert MAX_LENGTH >= MAX_READ_BYTES  # a file that was read can go through a filter
