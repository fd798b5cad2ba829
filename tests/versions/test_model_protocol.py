"""The model protocol names what every model does (models/base.py), and replies decoded together are a service that
only some models offer (base.Together, the llama.cpp model's, together.py): a model without it runs the same turns,
each reply asked for alone; Seeded passes the service through, still seeding and tallying; the modules of
interp.models import one another without a cycle."""

from __future__ import annotations

import ast
import threading
from dataclasses import fields
from pathlib import Path

import pytest
from fakes import BatchingModel, KeepingModel, ScriptedKernel, make_session, raised, turn
from test_choosing import OTHER as OTHER_VERSION
from test_choosing import REQUEST as STUB_REQUEST
from test_choosing import RIGHT as RIGHT_VERSION
from test_choosing import scored, session_replies
from test_examples import FAILURE, REQUEST, RIGHT, WRONG

from interp.cli.startup import PendingModel, Startup
from interp.models.base import (
    NOTHING_AHEAD,
    Ahead,
    GenParams,
    Model,
    Seeded,
    Together,
    ahead_at,
    complete_beside,
    complete_text,
    model_file,
    together_service,
    waiting,
)
from interp.models.remote import RemoteModel
from interp.models.script import ScriptModel
from interp.turn.policy.drawing import TOGETHER
from interp.versions.fresh import FRESH_TEMPERATURE

MODELS = Path(__file__).resolve().parents[2] / "interp" / "models"


def _members(protocol: type) -> set[str]:
    return {name for name in vars(protocol) if not name.startswith("_")}


def test_the_model_protocol_has_exactly_its_methods_and_decoding_together_is_a_service_of_its_own() -> None:
    assert _members(Model) == {"name", "n_ctx", "complete", "count_tokens", "choose", "close"}
    assert _members(Together) == {"waiting", "complete"}
    assert {f.name for f in fields(GenParams)} == {"max_tokens", "temperature", "ignore_eos", "seed", "speculative",
                                                   "opening"}
    assert {f.name for f in fields(Ahead)} == {"together", "beside", "whole", "deadline"}


def test_the_replies_asked_for_ahead_are_said_by_their_temperatures() -> None:
    """The loop says which temperatures it may ask for next; at one temperature they are drawn together, at several
    each beside at its own, and a single call asks for nothing ahead."""
    assert ahead_at((0.8,)) == NOTHING_AHEAD
    assert ahead_at((0.8, 0.8, 0.8)) == Ahead(together=3)
    assert ahead_at((0.2, 0.8)) == Ahead(beside=(0.8,))
    assert ahead_at((0.2, 0.2, 0.8)) == Ahead(beside=(0.2, 0.8))


def test_only_a_model_that_decodes_replies_together_offers_the_service() -> None:
    from interp.models.llama import LlamaModel

    assert callable(LlamaModel.together)
    assert together_service(ScriptModel([])) is None
    assert together_service(RemoteModel("http://127.0.0.1:9")) is None  # made without asking the server anything
    batching = BatchingModel([])
    assert together_service(batching) is batching


def _run(tmp_path: Path, model: ScriptModel, kernel: ScriptedKernel, request: str, **config: object) -> str:
    session = make_session(tmp_path, [], kernel, **config)
    session.model = model
    _, status = turn(session, request)
    return status


@pytest.mark.parametrize("draw", ["versions", "choosing"])
def test_a_model_without_the_service_runs_a_turn_that_would_have_drawn_replies_together(
        tmp_path: Path, draw: str) -> None:
    """The same turn on a scripted model with the service and without it: without, each reply is asked for alone,
    with the same messages and sampling, and the turn ends the same."""
    if draw == "versions":  # a new version of a function that failed the request's example, four together
        replies, request, config = [WRONG, RIGHT], REQUEST, {}
        kernels = [ScriptedKernel([], [raised("AssertionError", FAILURE)], [], []) for _ in range(2)]
    else:  # asserts at 0.8 beside the ones at 0.2, then versions, once the stub's examples pass
        replies, request, config = session_replies(OTHER_VERSION, RIGHT_VERSION), STUB_REQUEST, {"choose": 3}
        kernels = [ScriptedKernel([], [], scored(True, 3), scored(True, 3), scored(True, 4)) for _ in range(2)]
    batching, plain = BatchingModel(replies), ScriptModel(replies)
    assert _run(tmp_path / "with", batching, kernels[0], request, **config) == "ok"
    assert any(b.together > 1 or b.beside for b in batching.batches)  # it would have drawn replies together
    assert _run(tmp_path / "without", plain, kernels[1], request, **config) == "ok"
    assert plain.calls == batching.calls and plain.params == batching.params
    assert kernels[1].executed == kernels[0].executed
    if draw == "versions":
        assert [b.together for b in batching.batches] == [1, TOGETHER]
        assert plain.params[1].temperature == FRESH_TEMPERATURE


