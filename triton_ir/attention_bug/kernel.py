"""Wrong twin of attention: softmax scale missing: scores multiplied by log2(e) only, not by sm_scale.

Launch, spec, instances and reference data are those of attention (inherited by generate.py)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def attn_fwd_kernel(Q, K, V, Out, sm_scale, seq_q, seq_k, stride_qm, stride_km, stride_vm, stride_om,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_D: tl.constexpr):
    start_m = tl.program_id(0)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_D)
    q = tl.load(Q + offs_m[:, None] * stride_qm + offs_d[None, :], mask=offs_m[:, None] < seq_q, other=0.0)
    qk_scale = 1.4426950408889634  # log2(e) = 1 / ln(2)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_D], dtype=tl.float32)
    for start_n in range(0, seq_k, BLOCK_N):
        cols = start_n + offs_n
        kv_mask = cols[:, None] < seq_k
        k = tl.load(K + cols[:, None] * stride_km + offs_d[None, :], mask=kv_mask, other=0.0)
        qk = tl.dot(q, tl.trans(k), input_precision="ieee")
        qk = tl.where(cols[None, :] < seq_k, qk * qk_scale, -float("inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, axis=1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None]
        v = tl.load(V + cols[:, None] * stride_vm + offs_d[None, :], mask=kv_mask, other=0.0)
        acc = tl.dot(p, v, acc, input_precision="ieee")
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + offs_m[:, None] * stride_om + offs_d[None, :], acc, mask=offs_m[:, None] < seq_q)


KERNEL = "attn_fwd_kernel"
REFERENCE_OP = "attention"
EQUIV = "attention"
EXPECT = "refuted"
BUG = "softmax scale missing: scores multiplied by log2(e) only, not by sm_scale"
