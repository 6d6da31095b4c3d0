"""Int8 copies of the exported models, for the CPU.

The pip reader runs once per tile, so it dominates the time of a frame; static int8
quantisation (onnxruntime, QDQ, per-channel weights) ran it about 1.7x faster on the
AVX-512 VNNI cores this was written on, and 1.2-1.3x on an AVX2 core without VNNI.
The detection head stays in float: its last layers put box pixels (0-160) and class
probabilities (0-1) in one tensor, and a shared int8 scale there rounds every score to zero.
Calibration uses rendered images, never the real photos.
"""
from __future__ import annotations

import random
from pathlib import Path

import cv2

from vision.onnx_yolo import letterbox, to_blob

HEAD_PREFIX = "/model.23/"  # the Detect/OBB head in Ultralytics' yolo11n graphs
HEAD_CONVS_KEPT_INT8 = ("/cv2.", "/cv3.", "/cv4.")  # the head's conv branches quantise fine; its decode does not


def float_nodes(model_path: Path) -> list[str]:
    """Nodes of the head's decode (anchors, distances, concat, sigmoid) that must stay float."""
    import onnx

    graph = onnx.load(str(model_path)).graph
    return [n.name for n in graph.node
            if n.name.startswith(HEAD_PREFIX) and not any(b in n.name for b in HEAD_CONVS_KEPT_INT8)]


def quantize_int8(src: Path, dest: Path, calib_images: list[Path], size: tuple[int, int],
                  max_images: int = 200, seed: int = 0) -> Path:
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType, quant_pre_process,
                                          quantize_static)

    files = sorted(calib_images)
    random.Random(seed).shuffle(files)
    files = files[:max_images]
    if not files:
        raise ValueError("no calibration images")

    class _Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self._it = iter(files)

        def get_next(self):
            for f in self._it:
                img = cv2.imread(str(f))
                if img is not None:
                    return {"images": to_blob([letterbox(img, size)[0]])}
            return None

    dest.parent.mkdir(parents=True, exist_ok=True)
    pre = dest.with_suffix(".pre.onnx")
    quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
    try:
        quantize_static(str(pre), str(dest), _Reader(), nodes_to_exclude=float_nodes(pre),
                        quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    finally:
        pre.unlink(missing_ok=True)
    return dest
