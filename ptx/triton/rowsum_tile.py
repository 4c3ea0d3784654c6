"""Row sums of a 32 x 64 tile per program at num_warps = 4 (128 threads), the tile
size Triton's reductions have in practice: each warp reduces its part of a row with
shuffles, and then every lane of a warp stores the warp's partial sum to one shared
address in one `st.shared` (issue 41, item 9); after a bar.sync the partials are
summed. Lanes of one warp storing one value to one address in one instruction is no
race (one lane's store wins, and they all store the same value)."""
import triton
import triton.language as tl


@triton.jit
def rowsum_tile(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows, tl.sum(x, axis=1), mask=rows < M)


KERNEL = "rowsum_tile"
SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "i32", "N": "i32",
             "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"}
CONSTEXPRS = {"BLOCK_M": 32, "BLOCK_N": 64}
OPTIONS = {"num_warps": 4}
GRID = ["cdiv(M, 32)"]
ARGS = {"x_ptr": {"tensor": "x", "shape": ["M", "N"]},
        "y_ptr": {"tensor": "y", "shape": ["M"], "role": "out"},
        "M": "M", "N": "N"}
INSTANCES = [{"name": "m32n64", "sizes": {"M": 32, "N": 64}},
             {"name": "m40n50", "sizes": {"M": 40, "N": 50}}]
EXPECT = "equivalent"
EQUIV = "rowsum_tile"
REFERENCE = True
RACE_VERDICT = "SAFE"
ABOUT = "row sums of a 32 x 64 tile at num_warps = 4: every lane of a warp stores the warp's partial to one shared address"
CHECKS = [("y = torch.sum(x, dim=1)", "verified"), ("y = torch.amax(x, dim=1)", "refuted")]
