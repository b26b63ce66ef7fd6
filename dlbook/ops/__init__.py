"""The operator registry: every differentiable operation, defined once.

An operator is a small class with its forward rule and its gradient rule
side by side, both written against ``xp``, the array module of the device
the data lives on (NumPy for ``cpu(i)``, CuPy for ``gpu(i)``).  Nothing in
this package imports NumPy or CuPy: the front ends pass ``xp`` in.

The same class serves every front end:

* ``nd.<name>`` runs it now, on NDArrays, and records it on the autograd
  tape (``dlbook.ndarray``);
* ``sym.<name>`` makes a graph node that an Executor runs later;
* hybridized Gluon blocks run it through that Executor.

A minimal operator::

    @register('tanh')
    class Tanh(Op):
        '''y = tanh(x);   dx = dy * (1 - y**2)'''
        def forward(self, xp, x):
            y = xp.tanh(x)
            self.saved = (y,)
            return y

        def backward(self, xp, dy):
            (y,) = self.saved
            return dy * (1 - y * y)
"""

from .op import (REGISTRY, Op, cast_scalar, keep_dtype,  # noqa: F401
                 normalize_axes, normalize_axis, reduced_shape, register,
                 unbroadcast)
from .op import __all__  # noqa: F401

# Importing the families fills REGISTRY.
from . import (creation, device, unary, binary, scalar, compare,  # noqa
               identity, special, reduce, shape, join, tile, pad, index,
               linalg, nn, activation, norm, conv, pool, upsampling,
               random, loss_output, ctc, rnn, numpy_ops,
               numpy_graph, np_linalg, detection)
