"""ADF089 unsupported-construct: a kernel uses Python that Allo's front end has no case for

## What it does
Flags, in a kernel's body, the Python that Allo a098603f's type inference (`TypeInferer` in
`allo/ir/infer.py`) stops at:
- a statement it has no visitor for: `break`, `continue`, `assert`, `raise`, `try`, `del`,
  `import`, `global`, a class (`ASTVisitor.__call__`: `Unsupported node "Break"`);
- an expression it has no visitor for: a `lambda`, an f-string, a comprehension, `:=`, a set,
  `*args` (`Unsupported node "Lambda"`, ...);
- a `for` over anything but `range`, `allo.grid` or `allo.reduction` (`for v in a:`,
  `enumerate`, `zip`: `visit_For`, `Unsupported for loop`), an `else:` after a `for` or a
  `while` (`visit_For`, `visit_While`), and `range` of none or of four or more arguments
  (`build_single_for` in `allo/ir/builder.py`: `Unsupported range`);
- an annotated assignment to anything but a name (`a[0]: int32 = 1`: `visit_AnnAssign`), an
  augmented one to an attribute (`a.x += 1`: `Unsupported AugAssign`), a bytes or complex literal
  (`visit_Constant`: `Unsupported constant type`);
- `x = y = 0` (`visit_Assign`: `chained assignment not supported`), and a tuple assignment of
  more or fewer values than targets (`x, y = 1, 2, 3`: its assertion) or of a value that is no
  tuple or call (`x, y = a`);
- a global read as a value that is no int, float or Allo type (`visit_Name`, ``Unsupported global
  variable `np` ``): a module (`np.pi`, `math.e`; `np.exp(x)` is a call, not a read of `np`), or a
  global whose binding shows it holds data (a list, a string, a NumPy array other than as a
  constant tensor: `t: int32[4] = W[1]` is one);
- an attribute of a value other than `.T`, `.copy`, `.reverse` and a name's `.bits`/`.fracs`
  (`a.shape`: `visit_Attribute`, ``Unsupported attribute `shape` ``), a method other than
  `.reverse()`, `.bitcast()` and a stream's (`a.sum()`: `visit_Call`);
- `min`/`max` of other than two arguments, `float`/`int` of other than one, `.reverse()` with one
  (`visit_Call`'s assertions: Python's `min(a, b, c)` would run);
- `return v` in a kernel (its signature returns nothing: `build_Return` in `allo/ir/builder.py`,
  `Return value should have a dtype in function signature`);
- a `return` anywhere but as the kernel's last statement (an early exit: `build_Return` emits
  `func.return` at the builder's insertion point, inside the loop or the branch, and the
  statements after it are built at the wrong places: the build fails, with an error that varies);
- a type called as a function (`int8(x)`: `visit_Call` takes the type for a library function
  and reads its `__name__`: `'Int' object has no attribute '__name__'`; a cast is `int(x)`,
  `float(x)` or a typed local `y: int8 = x`);
- an expression statement that is not a call (`a[i] + 1` on its own line: `visit_Expr`; Allo's
  message ends with the node's Python repr);
- one slice of an array of two or more dimensions (`a[0:2]` of an `int32[4, 2]`): `visit_Subscript`
  types it 2-D and `build_slices` reads the slice's `dims`, an AttributeError (`a[0:2, :]` builds).

## Why is this bad?
`df.build` stops at the first one, whatever the target. A kernel is compiled from its source,
not run: Python's meaning of these does not carry over.

## Example
```python
        for i in range(N):
            if a[i] < 0:
                break
            b[i] = a[i]
```
Use instead: a flag the loop tests (Allo has no early exit)
```python
        done: bool = 0
        for i in range(N):
            if a[i] < 0:
                done = 1
            if not done:
                b[i] = a[i]
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import problems_of

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region, kernel, problem in problems_of(ctx.model, ("construct",)):
        yield Finding(
            problem.range,
            f"Kernel '{kernel.name}': Allo's front end has no case for this, and its build stops here "
            f"({problem.message}).",
            {"region": region.name, "kernel": kernel.name},
        )
