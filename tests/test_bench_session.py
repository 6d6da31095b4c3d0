"""The recognizer's onnxruntime session settings, and the reference pass's, are the measured ones."""
from __future__ import annotations

import onnxruntime as ort

from lab.bench_reference import REFERENCE_TUNING
from vision.onnx_yolo import TUNING, SessionTuning, session_options


def test_the_recognizer_runs_with_the_settings_measured_fastest():
    opts = session_options(threads=2)
    assert opts.intra_op_num_threads == 2 and opts.inter_op_num_threads == 1
    assert opts.graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    assert opts.execution_mode == ort.ExecutionMode.ORT_SEQUENTIAL
    assert opts.enable_mem_pattern
    assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_each_option_reaches_onnxruntime():
    opts = session_options(tuning=SessionTuning(intra_threads=1, inter_threads=2, graph_level="ORT_DISABLE_ALL",
                                                parallel=True, mem_pattern=False, spinning=True))
    assert (opts.intra_op_num_threads, opts.inter_op_num_threads) == (1, 2)
    assert opts.graph_optimization_level == ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    assert opts.execution_mode == ort.ExecutionMode.ORT_PARALLEL
    assert not opts.enable_mem_pattern
    assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "1"


def test_the_reference_pass_keeps_its_own_settings():
    """Written out apart from the recognizer's, so changing those cannot move the yardstick."""
    assert REFERENCE_TUNING is not TUNING
    assert REFERENCE_TUNING == SessionTuning(intra_threads=2)
