import pytest

from interp.common.textclean import HeadTail, cell_lines, clean_traceback, strip_ansi


def test_head_tail_keeps_both_ends_and_counts_the_cut() -> None:
    kept = HeadTail(100)
    for i in range(10_000):
        kept.add(f"line {i}\n")
    text = kept.text()
    assert text.startswith("line 0\n")
    assert text.rstrip().endswith("line 9999")
    assert "characters cut" in text
    assert len(text) < 200


def test_head_tail_short_text_is_untouched() -> None:
    kept = HeadTail(100)
    kept.add("hello\n")
    assert kept.text() == "hello\n"


def test_strip_ansi() -> None:
    assert strip_ansi("\x1b[0;31mNameError\x1b[0m: x") == "NameError: x"


def test_clean_traceback_keeps_the_cell_and_the_exception() -> None:
    tb = [
        "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m",
        "\x1b[0;31mNameError\x1b[0m                                 Traceback (most recent call last)",
        "Cell \x1b[0;32mIn[1], line 1\x1b[0m\n\x1b[0;32m----> 1\x1b[0m \x1b[38;5;28mprint\x1b[39m(x)",
        "\x1b[0;31mNameError\x1b[0m: name 'x' is not defined",
    ]
    text = clean_traceback(tb)
    assert "\x1b" not in text and "-----" not in text
    assert text.splitlines()[0] == "Traceback (most recent call last):"
    assert text.splitlines()[-1] == "NameError: name 'x' is not defined"
    assert "print(x)" in text


def test_for_model_keeps_the_last_state_of_a_progress_bar() -> None:
    from interp.common.textclean import for_model

    text = "start\n 10%\r 50%\r100%\ndone\x07\r\n\x1b[1mbold\x1b[0m"
    assert for_model(text) == "start\n100%\ndone\nbold"


def test_output_fold_shows_the_first_lines_and_counts_the_rest() -> None:
    from interp.ui.render import OutputFold

    fold = OutputFold(lines=3, chars=100)
    assert fold.visible("a\nb") == "a\nb"
    assert fold.visible("c\nd\ne\n") == "c\nd\n"
    assert fold.visible("f\n" * 10) == ""
    assert fold.summary() == "11 more lines (22 characters) not shown"


def test_output_fold_bounds_one_long_line() -> None:
    from interp.ui.render import OutputFold

    fold = OutputFold(lines=3, chars=100)
    assert fold.visible("x" * 1000) == "x" * 100
    assert fold.visible("y\n") == ""
    assert fold.summary() == "1 more lines (902 characters) not shown"


def test_plain_view_defuses_escape_sequences_in_model_text() -> None:
    import io

    from interp.common.events import TextDelta
    from interp.ui.plain import PlainView

    out = io.StringIO()
    view = PlainView(out=out, err=io.StringIO())
    pieces = ["\x1b]0;pwned\x07title ", "\x1b[2J\x1b[H", "\x1b[31mred\x1b[0m ", "split \x1b", "[1A up\r\x9b2J\tok\n"]
    for piece in pieces:
        view.show(TextDelta(piece))
    # Shown as pictures, not obeyed and not hidden: a model has no business writing them (screentext.py).
    assert out.getvalue() == "␛]0;pwned␇title ␛[2J␛[H␛[31mred␛[0m split ␛[1A up\n<U+009B>2J\tok\n"


