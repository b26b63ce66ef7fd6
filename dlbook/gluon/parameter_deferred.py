"""Deferred initialization: parameters that wait for their shape.

A layer such as ``nn.Dense(10)`` does not know its input size until it
sees data, so its weight is declared with shape ``(10, 0)``: a 0 means
"not known yet".  ``Parameter.initialize`` then only records what to do
(``Parameter._deferred_init``) and no array exists.  On the first forward
pass the parameter reaches the operator as a :class:`DeferredParameter`
placeholder; the operator's shape rule fills in the missing sizes
(:func:`dlbook.ndarray.pending.settle_shapes`), and the placeholder runs
the recorded initialization (``Parameter._finish_deferred_init``) and is
replaced by the real array.

Reading the data before that raises :class:`DeferredInitializationError`.
"""

from ..base import DLBookError
from ..ndarray.pending import Pending


class DeferredInitializationError(DLBookError):
    """A parameter's data was read before its shape was known."""


def _unknown_as_zero(shape):
    """``shape`` as a tuple with unknown sizes stored as 0 (MXNet's NumPy
    mode writes them -1; the reading is converted back by ``shape``)."""
    return tuple(0 if n == -1 else n for n in shape)


def _shape_known(shape):
    return shape is not None and all(n > 0 for n in shape)


class DeferredParameter(Pending):
    """Stands for a parameter whose shape is not known yet.

    The eager front end hands it to the first operator that uses it; the
    operator's ``infer_shape`` completes the shape
    (:func:`dlbook.ndarray.pending.settle_shapes`), and the parameter is
    initialized and replaced by its real data.
    """

    def __init__(self, param, ctx):
        self.param = param
        self.ctx = ctx

    @property
    def name(self):
        return self.param.name

    @property
    def shape(self):
        # what the operators' shape rules read: 0 for unknown sizes
        return self.param._shape

    def settle(self, shape):
        """The full shape is known: record it on the parameter."""
        self.param.shape = shape

    def materialize(self):
        """Initialize the parameter (shape settled); return its data."""
        self.param._finish_deferred_init()
        return self.param.data(self.ctx)
