"""``mx.np.linalg``: ``norm`` over the registered ``norm`` operator."""

from ..base import DLBookError
from ._core import call, shaped, reduced_shape, as_array

__all__ = ['norm']


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """Vector 1- or 2-norm, or the Frobenius norm of a matrix.

    ``ord=None`` is the 2-norm of the flattened array (the Frobenius norm
    of a matrix), as NumPy; ``ord=1`` the sum of absolute values.  The
    full norm is 0-d.
    """
    x = as_array(x)
    if ord in (None, 2, 'fro'):
        p = 2
    elif ord == 1:
        p = 1
    else:
        raise DLBookError(f'np.linalg.norm: ord={ord!r} is not supported '
                          f'(None, 1, 2 or "fro")')
    if ord == 1 and (axis is None and x.ndim == 2 or
                     isinstance(axis, tuple) and len(axis) == 2):
        raise DLBookError('np.linalg.norm: the matrix 1-norm is not '
                          'supported; give a single axis')
    axis_attr = tuple(axis) if isinstance(axis, (list, tuple)) else axis
    y = call('norm', x, ord=p, axis=axis_attr, keepdims=bool(keepdims))
    return shaped(y, reduced_shape(x.shape, axis, keepdims))
