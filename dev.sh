#!/usr/bin/env bash
# Set-up and everyday commands. Everything lands in .venv/ at the repository root.
#   ./dev.sh demo   set up, then run allo-lsp on the bundled examples
#   ./dev.sh test   set up, then run the whole test suite
set -euo pipefail
cd "$(dirname "$0")"

setup() {
  if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
  fi
  # Re-install only when the project's metadata changed since the last set-up.
  if [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".[test]"
    touch .venv/.installed
  fi
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
    ;;
  test)
    setup
    shift
    .venv/bin/python -m pytest "$@"
    ;;
  *)
    echo "usage: ./dev.sh demo|test [pytest args]" >&2
    exit 2
    ;;
esac
