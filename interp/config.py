"""Settings: one frozen `Config` whose fields carry type, default and help. The flags (cli.py), the INTERP_*
variables, the TOML file and `--config` all derive from it; adding a setting is adding a field here.

Each value comes from, in rising order: its default, the config file (top-level keys, then `[profiles.NAME]` with
`--profile NAME`), an environment variable (the key in upper case with an INTERP_ prefix: INTERP_CTX=4096), a flag.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import types
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints
from urllib.parse import urlsplit

import platformdirs

from interp.common.regular_files import read_regular

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib


GROUPS = {  # --help's groups of flags, in the order shown: a user's options first, the knobs that measure the loop last
    "session": "the session",
    "model": "the model",
    "kernel": "the kernel",
    "sandbox": "the sandbox",
    "files": "files and output",
    "journal": "conversations and the journal",
    "about": "about interp, then exit",
    "measure": "measuring the loop (each piece of help can be turned off or tuned, to measure what it does)",
}


def setting(default: Any, help: str, group: str, *, shown: str | None = None, short: str | None = None,
            metavar: str | None = None, minimum: float | None = None) -> Any:
    """A Config field. `group`: where --help lists its flag (GROUPS); `shown`: the default as --help says it, where
    the value alone would not tell (None for a model chosen later); `minimum`: values below it, and non-finite
    numbers, are refused from every source."""
    meta = {"help": help, "group": group, "shown": shown, "short": short, "metavar": metavar, "minimum": minimum}
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Config:
    yes: bool = setting(False, "run code without asking first", "session", short="-y")
    model: str | None = setting(
        None, "a GGUF path, a catalog name (qwen2.5-coder-1.5b, qwen2.5-coder-0.5b, smollm2-135m), ollama:NAME[:TAG], "
        "a unique part of a local GGUF's name (see --models), or script:FILE.json", "model", shown="qwen2.5-coder-1.5b")
    api_base: str | None = setting(
        None, "use an OpenAI-compatible server (llama-server, vLLM, Ollama, ...) instead of a local GGUF; --model then "
        "names the model on that server", "model", metavar="URL")
    api_key: str | None = setting(None, "the server's key, if it needs one", "model")
    ctx: int = setting(0, "context window in tokens", "model", shown="the model's, up to 8192", minimum=0)
    threads: int = setting(0, "CPU threads, fixed", "model",
                           shown="chosen from measured speed, up to the physical cores", minimum=0)
    gpu_layers: int | None = setting(None, "layers to offload to the GPU", "model",
                                     shown="all when this build can offload, else 0")
    temperature: float = setting(0.2, "sampling temperature; each failed attempt in a row adds 0.2, up to 1.0", "model",
                                 minimum=0)
    max_tokens: int = setting(1024, "most tokens in one reply", "model", minimum=0)
    seed: int | None = setting(None, "fix the sampling: each model call's seed follows from this one, so the same "
                               "requests, in order, get the same replies again (same model, settings, --threads and "
                               "machine)", "model",
                               shown="a new one each call", metavar="N", minimum=0)
    max_attempts: int = setting(3, "failed executions in a row before a turn stops; 0 = no limit", "session", minimum=0)
    max_steps: int = setting(10, "replies whose code ran in one turn before it stops, the versions of a function drawn "
                             "apart (--candidates, --draw-seconds); 0 = no limit", "session", minimum=0)
    timeout: float = setting(120.0, "seconds one execution may run before it is interrupted; 0 = none", "kernel",
                             minimum=0)
    max_output: int = setting(2000, "characters of an execution's output kept for the model, head and tail", "session",
                              minimum=0)
    condense: Literal["cut", "summary"] = setting(
        "cut", "when the window is full: cut old turns, or have the model summarize them", "session")
    reflect: bool = setting(False, "after a second failure in a row, ask the model for the cause first (off: no gain "
                            "measured)", "measure")
    verify: bool = setting(False, "ask the model for asserts that test a function its code defined and never called, "
                           "keep them, and feed a failing one back (off: no gain measured yet)", "measure")
    check_examples: bool = setting(True, "run the request's `>>> call` / value examples as asserts once the code "
                                   "defines a function they call, and feed a failing one back", "measure")
    function_prompt: bool = setting(True, "answer a request to write a function given as a stub (a def with only a "
                                    "docstring) under a function-writing system prompt, prompts/function.md, rather "
                                    "than the task prompt", "measure")
    open_stub: bool = setting(True, "begin the reply to a function stub (under the function-writing prompt) with "
                              "the request's code up to the stub's docstring, so the model writes only the body "
                              "instead of copying the docstring first (llama.cpp models)", "measure")
    candidates: int = setting(16, "when a function fails an example the request gives (or its code fails: "
                              "does not parse, raises), draw up to this many new "
                              "versions from the request alone, the failed ones set aside, and keep the first that "
                              "passes; 0 = ask for a fix of the failed one instead", "measure", minimum=0)
    draw_seconds: float = setting(45.0, "draw no new version of a function once the turn has run this many seconds, "
                                  "and cut one still being written 5 s later; 0 = no limit", "measure", minimum=0)
    choose: int = setting(5, "once a function the request gives as a stub passes the request's examples, and code runs "
                          "without asking: ask the model for asserts on other inputs, draw up to this many more "
                          "versions from the request alone, and keep the one whose asserts passed, times the versions "
                          "drawn that give the same values, are the most, the first of equals (none begun after "
                          "--draw-seconds); 0 = off", "measure", metavar="N", minimum=0)
    preview_files: bool = setting(True, "show the model a short preview of each existing file a request names by "
                                  "its path, as @path does, so that its code fits the file's real layout", "files")
    session_state: bool = setting(True, "tell the model, with each request, what the kernel holds (its frames with "
                                  "their columns, fitted models, functions), read from the kernel", "session")
    recall: int = setting(3, "earlier observations that have left the window recalled for each request, by "
                          "relevance; 0 = off", "session", metavar="N", minimum=0)
    without: tuple[str, ...] = setting((), "rule ids left out of the help interp gives the model (to measure them)",
                                       "measure", metavar="RULE")
    plain: bool = setting(False, "plain text output with no colours or escape codes", "files")
    open_images: bool = setting(False, "open images that code displays in the system viewer", "files")
    inline_images: Literal["auto", "kitty", "sixel", "blocks", "off"] = setting(
        "auto", "draw images that code displays in the terminal too, as Kitty graphics, Sixel or Unicode half-blocks; "
        "auto: chosen by the terminal (half-blocks in tmux, screen and terminals not known to draw pixels); off: only "
        "save them, as --plain, NO_COLOR and output that is not a terminal do", "files")
    auto_install: bool = setting(False, "install a package that code found missing without asking (asked "
                                 "otherwise, even with -y)", "kernel")
    kernel: str | None = setting(None, "run Python code in this installed Jupyter kernel (a project's, registered "
                                 "with `python -m ipykernel install --user --name NAME`); it must be a Python kernel",
                                 "kernel", shown="python3, in interp's own environment", metavar="NAME")
    python: str | None = setting(None, "run Python code in ipykernel under this interpreter (a project's "
                                 ".venv/bin/python); it needs ipykernel installed", "kernel", metavar="PATH")
    sandbox: Literal["auto", "workspace", "read-only", "off"] = setting(
        "auto", "what code may touch, enforced by the OS: workspace (write only in the working directory and the temp "
        "directory; no network), read-only (write only in the temp directory), off; "
        "auto: workspace while code runs without asking (-y, or after `a`), off while each block is confirmed",
        "sandbox")
    allow_net: bool = setting(False, "let sandboxed code use the network", "sandbox")
    allow_write: tuple[str, ...] = setting(
        (), "let sandboxed code write under PATH too (repeatable; INTERP_ALLOW_WRITE takes paths joined by "
        f"'{os.pathsep}')", "sandbox", metavar="PATH")
    speculative: bool = setting(True, "verify drafts copied from earlier text (a repair re-typing its block) in "
                                "batches; --no-speculative decodes one token at a time", "measure")


FIELDS = {f.name: f for f in fields(Config)}
_HINTS = get_type_hints(Config)


SECRET = "***"  # what is shown or written in place of a key or a password


def redact(key: str, value: Any) -> Any:
    """A setting as it may be shown or written: the API key hidden, a password in the server's URL hidden."""
    if value and key == "api_key":
        return SECRET
    if value and key == "api_base":
        return redact_url(str(value))
    return value


