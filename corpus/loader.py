"""Load a library's `@triton.jit` functions without importing torch.

The libraries of the corpus import torch (and sometimes transformers, bitsandbytes ...)
at module level, for their autograd wrappers; their Triton kernels need none of it. We
put a permissive stub in `sys.modules` for every such import (any attribute, call,
subscript or base class works and yields another stub), register the library packages
as bare namespaces (so `liger_kernel/__init__.py`, which imports every op, never runs),
and execute the kernel's module from its source text under a repository-independent
file name (`liger_kernel/ops/rms_norm.py`), so the IR's `loc(...)` lines carry no
machine path. A bug twin is the same module with one textual edit applied first.
"""
import importlib
import importlib.abc
import importlib.machinery
import linecache
import os
import sys
import types


class Stub:
    """Stands for anything torch-like: every use gives another stub."""

    def __init__(self, name="stub"):
        self._name = name

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return Stub(f"{self._name}.{attr}")

    def __call__(self, *args, **kwargs):
        # a decorator `@torch.compile` / `@torch.library.custom_op(...)` keeps the function
        if len(args) == 1 and callable(args[0]) and not kwargs and not isinstance(args[0], Stub):
            return _Decorated(args[0])
        return Stub(f"{self._name}()")

    def __getitem__(self, key):
        return Stub(f"{self._name}[]")

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False

    def __mro_entries__(self, bases):
        return (object,)

    def __or__(self, other):
        return self

    __ror__ = __or__

    def __index__(self):
        return 0  # `range(torch.cuda.device_count())`: no devices

    def __lt__(self, other):
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)

    def __repr__(self):
        return f"<stub {self._name}>"


class _Decorated:
    """A function under a torch decorator (`@torch.library.custom_op`): callable, and
    any attribute (`.register_autograd`) is a stub."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return Stub(attr)


class StubModule(types.ModuleType):
    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return Stub(f"{self.__name__}.{attr}")


STUBBED = ("torch", "transformers", "bitsandbytes", "peft", "accelerate", "xformers",
           "flash_attn", "unsloth_zoo", "cut_cross_entropy", "einops", "datasets", "trl")


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        m = StubModule(spec.name)
        m.__path__ = []
        # version checks (`compare_version("torch", ge, "2.4.0")`) need a string
        m.__version__ = "2.9.0"
        if spec.name == "unsloth_zoo.utils":
            # unsloth compares versions with it (`Version(triton.__version__) >= ...`)
            from packaging.version import Version
            m.Version = Version
        return m

    def exec_module(self, module):
        pass


_installed = False


def install(site, packages, versions=None):
    """Stub torch & co.; register `packages` (dotted names of library packages) as bare
    namespaces over their folders in `site`, so their __init__.py files never run.
    `versions` maps a top-level package to its library's version, which the bare
    namespace carries as `__version__` (fla's modules import it)."""
    global _installed
    if not _installed:
        sys.meta_path.insert(0, _StubFinder())
        _installed = True
    for pkg in packages:
        parts = pkg.split(".")
        for i in range(1, len(parts) + 1):
            name = ".".join(parts[:i])
            if name in sys.modules:
                continue
            m = types.ModuleType(name)
            m.__path__ = [os.path.join(site, *parts[:i])]
            m.__package__ = name
            if versions and name in versions:
                m.__version__ = versions[name]
            sys.modules[name] = m


def load_module(site, rel, edit=None, tag=""):
    """Execute `site/rel` (e.g. `liger_kernel/ops/rms_norm.py`) as a fresh module whose
    code objects carry the file name `rel`. `edit = (old, new)` replaces `old`, which must
    occur exactly once, by `new` before compiling."""
    with open(os.path.join(site, rel)) as f:
        source = f.read()
    if edit is not None:
        old, new = edit
        n = source.count(old)
        if n != 1:
            raise SystemExit(f"{rel}: edit {old!r} occurs {n} times, not once")
        source = source.replace(old, new)
        # a distinct file name, so that Triton's source cache cannot mix up the twin
        # with the original (the edit keeps line numbers when it keeps newlines)
    fname = rel
    pkg = rel[:-3].replace("/", ".").rsplit(".", 1)[0]
    modname = rel[:-3].replace("/", ".") + (f"__{tag}" if tag else "")
    # inspect.getsource (which @triton.jit calls) reads the text through linecache;
    # an entry with mtime None is never evicted by linecache.checkcache
    lines = source.splitlines(keepends=True)
    linecache.cache[fname] = (len(source), None, lines, fname)
    mod = types.ModuleType(modname)
    mod.__file__ = os.path.join(site, rel)  # the module may read itself; code objects say `rel`
    mod.__package__ = pkg
    sys.modules[modname] = mod
    exec(compile(source, fname, "exec"), mod.__dict__)
    return mod
