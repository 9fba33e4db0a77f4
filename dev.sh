#!/usr/bin/env bash
# Set-up and everyday commands. Everything lands in .venv/ at the repository root.
#   ./dev.sh demo   set up, then run allo-lsp on the bundled examples
#   ./dev.sh test   set up, then run the whole test suite
#   ./dev.sh vsix   set up, then build the VS Code extension (prints the .vsix path last)
set -euo pipefail
cd "$(dirname "$0")"

# The newest CPython >= 3.10 found: Allo itself needs 3.12 (generic regions, `def inner[P0, P1]`),
# so a 3.12+ environment runs every design the reference executor supports.
find_python() {
  local candidates=(python3.13 python3.12) root
  if command -v pyenv >/dev/null 2>&1 && root="$(pyenv root 2>/dev/null)"; then
    candidates+=($(ls -d "$root"/versions/3.1[0-9]*/bin/python3 2>/dev/null | sort -rV))
  fi
  candidates+=(python3 python3.11 python3.10)
  local python
  for python in "${candidates[@]}"; do
    if "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' >/dev/null 2>&1; then
      newest="$("$python" -c 'import sys; print("%d.%02d" % sys.version_info[:2])')"
      if [ -z "${best:-}" ] || [[ "$newest" > "$best_version" ]]; then
        best="$python"; best_version="$newest"
      fi
    fi
  done
  [ -n "${best:-}" ] || { echo "dev.sh: no Python 3.10 or newer found" >&2; exit 2; }
  echo "$best"
}

setup() {
  if [ ! -x .venv/bin/python ]; then
    python="$(find_python)"
    echo "== set-up with $python ($("$python" --version))"
    "$python" -m venv .venv
  fi
  # Re-install only when the project's metadata changed since the last set-up.
  if [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".[test]"
    touch .venv/.installed
  fi
}

# The VS Code extension: npm ci when package-lock.json changed, a new .vsix when a source did.
vsix() {
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
  local file
  file="allo-dataflow-$(node -p 'require("./package.json").version').vsix"
  if [ ! -f "$file" ] || [ -n "$(find package.json package-lock.json tsconfig.json esbuild.js .vscodeignore \
      README.md pyproject.toml client/src syntaxes server/allo_lsp -type f -not -name '*.pyc' -newer "$file" -print -quit)" ]; then
    PYTHON=.venv/bin/python npm run -s package
  fi
  echo "$file"
}

case "${1:-}" in
  demo)
    setup
    echo "== allo-lsp check examples/ (the pitfall_* examples are meant to be flagged)"
    rc=0
    .venv/bin/allo-lsp check examples/ || rc=$?
    # Exit 1 means "diagnostics were reported", which the pitfall examples exist to show.
    [ "$rc" -le 1 ] || exit "$rc"
    echo
    echo "== allo-lsp run examples/systolic_gemm.py::test_systolic_gemm (reference executor when no Allo is set up)"
    .venv/bin/allo-lsp run examples/systolic_gemm.py::test_systolic_gemm
    echo
    echo "== allo-lsp run examples/pitfall_deadlock_stream.py::top (a deadlock, found and explained)"
    .venv/bin/allo-lsp run examples/pitfall_deadlock_stream.py::top || true
    echo
    if command -v npm >/dev/null; then
      echo "== the VS Code extension"
      if file="$(vsix | tail -n 1)"; then
        echo "Install it with: code --install-extension $file"
      else
        echo "(building the VS Code extension failed: run ./dev.sh vsix to see why)"
      fi
    else
      echo "(npm not found: the VS Code extension was not built)"
    fi
    ;;
  vsix)
    setup
    vsix
    ;;
  test)
    setup
    shift
    .venv/bin/python -m pytest "$@"
    ;;
  *)
    echo "usage: ./dev.sh demo|test [pytest args]|vsix" >&2
    exit 2
    ;;
esac
