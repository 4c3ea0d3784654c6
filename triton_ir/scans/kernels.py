"""Triton kernels that scan (issue 42): row-wise prefix sums with `tl.cumsum` (one block
per row, and a loop over column blocks carrying the running total), the linear
recurrence h[t] = a[t]·h[t-1] + x[t] of state-space models (a sequential loop over t,
and `tl.associative_scan` with the (a, b) combine of affine maps), and online
log-softmax (one pass carrying a running max and a rescaled sum).

Compiled by generate.py beside this file; see its docstring. Every correct kernel has a
wrong twin whose bug the verifier must refute.
"""
import triton
import triton.language as tl


@triton.jit
def cumsum_rows_kernel(y_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # one program per row, the whole row in one block
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * N + cols, tl.cumsum(x, axis=0), mask=mask)


@triton.jit
def cumsum_rows_exclusive_kernel(y_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # twin: the exclusive scan (sum of the elements before j) where inclusive is meant
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * N + cols, tl.cumsum(x, axis=0) - x, mask=mask)


@triton.jit
def cumsum_rows_reverse_kernel(y_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # twin: a suffix sum (reverse=True) where the prefix sum is meant
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * N + cols, tl.cumsum(x, axis=0, reverse=True), mask=mask)


@triton.jit
def cumsum_looped_kernel(y_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # one program per row, the row in blocks of BLOCK: each block's prefix sums plus the
    # running total of the blocks before it
    row = tl.program_id(0)
    carry = 0.0
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * N + cols, tl.cumsum(x, axis=0) + carry, mask=mask)
        carry += tl.sum(x, axis=0)


@triton.jit
def cumsum_looped_nocarry_kernel(y_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # twin: the running total is kept but never added to the later blocks (right only
    # when the row fits in one block)
    row = tl.program_id(0)
    carry = 0.0
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
        y = tl.cumsum(x, axis=0)
        tl.store(y_ptr + row * N + cols, y, mask=mask)
        carry += tl.sum(x, axis=0)


@triton.jit
def cumsum_looped_pad_kernel(y_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # as cumsum_looped, with masked-off lanes read as 1: they only ever reach the
    # total after the last block, which no block reads
    row = tl.program_id(0)
    carry = 0.0
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=1.0)
        tl.store(y_ptr + row * N + cols, tl.cumsum(x, axis=0) + carry, mask=mask)
        carry += tl.sum(x, axis=0)


@triton.jit
def cumsum_looped_overwrite_kernel(y_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # twin: the total is overwritten by the last block's sum, not accumulated (right
    # for one or two blocks)
    row = tl.program_id(0)
    carry = 0.0
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * N + cols, tl.cumsum(x, axis=0) + carry, mask=mask)
        carry = tl.sum(x, axis=0)


@triton.jit
def recurrence_loop_kernel(h_ptr, a_ptr, x_ptr, T):
    # one program per channel: h[t] = a[t] * h[t-1] + x[t], h[-1] = 0, a loop over t
    row = tl.program_id(0)
    h = 0.0
    for t in range(0, T):
        a = tl.load(a_ptr + row * T + t)
        x = tl.load(x_ptr + row * T + t)
        h = a * h + x
        tl.store(h_ptr + row * T + t, h)


@triton.jit
def recurrence_loop_init_kernel(h_ptr, a_ptr, x_ptr, T):
    # twin: the state starts at 1, not 0
    row = tl.program_id(0)
    h = 1.0
    for t in range(0, T):
        a = tl.load(a_ptr + row * T + t)
        x = tl.load(x_ptr + row * T + t)
        h = a * h + x
        tl.store(h_ptr + row * T + t, h)


@triton.jit
def recurrence_loop_reset_kernel(h_ptr, a_ptr, x_ptr, T, CHUNK: tl.constexpr):
    # twin: the state is dropped at every chunk boundary (a chunked scan that does not
    # pass the state on): right while T <= CHUNK, wrong from h[CHUNK] on
    row = tl.program_id(0)
    h = 0.0
    for t in range(0, T):
        if t % CHUNK == 0:
            h = 0.0
        a = tl.load(a_ptr + row * T + t)
        x = tl.load(x_ptr + row * T + t)
        h = a * h + x
        tl.store(h_ptr + row * T + t, h)


@triton.jit
def _affine(a1, b1, a2, b2):
    # (a2, b2) after (a1, b1): h -> a2 (a1 h + b1) + b2
    return a1 * a2, a2 * b1 + b2


@triton.jit
def recurrence_scan_kernel(h_ptr, a_ptr, x_ptr, T, BLOCK: tl.constexpr):
    # the same recurrence as one associative scan of affine maps over the row's block
    row = tl.program_id(0)
    t = tl.arange(0, BLOCK)
    mask = t < T
    a = tl.load(a_ptr + row * T + t, mask=mask, other=1.0)
    x = tl.load(x_ptr + row * T + t, mask=mask, other=0.0)
    _, h = tl.associative_scan((a, x), 0, _affine)
    tl.store(h_ptr + row * T + t, h, mask=mask)


@triton.jit
def _affine_swapped(a1, b1, a2, b2):
    # twin's combine: the maps composed in the wrong order, h -> a1 (a2 h + b2) + b1
    return a1 * a2, a1 * b2 + b1


@triton.jit
def recurrence_scan_swapped_kernel(h_ptr, a_ptr, x_ptr, T, BLOCK: tl.constexpr):
    # twin: the associative scan with the affine maps composed in the wrong order
    row = tl.program_id(0)
    t = tl.arange(0, BLOCK)
    mask = t < T
    a = tl.load(a_ptr + row * T + t, mask=mask, other=1.0)
    x = tl.load(x_ptr + row * T + t, mask=mask, other=0.0)
    _, h = tl.associative_scan((a, x), 0, _affine_swapped)
    tl.store(h_ptr + row * T + t, h, mask=mask)


@triton.jit
def log_softmax_online_kernel(y_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # pass 1 carries the running max m and the sum s of exp(x - m), rescaled by
    # exp(m_old - m_new) when the max grows; pass 2 writes x - m - log(s)
    row = tl.program_id(0)
    m = -float("inf")
    s = 0.0
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * N + cols, x - m - tl.log(s), mask=mask)


@triton.jit
def log_softmax_online_norescale_kernel(y_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # twin: the old sum is not rescaled when the max grows (right only in one block)
    row = tl.program_id(0)
    m = -float("inf")
    s = 0.0
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * N + cols, x - m - tl.log(s), mask=mask)
