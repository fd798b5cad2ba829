"""`@path` in a request: previews bounded by kind, the path told to the model, Tab completion in a pty, and the
whole loop with the scripted model and (once) the default model. Files named without @ get a shorter preview."""

from __future__ import annotations

import json
import re
from pathlib import Path
from string import Template

import pytest
from conftest import finish, records, run_interp, spawn, write_script

from interp.prompts import Prompts
from interp.reading.attach import NAMED_CHARS, NAMED_FILES, asks_for_shell, expand, file_words, may_name_files, named
from interp.reading.previews import TEXT_CHARS, describe

CSV = "x,y,label\n3,1.5,a\n7,2.5,b\n11,0.5,c\n19,4.0,d\n"  # the mean of x is 10
TEMPLATE = Template("FILE $path ($what)\n$preview")


def test_csv_gets_columns_with_types_and_first_rows(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text(CSV)
    found = describe(tmp_path / "data.csv")
    assert found.what.startswith("CSV, comma-separated, 3 columns, 4 rows")
    assert "columns: x (int), y (float), label (text)" in found.preview
    assert found.preview.endswith("11,0.5,c")  # the first three rows


def test_csv_rows_are_shown_as_written_quotes_and_blank_lines_kept(tmp_path: Path) -> None:
    (tmp_path / "expenses.csv").write_text('vendor,amount\nAcme,"$1,200.00"\n\nWide,' + "9" * 500 + "\nBolt, $35.50 \n")
    found = describe(tmp_path / "expenses.csv")
    assert 'Acme,"$1,200.00"\n\nWide,999' in found.preview  # not Acme,$1,200.00: four fields
    assert found.preview.endswith("9" * (300 - 5) + " ...")


@pytest.mark.parametrize(("header", "columns"), [
    ("DATE TIME, WINDSPEED, DIR", "columns: DATE TIME (text), ' WINDSPEED' (float), ' DIR' (int)"),
    ("when ,speed,dir", "columns: 'when ' (text), speed (float), dir (int)"),
    ("DATE TIME,WINDSPEED,DIR", "columns: DATE TIME (text), WINDSPEED (float), DIR (int)"),
])
def test_csv_column_names_are_shown_as_a_reader_gives_them(tmp_path: Path, header: str, columns: str) -> None:
    (tmp_path / "w.csv").write_text(f"{header}\n01/01/2015 00:00,2.72,288\n01/01/2015 01:00,3.89,273\n")
    found = describe(tmp_path / "w.csv")
    assert columns in found.preview and f"header: {header}" in found.preview
    pandas = pytest.importorskip("pandas")
    shown = [name.strip("'") for name, _ in (part.rsplit(" (", 1) for part in columns[9:].split(", "))]
    assert shown == list(pandas.read_csv(tmp_path / "w.csv").columns)


def test_a_large_csv_is_previewed_from_its_head_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    path.write_text("a;b\n" + "".join(f"{i};{i * 2}\n" for i in range(200_000)))
    found = describe(path)
    assert "semicolon-separated, 2 columns, about 200000 rows" in found.what
    assert len(found.preview) < 300 and "a (int), b (int)" in found.preview
    assert found.preview.endswith("as written:\n0;0\n1;2\n2;4")  # three rows show the layout


def test_text_keeps_head_and_tail_beyond_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "log.txt"
    path.write_text("".join(f"line {i}\n" for i in range(10_000)))
    found = describe(path)
    assert found.preview.startswith("line 0\n") and found.preview.rstrip().endswith("line 9999")
    assert "characters cut" in found.preview and len(found.preview) < TEXT_CHARS + 100
    assert "10000 lines" in found.what


def test_json_gets_a_shape_and_binary_only_name_type_and_size(tmp_path: Path) -> None:
    (tmp_path / "items.json").write_text(json.dumps([{"id": i, "name": f"n{i}"} for i in range(50)]))
    found = describe(tmp_path / "items.json")
    assert "a list of 50 items, each like {id: int, name: str}" in found.preview
    (tmp_path / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0" + bytes(5000))
    binary = describe(tmp_path / "pic.png")
    assert binary.what == "image/png, 4.9 KB" and "\0" not in binary.preview and len(binary.preview) < 40


def test_expand_names_the_absolute_path_and_leaves_other_ats_alone(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text(CSV)
    (tmp_path / "my file.txt").write_text("hi\n")
    sent, attached, problems = expand('@data.csv and @"my file.txt", mail me@x.org or @nope.txt?', TEMPLATE,
                                      tmp_path)
    assert [a.path for a in attached] == [tmp_path / "data.csv", tmp_path / "my file.txt"]
    assert sent.startswith(f"FILE {tmp_path / 'data.csv'} (CSV")
    assert sent.endswith('data.csv and my file.txt, mail me@x.org or @nope.txt?')
    assert problems == ["@nope.txt: no such file; sent as typed."]
    # A regular file that cannot be read, even by root (unreadable files are readable to root, who runs tests here).
    sent, attached, problems = expand("@/proc/self/mem", TEMPLATE, tmp_path)
    assert sent == "@/proc/self/mem" and attached == []
    assert problems == ["@/proc/self/mem: cannot read it (Input/output error); sent as typed."]
    assert expand("no mentions here", TEMPLATE, tmp_path) == ("no mentions here", [], [])


@pytest.mark.parametrize("request_", [
    "Answer as @mean_fare[mean_fare_value], rounded to 2 places.",
    "Report @mean_fare[3.5] and @count[n].",
    "Ask @bob, or tag @team-data, then answer.",
], ids=["answer-format", "answer-format-with-a-number", "plain-words"])
def test_an_at_word_not_shaped_like_a_file_passes_silently_as_typed(tmp_path: Path, request_: str) -> None:
    assert expand(request_, TEMPLATE, tmp_path) == (request_, [], [])


def test_an_at_word_shaped_like_a_file_or_naming_one_is_still_a_mention(tmp_path: Path) -> None:
    (tmp_path / "notes").write_text("no extension\n")
    sent, attached, problems = expand("Read @notes, @data/x and @\"a b\"; answer as @total[value].", TEMPLATE,
                                      tmp_path)
    assert [a.path for a in attached] == [tmp_path / "notes"]
    assert sent.endswith("Read notes, @data/x and @\"a b\"; answer as @total[value].")
    assert problems == ["@data/x: no such file; sent as typed.", "@a b: no such file; sent as typed."]


def test_plain_names_of_existing_files_are_found_in_the_words(tmp_path: Path) -> None:
    for name in ("orders.json", "notes.txt", "a.py", "b.py"):
        (tmp_path / name).write_text("x\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "log.txt").write_text("x\n")
    text = ("Sum `orders.json`, then data/log.txt. Write out.csv from 'notes.txt'; (see data/) e.g. version 3.5 "
            "and orders.json again, or read me@x.org")
    found = {tmp_path / "orders.json": "orders.json", tmp_path / "data" / "log.txt": "data/log.txt",
             tmp_path / "notes.txt": "notes.txt"}
    assert named(text, tmp_path, []) == found  # out.csv does not exist, data/ is a folder
    assert len(named("a.py b.py notes.txt orders.json", tmp_path, [])) == NAMED_FILES
    assert named("orders.json", tmp_path, [tmp_path / "orders.json"]) == {}  # already attached with @
    assert named("data.txt " + "x/" * 3000 + "y.txt", tmp_path, []) == {}  # a name too long for the system
    assert may_name_files(text) and may_name_files("see @x") and may_name_files("in data/")
    assert not may_name_files("What is 2 + 2? Print it, then stop.")


def test_a_named_file_gets_a_shorter_preview_and_the_words_stay_as_typed(tmp_path: Path) -> None:
    (tmp_path / "server.log").write_text("".join(f"2024-05-01 10:{i % 60:02d} ERROR line {i}\n" for i in range(500)))
    (tmp_path / "data.csv").write_text(CSV)
    named_template = Template("NAMED $path ($what)\n$preview")
    text = "Count the ERROR lines of server.log and compare with @data.csv."
    sent, attached, problems = expand(text, TEMPLATE, tmp_path, named_template=named_template)
    assert [(a.path.name, a.named) for a in attached] == [("data.csv", ""), ("server.log", "server.log")]
    assert sent.startswith(f"FILE {tmp_path / 'data.csv'}") and "NAMED server.log (text" in sent  # as typed
    assert sent.endswith("Count the ERROR lines of server.log and compare with data.csv.") and problems == []
    assert "characters cut" in attached[1].preview and len(attached[1].preview) < NAMED_CHARS + 100
    assert expand(text, TEMPLATE, tmp_path)[1][1:] == []  # without a template for them, plain names are left alone


def test_a_python_file_comes_with_a_block_that_writes_it_back_and_runs_it(tmp_path: Path) -> None:
    (tmp_path / "greet.py").write_text("def greet(name)\n    return name\n")
    (tmp_path / "notes.txt").write_text("def greet(name)\n")
    assert describe(tmp_path / "greet.py").kind == "python" and describe(tmp_path / "notes.txt").kind == "text"
    hints = {"python": "write back to '$path' then %run $path"}
    sent, _, _ = expand("greet.py does not run. Fix it.", TEMPLATE, tmp_path, hints, Template("$preview\n$hint"))
    assert "write back to 'greet.py' then %run greet.py" in sent
    shipped = Prompts.load(cwd=str(tmp_path)).attach_hints["python"]
    assert "open('$path', 'w')" in shipped and "%run $path" in shipped


def test_scripted_session_sends_the_preview_and_the_code_reads_the_file(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "data.csv").write_text(CSV)
    script = write_script(tmp_path, [
        "```python\nimport pandas as pd\nprint(pd.read_csv('data.csv')['x'].mean())\n```", "The mean of x is 10.0.",
    ])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal)], env=env, cwd=tmp_path,
                        stdin="@data.csv What is the mean of column x?\n")
    assert result.returncode == 0, result.stderr
    assert f"Attached {tmp_path / 'data.csv'}" in result.stderr
    request = records(journal, "user")[0]
    assert request["typed"] == "@data.csv What is the mean of column x?"
    sent = records(journal, "model_call")[0]["input_tail"]["content"]
    assert f"The user attached the file {tmp_path / 'data.csv'}" in sent and "Read it from that path" in sent
    # The columns as the kernel's pandas reads them (frames.py), and the reading hint for that kind of file
    # (prompts/attach_hints.json).
    assert (f"pd.read_csv({str(tmp_path / 'data.csv')!r}) gives 4 rows; columns (dtype, missing values): x (int64), "
            "y (float64), label (object)") in sent and "header: x,y,label" in sent
    assert "Read it in your code with that pd.read_csv call" in sent and "columns: x (int)" not in sent
    assert sent.endswith("data.csv What is the mean of column x?")
    assert records(journal, "execution")[0]["output"].strip() == "10.0"


def test_a_file_the_request_names_is_previewed_where_the_kernel_is(tmp_path: Path, env: dict[str, str]) -> None:
    """Relative names point where the code runs: after code moved the kernel to sub/, sub/orders.json is the one,
    and a file that is missing is looked for there."""
    (tmp_path / "orders.json").write_text("not this one")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "orders.json").write_text(json.dumps([{"id": 1, "customer": {"city": "Oslo"}}]))
    script = write_script(tmp_path, ["```python\nimport os\nos.chdir('sub')\n```", "Moved.", "Seen.",
                                     "```python\nopen('order.json')\n```", "```python\nopen('orders.json')\n```",
                                     "Seen."])
    journal = tmp_path / "j.jsonl"
    requests = "Go into sub.\nHow many orders in orders.json came from Oslo?\nOpen it.\n"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal)], env=env, cwd=tmp_path,
                        stdin=requests)
    assert result.returncode == 0, result.stderr
    shown = tmp_path / "sub" / "orders.json"
    assert f"Showed the model a preview of {shown} (JSON" in result.stderr
    sent = records(journal, "model_call")[2]["input_tail"]["content"]
    assert sent.startswith("The request names the file orders.json") and "your code reads the file itself" in sent
    assert "a list of 1 items, each like {id: int, customer: dict}" in sent and '"city": "Oslo"' in sent
    assert sent.endswith("\nHow many orders in orders.json came from Oslo?")
    asked = [r for r in records(journal, "user") if r["kind"] == "request"]
    assert asked[1]["typed"] == "How many orders in orders.json came from Oslo?"
    # The missing-file hint looks there too: sub/ holds only orders.json.
    told = records(journal, "model_call")[4]["input_tail"]["content"]
    assert "There is no order.json. Did you mean orders.json? Files in the working directory: orders.json." in told
    script, journal = write_script(tmp_path, ["Seen."]), tmp_path / "off.jsonl"
    off = run_interp(["-y", "--no-preview-files", "--model", f"script:{script}", "--transcript", str(journal)],
                     env=env, cwd=tmp_path / "sub", stdin="How many orders in orders.json came from Oslo?\n")
    assert off.returncode == 0 and "preview" not in off.stderr, off.stderr
    sent = records(journal, "model_call")[0]["input_tail"]["content"]
    assert sent == "How many orders in orders.json came from Oslo?"


