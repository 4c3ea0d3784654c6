"""In-place scale x *= 2 at BLOCK = 4 with 128 threads: each element is held by 32
threads (Triton's replicated lanes); all of them load it (with an evict_last cache
policy), one stores it back."""
import triton
import triton.language as tl


@triton.jit
def inplace_small(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_last")
    tl.store(x_ptr + offs, x * 2.0, mask=mask)


KERNEL = "inplace_small"
SIGNATURE = {"x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {"x_ptr": {"tensor": "x", "shape": ["N"], "role": "inout"}, "n": "N"}
INSTANCES = [{"name": "n8", "sizes": {"N": 8}}, {"name": "n13", "sizes": {"N": 13}}]
EXPECT = "equivalent"
EQUIV = "inplace_small"
REFERENCE = True
RACE_VERDICT = "SAFE"
ABOUT = "x *= 2 in place, 4 elements per 128-thread program: replicated lanes load, one lane stores"
CHECKS = [("x = x * 2", "verified"), ("x = x * 3", "refuted")]
