#!/usr/bin/env python3
"""Write case 300 of tests/torch_diff (`torch.fmax`, `torch.fmin`) without PyTorch.

PyTorch was not installed where this case was added, so its expected outputs come from
PyTorch's documented semantics instead of a PyTorch run: "torch.fmax(input, other):
Computes the element-wise maximum of input and other. This is like torch.maximum()
except it handles NaNs differently: if exactly one of the two elements being compared
is a NaN then the non-NaN element is taken as the maximum. Only if both elements are
NaN is NaN propagated. This function is a wrapper around C++'s std::fmax and is similar
to NumPy's fmax function." (and fmin alike). NumPy's np.fmax/np.fmin compute exactly
that; np.log and np.sqrt give PyTorch's values at -0, negatives, ±inf and NaN (-inf at
±0, NaN below). The inputs are generate.py's BX, BY (every pair of its PAIR values); the index
entry says where its data came from ("source"). Running generate.py with PyTorch
replaces this case with PyTorch's own outputs (same id, spec and inputs).

Usage, from the repository root, with a Python that has NumPy:

    python3 tests/torch_diff/fmax_without_torch.py
"""
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
nan, inf = float("nan"), float("inf")
PAIR = [nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 3.0, 7.0, -7.0, 100.0]
BX = np.array([a for a in PAIR for _ in PAIR])
BY = np.array([b for _ in PAIR for b in PAIR])
CID = "300"
SPEC = "z = torch.fmax(torch.log(x), y); w = torch.fmin(input=torch.sqrt(x), other=y)"


def main():
    path = os.path.join(HERE, "index.json")
    with open(path) as f:
        index = json.load(f)
    cases = [c for c in index["cases"] if c["id"] != CID]
    assert len(cases) == int(CID), "case 300 must come right after generate.py's cases"
    d = os.path.join(HERE, "data", CID)
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "in_x.npy"), BX.astype(np.float64))
    np.save(os.path.join(d, "in_y.npy"), BY.astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.fmax(np.log(BX), BY)
        w = np.fmin(np.sqrt(BX), BY)
    np.save(os.path.join(d, "out_z.npy"), z.astype(np.float64))
    np.save(os.path.join(d, "out_w.npy"), w.astype(np.float64))
    cases.append({
        "id": CID,
        "spec": SPEC,
        "inputs": {"x": [len(BX)], "y": [len(BY)]},
        "outputs": ["z", "w"],
        "sizes": {},
        "source": "PyTorch's documented semantics via numpy.fmax/fmin (no PyTorch run)",
    })
    index["cases"] = cases
    with open(path, "w", newline="\n") as f:
        json.dump(index, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
