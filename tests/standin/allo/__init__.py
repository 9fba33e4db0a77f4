"""STAND-IN for the Allo compiler, for tests only (see tests/standin/README.md). Not Allo."""

from allo import dataflow  # noqa: F401  (`import allo` then `allo.dataflow.build`)


def _compile_time_only(*args, **kwargs):
    raise RuntimeError("stand-in allo: kernel bodies are never executed as Python")


grid = meta_if = meta_elif = meta_else = meta_for = get_pid = _compile_time_only