def redact_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", f":{SECRET}@", 1)).geturl()


def redact_argv(argv: list[str]) -> list[str]:
    """A command line as it may be written to the journal: the values of --api-key (and of its abbreviations, which
    argparse accepts) and passwords in URLs hidden."""
    shown, hide_next = [], False
    for arg in argv:
        flag, equals, value = arg.partition("=")
        if hide_next:
            shown.append(SECRET)
        elif len(flag) > len("--api-") and "--api-key".startswith(flag):
            shown.append(f"{flag}={SECRET}" if equals else arg)
            hide_next = not equals
            continue
        else:
            shown.append(redact_url(arg) if "://" in arg else arg)
        hide_next = False
    return shown


class ConfigError(Exception):
    """A config file, variable or flag interp cannot use; the message is one line naming the place."""


def config_path() -> Path:
    return Path(os.environ.get("INTERP_CONFIG") or Path(platformdirs.user_config_dir("interp")) / "config.toml")


def _kind(key: str) -> tuple[type, tuple[str, ...]]:
    """The field's value type (None stripped from an optional) and its choices, for a Literal."""
    hint = _HINTS[key]
    if get_origin(hint) is Literal:
        return str, get_args(hint)
    if get_origin(hint) is tuple:  # paths: tuple[str, ...]
        return tuple, ()
    if get_origin(hint) in (Union, types.UnionType):
        hint = next(arg for arg in get_args(hint) if arg is not type(None))
    return hint, ()


