"""Train the half reader (`vision.halfreader`) on samples from `half_data` and export it.

A plain small CNN in torch, not an Ultralytics model: the task is one label per end, and a
network this size trains in well under an hour on a laptop CPU. Augmentation at training
time covers what the rendered samples vary least: brightness and contrast, pip colour (the
colour channels shuffled: a set's palette says nothing general about values), mirroring
(a mirrored face is the same value) and a shift of a pixel or two (outline error).
"""
from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Callable

import numpy as np

from vision.halfreader import CLASSES, HALF_H, HALF_W


def make_model(width: int = 16):
    """`width` channels in the first block, doubled twice; 16 is the committed reader."""
    import torch.nn as nn

    w1, w2, w3 = width, 2 * width, 4 * width

    def block(i: int, o: int) -> nn.Module:
        return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    return nn.Sequential(
        block(3, w1), block(w1, w1), nn.MaxPool2d(2),
        block(w1, w2), block(w2, w2), nn.MaxPool2d(2),
        block(w2, w3), block(w3, w3), nn.AdaptiveAvgPool2d((3, 2)),  # 9x8 -> 3x2: whole cells, exportable
        nn.Flatten(), nn.Dropout(0.2), nn.Linear(w3 * 6, 128), nn.ReLU(inplace=True), nn.Linear(128, CLASSES),
    )


def _augment(x, gen):
    """The random draws come from `gen` on the CPU whatever device `x` is on, so a run is the
    same augmentation on a GPU as on a CPU."""
    import torch

    n, dev = x.shape[0], x.device
    # colour: shuffle channels for half the batch, then brightness / contrast
    perm = torch.argsort(torch.rand(n, 3, generator=gen), dim=1)
    swap = torch.rand(n, generator=gen) < 0.5
    idx = torch.where(swap[:, None], perm, torch.arange(3).expand(n, 3)).to(dev)
    x = torch.gather(x, 1, idx[:, :, None, None].expand_as(x))
    gain = 1 + (torch.rand(n, 1, 1, 1, generator=gen).to(dev) - 0.5) * 0.5
    bias = (torch.rand(n, 1, 1, 1, generator=gen).to(dev) - 0.5) * 0.2
    mean = x.mean((1, 2, 3), keepdim=True)
    x = ((x - mean) * gain + mean + bias).clamp(0, 1)
    flip = (torch.rand(n, generator=gen) < 0.5).to(dev)
    x = torch.where(flip[:, None, None, None], x.flip(3), x)
    # shift by up to 2 px
    dx, dy = (int(v) for v in torch.randint(-2, 3, (2,), generator=gen))
    x = torch.roll(x, (dy, dx), (2, 3))
    return x


def _batch(x: np.ndarray, device) -> "torch.Tensor":
    """`to_tensor` on `device`: uint8 moves there (a quarter of the bytes), then is converted."""
    import torch

    t = torch.from_numpy(np.ascontiguousarray(x)).to(device, non_blocking=True)
    return t.flip(-1).permute(0, 3, 1, 2).float().div_(255.0)


def predict(model, x: np.ndarray, batch: int = 1024, device="cpu") -> np.ndarray:
    import torch

    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            out.append(model(_batch(x[i:i + batch], device)).argmax(1).cpu().numpy())
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def accuracy(pred: np.ndarray, y: np.ndarray) -> float:
    return float((pred == y).mean()) if len(y) else 0.0


def evaluate(model, x: np.ndarray, y: np.ndarray, batch: int = 1024, device="cpu") -> float:
    return accuracy(predict(model, x, batch, device), y)


def accuracy_by_value(pred: np.ndarray, y: np.ndarray) -> dict[int, float]:
    """Held-out accuracy per value: the overall figure hides the rare values 13-18, whose
    small tiles are where the reader goes wrong."""
    return {int(v): round(float((pred[y == v] == v).mean()), 4) for v in np.unique(y)}


