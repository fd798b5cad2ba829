"""The sandbox's policy, its texts and its decisions, without a kernel (see test_sandbox_cli.py for enforcement)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from string import Template

import pytest

from interp.config import ConfigError, resolve
from interp.prompts import Prompts
from interp.runtime import places
from interp.runtime import sandbox as sandbox_module
from interp.runtime.sandbox import Enforcement, Policy, Sandbox, SandboxError, build, explain, macos_profile

LINUX = Enforcement("linux", landlock_abi=7, netns=True)
NONE = Enforcement("linux", landlock_abi=0)
TEMP = str(Path(tempfile.gettempdir()).resolve())


def test_workspace_writes_in_cwd_temp_and_allowed_paths(tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    policy = build("workspace", str(tmp_path / "work"), [str(extra)], allow_net=False)
    assert policy.writable == (str(tmp_path / "work"), TEMP, str(extra))
    assert not policy.network
    assert build("workspace", str(tmp_path), [], allow_net=True).network


def test_read_only_writes_only_in_temp(tmp_path: Path) -> None:
    assert build("read-only", str(tmp_path), [], allow_net=False).writable == (TEMP,)


def test_an_allowed_path_that_does_not_exist_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match="--allow-write .*missing: no such file"):
        build("workspace", str(tmp_path), [str(tmp_path / "missing")], allow_net=False)


@pytest.mark.parametrize("path", ["", "  "])
def test_an_empty_allowed_path_is_a_usage_error_not_the_working_directory(tmp_path: Path, path: str) -> None:
    with pytest.raises(SandboxError, match="--allow-write needs a path"):
        build("read-only", str(tmp_path), [path], allow_net=False)


def test_allow_write_from_config_and_environment(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('allow_write = ["/a", "/b"]\nsandbox = "read-only"\n')
    found, _ = resolve({}, None, config, environ={})
    assert found.allow_write == ("/a", "/b") and found.sandbox == "read-only"
    found, sources = resolve({"sandbox": "off"}, None, config, environ={"INTERP_ALLOW_WRITE": "/c:/d"})
    assert found.allow_write == ("/c", "/d") and sources["allow_write"] == "INTERP_ALLOW_WRITE"
    assert found.sandbox == "off" and sources["sandbox"] == "flag"
    assert resolve({"allow_write": ["/e", "/f"]}, None, config, environ={})[0].allow_write == ("/e", "/f")
    with pytest.raises(ConfigError, match="INTERP_SANDBOX: 'sandbox' must be auto or workspace or read-only or off"):
        resolve({}, None, config, environ={"INTERP_SANDBOX": "jail"})
    config.write_text("allow_write = [1]\n")
    with pytest.raises(ConfigError, match="list of paths"):
        resolve({}, None, config, environ={})


def test_macos_profile_denies_writes_but_in_the_writable_places_and_the_network() -> None:
    text = macos_profile(Policy("workspace", ("/Users/me/work", "/private/tmp")))
    assert text.startswith("(version 1)\n(allow default)\n(deny file-write*)\n")
    assert '(allow file-write* (subpath "/Users/me/work") (subpath "/private/tmp")' in text
    assert '(literal "/dev/null")' in text
    assert "(deny network*)" in text and "(allow network* (remote unix-socket))" in text
    assert text.count("(") == text.count(")")
    assert "network" not in macos_profile(Policy("workspace", ("/w",), network=True))


def test_macos_profile_quotes_paths() -> None:
    assert r'(subpath "/a \"b\" \\c")' in macos_profile(Policy("workspace", ('/a "b" \\c',)))


@pytest.mark.parametrize("text", [
    "PermissionError: [Errno 13] Permission denied: '/home/u/outside.txt'",
    "bash: line 2: /home/u/outside.txt: Permission denied",
    "sh: 1: cannot create /home/u/outside.txt: Permission denied",
    "touch: cannot touch '/home/u/outside.txt': Permission denied",
])
def test_a_denied_write_outside_is_explained_with_its_rule(text: str) -> None:
    policy = Policy("workspace", ("/work", "/tmp"))
    said = explain(policy, text, "/work")
    assert said is not None and "/home/u/outside.txt" in said and "workspace" in said and "--allow-write" in said


def test_a_denial_inside_the_writable_places_is_not_the_sandbox() -> None:
    policy = Policy("workspace", ("/work", "/tmp"))
    assert explain(policy, "PermissionError: [Errno 13] Permission denied: 'sub/locked.txt'", "/work") is None
    assert explain(policy, "all fine", "/work") is None


def test_a_denied_connection_is_explained_as_the_network_rule() -> None:
    said = explain(Policy("workspace", ("/w",)), "PermissionError: [Errno 13] Permission denied", "/w")
    assert said is not None and "no network" in said and "--allow-net" in said
    assert explain(Policy("workspace", ("/w",), network=True), "[Errno 13] Permission denied", "/w") is None


@pytest.fixture
def place(tmp_path: Path) -> str:
    return str(tmp_path / "w")


def sandbox(setting: str, enforcement: Enforcement = LINUX, existing: bool = False, place: str = "/nonexistent/w"
            ) -> Sandbox:
    return Sandbox(setting, Policy("workspace", (place,)), enforcement, existing=existing)


def test_auto_confines_from_the_start_only_under_y(place: str) -> None:
    under_y, by_hand = sandbox("auto", place=place), sandbox("auto", place=place)
    assert under_y.start(auto_run=True) == ([], None) and under_y.launch_policy() is not None
    assert by_hand.start(auto_run=False) == ([], None) and by_hand.launch_policy() is None
    assert "off until auto-run" in by_hand.describe()
    assert Path(place).is_dir()  # a writable place must exist for the OS to name it in a rule


def test_an_explicit_mode_confines_confirmed_code_too_and_off_never(place: str) -> None:
    explicit, off = sandbox("workspace", place=place), sandbox("off", place=place)
    explicit.start(auto_run=False)
    off.start(auto_run=True)
    assert explicit.launch_policy() is not None and off.launch_policy() is None and off.describe() == "off"


def test_unavailable_enforcement_refuses_auto_run_and_says_so_once() -> None:
    notices, refusal = sandbox("auto", NONE).start(auto_run=True)
    assert notices == [] and refusal is not None and "--sandbox off" in refusal
    notices, refusal = sandbox("auto", NONE).start(auto_run=False)
    assert refusal is None and len(notices) == 1 and "--sandbox off" in notices[0]
    refusal = sandbox("auto", NONE).enable()
    assert refusal is not None and "--sandbox off" in refusal
    assert sandbox("off", NONE).start(auto_run=True) == ([], None)


def test_an_attached_kernel_is_said_to_be_outside_the_sandbox() -> None:
    attached = sandbox("auto", existing=True)
    notices, refusal = attached.start(auto_run=True)
    assert refusal is None and "outside interp's control" in notices[0]
    assert attached.launch_policy() is None and attached.describe() == "off"
    assert attached.enable() is None


def test_protected_places_in_the_workspace_need_a_mount_namespace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                    ) -> None:
    """interp's settings under the working directory (interp started in ~): Landlock alone cannot keep them read-only
    there, so auto-run is refused where no mount namespace can be made, and allowed where one can."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    policy = build("workspace", str(tmp_path / "home"), [], False)
    without = Sandbox("auto", policy, Enforcement("linux", landlock_abi=7, netns=False, mounts=False))
    refusal = without.enable()
    assert refusal is not None and ".config/interp" in refusal and "project folder" in refusal
    assert without.start(auto_run=True)[1] is not None
    assert Sandbox("auto", policy, Enforcement("linux", landlock_abi=7, netns=True, mounts=True)).enable() is None
    monkeypatch.setenv("XDG_CONFIG_HOME", "/nonexistent/.config")  # not in the temp directory either
    monkeypatch.setattr(places, "installed", lambda: ["/nonexistent/install"])  # wherever this checkout is
    elsewhere = Sandbox("auto", build("workspace", str(tmp_path / "project"), [], False),
                        Enforcement("linux", landlock_abi=7))
    assert elsewhere.enable() is None


