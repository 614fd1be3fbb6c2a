"""What the Qt session reads of its model: :class:`FromModel`, a read-only attribute of the session."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, NoReturn, Protocol, TypeVar, overload

if TYPE_CHECKING:
    from workbench.state.session import SessionModel

T = TypeVar("T")


class HasModel(Protocol):
    """What :class:`FromModel` reads from: an object holding the session's model (the Qt session)."""

    @property
    def model(self) -> SessionModel: ...


class FromModel(Generic[T]):
    """A read-only attribute of the session: the model's state, read with ``read(model)``; it is changed
    only through the model's methods (their rules, their events)."""

    def __init__(self, read: Callable[[SessionModel], T]):
        self._read = read

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> FromModel[T]: ...
    @overload
    def __get__(self, obj: HasModel, owner: type | None = None) -> T: ...
    def __get__(self, obj: HasModel | None, owner: type | None = None) -> T | FromModel[T]:
        return self if obj is None else self._read(obj.model)

    def __set__(self, obj: HasModel, value: object) -> NoReturn:
        raise AttributeError("the session's state is changed through its methods (the model's rules)")
