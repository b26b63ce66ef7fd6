"""What ``NDArray.asnumpy()`` returns: a NumPy array that converts to a
Python number when it holds exactly one element.

MXNet 1.x reductions have shape ``(1,)``, so MXNet-era code is full of
``float(loss.mean().asnumpy())`` and ``'loss %f' % l.mean().asnumpy()``.
NumPy 1.x turned any one-element array into a scalar there; NumPy 1.25
deprecated that for arrays with dimensions and NumPy 2.4 made it a
``TypeError``.  ``HostArray`` keeps the old rule for the arrays dlbook
hands out, on every NumPy version, and is otherwise an ordinary
``numpy.ndarray``.  It also *looks* like one, as MXNet's result does:
``type(x.asnumpy())`` prints ``<class 'numpy.ndarray'>``, ``repr`` gives
``array([...])``, and pickling stores a plain NumPy array (so files never
need dlbook to load).  ``isinstance(h, numpy.ndarray)`` is true; only
``type(h) is numpy.ndarray`` tells them apart.  It works with every NumPy
function, and arithmetic on it gives ``HostArray`` again (so
``float(a.asnumpy() * 2)`` works too) while reductions to one number give
the usual NumPy scalar.
"""

import numpy

__all__ = ['HostArray', 'to_host_array']


class HostArray(numpy.ndarray):
    """A ``numpy.ndarray`` whose one-element instances convert to Python
    scalars with ``float()``, ``int()``, ``complex()`` and ``%``-format,
    as NumPy 1.x arrays did."""

    def _only_element(self):
        if self.size != 1:
            raise TypeError(
                f'only arrays with one element can be converted '
                f'to Python scalars (this one has shape '
                f'{self.shape})'
            )
        return self.view(numpy.ndarray).reshape(())[()]

    def __float__(self):
        return float(self._only_element())

    def __int__(self):
        return int(self._only_element())

    def __complex__(self):
        return complex(self._only_element())

    def __array_wrap__(self, obj, context=None, return_scalar=False):
        # NumPy keeps 0-d results of subclasses as 0-d arrays; give the
        # NumPy scalar a plain array would give (``h.sum()`` is a number).
        if obj.ndim == 0:
            return obj.view(numpy.ndarray)[()]
        return super().__array_wrap__(obj, context)

    def __repr__(self):
        # NumPy would print the subclass name; users expect ``array(...)``.
        return repr(self.view(numpy.ndarray))

    def __reduce__(self):
        return self.view(numpy.ndarray).__reduce__()


# Printed forms as in MXNet, where asnumpy() returns numpy.ndarray itself.
HostArray.__name__ = HostArray.__qualname__ = 'ndarray'
HostArray.__module__ = 'numpy'


def to_host_array(array):
    """View a NumPy array as a :class:`HostArray` (no copy)."""
    return array.view(HostArray)
