"""Triton kernels that read at addresses computed from loaded integers (gathers).

Compiled by generate.py beside this file; see its docstring.
"""
import triton
import triton.language as tl


@triton.jit
def embedding_kernel(out_ptr, ids_ptr, w_ptr, D, BLOCK_D: tl.constexpr):
    # one program per token: out[i, :] = w[ids[i], :]
    i = tl.program_id(0)
    idx = tl.load(ids_ptr + i)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < D
    row = tl.load(w_ptr + idx * D + cols, mask=mask)
    tl.store(out_ptr + i * D + cols, row, mask=mask)


@triton.jit
def cross_entropy_kernel(loss_ptr, x_ptr, t_ptr, n_cols, ignore_index, BLOCK_N: tl.constexpr):
    # one program per row: loss = logsumexp(x[row]) - x[row, t[row]], 0 for ignored rows
    row = tl.program_id(0)
    y = tl.load(t_ptr + row)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    if y == ignore_index:
        loss = 0.0
    else:
        x_y = tl.load(x_ptr + row * n_cols + y)
        loss = lse - x_y
    tl.store(loss_ptr + row, loss)


@triton.jit
def cross_entropy_no_ignore_kernel(loss_ptr, x_ptr, t_ptr, n_cols, ignore_index,
                                   BLOCK_N: tl.constexpr):
    # twin: ignore_index not tested, so an ignored row's label -100 is used as a column
    row = tl.program_id(0)
    y = tl.load(t_ptr + row)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    x_y = tl.load(x_ptr + row * n_cols + y)
    tl.store(loss_ptr + row, lse - x_y)


@triton.jit
def cross_entropy_max_not_lse_kernel(loss_ptr, x_ptr, t_ptr, n_cols, ignore_index,
                                     BLOCK_N: tl.constexpr):
    # twin: the row max stands in for the log-sum-exp
    row = tl.program_id(0)
    y = tl.load(t_ptr + row)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    m = tl.max(x, axis=0)
    if y == ignore_index:
        loss = 0.0
    else:
        x_y = tl.load(x_ptr + row * n_cols + y)
        loss = m - x_y
    tl.store(loss_ptr + row, loss)
