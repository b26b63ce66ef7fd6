"""Operators: ``contrib.BatchNormWithReLU`` and ``contrib.SyncBatchNorm``,
two spellings of :class:`~dlbook.ops.batch_norm.BatchNorm`.

``BatchNormWithReLU`` is BatchNorm followed by ``relu`` in one operator
(MXNet fuses the two for its MKL-DNN kernels); it takes BatchNorm's
attributes.  ``SyncBatchNorm`` computes the batch statistics over the
batches of all ``ndev`` devices of one data-parallel step (the devices
meet under the hash ``key``); dlbook runs a step on one device, where
the statistics of that device's batch are all there is, so it is
BatchNorm over axis 1.  Both keep BatchNorm's aux states (``moving_mean``,
``moving_var``) and update them alike.

References: src/operator/contrib/batch_norm_relu.cc,
src/operator/contrib/sync_batch_norm-inl.h.
"""

from ..base import DLBookError
from .batch_norm import BatchNorm
from .op import Op, register

__all__ = ['BatchNormWithReLU', 'SyncBatchNorm']


@register('_contrib_BatchNormWithReLU')
class BatchNormWithReLU(BatchNorm):
    """y = relu(BatchNorm(x)) with BatchNorm's attributes and aux states;
    dx, dgamma, dbeta = BatchNorm's gradients of ``dy * (y > 0)``.

    With ``output_mean_var=True`` the extra outputs are BatchNorm's
    (the batch mean and ``1 / sqrt(var + eps)``), untouched by the relu.
    """

    relu = True  # BatchNorm applies it while it writes the output

    def forward(self, xp, *inputs):
        out = super().forward(xp, *inputs)
        y = out[0] if isinstance(out, tuple) else out
        self.relu_mask = y > 0
        return out

    def backward(self, xp, dy, *ignored):
        return super().backward(xp, dy * self.relu_mask, *ignored)

    graph_grads = Op.graph_grads  # no higher-order rule


@register('_contrib_SyncBatchNorm')
class SyncBatchNorm(Op):
    """Batch normalization whose batch statistics span ``ndev`` devices;
    on one device exactly ``BatchNorm(axis=1)`` (see the module
    docstring): the same formulas, gradients and aux-state updates.

    ``key`` names the layer for the cross-device meeting (gluon's
    ``SyncBatchNorm`` passes its prefix); dlbook accepts it and, for
    ``ndev`` > 1, raises: it has no cross-device exchange.
    """

    arguments = BatchNorm.arguments
    learned_inputs = BatchNorm.learned_inputs
    aux_states = BatchNorm.aux_states
    defaults = {
        'eps': 1e-3,
        'momentum': 0.9,
        'fix_gamma': True,
        'use_global_stats': False,
        'output_mean_var': False,
        'ndev': 1,
        'key': None,
    }

    def __init__(self, **attrs):
        super().__init__(**attrs)
        if int(self.attrs['ndev']) != 1:
            raise DLBookError(
                f'SyncBatchNorm: ndev={self.attrs["ndev"]}, but dlbook '
                f'synchronizes no devices; use ndev=1 (one device: the '
                f'statistics of its batch, as BatchNorm)'
            )
        self.inner = BatchNorm(
            **{k: v for k, v in self.attrs.items() if k not in ('ndev', 'key')}
        )
        self.num_outputs = self.inner.num_outputs

    def list_outputs(self):
        return self.inner.list_outputs()

    def infer_shape(self, *in_shapes):
        return self.inner.infer_shape(*in_shapes)

    def forward(self, xp, *inputs):
        self.inner.is_train = self.is_train
        return self.inner.forward(xp, *inputs)

    def backward(self, xp, *dys):
        return self.inner.backward(xp, *dys)