def add_flags(p: argparse.ArgumentParser) -> dict[str, argparse._ArgumentGroup]:
    """One flag per Config field, each in its group (GROUPS); returns the groups, for the flags that are not
    settings. A flag that is not given leaves no value (SUPPRESS), so the file and the environment can apply."""
    groups = {name: p.add_argument_group(title) for name, title in GROUPS.items()}
    for key, f in FIELDS.items():
        kind, choices = _kind(key)
        meta = f.metadata
        g = groups[meta["group"]]
        names = [*([meta["short"]] if meta["short"] else []), "--" + key.replace("_", "-")]
        shown = meta["shown"] or (None if f.default is None or kind in (bool, tuple) else f"{f.default:g}"
                                  if isinstance(f.default, float) else str(f.default))
        text = f"{meta['help']} (default: {shown})" if shown else meta["help"]
        if kind is bool and f.default:  # on unless turned off
            g.add_argument("--no-" + key.replace("_", "-"), dest=key, action="store_false", default=argparse.SUPPRESS,
                           help=meta["help"])
        elif kind is bool:
            g.add_argument(*names, action="store_true", default=argparse.SUPPRESS, help=text)
        elif kind is tuple:
            g.add_argument(*names, action="append", default=argparse.SUPPRESS, help=text, metavar=meta["metavar"])
        else:
            g.add_argument(*names, type=kind, default=argparse.SUPPRESS, help=text, metavar=meta["metavar"],
                           choices=choices or None)
    return groups


