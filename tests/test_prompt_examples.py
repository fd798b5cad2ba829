"""The few-shot exchanges of prompts/examples.json are what a turn shows the model, so they must be true: each reply's
code, run in a real kernel, prints exactly the output the next message says it printed, and none is the kind of code
interp tells the model it should not write (printing an answer typed into it)."""

from __future__ import annotations

import pytest

from interp import values
from interp.events import OutputChunk
from interp.extract import code_blocks
from interp.kernel import Kernel
from interp.prompts import Prompts
from interp.returning import Returning

PROMPTS = Prompts.load()
EXAMPLES = PROMPTS.examples
EXCHANGES = [EXAMPLES[i:i + 4] for i in range(0, len(EXAMPLES), 4)]


def test_the_examples_are_whole_exchanges() -> None:
    assert EXCHANGES and all(len(exchange) == 4 for exchange in EXCHANGES)
    for request, reply, output, answer in EXCHANGES:
        assert [m["role"] for m in (request, reply, output, answer)] == ["user", "assistant", "user", "assistant"]
        assert len(code_blocks(reply["content"])) == 1 and not code_blocks(answer["content"])


@pytest.mark.parametrize("exchange", EXCHANGES, ids=[e[0]["content"][:40] for e in EXCHANGES])
def test_each_example_prints_what_it_says_it_printed(kernel: Kernel, exchange: list[dict]) -> None:
    request, reply, output, _ = exchange
    code = code_blocks(reply["content"])[0].code
    run = Returning(kernel.execute(code))
    printed = "".join(item.text for item in run if isinstance(item, OutputChunk))
    assert run.value.status == "ok"
    assert PROMPTS.feedback(printed, None) == output["content"]  # the message interp sends after such a run
    assert not values.typed(code, printed, request["content"])


def test_a_wrong_example_would_be_caught(kernel: Kernel) -> None:
    """The check above can fail: an example whose stated output is not what its code prints, or that types its
    answer, is found."""
    run = Returning(kernel.execute("print(sum(range(4)))"))
    printed = "".join(item.text for item in run if isinstance(item, OutputChunk))
    assert PROMPTS.feedback(printed, None) != "Output:\n```text\n7\n```"
    assert values.typed('print("1024")', "1024\n", "What is 2 to the power of 10?")