def test_tab_completes_an_at_path_in_the_repl(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "data_2026.csv").write_text(CSV)
    script = write_script(tmp_path, ["Seen."])
    journal = tmp_path / "j.jsonl"
    child = spawn(["--model", f"script:{script}", "--transcript", str(journal)], env, tmp_path)
    child.expect(">")
    child.send("look at @data_")
    child.send("\t")
    child.expect("2026.csv")
    child.send("\r")
    child.expect("Seen.")
    child.expect(">")
    finish(child)
    assert records(journal, "user")[0]["typed"] == "look at @data_2026.csv"


@pytest.mark.model
def test_default_model_reads_the_attached_csv_from_disk(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "data.csv").write_text(CSV)
    journal = tmp_path / "j.jsonl"
    # A retry samples (each failed attempt raises the temperature): the seed and the threads fix what it draws.
    result = run_interp(["-y", "--temperature", "0", "--seed", "1", "--threads", "2", "--transcript", str(journal)],
                        env={**env, "INTERP_MODEL": "qwen2.5-coder-1.5b"},
                        cwd=tmp_path, stdin="@data.csv What is the mean of column x?\n", timeout=900)
    assert result.returncode == 0, result.stderr
    worked = [e for e in records(journal, "execution") if e["status"] == "ok"]
    assert worked, "some code must have run without error"
    assert "data.csv" in worked[-1]["code"], "the code reads the file from disk"
    assert re.search(r"(?<![\d.])10(\.0+)?(?![\d.])", worked[-1]["output"]), worked[-1]["output"]


