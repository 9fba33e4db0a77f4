"""STAND-IN for `allo.dataflow`, for tests only (tests/standin/README.md). Computes nothing.

Reproduces how real Allo behaves toward the process running it: its build-error exits, its
aborts and crashes, its hang, its environment assertion, and the module `customize()` prints in
Allo's form (one function per PE, the top function constructing the streams and calling each PE;
bodies omitted), with the argument order of older builds (`ALLO_STANDIN_ORDER=legacy`) or a
planted difference from the source (`ALLO_STANDIN_DEPTH`, `ALLO_STANDIN_PES`).
"""

import ast
import atexit
import inspect
import os
import signal
import sys
import textwrap
import time

from allo.memory import Layout  # noqa: F401  (`df.Layout.Shard`)

DEFAULT_BUILD_ERROR = "Invalid @df.kernel decorator on function 'producer': missing required 'mapping' parameter."


_current_design = {}


def _behaviour() -> str:
    """`ALLO_STANDIN = "hang"` in the design's module wins over the environment variable, so one
    test server can run designs that misbehave in different ways."""
    return _current_design.get("ALLO_STANDIN") or os.environ.get("ALLO_STANDIN", "ok")


def region():
    def decorate(fn):
        fn.__allo_region__ = True
        return fn

    return decorate


def kernel(mapping=None, args=None):
    def decorate(fn):
        return fn

    return decorate


def get_pid():
    raise RuntimeError("stand-in allo: kernel bodies are never executed as Python")


def _misbehave_while_building() -> None:
    behaviour = _behaviour()
    if behaviour == "build_error":
        print(os.environ.get("ALLO_STANDIN_MESSAGE", DEFAULT_BUILD_ERROR))
        sys.exit(1)
    if behaviour == "option_fast":
        os.write(2, b"LLVM ERROR: Option 'fast' already exists!\n")
        os.abort()
    if behaviour == "compiler_bug":
        raise RuntimeError(
            "cannot be converted to LLVM IR: missing LLVMTranslationDialectInterface registration "
            "for dialect for op: func.func"
        )


class _Module:
    def __init__(self, fn) -> None:
        self.fn = fn
        self.params = list(inspect.signature(fn).parameters)

    @property
    def module(self) -> str:
        return _mlir(self.fn)

    def __call__(self, *arrays):
        behaviour = _behaviour()
        if behaviour == "glibc":
            raise OSError(
                "/opt/llvm/lib/libmlir_c_runner_utils.so: /lib/x86_64-linux-gnu/libc.so.6: "
                "version `GLIBC_2.34' not found (required by /opt/llvm/lib/libmlir_c_runner_utils.so)"
            )
        if behaviour == "segfault":
            os.kill(os.getpid(), signal.SIGSEGV)
        if behaviour == "hang":
            while True:  # each PE spins on a stream nobody serves
                time.sleep(0.05)
        if len(arrays) != len(self.params):
            raise TypeError(f"{self.fn.__name__}() takes {len(self.params)} arrays, got {len(arrays)}")
        if behaviour == "segfault_at_exit":
            atexit.register(os.kill, os.getpid(), signal.SIGSEGV)


def build(fn, target="vitis_hls", mode=None, project=None, configs=None, wrap_io=True):
    _current_design.update(fn.__globals__)
    if target == "simulator":
        assert os.environ.get("LLVM_BUILD_DIR"), "LLVM_BUILD_DIR is not set"
    _misbehave_while_building()
    if target == "vitis_hls":
        _write_project(fn, project or f"{fn.__name__}.prj", mode or "csim")
    return _Module(fn)