def test_a_library_frame_keeps_its_header_and_the_line_it_points_at() -> None:
    tb = [
        "\x1b[0;31mTypeError\x1b[0m                                 Traceback (most recent call last)",
        "Cell \x1b[0;32mIn[1], line 6\x1b[0m\n      5\n\x1b[0;32m----> 6\x1b[0m n = len(re.findall(r'INFO', lines))\n"
        "      7 print(n)",
        "File \x1b[0;32m~/.pyenv/versions/3.11.7/lib/python3.11/re/__init__.py:216\x1b[0m, in \x1b[0;36mfindall\x1b[0m"
        "\x1b[0;34m(pattern, string, flags)\x1b[0m\n    208 def findall(pattern, string, flags=0):\n"
        '    209     """Return a list of all non-overlapping matches in the string.\n'
        "\x1b[0;32m--> 216\x1b[0m     return _compile(pattern, flags).findall(string)",
        "File /work/project/report.py:3\n      2 rows = load()\n----> 3 print(rows[9])\n      4 done()",
        "\x1b[0;31mTypeError\x1b[0m: expected string or bytes-like object, got 'list'",
    ]
    text = clean_traceback(tb)
    assert ("File ~/.pyenv/versions/3.11.7/lib/python3.11/re/__init__.py:216, in findall(pattern, string, flags)\n"
            "--> 216     return _compile(pattern, flags).findall(string)") in text
    assert "non-overlapping" not in text and "def findall" not in text
    assert "      5\n----> 6 n = len(re.findall(r'INFO', lines))\n      7 print(n)" in text  # the user's cell, whole
    assert "      2 rows = load()\n----> 3 print(rows[9])\n      4 done()" in text  # a file of the user's, whole


def test_for_repair_keeps_the_failing_line_and_its_neighbours_in_a_cell() -> None:
    from interp.common.textclean import for_repair

    error = ("Traceback (most recent call last):\nCell In[1], line 11\n      7 # Extract\n      8 stamps = read()\n"
             "      9\n     10 # Minutes\n---> 11 span = int(stamps[-1].split(':')[0])\n     12\n"
             "     13 print(span)\n\n"
             "ValueError: invalid literal for int() with base 10: '2024-05-01 12'")
    assert for_repair(error) == ("Traceback (most recent call last):\nCell In[1], line 11\n     10 # Minutes\n"
                                 "---> 11 span = int(stamps[-1].split(':')[0])\n\n"
                                 "ValueError: invalid literal for int() with base 10: '2024-05-01 12'")


def test_for_repair_drops_a_comprehension_frame_that_repeats_the_cell_line() -> None:
    from interp.common.textclean import for_repair

    error = ("Traceback (most recent call last):\nCell In[2], line 3\n      1 import re\n      2\n"
             "----> 3 total = sum(int(d.split()[0]) for d in open('times.txt'))\n      4 print(total)\n\n"
             "Cell In[2], line 3, in <genexpr>(.0)\n----> 3 import re\n\n"
             "ValueError: invalid literal for int() with base 10: '1h'")
    assert for_repair(error) == ("Traceback (most recent call last):\nCell In[2], line 3\n"
                                 "----> 3 total = sum(int(d.split()[0]) for d in open('times.txt'))\n"
                                 "      4 print(total)\n\nValueError: invalid literal for int() with base 10: '1h'")


def test_for_repair_keeps_a_called_function_frame_and_files_whole() -> None:
    from interp.common.textclean import for_repair

    error = ("Cell In[3], line 4\n      3 xs = []\n----> 4 print(mean(xs))\n\nCell In[3], line 2, in mean(xs)\n"
             "      1 def mean(xs):\n----> 2     return sum(xs) / len(xs)\n\n"
             "File /work/project/report.py:3\n      1 import x\n      2 rows = load()\n----> 3 print(rows[9])\n"
             "      4 done()\n\nZeroDivisionError: division by zero")
    assert for_repair(error) == error


LISTCOMP = ("import math; rows = [['a', 'x']]\ndef column(rows):\n    return [float(r[1]) for r in rows]\n"
            "vals = column(rows)")


