"""Triton kernels of real models that use the ops issue 42 names (`tt.split`/`tt.join`,
`tt.bitcast`, `arith.mulhiui` through `tl.rand`'s Philox, libdevice `llrint`), in the
style of the libraries: interleaved rotary embeddings (GPT-J / Llama-style pairs, as in
flash-attn's `apply_rotary(interleaved=True)`), seeded dropout (Triton's tutorial 04 and
the libraries' `tl.rand(seed, offsets)` dropout), int8 row-wise quantisation
(bitsandbytes / vLLM-style absmax quantisers rounding with `llrint`).

Compiled by generate.py beside this file; see its docstring. Every correct kernel has a
wrong twin whose bug the verifier must refute.
"""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def rotary_interleaved_kernel(out_ptr, x_ptr, cos_ptr, sin_ptr, HALF: tl.constexpr):
    # one program per row; the row's pairs (x[2i], x[2i+1]) rotated by angle i
    row = tl.program_id(0)
    offs = tl.arange(0, 2 * HALF)
    x = tl.load(x_ptr + row * 2 * HALF + offs)
    x0, x1 = tl.split(tl.reshape(x, (HALF, 2)))
    c = tl.load(cos_ptr + row * HALF + tl.arange(0, HALF))
    s = tl.load(sin_ptr + row * HALF + tl.arange(0, HALF))
    o = tl.join(x0 * c - x1 * s, x0 * s + x1 * c)
    tl.store(out_ptr + row * 2 * HALF + offs, tl.reshape(o, (2 * HALF,)))


@triton.jit
def rotary_interleaved_swap_kernel(out_ptr, x_ptr, cos_ptr, sin_ptr, HALF: tl.constexpr):
    # twin: the rotation's sign on the wrong term (rotates by -angle)
    row = tl.program_id(0)
    offs = tl.arange(0, 2 * HALF)
    x = tl.load(x_ptr + row * 2 * HALF + offs)
    x0, x1 = tl.split(tl.reshape(x, (HALF, 2)))
    c = tl.load(cos_ptr + row * HALF + tl.arange(0, HALF))
    s = tl.load(sin_ptr + row * HALF + tl.arange(0, HALF))
    o = tl.join(x0 * c + x1 * s, x1 * c - x0 * s)
    tl.store(out_ptr + row * 2 * HALF + offs, tl.reshape(o, (2 * HALF,)))


@triton.jit
def dropout_kernel(out_ptr, x_ptr, n, p, seed, BLOCK: tl.constexpr):
    # seeded dropout (Triton tutorial 04): keep x / (1 - p) where rand(seed, i) > p
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.rand(seed, offs)
    keep = r > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def dropout_scale_kernel(out_ptr, x_ptr, n, p, seed, BLOCK: tl.constexpr):
    # twin: kept values scaled by 1 / p, right only at p = 0.5
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.rand(seed, offs)
    keep = r > p
    tl.store(out_ptr + offs, tl.where(keep, x / p, 0.0), mask=mask)


@triton.jit
def quant_rows_kernel(q_ptr, x_ptr, scale_ptr, N, BLOCK_N: tl.constexpr):
    # int8 row-wise quantisation with a given per-row scale: q = rint(x / scale),
    # clamped to [-127, 127], rounded half to even like torch.round
    row = tl.program_id(0)
    s = tl.load(scale_ptr + row)
    for i in range(0, N, BLOCK_N):
        cols = i + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
        y = tl.clamp(x / s, -127.0, 127.0)
        q = libdevice.llrint(y)
        tl.store(q_ptr + row * N + cols, q.to(tl.int8), mask=mask)


@triton.jit
def quant_rows_floor_kernel(q_ptr, x_ptr, scale_ptr, N, BLOCK_N: tl.constexpr):
    # twin: floor(x / scale + 0.5) for rint: differs at ties to even (2.5 -> 3, not 2)
    # and at negative ties (-0.5 -> 0 is right, -1.5 -> -1 not -2)
    row = tl.program_id(0)
    s = tl.load(scale_ptr + row)
    for i in range(0, N, BLOCK_N):
        cols = i + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
        y = tl.clamp(x / s, -127.0, 127.0)
        q = libdevice.floor(y + 0.5)
        tl.store(q_ptr + row * N + cols, q.to(tl.int8), mask=mask)


