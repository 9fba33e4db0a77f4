"""Realistic Allo dataflow files for the benchmarks, of an exact line count, deterministic (seeded).

    .venv/bin/python bench/generate.py LINES [--seed N] [-o FILE]     # print or write one file
    .venv/bin/python bench/generate.py --check                        # generate 500/2,000/10,000 lines and analyse them

A file is a sequence of blocks, each what a real design file holds: module-level constants, a
helper function, a `@df.region()` with its kernels (streams, stream arrays, `get_pid()`,
`allo.meta_if` / `meta_elif` / `meta_else` chains, `ConstExpr` tiles), and a test function that
builds the region and calls it; one block kind defines its region inside the test, as Allo's own
tests do. Every block analyses cleanly (`allo_lsp.analysis.analyze(text).problems == []`), and
every block's test passes on the reference executor (`allo-lsp run FILE::test_... --backend
reference`); the header imports only the names the blocks use, and the file is padded to the
exact line count with module-level constants. Like every Allo design, it is not pyflakes-clean:
pyflakes reports the kernels' uses of annotation-only stream declarations (`pipe: Stream[...]`)
as undefined names, so pylsp publishes those diagnostics in bench/peers.py.

`generate()` also returns the edit sites: the end of an integer literal in an expression of a
kernel body, where inserting a digit (and deleting it again) keeps the file valid.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass, field

SIZES = (500, 2_000, 10_000)
DEFAULT_SEED = 8  # issue #8
MARK = "@@"  # in a template line: the end of an integer literal that the benchmarks edit


@dataclass
class Generated:
    text: str
    lines: int
    seed: int
    # (0-based line, 0-based column) just after an integer literal inside a kernel body.
    edit_sites: list[tuple[int, int]] = field(default_factory=list)
    regions: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)

    def middle_site(self) -> tuple[int, int]:
        """The edit site nearest the middle of the file: one kernel, deep inside the text."""
        if not self.edit_sites:
            raise ValueError("no edit site: the file is too small for one region")
        middle = self.lines // 2
        return min(self.edit_sites, key=lambda s: (abs(s[0] - middle), s))


# -- blocks: each returns (lines with MARKs, region name or None, test name) ------------------------


def _pipeline(b: int, rng: random.Random) -> tuple[list[str], str, str]:
    """Producer -> stages -> consumer over streams, with a helper called from a kernel."""
    n = rng.choice((16, 32, 64, 128))
    stages = rng.randint(1, 4)
    depth = rng.choice((2, 4, 8))
    scale = rng.randint(2, 9)
    region = f"pipeline_{b}"
    out = [
        f"N_{b} = {n}",
        f"SCALE_{b} = {scale}",
        "",
        "",
        f"def mac_{b}(x: int32, y: int32) -> int32:",
        f"    return x * SCALE_{b} + y",
        "",
        "",
        "@df.region()",
        f"def {region}(A: int32[N_{b}], bias: int32[1], B: int32[N_{b}]):",
    ]
    out += [f"    s{b}_{k}: Stream[int32, {depth}]" for k in range(stages + 1)]
    out += [
        "",
        "    @df.kernel(mapping=[1], args=[A, bias])",
        f"    def load_{b}(local_A: int32[N_{b}], local_bias: int32[1]):",
        f"        for i in range(N_{b}):",
        f"            s{b}_0.put(local_A[i] + local_bias[0] + {rng.randint(1, 9)}{MARK})",
    ]
    for k in range(1, stages + 1):
        out += [
            "",
            "    @df.kernel(mapping=[1])",
            f"    def stage_{b}_{k}():",
            f"        for i in range(N_{b}):",
            f"            v: int32 = s{b}_{k - 1}.get()",
            f"            s{b}_{k}.put(mac_{b}(v, {rng.randint(1, 9)}{MARK}) - {rng.randint(1, 9)}{MARK})",
        ]
    out += [
        "",
        "    @df.kernel(mapping=[1], args=[B])",
        f"    def store_{b}(local_B: int32[N_{b}]):",
        f"        for i in range(N_{b}):",
        f"            local_B[i] = s{b}_{stages}.get() * {rng.randint(2, 5)}{MARK}",
        "",
        "",
        f"def test_{region}():",
        f"    A = np.arange(N_{b}, dtype=np.int32)",
        f"    bias = np.array([{rng.randint(0, 9)}], dtype=np.int32)",
        f"    B = np.zeros(N_{b}, dtype=np.int32)",
        f'    mod = df.build({region}, target="simulator")',
        "    mod(A, bias, B)",
        f"    assert B.shape == (N_{b},)",
    ]
    return out, region, f"test_{region}"


def _systolic(b: int, rng: random.Random) -> tuple[list[str], str, str]:
    """A 2-D PE grid with stream arrays and an allo.meta_if / meta_elif / meta_else chain."""
    m, n, k = rng.choice((2, 4, 8)), rng.choice((2, 4, 8)), rng.choice((4, 8, 16))
    region = f"gemm_{b}"
    out = [
        f"M_{b}, N_{b}, K_{b} = {m}, {n}, {k}",
        f"P0_{b}, P1_{b} = M_{b} + 2, N_{b} + 2",
        "",
        "",
        "@df.region()",
        f"def {region}(A: int32[M_{b}, K_{b}], B: int32[K_{b}, N_{b}], C: int32[M_{b}, N_{b}]):",
        f"    fa_{b}: Stream[int32, 4][P0_{b}, P1_{b}]",
        f"    fb_{b}: Stream[int32, 4][P0_{b}, P1_{b}]",
        "",
        f"    @df.kernel(mapping=[P0_{b}, P1_{b}], args=[A, B, C])",
        f"    def pe_{b}(local_A: int32[M_{b}, K_{b}], local_B: int32[K_{b}, N_{b}], local_C: int32[M_{b}, N_{b}]):",
        "        i, j = df.get_pid()",
        f"        with allo.meta_if(i in {{0, M_{b} + 1}} and j in {{0, N_{b} + 1}}):",
        "            pass",
        "        with allo.meta_elif(j == 0):",
        f"            for k in range(K_{b}):",
        f"                fa_{b}[i, j + 1].put(local_A[i - 1, k])",
        "        with allo.meta_elif(i == 0):",
        f"            for k in range(K_{b}):",
        f"                fb_{b}[i + 1, j].put(local_B[k, j - 1])",
        f"        with allo.meta_elif(i == M_{b} + 1 and j > 0):",
        f"            for k in range(K_{b}):",
        f"                b: int32 = fb_{b}[i, j].get()",
        f"        with allo.meta_elif(j == N_{b} + 1 and i > 0):",
        f"            for k in range(K_{b}):",
        f"                a: int32 = fa_{b}[i, j].get()",
        "        with allo.meta_else():",
        "            c: int32 = 0",
        f"            for k in range(K_{b}):",
        f"                a: int32 = fa_{b}[i, j].get()",
        f"                b: int32 = fb_{b}[i, j].get()",
        "                c += a * b",
        f"                fa_{b}[i, j + 1].put(a)",
        f"                fb_{b}[i + 1, j].put(b)",
        "            local_C[i - 1, j - 1] = c",
        "",
        "",
        f"def test_{region}():",
        f"    A = np.random.randint(-8, 8, (M_{b}, K_{b})).astype(np.int32)",
        f"    B = np.random.randint(-8, 8, (K_{b}, N_{b})).astype(np.int32)",
        f"    C = np.zeros((M_{b}, N_{b}), dtype=np.int32)",
        f'    mod = df.build({region}, target="simulator")',
        "    mod(A, B, C)",
        "    np.testing.assert_array_equal(C, A @ B)",
    ]
    return out, region, f"test_{region}"


def _chain(b: int, rng: random.Random) -> tuple[list[str], str, str]:
    """A 1-D chain of PEs over a stream array, roles chosen by meta_if on get_pid()."""
    length = rng.choice((4, 8, 16))
    stages = rng.randint(2, 6)
    region = f"chain_{b}"
    out = [
        f"L_{b} = {length}",
        f"S_{b} = {stages}",
        "",
        "",
        "@df.region()",
        f"def {region}(X: int32[L_{b}], Y: int32[L_{b}]):",
        f"    link_{b}: Stream[int32, 2][S_{b} + 1]",
        "",
        f"    @df.kernel(mapping=[S_{b} + 1], args=[X, Y])",
        f"    def hop_{b}(local_X: int32[L_{b}], local_Y: int32[L_{b}]):",
        "        p = df.get_pid()",
        "        with allo.meta_if(p == 0):",
        f"            for k in range(L_{b}):",
        f"                link_{b}[p].put(local_X[k])",
        f"        with allo.meta_elif(p == S_{b}):",
        f"            for k in range(L_{b}):",
        f"                local_Y[k] = link_{b}[p - 1].get()",
        "        with allo.meta_else():",
        f"            for k in range(L_{b}):",
        f"                link_{b}[p].put(link_{b}[p - 1].get() + {rng.randint(1, 9)}{MARK})",
        "",
        "",
        f"def test_{region}():",
        f"    X = np.arange(L_{b}, dtype=np.int32)",
        f"    Y = np.zeros(L_{b}, dtype=np.int32)",
        f'    mod = df.build({region}, target="simulator")',
        "    mod(X, Y)",
        f"    assert Y.shape == (L_{b},)",
    ]
    return out, region, f"test_{region}"


def _tiled(b: int, rng: random.Random) -> tuple[list[str], str, str]:
    """Float tiles: each PE of a 1-D mapping works on its ConstExpr slice; a reduction kernel."""
    parts = rng.choice((2, 4))
    n = parts * rng.choice((8, 16, 32))
    region = f"tiled_{b}"
    out = [
        f"T_{b} = {n}",
        f"PARTS_{b} = {parts}",
        f"Ty_{b} = float32",
        "",
        "",
        "@df.region()",
        f"def {region}(U: Ty_{b}[T_{b}], V: Ty_{b}[T_{b}], W: Ty_{b}[T_{b}]):",
        f"    @df.kernel(mapping=[PARTS_{b}], args=[U, V, W])",
        f"    def axpy_{b}(local_U: Ty_{b}[T_{b}], local_V: Ty_{b}[T_{b}], local_W: Ty_{b}[T_{b}]):",
        "        pi = df.get_pid()",
        f"        Tt: ConstExpr[int32] = T_{b} // PARTS_{b}",
        "        for t in range(Tt):",
        f"            local_W[pi * Tt + t] = local_U[pi * Tt + t] * {rng.randint(2, 9)}.5 + local_V[pi * Tt + t]",
        "",
        "",
        f"def test_{region}():",
        f"    U = np.random.rand(T_{b}).astype(np.float32)",
        f"    V = np.random.rand(T_{b}).astype(np.float32)",
        f"    W = np.zeros(T_{b}, dtype=np.float32)",
        f'    mod = df.build({region}, target="simulator")',
        "    mod(U, V, W)",
        "    assert np.isfinite(W).all()",
    ]
    return out, region, f"test_{region}"


def _in_test(b: int, rng: random.Random) -> tuple[list[str], str | None, str]:
    """A region defined inside its test function, resolving the test's locals."""
    m = rng.choice((8, 16, 32))
    out = [
        f"def test_vector_{b}():",
        f"    M = {m}",
        "    Ty = int32",
        "",
        "    @df.region()",
        f"    def vadd_{b}(A: Ty[M], B: Ty[M], C: Ty[M]):",
        f"        sums_{b}: Stream[Ty, 4]",
        "",
        "        @df.kernel(mapping=[1], args=[A, B])",
        f"        def adder_{b}(local_A: Ty[M], local_B: Ty[M]):",
        "            for i in range(M):",
        f"                sums_{b}.put(local_A[i] + local_B[i] + {rng.randint(1, 9)}{MARK})",
        "",
        "        @df.kernel(mapping=[1], args=[C])",
        f"        def writer_{b}(local_C: Ty[M]):",
        "            for i in range(M):",
        f"                local_C[i] = sums_{b}.get()",
        "",
        "    A = np.random.randint(-100, 100, M).astype(np.int32)",
        "    B = np.random.randint(-100, 100, M).astype(np.int32)",
        "    C = np.zeros(M, dtype=np.int32)",
        f'    mod = df.build(vadd_{b}, target="simulator")',
        "    mod(A, B, C)",
        "    assert C.shape == (M,)",
    ]
    return out, None, f"test_vector_{b}"


