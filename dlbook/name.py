"""Automatic names: ``dense0``, ``fullyconnected1``, ``conv2d0_weight``.

MXNet keeps one name counter per *hint* (the lower-cased class or
operator name) for the whole program; Gluon blocks and symbols share it.
``with mx.name.Prefix('net_'):`` prepends a prefix to every name made
inside.
"""

import threading

__all__ = ['NameManager', 'Prefix', 'current']


class NameManager:
    """Hands out unique names per hint: ``get(None, 'dense') -> 'dense0'``.

    Used as a context manager, it replaces the current manager inside the
    ``with`` block (so numbering restarts there).
    """

    _current = threading.local()

    def __init__(self):
        self._counter = {}
        self._old_manager = None

    def get(self, name, hint):
        """Return ``name`` if given, else ``hint`` + the next number."""
        if name:
            return name
        count = self._counter.get(hint, 0)
        self._counter[hint] = count + 1
        return f'{hint}{count}'

    def __enter__(self):
        self._old_manager = current()
        NameManager._current.value = self
        return self

    def __exit__(self, *exc):
        NameManager._current.value = self._old_manager
        return False


class Prefix(NameManager):
    """A NameManager that prepends ``prefix`` to every name."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)


def current():
    """The NameManager in effect in this thread."""
    manager = getattr(NameManager._current, 'value', None)
    if manager is None:
        manager = NameManager._current.value = NameManager()
    return manager