def _write_project(fn, project: str, mode: str) -> None:
    """The project directory Allo writes for Vitis HLS: an HLS C++ file and its run.tcl."""
    os.makedirs(project, exist_ok=True)
    with open(os.path.join(project, "kernel.cpp"), "w") as f:
        f.write(f"// stand-in: HLS C++ of {fn.__name__}\nvoid {fn.__name__}({_hls_arguments(fn)}) {{}}\n")
        if _current_design.get("VITIS_STANDIN"):  # the design's choice of the stand-in Vitis' behaviour
            f.write(f"// VITIS_STANDIN: {_current_design['VITIS_STANDIN']}\n")
            # where the stand-in Vitis writes its pid (vitis_pid.txt): a test sees it run and end
            f.write(f"// VITIS_PID_DIR: {os.path.dirname(os.path.abspath(_current_design['__file__']))}\n")
    with open(os.path.join(project, "run.tcl"), "w") as f:
        f.write(
            "open_project out.prj\n"
            f"set_top {fn.__name__}\n"
            "add_files kernel.cpp\n"
            "open_solution solution1\n"
            "set_part {xcu280-fsvh2892-2L-e}\n"
            "create_clock -period 3.33 -name default\n"
            + ("csynth_design\n" if mode == "csyn" else "csim_design\n")
            + "exit\n"
        )


def _hls_arguments(fn) -> str:
    """The top function's arrays as Allo's HLS C++ declares them (`ap_int<32> A[8][8]`): the
    stand-in Vitis sizes its memories from them."""
    out = []
    for name, p in inspect.signature(fn).parameters.items():
        shape = getattr(p.annotation, "shape", None)
        elem = getattr(p.annotation, "elem", p.annotation)
        ctype = _hls_type(getattr(elem, "mlir", "i32"), getattr(elem, "itype", "s"))
        out.append(f"{ctype} {name}" + "".join(f"[{d}]" for d in shape or (1,)))
    return ", ".join(out)


def _hls_type(mlir: str, itype: str) -> str:
    if mlir in ("f16", "f32", "f64"):
        return {"f16": "half", "f32": "float", "f64": "double"}[mlir]
    if mlir.startswith("!allo."):  # Fixed<W, F> / UFixed<W, F>
        return ("ap_ufixed" if "UFixed" in mlir else "ap_fixed") + mlir[mlir.index("<") :]
    bits = mlir[1:] if mlir[:1] == "i" and mlir[1:].isdigit() else {"bf16": "16", "index": "64"}.get(mlir, "32")
    return f"ap_{'u' if itype == 'u' else ''}int<{bits}>"


class _Schedule:
    def __init__(self, fn) -> None:
        self.module = _mlir(fn)


def customize(fn):
    _current_design.update(fn.__globals__)
    _misbehave_while_building()
    return _Schedule(fn)


def _chosen(fn, name: str):
    """A design's module-level constant, else the environment variable."""
    return fn.__globals__.get(name) or os.environ.get(name)


def _mlir(fn) -> str:
    """The module as Allo prints it after `customize` (bodies omitted): a `df.kernel` function per
    PE (`producer_0`, `gemm_0_1`), its kernel's parameters then the scalar streams it uses, and the
    top function, its arguments in this build's order, constructing each stream (one per FIFO of a
    stream array, `pipe_0_1`) and calling each PE."""
    annotations = {name: _evaluated(p.annotation, fn) for name, p in inspect.signature(fn).parameters.items()}
    order = list(annotations)
    if _chosen(fn, "ALLO_STANDIN_ORDER") == "legacy":
        order = _kernel_order(fn) + [n for n in order if n not in _kernel_order(fn)]
    kernels, streams = _region_of(fn)
    depth = _chosen(fn, "ALLO_STANDIN_DEPTH")  # planted: every stream this deep
    pes = _chosen(fn, "ALLO_STANDIN_PES")  # planted: every kernel this many PEs
    types = {name: f"!allo.stream<{element}, {depth or d}>" for name, (element, d, _) in streams.items()}
    lines = ["module {"]
    calls = []
    for kernel in kernels:
        mapping = [int(pes)] if pes else kernel["mapping"]
        used = [(s, d) for s, d in kernel["streams"] if s in types]
        args = [t for _, t, _ in kernel["params"]] + [types[s] for s, _ in used]
        itypes = "".join(i for _, _, i in kernel["params"]) + "_" * len(used)
        stypes = "_" * len(kernel["params"]) + "".join(d for _, d in used)
        operands = [f"%arg{order.index(b)}" if b in order else "%arg0" for b, _, _ in kernel["params"]]
        for pe in _pe_names(kernel["name"], mapping):
            listed = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(args))
            lines.append(
                f'  func.func @{pe}({listed}) attributes {{df.kernel, itypes = "{itypes}", stypes = "{stypes}"}} {{'
            )
            lines += ["    return", "  }"]
            calls.append((pe, operands + [f"%{list(types).index(s)}" for s, _ in used], args))
    top_args = ", ".join(f"%arg{i}: {annotations[n].mlir}" for i, n in enumerate(order))
    itypes = "".join(annotations[n].itype for n in order)
    lines.append(f'  func.func @{fn.__name__}({top_args}) attributes {{dataflow, itypes = "{itypes}"}} {{')
    for i, fifo in enumerate(streams):
        lines.append(f'    %{i} = allo.stream_construct() {{name = "{fifo}"}} : {types[fifo]}')
    for n, (pe, operands, args) in enumerate(calls):
        last = " {last}" if n == len(calls) - 1 else ""
        lines.append(f"    call @{pe}({', '.join(operands)}){last} : ({', '.join(args)}) -> ()")
    lines += ["    return", "  }", "}", ""]
    return "\n".join(lines)


