"""Size twin of attention_naive: the scores of keys beyond seq_k are not masked to -inf.

Keys beyond seq_k load as zeros, so their scores are 0 and each adds exp(0 - max) to the
row sum: right when seq_k fills the key block (N = 32, the instances), wrong for every
N < 32. Launch, spec and reference are those of attention (REFERENCE_OP); the instances
are its own."""
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
    p = tl.exp(s - tl.max(s, axis=1)[:, None])
    p = p / tl.sum(p, axis=1)[:, None]
    o = tl.dot(p, v, input_precision="ieee")
    tl.store(Out + offs_m[:, None] * stride_om + offs_d[None, :], o, mask=offs_m[:, None] < seq_q)


KERNEL = "attn_naive_kernel"
CONSTEXPRS = {"BLOCK_M": 16, "BLOCK_N": 32, "HEAD_D": 16}
EXPECT = "verified"
REFERENCE_OP = "attention"
INSTANCES = [
    {"name": "full", "sizes": {"M": 16, "N": 32, "D": 16}, "scalars": {"scale": 0.25}},
    {"name": "ragged_rows", "sizes": {"M": 20, "N": 32, "D": 16}, "scalars": {"scale": 0.25}},
]
SIZE_BUG = "masked keys keep score 0 instead of -inf: every row sum gains exp(-max) per missing key when N < 32"
BUG_SIZES = {"D": 16, "M": 16, "N": 18}
