"""PDL parsers: a block's text output as data (json, jsonl, yaml, or a regex's groups)."""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from interp.programs.pdl_yaml import Oversized, load_data

_FENCE = re.compile(r"^\s*```[\w-]*\n(?P<body>.*?)\n?```\s*$", re.DOTALL)


def parse_output(parser: Any, text: str) -> Any:
    """The data in the text; ValueError with one line when it is not there. A reply fenced as a code block is
    unwrapped first (small models fence JSON they were asked for)."""
    fenced = _FENCE.match(text)
    body = fenced["body"] if fenced else text
    if parser == "json":
        return _json(body.strip())
    if parser == "jsonl":
        return [_json(line) for line in body.splitlines() if line.strip()]
    if parser == "yaml":
        try:
            return load_data(body)
        except yaml.YAMLError as exc:
            raise ValueError(f"the output is not YAML ({str(exc).splitlines()[0]}): {_head(text)}") from None
        except Oversized as exc:
            raise ValueError(f"the output is refused ({exc}): {_head(text)}") from None
    return _regex(parser, text)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the output is not JSON ({exc.msg} at column {exc.colno}): {_head(text)}") from None
    except RecursionError:
        raise ValueError(f"the output is nested too deeply: {_head(text)}") from None


def _regex(parser: dict[str, Any], text: str) -> Any:
    try:
        pattern = re.compile(str(parser["regex"]))
    except re.error as exc:
        raise ValueError(f"bad regex: {exc}") from None
    mode = parser.get("mode", "search")
    if mode == "findall":
        return pattern.findall(text)
    if mode not in ("search", "match", "fullmatch"):
        raise ValueError(f"unknown regex mode '{mode}' (search, match, fullmatch or findall)")
    found = getattr(pattern, mode)(text)
    if found is None:
        raise ValueError(f"the output does not match {pattern.pattern!r}: {_head(text)}")
    if pattern.groupindex:
        return found.groupdict()
    return list(found.groups()) if pattern.groups else found.group(0)


def _head(text: str, most: int = 80) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= most else flat[:most] + "…")
