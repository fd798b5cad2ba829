"""Settings: defaults < config file < environment < flags, with profiles and one-line errors."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import records, run_interp, write_script

from interp.config import ConfigError, resolve

CONFIG = """
temperature = 0.5
max_tokens = 300

[profiles.laptop-gpu]
gpu_layers = 99
ctx = 4096
"""


def test_precedence_and_sources(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    config, sources = resolve({"max_tokens": 50}, "laptop-gpu", path, {"INTERP_CTX": "2048", "INTERP_YES": "on"})
    assert config.temperature == 0.5 and sources["temperature"] == str(path)
    assert config.gpu_layers == 99 and sources["gpu_layers"] == f"{path} [profiles.laptop-gpu]"
    assert config.ctx == 2048 and sources["ctx"] == "INTERP_CTX"
    assert config.yes is True
    assert config.max_tokens == 50 and sources["max_tokens"] == "flag"
    assert config.timeout == 120.0 and sources["timeout"] == "default"


@pytest.mark.parametrize(
    ("text", "env", "message"),
    [
        ("temperature = 0.5\nmax_tokens = = 3\n", {}, "line 2"),
        ("colour = 'red'\n", {}, "unknown setting 'colour'"),
        ("ctx = 'big'\n", {}, "'ctx' must be a int"),
        ("", {"INTERP_TIMEOUT": "soon"}, "INTERP_TIMEOUT: 'timeout' must be a float"),
    ],
)
def test_bad_settings_name_the_place(tmp_path: Path, text: str, env: dict[str, str], message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        resolve({}, None, path, env)


def test_missing_profile(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    with pytest.raises(ConfigError, match="no profile 'desk'.*laptop-gpu"):
        resolve({}, "desk", path, {})


def test_config_flag_prints_effective_settings(tmp_path: Path, env: dict[str, str]) -> None:
    folder = tmp_path / "config" / "interp"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(CONFIG)
    result = run_interp(["--config", "--profile", "laptop-gpu", "--max-tokens", "64"],
                        env={**env, "INTERP_TIMEOUT": "30"}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = {line.split(" = ")[0]: line for line in result.stdout.splitlines()}
    assert lines["max_tokens"].startswith("max_tokens = 64") and "(flag)" in lines["max_tokens"]
    assert "(INTERP_TIMEOUT)" in lines["timeout"]
    assert "[profiles.laptop-gpu]" in lines["ctx"]
    assert "(default)" in lines["max_attempts"]


def test_malformed_config_is_a_one_line_usage_error(tmp_path: Path, env: dict[str, str]) -> None:
    folder = tmp_path / "config" / "interp"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text("ctx = 1\nthreads = [\n")
    result = run_interp(["-c", "hi"], env=env, cwd=tmp_path)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "line" in result.stderr


def test_secrets_are_neither_shown_nor_journaled(tmp_path: Path, env: dict[str, str]) -> None:
    shown = run_interp(["--config", "--api-key", "sk-XYZZY-1", "--api-base", "http://me:pw-XYZZY@localhost:1/v1"],
                       env=env, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "XYZZY" not in shown.stdout
    assert "api_key = '***'    (flag)" in shown.stdout and "http://me:***@localhost:1/v1" in shown.stdout
    script = write_script(tmp_path, ["Done."])
    journal = tmp_path / "j.jsonl"
    ran = run_interp(["--api-k=sk-XYZZY-2", "--model", f"script:{script}", "--transcript", str(journal), "hi"],
                     env=env, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "XYZZY" not in journal.read_text()
    assert records(journal, "session")[0]["argv"][0] == "--api-k=***"


@pytest.mark.parametrize(
    ("content", "profile", "message"),
    [
        (b"ctx = 1\ntemperature = 0.\xff\n", None, "not UTF-8 text"),
        (b"profiles = 5\n", None, "'profiles' must be tables"),
        (b"[profiles]\ndesk = 5\n", "desk", "profile 'desk' must be a table"),
    ],
    ids=["not-utf8", "profiles-not-tables", "profile-not-a-table"],
)
def test_unusable_config_files_are_config_errors(tmp_path: Path, content: bytes, profile: str | None,
                                                 message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(content)
    with pytest.raises(ConfigError, match=message):
        resolve({}, profile, path, {})


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--timeout", "nan"], "timeout must be a finite number"),
        (["--timeout", "inf"], "timeout must be a finite number"),
        (["--temperature", "-3"], "temperature must be a finite number, not negative"),
        (["--existing", "list.json"], "list.json: not a usable connection file"),
        (["--existing", "key.json"], "key.json: not a usable connection file"),
    ],
)
def test_unusable_flags_are_one_line_usage_errors(tmp_path: Path, env: dict[str, str], args: list[str],
                                                  message: str) -> None:
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "key.json").write_text('{"key": 5, "transport": "tcp", "ip": "127.0.0.1", "shell_port": 1}')
    script = write_script(tmp_path, ["Done."])
    result = run_interp([*args, "--model", f"script:{script}", "hi"], env=env, cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr, result.stderr


def test_a_developers_settings_do_not_reach_the_tests(tmp_path: Path) -> None:
    """In-process code reads os.environ too (config.resolve, the models folder): conftest removes INTERP_* for
    every test, not only for the interp processes tests start. (Run with INTERP_TIMEOUT=soon to see it matter.)"""
    assert [key for key in os.environ if key.startswith("INTERP_")] == []
    config, sources = resolve({}, None, tmp_path / "none.toml")
    assert set(sources.values()) == {"default"}


@pytest.mark.parametrize(("kind", "said"), [("device", "not a regular file (a device)"),
                                            ("fifo", "not a regular file (a FIFO)"), ("deep", "nested too deeply")])
def test_a_config_file_that_is_no_settings_file_is_one_line(tmp_path: Path, kind: str, said: str) -> None:
    """/dev/zero filled memory and a FIFO hung the start; a deeply nested value ended in a RecursionError."""
    path = tmp_path / "config.toml"
    if kind == "device":
        path = Path("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.write_text("a = " + "[" * 3000 + "]" * 3000 + "\n")
    with pytest.raises(ConfigError, match=re.escape(said)):
        resolve({}, None, path, environ={})


def test_help_shows_a_users_options_first_and_the_knobs_that_measure_the_loop_last() -> None:
    from interp.cli.main import parser
    from interp.config import GROUPS

    text = parser().format_help()
    titles = [line[:-1] for line in text.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert titles[-len(GROUPS):] == list(GROUPS.values())
    parts = re.split("|".join(re.escape(f"\n{t}:\n") for t in GROUPS.values()), text)[1:]
    sections = dict(zip(GROUPS, parts, strict=True))
    assert re.match(r"\s*-y, --yes", sections["session"])
    for knob in ("--without", "--no-open-stub", "--draw-seconds", "--choose", "--no-function-prompt"):
        listed = [group for group, section in sections.items() if re.search(rf"^  {knob}\b", section, re.M)]
        assert listed == ["measure"]
    assert "--rules" not in text
