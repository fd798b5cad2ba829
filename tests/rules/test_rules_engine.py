"""The rule engine: order, phases, once-a-turn, scope, ablation, templates by id, and what it reports."""

from __future__ import annotations

import json
from string import Template

import pytest

from interp.rules import Engine, Facts, Finding, Rule, Scope
from interp.rules import templates as rule_templates
from interp.rules.registry import RULES


def _when(word: str, variant: str = ""):
    def detect(facts: Facts) -> Finding | None:
        """Fires when the error holds a word."""
        return Finding({"word": word}, variant) if word in facts.error else None
    return detect


TEMPLATES = {"a": Template("A saw $word"), "b": Template("B saw $word"), "c.loud": Template("C SAW $word"),
             "s": Template("small $word"), "p": Template("pandas $word")}


def _engine(**kwargs) -> Engine:
    rules = [Rule("a", "on_error", _when("x")), Rule("b", "on_error", _when("y"), once=True),
             Rule("c", "after_run", _when("x", "loud")), Rule("s", "on_error", _when("z"), scope=Scope(small=True)),
             Rule("p", "on_error", _when("q"), scope=Scope(libraries=("pandas",)))]
    return Engine(rules, TEMPLATES, **kwargs)


@pytest.mark.parametrize("error, first, fired", [
    ("x y", False, ["a", "b"]),
    ("x y", True, ["a"]),
    ("y", True, ["b"]),
    ("nothing", False, []),
    ("z", False, []),  # a small-model rule, and the model is not small
    ("q", False, []),  # the kernel cannot import pandas
])
def test_a_phase_runs_its_rules_in_order(error: str, first: bool, fired: list[str]) -> None:
    found = _engine().run("on_error", Facts(error=error), first=first)
    assert [f.rule for f in found] == fired


def test_scope_small_models_and_libraries() -> None:
    engine = _engine(small=True)
    facts = Facts(error="z q", importable=lambda module: module == "pandas")
    assert [f.rule for f in engine.run("on_error", facts)] == ["s", "p"]


def test_a_once_a_turn_rule_fires_again_only_in_the_next_turn() -> None:
    engine = _engine()
    assert [f.rule for f in engine.run("on_error", Facts(error="y"))] == ["b"]
    assert engine.run("on_error", Facts(error="y")) == []
    engine.start_turn()
    assert [f.rule for f in engine.run("on_error", Facts(error="y"))] == ["b"]


def test_rules_left_out() -> None:
    assert [f.rule for f in _engine(without=["a"]).run("on_error", Facts(error="x y"))] == ["b"]
    with pytest.raises(ValueError, match="no such rule: nope"):
        _engine(without=["nope"])


def test_the_text_comes_from_the_rule_s_template_and_is_reported_once() -> None:
    engine = _engine()
    found = engine.run("after_run", Facts(error="x"))
    assert [f.text for f in found] == ["C SAW x"]
    assert [f.record() for f in engine.drain()] == [
        {"rule": "c", "phase": "after_run", "variant": "loud", "finding": {"word": "x"}}]
    assert engine.drain() == []


def test_templates_load_by_id_with_variants_and_a_profile_s_own(tmp_path) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "one.md").write_text("One $x\n")
    (tmp_path / "rules" / "two.json").write_text(json.dumps({"up": "Up", "down": "Down"}))
    (tmp_path / "small" / "rules").mkdir(parents=True)
    (tmp_path / "small" / "rules" / "one.md").write_text("Small one")
    loaded = rule_templates.load(tmp_path)
    assert {k: t.template for k, t in loaded.items()} == {"one": "One $x", "two.up": "Up", "two.down": "Down"}
    assert rule_templates.load(tmp_path, "small")["one"].template == "Small one"


def test_every_rule_has_a_unique_id_a_template_and_a_docstring() -> None:
    from interp.prompts import Prompts
    prompts = Prompts.load()
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids))
    for rule in RULES:
        assert rule.doc, rule.id
        assert any(key == rule.id or key.startswith(rule.id + ".") for key in prompts.rules), rule.id


def test_the_rules_page_is_generated_from_the_catalog() -> None:
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, str(root / "scripts" / "rules_doc.py"), "--check"], capture_output=True,
                         text=True, cwd=root)
    assert run.returncode == 0, run.stderr


def test_an_extra_rule_is_said_besides_the_first_and_neither_stops_nor_counts() -> None:
    templates = {key: Template(f"{key} $word") for key in ("a", "b", "e", "f")}
    rules = [Rule("e", "on_error", _when("x"), extra=True), Rule("a", "on_error", _when("x")),
             Rule("b", "on_error", _when("x")), Rule("f", "on_error", _when("y"), extra=True)]
    engine = Engine(rules, templates)
    assert [f.rule for f in engine.run("on_error", Facts(error="x y"), first=True)] == ["e", "a", "f"]
    assert [f.rule for f in engine.run("on_error", Facts(error="x y"))] == ["e", "a", "b", "f"]


def test_a_text_ends_where_its_words_do_and_a_value_that_starts_it_keeps_its_spaces() -> None:
    engine = Engine([], {"k": Template("$key is not here.$more")})
    assert engine.render("k", Finding({"key": " fare", "more": ""})) == " fare is not here."


def test_the_cli_refuses_an_unknown_rule_in_one_line(tmp_path) -> None:
    import os
    import subprocess
    import sys
    script = tmp_path / "s.json"
    script.write_text("[]")
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    run = subprocess.run([sys.executable, "-m", "interp", "--without", "example,nope", "--model", f"script:{script}",
                          "-c", "hi"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert run.returncode == 2
    assert run.stderr.strip() == "interp: no such rule: nope (docs/rules.md lists them)"


def test_unknown_ids_among_comma_joined_items() -> None:
    from interp.rules.registry import unknown
    assert unknown(("example,nope", "", "empty", "x")) == ["nope", "x"]
    assert unknown(()) == []


def test_a_rule_that_fired_is_shown_under_verbose_only() -> None:
    import io

    from rich.console import Console

    from interp.common.events import RuleFired
    from interp.ui.plain import PlainView
    from interp.ui.render import RichView
    event = RuleFired("missing_key", "on_error", "The dict has no key 'x'.\nmore")
    out, err = io.StringIO(), io.StringIO()
    plain = PlainView(out, err)
    plain.show(event)
    assert err.getvalue() == ""
    plain.verbose = True
    plain.show(event)
    assert err.getvalue() == "interp: rule missing_key (on_error): The dict has no key 'x'.\n"
    rich = RichView(Console(file=io.StringIO(), width=100, color_system=None))
    rich.show(event)
    rich.verbose = True
    rich.show(event)
    assert rich.console.file.getvalue().strip() == "rule missing_key (on_error): The dict has no key 'x'."
