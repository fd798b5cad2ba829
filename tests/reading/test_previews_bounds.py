"""Previews are bounded whatever the file: a CSV of a million columns, a file that grows while it is read, a line of
hundreds of megabytes, five hundred @files in one request (REPORT.md of the third round, 6.1, 6.2, 6.5, 6.6)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path
from string import Template

from conftest import deadline, records, run_interp, write_script

from interp.reading.attach import ATTACHED_FILES, expand
from interp.reading.previews import describe
from interp.runtime.kernel import Kernel


def test_a_csv_of_a_million_columns_is_a_short_request(tmp_path: Path, env: dict[str, str]) -> None:
    wide = tmp_path / "wide.csv"
    wide.write_text(",".join(f"c{i}" for i in range(1_000_000)) + "\n" + ",".join("1" * 1_000_000) + "\n")
    found = describe(wide)
    assert found.columns > 2000 and len(found.preview) < 3000  # the header's first 64 KB: more than 10,000 names
    assert "more than" in found.what
    script = write_script(tmp_path, ["```python\nprint(1)\n```", "Done."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal),
                         "Describe @wide.csv please"], env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    request = records(journal, "user")[0]["content"]
    assert len(request) < 5000 and "pd.read_csv" not in request  # the kernel's pandas is not asked to read it


def test_a_file_that_grows_while_it_is_read_is_read_as_it_was(tmp_path: Path) -> None:
    """Another program appends to the file the whole time (20 MB a second, faster than lines are read one by one)."""
    log = tmp_path / "access.log"
    log.write_text("y\n" * 1_000_000)
    grow = ("import sys, time\nchunk = b'y\\n' * 500_000\nwith open(sys.argv[1], 'ab') as f:\n    while True:\n"
            "        f.write(chunk)\n        f.flush()\n        time.sleep(0.05)\n")
    writer = subprocess.Popen([sys.executable, "-c", grow, str(log)])
    try:
        with deadline(20):
            found = describe(log)
    finally:
        writer.kill()
        writer.wait()
    assert found.what.startswith("text, 1") and "lines" in found.what
    assert len(found.preview) < 4000


def test_a_single_line_of_hundreds_of_megabytes_is_not_read_whole(tmp_path: Path) -> None:
    line = tmp_path / "one.txt"
    with open(line, "wb") as f:
        for _ in range(200):
            f.write(b"x" * 2**20)
    probe = ("import resource, sys\nfrom pathlib import Path\nfrom interp.reading.previews import describe\n"
             "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\nfound = describe(Path(sys.argv[1]))\n"
             "print(len(found.preview), found.what.split(',')[1].strip(), "
             "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before, sep='|')")
    done = subprocess.run([sys.executable, "-c", probe, str(line)], capture_output=True, text=True, check=True)
    shown, lines, grown_kb = done.stdout.strip().split("|")
    assert int(shown) < 4000 and lines == "1 lines"
    assert int(grown_kb) < 50 * 1024, f"{int(grown_kb) // 1024} MB more"  # reading the line whole: 400 MB more


def test_a_request_attaches_a_bounded_number_of_files(tmp_path: Path) -> None:
    names = []
    for i in range(500):
        (tmp_path / f"f{i}.txt").write_text(f"file {i}\n")
        names.append(f"@f{i}.txt")
    text, attached, problems = expand("Read " + " ".join(names), Template("$path\n$preview"), tmp_path)
    assert len(attached) == ATTACHED_FILES
    assert problems == [f"{500 - ATTACHED_FILES} more @files not attached (at most {ATTACHED_FILES} a request); sent "
                        "as typed."]
    assert len(text) < 20_000


def test_a_question_of_interp_s_that_times_out_does_not_hold_the_kernel(kernel: Kernel) -> None:
    """interp's own evaluations (a preview's read, a rule's facts) give up after their timeout; the kernel must stop
    them too, or the user's next run waits behind them (the probe's first run waited 50 s)."""
    slow = "(__import__('time').sleep(5), globals().__setitem__('finished', True))"
    assert kernel.evaluate({"slow": slow}, timeout=0.5) == {}
    run = kernel.execute("print('finished' in globals())")
    with contextlib.suppress(StopIteration):
        while True:
            next(run)
    assert kernel.evaluate({"done": "'finished' in globals()"}) == {"done": "False"}
