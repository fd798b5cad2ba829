"""iopub message -> what it means for the run, without a kernel."""

from __future__ import annotations

from interp.common.events import DisplayData, OutputChunk
from interp.runtime.iopub import Idle, Raised, translate


def msg(msg_type: str, content: dict, parent: str = "run-1") -> dict:
    return {"msg_type": msg_type, "content": content, "parent_header": {"msg_id": parent}}


def test_streams_and_plain_results_are_output() -> None:
    assert translate(msg("stream", {"name": "stderr", "text": "warn\n"}), "run-1") == OutputChunk("stderr", "warn\n")
    result = msg("execute_result", {"data": {"text/plain": "42"}, "execution_count": 1})
    assert translate(result, "run-1") == OutputChunk("result", "42\n")


def test_rich_bundles_are_display_data_and_empty_ones_nothing() -> None:
    bundle = {"image/png": "iVBOR", "text/plain": "<Figure>"}
    assert translate(msg("display_data", {"data": bundle}), "run-1") == DisplayData(bundle)
    assert translate(msg("display_data", {"data": {}}), "run-1") is None


def test_an_error_is_cleaned_of_colours_and_falls_back_to_name_and_value() -> None:
    colored = ["\x1b[31mNameError\x1b[0m: x"]
    raised = translate(msg("error", {"ename": "NameError", "evalue": "x", "traceback": colored}),
                       "run-1")
    assert raised == Raised("NameError", "x", "NameError: x")
    assert translate(msg("error", {"ename": "E", "evalue": "v", "traceback": []}), "run-1").error == "E: v"


def test_idle_ends_the_run_and_other_runs_or_states_mean_nothing() -> None:
    assert translate(msg("status", {"execution_state": "idle"}), "run-1") == Idle()
    assert translate(msg("status", {"execution_state": "busy"}), "run-1") is None
    assert translate(msg("status", {"execution_state": "idle"}, parent="other"), "run-1") is None
    assert translate(msg("stream", {"name": "stdout", "text": "x"}, parent="other"), "run-1") is None
    assert translate(msg("execute_input", {"code": "1"}), "run-1") is None
