"""CUDA source in: a `__global__` kernel given as source text (a KernelBench
`load_inline` string as is) or a `.cu` file, called with arrays, read as a launch.

The source is compiled by the lift library itself, through NVRTC from pip
(`nvidia-cuda-nvrtc-cu12`), exactly as `lift check k.cu --kernel NAME` compiles it, so
a Python verdict is the CLI's verdict on the same file and launch; findings name lines
of the `.cu` file (a source string is kept in the cache as `kernel.cu`).

What lift needs of the C++ signature it reads here: each parameter's name (a tensor
`x` or `x_ptr` is tensor `x`, as for Triton) and whether it is a pointer (a tensor) or a
value (an integer size, or a float scalar). A pointer's element type must agree with
the array passed for it. The launch keys parameters by position (`param_0`, ...), since
NVRTC mangles C++ names.
"""
import os
import re
import sys

import numpy as np

from ._call import Launch, LaunchError, as_numpy, is_array

# Element types of pointer parameters, by the C++ spelling NVRTC code uses.
_POINTEE = {
    "float": "float32", "double": "float64", "__half": "float16", "half": "float16",
    "int": "int32", "int32_t": "int32", "unsigned": "uint32", "unsigned int": "uint32",
    "uint32_t": "uint32", "long long": "int64", "long long int": "int64", "int64_t": "int64",
    "long": "int64", "unsigned long long": "uint64", "uint64_t": "uint64", "short": "int16",
    "int16_t": "int16", "unsigned short": "uint16", "uint16_t": "uint16", "char": "int8",
    "signed char": "int8", "int8_t": "int8", "unsigned char": "uint8", "uint8_t": "uint8",
    "bool": "bool",
}
_FLOATS = {"float", "double", "__half", "half"}
_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "struct", "signed"}


def _without_comments(src):
    """`src` with comments blanked (newlines kept, so offsets still give lines)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"//[^\n]*|/\*.*?\*/", blank, src, flags=re.S)


class Param:
    """One parameter of the kernel's C++ signature."""

    def __init__(self, text, line):
        decl = re.sub(r"=.*$", "", text).strip()  # a default argument
        array = decl.endswith("]")
        decl = re.sub(r"\[[^\]]*\]\s*$", "", decl).strip()
        m = re.search(r"([A-Za-z_]\w*)\s*$", decl)
        if not m or m.group(1) in _QUALIFIERS:
            raise LaunchError(f"line {line}: cannot read a parameter name in `{text.strip()}`")
        self.name = m.group(1)
        ctype = decl[:m.start()]
        self.pointer = array or "*" in ctype or "&" in ctype
        words = [w for w in re.findall(r"[A-Za-z_]\w*", ctype) if w not in _QUALIFIERS]
        self.ctype = " ".join(words)  # the element type, qualifiers dropped
        self.line = line

    @property
    def dtype(self):
        """The NumPy dtype name of a pointer's elements (None for `void*` or unknown)."""
        return _POINTEE.get(self.ctype)


def signature(src, name):
    """The parameters of `__global__` function `name` in `src`, in order."""
    text = _without_comments(src)
    found = []
    for m in re.finditer(r"\b" + re.escape(name) + r"\s*\(", text):
        head_start = max(text.rfind(c, 0, m.start()) for c in ";{}")
        head = text[head_start + 1:m.start()]
        head = re.sub(r"^\s*#[^\n]*", "", head, flags=re.M)
        if re.search(r"\b__global__\b", head):
            found.append(m)
    if not found:
        raise LaunchError(f"no __global__ function named {name} in the CUDA source")
    if len(found) > 1:
        raise LaunchError(f"{name} is defined {len(found)} times (overloads or templates); "
                          "lift.check_cuda reads one plain __global__ function")
    m = found[0]
    depth, i, start, params = 1, m.end(), m.end(), []
    while depth and i < len(text):
        c = text[i]
        if c in "(<[":
            depth += 1
        elif c in ")>]":
            depth -= 1
        if (c == "," and depth == 1) or depth == 0:
            piece = text[start:i]
            if piece.strip() and piece.strip() != "void":
                params.append(Param(piece, text.count("\n", 0, start) + 1))
            start = i + 1
        i += 1
    if depth:
        raise LaunchError(f"the parameter list of {name} does not close")
    return params


