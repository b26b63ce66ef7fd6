"""``mx.engine``: MXNet's bulk-execution switch.

MXNet's engine can bundle many small operators into one scheduled task
(``with mx.engine.bulk(10): ...``).  dlbook runs each operator as it is
called, so there is nothing to bundle: the size is remembered and
returned, and code written for MXNet runs unchanged.
"""

__all__ = ['set_bulk_size', 'bulk']

_size = 0


def set_bulk_size(size):
    """Set the largest number of operators run as one bulk; returns the
    previous value (no effect on how dlbook runs)."""
    global _size
    previous, _size = _size, int(size)
    return previous


class _BulkScope:
    """``with bulk(size):`` sets the bulk size and restores it after."""

    def __init__(self, size):
        self._size = size
        self._old_size = None

    def __enter__(self):
        self._old_size = set_bulk_size(self._size)
        return self

    def __exit__(self, *exc):
        set_bulk_size(self._old_size)


def bulk(size):
    """A scope with the bulk size ``size``::

    with mx.engine.bulk(10):
        for i in range(100):
            x += 1
    """
    return _BulkScope(size)