@triton.jit
def matmul_splitk_kernel(c_ptr, a_ptr, b_ptr, M, N, K, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    # split-K matmul (as triton.ops / the libraries' split-K GEMMs): program (m, n, z)
    # sums every SPLIT_K-th K block of its tile from block z and atomically adds its
    # partial into C (zeroed, or holding a bias, by the caller)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_z = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(pid_z * BLOCK_K, K, BLOCK_K * SPLIT_K):
        rk = k + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :],
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.atomic_add(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=mask)


@triton.jit
def matmul_splitk_skip_kernel(c_ptr, a_ptr, b_ptr, M, N, K, BLOCK_M: tl.constexpr,
                              BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                              SPLIT_K: tl.constexpr):
    # twin: the loop stops one K block early, so the last K slice is never added
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_z = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(pid_z * BLOCK_K, K - BLOCK_K, BLOCK_K * SPLIT_K):
        rk = k + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :],
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.atomic_add(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=mask)


@triton.jit
def persistent_axpb_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    # persistent elementwise kernel: a fixed grid of programs strides over the tiles
    # (tile = pid, pid + num_programs, ...), as persistent kernels do
    pid = tl.program_id(0)
    n_tiles = tl.cdiv(n, BLOCK)
    for tile in range(pid, n_tiles, tl.num_programs(0)):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(y_ptr + offs, 2.0 * x + 1.0, mask=mask)


@triton.jit
def persistent_axpb_stride_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    # twin: strides by num_programs + 1, so some tiles are done twice and others never
    pid = tl.program_id(0)
    n_tiles = tl.cdiv(n, BLOCK)
    for tile in range(pid, n_tiles, tl.num_programs(0) + 1):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(y_ptr + offs, 2.0 * x + 1.0, mask=mask)


@triton.jit
def matmul_grouped_kernel(c_ptr, a_ptr, b_ptr, M, N, K, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # Triton tutorial 03's grouped ("super-grouping") tile order: GROUP_M rows of tiles
    # are walked column by column, so programs that run together share A and B tiles
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        rk = k + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :],
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=mask)


@triton.jit
def matmul_grouped_nomin_kernel(c_ptr, a_ptr, b_ptr, M, N, K, BLOCK_M: tl.constexpr,
                                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                GROUP_M: tl.constexpr):
    # twin: the last group's height is taken as GROUP_M (no min), so when the tile rows
    # are not a multiple of GROUP_M some tiles fall outside C and others are never done
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = GROUP_M
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        rk = k + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :],
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=mask)


@triton.jit
def dropout_offset_kernel(out_ptr, x_ptr, n, p, seed, BLOCK: tl.constexpr):
    # twin: the random stream read at offset + 1 (the wrong element's random number)
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.rand(seed, offs + 1)
    keep = r > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def dropout_block_kernel(out_ptr, x_ptr, n, p, seed, BLOCK: tl.constexpr):
    # twin: the random offsets of program pid start at pid * 2 (a wrong block size):
    # right for program 0, so only a launch of more than one program shows it
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.rand(seed, pid * 2 + tl.arange(0, BLOCK))
    keep = r > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def persistent_axpb_floor_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    # twin: the tile count rounded down (n // BLOCK), so a ragged last tile is never
    # done; right whenever n is a multiple of BLOCK (the twin's instances), wrong elsewhere
    pid = tl.program_id(0)
    n_tiles = n // BLOCK
    for tile in range(pid, n_tiles, tl.num_programs(0)):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(y_ptr + offs, 2.0 * x + 1.0, mask=mask)


@triton.jit
def persistent_axpb_three_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    # twin: strides by 3, the grid its author launched, not tl.num_programs(0): right
    # for every n on a grid of 3 programs, wrong on any other grid
    pid = tl.program_id(0)
    n_tiles = tl.cdiv(n, BLOCK)
    for tile in range(pid, n_tiles, 3):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(y_ptr + offs, 2.0 * x + 1.0, mask=mask)


