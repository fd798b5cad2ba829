"""What code displays is hostile until shown otherwise: a bundle whose MIME type names no file, a binary value that is
not base64, a bundle of thousands of types, an image of a billion pixels in a small file. Each is at most one line,
within a budget of files and bytes per run, and the session goes on (REPORT.md of the third round, 5.5, 5.6, D11)."""

from __future__ import annotations

import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from conftest import records, run_interp, write_script

from interp.runtime.outputs import MAX_FILES_PER_RUN, Budget, OutputFolder


def test_a_bundle_saves_only_what_it_says_it_is_and_within_the_budget(tmp_path: Path) -> None:
    folder = OutputFolder(tmp_path / "out")
    budget = Budget(files=3, size=1000)
    saved = folder.save({"text/plain": "x", "image/x\x00y": "data", "application/" + "z" * 300: "data",
                         "image/png": "abc", "../../etc/passwd": "x", "text/html": "<b>ok</b>",
                         "application/json": {"a": 1}, "text/markdown": "m" * 2000, "text/latex": "$x$",
                         "text/csv": "a,b"}, budget)
    assert [mime for mime, _ in saved] == ["text/html", "application/json", "text/latex"]
    assert len(budget.bad) == 4 and budget.unsaved == 2  # markdown over the bytes left, csv over the files left
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["output-1.html", "output-2.json", "output-3.tex"]


BUNDLES = {
    "nul": "display({'text/plain': 'n', 'image/x\\x00y': 'data'}, raw=True)",
    "long": "display({'text/plain': 'l', 'application/' + 'z' * 300: 'data'}, raw=True)",
    "pad": "display({'text/plain': 'p', 'image/png': 'abc'}, raw=True)",
    "many": "display({'text/plain': 'b', **{f'application/x-k{i}': 'A' * 1000 for i in range(3000)}}, raw=True)",
}


@pytest.mark.parametrize("name", list(BUNDLES))
def test_a_hostile_bundle_is_one_line_and_the_session_goes_on(tmp_path: Path, env: dict[str, str], name: str) -> None:
    show = f"```python\nfrom IPython.display import display\n{BUNDLES[name]}\n```"
    script = write_script(tmp_path, [show, "ok.", "```python\nprint('still', 'here')\n```", "ok."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal)], env=env, cwd=tmp_path,
                        stdin="show it\nand then\n")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert [r["status"] for r in records(journal, "execution")] == ["ok", "ok"]
    assert "still here" in result.stdout
    outputs = journal.with_suffix("")
    saved = list(outputs.iterdir()) if outputs.exists() else []
    assert len(saved) == (MAX_FILES_PER_RUN if name == "many" else 0)
    said = [line for line in result.stderr.splitlines() if "rich outputs were not saved" in line]
    assert len(said) == 1, result.stderr


def _png(path: Path, width: int, height: int) -> None:
    """A valid PNG of black pixels: a few hundred KB on disk however many pixels it holds."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    packer = zlib.compressobj(9)
    row = b"\x00" * (3 * width + 1)
    pixels = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b""))


def test_an_image_of_too_many_pixels_is_not_decoded_to_be_drawn(tmp_path: Path) -> None:
    """13,000 x 13,000 pixels in 0.5 MB, under PIL's own limit: decoding it to draw it cost 3 GB and 20 s."""
    big = tmp_path / "big.png"
    _png(big, 13000, 13000)
    small = tmp_path / "small.png"
    _png(small, 300, 200)
    probe = ("import resource, sys\nfrom interp.ui.images import load\n"
             "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
             "print(load(sys.argv[1], 'blocks') is None, load(sys.argv[2], 'blocks') is None, "
             "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)")
    done = subprocess.run([sys.executable, "-c", probe, str(big), str(small)], capture_output=True, text=True,
                          check=True)
    big_refused, small_refused, grown_kb = done.stdout.split()
    assert (big_refused, small_refused) == ("True", "False")
    assert int(grown_kb) < 100 * 1024, f"{int(grown_kb) // 1024} MB more"  # decoding it: about 3 GB more
    assert "DecompressionBomb" not in done.stderr
