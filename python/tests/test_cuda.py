"""CUDA source in from Python (`lift.check_cuda`, `lift.lift_cuda`): kernels given as
source text, proved from their calls on NumPy arrays through NVRTC from pip, on the CPU.

Expected verdicts come from the kernels' construction, not from lift: `bias_relu`
computes relu(x + b[0]) for every i < n; `bias_relu_twin` stores x[i] instead at
i == 200 only, so it passes any test that launches fewer than 201 elements. The
KernelBench-style solution is the shape language models hand around (a `load_inline`
string with torch headers, a host wrapper and a PYBIND11 module); its kernel doubles x.

NVRTC is found as the library finds it ($LIFT_NVRTC, else the wheel of $LIFT_PYTHON or
this Python); tests/it/python_package.rs sets LIFT_NVRTC to the one scripts/setup.sh
installs, and without NVRTC these tests fail rather than skip.
"""
import numpy as np
import pytest

import lift

SOURCE = r"""
#include <cuda_runtime.h>
// y = relu(x + b), one thread per element
__global__ void bias_relu(const float* __restrict__ x, const float* b, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i] + b[0];
        y[i] = v > 0.0f ? v : 0.0f;
    }
}

__global__ void bias_relu_twin(const float* __restrict__ x, const float* b, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i] + b[0];
        y[i] = v > 0.0f ? v : 0.0f;
        if (i == 200) y[i] = x[i];
    }
}
"""

KERNELBENCH = r'''
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void double_kernel(const float* input, float* output, int size) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < size) {
        output[idx] = input[idx] * 2.0f;
    }
}

torch::Tensor double_cuda(torch::Tensor input) {
    auto output = torch::empty_like(input);
    int size = input.numel();
    const int block_size = 256;
    const int num_blocks = (size + block_size - 1) / block_size;
    double_kernel<<<num_blocks, block_size>>>(input.data_ptr<float>(), output.data_ptr<float>(), size);
    return output;
}
'''


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LIFT_CACHE_DIR", str(tmp_path / "cache"))


def reference(x, b):
    """The PyTorch the kernel is meant to compute (read as a spec, never run here)."""
    return torch.relu(x + b)  # noqa: F821  (torch is not needed: lift reads the source)


def call(n=300, seed=0):
    x = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
    return x, np.array([0.25], np.float32), np.zeros(n, np.float32), n


def test_check_cuda_proves_a_kernel_from_its_call():
    x, b, y, n = call()
    r = lift.check_cuda(SOURCE, "bias_relu", x, b, y, n, block=128, grid=(n + 127) // 128,
                        spec=reference)
    assert r.verdict == "VERIFIED", r.text
    assert r.spec == "y = torch.relu(x + b)"
    # The launch is read off the call: sizes from the arrays, the grid as a cdiv of
    # the block, roles from a run of the kernel.
    assert 'grid = ["cdiv(M, 128)"]' in r.launch, r.launch
    assert "block = [128]" in r.launch
    assert 'param_0 = { tensor = "x", shape = ["M"], role = "in", dtype = "float32" }' in r.launch
    assert 'param_2 = { tensor = "y", shape = ["M"], role = "out"' in r.launch
    f = lift.lift_cuda(SOURCE, "bias_relu", x, b, y, n, block=128, grid=(n + 127) // 128)
    assert f.verdict == "VERIFIED", f.text
    assert "relu(" in f.text, f.text


def test_check_cuda_refutes_the_twin_at_the_element_it_breaks():
    x, b, y, n = call()
    r = lift.check_cuda(SOURCE, "bias_relu_twin", x, b, y, n, block=128, grid=(n + 127) // 128,
                        spec="y = torch.relu(x + b)")
    assert r.verdict == "REFUTED", r.text
    assert "y[200]" in r.text and "kernel.cu:" in r.text, r.text
    # Replaying the twin's code (written out here in NumPy) on the counterexample
    # differs from the reference at element 200.
    cx, cb = r.counterexample["x"], r.counterexample["b"]
    want = np.maximum(cx + cb[0], 0)
    twin = want.copy()
    twin[200] = cx[200]
    assert twin[200] != want[200], (cx[200], cb)
    # The same kernel on 200 elements never reaches the bug: proved there.
    x, b, y, n = call(200)
    ok = lift.check_cuda(SOURCE, "bias_relu_twin", x, b, y, n, block=128, grid=2,
                         spec="y = torch.relu(x + b)")
    assert ok.verdict == "VERIFIED", ok.text


def test_a_kernelbench_solution_is_checked_as_is(tmp_path):
    x = np.linspace(-3, 3, 1000, dtype=np.float32)
    out = np.zeros_like(x)
    r = lift.check_cuda(KERNELBENCH, "double_kernel", x, out, x.size, block=256, grid=4,
                        spec="output = 2 * input")
    assert r.verdict == "VERIFIED", r.text
    wrong = lift.check_cuda(KERNELBENCH, "double_kernel", x, out, x.size, block=256, grid=4,
                            spec="output = 3 * input")
    assert wrong.verdict == "REFUTED", wrong.text
    # A .cu path works too, and findings name that file.
    path = tmp_path / "solution.cu"
    path.write_text(KERNELBENCH)
    again = lift.check_cuda(str(path), "double_kernel", x, out, x.size, block=256, grid=4,
                            spec="output = 3 * input")
    assert again.verdict == "REFUTED" and "solution.cu:8" in again.text, again.text


def test_calls_that_do_not_match_the_signature_are_refused():
    x, b, y, n = call()
    with pytest.raises(lift.LaunchError, match="takes 4 arguments"):
        lift.check_cuda(SOURCE, "bias_relu", x, b, y, block=128, grid=3, spec=reference)
    with pytest.raises(lift.LaunchError, match="points to float .float32.; the array passed holds float64"):
        lift.check_cuda(SOURCE, "bias_relu", x.astype(np.float64), b, y, n, block=128, grid=3, spec=reference)
    with pytest.raises(lift.LaunchError, match="no __global__ function named relu"):
        lift.check_cuda(SOURCE, "relu", x, b, y, n, block=128, grid=3, spec=reference)
    with pytest.raises(lift.LaunchError, match="is a value, not a pointer"):
        lift.check_cuda(SOURCE, "bias_relu", x, b, y, x, block=128, grid=3, spec=reference)
