"""Single-head attention o = softmax(q @ k^T * scale) @ v, computed directly (no online
rescaling): one program per BLOCK_M = 16 query rows takes ALL keys in one block of
BLOCK_N = 32 (seq_k <= 32; keys beyond seq_k masked with -inf), forms the scores, their
row max, p = exp(s - max) normalised by its row sum, and o = p @ v.  Head dimension 16.

Launch tensors, sizes, scalar, spec, instances and reference data are those of attention
(EQUIV, inherited by generate.py)."""
import triton
import triton.language as tl


@triton.jit
def attn_naive_kernel(Q, K, V, Out, sm_scale, seq_q, seq_k, stride_qm, stride_km, stride_vm, stride_om,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_D: tl.constexpr):
    start_m = tl.program_id(0)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_D)
    q = tl.load(Q + offs_m[:, None] * stride_qm + offs_d[None, :], mask=offs_m[:, None] < seq_q, other=0.0)
    kv_mask = offs_n[:, None] < seq_k
    k = tl.load(K + offs_n[:, None] * stride_km + offs_d[None, :], mask=kv_mask, other=0.0)
    v = tl.load(V + offs_n[:, None] * stride_vm + offs_d[None, :], mask=kv_mask, other=0.0)
    s = tl.dot(q, tl.trans(k), input_precision="ieee") * sm_scale
    s = tl.where(offs_n[None, :] < seq_k, s, -float("inf"))
    p = tl.exp(s - tl.max(s, axis=1)[:, None])
    p = p / tl.sum(p, axis=1)[:, None]
    o = tl.dot(p, v, input_precision="ieee")
    tl.store(Out + offs_m[:, None] * stride_om + offs_d[None, :], o, mask=offs_m[:, None] < seq_q)


KERNEL = "attn_naive_kernel"
CONSTEXPRS = {"BLOCK_M": 16, "BLOCK_N": 32, "HEAD_D": 16}
EQUIV = "attention"
EXPECT = "verified"
