"""Code that would write over a file the request reads is not run (the before_run rule writes_over_source,
interp/rules/guards/): the user's data stays on disk."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import records, run_scripted

from interp.common.prompt_files import prompts_dir
from interp.reading.attach import file_words
from interp.rules import Engine, Facts, templates
from interp.rules.guards.writes import empties
from interp.rules.registry import RULES
from interp.running.safekeep import sources

READS = ["expenses.csv"]


@pytest.mark.parametrize("code", [
    "with open('expenses.csv', 'w') as f:\n    f.write('x')",
    "f = open('./expenses.csv', mode='w+')",
    "open('expenses.csv', 'x')",
    "from pathlib import Path\nPath('expenses.csv').write_text('vendor,amount\\n')",
    "from pathlib import Path\nwith Path('expenses.csv').open('w') as f:\n    pass",
    "df.to_csv('expenses.csv', index=False)",
])
def test_python_that_writes_over_a_file_the_request_reads_is_caught(code: str) -> None:
    assert empties("python", code, READS) == "expenses.csv"


@pytest.mark.parametrize("code", [
    "with open('expenses.csv') as f:\n    rows = f.read()",
    "open('expenses.csv', 'r')",
    "open('expenses.csv', 'a').write('more\\n')",  # appends: what is there stays
    "with open('expenses_clean.csv', 'w') as f:\n    f.write('x')",
    "name = 'expenses.csv'\nopen(name, 'w')",  # not given as a literal: not known
    "open('expenses.csv', 'w'",  # does not parse: it cannot run either
])
def test_python_that_leaves_the_file_as_it_is_is_not_caught(code: str) -> None:
    assert empties("python", code, READS) is None


def test_shell_redirections_over_the_file_are_caught_and_appends_are_not() -> None:
    assert empties("shell", "cut -d, -f1 expenses.csv > expenses.csv", READS) == "expenses.csv"
    assert empties("shell", "sort expenses.csv >'./expenses.csv'", READS) == "expenses.csv"
    assert empties("shell", "cat expenses.csv >> expenses.csv", READS) is None
    assert empties("shell", "sort expenses.csv > sorted.csv 2>/dev/null", READS) is None
    assert empties("python", "open('expenses.csv', 'w')", []) is None  # the request reads no file


def test_a_request_reads_its_existing_files_only_when_it_names_one_to_write_and_asks_no_change(
        tmp_path: Path) -> None:
    for name in ("expenses.csv", "sales.csv", "config.json"):
        (tmp_path / name).write_text("x\n")

    def read(text: str) -> list[str]:
        return sources(text, *file_words(text, tmp_path))

    assert read("Write expenses_clean.csv from expenses.csv, amounts as plain numbers.") == ["expenses.csv"]
    assert read("Write the rows of @sales.csv whose region is North to north.csv.") == ["sales.csv"]
    assert read("Make a histogram of the amount column of sales.csv and save it to hist.png.") == ["sales.csv"]
    assert read("In config.json, set debug to true and save the file.") == []  # nothing new named: it is the target
    assert read("Copy config.json to backup.json, then set debug to true in config.json.") == []  # asks a change
    assert read("How many rows has sales.csv? e.g. count them, 2.5 times.") == []  # `e.g`, `2.5`: no file's name


@pytest.mark.parametrize(("language", "code", "reads", "writes", "said"), [
    ("python", "open('expenses.csv', 'w')", ["expenses.csv"], ["clean.csv"],
     "interp did not run this code: open('expenses.csv', 'w') empties expenses.csv before anything can be read from "
     "it, and the request reads its data from expenses.csv. Read the data with open('expenses.csv') and write the "
     "result with open('clean.csv', 'w')."),
    ("shell", "sort expenses.csv > expenses.csv", ["expenses.csv"], ["clean.csv"], "empties expenses.csv"),
    ("python", "open('clean.csv', 'w')", ["expenses.csv"], ["clean.csv"], None),  # the file asked for
    ("python", "open('expenses.csv', 'w')", [], [], None),  # a request that reads no file it must keep
    ("text", "open('expenses.csv', 'w')", ["expenses.csv"], ["clean.csv"], None),  # not code of a language it reads
])
def test_the_rule_fires_before_the_run_only_on_code_that_writes_over_a_file_the_request_reads(
        language: str, code: str, reads: list[str], writes: list[str], said: str | None) -> None:
    fired = Engine(RULES, templates.load(prompts_dir())).run(
        "before_run", Facts(code=code, language=language, reads=reads, writes=writes), first=True)
    assert [f.rule for f in fired] == ([] if said is None else ["writes_over_source"])
    assert said is None or said in fired[0].text


def test_code_that_would_empty_the_file_the_request_reads_is_not_run(tmp_path: Path, env: dict[str, str]) -> None:
    """A scripted model first writes over expenses.csv: it is not run, the model is told why, and its next code
    writes the file the request asked for from the data left in place."""
    data = "vendor,amount\nAcme,$1\nBolt,$35\n"
    (tmp_path / "expenses.csv").write_text(data)
    over = ("```python\nimport csv\nwith open('expenses.csv', 'w') as f:\n    writer = csv.writer(f)\n"
            "    writer.writerow(['vendor', 'amount'])\n```")
    fixed = ("```python\nimport csv\nwith open('expenses.csv') as f:\n    rows = list(csv.DictReader(f))\n"
             "with open('expenses_clean.csv', 'w') as f:\n    f.write('vendor,amount\\n')\n    for r in rows:\n"
             "        f.write(f\"{r['vendor']},{r['amount'].strip('$')}\\n\")\n```")
    result, told = run_scripted(tmp_path, env, [over, fixed, "Wrote expenses_clean.csv."],
                                "Write expenses_clean.csv from expenses.csv, the amounts without $.")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "expenses.csv").read_text() == data
    assert (tmp_path / "expenses_clean.csv").read_text() == "vendor,amount\nAcme,1\nBolt,35\n"
    assert "interp did not run this code: open('expenses.csv', 'w') empties expenses.csv" in told[1]
    assert "Read the data with open('expenses.csv') and write the result with open('expenses_clean.csv', 'w')" \
        in told[1]
    assert "Not running the model's code: it would write over expenses.csv" in result.stderr
    [refused] = records(tmp_path / "j.jsonl", "refused")
    assert refused["file"] == "expenses.csv" and "open('expenses.csv', 'w')" in refused["code"]
    assert refused["rule"] == "writes_over_source"
    assert [r["rule"] for r in records(tmp_path / "j.jsonl", "rule_fired") if r["phase"] == "before_run"] == [
        "writes_over_source"]


def test_a_request_to_change_the_file_itself_runs_the_code_that_writes_it(tmp_path: Path,
                                                                         env: dict[str, str]) -> None:
    (tmp_path / "config.json").write_text('{"debug": false}')
    code = ("```python\nimport json\nwith open('config.json') as f:\n    config = json.load(f)\n"
            "config['debug'] = True\nwith open('config.json', 'w') as f:\n    json.dump(config, f)\n```")
    result, _ = run_scripted(tmp_path, env, [code, "Done."], "In config.json, set debug to true and save the file.")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "config.json").read_text() == '{"debug": true}'
    assert records(tmp_path / "j.jsonl", "refused") == []