SHIPMENTS = [{"id": 1, "to": {"name": "Ada", "city": "Lyon"}, "kg": 2.5},
             {"id": 2, "to": {"name": "Bo", "city": "Paris"}, "kg": 1.0},
             {"id": 3, "to": {"name": "Cy", "city": "Lyon"}, "kg": 4.0},
             {"id": 4, "to": {"name": "Di", "city": "Lyon"}, "kg": 0.5},
             {"id": 5, "to": {"name": "Ed", "city": "Nice"}, "kg": 3.0}]


@pytest.mark.model
def test_default_model_counts_in_a_nested_json_file_the_request_names(tmp_path: Path, env: dict[str, str]) -> None:
    """Without the preview the model guesses the layout and prints 0 (as in the eval's json_oslo). Two levels deep:
    with the city a level further down (`to.address.city`) the 1.5B still wrote `s['to']['city']`, preview or not."""
    (tmp_path / "shipments.json").write_text(json.dumps(SHIPMENTS, indent=2))
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--temperature", "0", "--transcript", str(journal)],
                        env={**env, "INTERP_MODEL": "qwen2.5-coder-1.5b"}, cwd=tmp_path,
                        stdin="How many shipments in shipments.json go to Lyon? Print the count.\n", timeout=900)
    assert result.returncode == 0, result.stderr
    assert f"Showed the model a preview of {tmp_path / 'shipments.json'}" in result.stderr
    worked = [e for e in records(journal, "execution") if e["status"] == "ok"]
    assert worked and "shipments.json" in worked[-1]["code"], "the code reads the file from disk"
    assert re.fullmatch(r"\s*3\s*", worked[-1]["output"]), worked[-1]["output"]