def convert(key: str, value: Any, where: str) -> Any:
    """A value for `key` from a file, a variable ('where' names it) or a flag, checked against the field."""
    if key not in FIELDS:
        raise ConfigError(f"{where}: unknown setting '{key}' (known: {', '.join(FIELDS)})")
    kind, choices = _kind(key)
    if kind is tuple:
        return _paths(key, value, where)
    if isinstance(value, str) and kind is not str:
        value = _from_text(key, kind, value, where)
    elif kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigError(f"{where}: '{key}' must be a {kind.__name__}, not {value!r}")
    if choices and value not in choices:
        raise ConfigError(f"{where}: '{key}' must be {' or '.join(choices)}, not {value!r}")
    minimum = FIELDS[key].metadata["minimum"]
    if minimum is not None and isinstance(value, (int, float)) and not minimum <= value < math.inf:
        raise ConfigError(f"{key.replace('_', '-')} must be a finite number, not negative (from {where})")
    return value


def _from_text(key: str, kind: type, value: str, where: str) -> Any:
    if kind is bool:
        if value.lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
            raise ConfigError(f"{where}: '{key}' must be true or false, not {value!r}")
        return value.lower() in ("1", "true", "yes", "on")
    try:
        return kind(value)
    except ValueError:
        raise ConfigError(f"{where}: '{key}' must be a {kind.__name__}, not {value!r}") from None


def _paths(key: str, value: Any, where: str) -> tuple[str, ...]:
    """Paths from a TOML list or repeated flags, or from one string with os.pathsep between them (a variable)."""
    items = [p for p in value.split(os.pathsep) if p] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(item, str) for item in items):
        raise ConfigError(f"{where}: '{key}' must be a list of paths, not {value!r}")
    return tuple(items)


CONFIG_BYTES = 1 << 20  # a settings file is a few lines; a device or a huge file is refused, never read whole


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        text = read_regular(path, CONFIG_BYTES).decode("utf-8")
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = f"at line {text.count(chr(10)) + 1}, the end of the file"
        raise ConfigError(f"{path}: {str(exc).replace('at end of document', where)}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start + 1})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror}") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply") from None


def _layers(path: Path, profile: str | None, environ: Mapping[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """The sources in rising order, each with the values it gives (still to be converted)."""
    data = _read(path)
    profiles = data.pop("profiles", {})
    if not isinstance(profiles, dict):
        raise ConfigError(f"{path}: 'profiles' must be tables, [profiles.NAME]")
    layers = [(str(path), data)]
    if profile is not None:
        if profile not in profiles:
            raise ConfigError(f"{path}: no profile '{profile}' (profiles: {', '.join(profiles) or 'none'})")
        if not isinstance(profiles[profile], dict):
            raise ConfigError(f"{path}: profile '{profile}' must be a table, [profiles.{profile}]")
        layers.append((f"{path} [profiles.{profile}]", profiles[profile]))
    for key in FIELDS:
        if (name := f"INTERP_{key.upper()}") in environ:
            layers.append((name, {key: environ[name]}))
    return layers


def resolve(flags: Mapping[str, Any], profile: str | None, path: Path | None = None,
            environ: Mapping[str, str] | None = None) -> tuple[Config, dict[str, str]]:
    """The effective Config and, for each field, where its value came from: 'default', the file (and profile),
    'INTERP_X', or 'flag'. `flags` holds only the settings given on the command line."""
    values: dict[str, Any] = {}
    sources = dict.fromkeys(FIELDS, "default")
    for where, given in [*_layers(path or config_path(), profile, os.environ if environ is None else environ),
                         ("flag", dict(flags))]:
        for key, value in given.items():
            values[key], sources[key] = convert(key, value, where), where
    return Config(**values), sources


def describe(config: Config, sources: dict[str, str]) -> list[str]:
    """--config: each setting, secrets hidden, and where it came from."""
    return [f"{key} = {redact(key, getattr(config, key))!r}    ({sources[key]})" for key in FIELDS]
