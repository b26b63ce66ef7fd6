"""Two containers the model zoo builds branches with (MXNet 1.9.1 keeps
them in ``gluon.contrib.nn``).

:class:`HybridConcurrent` feeds one input to every child and concatenates
their outputs along ``axis``: an Inception module is four branches side by
side, a DenseNet layer is ``concat(x, f(x))``, written as
``HybridConcurrent`` of :class:`Identity` and ``f``.
"""

__all__ = ['HybridConcurrent', 'Identity']

from ..block import HybridBlock
from ..nn import HybridSequential


class HybridConcurrent(HybridSequential):
    """Run every child on the same input and concatenate the outputs.

    ``y = concat(child_0(x), child_1(x), ..., dim=axis)``

    Parameters
    ----------
    axis : int, default -1
        Axis along which the outputs are joined (1: channels of NCHW).

    Examples
    --------
    >>> net = HybridConcurrent(axis=1)
    >>> with net.name_scope():
    ...     net.add(nn.Dense(10, activation='relu'))
    ...     net.add(nn.Dense(20))
    ...     net.add(Identity())
    """

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        out = [block(x) for block in self._children.values()]
        return F.concat(*out, dim=self.axis)


class Identity(HybridBlock):
    """Pass the input through unchanged (the skip branch of a
    :class:`HybridConcurrent`)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x):
        return x