@triton.jit
def matmul_splitk_rem_kernel(c_ptr, a_ptr, b_ptr, M, N, K, BLOCK_M: tl.constexpr,
                             BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                             SPLIT_K: tl.constexpr):
    # twin: the K loop ends at the last multiple of BLOCK_K * SPLIT_K below K, so the
    # remainder of a K that is not such a multiple is never added (right at K = 32, 64)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_z = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k_end = K - K % (BLOCK_K * SPLIT_K)
    for k in range(pid_z * BLOCK_K, k_end, BLOCK_K * SPLIT_K):
        rk = k + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :],
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.atomic_add(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=mask)


@triton.jit
def rowsum_atomic_kernel(y_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # a row sum pushed into its output by one atomic add per column block (as kernels
    # that accumulate per-block partial sums into a caller-initialised output do)
    row = tl.program_id(0)
    for j in range(0, N, BLOCK):
        cols = j + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
        tl.atomic_add(y_ptr + row, tl.sum(x, axis=0))


@triton.jit
def rowsum_atomic_skip_kernel(y_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # twin: the loop starts at the second block, so the first block is never added
    row = tl.program_id(0)
    for j in range(BLOCK, N, BLOCK):
        cols = j + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
        tl.atomic_add(y_ptr + row, tl.sum(x, axis=0))


@triton.jit
def matmul_grouped_pidn_kernel(c_ptr, a_ptr, b_ptr, M, N, K, BLOCK_M: tl.constexpr,
                               BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                               GROUP_M: tl.constexpr):
    # twin: pid_n divides by GROUP_M, not the group's height: right whenever the tile
    # rows are a multiple of GROUP_M (every group full); in a short last group two
    # programs get one tile and other tiles are never done
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // GROUP_M
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        rk = k + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :],
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=mask)


# ---- persistent kernels on a size-dependent grid -------------------------------------
# Libraries launch a persistent kernel on `grid = min(NUM_SMS, cdiv(n, BLOCK))` programs
# (here NUM_SMS = 132, an H100's): one tile per program while the tiles are fewer than
# the SMs, `range(pid, n_tiles, num_programs)` strided rounds beyond. The correct kernel
# is `persistent_axpb_kernel` above on that launch (fixture `persistent_axpb_sms`).


@triton.jit
def persistent_axpb_rounds_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    # twin: only whole rounds of num_programs tiles (n_tiles // num_programs of them):
    # right whenever the grid divides the tile count (one tile per program while the
    # tiles are fewer than the SMs; 264 tiles on 132 programs), wrong when it does not
    # (more than 132 tiles, not a multiple of 132: the last partial round is never done)
    pid = tl.program_id(0)
    n_tiles = tl.cdiv(n, BLOCK)
    rounds = n_tiles // tl.num_programs(0)
    for i in range(0, rounds):
        tile = pid + i * tl.num_programs(0)
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(y_ptr + offs, 2.0 * x + 1.0, mask=mask)


# ---- Atomics beyond float add, and locks (issue 42, item 2): a row sum and
# layer-norm backward's partial sums accumulated under a spin lock
# (`tl.atomic_cas` / `tl.atomic_xchg`, as Triton tutorial 05 does), their twins without
# the lock, and a global absolute maximum by `tl.atomic_max` (a per-tensor
# quantisation scale's amax) with its wrong twin ----


@triton.jit
def rowsum_lock_kernel(y_ptr, x_ptr, lock_ptr, N, BLOCK: tl.constexpr):
    # program (row, j) sums column block j of the row and adds it into y[row] with a
    # plain load, add and store inside a critical section: the row's lock taken by a
    # compare-and-swap spin and given back by an exchange
    row = tl.program_id(0)
    j = tl.program_id(1)
    cols = j * BLOCK + tl.arange(0, BLOCK)
    s = tl.sum(tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0), axis=0)
    lock = lock_ptr + row
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    tl.store(y_ptr + row, tl.load(y_ptr + row) + s)
    tl.atomic_xchg(lock, 0)


