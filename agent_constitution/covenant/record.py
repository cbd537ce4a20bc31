"""Small immutable records for the hot path: what it used `collections.namedtuple` for, without
importing `collections` (about 6 ms of every hook call, mostly classes the judge never uses).

`record(name, fields, defaults)` is a tuple subclass with one read-only property per field,
built from positional or keyword arguments, defaults for the last fields, a namedtuple's repr,
and tuple equality and unpacking. Subclass it to add methods and a docstring (`__slots__ = ()`).
"""

from __future__ import annotations

from _operator import itemgetter

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any


def record(name: str, fields: list[str], defaults: list[Any] | tuple[Any, ...] = ()) -> type:
    fields = tuple(fields)
    required = len(fields) - len(defaults)
    fallback = dict(zip(fields[required:], defaults))

    def __new__(cls, *args: Any, **named: Any) -> Any:
        if not named and len(args) == len(fields):  # the common call: every field, in order
            return tuple.__new__(cls, args)
        if len(args) > len(fields):
            raise TypeError(f"{name}() takes {len(fields)} arguments but {len(args)} were given")
        values = list(args)
        for field in fields[len(args):]:
            if field in named:
                values.append(named.pop(field))
            elif field in fallback:
                values.append(fallback[field])
            else:
                raise TypeError(f"{name}() missing required argument: '{field}'")
        if named:
            raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(named))}'")
        return tuple.__new__(cls, values)

    def __repr__(self: Any) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{f}={v!r}" for f, v in zip(fields, self)) + ")"

    def __getnewargs__(self: Any) -> tuple[Any, ...]:
        return tuple(self)

    namespace: dict[str, Any] = {
        "__slots__": (),
        "__new__": __new__,
        "__repr__": __repr__,
        "__getnewargs__": __getnewargs__,
        "__match_args__": fields,
        "_fields": fields,
    }
    for index, field in enumerate(fields):
        namespace[field] = property(itemgetter(index), doc=f"field {index}: {field}")
    return type(name, (tuple,), namespace)
