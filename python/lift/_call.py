"""A kernel call as lift reads it: the TTIR Triton compiles for exactly the call's
specialization, and the launch (docs/launch.md) read off the call's arguments.

Compilation is Triton's own: its argument binder (`create_function_from_signature`, the
one `kernel[grid](...)` runs) gives the signature, constexprs and alignment attributes
of the call, and `triton.compile` compiles them for `GPUTarget("cuda", 80, 32)` on the
CPU; no GPU and no torch are needed. Arrays are NumPy arrays or, where torch is
importable, torch tensors; both reach Triton through `TensorView`, which has just the
attributes Triton's binder and interpreter read.

Launch rules (so the printed launch says what a verdict assumes):
  * a tensor argument `x_ptr` (or `x`) is tensor `x`, its extents are sizes: equal
    extents are one size, named M, N, K, L, ... in order of first appearance;
  * an integer argument is the size its value equals, else a product of two sizes
    (a row stride of a 3-D tensor), else the literal;
  * a float argument is a symbolic scalar of its name where the spec names it (or
    there is no spec), else the call's value;
  * one array passed for two parameters is one tensor, named after the first (in
    place); other overlaps are refused;
  * each grid entry is a size, `cdiv(size, c)` for a constexpr `c` of the call, or the
    literal;
  * roles: a tensor the kernel writes is `out` (`inout` if it reads it first), read off
    a concrete run of the kernel on the call's inputs (`lift._lift.tensor_roles`).
Only contiguous tensors are accepted: a launch describes row-major tensors.
"""
import hashlib
import os

import numpy as np

from . import _lift

SIZE_NAMES = ["M", "N", "K", "L", "P", "Q", "R", "S", "T", "U", "V", "W"]

# NumPy dtype -> Triton's name for it (what `str(tensor.dtype)` says for torch).
_TORCH_NAMES = {
    "float32": "float32", "float16": "float16", "float64": "float64",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "bool": "bool",
}


class LaunchError(ValueError):
    """A call lift cannot describe as a launch (a non-contiguous tensor, an argument of
    a type it does not know)."""


