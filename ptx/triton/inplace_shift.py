"""The racy twin of inplace_small: x[i] = 2 * x[i + 1] in place. The lane that stores
x[i] and the lanes of the next element that load x[i] are different threads with
nothing ordering them, and the loaded value is stored: a real race."""
import triton
import triton.language as tl


@triton.jit
def inplace_shift(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs + 1 < n
    x = tl.load(x_ptr + offs + 1, mask=mask, other=0.0, eviction_policy="evict_last")
    tl.store(x_ptr + offs, x * 2.0, mask=mask)


KERNEL = "inplace_shift"
SIGNATURE = {"x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {"x_ptr": {"tensor": "x", "shape": ["N"], "role": "inout"}, "n": "N"}
INSTANCES = [{"name": "n8", "sizes": {"N": 8}}, {"name": "n13", "sizes": {"N": 13}}]
EXPECT = "race"
EQUIV = "inplace_small"
RACE_VERDICT = "RACE"
RACE = "the lane storing x[i] and the lanes loading x[i] for x[i - 1] are unordered, and the loaded value is stored"
ABOUT = "x[i] = 2 * x[i + 1] in place (a shifted in-place update)"
