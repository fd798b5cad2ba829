"""What interp's HumanEval failures had in hand: for each problem interp failed in an eval.py run, whether any version
of the function it drew was right, so a miss reads as "kept the wrong one" (ranking could win it) or "never drew a
right one" (only other candidates could).

    .venv/bin/python scripts/eval_oracle.py RUN.json

RUN.json: what `scripts/eval.py --tiers humaneval --system interp --json RUN.json` wrote; each failed problem's journal
is read from its folder. Two sets are judged by the problem's hidden check (eval_humaneval.passes): the versions the
choose step scored (interp/versions/choosing.py; the journal's `choose` record, in its order), and every function
any execution defined (a version set aside for a failed example among them, interp/versions/fresh.py). A version that
passes the hidden check while failing the request's own example is counted right here, though interp was right to
refuse it (seed 7's HumanEval/108: it gave 2 where the docstring says 1): read the problems it lists before counting
them as a gain.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from eval_humaneval import Problem, from_executions, load, passes

from interp.stores.journal import read


@dataclass(frozen=True)
class Miss:
    task: str
    scored: list[bool]  # per version the choose step scored: right under the hidden check
    kept: int | None  # the version choose kept
    defined: list[bool]  # per execution that defined the function: right under the hidden check

    def verdict(self) -> str:
        if self.kept is not None and any(self.scored):
            return "ranking: a right version was scored and not kept"
        if any(self.defined):
            return "drawn: a right version ran and did not pass the request's examples"
        return "none right: no version drawn was right"


def miss(problem: Problem, journal: Path) -> Miss:
    records = read(journal)
    chosen = [r for r in records if r.get("type") == "choose"]
    scored = [passes(problem, from_executions([v], problem)) for v in chosen[-1]["versions"]] if chosen else []
    functions = [from_executions([r["code"]], problem) for r in records
                 if r.get("type") == "execution" and r.get("language") == "python" and r.get("code")]
    defined = [passes(problem, f) for f in functions if f is not None]
    return Miss(problem.task_id, scored, chosen[-1]["kept"] if chosen else None, defined)


def misses(run: dict, problems: dict[str, Problem]) -> list[Miss]:
    found = []
    for entry in run["runs"]:
        for result in entry["results"]:
            if result["tier"] == "humaneval" and result["system"] == "interp" and not result["passed"]:
                found.append(miss(problems[result["task"]], Path(result["folder"]) / "journal.jsonl"))
    return found


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    found = misses(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8")), {p.task_id: p for p in load()})
    for m in found:
        print(f"{m.task:16} scored {sum(m.scored)}/{len(m.scored)} right, kept {m.kept}; "
              f"defined {sum(m.defined)}/{len(m.defined)} right: {m.verdict()}")
    for kind in ("ranking", "drawn", "none right"):
        print(f"{kind}: {sum(m.verdict().startswith(kind) for m in found)} of {len(found)} failed problems")
    return 0


if __name__ == "__main__":
    sys.exit(main())
