"""How the kernel's pandas reads a CSV file that a request names: the call that reads it, the rows it gives, and each
column's dtype and missing values, asked of the kernel (its own pandas, its own inference) rather than guessed from
the first rows. A file's preview shows this in place of the csv module's guess when the kernel can import pandas, so
that the model's code starts from the frame it will really get: a column with blanks has missing values, and one that
looks numeric in its first rows but is not reads as it is. A file with a column of numbers written as text keeps the
csv module's preview (with_frame), unless the session already works in pandas: then it is read in pandas' terms, that
column marked with a value as written. Bounded whatever the file: pandas reads at most READ_ROWS rows, and the preview
names at most SHOWN_COLUMNS columns."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace

from interp.reading.previews import Attachment

READ_ROWS = 100_000  # rows pandas reads for the dtypes: enough for any table a preview is for, quick for any file
READ_CELLS = 5_000_000  # and at most this many cells: fewer rows of a wide table
READ_COLUMNS = 2_000  # a wider table keeps the csv module's preview: pandas would take minutes to read it
SHOWN_COLUMNS = 40  # columns named with their dtypes; the rest are counted
_COLUMNS_LINE = "columns: "
NUMBER_TEXT = r"\s*[-+]?[$\u20ac\u00a3\u00a5]?\s*[-+]?[\d.,\s]*\d[\d.,\s]*%?\s*"  # '$1,200.00', '2,49', ' 12% '
# len(d); for each column, its name, dtype and missing values; the text columns whose values are mostly numbers
# written as text (NUMBER_TEXT), each with its first value. Evaluated in the kernel, binding no name.
_READ = ("(lambda d: (len(d), len(d.columns), [(str(c), str(t), int(n)) for (c, t), n in "
         "list(zip(d.dtypes.items(), d.isna().sum()))[:{shown}]], [(str(c), str(d[c].dropna().iloc[0])[:20]) "
         "for c in d.columns if d[c].dtype == object "
         "and d[c].dropna().astype(str).head(1000).str.fullmatch({number!r}).mean() > 0.5]))"
         "(__interp_import('pandas').read_csv({path!r}{sep}, nrows={rows}))")
# Whether the user's namespace holds pandas: the module bound by an import, or one of its objects (a frame). Read
# from the types alone, so no attribute of the user's own objects runs. Asked with _READ, in the same round trip.
IN_USE = ("any((type(v) is type(__interp_import('pandas')) and v.__name__ == 'pandas') "
          "or type(v).__module__.partition('.')[0] == 'pandas' for k, v in list(globals().items()) "
          "if not k.startswith('_'))")


def read_call(name: str, delimiter: str, encoding: str = "") -> str:
    """The pandas call that reads the file as the model should write it: `pd.read_csv('data.csv')`, with its
    separator when that is not a comma and its encoding when that is not UTF-8."""
    return f"pd.read_csv({name!r}{_sep(delimiter, encoding)})"


def _sep(delimiter: str, encoding: str = "") -> str:
    return ("" if delimiter == "," else f", sep={delimiter!r}") + (f", encoding={encoding!r}" if encoding else "")


def with_frame(attached: Attachment, evaluate: Callable[[dict[str, str]], dict[str, str]]) -> Attachment:
    """The attachment with the kernel's pandas reading in place of the guessed column types (kind "frame"); as it was
    when it is no CSV, when pandas cannot read it (the kernel is asked; an error leaves the guess standing), or when
    pandas reads a column of numbers written as text ('$1,200.00', '2,49') as text, unless the session's namespace
    holds pandas already (IN_USE). Shown pandas' reading of such a file, a small model sums or orders the text column
    as it is, which runs and prints a wrong value; over the csv module its code fails on the first such value, and
    the error's help says how to clean it. But where the person already works in pandas, the session's objects are
    frames and what is read must be one too: the file is read in pandas' terms, each such column marked as numbers
    written as text, with its first value."""
    delimiter = attached.delimiter
    if attached.kind != "csv" or not delimiter or attached.columns > READ_COLUMNS:
        return attached
    rows = max(100, min(READ_ROWS, READ_CELLS // max(attached.columns, 1)))
    found = evaluate({"frame": _READ.format(shown=SHOWN_COLUMNS, path=str(attached.path),
                                            sep=_sep(delimiter, attached.encoding), rows=rows, number=NUMBER_TEXT),
                      "in_use": IN_USE})
    try:
        count, width, columns, number_texts = ast.literal_eval(found["frame"])
    except (KeyError, ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return attached
    if number_texts and found.get("in_use") != "True":
        return attached
    written = dict(number_texts)
    shown = ", ".join(f"{name if name == name.strip() else repr(name)} ({dtype}"
                      f"{f', {missing} missing' * bool(missing)}"
                      f"{f', numbers written as text: {written[name]!r}' if name in written else ''})"
                      for name, dtype, missing in columns)
    if width > len(columns):
        shown += f", ... {width - len(columns)} more columns"
    counted = f"its first {count} rows" if count >= rows else f"{count} rows"
    line = (f"{read_call(attached.named or str(attached.path), delimiter, attached.encoding)} gives {counted}; "
            f"columns (dtype, missing values): {shown}")
    lines = [line if text.startswith(_COLUMNS_LINE) else text for text in attached.preview.split("\n")]
    return replace(attached, preview="\n".join(lines), kind="frame")


def frames(attached: list[Attachment], evaluate: Callable[[dict[str, str]], dict[str, str]],
           importable: Callable[[str], bool]) -> list[Attachment]:
    """Each CSV attachment read by the kernel's pandas (with_frame), when the kernel can import pandas, and in
    pandas' terms whatever its columns where the session's namespace holds pandas already (IN_USE); the others,
    and all of them without pandas, as they were."""
    if not any(item.kind == "csv" for item in attached) or not importable("pandas"):
        return attached
    return [with_frame(item, evaluate) for item in attached]
