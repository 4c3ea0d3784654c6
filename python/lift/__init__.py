"""lift from Python: prove what a Triton kernel computes, from the call site.

    import lift
    r = lift.check(softmax_kernel, y, x, x.shape[1], x.shape[1], x.shape[1],
                   grid=(x.shape[0],), spec="y = torch.softmax(x, dim=-1)", BLOCK_N=8)
    assert r.verified, r.text

`check`, `lift` and `assert_equivalent` compile the `@triton.jit` function for the
call's specialization with the installed Triton (CPU only, sm_80), read the launch off
the arguments (lift/_call.py says how) and run the lift library in-process (the
`lift._lift` extension); the verdicts are the library's on the files it writes into
its cache (`Result.kernel_path`, `Result.launch_path`), which `lift check` reruns.
`check_cuda` and `lift_cuda` do the same for a CUDA C++ kernel given as source (NVRTC
from pip compiles it in-process). `verified` decorates a launcher: each new
specialization is proved once, the verdict kept on disk. `batch` runs `lift batch` jobs here or as Ray tasks. Importing needs
neither torch, Ray nor a GPU.
"""
import functools
import hashlib
import json
import os

import numpy as np

from . import _lift
from ._batch import batch
from ._cuda import CudaCall
from ._call import Call, LaunchError, TensorView, cache_dir, triton_arg
from ._spec import SpecError, spec_text

__all__ = ["check", "lift", "check_cuda", "lift_cuda", "verified", "assert_equivalent", "interpret", "batch", "Result", "Formula",
           "Refuted", "Unknown", "Mismatch", "LiftError", "LaunchError", "SpecError", "TensorView", "stats"]

LiftError = _lift.LiftError

# Prover calls and verdict-cache hits in this process (tests assert cache hits on it).
stats = {"prover_calls": 0, "cache_hits": 0, "sampled": 0}

_WORDS = {0: "VERIFIED", 1: "REFUTED", 3: "UNKNOWN"}


class Result:
    """What `check` found: `verdict` ("VERIFIED", "REFUTED", "UNKNOWN"), `scope`
    ("all sizes" or "instance") and `constraints` of a proof, the report `text` and
    `report` (the CLI's lift.check/1 JSON), `launch` (the launch read off the call), and
    for a refutation `counterexample` (input arrays by tensor name, dtypes of the call)
    and `counterexample_args()` to run the kernel on it."""

    def __init__(self, doc, call, spec, launch, launch_path):
        self.report = doc["report"]
        self.text = doc["text"]
        self.verdict = _WORDS.get(doc["exit_code"], "UNKNOWN")
        self.scope = self.report.get("scope")
        self.constraints = self.report.get("constraints")
        self.spec = spec
        self.launch = launch
        self.kernel_path, self.launch_path = call.kernel_path, launch_path
        self._call = call
        self.counterexample = {}
        for name, (shape, data) in doc["counterexample"]["arrays"].items():
            dtype = call.params[name].dtype if name in call.params else np.float32
            self.counterexample[name] = np.array(data, dtype=np.float64).reshape(shape).astype(dtype)
        self.counterexample_scalars = doc["counterexample"]["scalars"]

    @property
    def verified(self):
        return self.verdict == "VERIFIED"

    def __bool__(self):
        return self.verified

    def __repr__(self):
        return f"<lift.Result {self.verdict} scope={self.scope!r}>"

    @property
    def formula(self):
        """The kernel's formula (`lift.lift` on the same call), computed on first use."""
        if not hasattr(self, "_formula"):
            self._formula = _lift_call(self._call)
        return self._formula

    def counterexample_args(self):
        """The call's arguments with every input replaced by the counterexample's array
        (outputs fresh zeros, scalars the counterexample's), in the call's order, for
        `kernel[grid](*args)` or `lift.interpret`."""
        if not self.counterexample:
            raise ValueError(f"no counterexample: the verdict is {self.verdict}")
        return self._call.replaced_args(self.counterexample, self.counterexample_scalars)


class Formula:
    """What `lift` found: `text` (the CLI's report), `latex`, `numpy` (a NumPy reference
    function's source, `reference` the function), `verdict`, `report` (lift.lift/1)."""

    def __init__(self, doc):
        self.report, self.text = doc["report"], doc["text"]
        self.latex, self.numpy = doc["latex"], doc["numpy"]
        self.verdict = _WORDS.get(doc["exit_code"], "UNKNOWN")
        self.reference = None
        if self.numpy:
            env = {}
            exec(compile(self.numpy, "<lift formula>", "exec"), env)
            fns = [v for k, v in env.items() if callable(v) and getattr(v, "__module__", None) is None
                   and not k.startswith("_") and not isinstance(v, type)]
            self.reference = fns[-1] if fns else None

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"<lift.Formula {self.verdict}>"


