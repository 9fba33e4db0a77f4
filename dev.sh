#!/usr/bin/env bash
# Set-up and everyday commands. Everything lands in .venv/ at the repository root.
#   ./dev.sh demo   set up, then run allo-lsp on the bundled examples
#   ./dev.sh test   set up, then run the whole test suite
#   ./dev.sh vsix   set up, then build the VS Code extension: the linux-x64 .vsix (works offline),
#                   then the universal one (installs the dependencies from the package index),
#                   each path on a line of its own, the universal one last
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

# An interpreter of CPython X.Y (on PATH, or a pyenv version), for resolving that version's wheels.
python_version() {
  local candidates=("python$1") root candidate
  if command -v pyenv >/dev/null 2>&1 && root="$(pyenv root 2>/dev/null)"; then
    candidates+=($(ls -d "$root"/versions/"$1".*/bin/python3 2>/dev/null | sort -rV))
  fi
  for candidate in "${candidates[@]}"; do
    if [ "$("$candidate" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" = "$1" ] \
        && "$candidate" -m pip --version >/dev/null 2>&1; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
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

# The VS Code extension: npm ci when package-lock.json changed, new .vsix files when a source did.
vsix() {
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
  local version universal platform
  version="$(node -p 'require("./package.json").version')"
  universal="allo-dataflow-$version.vsix"
  platform="allo-dataflow-$PLATFORM-$version.vsix"
  if [ ! -f "$universal" ] || [ -n "$(find package.json package-lock.json tsconfig.json esbuild.js eslint.config.mjs .vscodeignore \
      README.md client/README.md client/media CHANGELOG.md LICENSE pyproject.toml client/src client/webview syntaxes server/allo_lsp -type f -not -name '*.pyc' -newer "$universal" -print -quit)" ]; then
    PYTHON=.venv/bin/python npm run -s package
  fi
  if [ ! -f "$platform" ] || [ "$universal" -nt "$platform" ] || [ dev.sh -nt "$platform" ]; then
    platform_vsix "$platform"
  fi
  echo "== sizes: $(du -h "$platform" | cut -f1) $platform, $(du -h "$universal" | cut -f1) $universal"
  echo "$platform"
  echo "$universal"
}

# The platform's .vsix carries the wheels of every dependency of allo-lsp for each CPython it
# supports, and pip's, so the extension installs its private environment with `pip --no-index`
# run from that wheel (install.ts).
PLATFORM=linux-x64
PLATFORM_TAGS=(--platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64)
PYTHON_VERSIONS=(3.10 3.11 3.12 3.13)
platform_vsix() {
  local out="$1" wheel deps version
  wheel="$(ls client/wheels/allo_lsp-*.whl)"
  deps="client/wheels/deps"
  rm -rf "$deps"
  # Only for this package: the universal .vsix (built next time from the same directory) carries none.
  trap 'rm -rf client/wheels/deps' RETURN
  local python covered=()
  for version in "${PYTHON_VERSIONS[@]}"; do
    # pip evaluates dependency markers (libcst's `pyyaml-ft; python_version >= "3.13"`) with the
    # interpreter it runs in, whatever --python-version says: each version's own pip resolves it.
    if ! python="$(python_version "$version")"; then
      echo "dev.sh: no CPython $version here: the $PLATFORM .vsix installs from the index on it" >&2
      continue
    fi
    echo "== wheels for CPython $version ($PLATFORM), resolved by $python"
    PIP_DISABLE_PIP_VERSION_CHECK=1 "$python" -m pip download -q --only-binary=:all: "${PLATFORM_TAGS[@]}" \
      --implementation cp --python-version "$version" --dest "$deps" "$wheel" pip 2> >(grep -v "is ignored: it is neither" >&2)
    covered+=("$version")
  done
  [ "${#covered[@]}" -gt 0 ] || { echo "dev.sh: no CPython ${PYTHON_VERSIONS[*]} to resolve the wheels with" >&2; exit 2; }
  rm -f "$deps"/allo_lsp-*.whl  # the server's own wheel is client/wheels/'s
  npx vsce package --target "$PLATFORM" --no-dependencies --allow-missing-repository --readme-path client/README.md --no-rewrite-relative-links --out "$out"
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
      if files="$(vsix | tail -n 2)"; then
        echo "Install it with: code --install-extension $(echo "$files" | head -n 1)"
        echo "(on another platform than $PLATFORM: code --install-extension $(echo "$files" | tail -n 1))"
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