def test_seeded_passes_the_service_through_and_still_seeds_and_counts_each_call() -> None:
    messages = [{"role": "user", "content": "Write it."}]
    params = GenParams(max_tokens=8, temperature=FRESH_TEMPERATURE)
    keeping = KeepingModel(["first", "second"], [0.0])
    seeded = Seeded(keeping, 40)
    assert together_service(seeded) is seeded
    text, _ = complete_text(seeded, messages, params, Ahead(together=2))
    assert text == "first" and keeping.batches == [Ahead(together=2)] and keeping.params[0].seed == 41
    assert waiting(seeded, messages, params)
    text, stats = complete_text(seeded, messages, params)  # the one decoded beside the first, taken whole
    assert text == "second" and stats.kept and keeping.batches[1] == NOTHING_AHEAD and keeping.params[1].seed == 42
    assert seeded.calls == 2
    plain = ScriptModel(["alone"])
    without = Seeded(plain, 40)
    assert together_service(without) is None and not waiting(without, messages, params)
    stream = complete_beside(without, messages, params, Ahead(together=4))  # asked for alone instead
    assert "".join(stream) == "alone" and plain.params[0].seed == 41 and without.calls == 1


class _ReadyKernel:
    def wait_ready(self) -> None:
        pass

    def warm(self, _modules: object) -> None:
        pass


@pytest.mark.parametrize("offers", [True, False])
def test_a_model_still_loading_offers_the_service_of_the_model_it_stands_for(tmp_path: Path, offers: bool) -> None:
    loaded = KeepingModel([], [0.0]) if offers else ScriptModel([])
    startup = Startup(lambda: loaded, _ReadyKernel(), [])
    pending = PendingModel(startup, "a model", 0, tmp_path / "model.gguf", 2)
    assert together_service(pending) is (loaded if offers else None)
    assert (together_service(Seeded(pending)) is not None) == offers


def test_a_model_still_loading_tells_its_file_without_waiting_for_the_load(tmp_path: Path) -> None:
    """What the session reads before the prompt (the file, for the prompts' profile) must not wait for the model."""
    release = threading.Event()
    loaded = ScriptModel([])

    def load() -> ScriptModel:
        release.wait(60)
        return loaded

    pending = PendingModel(Startup(load, _ReadyKernel(), []), "a model", 512, tmp_path / "model.gguf", 3)
    assert model_file(pending) == tmp_path / "model.gguf" and pending.n_threads == 3 and pending.n_ctx == 512
    assert not pending.startup.ready
    release.set()
    assert pending.startup.wait(60) is loaded


def _imported(path: Path) -> set[str]:
    """The interp.models modules a module imports: at its top, under TYPE_CHECKING or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "interp.models":
            found |= {alias.name for alias in node.names if (MODELS / f"{alias.name}.py").exists()}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("interp.models."):
            found.add(node.module.split(".")[2])
    return found


def test_the_modules_of_interp_models_import_one_another_without_a_cycle() -> None:
    graph = {path.stem: _imported(path) for path in MODELS.glob("*.py") if path.stem != "__init__"}
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join([*path, module])
        if module in done:
            return
        for imported in graph.get(module, set()):
            visit(imported, (*path, module))
        done.add(module)

    for module in graph:
        visit(module, ())
    assert graph["llama"] >= {"llama_context", "together", "prefix_cache", "scoring"}