class Refuted(AssertionError):
    """A kernel call refuted against its spec: `result` holds the counterexample."""

    def __init__(self, result):
        super().__init__(result.text)
        self.result = result
        self.counterexample = result.counterexample


class _Cached:
    """A verdict read from the cache: its word and text."""

    def __init__(self, verdict, text):
        self.verdict, self.text = verdict, text


class Unknown(AssertionError):
    """A call `verified(on_unknown="raise")` could not decide."""

    def __init__(self, result):
        super().__init__(result.text)
        self.result = result


class Mismatch(AssertionError):
    """A sampled call (`verified(sample=...)`, where lift said UNKNOWN) whose output is not
    `allclose` to the reference's: `output` names it, `max_abs_diff` says by how much."""

    def __init__(self, output, max_abs_diff):
        super().__init__(f"lift: sampled check: output {output} differs from the reference "
                         f"(max |difference| {max_abs_diff:g})")
        self.output, self.max_abs_diff = output, max_abs_diff


def _call(kernel, args, grid, constexprs):
    if grid is None:
        raise TypeError("grid= is required (the programs the call launches)")
    return Call(kernel, args, grid, constexprs)


def _prove(call, spec, all_sizes=True):
    text = spec_text(spec, call.inputs(), call.outputs(), call.scalars)
    launch_path, launch = call.launch_path_for(text)
    stats["prover_calls"] += 1
    doc = json.loads(_lift.check(call.kernel_path, launch_path, text, all_sizes,
                                 {t: v for t, v in call.input_arrays().items() if t in call.inputs()},
                                 call.scalars, cuda_kernel=call.cuda_kernel,
                                 nvrtc_options=list(call.nvrtc_options)))
    return Result(doc, call, text, launch, launch_path)


def _lift_call(call, all_sizes=True):
    return Formula(json.loads(_lift.lift(call.kernel_path, call.launch_path, all_sizes,
                                         cuda_kernel=call.cuda_kernel,
                                         nvrtc_options=list(call.nvrtc_options))))


def check(kernel, *args, grid=None, spec, scope="all", **constexprs):
    """Prove `kernel[grid](*args, **constexprs)` against `spec` (spec-language text,
    e.g. "y = torch.softmax(x, dim=-1)", or a Python function of the input tensors
    returning the outputs). `scope="instance"` stops at the call's sizes."""
    return _prove(_call(kernel, args, grid, constexprs), spec, scope == "all")


def lift(kernel, *args, grid=None, scope="all", **constexprs):
    """The formula `kernel[grid](*args, **constexprs)` computes (text, LaTeX, NumPy)."""
    return _lift_call(_call(kernel, args, grid, constexprs), scope == "all")


def check_cuda(src, name, *args, block, grid, spec, scope="all", nvrtc_options=()):
    """Prove the CUDA kernel `name` of `src` (source text, e.g. a `load_inline` string,
    or a `.cu` path), launched as `name<<<grid, block>>>(*args)`, against `spec`. NVRTC
    from pip (`nvidia-cuda-nvrtc-cu12`) compiles it as `lift check k.cu --kernel NAME`
    does; findings name `.cu` lines. PTX is proved on its instance: the call's sizes."""
    return _prove(CudaCall(src, name, args, block, grid, nvrtc_options), spec, scope == "all")


def lift_cuda(src, name, *args, block, grid, nvrtc_options=()):
    """The formula the CUDA kernel `name` of `src` computes on this call (see
    `check_cuda`)."""
    return _lift_call(CudaCall(src, name, args, block, grid, nvrtc_options))


def assert_equivalent(kernel, reference, *args, grid=None, **constexprs):
    """For pytest: fail unless the call is proved equal to `reference` (a function of
    the input tensors, or spec text)."""
    r = check(kernel, *args, grid=grid, spec=reference, **constexprs)
    if not r.verified:
        raise AssertionError(f"lift: {r.verdict}\n{r.text}")
    return r


