"""Memory on a real model: 40 short turns in a 2,048-token window; turn 2 prints a random number without keeping it;
turn 40 asks for it. Prints what happened (condensations, the retrieval, the answer) and exits 0 when the answer
holds the number, which by then only memory could give back.

    .venv/bin/python scripts/demo_recall.py                      # the default model, qwen2.5-coder-1.5b
    .venv/bin/python scripts/demo_recall.py --model smollm2-135m --turns 20
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from interp.stores import journal

SECRET = "Print a random integer between 100000 and 999999. Do not store it in a variable."
QUESTION = "What was the random integer printed earlier? Do not run code; answer from the conversation."


def requests(turns: int) -> list[str]:
    return [SECRET if k == 2 else f"Print {k} times 7." for k in range(1, turns)] + [QUESTION]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="qwen2.5-coder-1.5b")
    p.add_argument("--turns", type=int, default=40)
    p.add_argument("--ctx", type=int, default=2048)
    p.add_argument("--recall", type=int, default=3)
    args = p.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="interp-recall-"))
    path = folder / "session.jsonl"
    command = [sys.executable, "-m", "interp", "-y", "--plain", "--ctx", str(args.ctx), "--model", args.model,
               "--recall", str(args.recall), "--transcript", str(path)]
    started = time.monotonic()
    done = subprocess.run(command, input="\n".join(requests(args.turns)) + "\n", text=True, capture_output=True,
                          cwd=folder, env={**os.environ, "NO_COLOR": "1"})
    print(f"{' '.join(command[1:])}: exit {done.returncode} in {time.monotonic() - started:.0f} s; journal {path}")
    records = journal.read(path)
    return report(records, args.turns)


def turns_of(records: list[dict]) -> list[list[dict]]:
    """The journal's records split at each request (a recall record and its note come just before it)."""
    turns: list[list[dict]] = [[]]
    for record in records:
        if record["type"] == "user" and record.get("kind") == "request":
            turns.append([])
        turns[-1].append(record)
    return turns[1:]


def report(records: list[dict], expected_turns: int) -> int:
    turns = turns_of(records)
    print(f"turns run: {len(turns)} of {expected_turns}")
    condensed = [r for r in records if r["type"] == "condense"]
    print(f"condensations: {len(condensed)}, messages dropped: {sum(r['messages_dropped'] for r in condensed)}")
    print(f"retrievals: {sum(r['type'] == 'recall' for r in records)}")
    if len(turns) < 2:
        return 1
    outputs = [r["output"] for r in turns[1] if r["type"] == "execution" and r["status"] == "ok"]
    numbers = re.findall(r"\b\d{6}\b", "\n".join(outputs))
    if not numbers:
        print("turn 2 printed no six-digit number:", outputs)
        return 1
    secret = numbers[-1]
    print(f"turn 2 printed: {secret}")
    before_last = turns[-2]
    recall = [r for r in before_last if r["type"] == "recall"]
    note = [r for r in before_last if r["type"] == "user" and r.get("kind") == "note"]
    if recall:
        print(f"turn {len(turns)} retrieval: query {recall[-1]['query']}, ids {recall[-1]['ids']}, "
              f"from {recall[-1]['sources']}")
        print(f"the number is in the recalled note: {bool(note) and secret in note[-1]['content']}")
    else:
        print(f"turn {len(turns)}: no retrieval")
    last = turns[-1]
    ran = [r for r in last if r["type"] == "execution"]
    answers = [r["content"] for r in last if r["type"] == "assistant"]
    print(f"turn {len(turns)} ran {len(ran)} code blocks; its replies:")
    for answer in answers:
        print("  > " + answer.replace("\n", "\n    "))
    from_kernel = any(secret in r.get("output", "") for r in ran)
    right = any(secret in a for a in answers) and not from_kernel
    print("ANSWERED FROM MEMORY" if right else "NOT ANSWERED FROM MEMORY" + (" (the kernel had it)" * from_kernel))
    return 0 if right else 1


if __name__ == "__main__":
    sys.exit(main())
