"""``mx.AttrScope``: attach attributes to every symbol created inside.

The attribute that matters most is ``ctx_group``: with
``with mx.AttrScope(ctx_group='stage1'):`` every node made inside belongs
to that group, and ``simple_bind(..., group2ctx={'stage1': mx.cpu(1)})``
places it on that device (model parallelism).
"""

import threading

__all__ = ['AttrScope', 'current']


class AttrScope:
    """Attributes (strings) added to symbols created in this scope."""

    _current = threading.local()

    def __init__(self, **kwargs):
        for value in kwargs.values():
            if not isinstance(value, str):
                raise ValueError('Attributes need to be string')
        self._attr = kwargs
        self._old_scope = None

    def get(self, attr):
        """``attr`` merged over this scope's attributes."""
        if not self._attr:
            return dict(attr) if attr else {}
        merged = dict(self._attr)
        if attr:
            merged.update(attr)
        return merged

    def __enter__(self):
        self._old_scope = current()
        # nested scopes accumulate their attributes
        merged = dict(self._old_scope._attr)
        merged.update(self._attr)
        self._attr = merged
        AttrScope._current.value = self
        return self

    def __exit__(self, *exc):
        AttrScope._current.value = self._old_scope
        return False


def current():
    """The AttrScope in effect in this thread."""
    scope = getattr(AttrScope._current, 'value', None)
    if scope is None:
        scope = AttrScope._current.value = AttrScope()
    return scope