@triton.jit
def rowsum_nolock_kernel(y_ptr, x_ptr, lock_ptr, N, BLOCK: tl.constexpr):
    # twin: the same accumulation without the lock; the programs of one row read and
    # write y[row] with nothing ordering them
    row = tl.program_id(0)
    j = tl.program_id(1)
    cols = j * BLOCK + tl.arange(0, BLOCK)
    s = tl.sum(tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0), axis=0)
    tl.store(y_ptr + row, tl.load(y_ptr + row) + s)


@triton.jit
def colsum_groups_kernel(dw_ptr, x_ptr, lock_ptr, N, GROUP: tl.constexpr,
                         BLOCK_N: tl.constexpr):
    # layer-norm backward's partial weight gradients (Triton tutorial 05): row `row`
    # adds itself into partial row `row % GROUP` of dw under that group's lock; the
    # group's count (stored after the GROUP locks) says whether the partial row holds
    # a value yet (the first row of a group stores, the others add)
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    partial = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    g = row % GROUP
    lock = lock_ptr + g
    count = lock_ptr + GROUP + g
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    if tl.load(count) == 0:
        tl.atomic_xchg(count, 1)
    else:
        partial += tl.load(dw_ptr + g * N + cols, mask=mask)
    tl.store(dw_ptr + g * N + cols, partial, mask=mask)
    tl.atomic_xchg(lock, 0)


@triton.jit
def colsum_groups_nolock_kernel(dw_ptr, x_ptr, lock_ptr, N, GROUP: tl.constexpr,
                                BLOCK_N: tl.constexpr):
    # twin: tutorial 05's accumulation with the spin and the release left out
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    partial = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    g = row % GROUP
    count = lock_ptr + GROUP + g
    if tl.load(count) == 0:
        tl.atomic_xchg(count, 1)
    else:
        partial += tl.load(dw_ptr + g * N + cols, mask=mask)
    tl.store(dw_ptr + g * N + cols, partial, mask=mask)


@triton.jit
def absmax_kernel(amax_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # the absolute maximum of x (a per-tensor quantisation scale's amax): each program
    # reduces its block and folds it into amax[0] with one atomic max
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < N, other=0.0)
    tl.atomic_max(amax_ptr, tl.max(tl.abs(x), axis=0))


@triton.jit
def absmax_noabs_kernel(amax_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # twin: the block's maximum without the absolute value, so a large negative
    # element is missed
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < N, other=0.0)
    tl.atomic_max(amax_ptr, tl.max(x, axis=0))


@triton.jit
def min_max_int_kernel(lo_ptr, hi_ptr, t_ptr, N, BLOCK: tl.constexpr):
    # the smallest and largest label of an int32 tensor, by integer atomic min and max
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    t = tl.load(t_ptr + offs, mask=mask, other=0)
    tl.atomic_min(lo_ptr + tl.zeros_like(offs), t, mask=mask)
    tl.atomic_max(hi_ptr + tl.zeros_like(offs), t, mask=mask)


@triton.jit
def rowsum_lock_leak_kernel(y_ptr, x_ptr, lock_ptr, N, BLOCK: tl.constexpr):
    # twin: the lock is never given back, so the row's next program spins forever
    row = tl.program_id(0)
    j = tl.program_id(1)
    cols = j * BLOCK + tl.arange(0, BLOCK)
    s = tl.sum(tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0), axis=0)
    lock = lock_ptr + row
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    tl.store(y_ptr + row, tl.load(y_ptr + row) + s)


@triton.jit
def rowsum_lock_decay_kernel(y_ptr, x_ptr, lock_ptr, N, BLOCK: tl.constexpr):
    # twin: the critical section halves the total before adding (y = y / 2 + s), so
    # the result depends on the order the row's programs take the lock
    row = tl.program_id(0)
    j = tl.program_id(1)
    cols = j * BLOCK + tl.arange(0, BLOCK)
    s = tl.sum(tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0), axis=0)
    lock = lock_ptr + row
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    tl.store(y_ptr + row, tl.load(y_ptr + row) * 0.5 + s)
    tl.atomic_xchg(lock, 0)
