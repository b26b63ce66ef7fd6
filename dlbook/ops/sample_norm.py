"""Operators: normalizations within one sample.

``LayerNorm``, ``InstanceNorm`` and ``L2Normalization`` as in MXNet 1.x
(src/operator/nn/layer_norm-inl.h, src/operator/instance_norm-inl.h,
src/operator/l2_normalization-inl.h).  Unlike BatchNorm
(``batch_norm.py``), each of them takes its statistics from one sample
at a time, never across the batch: a sample is normalized the same way
in training and in inference, with no running statistics to keep.

* ``LayerNorm`` normalizes each sample over one axis (the features);
* ``InstanceNorm`` each (sample, channel) over the spatial axes;
* ``L2Normalization`` divides by a Euclidean norm instead, with no mean
  subtracted and no learnt parameters.

The first two scale and shift per channel like BatchNorm, and share its
gradient through the statistics (``affine_norm.py``).
"""

from ..base import DLBookError
from .activation import is_known_shape
from .affine_norm import affine_grads, check_param, recorded_xhat
from .op import Op, normalize_axis, register

__all__ = ['LayerNorm', 'InstanceNorm', 'L2Normalization']


@register('LayerNorm')
class LayerNorm(Op):
    """Normalize each sample over ``axis`` (the last one by default).

    y = (x - mean) / sqrt(var + eps) * gamma + beta, statistics over ``axis``
    dx = invstd/m * (m*g - sum(g) - xhat*sum(g*xhat)),  g = dy * gamma
    dgamma = sum(dy * xhat) over all other axes;   dbeta = sum(dy)

    ``output_mean_var=True`` also returns ``mean`` and ``std =
    sqrt(var + eps)``, shaped like ``x`` with ``axis`` of size 1; no
    gradient flows through them (as in MXNet).
    """

    arguments = ('data', 'gamma', 'beta')
    learned_inputs = ('gamma', 'beta')
    defaults = {'axis': -1, 'eps': 1e-5, 'output_mean_var': False}

    def __init__(self, **attrs):
        super().__init__(**attrs)
        if self.attrs['output_mean_var']:
            self.num_outputs = 3

    def list_outputs(self):
        if self.attrs['output_mean_var']:
            return ('output', 'mean', 'std')
        return ('output',)

    def infer_shape(self, *in_shapes):
        data = in_shapes[0]
        if not is_known_shape(data):
            return list(in_shapes), [None] * self.num_outputs, []
        axis = normalize_axis(self.attrs['axis'], len(data), 'LayerNorm')
        channels = (int(data[axis]),)
        outs = [tuple(data)]
        if self.attrs['output_mean_var']:
            reduced = tuple(1 if i == axis else n for i, n in enumerate(data))
            outs += [reduced, reduced]
        return [tuple(data), channels, channels], outs, []

    def forward(self, xp, x, gamma, beta):
        axis = normalize_axis(self.attrs['axis'], x.ndim, 'LayerNorm')
        channels = x.shape[axis]
        check_param('LayerNorm', 'gamma', gamma, channels, x.shape)
        check_param('LayerNorm', 'beta', beta, channels, x.shape)
        shape = [1] * x.ndim
        shape[axis] = channels
        mean = x.mean(axis=axis, keepdims=True)
        centered = x - mean
        var = (centered * centered).mean(axis=axis, keepdims=True)
        std = xp.sqrt(var + float(self.attrs['eps']))
        invstd = 1 / std
        xhat = centered * invstd
        g = gamma.reshape(shape)
        y = xhat * g + beta.reshape(shape)
        self.saved = (xhat, invstd, g, axis)
        if self.attrs['output_mean_var']:
            return y, mean, std
        return y

    def graph_grads(self, F, inputs, dys):
        x, gamma = inputs[:2]
        axis = normalize_axis(self.attrs['axis'], x.ndim, 'LayerNorm')
        shape = tuple(x.shape[axis] if i == axis else 1 for i in range(x.ndim))
        xhat, invstd = recorded_xhat(F, x, axis, float(self.attrs['eps']))
        return self._grads(F, dys[0], xhat, invstd, gamma.reshape(shape), axis)

    def backward(self, xp, dy, *ignored):
        return self._grads(xp, dy, *self.saved)

    @staticmethod
    def _grads(xp, dy, xhat, invstd, g, axis):
        others = tuple(i for i in range(dy.ndim) if i != axis)
        return affine_grads(xp, dy, xhat, invstd, g, (axis,), others)