def test_a_named_folder_shows_the_names_it_holds(tmp_path: Path) -> None:
    from interp.prompts import Prompts
    from interp.reading.previews import FOLDER_NAMES

    (tmp_path / "media" / "raw").mkdir(parents=True)
    for name in ("b.jpg", "a.jpg", "d.png", "f.gif"):
        (tmp_path / "media" / name).write_text("x")
    prompts = Prompts.load()
    sent, attached, _ = expand("Count the files in media/ by extension.", prompts.attach, tmp_path,
                               prompts.attach_hints, prompts.named)
    assert [(a.kind, a.named) for a in attached] == [("folder", "media/")]
    assert sent == ("The request names the folder media/ (4 files, 1 folder at its top level). This is a preview of "
                    "it, for its layout; your code reads the folder itself:\n```text\na.jpg, b.jpg, d.png, f.gif, "
                    "raw/\n```\n\nCount the files in media/ by extension.")
    (tmp_path / "many").mkdir()
    for i in range(FOLDER_NAMES + 5):
        (tmp_path / "many" / f"{i:03d}.txt").write_text("")
    many = describe(tmp_path / "many")
    assert many.preview.endswith(f"{FOLDER_NAMES - 1:03d}.txt, ... 5 more") and many.what.startswith("35 files")
    assert describe(tmp_path / "media" / "raw").preview == "(empty)"
    file_block = expand("Read media/a.jpg", prompts.attach, tmp_path, prompts.attach_hints, prompts.named)[0]
    assert file_block.startswith("The request names the file media/a.jpg (text")  # a file is still a file


