"""Bad programs: one line naming the file and the line, exit 2, before anything loads (or at the step, at run time:
see test_programs.py for a spec violation)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_interp

from interp.programs import ProgramError, describe, load

CASES = {
    "yaml": ("bad.pdl", "text:\n- 'ok'\n  - model: x\n", 3, "YAML error"),
    "unknown block": ("bad.pdl", "text:\n- 'ok'\n- summarize: everything\n", 3, "unknown block"),
    "unknown key": ("bad.pdl", "- model: m\n  temprature: 0\n", 1, "unknown key 'temprature' in a model block"),
    "unsupported block": ("bad.pdl", "- 'a'\n- function: {x: str}\n  return: hi\n", 2, "'function' blocks are not"),
    "bad spec": ("bad.pdl", "- model: m\n  parser: json\n  spec: {n: integr}\n", 1, "bad spec: unknown type"),
    "bad expression": ("bad.pdl", "- 'a'\n- 'b ${ x + }'\n", 2, "bad expression"),
    "missing include": ("bad.pdl", "- 'a'\n- include: nowhere.pdl\n", 2, "cannot include nowhere.pdl"),
    "missing step": ("bad.core", "A:::process:::Do it.:::next::B\nB:::process:::Then this.:::next::Nowhere\n", 2,
                     "connects to 'Nowhere', which is not a step"),
    "three parts": ("bad.core", "# task\nA:::process:::Do it.:::next::B\nB:::terminal:::Stop.\n", 3,
                    "four parts joined by ':::'"),
    "unknown type": ("bad.core", "A:::loop:::Do it.:::next::A\n", 1, "unknown step type 'loop'"),
    "decision with one target": ("bad.core", "A:::decision:::Ok?:::Yes::B\nB:::terminal:::End.:::\n", 1,
                                 "at least two"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_program_is_one_line_naming_file_and_line_exit_2(case: str, tmp_path: Path, env: dict[str, str]) -> None:
    name, text, line, what = CASES[case]
    program = tmp_path / name
    program.write_text(text)
    result = run_interp(["run", str(program), "-y"], env=env, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"interp: {program}:{line}: "), lines[0]
    assert what in lines[0]
    assert not (tmp_path / "data").exists()  # nothing ran: no session, no journal


def test_missing_step_is_named_by_the_parser_too(tmp_path: Path) -> None:
    program = tmp_path / "p.core"
    program.write_text("Start:::decision:::Ok?:::yes::End::no::Elsewhere\nEnd:::terminal::::::\n")
    with pytest.raises(ProgramError) as caught:
        load(program)
    assert (caught.value.line, "Elsewhere" in caught.value.message) == (1, True)


def test_a_word_after_run_that_is_no_file_stays_a_request(tmp_path: Path, env: dict[str, str]) -> None:
    script = tmp_path / "s.json"
    script.write_text('["It is a request."]')
    result = run_interp(["run", "the", "tests", "--model", f"script:{script}"], env=env, cwd=tmp_path)
    assert result.returncode == 2 and "unrecognized arguments: the tests" in result.stderr
    result = run_interp(["--model", f"script:{script}", "run the tests"], env=env, cwd=tmp_path)
    assert result.returncode == 0 and "It is a request." in result.stdout


def test_dry_run_prints_the_graph_and_runs_nothing(tmp_path: Path, env: dict[str, str]) -> None:
    examples = Path(__file__).resolve().parents[2] / "prompts" / "programs"
    result = run_interp(["run", str(examples / "rounds.core"), "--dry-run"], env=env, cwd=tmp_path)
    assert result.returncode == 0
    assert "Enough  line 6    branch  Is rounds 3 or more?  Yes -> Report, No -> Round" in result.stdout
    assert not (tmp_path / "data").exists()


def test_language_by_content_when_the_extension_says_nothing(tmp_path: Path) -> None:
    core = tmp_path / "steps.txt"
    core.write_text("# a task\nA:::terminal:::Stop.:::\n")
    pdl = tmp_path / "prog.txt"
    pdl.write_text("- 'hello'\n")
    assert (load(core).language, load(pdl).language) == ("core", "pdl")
    assert "A  line 2    end     Stop." in "\n".join(describe(load(core)))
