"""Operators that pass values through: copies, stop_gradient, casts.

``_copy`` (``identity``) returns a new array equal to its input;
``BlockGrad`` (``stop_gradient``) does the same but sends a zero gradient
back, which cuts the graph there; ``Cast`` changes the dtype and casts the
gradient back to the input's dtype.
"""

from ..base import DLBookError
from .op import Op, register


@register('Cast', 'cast')
class Cast(Op):
    """y = x converted to dtype;   dx = dy converted back to x's dtype"""

    defaults = {'dtype': None}

    def forward(self, xp, x):
        dtype = self.attrs['dtype']
        if dtype is None:
            raise DLBookError(
                "Cast: the dtype attribute is required, e.g. "
                "nd.cast(x, dtype='float64')"
            )
        self.saved = (x.dtype,)
        return x.astype(dtype)

    def backward(self, xp, dy):
        return dy.astype(self.saved[0], copy=False)


@register('_copy', 'identity')
class Copy(Op):
    """y = x (a new array);   dx = dy"""

    def forward(self, xp, x):
        return x.copy()

    def backward(self, xp, dy):
        return dy


@register('BlockGrad', 'stop_gradient')
class BlockGrad(Op):
    """y = x (a new array);   dx = 0: gradients stop here"""

    def forward(self, xp, x):
        return x.copy()

    def backward(self, xp, dy):
        return xp.zeros_like(dy)
