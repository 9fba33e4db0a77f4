"""Quick fixes, one module per kind of change; `ide/code_actions.py` picks them by diagnostic code.

Each fix is `fix(source, model, problem) -> Fix` and raises `Unavailable` when it does not apply.
"""
