from interp.extract import CodeBlock, code_blocks, normalize_language


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
