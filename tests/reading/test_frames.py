"""A CSV file's preview as the kernel's pandas reads it (frames.py): the call, the rows, each column's dtype and
missing values from a real kernel, in place of the types the csv module guesses from the first rows; the guess stays
where pandas cannot read the file or the kernel has no pandas."""

from __future__ import annotations

from pathlib import Path
from string import Template

import pytest
from conftest import run

from interp.reading.attach import expand
from interp.reading.frames import READ_ROWS, SHOWN_COLUMNS, frames, read_call, with_frame
from interp.reading.previews import Attachment, describe
from interp.running.packages import can_import
from interp.runtime.kernel import Kernel

TEMPLATE = Template("FILE $path ($what)\n$preview\n$hint")
HINTS = {"frame": "FRAME HINT", "csv": "CSV HINT"}


def _answer(rows: int, width: int, columns: list[tuple[str, str, int]],
            texts: tuple[str, ...] = ()) -> dict[str, str]:
    return {"frame": repr((rows, width, columns, list(texts)))}


def test_the_guessed_types_give_way_to_the_kernel_s_dtypes(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text("x,label\n1,a\n2,\n")
    found = with_frame(describe(tmp_path / "d.csv", named="d.csv"),
                       lambda _: _answer(2, 2, [("x", "int64", 0), ("label", "object", 1)]))
    assert found.kind == "frame"
    lines = found.preview.split("\n")
    assert lines[0] == "header: x,label"
    assert lines[1] == ("pd.read_csv('d.csv') gives 2 rows; columns (dtype, missing values): x (int64), "
                        "label (object, 1 missing)")
    assert "columns: " not in found.preview and lines[-1] == "2,"


@pytest.mark.parametrize("answer", [{}, {"frame": "oops"}, {"frame": "(1, 2)"},
                                    _answer(2, 1, [("amount", "object", 0)], ("amount",))])
def test_no_answer_or_numbers_written_as_text_leave_the_guess(tmp_path: Path, answer: dict[str, str]) -> None:
    (tmp_path / "d.csv").write_text("x,label\n1,a\n")
    shown = describe(tmp_path / "d.csv")
    assert with_frame(shown, lambda _: answer) == shown


def test_a_separator_other_than_a_comma_is_in_the_call_and_in_the_read(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text("x;y\n1;2\n3;4\n")
    asked: list[str] = []
    found = with_frame(describe(tmp_path / "d.csv"), lambda e: asked.append(e["frame"]) or _answer(2, 2, []))
    assert f"pd.read_csv({str(tmp_path / 'd.csv')!r}, sep=';') gives 2 rows" in found.preview
    assert "sep=';'" in asked[0] and f"nrows={READ_ROWS}" in asked[0]
    assert read_call("a b.csv", "\t") == "pd.read_csv('a b.csv', sep='\\t')"


def test_wide_and_long_files_are_told_as_counted(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text("a,b\n1,2\n")
    found = with_frame(describe(tmp_path / "d.csv", named="d.csv"),
                       lambda _: _answer(READ_ROWS, 100, [(f"c{i}", "int64", 0) for i in range(SHOWN_COLUMNS)]))
    assert f"gives its first {READ_ROWS} rows" in found.preview
    last = f"c{SHOWN_COLUMNS - 1} (int64), ... {100 - SHOWN_COLUMNS} more columns"
    assert found.preview.split("\n")[1].endswith(last)


def test_other_files_and_a_kernel_without_pandas_are_not_asked(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text("x\n1\n")
    (tmp_path / "n.txt").write_text("x\n")
    attached = [describe(tmp_path / "d.csv"), describe(tmp_path / "n.txt")]

    def refuse(_: dict[str, str]) -> dict[str, str]:
        raise AssertionError("the kernel was asked")
    assert frames(attached, refuse, lambda module: False) == attached
    assert frames([attached[1]], refuse, lambda module: True) == [attached[1]]


def test_the_real_kernel_reads_what_the_first_rows_hide(kernel: Kernel, tmp_path: Path) -> None:
    """Whole numbers for 300 rows, then blanks and a fraction: the csv module's guess (from the first rows) says int;
    pandas, reading the file, says float64 with the blanks missing."""
    rows = [f"{i},{i}" for i in range(300)] + ["300,", "301,", "302,2.5"]
    (tmp_path / "m.csv").write_text("id,amount\n" + "\n".join(rows) + "\n")
    guessed = describe(tmp_path / "m.csv")
    assert "amount (int)" in guessed.preview
    read = frames([guessed], kernel.evaluate, can_import(kernel.evaluate))[0]
    assert read.kind == "frame"
    assert ("gives 303 rows; columns (dtype, missing values): id (int64), amount (float64, 2 missing)"
            in read.preview)


def test_the_real_kernel_reads_a_file_that_is_not_utf_8_in_its_encoding(kernel: Kernel, tmp_path: Path) -> None:
    """A spreadsheet's export in Windows' Western encoding: pandas, asked as the preview tells the model to ask it,
    reads it; its call says the encoding, and the model's code that copies it reads the file too."""
    (tmp_path / "w.csv").write_bytes("name,amount\nJosé,3\nRenée,4\n".encode("cp1252"))
    read = frames([describe(tmp_path / "w.csv", named="w.csv")], kernel.evaluate, can_import(kernel.evaluate))[0]
    assert read.kind == "frame" and read.encoding == "cp1252"
    assert "pd.read_csv('w.csv', encoding='cp1252') gives 2 rows" in read.preview
    assert kernel.evaluate({"n": f"len(__interp_import('pandas').read_csv({str(tmp_path / 'w.csv')!r}, "
                                 "encoding='cp1252'))"})["n"] == "2"


@pytest.mark.parametrize(("text", "columns"), [
    ("a,b\n1,2\n3,4,5,6\n", "columns: a (int), b (int)"),  # pandas cannot read it
    ('vendor,amount\nAcme,"$1,200.00"\nBolt, $35.50 \nCargo,7\n', "columns: vendor (text), amount (text)"),
    ("item;price\nbread;2,49\nmilk;1,09\n", "columns: item (text), price (text)"),  # a decimal comma
    ("city,share\nOslo,12%\nBergen,7.5 %\n", "columns: city (text), share (text)"),
])
def test_a_file_pandas_cannot_read_as_it_is_meant_keeps_the_guess_and_its_hint(kernel: Kernel, tmp_path: Path,
                                                                                 text: str, columns: str) -> None:
    (tmp_path / "r.csv").write_text(text)
    sent, attached, _ = expand("@r.csv sum it", TEMPLATE, tmp_path, HINTS,
                               tables=lambda items: frames(items, kernel.evaluate, can_import(kernel.evaluate)))
    assert attached[0].kind == "csv" and columns in sent and "CSV HINT" in sent


def test_numbers_written_as_text_are_read_in_pandas_terms_where_the_session_works_in_pandas(tmp_path: Path) -> None:
    (tmp_path / "d.tsv").write_text("item\tprice\nbowl\t$2.39 \n")
    found = with_frame(describe(tmp_path / "d.tsv", named="d.tsv"),
                       lambda _: {**_answer(1, 2, [("item", "object", 0), ("price", "object", 0)],
                                            (("price", "$2.39 "),)), "in_use": "True"})
    assert found.kind == "frame"
    assert found.preview.split("\n")[1] == ("pd.read_csv('d.tsv', sep='\\t') gives 1 rows; columns (dtype, missing "
                                            "values): item (object), price (object, numbers written as text: '$2.39 ')")


@pytest.mark.parametrize(("setup", "in_use"), [
    ("", False), ("import pandas", True), ("import pandas as pd", True), ("from pandas import read_csv", False),
    ("import numpy as np", False), ("frame = __import__('pandas').DataFrame({'a': [1]})", True),
    ("_hidden = __import__('pandas')", False),
])
def test_the_session_works_in_pandas_when_its_namespace_holds_pandas(kernel: Kernel, tmp_path: Path, setup: str,
                                                                      in_use: bool) -> None:
    """A file of prices written as text ('$1,200.00'): the csv module's preview in a fresh session, pandas' reading
    with the column marked where the person imported pandas or holds a frame. pandas imported by interp's own
    questions (`__interp_import`) or bound to a private name does not count."""
    (tmp_path / "r.csv").write_text('vendor,amount\nAcme,"$1,200.00"\nBolt, $35.50 \n')
    _, done = run(kernel, f"get_ipython().run_line_magic('reset', '-f')\n{setup}")
    assert done.status == "ok", done.error
    sent, attached, _ = expand("@r.csv sum it", TEMPLATE, tmp_path, HINTS,
                               tables=lambda items: frames(items, kernel.evaluate, can_import(kernel.evaluate)))
    assert attached[0].kind == ("frame" if in_use else "csv")
    assert ("amount (object, numbers written as text: '$1,200.00')" in sent) is in_use
    assert ("FRAME HINT" in sent) is in_use and ("CSV HINT" in sent) is not in_use


def test_the_request_shows_the_frame_and_its_hint(kernel: Kernel, tmp_path: Path) -> None:
    """Text columns that hold words, dates and codes are text: the file is read as pandas means it."""
    (tmp_path / "p.csv").write_text("city,pop,since,code\nOslo,700,2024-01-03,A-1\nBergen,290,2024-02-01,B-2\n")
    sent, attached, _ = expand("Which city in p.csv is largest?", TEMPLATE, tmp_path, HINTS, TEMPLATE,
                               lambda items: frames(items, kernel.evaluate, can_import(kernel.evaluate)))
    assert isinstance(attached[0], Attachment) and attached[0].named == "p.csv"
    assert ("pd.read_csv('p.csv') gives 2 rows; columns (dtype, missing values): city (object), pop (int64), "
            "since (object), code (object)") in sent
    assert "FRAME HINT" in sent and "CSV HINT" not in sent
