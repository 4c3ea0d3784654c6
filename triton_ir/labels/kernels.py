"""Triton kernels over integer label and index tensors, in the style of the libraries
(Liger-Kernel's cross-entropy, Unsloth's and vLLM's embedding lookups). Their pointer
types (`*i64`) type the labels: the launches state no `dtype`.

Compiled by generate.py beside this file; see its docstring. Every correct kernel has a
wrong twin whose bug shows only at other sizes or at some label values.
"""
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(loss_ptr, X_ptr, X_stride, Y_ptr, n_cols, ignore_index,
                         BLOCK_SIZE: tl.constexpr):
    # one program per row, the vocabulary in BLOCK_SIZE chunks with an online
    # log-sum-exp (Liger's loop); an ignored row's loss is 0
    row = tl.program_id(0).to(tl.int64)
    X_ptr += row * X_stride
    y = tl.load(Y_ptr + row)
    if y == ignore_index:
        tl.store(loss_ptr + row, 0.0)
        return
    m = float("-inf")
    d = 0.0
    for i in range(0, n_cols, BLOCK_SIZE):
        offs = i + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X_ptr + offs, mask=offs < n_cols, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new))
        m = m_new
    x_y = tl.load(X_ptr + y)
    tl.store(loss_ptr + row, m + tl.log(d) - x_y)


@triton.jit
def cross_entropy_one_chunk_kernel(loss_ptr, X_ptr, X_stride, Y_ptr, n_cols, ignore_index,
                                   BLOCK_SIZE: tl.constexpr):
    # twin: only the first chunk of the vocabulary enters the log-sum-exp, right
    # while the vocabulary fits one block
    row = tl.program_id(0).to(tl.int64)
    X_ptr += row * X_stride
    y = tl.load(Y_ptr + row)
    if y == ignore_index:
        tl.store(loss_ptr + row, 0.0)
        return
    offs = tl.arange(0, BLOCK_SIZE)
    x = tl.load(X_ptr + offs, mask=offs < n_cols, other=float("-inf"))
    m = tl.max(x)
    d = tl.sum(tl.exp(x - m))
    x_y = tl.load(X_ptr + y)
    tl.store(loss_ptr + row, m + tl.log(d) - x_y)


@triton.jit
def nll_loss_kernel(loss_ptr, logp_ptr, stride, t_ptr, ignore_index):
    # one program per row: loss = -logp[row, t[row]], 0 where t[row] == ignore_index
    row = tl.program_id(0)
    t = tl.load(t_ptr + row)
    keep = t != ignore_index
    safe = tl.where(keep, t, 0)
    lp = tl.load(logp_ptr + row * stride + safe)
    tl.store(loss_ptr + row, tl.where(keep, -lp, 0.0))


@triton.jit
def nll_loss_label0_kernel(loss_ptr, logp_ptr, stride, t_ptr, ignore_index):
    # twin: a label 0 is taken for "ignored" too (`t > 0` for `t != ignore_index`),
    # right on every row whose label is not 0
    row = tl.program_id(0)
    t = tl.load(t_ptr + row)
    keep = t > 0
    safe = tl.where(keep, t, 0)
    lp = tl.load(logp_ptr + row * stride + safe)
    tl.store(loss_ptr + row, tl.where(keep, -lp, 0.0))


@triton.jit
def embedding_kernel(out_ptr, ids_ptr, w_ptr, D, BLOCK_D: tl.constexpr):
    # one program per token; the embedding row copied in BLOCK_D chunks
    i = tl.program_id(0)
    idx = tl.load(ids_ptr + i)
    for j in range(0, D, BLOCK_D):
        cols = j + tl.arange(0, BLOCK_D)
        mask = cols < D
        row = tl.load(w_ptr + idx * D + cols, mask=mask)
        tl.store(out_ptr + i * D + cols, row, mask=mask)


