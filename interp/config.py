"""Settings from four places, each overriding the one before: defaults < config file < environment < flags.

The config file is TOML in the user config folder; top-level keys apply always, `[profiles.NAME]` tables apply with
`--profile NAME`. Environment variables are the keys in upper case with an INTERP_ prefix (INTERP_CTX=4096).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import platformdirs

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

# Every setting that a file, the environment or a flag can give, with its default.
DEFAULTS: dict[str, Any] = {
    "model": None,
    "api_base": None,
    "api_key": None,
    "ctx": 0,
    "threads": 0,
    "gpu_layers": None,
    "temperature": 0.2,
    "max_tokens": 1024,
    "max_attempts": 3,
    "timeout": 120.0,
    "max_output": 2000,
    "condense": "cut",
    "reflect": False,
    "speculative": True,
    "yes": False,
    "plain": False,
    "open_images": False,
}
_TYPES: dict[str, type] = {"ctx": int, "threads": int, "gpu_layers": int, "temperature": float, "max_tokens": int,
                           "max_attempts": int, "timeout": float, "max_output": int, "yes": bool, "plain": bool,
                           "open_images": bool, "reflect": bool, "speculative": bool}


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
    """A config file or variable interp cannot use; the message is one line naming the place."""


def config_path() -> Path:
    return Path(os.environ.get("INTERP_CONFIG") or Path(platformdirs.user_config_dir("interp")) / "config.toml")


def _convert(key: str, value: Any, where: str) -> Any:
    if key not in DEFAULTS:
        raise ConfigError(f"{where}: unknown setting '{key}' (known: {', '.join(DEFAULTS)})")
    kind = _TYPES.get(key, str)
    if isinstance(value, str) and kind is not str:
        if kind is bool:
            if value.lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                raise ConfigError(f"{where}: '{key}' must be true or false, not {value!r}")
            return value.lower() in ("1", "true", "yes", "on")
        try:
            return kind(value)
        except ValueError:
            raise ConfigError(f"{where}: '{key}' must be a {kind.__name__}, not {value!r}") from None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigError(f"{where}: '{key}' must be a {kind.__name__}, not {value!r}")
    return value


def resolve(flags: dict[str, Any], profile: str | None, path: Path | None = None,
            environ: dict[str, str] | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """The effective settings and, for each, where it came from: 'default', the file (and profile), 'INTERP_X',
    or 'flag'. `flags` holds only the settings given on the command line."""
    path = path or config_path()
    environ = os.environ if environ is None else environ
    values, sources = dict(DEFAULTS), dict.fromkeys(DEFAULTS, "default")
    data: dict[str, Any] = {}
    if path.exists():
        try:
            text = path.read_text(encoding="utf-8")
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            where = f"at line {text.count(chr(10)) + 1}, the end of the file"
            raise ConfigError(f"{path}: {str(exc).replace('at end of document', where)}") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start + 1})") from None
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read it: {exc.strerror}") from None
    profiles = data.pop("profiles", {})
    if not isinstance(profiles, dict):
        raise ConfigError(f"{path}: 'profiles' must be tables, [profiles.NAME]")
    for key, value in data.items():
        values[key], sources[key] = _convert(key, value, str(path)), str(path)
    if profile is not None:
        if profile not in profiles:
            raise ConfigError(f"{path}: no profile '{profile}' (profiles: {', '.join(profiles) or 'none'})")
        if not isinstance(profiles[profile], dict):
            raise ConfigError(f"{path}: profile '{profile}' must be a table, [profiles.{profile}]")
        for key, value in profiles[profile].items():
            where = f"{path} [profiles.{profile}]"
            values[key], sources[key] = _convert(key, value, where), where
    for key in DEFAULTS:
        name = f"INTERP_{key.upper()}"
        if name in environ:
            values[key], sources[key] = _convert(key, environ[name], name), name
    for key, value in flags.items():
        values[key], sources[key] = value, "flag"
    return values, sources
