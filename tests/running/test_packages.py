"""A module that is not installed: the offer to install it (in a pty), declining, installing offline from a local
wheel, and the rules (no network, no terminal, the config's consent) with a fake runner."""

from __future__ import annotations

import zipfile
from collections.abc import Generator
from pathlib import Path

import pytest
from conftest import finish, records, run_scripted, spawn, write_script

from interp.common.events import Event, ExecutionDone, InstallOffer, Notice
from interp.common.extract import CodeBlock
from interp.prompts import Prompts
from interp.running.packages import Packages, distribution, imports, missing_module

MISSING = "Traceback...\nModuleNotFoundError: No module named '{}'"
PACKAGE = "interp_tinypkg"


def _wheel(folder: Path) -> Path:
    """A real, minimal wheel of a package that prints nothing and holds VALUE = 42: pip installs it offline."""
    folder.mkdir()
    path = folder / f"{PACKAGE}-1.0-py3-none-any.whl"
    info = f"{PACKAGE}-1.0.dist-info"
    files = {
        f"{PACKAGE}/__init__.py": "VALUE = 42\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {PACKAGE}\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: interp-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    with zipfile.ZipFile(path, "w") as whl:
        for name, text in files.items():
            whl.writestr(name, text)
        whl.writestr(f"{info}/RECORD", "".join(f"{name},,\n" for name in [*files, f"{info}/RECORD"]))
    return folder


def _offline_pip(tmp_path: Path, env: dict[str, str]) -> tuple[dict[str, str], Path]:
    """pip pointed at a local wheel only (no index), installing into a scratch folder that the kernel imports from:
    the shared environment is left as it was, and no network is used."""
    target = tmp_path / "site"
    target.mkdir()
    pythonpath = ":".join(p for p in (str(target), env.get("PYTHONPATH", "")) if p)
    return {**env, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(_wheel(tmp_path / "wheels")),
            "PIP_TARGET": str(target), "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONPATH": pythonpath}, target


def test_the_offer_appears_and_declining_leaves_the_session_working(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, [
        f"```python\nimport {PACKAGE}\nprint({PACKAGE}.VALUE)\n```", "It is not installed, so I stop here.",
        "```python\nprint(6 * 7)\n```", "Done.",
    ])
    journal = tmp_path / "j.jsonl"
    offline, target = _offline_pip(tmp_path, env)
    child = spawn(["--model", f"script:{script}", "--transcript", str(journal)], offline, tmp_path)
    child.expect(">")
    child.sendline("use the package")
    child.expect(r"Run this code\?")
    child.sendline("y")
    child.expect(f"No module named '{PACKAGE}'")
    child.expect(rf"Install {PACKAGE} into the kernel's environment with %pip install {PACKAGE}\? \[y/n\]")
    child.sendline("n")
    child.expect("I stop here")
    child.expect(">")
    child.sendline("multiply")
    child.expect(r"Run this code\?")
    child.sendline("y")
    child.expect("42")
    child.expect(">")
    finish(child)
    assert child.exitstatus == 0
    assert list(target.iterdir()) == [], "declining installs nothing"
    executions = records(journal, "execution")
    assert [(e["code"], e["status"]) for e in executions] == [
        (f"import {PACKAGE}\nprint({PACKAGE}.VALUE)", "error"), ("print(6 * 7)", "ok")]
    feedback = [r["content"] for r in records(journal, "user") if r.get("kind") == "feedback"][0]
    assert f"The module `{PACKAGE}` is not installed" in feedback
    assert "the user chose not to install it" in feedback and "Do not import it again" in feedback


def test_accepting_installs_from_a_local_wheel_and_reruns_the_block_even_under_y(
        tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, [f"```python\nimport {PACKAGE}\nprint('value', {PACKAGE}.VALUE)\n```", "Done."])
    journal = tmp_path / "j.jsonl"
    offline, target = _offline_pip(tmp_path, env)
    # -y alone puts code under the sandbox's no-network rule (sandbox = auto), where nothing is offered; off here.
    child = spawn(["-y", "--sandbox", "off", "--model", f"script:{script}", "--transcript", str(journal)], offline,
                  tmp_path)
    child.expect(">")
    child.sendline("use the package")
    child.expect(r"\? \[y/n\]", timeout=60)  # -y runs code unasked, but installing is still asked
    child.sendline("y")
    child.expect("value 42", timeout=120)
    child.expect(">")
    finish(child)
    assert (target / PACKAGE / "__init__.py").is_file()
    executions = records(journal, "execution")
    assert [(e["code"].splitlines()[0], e["status"]) for e in executions] == [
        (f"import {PACKAGE}", "error"), (f"%pip install {PACKAGE}", "ok"), (f"import {PACKAGE}", "ok")]
    assert "Successfully installed" in executions[1]["output"]


def _fake_run(result: ExecutionDone, ran: list[str]):
    def run(block: CodeBlock) -> Generator[Event, None, ExecutionDone]:
        ran.append(block.code)
        yield Notice(f"ran {block.code}")
        return result if block.code.startswith("import") else ExecutionDone("python", block.code, "ok", "", None, 0)
    return run


def _drive(gen: Generator[Event, None, ExecutionDone], answer: str | None = None) -> tuple[list[Event], ExecutionDone]:
    events = []
    try:
        while True:
            event = next(gen)
            if isinstance(event, InstallOffer):
                event.answer = answer
            events.append(event)
    except StopIteration as stop:
        return events, stop.value


@pytest.mark.parametrize(("settings", "why", "offered"), [
    ({"may_ask": True, "auto": False, "network": False}, "the sandbox forbids network access", False),
    ({"may_ask": True, "auto": True, "network": False}, "the sandbox forbids network access", False),
    ({"may_ask": False, "auto": False, "network": True}, "nobody is at a terminal", False),
    ({"may_ask": True, "auto": False, "network": True}, "the user chose not to install it", True),
], ids=["no-network", "no-network-beats-consent", "no-terminal", "declined"])
def test_nothing_is_installed_without_consent_and_network(settings: dict, why: str, offered: bool) -> None:
    packages = Packages(Prompts.load())
    failed = ExecutionDone("python", "import sklearn", "error", "", MISSING.format("sklearn"), 0)
    ran: list[str] = []
    events, done = _drive(packages.after_failure(failed, CodeBlock("python", "import sklearn"),
                                                 _fake_run(failed, ran), **settings), answer="n")
    assert ran == []
    assert any(isinstance(e, InstallOffer) for e in events) == offered
    assert why in done.note and "%pip install scikit-learn" in done.note
    later = ExecutionDone("python", "x = 1 / 0", "error", "", "ZeroDivisionError: division by zero", 0)
    _, reminded = _drive(packages.after_failure(later, CodeBlock("python", "x = 1 / 0"), _fake_run(later, ran),
                                                **settings))
    assert "do not import them: sklearn." in reminded.note, "later failures remind the model"


def test_consent_in_the_config_installs_the_mapped_package_without_asking() -> None:
    failed = ExecutionDone("python", "import cv2", "error", "", MISSING.format("cv2"), 0)
    fixed = ExecutionDone("python", "import cv2", "ok", "", None, 0)
    ran: list[str] = []
    events, done = _drive(Packages(Prompts.load()).after_failure(
        failed, CodeBlock("python", "import cv2"), _fake_run(fixed, ran), may_ask=True, auto=True, network=True))
    assert ran == ["%pip install opencv-python", "import cv2"]
    assert not any(isinstance(e, InstallOffer) for e in events)
    assert done is fixed and done.note == ""


def test_an_install_that_does_not_help_is_said_so() -> None:
    failed = ExecutionDone("python", "import yaml", "error", "", MISSING.format("yaml"), 0)
    ran: list[str] = []
    _, done = _drive(Packages(Prompts.load()).after_failure(
        failed, CodeBlock("python", "import yaml"), _fake_run(failed, ran), may_ask=True, auto=False, network=True),
        answer="y")
    assert ran == ["%pip install pyyaml", "import yaml"]
    assert "did not make it importable" in done.note


def test_import_names_map_to_distributions() -> None:
    table = Prompts.load().packages
    assert [distribution(m, table) for m in ("sklearn", "cv2", "PIL", "yaml", "bs4", "requests")] == [
        "scikit-learn", "opencv-python", "pillow", "pyyaml", "beautifulsoup4", "requests"]
    assert distribution("numpy.fake_submodule", table) is None  # the package imported: nothing to install
    assert distribution("google.protobuf", table) == "protobuf"
    assert distribution("-r evil", table) is None
    assert missing_module("ValueError: x") is None
    assert missing_module(MISSING.format("a") + "\n" + MISSING.format("b")) == "b"


def test_the_modules_code_imports_are_found_without_the_standard_library() -> None:
    code = ("import pandas as pd\nimport matplotlib.pyplot as plt\nimport csv, os\nfrom sklearn.linear_model import X\n"
            "from . import local\ndef f():\n    import numpy\n")
    assert imports(code) == ["pandas", "matplotlib", "numpy", "sklearn"]
    assert imports("import (") == []


def test_the_code_s_other_installed_modules_are_named_with_the_missing_one() -> None:
    code = "import pandas as pd\nimport matplotlib.pyplot as plt\nimport scipy\nimport csv"
    failed = ExecutionDone("python", code, "error", "", MISSING.format("pandas"), 0)
    asked: list[list[str]] = []

    def installed(names: list[str]) -> list[str]:
        asked.append(names)
        return [name for name in names if name == "matplotlib"]

    _, done = _drive(Packages(Prompts.load(), installed).after_failure(
        failed, CodeBlock("python", code), _fake_run(failed, []), may_ask=False, auto=False, network=True))
    assert asked == [["matplotlib", "scipy"]]
    assert done.note.endswith("\nInstalled, and imported by this code too: matplotlib. Rewrite the code without "
                              "pandas, and keep what it does with those.")
    alone = ExecutionDone("python", "import pandas", "error", "", MISSING.format("pandas"), 0)
    _, done = _drive(Packages(Prompts.load(), installed).after_failure(
        alone, CodeBlock("python", "import pandas"), _fake_run(alone, []), may_ask=False, auto=False, network=True))
    assert "Installed, and imported" not in done.note and len(asked) == 1  # nothing else imported: nothing asked


def test_the_real_kernel_says_which_other_modules_are_installed(tmp_path: Path, env: dict[str, str]) -> None:
    code = "import interp_surely_missing\nimport psutil\nimport interp_also_missing\nprint(1)"
    result, told = run_scripted(tmp_path, env, [f"```python\n{code}\n```", "It needs a module that is not installed."],
                                "print one")
    assert "interp_surely_missing is not installed" in result.stderr  # the turn fails: exit status 1
    assert "The module `interp_surely_missing` is not installed" in told[1]
    assert "Installed, and imported by this code too: psutil." in told[1]
