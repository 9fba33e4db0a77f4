"""The params of the server's own requests (`allo/regionGraph`) and commands
(`workspace/executeCommand` with `alloDataflow.*`), checked in one place before the handler runs:
a field or an argument missing, or of another type or shape, is answered -32602 (invalid params)
with a message naming it. lsprotocol's types are checked by pygls on the way in (`protocol.py`);
these have none, and a handler that met a number where it wanted a string answered -32603.

A shape is a check `(value, where) -> None, or what is wrong`; `fields` and `arguments` say
what a request's object and a command's argument list hold.
"""

from __future__ import annotations

import inspect
import reprlib
from collections.abc import Callable

from pygls.exceptions import JsonRpcInvalidParams

Shape = Callable[[object, str], str | None]


def kind(what: str, test: Callable[[object], bool]) -> Shape:
    """A value that passes `test`, said as `what` ("a string")."""

    def check(value: object, where: str) -> str | None:
        return None if test(value) else f"{where} must be {what}, not {_shown(value)}"

    return check


STRING = kind("a string", lambda v: isinstance(v, str))
BOOLEAN = kind("true or false", lambda v: isinstance(v, bool))
STRINGS = kind("a list of strings", lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v))
PE = kind("a PE's name or pid", lambda v: isinstance(v, str) or isinstance(v, list) and all(type(i) is int for i in v))
TOKEN = kind("a string or an integer", lambda v: isinstance(v, (str, int)) and not isinstance(v, bool))


def nullable(shape: Shape) -> Shape:
    """`shape` or null; as a field of a `record`, it may be left out."""

    def check(value: object, where: str) -> str | None:
        return None if value is None else shape(value, where)

    check.optional = True
    return check


def record(**shapes: Shape) -> Shape:
    """An object with these fields (a `nullable` one may be missing; fields not named are ignored)."""
    required = [name for name, shape in shapes.items() if not getattr(shape, "optional", False)]

    def check(value: object, where: str) -> str | None:
        if not isinstance(value, dict):
            return f"{where} must be an object, not {_shown(value)}"
        if missing := [name for name in required if name not in value]:
            return f"{where}.{missing[0]} is missing"
        return next((why for name, shape in shapes.items() if (why := shape(value.get(name), f"{where}.{name}"))), None)

    return check


def fields(method: str, **shapes: Shape):
    """A request handler `(ls, params)` whose params are a `record` of these: the handler gets
    them as a dict (pygls gives the params of a method lsprotocol does not know as namedtuples)."""
    shape = record(**shapes)

    def decorate(handler):
        def checked(ls, params):
            plain = _plain(params)
            _refuse(shape(plain, f"{method}'s params"))
            return handler(ls, plain)

        return _like(checked, handler)

    return decorate


def arguments(command: str, *names: tuple[str, Shape], counts: tuple[int, ...] | None = None):
    """A command handler `(ls, *args)` whose arguments are `names` in order (`counts`: how many
    it may be given; all of them if not said)."""
    counts = counts or (len(names),)

    def problem(args: tuple) -> str | None:
        if len(args) not in counts:
            listed = ", ".join(name for name, _ in names)
            return f"{command} takes {' or '.join(map(str, counts))} arguments ({listed}), not {len(args)}"
        where = [f"{command}'s argument {i + 1} ({name})" for i, (name, _) in enumerate(names)]
        return next((why for arg, (_, shape), w in zip(args, names, where) if (why := shape(arg, w))), None)

    def decorate(handler):
        if inspect.iscoroutinefunction(handler):

            async def checked_async(ls, *args):
                _refuse(problem(args))
                return await handler(ls, *args)

            return _like(checked_async, handler)

        def checked(ls, *args):
            _refuse(problem(args))
            return handler(ls, *args)

        return _like(checked, handler)

    return decorate


def _like(checked, handler):
    """`checked` named as `handler`, with its own signature: pygls reads a command handler's
    parameters and annotations to convert its arguments (`str` would turn 5 into "5")."""
    checked.__name__, checked.__qualname__, checked.__doc__ = handler.__name__, handler.__qualname__, handler.__doc__
    return checked


def _refuse(why: str | None) -> None:
    if why is not None:
        raise JsonRpcInvalidParams(message=f"invalid params: {why}")


def _plain(value: object, depth: int = 0) -> object:
    """pygls' namedtuples as the JSON objects they were (to a depth no request of ours needs:
    the frames' JSON may nest deeper than Python's stack)."""
    if depth > _DEPTH:
        return value
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {name: _plain(item, depth + 1) for name, item in value._asdict().items()}
    if isinstance(value, list):
        return [_plain(item, depth + 1) for item in value]
    return value


_DEPTH = 8
_SHOWN = reprlib.Repr()  # its keyword arguments are Python 3.12's
_SHOWN.maxlevel, _SHOWN.maxstring, _SHOWN.maxother = 3, 40, 40


def _shown(value: object) -> str:
    """`value` as a message quotes it: bounded in length and depth."""
    return _SHOWN.repr(value)