@register('InstanceNorm')
class InstanceNorm(Op):
    """Normalize each (sample, channel) over the spatial axes 2, 3, ...

    y = (x - mean) / sqrt(var + eps) * gamma[c] + beta[c]
    dx = invstd/m * (m*g - sum(g) - xhat*sum(g*xhat)),  g = dy * gamma
    dgamma = sum(dy * xhat) over axes 0, 2, 3...;   dbeta = sum(dy)
    """

    arguments = ('data', 'gamma', 'beta')
    learned_inputs = ('gamma', 'beta')
    defaults = {'eps': 1e-3}

    def infer_shape(self, *in_shapes):
        data = in_shapes[0]
        if not is_known_shape(data):
            return list(in_shapes), [None], []
        channels = (int(data[1]),)
        return [tuple(data), channels, channels], [tuple(data)], []

    def forward(self, xp, x, gamma, beta):
        if x.ndim < 3:
            raise DLBookError(
                f'InstanceNorm: data must have at least 3 '
                f'dimensions (N, C, spatial...), got {x.shape}'
            )
        channels = x.shape[1]
        check_param('InstanceNorm', 'gamma', gamma, channels, x.shape)
        check_param('InstanceNorm', 'beta', beta, channels, x.shape)
        spatial = tuple(range(2, x.ndim))
        shape = (1, channels) + (1,) * (x.ndim - 2)
        mean = x.mean(axis=spatial, keepdims=True)
        centered = x - mean
        var = (centered * centered).mean(axis=spatial, keepdims=True)
        invstd = 1 / xp.sqrt(var + float(self.attrs['eps']))
        xhat = centered * invstd
        g = gamma.reshape(shape)
        self.saved = (xhat, invstd, g, spatial)
        return xhat * g + beta.reshape(shape)

    def backward(self, xp, dy):
        xhat, invstd, g, spatial = self.saved
        return self._grads(xp, dy, xhat, invstd, g, spatial)

    @staticmethod
    def _grads(xp, dy, xhat, invstd, g, spatial):
        return affine_grads(xp, dy, xhat, invstd, g, spatial, (0,) + spatial)

    def graph_grads(self, F, inputs, dys):
        x, gamma = inputs[:2]
        spatial = tuple(range(2, x.ndim))
        xhat, invstd = recorded_xhat(F, x, spatial, float(self.attrs['eps']))
        g = gamma.reshape((1, -1) + (1,) * len(spatial))
        return self._grads(F, dys[0], xhat, invstd, g, spatial)


@register('L2Normalization')
class L2Normalization(Op):
    """y = x / sqrt(sum(x^2) + eps);   dx = (dy - y * sum(dy * y)) / norm

    The sum runs over all axes but 0 (``mode='instance'``), over axis 1
    (``'channel'``) or over axes 2, 3, ... (``'spatial'``).
    """

    defaults = {'eps': 1e-10, 'mode': 'instance'}

    def forward(self, xp, x):
        mode = self.attrs['mode']
        if mode == 'instance':
            axes = tuple(range(1, x.ndim))
        elif mode == 'channel':
            axes = (1,)
        elif mode == 'spatial':
            axes = tuple(range(2, x.ndim))
        else:
            raise DLBookError(
                f'L2Normalization: mode must be \'instance\', '
                f'\'channel\' or \'spatial\', got {mode!r}'
            )
        if max(axes, default=0) >= x.ndim or not axes:
            raise DLBookError(
                f'L2Normalization: mode={mode!r} does not fit '
                f'data of shape {x.shape}'
            )
        norm = xp.sqrt(
            (x * x).sum(axis=axes, keepdims=True) + float(self.attrs['eps'])
        )
        y = x / norm
        self.saved = (y, norm, axes)
        return y

    def backward(self, xp, dy):
        y, norm, axes = self.saved
        return (dy - y * (dy * y).sum(axis=axes, keepdims=True)) / norm
