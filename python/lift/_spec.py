"""A spec given as a Python function of tensors, read into lift's spec language.

The function's source is parsed, not run: its parameters are bound in order to the
kernel's input tensors (and, by name, to its float scalars), its local assignments
become temporaries (`_name`), and what it returns is assigned to the kernel's output
tensors in order (a tuple for several). Its body may hold only assignments and one
final `return`, in the spec language's subset of Python (docs in src/torch/mod.rs):
`torch.*`, `F.*`, `math.*`, operators, indexing.
"""
import ast
import inspect
import textwrap


class SpecError(ValueError):
    """A spec function outside what the spec language reads."""


def spec_text(spec, inputs, outputs, scalars=()):
    """`spec` as spec-language text: a string as it is, a function read as above."""
    if isinstance(spec, str):
        return spec
    if not callable(spec):
        raise SpecError(f"a spec is a string or a function, not {type(spec).__name__}")
    return function_spec(spec, inputs, outputs, scalars)


def function_spec(fn, inputs, outputs, scalars=()):
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as e:
        raise SpecError(f"cannot read the source of {fn!r}: {e}") from None
    tree = ast.parse(source)
    funcs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.Lambda))]
    if not funcs:
        lam = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
        if not lam:
            raise SpecError(f"{fn.__name__}: no function definition in its source")
        node, body = lam[0], [ast.Return(value=lam[0].body)]
    else:
        node, body = funcs[0], funcs[0].body
    where = f"{inspect.getsourcefile(fn)}:{fn.__code__.co_firstlineno}"
    params = [a.arg for a in node.args.args]
    rename = {}
    tensor_params = [p for p in params if p not in scalars]
    if len(tensor_params) > len(inputs):
        raise SpecError(f"{where}: {fn.__name__} takes {len(tensor_params)} tensors but the kernel reads "
                        f"{len(inputs)} ({', '.join(inputs) or 'none'})")
    for p, t in zip(tensor_params, inputs):
        rename[p] = t
    lines = []
    body = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]  # docstring
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
            for t in stmt.targets:
                rename.setdefault(t.id, "_" + t.id.lstrip("_"))
            value = _Rename(rename).visit(stmt.value)
            targets = " = ".join(rename[t.id] for t in stmt.targets)
            lines.append(f"{targets} = {ast.unparse(value)}")
        elif isinstance(stmt, ast.Return) and i == len(body) - 1 and stmt.value is not None:
            value = _Rename(rename).visit(stmt.value)
            if isinstance(value, ast.Tuple):
                parts = [ast.unparse(e) for e in value.elts]
            else:
                parts = [ast.unparse(value)]
            if len(parts) != len(outputs):
                raise SpecError(f"{where}: {fn.__name__} returns {len(parts)} values but the kernel writes "
                                f"{len(outputs)} tensors ({', '.join(outputs) or 'none'})")
            lines += [f"{o} = {p}" for o, p in zip(outputs, parts)]
        else:
            raise SpecError(f"{where}: line {stmt.lineno - 1 + fn.__code__.co_firstlineno}: a spec function holds "
                            f"assignments and one final return, not {type(stmt).__name__}")
    if not lines or not lines[-1].startswith(tuple(f"{o} =" for o in outputs)):
        raise SpecError(f"{where}: {fn.__name__} has no final return")
    return "\n".join(lines)


class _Rename(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            return ast.copy_location(ast.Name(id=self.names[node.id], ctx=node.ctx), node)
        return node