def test_a_division_sign_is_not_the_root_folder(tmp_path: Path) -> None:
    text = "Complete this function:\n```python\ndef thirds(n):\n    return n // 3, n / 3\n```"
    assert named(text, tmp_path, []) == {}
    assert not may_name_files("What is 7 / 2 and 7 // 2?")
    assert named("List /", tmp_path, []) == {}
    assert named(f"List {tmp_path}/", tmp_path, []) == {tmp_path: f"{tmp_path}/"}


@pytest.mark.parametrize(("request_", "shell"), [
    ("Use a shell pipeline to print the number of distinct words in words.txt.", True),
    ("Count the .py files under project/ with a bash command.", True),
    ("Which terminal command lists docs/?", True),
    ("How many words does words.txt hold?", False),
    ("Print the lines of notes.md that mention shellfish.", False),
])
def test_a_request_for_a_shell_command_is_told_apart(request_: str, shell: bool) -> None:
    assert asks_for_shell(request_) is shell


def test_under_the_small_prompts_a_request_for_a_shell_command_gets_no_preview(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The 0.5B, shown words.txt, wrote `echo "$words.txt" | ...` for a shell pipeline over it (request.previews_on);
    a bigger model's prompts keep the preview, and so do a small model's requests for Python and its @mentions."""
    from dataclasses import replace

    from fakes import make_session, turn

    (tmp_path / "words.txt").write_text("apple\nbanana\napple\n")
    monkeypatch.chdir(tmp_path)
    shell = "Use a shell pipeline to print the number of distinct words in words.txt."
    python, mention = "How many distinct words does words.txt hold?", shell.replace(" words.txt", " @words.txt")
    sent = {}
    for small, request in [(True, shell), (False, shell), (True, python), (True, mention)]:
        session = make_session(tmp_path, ["```bash\nsort -u words.txt | wc -l\n```", "2."])
        session.prompts = replace(session.prompts, small=small)
        turn(session, request)
        sent[small, request] = session.history[0]["content"]  # the request as the model read it
    assert sent[True, shell] == shell
    assert sent[False, shell].startswith("The request names the file words.txt") and sent[False, shell].endswith(shell)
    assert sent[True, python].startswith("The request names the file words.txt")
    assert sent[True, mention].startswith(f"The user attached the file {tmp_path / 'words.txt'}")


@pytest.mark.model
def test_smollm2_asked_for_a_shell_command_is_shown_no_preview(tmp_path: Path, env: dict[str, str]) -> None:
    """The real path: SmolLM2 (135M) reads the small prompts; its shell request goes as typed, the next one with the
    preview of the file it names."""
    (tmp_path / "words.txt").write_text("apple\nbanana\napple\n")
    journal = tmp_path / "j.jsonl"
    shell, python = "Use a shell pipeline to count the distinct words in words.txt.", "How many lines has words.txt?"
    result = run_interp(["-y", "--max-tokens", "48", "--seed", "1", "--transcript", str(journal)], env=env,
                        cwd=tmp_path, stdin=f"{shell}\n{python}\n", timeout=300)
    assert result.returncode in (0, 1), result.stderr
    requests = [r["content"] for r in records(journal, "user") if r["kind"] == "request"]
    assert requests[0] == shell
    assert "The request names the file words.txt" in requests[1] and requests[1].endswith(python)
    assert result.stderr.count("Showed the model a preview of") == 1


def test_a_csv_with_old_mac_line_ends_and_a_byte_order_mark_is_previewed(tmp_path: Path) -> None:
    """gapminder_cleaned.csv of DABench: lines end in a lone \\r, after a UTF-8 byte-order mark; the csv module raised
    'new-line character seen in unquoted field' and the whole turn ended in a traceback."""
    (tmp_path / "g.csv").write_bytes("\ufeffyear,pop,country\r1952,8425333,afghanistan\r1957,9240934,afghanistan\r"
                                     .encode())
    found = describe(tmp_path / "g.csv")
    assert found.what.startswith("CSV, comma-separated, 3 columns, 2 rows")
    assert "header: year,pop,country" in found.preview and "1957,9240934,afghanistan" in found.preview


def test_a_csv_the_csv_module_cannot_read_is_previewed_as_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    import csv

    def refuses(*args: object, **kwargs: object) -> None:
        raise csv.Error("a dialect it cannot read")

    (tmp_path / "odd.csv").write_text("a,b\n1,2\n")
    monkeypatch.setattr(csv, "reader", refuses)
    found = describe(tmp_path / "odd.csv")
    assert found.kind == "text" and found.preview.startswith("a,b")


@pytest.mark.parametrize("name", ["veracruz 2016.csv", "notes (final).txt", "résumé des ventes.csv",
                                  "readings.v2.final.csv", "it's.csv"])
def test_a_name_a_word_cannot_hold_is_found_and_written_exactly(tmp_path: Path, name: str) -> None:
    """A file named with spaces, brackets, quotes, accents or several dots: found whole (not its last word, which
    would pass for a new file to write), previewed, and its name given as code must write it."""
    (tmp_path / name).write_text("a,b\n1,2\n")
    text = f"What is the mean of a? The data is in {name}. Write the answer to out.txt."
    assert file_words(text, tmp_path) == ([name], ["out.txt"])
    prompts = Prompts.load()
    sent, attached, _ = expand(text, prompts.attach, tmp_path, prompts.attach_hints, prompts.named)
    assert [item.named for item in attached] == [name]
    assert f"In code, write its name exactly as {name!r}." in sent


@pytest.mark.parametrize("quote", ["`", '"', "'"])
def test_a_path_with_spaces_in_quotes_is_found_whole_below_the_working_directory(tmp_path: Path, quote: str) -> None:
    """A path whose file name holds spaces, written in backticks or quotes, in a folder below the working directory:
    found whole and previewed (its last word, `Dataset.csv`, is no file of its own)."""
    (tmp_path / "inputs").mkdir()
    (tmp_path / "inputs" / "Sales Statistics Dataset.csv").write_text("region,total\nnorth,3\n")
    text = f"Load {quote}inputs/Sales Statistics Dataset.csv{quote} and name it df."
    assert file_words(text, tmp_path) == (["inputs/Sales Statistics Dataset.csv"], [])
    prompts = Prompts.load()
    sent, attached, _ = expand(text, prompts.attach, tmp_path, prompts.attach_hints, prompts.named)
    assert [item.named for item in attached] == ["inputs/Sales Statistics Dataset.csv"]
    assert "In code, write its name exactly as 'inputs/Sales Statistics Dataset.csv'." in sent


@pytest.mark.parametrize("text", [
    "Load `inputs/Sales Statistics Dataset.csv` please",  # no such file: nothing previewed
    "Don't read it, it's `not a path`",  # quoted words that are no path
    "Say 'hello world.' twice",  # a quoted sentence ending in a full stop
])
def test_quoted_words_that_name_no_file_are_not_taken_for_one(tmp_path: Path, text: str) -> None:
    assert file_words(text, tmp_path)[0] == []
    prompts = Prompts.load()
    assert expand(text, prompts.attach, tmp_path, prompts.attach_hints, prompts.named)[1] == []


@pytest.mark.parametrize(("data", "encoding"), [
    ("name,city\nJosé,Córdoba\nZoë,Québec\n".encode("cp1252"), "cp1252"),  # a spreadsheet's Windows export
    (("name,note\n" + "Ana,café\n" * 200 + "Bo,\x81\n").encode("latin-1"), "latin-1"),  # a byte cp1252 lacks
    (b"name,n\n" + b"a,1\n" * 30_000 + "Zoë,2\n".encode("cp1252"), "cp1252"),  # UTF-8 for 64 KB, not after
])
def test_a_text_file_that_is_not_utf_8_is_shown_with_the_encoding_that_reads_it(tmp_path: Path, data: bytes,
                                                                                 encoding: str) -> None:
    """Shown as text, not as binary, with the encoding its code must open it in: opened as UTF-8, which open() and
    pandas assume, it fails at its first other character, however far into the file that is."""
    (tmp_path / "people.csv").write_bytes(data)
    prompts = Prompts.load()
    sent, attached, _ = expand("Count rows of people.csv", prompts.attach, tmp_path, prompts.attach_hints,
                               prompts.named)
    assert attached[0].kind == "csv" and attached[0].encoding == encoding
    assert f"read it with encoding={encoding!r}" in sent and f"open(path, encoding={encoding!r})" in sent
    with open(tmp_path / "people.csv", encoding=encoding) as f:  # what the preview tells the code to do reads it all
        assert f.read().count("\n") == data.count(b"\n")


def test_utf_8_text_and_binary_files_are_told_as_before(tmp_path: Path) -> None:
    (tmp_path / "u.csv").write_text("name\nJosé\n", encoding="utf-8")
    (tmp_path / "b.dat").write_bytes(bytes(range(1, 32)) * 100 + b"\xff\xfe")  # controls, no NUL: no text
    assert describe(tmp_path / "u.csv").encoding == ""
    assert "encoding=" not in expand("@u.csv", Prompts.load().attach, tmp_path, Prompts.load().attach_hints)[0]
    assert describe(tmp_path / "b.dat").kind == "binary"


def test_a_plain_name_is_told_as_before(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    prompts = Prompts.load()
    sent, _, _ = expand("Mean of a in data.csv?", prompts.attach, tmp_path, prompts.attach_hints, prompts.named)
    assert "write its name exactly" not in sent and "The request names the file data.csv (CSV" in sent


def test_a_tab_separated_file_s_hint_reads_it_with_its_delimiter(tmp_path: Path) -> None:
    (tmp_path / "orders.tsv").write_text("id\tprice\n1\t$2.39 \n2\t$3.39 \n")
    prompts = Prompts.load()
    sent, _, _ = expand("Total price in orders.tsv?", prompts.attach, tmp_path, prompts.attach_hints, prompts.named)
    assert "csv.DictReader(open(path), delimiter='\\t')" in sent
