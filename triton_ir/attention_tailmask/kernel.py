"""Size twin of attention (flash): the scores of keys past seq_k are not masked to -inf.

Keys past seq_k load as zeros, so in a ragged last tile their scores are 0 and each
adds exp2(0 - m) to the row sum: right when N is a multiple of BLOCK_N = 16 (the
instances), wrong otherwise. Launch, spec and reference are those of attention."""
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
    qk_scale = sm_scale * 1.4426950408889634  # log2(e) = 1 / ln(2)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_D], dtype=tl.float32)
    for start_n in range(0, seq_k, BLOCK_N):
        cols = start_n + offs_n
        kv_mask = cols[:, None] < seq_k
        k = tl.load(K + cols[:, None] * stride_km + offs_d[None, :], mask=kv_mask, other=0.0)
        qk = tl.dot(q, tl.trans(k), input_precision="ieee")
        qk = qk * qk_scale
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
SIGNATURE = {"Q": "*fp32", "K": "*fp32", "V": "*fp32", "Out": "*fp32", "sm_scale": "fp32",
             "seq_q": "i32", "seq_k": "i32", "stride_qm": "i32", "stride_km": "i32", "stride_vm": "i32",
             "stride_om": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "HEAD_D": "constexpr"}
CONSTEXPRS = {"BLOCK_M": 16, "BLOCK_N": 16, "HEAD_D": 16}
GRID = ["cdiv(M, 16)"]
ARGS = {
    "Q": {"tensor": "q", "shape": ["M", "D"]},
    "K": {"tensor": "k", "shape": ["N", "D"]},
    "V": {"tensor": "v", "shape": ["N", "D"]},
    "Out": {"tensor": "o", "shape": ["M", "D"], "role": "out"},
    "sm_scale": {"scalar": "scale"},
    "seq_q": "M",
    "seq_k": "N",
    "stride_qm": "D",
    "stride_km": "D",
    "stride_vm": "D",
    "stride_om": "D",
}
SPEC = "o = torch.softmax(q @ k.T * scale, dim=-1) @ v"
EXPECT = "verified"
# D must equal HEAD_D = 16 (the kernel does not mask the head dimension)
REFERENCE_OP = "attention"
INSTANCES = [
    {"name": "even", "sizes": {"M": 16, "N": 32, "D": 16}, "scalars": {"scale": 0.25}},
    {"name": "ragged_rows", "sizes": {"M": 20, "N": 16, "D": 16}, "scalars": {"scale": 0.25}},
]
SIZE_BUG = "keys past seq_k in the last tile keep score 0 instead of -inf: wrong whenever N is not a multiple of 16"
BUG_SIZES = {"D": 16, "M": 16, "N": 18}