def interpret(kernel, grid, *args, **constexprs):
    """Run `kernel[grid](*args)` in Triton's CPU interpreter on NumPy arrays (in place),
    as TRITON_INTERPRET=1 runs it: the interpreter reads torch's tensor interface, which
    `TensorView` gives an array, and without TRITON_INTERPRET=1 at import the
    `@triton.jit` functions a kernel calls (`tl.max`, its own helpers) are interpreted
    through a patch held for the call."""
    from triton.runtime.interpreter import InterpretedFunction, _patch_lang
    from triton.runtime.jit import JITFunction
    fn = kernel.fn if hasattr(kernel, "fn") else kernel
    interpreted = {}

    def device_call(self, *a, **k):
        # InterpretedFunction.__call__ leaves triton.language patched (harmless under
        # TRITON_INTERPRET=1, where nothing is compiled); this restores it.
        if self.fn not in interpreted:
            interpreted[self.fn] = InterpretedFunction(self.fn)
        scope = _patch_lang(self.fn)
        try:
            return interpreted[self.fn].rewrite()(*a, **k)
        finally:
            scope.restore()

    saved = JITFunction.__call__
    JITFunction.__call__ = device_call
    try:
        InterpretedFunction(fn)[grid](*[triton_arg(a) for a in args],
                                      **{k: triton_arg(v) for k, v in constexprs.items()})
    finally:
        JITFunction.__call__ = saved


def verified(spec, *, run="auto", on_unknown="warn", sample=0.0, reference=None,
             rtol=1e-5, atol=1e-6, seed=None):
    """Decorate a launcher: every `kernel[grid](...)` it makes is proved against `spec`
    before it runs, once per specialization (IR, launch and spec hashed; verdicts kept
    in $LIFT_CACHE_DIR or ~/.cache/lift). A refutation raises `Refuted` with the
    counterexample; UNKNOWN warns (`on_unknown="raise"` raises `Unknown`, "ignore").
    `run`: "auto" runs NumPy calls in Triton's CPU interpreter and other calls as
    launched; "interpret" always interprets; "none" proves only.

    Only where the verdict is UNKNOWN, `sample` (a probability) checks that fraction of
    the calls the way runtime checkers do: `reference` (default: `spec` where it is a
    function) is run on a copy of the call's inputs (tensor parameters in the kernel's
    order, scalars by name) and each output must be `allclose` to it (`rtol`, `atol`),
    else `Mismatch`. A proved call is never sampled: the proof covers it."""
    if not 0.0 <= sample <= 1.0:
        raise ValueError(f"sample is a probability, not {sample!r}")
    if reference is None and callable(spec):
        reference = spec
    rng = np.random.default_rng(seed)

    def decorate(launcher):
        @functools.wraps(launcher)
        def wrapper(*args, **kwargs):
            with _Intercept(spec, run, on_unknown, _Sampler(sample, reference, rtol, atol, rng)):
                return launcher(*args, **kwargs)
        return wrapper
    return decorate


class _Sampler:
    """`verified`'s sampled checks of UNKNOWN calls."""

    def __init__(self, p, reference, rtol, atol, rng):
        self.p, self.reference, self.rtol, self.atol, self.rng = p, reference, rtol, atol, rng

    def wants(self):
        if self.p <= 0.0:
            return False
        if self.reference is None:
            import warnings
            warnings.warn("lift: sample= needs a runnable reference (reference=, or a function spec)")
            return False
        return self.rng.random() < self.p

    def before(self, call, args, kwargs):
        """This call's arrays by tensor name and floats by parameter name (the `Call` is
        shared by every call of the specialization), inputs copied as the kernel will
        read them (it may write in place)."""
        from ._call import as_numpy
        names = [p.name for p in call.kernel.params]
        bound = dict(zip(names, args), **kwargs)
        arrays = {call.tensor_of[n]: as_numpy(v.a if isinstance(v, TensorView) else v)
                  for n, v in bound.items() if n in call.tensor_of}
        floats = {n: float(bound[n]) for n in call.scalars if n in bound}
        inputs = {t: np.array(arrays[t], copy=True) for t in call.inputs()}
        return arrays, inputs, floats

    def after(self, call, state):
        import inspect
        arrays, inputs, floats = state
        tensors = iter(call.inputs())
        args, kwargs = [], {}
        for name in inspect.signature(self.reference).parameters:
            if name in floats:
                kwargs[name] = floats[name]
            else:
                t = next(tensors, None)
                if t is None:
                    break
                args.append(inputs[t])
        want = self.reference(*args, **kwargs)
        outs = call.outputs()
        want = list(want) if isinstance(want, (tuple, list)) else [want]
        stats["sampled"] += 1
        for name, w in zip(outs, want):
            got = np.asarray(arrays[name], dtype=np.float64)
            w = np.asarray(w, dtype=np.float64)
            if got.shape != w.shape or not np.allclose(got, w, rtol=self.rtol, atol=self.atol, equal_nan=True):
                diff = float(np.max(np.abs(got - w))) if got.shape == w.shape else float("inf")
                raise Mismatch(name, diff)