def _evaluated(annotation, fn):
    """A string annotation (`"UInt(B * 8)[M]"`) evaluated as Allo evaluates it, in the design's module."""
    return eval(annotation, fn.__globals__) if isinstance(annotation, str) else annotation


def _pe_names(name: str, mapping: list[int]) -> list[str]:
    names = [name]
    for extent in mapping:
        names = [f"{n}_{i}" for n in names for i in range(extent)]
    return names


def _region_of(fn) -> tuple[list[dict], dict]:
    """The region's kernels (name, mapping, parameters as (bound region parameter, MLIR type,
    itype), scalar streams used with their direction) and streams (FIFO name -> (element type,
    depth, declaration)), read from its source and evaluated in its module."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    scope = fn.__globals__

    def value(node):
        return _evaluated(eval(compile(ast.Expression(node), "<annotation>", "eval"), scope), fn)

    streams: dict = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            declared = _stream_declaration(node.annotation)
            if declared is None:
                continue
            element, depth, dims = value(declared[0]).mlir, value(declared[1]), declared[2]
            shape = () if dims is None else value(dims)
            shape = shape if isinstance(shape, (tuple, list)) else (shape,)
            for fifo in _pe_names(node.target.id, list(shape)):
                streams[fifo] = (element, depth, node.target.id)
    kernels = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        keywords = {kw.arg: kw.value for dec in node.decorator_list for kw in getattr(dec, "keywords", [])}
        if "mapping" not in keywords:
            continue
        bound = [e.id if isinstance(e, ast.Name) else None for e in getattr(keywords.get("args"), "elts", [])]
        params = []
        for i, arg in enumerate(node.args.args):
            t = value(arg.annotation)
            params.append((bound[i] if i < len(bound) else None, t.mlir, t.itype))
        kernels.append(
            {"name": node.name, "mapping": list(value(keywords["mapping"])), "params": params, "streams": _uses(node)}
        )
    return kernels, streams


def _stream_declaration(annotation):
    """`Stream[T, D]` -> (T, D, None); `Stream[T, D][dims]` -> (T, D, dims); else None."""
    dims = None
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Subscript):
        annotation, dims = annotation.value, annotation.slice
    if not (isinstance(annotation, ast.Subscript) and getattr(annotation.value, "id", None) == "Stream"):
        return None
    parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else []
    return (parts[0], parts[1], dims) if len(parts) == 2 else None


def _uses(kernel: ast.FunctionDef) -> list[tuple[str, str]]:
    """The scalar streams a kernel puts into (`o`) or gets from (`i`), in first-use order."""
    found: dict[str, str] = {}
    for node in ast.walk(kernel):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("put", "get"):
            target = node.func.value
            if isinstance(target, ast.Name):
                found.setdefault(target.id, "o" if node.func.attr == "put" else "i")
    return list(found.items())


def _kernel_order(fn) -> list[str]:
    """Region parameters in the order kernels first bind them (older builds)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    order: list[str] = []
    for node in ast.walk(tree.body[0]):
        if isinstance(node, ast.FunctionDef) and node is not tree.body[0]:
            for dec in node.decorator_list:
                for kw in getattr(dec, "keywords", []):
                    if kw.arg == "args" and isinstance(kw.value, ast.List):
                        order += [e.id for e in kw.value.elts if isinstance(e, ast.Name) and e.id not in order]
    return order
