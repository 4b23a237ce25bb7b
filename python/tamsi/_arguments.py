"""One-line TypeErrors for arguments of the wrong type.

pybind11 answers a call whose arguments it cannot convert with a TypeError that lists every signature of the function
(a dozen lines for ``Simulator``). The bound classes' methods are wrapped here so that such an error becomes one line
naming the argument, the type expected and the value given, e.g.
``Simulator: stiffness: expected a float or None, got str '1e4'``; and an array argument of complex numbers or strings,
which pybind11 would cast to floats, is refused the same way. Past that check the wrapper costs nothing until pybind11
raises.
"""

import functools
import numbers
import re
from typing import Any, Callable, List, Tuple

import numpy as np

_INCOMPATIBLE = re.compile(r"incompatible (function|constructor) arguments")


def _parameters(function: Callable[..., Any]) -> List[Tuple[str, str]]:
    """(name, type) of each parameter in the pybind11 signature that starts ``function``'s docstring (a method's, or a
    property setter's), self and the ``*`` marker left out; [] when there is none (overloads, plain functions)."""
    doc = (function.__doc__ or "").lstrip()
    start = doc.find("(")
    if start < 0 or "\n" in doc[:start]:
        return []
    depth, quote, pieces, piece = 0, None, [], ""
    for char in doc[start + 1:]:
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([":
            depth += 1
        elif char in ")]":
            if depth == 0:
                break
            depth -= 1
        elif char == "," and depth == 0:
            pieces.append(piece)
            piece = ""
            continue
        piece += char
    pieces.append(piece)
    parameters = []
    for text in pieces[1:]:  # the first is self (a property's setter calls it arg0)
        name, _, annotation = text.partition(":")
        name = name.strip()
        if name and name != "*":
            parameters.append((name, annotation.partition(" = ")[0].strip()))
    return parameters


def _split(text: str, separator: str) -> List[str]:
    """``text`` split at ``separator`` outside brackets."""
    depth, pieces, start = 0, [], 0
    for i, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif depth == 0 and text.startswith(separator, i):
            pieces.append(text[start:i])
            start = i + len(separator)
    return [piece.strip() for piece in pieces + [text[start:]]]


def _kinds(annotation: str) -> List[str]:
    """The kinds of value a pybind11 annotation admits, in the words of both pybind11 2 (``Optional[float]``,
    ``numpy.ndarray[...]``) and 3 (``typing.SupportsFloat | None``, ``typing.Annotated[numpy.typing.ArrayLike, ...]``):
    'float', 'int', 'bool', 'str', 'array', 'callable', 'None', 'object', or a class's name."""
    kinds: List[str] = []
    for alternative in _split(annotation, " | "):
        alternative = alternative.replace("typing.", "")
        if alternative.startswith("Optional[") and alternative.endswith("]"):
            kinds += _kinds(alternative[len("Optional["):-1]) + ["None"]
        elif alternative in ("float", "SupportsFloat"):
            kinds.append("float")
        elif alternative in ("int", "SupportsInt", "SupportsIndex"):
            kinds.append("int")
        elif alternative.startswith(("numpy.ndarray", "Annotated[numpy")):
            kinds.append("array")
        elif alternative.startswith(("Callable", "collections.abc.Callable")):
            kinds.append("callable")
        elif alternative in ("object", "handle", "Any") or "[" in alternative:
            kinds.append("object")  # nothing to tell (containers): pybind11's own message stands
        else:
            kinds.append(alternative.rsplit(".", 1)[-1])  # None, bool, str, or a class
    return kinds


def _is(kind: str, value: Any) -> bool:
    """Whether pybind11 converts ``value`` to a parameter of kind ``kind`` (as far as can be told)."""
    if kind == "float":
        return not isinstance(value, (str, bytes)) and hasattr(type(value), "__float__")
    if kind == "int":
        return not isinstance(value, float) and (hasattr(type(value), "__index__")
                                                 or (isinstance(value, numbers.Number) and hasattr(value, "__int__")))
    if kind == "array":
        try:
            np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            return False
        return not isinstance(value, (str, bytes))
    simple = {"None": value is None, "bool": isinstance(value, (bool, np.bool_)), "str": isinstance(value, (str, bytes)),
              "callable": callable(value), "object": True}
    if kind in simple:
        return simple[kind]
    return any(cls.__name__ == kind for cls in type(value).__mro__)


def _expected(kinds: List[str]) -> str:
    """The kinds in words: 'a float or None', 'an array of floats', 'a tamsi.Options'."""
    words = {"float": "a float", "int": "an int", "bool": "a bool", "str": "a str", "array": "an array of floats",
             "callable": "a callable", "None": "None"}
    if "float" in kinds and "int" in kinds:
        kinds = [kind for kind in kinds if kind != "int"]  # pybind11 3's SupportsFloat | SupportsIndex
    unique = sorted(set(kinds), key=lambda kind: (kind == "None", kinds.index(kind)))
    return " or ".join(words.get(kind, f"a tamsi.{kind}") for kind in unique)


def _given(value: Any) -> str:
    text = repr(value)
    return type(value).__name__ + (f" {text}" if len(text) <= 40 else "")


def _diagnose(owner: str, function: Callable[..., Any], args: Tuple[Any, ...], kwargs: "dict[str, Any]") -> str:
    """One line saying which argument of a call pybind11 refused, and why."""
    parameters = _parameters(function)
    names = [name for name, _ in parameters]
    for name in kwargs:
        if name not in names:
            return f"{owner}: unexpected keyword argument '{name}' (expected one of {', '.join(names)})"
    if len(args) > len(parameters):
        return f"{owner}: takes at most {len(parameters)} positional argument(s), got {len(args)}"
    given = list(zip(names, args)) + list(kwargs.items())
    for name, value in given:
        kinds = _kinds(dict(parameters)[name])
        named = "" if re.fullmatch(r"arg\d+", name) else f"{name}: "  # a property's value has no name
        if not any(_is(kind, value) for kind in kinds):
            return f"{owner}: {named}expected {_expected(kinds)}, got {_given(value)}"
        if kinds[0] == "int" and _is("int", value) and not -2**31 <= int(value) < 2**31:  # beyond a C int
            return f"{owner}: {named}expected an int in [-2**31, 2**31), got {_given(value)}"
    return f"{owner}: invalid arguments (see help({owner}))"


# NumPy dtype kinds that pybind11 would cast to floats rather than refuse: complex (the imaginary part dropped with a
# warning), and byte or unicode strings (parsed as numbers).
_NOT_REAL = {"c": "complex", "S": "bytes", "U": "str"}


def _refuse_non_real(owner: str, arrays: "dict[str, int]", args: Tuple[Any, ...], kwargs: "dict[str, Any]") -> None:
    """Raises a one-line TypeError when an array parameter (name → position after self) is given complex numbers or
    strings."""
    for name, position in arrays.items():
        value = kwargs[name] if name in kwargs else args[position] if position < len(args) else None
        if value is None or isinstance(value, (str, bytes)):
            continue  # no value, or one pybind11 refuses itself
        kind = getattr(getattr(value, "dtype", None), "kind", None)
        if kind is None and isinstance(value, (list, tuple)):
            kind = np.asarray(value).dtype.kind
        if kind in _NOT_REAL:
            named = "" if re.fullmatch(r"arg\d+", name) else f"{name}: "
            raise TypeError(f"{owner}: {named}expected an array of floats, got an array of {_NOT_REAL[kind]}")


def _wrap(owner: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` (a bound class's method, self first) with one-line TypeErrors, and complex or string arrays
    refused rather than cast. Its signature is (*args, **kwargs) with the pybind11 docstring kept, which is how
    pybind11-stubgen reads a bound function's types."""
    arrays = {name: position for position, (name, annotation) in enumerate(_parameters(function))
              if "array" in _kinds(annotation)}

    @functools.wraps(function)
    def call(*args, **kwargs):
        if arrays:
            _refuse_non_real(owner, arrays, args[1:], kwargs)
        try:
            return function(*args, **kwargs)
        except TypeError as error:
            if not _INCOMPATIBLE.search(str(error)):
                raise
            message = _diagnose(owner, function, args[1:], kwargs)
        raise TypeError(message)

    return call


def one_line_type_errors(cls: type, name: str) -> None:
    """Wraps the constructor, the methods that take arguments and the property setters of the bound class ``cls``
    (called ``name`` in messages, e.g. 'tamsi.Simulator') so that pybind11's many-line TypeError for arguments it
    cannot convert becomes one line naming the argument."""
    for attribute, member in list(vars(cls).items()):
        method = type(member).__name__ == "instancemethod"  # pybind11's methods; static ones are left alone
        if method and (attribute == "__init__" or (not attribute.startswith("_") and _parameters(member))):
            owner = name if attribute == "__init__" else f"{name}.{attribute}"
            setattr(cls, attribute, _wrap(owner, member))
        elif isinstance(member, property) and member.fset is not None:
            setter = _wrap(f"{name}.{attribute}", member.fset)
            setattr(cls, attribute, property(member.fget, setter, None, member.__doc__))