def train_half_reader(data: Path, out: Path, hours: float = 0.5, batch: int = 256, lr: float = 3e-3,
                      seed: int = 0, log: Callable[[str], None] = print, width: int = 16,
                      init: Path | None = None) -> dict:
    """Train for `hours` of wall clock (the learning rate follows a cosine over that time),
    keep the weights with the best validation accuracy, export `out` (ONNX, dynamic batch).
    Runs on the GPU when torch sees one. `init`: an exported reader to start from
    (`load_exported`; its width is read from the file), which fine-tunes it."""
    import torch
    import torch.nn.functional as F

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    tr = np.load(data / "train.npz")
    va = np.load(data / "val.npz")
    xt, yt = tr["x"], tr["y"]
    xv, yv = va["x"], va["y"]
    if len(yt) == 0:
        raise ValueError(f"{data}: no training samples")
    counts = np.bincount(yt, minlength=CLASSES).astype(np.float64)
    weights = torch.tensor(1.0 / np.sqrt(np.maximum(counts, 1.0)), dtype=torch.float32)
    weights *= CLASSES / weights.sum()
    weights = weights.to(device)
    model = (load_exported(init) if init is not None else make_model(width)).to(device)
    frozen_norm = init is not None
    start = None
    if init is not None:
        pred = predict(model, xv, device=device)
        start = {"val_acc": round(accuracy(pred, yv), 4),
                 "by_value": accuracy_by_value(pred, yv)}
        log(f"half reader before tuning: val accuracy {start['val_acc']:.4f}")
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    budget = hours * 3600
    t0 = time.perf_counter()
    best = (-1.0, None)
    epoch = 0
    history = []
    while time.perf_counter() - t0 < budget:
        model.train()
        if frozen_norm:
            _freeze_norm(model)
        order = np.random.default_rng(seed + epoch).permutation(len(yt))
        seen = 0
        loss_sum = 0.0
        for i in range(0, len(order), batch):
            frac = min(1.0, (time.perf_counter() - t0) / budget)
            for g in opt.param_groups:
                g["lr"] = lr * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * frac)))
            sel = order[i:i + batch]
            xb = _augment(_batch(xt[sel], device), gen)
            yb = torch.from_numpy(yt[sel]).to(device)
            loss = F.cross_entropy(model(xb), yb, weight=weights, label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            seen += len(sel)
            loss_sum += float(loss.detach()) * len(sel)
            if time.perf_counter() - t0 >= budget:
                break
        epoch += 1
        acc = evaluate(model, xv, yv, device=device)
        history.append({"epoch": epoch, "loss": round(loss_sum / max(seen, 1), 4), "val_acc": round(acc, 4),
                        "minutes": round((time.perf_counter() - t0) / 60, 1)})
        log(f"half reader epoch {epoch}: loss {loss_sum / max(seen, 1):.4f}, val accuracy {acc:.4f}")
        if acc > best[0]:
            best = (acc, {k: v.detach().clone() for k, v in model.state_dict().items()})
    if best[1] is not None:
        model.load_state_dict(best[1])
    by_value = accuracy_by_value(predict(model, xv, device=device), yv)
    model = model.cpu()
    torch.save(model.state_dict(), data / "half_reader.pt")  # kept beside the samples in case the export fails
    export_half_reader(model, out)
    res = {"epochs": epoch, "val_acc": best[0], "by_value": by_value, "history": history,
           "train": int(len(yt)), "val": int(len(yv))}
    if start is not None:
        res["before"] = start
    return res


def load_exported(path: Path):
    """The torch network of an exported reader. The export folded each batch norm into the
    convolution before it, so each norm here starts as the identity (mean 0, variance 1 - eps)
    carrying the folded bias, and `_freeze_norm` keeps its statistics fixed while fine-tuning:
    the network computes exactly what the file did until training moves it."""
    import onnx
    import torch
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {i.name: np.array(numpy_helper.to_array(i)) for i in graph.initializer}
    convs = [weights[n.input[1]] for n in graph.node if n.op_type == "Conv"]
    conv_biases = [weights[n.input[2]] for n in graph.node if n.op_type == "Conv"]
    model = make_model(int(convs[0].shape[0]))
    layers = [m for m in model.modules() if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    dense = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    if len(layers) != len(convs) or len(dense) != 2:
        raise ValueError(f"{path}: not a half reader of this network's shape")
    with torch.no_grad():
        for conv, norm, w, b in zip(layers, norms, convs, conv_biases):
            conv.weight.copy_(torch.from_numpy(w))
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.from_numpy(b))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        gemms = [n for n in graph.node if n.op_type == "Gemm"]
        for lin, node in zip(dense, gemms):
            lin.weight.copy_(torch.from_numpy(weights[node.input[1]]))
            lin.bias.copy_(torch.from_numpy(weights[node.input[2]]))
    return model


def _freeze_norm(model) -> None:
    import torch

    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()


def export_half_reader(model, out: Path) -> Path:
    import torch

    model.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(2, 3, HALF_H, HALF_W)
    torch.onnx.export(model, dummy, str(out), input_names=["halves"], output_names=["logits"],
                      dynamic_axes={"halves": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    return out
