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

# Importing the families fills REGISTRY.
from . import (
    activation,
    amp,
    attention,
    batch_norm,
    batch_norm_variants,
    binary,
    box_coding,
    compare,
    contrib,
    convolution,
    correlation,
    creation,
    ctc,
    deconvolution,
    deformable,
    detection,
    device,
    distributions,
    fft,
    identity,
    image,
    index,
    join,
    la_entries,
    la_op,
    la_triangular,
    legacy,
    linalg,
    loss_output,
    lrn,
    nn,
    np_linalg,
    numpy_graph,
    numpy_last,
    numpy_more,
    numpy_ops,
    pad,
    pool,
    proposal,
    psroi_pooling,
    random,
    reduce,
    resize,
    rnn,
    roi_align,
    sample_norm,
    scalar,
    shape,
    spatial,
    special,
    tensor_extra,
    tile,
    unary,
    update_ops,
    upsampling,
)
from .op import (
    REGISTRY,
    Op,
    __all__,
    cast_scalar,
    keep_dtype,
    normalize_axes,
    normalize_axis,
    reduced_shape,
    register,
    unbroadcast,
)
