"""y = where(x != x, 0, x) (NaN to zero): Triton emits `setp.num.f32 p, x, x`."""
import triton
import triton.language as tl


@triton.jit
def nan_zero(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.where(x != x, 0.0, x), mask=mask)


KERNEL = "nan_zero"
SIGNATURE = {"y_ptr": "*fp32", "x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {"y_ptr": {"tensor": "y", "shape": ["N"], "role": "out"},
        "x_ptr": {"tensor": "x", "shape": ["N"], "role": "in"}, "n": "N"}
INSTANCES = [{"name": "n8", "sizes": {"N": 8}}, {"name": "n13", "sizes": {"N": 13}}]
EXPECT = "equivalent"
EQUIV = "nan_zero"
REFERENCE = True
RACE_VERDICT = "SAFE"
ABOUT = "NaN to zero with a setp.num test"
CHECKS = [("y = torch.where(x == x, x, 0.0)", "verified"), ("y = torch.where(x == x, x * 2, 0.0)", "refuted")]