def test_interp_installed_where_code_may_write_is_said_in_one_line(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A clone in the temp directory, set up there (its .venv too): sandboxed code may write the temp directory, so
    interp's own installation is writable to it. With a mount namespace it is kept read-only; without one, auto-run is
    refused in one line that names the installation and the fix."""
    install = tmp_path / "clone" / ".venv"
    install.mkdir(parents=True)
    for module in (places, sandbox_module):
        monkeypatch.setattr(module, "installed", lambda: [str(install)])
    monkeypatch.setenv("XDG_CONFIG_HOME", "/nonexistent/.config")
    policy = build("workspace", "/nonexistent/project", [str(tmp_path)], False)
    refusal = Sandbox("auto", policy, Enforcement("linux", landlock_abi=7)).enable()
    assert refusal is not None and "\n" not in refusal
    assert f"interp's own installation ({install}) lies in a place sandboxed code may write (" in refusal
    assert "install interp elsewhere" in refusal
    assert Sandbox("auto", policy, Enforcement("linux", landlock_abi=7, netns=True, mounts=True)).enable() is None


def test_a_write_to_a_protected_place_is_explained_as_such(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / ".config"))
    said = explain(Policy("workspace", (str(tmp_path),)), "OSError: [Errno 30] Read-only file system: "
                   f"'{tmp_path / '.config' / 'interp' / 'config.toml'}'", str(tmp_path))
    assert said is not None and "may never write" in said


def test_the_system_prompt_states_the_policy_while_it_is_on(place: str) -> None:
    template = Prompts.load().sandbox
    assert isinstance(template, Template)
    box = sandbox("auto", place=place)
    assert box.prompt(template) == ""
    box.start(auto_run=True)
    text = box.prompt(template)
    assert f"write only in {place}" in text and "no network" in text and "Permission denied" in text
