"""The few-shot exchanges of prompts/examples.json (and prompts/small/examples.json, for small models) are what a turn
shows the model, so they must be true: each reply's code, run in a real kernel, prints exactly the output the next
message says it printed, and none is the kind of code interp tells the model it should not write (printing an answer
typed into it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from interp.common.events import OutputChunk
from interp.common.extract import code_blocks
from interp.common.returning import Returning
from interp.prompts import SMALL, Prompts
from interp.rules import Facts
from interp.rules.notes.output import only_typed
from interp.runtime.kernel import Kernel

PROMPTS = Prompts.load()
EXCHANGES = [(profile, examples[i:i + 4]) for profile in (None, SMALL)
             for examples in [Prompts.load(profile=profile).examples] for i in range(0, len(examples), 4)]


def typed(code: str, output: str, request: str) -> bool:
    """Whether interp would tell the model this code only printed text typed into it (the rule "typed")."""
    return only_typed(Facts(code=code, output=output, sent=request))


@pytest.fixture(scope="module")
def folder_kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    """A kernel in a folder holding the files the examples read (notes.md: two '#' lines among others)."""
    folder = tmp_path_factory.mktemp("examples")
    (folder / "notes.md").write_text("# Plan\nbuy a tent\n  # indented, not a heading\n# Budget\n300 euros\n")
    kernel = Kernel(cwd=str(folder))
    kernel.start()
    kernel.wait_ready()
    yield kernel
    kernel.shutdown()


def test_the_examples_are_whole_exchanges() -> None:
    assert {profile for profile, _ in EXCHANGES} == {None, SMALL}
    for _, exchange in EXCHANGES:
        assert len(exchange) == 4
        request, reply, output, answer = exchange
        assert [m["role"] for m in (request, reply, output, answer)] == ["user", "assistant", "user", "assistant"]
        assert len(code_blocks(reply["content"])) == 1 and not code_blocks(answer["content"])


@pytest.mark.parametrize("exchange", [e for _, e in EXCHANGES], ids=[f"{p or 'standard'}: {e[0]['content'][:40]}"
                                                                     for p, e in EXCHANGES])
def test_each_example_prints_what_it_says_it_printed(folder_kernel: Kernel, exchange: list[dict]) -> None:
    request, reply, output, _ = exchange
    code = code_blocks(reply["content"])[0].code
    run = Returning(folder_kernel.execute(code))
    printed = "".join(item.text for item in run if isinstance(item, OutputChunk))
    assert run.value.status == "ok"
    assert PROMPTS.feedback(printed, None) == output["content"]  # the message interp sends after such a run
    assert not typed(code, printed, request["content"])


def test_a_wrong_example_would_be_caught(folder_kernel: Kernel) -> None:
    """The check above can fail: an example whose stated output is not what its code prints, or that types its
    answer, is found."""
    run = Returning(folder_kernel.execute("print(sum(range(4)))"))
    printed = "".join(item.text for item in run if isinstance(item, OutputChunk))
    assert PROMPTS.feedback(printed, None) != "Output:\n```text\n7\n```"
    assert typed('print("1024")', "1024\n", "What is 2 to the power of 10?")
    assert typed('print("4")', "4\n", "How many of the numbers from 1 to 50 have digits that add up to 10?")