@pytest.mark.parametrize(("error", "shown"), [
    (  # IPython 9 on Python 3.11: a comprehension's frame showed the first line of its function, numbered 3
        "Cell In[4], line 4\n      3     return [float(r[1]) for r in rows]\n----> 4 vals = column(rows)\n\n"
        "Cell In[4], line 3, in column(rows)\n      2 def column(rows):\n----> 3     return [float(r[1]) for r in rows]"
        "\n\nCell In[4], line 3, in <listcomp>(.0)\n----> 3 def column(rows):\n      4     return [float(r[1]) for "
        "r in rows]\n\nValueError: could not convert string to float: 'x'",
        "Cell In[4], line 4\n      3     return [float(r[1]) for r in rows]\n----> 4 vals = column(rows)\n\n"
        "Cell In[4], line 3, in column(rows)\n      2 def column(rows):\n----> 3     return [float(r[1]) for r in rows]"
        "\n\nCell In[4], line 3, in <listcomp>(.0)\n----> 3     return [float(r[1]) for r in rows]\n      4 vals = "
        "column(rows)\n\nValueError: could not convert string to float: 'x'",
    ),
    (  # ... or the cell's first line, the import interp added
        "Cell In[4], line 4\n----> 4 vals = column(rows)\n\nCell In[4], line 3, in <listcomp>(.0)\n"
        "----> 3 import math; rows = [['a', 'x']]\n\nValueError: could not convert string to float: 'x'",
        "Cell In[4], line 4\n----> 4 vals = column(rows)\n\nCell In[4], line 3, in <listcomp>(.0)\n"
        "----> 3     return [float(r[1]) for r in rows]\n\nValueError: could not convert string to float: 'x'",
    ),
])
def test_cell_lines_shows_the_line_each_frame_of_the_runs_cell_names(error: str, shown: str) -> None:
    assert cell_lines(error, LISTCOMP) == shown


@pytest.mark.parametrize("error", [
    # Another cell's frame: its code is not this run's.
    "Cell In[4], line 4\n----> 4 vals = column(rows)\n\nCell In[2], line 3, in <listcomp>(.0)\n----> 3 x = 1\n\n"
    "ValueError: x",
    # The first frame does not show the code's line (a %%magic ran it, a line rewritten): nothing is changed.
    "Cell In[4], line 4\n----> 4 get_ipython().run_line_magic('time', '')\n\nCell In[4], line 3, in <listcomp>(.0)\n"
    "----> 3 x = 1\n\nValueError: x",
    # A SyntaxError's frame shows its line unnumbered, maybe a number itself.
    "Cell In[4], line 3\n    3 +\n      ^\nSyntaxError: invalid syntax",
    "ZeroDivisionError: division by zero",
])
def test_cell_lines_leaves_frames_it_cannot_vouch_for(error: str) -> None:
    assert cell_lines(error, LISTCOMP) == error


SITE = "File /venv/lib/python3.11/site-packages/pandas"
KEY_CAUSE = (f"Traceback (most recent call last):\n{SITE}/core/indexes/base.py:3812, in Index.get_loc(self, key)\n"
             "-> 3812     return self._engine.get_loc(casted_key)\n"
             "File pandas/_libs/index.pyx:167, in pandas._libs.index.IndexEngine.get_loc()\n"
             "--> 167 'Could not get source, probably due dynamically evaluated source code.'\n\n"
             "File pandas/_libs/hashtable_class_helper.pxi:7096, in "
             "pandas._libs.hashtable.PyObjectHashTable.get_item()\n"
             "-> 7096 'Could not get source, probably due dynamically evaluated source code.'\n\n")
KEY_RAISED = ("Traceback (most recent call last):\nCell In[1], line 3\n      2 df = pd.read_csv('t.csv')\n"
              "----> 3 print(df['year'])\n\n"
              f"{SITE}/core/frame.py:4113, in DataFrame.__getitem__(self, key)\n"
              "-> 4113             indexer = self.columns.get_loc(key)\n"
              f"{SITE}/core/indexes/base.py:3819, in Index.get_loc(self, key)\n"
              "-> 3819     raise KeyError(key) from err\nKeyError: 'year'")
DIRECT = "\n\nThe above exception was the direct cause of the following exception:\n\n"
DURING = "\n\nDuring handling of the above exception, another exception occurred:\n\n"
ASTYPE = ("Traceback (most recent call last):\nCell In[2], line 1\n----> 1 df['p'].astype(float)\n\n"
          + "".join(f"{SITE}/core/{name}.py:{i}, in {name}()\n-> {i}     step()\n"
                    for i, name in enumerate(["generic", "managers", "blocks", "astype"], start=10))
          + "ValueError: could not convert string to float: '15.17%'")


