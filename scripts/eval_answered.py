"""Replays the DABench journals of eval runs as if each turn had ended at the first step whose clean runs printed
every `@name[value]` part the request asks for, each answered, with no note after it (what the policy does since
answer_form.answered): grades the question there, from those outputs alone, and times it there. Exact where a run is
seeded: up to that step the turn is the same either way. Prints, per run, questions right and the median and mean
seconds as run and as replayed, and the questions whose grade changes.

    scripts/eval_answered.py RUN.json ... [--dabench-data DIR]

A run's journals are read where its results say, or, where its --dir was moved after it ran to RUN.dir beside
RUN.json, there."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import eval_dabench  # noqa: E402

from interp.rules import answer_form  # noqa: E402


def replayed(records: list[dict], question: eval_dabench.Question) -> tuple[bool, float] | None:
    """Whether the question passes, and the seconds it took, had the turn ended where its output first answered
    every part; None when it never did."""
    request = next(r for r in records if r["type"] == "user")
    wanted = answer_form.parts(request.get("typed") or request["content"])
    outputs: list[str] = []
    for at, record in enumerate(records):
        if record["type"] != "execution" or record["status"] != "ok":
            continue
        outputs.append(record["output"] or "")
        after = [r for r in records[at + 1:] if r["type"] in ("model_call", "execution", "rule_fired")]
        step_ends = not after or after[0]["type"] == "model_call"  # the last block of its reply, and no note on it
        if step_ends and answer_form.answered(wanted, outputs):
            return eval_dabench.grade(question, outputs).passed, float(record["ts"]) - float(request["ts"])
    return None


def _journal(run: Path, folder: Path) -> Path:
    """A question's journal: at its place under RUN.dir where the run's folder was moved there, else in its folder
    (which a later run in the same --dir may have taken)."""
    moved = run.with_suffix(".dir")
    below = next((i for i, part in enumerate(folder.parts) if part.startswith("interp-eval-seed")), None)
    if moved.is_dir() and below is not None:
        return moved.joinpath(*folder.parts[below:], "journal.jsonl")
    return folder / "journal.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--dabench-data", type=Path, default=None)
    args = parser.parse_args()
    questions = {q.name: q for q in eval_dabench.load(eval_dabench.data_dir(args.dabench_data))}
    for run in args.runs:
        results = [r for part in json.loads(run.read_text())["runs"] for r in part["results"] if r["tier"] == "dabench"]
        before, after, changed = [], [], []
        for result in results:
            records = [json.loads(line) for line in _journal(run, Path(result["folder"])).read_text().splitlines()]
            replay = replayed(records, questions[result["task"]])
            passed, seconds = replay if replay else (result["passed"], result["seconds"])
            before.append((result["passed"], result["seconds"]))
            after.append((passed, seconds))
            if passed != result["passed"]:
                changed.append(f"{result['task']} {'gained' if passed else 'lost'}")
        print(f"{run}: right {sum(p for p, _ in before)} -> {sum(p for p, _ in after)} of {len(results)}; median "
              f"{statistics.median(s for _, s in before):.1f} -> {statistics.median(s for _, s in after):.1f} s; "
              f"mean {statistics.mean(s for _, s in before):.1f} -> {statistics.mean(s for _, s in after):.1f} s"
              + (f"; {', '.join(changed)}" if changed else ""))


if __name__ == "__main__":
    main()
