from pathlib import Path

import pytest
from conftest import run_scripted

from interp.common.extract import CodeBlock, code_blocks, first_block_end, normalize_language


def test_fenced_blocks_in_order_with_languages() -> None:
    reply = "First:\n```python\na = 1\n```\nThen:\n```bash\necho hi\n```\n"
    assert code_blocks(reply) == [CodeBlock("python", "a = 1"), CodeBlock("shell", "echo hi")]


def test_untagged_fence_is_python() -> None:
    assert code_blocks("```\nprint(1)\n```") == [CodeBlock("python", "print(1)")]


def test_unclosed_fence_at_the_end_is_taken() -> None:
    assert code_blocks("Here:\n```py\nprint(2)\n") == [CodeBlock("python", "print(2)")]


def test_empty_and_output_blocks_are_skipped() -> None:
    assert code_blocks("```python\n\n```\n```text\n42\n```") == []


def test_no_code() -> None:
    assert code_blocks("The answer is 42.") == []


def test_language_aliases() -> None:
    assert normalize_language("Python3") == "python"
    assert normalize_language("sh") == "shell"
    assert normalize_language("r") == "r"


def test_untagged_block_holding_only_a_value_is_output_not_code() -> None:
    assert code_blocks("The result:\n```\n5050\n```") == []


def test_interactive_prompts_are_stripped() -> None:
    reply = "```python\n>>> x = 2\n>>> print(x * 3)\n6\n```"
    assert code_blocks(reply) == [CodeBlock("python", "x = 2\nprint(x * 3)")]


def test_code_tags() -> None:
    assert code_blocks("Here: <code>print(1)</code>") == [CodeBlock("python", "print(1)", inferred=True)]
    assert code_blocks("<bash>ls -l</bash>") == [CodeBlock("shell", "ls -l", inferred=True)]


def test_unfenced_python_is_found_in_prose() -> None:
    reply = "Here is the code:\nimport math\nprint(math.sqrt(2))\nThis prints the root."
    assert code_blocks(reply) == [CodeBlock("python", "import math\nprint(math.sqrt(2))", inferred=True)]


def test_prose_is_not_code() -> None:
    for answer in ["The sum is 5050.", "Done.", "Hello", "5050", "Yes, it worked!", "", "It is 43.", "x"]:
        assert code_blocks(answer) == [], answer


def test_untagged_expression_block_is_code() -> None:
    assert code_blocks("```\n2 ** 10\n```") == [CodeBlock("python", "2 ** 10")]


def test_a_stray_closing_fence_does_not_swallow_the_next_block() -> None:
    reply = "10000000000\n```\n\nYou can also use math:\n\n```python\nimport math\nprint(math.factorial(10))\n```"
    assert code_blocks(reply) == [CodeBlock("python", "import math\nprint(math.factorial(10))")]


@pytest.mark.parametrize(
    ("text", "end"),
    [
        ("Here:\n```python\nprint(1)\n```\nOutput: 1", len("Here:\n```python\nprint(1)\n```")),
        ("```\nx = 2\nprint(x)\n```\n\n**Output:**\n2", len("```\nx = 2\nprint(x)\n```")),
        ("```text\n5050\n```\nthen\n```bash\nls\n```\nmore", len("```text\n5050\n```\nthen\n```bash\nls\n```")),
        ("```python\nprint(1)\n```", None),  # the fence's line has not ended: it may still be more code
        ("```python\nprint(1)\n", None),
        ("No code here.\n", None),
        ("```python\nprint('```python')\n```\n", len("```python\nprint('```python')\n```")),
    ],
    ids=["prose-after", "invented-output", "output-block-first", "fence-line-open", "open", "prose", "fence-in-str"],
)
def test_where_the_first_code_block_ends(text: str, end: int | None) -> None:
    assert first_block_end(text) == end


@pytest.mark.parametrize("code", ["find inbox/ -type f | wc -l", "echo $(ls | wc -l)", "sort -u words.txt | wc -l",
                                  'python -c "import os; print(len(os.listdir()))"'])
def test_a_shell_command_in_a_python_block_is_taken_as_shell(code: str) -> None:
    assert code_blocks(f"```python\n{code}\n```") == [CodeBlock("shell", code, inferred=True)]


@pytest.mark.parametrize("code", [
    "print(len(files))",  # Python
    "test = [1, 2",  # broken Python that assigns to a name that is also a command
    "test(1, 2",  # broken Python that calls it
    "ls -la project/",  # the IPython kernel runs it itself
    "pip install rich",  # so too
    "frobnicate --all | wc -l",  # no such command
])
def test_python_and_what_the_kernel_runs_itself_stay_python(code: str) -> None:
    assert code_blocks(f"```python\n{code}\n```") == [CodeBlock("python", code)]


def test_a_shell_command_in_a_python_block_runs_as_shell(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "words.txt").write_text("b\na\nb\n")
    result, told = run_scripted(tmp_path, env, ["```python\nsort -u words.txt | wc -l\n```", "There are 2."],
                                "How many distinct words are in words.txt? Use a shell pipeline.")
    assert "Taking this part of the reply as shell code" in result.stderr
    assert "SyntaxError" not in told[-1] and "2" in told[-1], told
