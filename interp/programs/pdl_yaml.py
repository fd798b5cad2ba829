"""YAML for PDL programs (mappings and list items keep their lines, for messages) and for the data that their
`parser: yaml` reads, both bounded.

A YAML alias stands for a whole node: 30 anchors that each list the one before twice make a 2**30-node document
from 30 lines (the billion laughs). The composed node graph is measured before anything is built from it, with each
alias counted as all that it stands for, and refused over MAX_NODES nodes or MAX_DEPTH levels, or when an alias
refers to a node that contains it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from interp.programs.graph import ProgramError
from interp.programs.limits import MAX_DEPTH, MAX_NODES


class LineMap(dict):
    line = 0


class LineList(list):
    lines: list[int] = []


class _Loader(yaml.SafeLoader):
    """Keeps each mapping's line, and each list item's, for messages."""


def _map(loader: _Loader, node: yaml.MappingNode) -> LineMap:
    loader.flatten_mapping(node)
    result = LineMap(loader.construct_pairs(node, deep=True))
    result.line = node.start_mark.line + 1
    return result


def _seq(loader: _Loader, node: yaml.SequenceNode) -> LineList:
    result = LineList(loader.construct_sequence(node, deep=True))
    result.lines = [item.start_mark.line + 1 for item in node.value]
    return result


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _map)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _seq)


class Oversized(ValueError):
    """A YAML document over the limits; `line` is where the node that went over starts (1-based)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def load_yaml(path: Path, text: str, most: int = MAX_NODES) -> tuple[Any, int]:
    """A program's document and its size in nodes (aliases expanded); ProgramError naming the line otherwise."""
    try:
        return _bounded_load(_Loader, text, most)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ProgramError(path, mark.line + 1 if mark else 0, f"YAML error: {problem}") from None
    except Oversized as exc:
        raise ProgramError(path, exc.line, str(exc)) from None


def load_data(text: str) -> Any:
    """Plain YAML data (a model's output); yaml.YAMLError or Oversized (a ValueError) when it cannot be had."""
    return _bounded_load(yaml.SafeLoader, text, MAX_NODES)[0]


def _bounded_load(loader_class: type[yaml.SafeLoader], text: str, most: int) -> tuple[Any, int]:
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, 0
        size = measure(node, most)
        return loader.construct_document(node), size
    except RecursionError:  # PyYAML composes nested nodes recursively, before any measure
        raise Oversized(0, f"nested too deeply (more than {MAX_DEPTH} levels of lists and mappings)") from None
    finally:
        loader.dispose()


def measure(root: yaml.Node, most: int) -> int:
    """The number of nodes that the document stands for, aliases expanded; Oversized over `most` nodes or
    MAX_DEPTH levels, or for an alias inside the node it names. Each node is visited once (no recursion)."""
    done: dict[int, tuple[int, int]] = {}  # id(node) -> (nodes, depth)
    open_: set[int] = set()  # nodes whose children are being measured: the path from the root
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key, line = id(node), node.start_mark.line + 1
        if children_done:
            parts = [done[id(child)] for child in _children(node)]
            size = 1 + sum(p[0] for p in parts)
            depth = 0 if isinstance(node, yaml.ScalarNode) else 1 + max((p[1] for p in parts), default=0)
            if size > most:
                raise Oversized(line, f"too large: more than {most:,} YAML nodes once its aliases are expanded")
            if depth > MAX_DEPTH:
                raise Oversized(line, f"nested too deeply (more than {MAX_DEPTH} levels of lists and mappings)")
            done[key] = (size, depth)
            open_.discard(key)
        elif key in open_:
            raise Oversized(line, "an alias refers to a node that contains it")
        elif key not in done:
            open_.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in _children(node))
    return done[id(root)][0]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []
