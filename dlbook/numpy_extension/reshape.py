"""``npx.reshape``: MXNet's NumPy-mode reshape codes.

The codes differ from legacy ``nd.reshape``'s (0, -1, -2, -3, -4):

=====  ==============================================================
 -1    infer this dimension from the others
 -2    copy this dimension of the input
 -3    skip this dimension of the input (it must be 1)
 -4    copy all remaining input dimensions
 -5    merge two consecutive input dimensions
 -6    split one input dimension into the next two values (one may be -1)
=====  ==============================================================

The operator ``_npx_reshape`` (``dlbook/ops/numpy_graph.py``, where
:func:`resolve_shape` turns the codes into a plain shape) reshapes, as in
MXNet, so a graph keeps the codes and works for any input shape.
"""

from ..numpy._core import call
from ..numpy.creation import as_array
from ..ops.numpy_graph import resolve_shape

__all__ = ['reshape', 'resolve_shape']


def reshape(a, newshape, reverse=False, order='C'):
    """Reshape ``a`` with MXNet's NumPy-mode codes (see the module).

    >>> npx.reshape(np.ones((2, 3, 4)), (-2, -1)).shape
    (2, 12)
    >>> npx.reshape(np.ones((2, 3, 4)), (-6, 1, 2, -4)).shape
    (1, 2, 3, 4)
    """
    newshape = (newshape,) if isinstance(newshape, int) else tuple(newshape)
    return call(
        '_npx_reshape', as_array(a), newshape=newshape, reverse=bool(reverse)
    )