BLOCKS = (_pipeline, _systolic, _chain, _tiled, _in_test)
# Which imported names each block uses (the header imports only those).
_USES = {
    _pipeline: {"int32", "Stream"},
    _systolic: {"allo", "int32", "Stream"},
    _chain: {"allo", "int32", "Stream"},
    _tiled: {"float32", "int32", "ConstExpr"},
    _in_test: {"int32", "Stream"},
}


def _header(seed: int, lines: int, uses: set[str]) -> list[str]:
    types = [t for t in ("float32", "int32", "Stream", "ConstExpr") if t in uses]
    out = [
        f'"""Generated by bench/generate.py: {lines} lines, seed {seed}. Allo dataflow designs and their tests."""',
        "",
    ]
    if "allo" in uses:
        out.append("import allo")
    out += [f"from allo.ir.types import {', '.join(types)}", "import allo.dataflow as df", "import numpy as np"]
    return out


def generate(lines: int, seed: int = DEFAULT_SEED) -> Generated:
    """A file of exactly `lines` lines (at least 40)."""
    if lines < 40:
        raise ValueError("at least 40 lines")
    rng = random.Random(f"allo-lsp-bench/{seed}")
    header_len = 6  # the longest header (_header with "import allo")
    blocks: list[tuple[list[str], str | None, str]] = []
    used = 0
    order: list = []
    b = 0
    while True:
        if not order:
            order = list(BLOCKS)
            rng.shuffle(order)
        kind = order.pop()
        block = kind(b, rng)
        size = 2 + len(block[0])  # two blank lines before each block
        if header_len + used + size > lines:
            break  # the rest is padding (less than one block)
        blocks.append((kind, *block))
        used += size
        b += 1
    uses = set().union(*(_USES[k] for k, *_ in blocks)) if blocks else {"int32"}
    uses.add("int32")
    out = _header(seed, lines, uses)
    sites: list[tuple[int, int]] = []
    regions, tests = [], []
    for _kind, block, region, test in blocks:
        out += ["", ""]
        for text in block:
            while MARK in text:
                col = text.index(MARK)
                sites.append((len(out), col))
                text = text[:col] + text[col + len(MARK) :]
            out.append(text)
        if region:
            regions.append(region)
        tests.append(test)
    remaining = lines - len(out)
    if remaining >= 4:
        out += ["", "", "# Tuning constants."]
        out += [f"TUNE_{k} = {rng.randint(0, 999)}" for k in range(remaining - 3)]
    else:
        out += [f"TUNE_{k} = {k}" for k in range(remaining)]
    assert len(out) == lines, (len(out), lines)
    return Generated("\n".join(out) + "\n", lines, seed, sites, regions, tests)


def check(sizes=SIZES, seed: int = DEFAULT_SEED) -> list[str]:
    """Problems found in the generated files (empty: all clean, exact, deterministic)."""
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent / "server"))
    from allo_lsp.analysis import analyze

    errors = []
    for n in sizes:
        g = generate(n, seed)
        if g.text.count("\n") != n:
            errors.append(f"{n}: {g.text.count(chr(10))} lines")
        if generate(n, seed).text != g.text:
            errors.append(f"{n}: not deterministic")
        problems = analyze(g.text).problems
        if problems:
            errors.append(f"{n}: {len(problems)} problems, first: {problems[0]}")
    return errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("lines", nargs="?", type=int, default=500)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("-o", "--output", help="write here instead of stdout")
    parser.add_argument("--check", action="store_true", help="generate 500/2,000/10,000 lines and analyse them")
    args = parser.parse_args(argv)
    if args.check:
        errors = check(seed=args.seed)
        print("\n".join(errors) if errors else f"ok: {', '.join(map(str, SIZES))} lines analyse cleanly")
        return 1 if errors else 0
    text = generate(args.lines, args.seed).text
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