@triton.jit
def embedding_block_stride_kernel(out_ptr, ids_ptr, w_ptr, D, BLOCK_D: tl.constexpr):
    # twin: the table's rows are taken BLOCK_D apart, right only when D == BLOCK_D
    i = tl.program_id(0)
    idx = tl.load(ids_ptr + i)
    for j in range(0, D, BLOCK_D):
        cols = j + tl.arange(0, BLOCK_D)
        mask = cols < D
        row = tl.load(w_ptr + idx * BLOCK_D + cols, mask=mask)
        tl.store(out_ptr + i * D + cols, row, mask=mask)


@triton.jit
def dequant_rows_kernel(y_ptr, q_ptr, scale_ptr, n_cols, BLOCK_N: tl.constexpr):
    # int8 row-wise dequantisation: y[row] = q[row] * scale[row], the row in chunks
    row = tl.program_id(0)
    s = tl.load(scale_ptr + row)
    for i in range(0, n_cols, BLOCK_N):
        cols = i + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        q = tl.load(q_ptr + row * n_cols + cols, mask=mask, other=0)
        tl.store(y_ptr + row * n_cols + cols, q.to(tl.float32) * s, mask=mask)


@triton.jit
def dequant_rows_unsigned_kernel(y_ptr, q_ptr, scale_ptr, n_cols, BLOCK_N: tl.constexpr):
    # twin: the int8 codes are read as unsigned bytes, right for every code >= 0
    row = tl.program_id(0)
    s = tl.load(scale_ptr + row)
    for i in range(0, n_cols, BLOCK_N):
        cols = i + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        q = tl.load(q_ptr + row * n_cols + cols, mask=mask, other=0)
        tl.store(y_ptr + row * n_cols + cols, q.to(tl.uint8).to(tl.float32) * s, mask=mask)


@triton.jit
def nll_loss_rows_kernel(loss_ptr, logp_ptr, stride, t_ptr, n_rows, ignore_index,
                         BLOCK_M: tl.constexpr):
    # BLOCK_M rows per program; the label load has no other= (read with
    # --masked-load zero: a masked-off label is the integer 0)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    in_rows = rows < n_rows
    t = tl.load(t_ptr + rows, mask=in_rows)
    keep = (t != ignore_index) & in_rows
    safe = tl.where(keep, t, 0)
    lp = tl.load(logp_ptr + rows * stride + safe, mask=in_rows, other=0.0)
    tl.store(loss_ptr + rows, tl.where(keep, -lp, 0.0), mask=in_rows)


@triton.jit
def nll_loss_rows_unmasked_kernel(loss_ptr, logp_ptr, stride, t_ptr, n_rows, ignore_index,
                                  BLOCK_M: tl.constexpr):
    # twin: the loads are not masked, right while BLOCK_M divides the rows; a ragged
    # last block reads labels past the end
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    in_rows = rows < n_rows
    t = tl.load(t_ptr + rows)
    keep = (t != ignore_index) & in_rows
    safe = tl.where(keep, t, 0)
    lp = tl.load(logp_ptr + rows * stride + safe)
    tl.store(loss_ptr + rows, tl.where(keep, -lp, 0.0), mask=in_rows)


@triton.jit
def embedding_whole_blocks_kernel(out_ptr, ids_ptr, w_ptr, D, BLOCK_D: tl.constexpr):
    # twin: the loop runs over whole blocks only, so a ragged tail of the row is never
    # written; right whenever BLOCK_D divides D
    i = tl.program_id(0)
    idx = tl.load(ids_ptr + i)
    for j in range(0, D // BLOCK_D * BLOCK_D, BLOCK_D):
        cols = j + tl.arange(0, BLOCK_D)
        row = tl.load(w_ptr + idx * D + cols)
        tl.store(out_ptr + i * D + cols, row)


@triton.jit
def nll_loss_ignore_diag_kernel(loss_ptr, logp_ptr, stride, t_ptr, ignore_index):
    # twin: an ignored row reads logp[row, row] as its placeholder class (its value is
    # discarded), outside the tensor once the rows outnumber the classes
    row = tl.program_id(0)
    t = tl.load(t_ptr + row)
    keep = t != ignore_index
    safe = tl.where(keep, t, row)
    lp = tl.load(logp_ptr + row * stride + safe)
    tl.store(loss_ptr + row, tl.where(keep, -lp, 0.0))