def _source(src):
    """(source text, path of a `.cu` file or None) for `src`, text or a file's path."""
    if isinstance(src, os.PathLike) or (isinstance(src, str) and src.endswith(".cu") and "\n" not in src):
        path = os.fspath(src)
        try:
            with open(path) as f:
                return f.read(), os.path.abspath(path)
        except OSError as e:
            raise LaunchError(f"{path}: cannot read CUDA source: {e.strerror}") from None
    if not isinstance(src, str):
        raise TypeError(f"CUDA source must be text or a .cu path, not {type(src).__name__}")
    return src, None


def _find_nvrtc():
    """Let the library find NVRTC in this interpreter's site-packages when nothing says
    where it is (the library asks $LIFT_PYTHON, then `python3`, for the pip wheel)."""
    if os.environ.get("LIFT_NVRTC") or os.environ.get("LIFT_PYTHON"):
        return
    try:
        import nvidia.cuda_nvrtc  # noqa: F401  (only whether this Python has the wheel)
    except ImportError:
        return
    os.environ["LIFT_PYTHON"] = sys.executable


def _dims(v, what):
    v = (v,) if isinstance(v, (int, np.integer)) else tuple(v)
    if not 1 <= len(v) <= 3 or any(not isinstance(d, (int, np.integer)) or d < 1 for d in v):
        raise LaunchError(f"{what}= takes one to three positive integers, not {v!r}")
    return tuple(int(d) for d in v)


class CudaCall(Launch):
    """A CUDA kernel call read as lift reads it: the source, the kernel's name, the
    launch read off the arguments, `block` and `grid`."""

    def __init__(self, src, name, args, block, grid, nvrtc_options=()):
        self.source, path = _source(src)
        self.cuda_kernel = name
        self.nvrtc_options = tuple(nvrtc_options)
        self.block = _dims(block, "block")
        grid = _dims(grid, "grid")
        self.signature = signature(self.source, name)
        if len(args) != len(self.signature):
            raise LaunchError(f"{name} takes {len(self.signature)} arguments "
                              f"({', '.join(p.name for p in self.signature)}), {len(args)} given")
        params = []
        for i, (p, a) in enumerate(zip(self.signature, args)):
            params.append((f"param_{i}", p.name, self._argument(p, a)))
        self.args = list(args)
        self.kernel_path = path
        _find_nvrtc()
        self._read(params, grid, [d for d in self.block if d > 1])
        self._settle(self.source, "kernel.cu", "\0".join((name,) + self.nvrtc_options))

    @staticmethod
    def _argument(p, a):
        """Argument `a` for parameter `p`, checked against its C++ type."""
        if p.pointer:
            if not is_array(a):
                raise LaunchError(f"line {p.line}: parameter {p.name} ({p.ctype} *) takes an array, "
                                  f"not {type(a).__name__}")
            got = str(as_numpy(a).dtype)
            if p.dtype is not None and got != p.dtype:
                raise LaunchError(f"line {p.line}: parameter {p.name} points to {p.ctype} ({p.dtype}); "
                                  f"the array passed holds {got}")
            return a
        if is_array(a):
            raise LaunchError(f"line {p.line}: parameter {p.name} ({p.ctype}) is a value, not a pointer; "
                              "an array was passed")
        if p.ctype in _FLOATS:
            return float(a)
        if isinstance(a, (float, np.floating)):
            raise LaunchError(f"line {p.line}: parameter {p.name} is {p.ctype}; a float was passed")
        return a

    def replaced_args(self, arrays, scalars):
        """The call's arguments with the inputs `arrays` (by tensor name) and float
        `scalars` put in, outputs fresh zeros: the counterexample as a call."""
        out = []
        for p, a in zip(self.signature, self.args):
            t = self.tensor_of.get(p.name)
            if is_array(a):
                out.append(np.ascontiguousarray(arrays[t]) if t in arrays else np.zeros_like(as_numpy(a)))
            elif p.name in scalars:
                out.append(type(a)(scalars[p.name]))
            else:
                out.append(a)
        return out
