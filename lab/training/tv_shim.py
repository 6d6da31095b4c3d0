"""Make the registry's torchvision importable next to the CPU build of torch.

The torchvision wheel on the package registry is built against CUDA torch; its compiled
ops do not load with `torch==2.13.0+cpu`, and its import then dies on
`operator torchvision::nms does not exist`. Ultralytics needs only `nms` from those ops
(at validation time), so we define the operator schemas ourselves with a pure-torch
NMS before torchvision is imported. Training and export are the only users: run-time
inference goes through onnxruntime and never imports torch.
"""
from __future__ import annotations

import sys

_LIB = None


def _nms(boxes, scores, iou_threshold: float):
    import torch

    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64, device=boxes.device)
    x1, y1, x2, y2 = boxes.unbind(1)
    areas = (x2 - x1).clamp(min=0) * (y2 - y1).clamp(min=0)
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i)
        if order.numel() == 1:
            break
        rest = order[1:]
        xx1 = torch.maximum(x1[i], x1[rest])
        yy1 = torch.maximum(y1[i], y1[rest])
        xx2 = torch.minimum(x2[i], x2[rest])
        yy2 = torch.minimum(y2[i], y2[rest])
        inter = (xx2 - xx1).clamp(min=0) * (yy2 - yy1).clamp(min=0)
        iou = inter / (areas[i] + areas[rest] - inter + 1e-9)
        order = rest[iou <= iou_threshold]
    return torch.stack(keep).to(torch.int64)


def install() -> None:
    """Register `torchvision::nms` (pure torch) unless a working build already has it."""
    global _LIB
    if _LIB is not None or "torchvision" in sys.modules:
        return
    import torch

    if torch.version.cuda is not None:
        return  # a CUDA build of torch (a GPU machine) loads the registry's torchvision as it is
    try:
        torch.ops.torchvision.nms  # a working torchvision build registered it already
        return
    except (AttributeError, RuntimeError):
        pass
    _LIB = torch.library.Library("torchvision", "DEF")
    _LIB.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    _LIB.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    _LIB.impl("nms", _nms, "CPU")
    import torchvision.extension

    # torchvision.ops.nms checks this flag before calling the operator we just defined.
    torchvision.extension._has_ops = lambda: True
