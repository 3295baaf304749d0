"""
The package is typed (PEP 561): it ships ``py.typed``, and every public function and method
annotates each parameter and its return, in annotations this interpreter resolves. (``mypy
--strict`` passes on the package where mypy can be installed; this test holds where it cannot.)
"""

import inspect
import typing
from pathlib import Path
from typing import Any, Callable, Iterator, Tuple

import tempmail


def public_callables() -> Iterator[Tuple[str, Callable[..., Any]]]:
    for name in tempmail.__all__:
        value = getattr(tempmail, name)
        if inspect.isfunction(value):
            yield name, value
        elif inspect.isclass(value) and value.__module__.startswith("tempmail"):
            for member_name, member in vars(value).items():
                if inspect.isfunction(member) and (not member_name.startswith("_") or member_name == "__init__"):
                    yield f"{name}.{member_name}", member


def test_ships_the_py_typed_marker() -> None:
    assert (Path(tempmail.__file__).parent / "py.typed").is_file()


def test_every_public_function_and_method_is_fully_annotated() -> None:
    checked = 0
    for name, function in public_callables():
        hints = typing.get_type_hints(function, localns=vars(tempmail))  # forward references name exported types
        parameters = [p for p in inspect.signature(function).parameters.values() if p.name not in ("self", "cls")]
        assert [p.name for p in parameters if p.name not in hints] == [], name
        assert "return" in hints, name
        checked += 1
    assert checked >= 40