_calls = {}  # in-process memo: the specialization's key -> Call


def _memo_key(kernel, args, grid, kwargs):
    def sig(a):
        if isinstance(a, np.ndarray):
            return ("array", a.shape, str(a.dtype), a.flags["C_CONTIGUOUS"], a.ctypes.data % 16)
        if hasattr(a, "data_ptr") and hasattr(a, "shape"):
            return ("tensor", tuple(a.shape), str(a.dtype), a.data_ptr() % 16)
        return ("value", type(a).__name__, a if isinstance(a, (int, bool)) else None)
    g = grid if not callable(grid) else None
    return (id(kernel), tuple(sig(a) for a in args), tuple(sorted((k, sig(v)) for k, v in kwargs.items())),
            repr(g))


class _Intercept:
    """Patches Triton's kernel launch (`JITFunction.run`, and the interpreter's) while a
    decorated launcher runs; each launch is proved (or found in the cache) first."""

    def __init__(self, spec, run, on_unknown, sampler):
        self.spec, self.run, self.on_unknown, self.sampler = spec, run, on_unknown, sampler
        self.launching = False
        self.sampled = None  # the call to check after its launch (UNKNOWN, sampled)

    def __enter__(self):
        from triton.runtime.interpreter import InterpretedFunction
        from triton.runtime.jit import JITFunction
        self.saved = [(cls, cls.run) for cls in (JITFunction, InterpretedFunction)]
        me = self
        for cls, original in self.saved:
            def run(kernel, *args, grid, warmup, _original=original, **kwargs):
                # The launch itself (`interpret` runs the interpreter's `run`) is not
                # proved again.
                if warmup or me.launching:
                    return _original(kernel, *args, grid=grid, warmup=warmup, **kwargs)
                me.prove(kernel, args, grid, kwargs)
                sampled, me.sampled = me.sampled, None
                state = me.sampler.before(sampled, args, kwargs) if sampled is not None else None
                me.launching = True
                try:
                    out = me.launch(kernel, _original, args, grid, kwargs)
                finally:
                    me.launching = False
                if sampled is not None and me.run != "none":
                    me.sampler.after(sampled, state)
                return out
            cls.run = run
        return self

    def __exit__(self, *exc):
        for cls, original in self.saved:
            cls.run = original

    def prove(self, kernel, args, grid, kwargs):
        import warnings
        key = _memo_key(kernel, args, grid, kwargs)
        call = _calls.get(key)
        if call is None:
            call = _calls[key] = Call(kernel, args, grid, kwargs)
        spec = spec_text(self.spec, call.inputs(), call.outputs(), call.scalars)
        digest = hashlib.sha256("\0".join([call.ttir, call.launch_path_for(spec)[1], spec]).encode()).hexdigest()
        path = os.path.join(cache_dir(), "verdicts", digest[:32] + ".json")
        cached = None
        if os.path.exists(path):
            with open(path) as f:
                cached = json.load(f)
        # A cached refutation is proved again, for its counterexample.
        if cached is not None and cached["verdict"] != "REFUTED":
            stats["cache_hits"] += 1
            verdict, text, result = cached["verdict"], cached["text"], None
        else:
            result = _prove(call, spec)
            verdict, text = result.verdict, result.text
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path + ".tmp", "w") as f:
                json.dump({"verdict": verdict, "text": text, "spec": spec}, f)
            os.replace(path + ".tmp", path)
        if verdict == "REFUTED":
            raise Refuted(result)
        if verdict != "VERIFIED":
            if self.sampler.wants():
                self.sampled = call
            if self.on_unknown == "raise":
                raise Unknown(result if result is not None else _Cached(verdict, text))
            if self.on_unknown == "warn":
                warnings.warn(f"lift: {verdict} for {getattr(kernel, '__name__', kernel)}: {text}")

    def launch(self, kernel, original, args, grid, kwargs):
        numpy_call = any(isinstance(a, np.ndarray) for a in list(args) + list(kwargs.values()))
        if self.run == "none":
            return None
        if self.run == "interpret" or (self.run == "auto" and numpy_call):
            return interpret(kernel, grid, *args, **kwargs)
        return original(kernel, *args, grid=grid, warmup=False, **kwargs)