@pytest.mark.parametrize(("error", "shown"), [
    # a library's `raise ... from` of the same exception: the library's own part goes
    (f"{KEY_CAUSE}KeyError: 'year'{DIRECT}{KEY_RAISED}", KEY_RAISED),
    # a library's part that ends in another exception stays as that exception's line
    (f"{KEY_CAUSE}ValueError: data type not inexact{DURING}{KEY_RAISED}",
     f"ValueError: data type not inexact{DURING}{KEY_RAISED}"),
    # four library frames in a row: the call into the library, the count between, where it raised
    (ASTYPE, "Traceback (most recent call last):\nCell In[2], line 1\n----> 1 df['p'].astype(float)\n\n"
             f"{SITE}/core/generic.py:10, in generic()\n-> 10     step()\n... 2 more frames inside libraries ...\n"
             f"{SITE}/core/astype.py:13, in astype()\n-> 13     step()\n"
             "ValueError: could not convert string to float: '15.17%'"),
    # a compiled module's frames lose their 'Could not get source' lines
    (f"{KEY_CAUSE}KeyError: 'year'", f"Traceback (most recent call last):\n{SITE}/core/indexes/base.py:3812, in "
     "Index.get_loc(self, key)\n-> 3812     return self._engine.get_loc(casted_key)\n... 1 more frames inside "
     "libraries ...\nFile pandas/_libs/hashtable_class_helper.pxi:7096, in pandas._libs.hashtable.PyObjectHashTable."
     "get_item()\nKeyError: 'year'"),
])
def test_for_repair_leaves_out_what_happened_inside_libraries(error: str, shown: str) -> None:
    from interp.common.textclean import for_repair

    assert for_repair(error) == shown


@pytest.mark.parametrize("error", [
    # the user's own code caught one exception and raised another: both parts are the user's
    ("Traceback (most recent call last):\nCell In[1], line 2\n----> 2     x = d['a']\n\nKeyError: 'a'" + DURING
     + "Traceback (most recent call last):\nCell In[1], line 4\n----> 4     raise ValueError('no a')\n\n"
       "ValueError: no a"),
    # one or two library frames in a row, and frames of the user's own files, are all kept
    KEY_RAISED,
    ("Traceback (most recent call last):\nCell In[1], line 2\n----> 2 model.fit(X, y)\n\n"
     f"{SITE}/../sklearn/base.py:1151, in fit(self, X, y)\n-> 1151     raise ValueError('Input X contains NaN.')\n"
     "ValueError: Input X contains NaN."),
    ("Cell In[3], line 4\n----> 4 print(load())\n\nFile /work/project/a.py:3, in load()\n----> 3 return b()\n\n"
     "File /work/project/b.py:9, in b()\n----> 9 return c()\n\nFile /work/project/c.py:2, in c()\n----> 2 1 / 0\n\n"
     "ZeroDivisionError: division by zero"),
    "SyntaxError: invalid syntax",
])
def test_for_repair_keeps_the_user_s_own_frames(error: str) -> None:
    from interp.common.textclean import for_repair

    assert for_repair(error) == error


def test_a_line_too_long_is_cut_to_its_head_and_tail() -> None:
    from interp.common.textclean import LINE_CHARS, short_lines

    long = "TypeError: Could not convert string '" + "northwest" * 2000 + "' to numeric"
    short = short_lines(f"Traceback\n{long}\n{'x' * LINE_CHARS}\n")
    lines = short.split("\n")
    assert lines[0] == "Traceback" and lines[2] == "x" * LINE_CHARS and lines[3] == ""
    assert lines[1].startswith("TypeError: Could not convert string 'northwest") and lines[1].endswith("' to numeric")
    assert f"[... {len(long) - LINE_CHARS * 4 // 5} characters ...]" in lines[1] and len(lines[1]) < LINE_CHARS