def cache_dir():
    """Where compiled calls and verdicts are kept: $LIFT_CACHE_DIR, else ~/.cache/lift."""
    d = os.environ.get("LIFT_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "lift")
    os.makedirs(d, exist_ok=True)
    return d


def as_numpy(a):
    """A NumPy view of an array argument (a torch tensor is copied to the host)."""
    if isinstance(a, np.ndarray):
        return a
    if type(a).__module__.startswith("torch"):
        return a.detach().cpu().numpy()
    raise LaunchError(f"not an array: {type(a).__name__}")


def is_array(a):
    return isinstance(a, (np.ndarray, TensorView)) or (
        type(a).__module__.startswith("torch") and hasattr(a, "data_ptr"))


class TensorView:
    """Just enough of a torch.Tensor over a NumPy array for Triton's argument binder and
    its CPU interpreter (both read `data_ptr`, `dtype`, storage and strides)."""

    class _DType:
        def __init__(self, d):
            self.d = d

        def __str__(self):
            return "torch." + _TORCH_NAMES[str(self.d)]

        @property
        def itemsize(self):
            return self.d.itemsize

    def __init__(self, a):
        if str(a.dtype) not in _TORCH_NAMES:
            raise LaunchError(f"arrays of dtype {a.dtype} are not supported")
        self.a = a
        self.dtype = self._DType(a.dtype)

    def data_ptr(self):
        return self.a.ctypes.data

    def untyped_storage(self):
        return self

    def cpu(self):
        return self

    def new_empty(self, *a, **k):
        return self

    def set_(self, *a):
        return self

    def storage_offset(self):
        return 0

    def size(self):
        return self.a.shape

    def stride(self):
        return tuple(s // self.a.itemsize for s in self.a.strides)

    def copy_(self, other):
        pass


def triton_arg(a):
    """What Triton is handed for argument `a`: a NumPy array as a TensorView."""
    return TensorView(a) if isinstance(a, np.ndarray) else a


def compile_call(kernel, args, kwargs):
    """TTIR text and the bound arguments of `kernel(*args, **kwargs)` as Triton's JIT
    would compile it (signature, constexprs, alignment attributes), for sm_80."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, make_backend
    from triton.runtime.jit import create_function_from_signature

    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction
    if isinstance(kernel, InterpretedFunction):  # under TRITON_INTERPRET=1
        kernel = JITFunction(kernel.fn)
    if not isinstance(kernel, JITFunction):
        raise LaunchError(f"{kernel!r} is not a @triton.jit function")
    target = GPUTarget("cuda", 80, 32)
    backend = make_backend(target)
    binder = create_function_from_signature(kernel.signature, kernel.params, backend)
    targs = [triton_arg(a) for a in args]
    tkwargs = {k: triton_arg(v) for k, v in kwargs.items()}
    bound, specialization, options = binder(*targs, **tkwargs)
    options, signature, constexprs, attrs = kernel._pack_args(backend, tkwargs, bound, specialization, options)
    src = ASTSource(fn=kernel, signature=signature, constexprs=constexprs, attrs=attrs)
    compiled = triton.compile(src, target=target, options=options.__dict__)
    return compiled.asm["ttir"], bound, signature


def _like(original, array):
    """`array` as the caller passed `original`: a NumPy array, or a torch tensor on the
    original's device."""
    if isinstance(original, np.ndarray):
        return array
    import torch
    return torch.from_numpy(array).to(original.device)


def _toml(v):
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return repr(v)


def tensor_name(param):
    return param[:-4] if param.endswith("_ptr") and len(param) > 4 else param


class Launch:
    """A launch read off a kernel call's arguments: sizes, the `[args]` entries, the
    grid, each tensor's role, and the files lift reads (`kernel_path`, `launch_path`).
    `Call` (Triton) and `lift._cuda.CudaCall` (CUDA source) fill it the same way."""

    # How the extension compiles `kernel_path` when it is CUDA source (name, options).
    cuda_kernel = None
    nvrtc_options = ()
    block = None

    def _read(self, params, grid, divisors):
        """Read `params`, (launch key, parameter name, value) in argument order, and the
        `grid` (ints); `divisors` are the constants a grid entry may be `cdiv` by."""
        self.params = {}  # tensor name -> the caller's array
        self.tensor_of = {}  # parameter -> tensor name
        self.scalars = {}
        self.sizes = {}  # size name -> value
        size_of = {}  # value -> size name
        # Sizes first, from every tensor, so an integer before a tensor still names one.
        for _, _, value in params:
            if is_array(value):
                for extent in as_numpy(value.a if isinstance(value, TensorView) else value).shape:
                    if extent not in size_of:
                        if len(size_of) == len(SIZE_NAMES):
                            raise LaunchError("more distinct extents than size names")
                        size_of[extent] = SIZE_NAMES[len(size_of)]
                        self.sizes[size_of[extent]] = int(extent)
        entries = []  # (launch key, parameter, tensor name or None, shape or int expression, dtype)
        ptrs = {}  # tensor name -> the address of its data
        for key, name, value in params:
            if is_array(value):
                arr = as_numpy(value.a if isinstance(value, TensorView) else value)
                if arr.ndim > 0 and not arr.flags["C_CONTIGUOUS"]:
                    raise LaunchError(f"argument {name}: lift reads row-major contiguous tensors; "
                                      f"pass np.ascontiguousarray(...) (strides {arr.strides})")
                shape = [size_of[extent] for extent in arr.shape]
                t = tensor_name(name)
                # One array passed twice (in place) is one tensor; any other overlap
                # has no launch that describes it.
                ptr = value.data_ptr() if hasattr(value, "data_ptr") else arr.ctypes.data
                for other, a in self.params.items():
                    if ptrs[other] == ptr and a.shape == arr.shape and a.dtype == arr.dtype:
                        t = other
                        break
                    if ptrs[other] == ptr or np.shares_memory(a, arr):
                        raise LaunchError(f"argument {name} overlaps tensor {other} without being it: "
                                          "a launch describes distinct tensors")
                else:
                    if t in self.params:
                        raise LaunchError(f"argument {name}: tensor name {t} is taken by another argument")
                self.params[t], ptrs[t] = arr, ptr
                self.tensor_of[name] = t
                entries.append((key, name, t, shape, str(arr.dtype)))
            elif isinstance(value, bool) or value is None:
                raise LaunchError(f"argument {name}: {value!r} is neither a tensor, an int nor a float")
            elif isinstance(value, (int, np.integer)):
                entries.append((key, name, None, self._int_expr(int(value), size_of), None))
            elif isinstance(value, (float, np.floating)):
                self.scalars[name] = float(value)
                entries.append((key, name, None, None, None))
            else:
                raise LaunchError(f"argument {name}: {type(value).__name__} is neither a tensor, an int nor a float")
        grid = (grid,) if isinstance(grid, int) else tuple(grid)
        self.entries = entries
        self.grid_exprs = [self._grid_expr(int(g), size_of, sorted(set(divisors))) for g in grid]

    def _settle(self, code, kernel_file, how=""):
        """Key the call by `code` (the kernel's text), `how` it is compiled and its
        launch, keep both in the cache (the kernel as `kernel_file` there, unless
        `kernel_path` is already set), and settle each tensor's role by a run of the
        kernel on the call's inputs."""
        probe = self.launch_text({t: "inout" for _, _, t, _, _ in self.entries if t})
        self.key = hashlib.sha256((code + "\0" + how + "\0" + probe).encode()).hexdigest()[:24]
        self.dir = os.path.join(cache_dir(), "calls", self.key)
        os.makedirs(self.dir, exist_ok=True)
        if getattr(self, "kernel_path", None) is None:
            self.kernel_path = self._write(kernel_file, code)
        probe_path = self._write("probe.launch.toml", probe)
        self.roles = _lift.tensor_roles(self.kernel_path, probe_path, self.input_arrays(), self.scalars,
                                        self.cuda_kernel, list(self.nvrtc_options))
        self.launch = self.launch_text(self.roles)
        self.launch_path = self._write("kernel.launch.toml", self.launch)

    def _write(self, name, text):
        path = os.path.join(self.dir, name)
        if not os.path.exists(path) or open(path).read() != text:
            with open(path, "w") as f:
                f.write(text)
        return path

    def _int_expr(self, v, size_of):
        if v in size_of:
            return size_of[v]
        for a, na in size_of.items():
            for b, nb in size_of.items():
                if a * b == v and a > 1 and b > 1:
                    return f"{na} * {nb}"
        return v

    def _grid_expr(self, g, size_of, consts):
        if g in size_of:
            return size_of[g]
        for c in consts:
            for extent, name in size_of.items():
                if -(-extent // c) == g and extent != c:
                    return f"cdiv({name}, {c})"
        return g

    def launch_path_for(self, spec):
        """The launch file for proving against `spec`: a float argument the spec names
        stays a symbolic scalar, every other one is fixed to the call's value."""
        import re
        named = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", spec))
        fixed = {k: v for k, v in self.scalars.items() if k not in named}
        if not fixed:
            return self.launch_path, self.launch
        text = self.launch_text(self.roles, fixed)
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        return self._write(f"kernel.{digest}.launch.toml", text), text

    def launch_text(self, roles, fixed=None):
        lines = ["# Written by the lift Python package from a call's arguments (see lift/_call.py)."]
        if self.block is not None:
            lines.append(f"block = {_toml(list(self.block))}")
        lines += [f"grid = {_toml(list(self.grid_exprs))}",
                  "sizes = { " + ", ".join(f"{k} = {v}" for k, v in self.sizes.items()) + " }",
                  "", "[args]"]
        for key, name, t, shape, dtype in self.entries:
            if t is not None:
                lines.append(f'{key} = {{ tensor = "{t}", shape = {_toml(shape)}, '
                             f'role = "{roles[t]}", dtype = "{dtype}" }}')
            elif shape is None and fixed and name in fixed:
                lines.append(f"{key} = {{ value = {float(fixed[name])!r} }}")
            elif shape is None:
                lines.append(f'{key} = {{ scalar = "{name}" }}')
            else:
                lines.append(f"{key} = {_toml(shape)}")
        return "\n".join(lines) + "\n"

    def input_arrays(self):
        """The caller's arrays as lift takes them: name -> (shape, data as floats)."""
        return {t: (list(a.shape), a.astype(np.float64).ravel().tolist()) for t, a in self.params.items()}

    def tensors(self):
        """Tensor names in argument order."""
        return list(dict.fromkeys(t for _, _, t, _, _ in self.entries if t is not None))

    def inputs(self):
        return [t for t in self.tensors() if self.roles[t] != "out"]

    def outputs(self):
        return [t for t in self.tensors() if self.roles[t] != "in"]



class Call(Launch):
    """A `@triton.jit` call read as lift reads it: the TTIR Triton compiles for exactly
    the call's specialization (`ttir`), and its launch."""

    def __init__(self, kernel, args, grid, kwargs):
        self.kernel = kernel
        self.args = list(args)
        self.ttir, bound, signature = compile_call(kernel, args, kwargs)
        params = [(name, name, value) for name, value in bound.items() if signature.get(name) != "constexpr"]
        grid = grid(bound) if callable(grid) else grid
        consts = [int(v) for k, v in bound.items()
                  if signature.get(k) == "constexpr" and isinstance(v, int) and v > 1]
        self._read(params, grid, consts)
        self._settle(self.ttir, "kernel.ttir")

    def replaced_args(self, arrays, scalars):
        """The call's positional arguments with the inputs `arrays` (by tensor name) and
        float `scalars` (by parameter name) put in, outputs fresh zeros."""
        names = [p.name for p in self.kernel.params]
        out = []
        for name, a in zip(names, self.args):
            t = self.tensor_of.get(name)
            if is_array(a):
                new = np.ascontiguousarray(arrays[t]) if t in arrays else np.zeros_like(as_numpy(a))
                out.append(_like(a, new))
            elif name in scalars:
                out.append(type(a)(scalars[name]))
            else:
                out.append(a)
        return out
