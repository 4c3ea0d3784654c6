"""Kernels whose integers matter: each is right where its integers fit their type and
wrong only where the GPU's wrap-around shows (see tests/it/int_widths.rs), with controls
whose integers cannot wrap. Compiled by generate.py."""
import triton
import triton.language as tl


@triton.jit
def scale_i16_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    # Offsets narrowed to int16: past 32767 they wrap negative, and the store lands
    # before the start of y.
    pid = tl.program_id(0)
    offs = (pid * BLOCK + tl.arange(0, BLOCK)).to(tl.int16)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2.0, mask=mask)


@triton.jit
def scale_i64_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    # The control: offsets widened to int64.
    pid = tl.program_id(0)
    offs = (pid * BLOCK + tl.arange(0, BLOCK)).to(tl.int64)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2.0, mask=mask)


@triton.jit
def row_sum_loop_i32_kernel(y_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # An i32 loop counter: near 2**31 `off + BLOCK` wraps negative, stays below N, and
    # the loop never ends.
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def row_sum_loop_i64_kernel(y_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # The control: the same loop with an int64 counter (its bound is an i32).
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N.to(tl.int64), BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def head_sum_kernel(y_ptr, x_ptr, N, BLOCK: tl.constexpr):
    # Sums the first N - 3 columns of each row (none where N <= 3). Python's
    # `x[:, :N-3]` agrees only where N >= 3: at N = 2 it reads `x[:, :-1]`.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N - 3, other=0.0)
    tl.store(y_ptr + row, tl.sum(x, axis=0))


@triton.jit
def unsigned_shift_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    # Adds u - d, where d = n - 1000 and u is d read as uint32: zero where n >= 1000 (the
    # launch's N = 1000), but 2**32 where n < 1000, as `arith.uitofp` reads the bits of
    # a negative d unsigned. Read as the real d, it would be zero at every size.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    d = n - 1000
    u = d.to(tl.uint32, bitcast=True).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x + (u - d.to(tl.float32)), mask=mask)


@triton.jit
def shl_pairs_i16_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    # Sums each row of a [n, 2] x, addressing row i at `i << 1` in int16: past
    # i = 16383 the shift wraps negative and the loads land before the start of x.
    pid = tl.program_id(0)
    offs = (pid * BLOCK + tl.arange(0, BLOCK)).to(tl.int16)
    mask = offs < n
    row = offs << 1
    a = tl.load(x_ptr + row, mask=mask)
    b = tl.load(x_ptr + row + 1, mask=mask)
    tl.store(y_ptr + offs, a + b, mask=mask)


@triton.jit
def shl_pairs_i32_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    # The control: the same rows addressed at `i << 1` in int32.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = offs << 1
    a = tl.load(x_ptr + row, mask=mask)
    b = tl.load(x_ptr + row + 1, mask=mask)
    tl.store(y_ptr + offs, a + b, mask=mask)


@triton.jit
def div_by_zero_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    # Scales by the integer quotient 1 // (n - 1000): at the launch's N = 1000 the divisor
    # is 0, a division whose result the GPU leaves undefined (a fault of the kernel).
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    k = 1 // (n - 1000)
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * k.to(tl.float32), mask=mask)
