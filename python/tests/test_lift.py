"""The Python package end to end, on the CPU: Triton kernels written here, proved from
their calls on NumPy arrays (no launch file, no GPU, no torch), a wrong twin caught by
the decorator with a counterexample that Triton's own CPU interpreter confirms.

Expected verdicts come from the kernels' construction, not from lift: `softmax_kernel`
is a row softmax over one block of BLOCK_N columns (so it is right for every N up to
BLOCK_N); `softmax_abs_twin` takes |x| of the row first, which agrees with softmax exactly on the
non-negative inputs these tests launch with (so sampled allclose passes) and differs on
any row holding a negative value.
"""
import os
import subprocess
import sys

import numpy as np
import pytest
import triton
import triton.language as tl

import lift

HERE = os.path.dirname(os.path.abspath(__file__))


@triton.jit
def softmax_kernel(y_ptr, x_ptr, x_row_stride, y_row_stride, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    den = tl.sum(num, axis=0)
    tl.store(y_ptr + row * y_row_stride + cols, num / den, mask=mask)


@triton.jit
def softmax_abs_twin(y_ptr, x_ptr, x_row_stride, y_row_stride, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf"))
    x = tl.where(mask, tl.abs(x), x)
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    den = tl.sum(num, axis=0)
    tl.store(y_ptr + row * y_row_stride + cols, num / den, mask=mask)


@triton.jit
def axpy_kernel(out_ptr, x_ptr, y_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + y, mask=mask)


@triton.jit
def accumulate_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, y + tl.load(x_ptr + offs, mask=mask), mask=mask)


def softmax_reference(x):
    """The PyTorch the kernels are meant to compute (read as a spec, never run here)."""
    return torch.softmax(x, dim=-1)  # noqa: F821  (torch is not needed: lift reads the source)


def numpy_softmax(x):
    e = np.exp(x.astype(np.float64) - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_args(x):
    y = np.zeros_like(x)
    n = x.shape[1]
    return y, [y, x, n, n, n]


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LIFT_CACHE_DIR", str(tmp_path / "cache"))


def inputs(m=4, n=6, seed=0):
    # Non-negative, as a test suite's torch.rand inputs are: the twin agrees on them.
    return np.random.default_rng(seed).random((m, n), dtype=np.float32)


def test_import_needs_no_torch():
    code = "import sys, lift; assert 'torch' not in sys.modules, 'lift imported torch'; print(lift.check)"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_check_proves_a_kernel_against_a_pytorch_function_on_arrays():
    x = inputs()
    _, args = softmax_args(x)
    r = lift.check(softmax_kernel, *args, grid=(x.shape[0],), spec=softmax_reference, BLOCK_N=8)
    assert r.verdict == "VERIFIED", r.text
    assert r.spec == "y = torch.softmax(x, dim=-1)"
    # One block of 8 columns per row: right for every N up to 8, and the proof says so.
    assert r.scope == "all_sizes", r.text
    assert any("N <= 8" in c for c in r.constraints), r.constraints
    assert 'x_ptr = { tensor = "x", shape = ["M", "N"], role = "in"' in r.launch
    assert 'y_ptr = { tensor = "y", shape = ["M", "N"], role = "out"' in r.launch
    assert not r.counterexample


def test_check_refutes_the_twin_with_a_counterexample_the_interpreter_confirms():
    x = inputs()
    _, args = softmax_args(x)
    r = lift.check(softmax_abs_twin, *args, grid=(x.shape[0],), spec="y = torch.softmax(x, dim=-1)", BLOCK_N=8)
    assert r.verdict == "REFUTED", r.text
    cx = r.counterexample["x"]
    assert cx.shape == x.shape and cx.dtype == np.float32
    assert (cx < 0).any(), "the twin differs only where some x is negative"
    y, cx_x, *rest = r.counterexample_args()
    lift.interpret(softmax_abs_twin, (x.shape[0],), y, cx_x, *rest, BLOCK_N=8)
    assert not np.allclose(y, numpy_softmax(cx), atol=1e-4)
    # On the suite's own inputs the twin passes a sampled comparison.
    y_ok = np.zeros_like(x)
    lift.interpret(softmax_abs_twin, (x.shape[0],), y_ok, x, *args[2:], BLOCK_N=8)
    assert np.allclose(y_ok, numpy_softmax(x), atol=1e-6)


def test_string_spec_scalars_and_the_formula():
    n = 10
    x = np.linspace(-1, 1, n, dtype=np.float32)
    y = np.linspace(0, 2, n, dtype=np.float32)
    out = np.zeros_like(x)
    grid = (triton.cdiv(n, 4),)
    r = lift.check(axpy_kernel, out, x, y, 0.5, n, grid=grid, spec="out = alpha * x + y", BLOCK=4)
    assert r.verdict == "VERIFIED", r.text
    assert "grid = [\"cdiv(M, 4)\"]" in r.launch, r.launch
    assert 'alpha = { scalar = "alpha" }' in r.launch
    wrong = lift.check(axpy_kernel, out, x, y, 0.5, n, grid=grid, spec="out = alpha * x - y", BLOCK=4)
    assert wrong.verdict == "REFUTED", wrong.text
    # A float the spec does not name is fixed to the call's value: right at 0.5 only.
    fixed = lift.check(axpy_kernel, out, x, y, 0.5, n, grid=grid, spec="out = 0.5 * x + y", BLOCK=4)
    assert fixed.verdict == "VERIFIED", fixed.text
    assert "alpha = { value = 0.5 }" in fixed.launch
    other = lift.check(axpy_kernel, out, x, y, 0.25, n, grid=grid, spec="out = 0.5 * x + y", BLOCK=4)
    assert other.verdict == "REFUTED", other.text
    f = lift.lift(axpy_kernel, out, x, y, 0.5, n, grid=grid, BLOCK=4)
    assert f.verdict == "VERIFIED", f.text
    assert "alpha" in f.text and f.latex and "alpha" in f.latex


def softmax_launcher(kernel):
    @lift.verified(spec=softmax_reference)
    def launch(x):
        y, args = softmax_args(x)
        kernel[(x.shape[0],)](*args, BLOCK_N=8)
        return y
    return launch


def test_verified_proves_once_then_hits_the_cache(monkeypatch):
    launch = softmax_launcher(softmax_kernel)
    x = inputs()
    before = dict(lift.stats)
    y = launch(x)
    assert lift.stats["prover_calls"] == before["prover_calls"] + 1
    np.testing.assert_allclose(y, numpy_softmax(x), rtol=1e-5, atol=1e-6)

    def no_prover(*a, **k):
        raise AssertionError("the prover ran on a cached specialization")
    monkeypatch.setattr(lift._lift, "check", no_prover)
    y2 = launch(inputs(seed=1))
    assert lift.stats["prover_calls"] == before["prover_calls"] + 1
    assert lift.stats["cache_hits"] == before["cache_hits"] + 1
    np.testing.assert_allclose(y2, numpy_softmax(inputs(seed=1)), rtol=1e-5, atol=1e-6)


def test_verified_raises_refuted_for_the_twin_and_triton_interpret_shows_it(tmp_path):
    launch = softmax_launcher(softmax_abs_twin)
    x = inputs()
    with pytest.raises(lift.Refuted) as caught:
        launch(x)
    cx = caught.value.counterexample["x"]
    assert (cx < 0).any()
    # Fed back to Triton's CPU interpreter as users run it (TRITON_INTERPRET=1, a fresh
    # process importing this file), the twin's output differs from softmax there.
    np.save(tmp_path / "x.npy", cx)
    code = f"""
import sys, numpy as np
sys.path.insert(0, {HERE!r})
import test_lift as t
from lift import TensorView
x = np.load({str(tmp_path / 'x.npy')!r}); y = np.zeros_like(x); n = x.shape[1]
t.softmax_abs_twin[(x.shape[0],)](TensorView(y), TensorView(x), n, n, n, BLOCK_N=8)
np.save({str(tmp_path / 'y.npy')!r}, y)
"""
    env = dict(os.environ, TRITON_INTERPRET="1")
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    y = np.load(tmp_path / "y.npy")
    assert not np.allclose(y, numpy_softmax(cx), atol=1e-4)


def test_assert_equivalent():
    x = inputs(3, 5)
    _, args = softmax_args(x)
    lift.assert_equivalent(softmax_kernel, softmax_reference, *args, grid=(3,), BLOCK_N=8)
    with pytest.raises(AssertionError, match="REFUTED"):
        lift.assert_equivalent(softmax_abs_twin, softmax_reference, *args, grid=(3,), BLOCK_N=8)


def test_calls_no_launch_describes_are_refused():
    x = inputs(4, 6)
    transposed = np.zeros((6, 4), np.float32).T
    with pytest.raises(lift.LaunchError, match="contiguous"):
        lift.check(softmax_kernel, transposed, x, 6, 6, 6, grid=(4,), spec=softmax_reference, BLOCK_N=8)
    buf = np.zeros(48, np.float32)
    with pytest.raises(lift.LaunchError, match="overlaps"):
        lift.check(softmax_kernel, buf[:24].reshape(4, 6), buf[12:36].reshape(4, 6), 6, 6, 6,
                   grid=(4,), spec=softmax_reference, BLOCK_N=8)


def test_an_unknown_verdict_falls_back_to_sampled_allclose(monkeypatch):
    # A prover that cannot decide (as lift says UNKNOWN on kernels it cannot read): the
    # decorator then checks the sampled calls against the runnable reference.
    class Undecided:
        verdict, text = "UNKNOWN", "UNKNOWN (a stand-in prover)"
    monkeypatch.setattr(lift, "_prove", lambda call, spec: Undecided())

    def launcher(kernel, sample):
        @lift.verified(spec=softmax_reference, reference=numpy_softmax, sample=sample,
                       on_unknown="ignore", seed=0)
        def launch(x):
            y, args = softmax_args(x)
            kernel[(x.shape[0],)](*args, BLOCK_N=8)
            return y
        return launch

    x = inputs() - 0.5  # rows with negative values: where the twin is wrong
    assert (x < 0).any()
    before = lift.stats["sampled"]
    launcher(softmax_kernel, 1.0)(x)  # right: the sampled check passes
    assert lift.stats["sampled"] == before + 1
    with pytest.raises(lift.Mismatch) as caught:
        launcher(softmax_abs_twin, 1.0)(x)
    assert caught.value.output == "y" and caught.value.max_abs_diff > 1e-3
    # sample=0: no check, the twin's wrong output is returned (and nothing is counted).
    launcher(softmax_abs_twin, 0.0)(x)
    assert lift.stats["sampled"] == before + 2


def test_an_output_read_before_it_is_written_is_inout():
    # accumulate_kernel adds x into y in place: y is read first, so its role is inout.
    x = np.linspace(-1, 1, 10, dtype=np.float32)
    y = np.ones(10, dtype=np.float32)
    r = lift.check(accumulate_kernel, y, x, 10, grid=(3,), spec="y = y + x", BLOCK=4)
    assert 'y_ptr = { tensor = "y", shape = ["M"], role = "inout"' in r.launch, r.launch
    assert 'x_ptr = { tensor = "x", shape = ["M"], role = "in"' in r.launch, r.launch
    assert r.verdict == "VERIFIED", r.text
