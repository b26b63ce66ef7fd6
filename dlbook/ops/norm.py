"""Operators: normalization layers.

``BatchNorm``, ``LayerNorm``, ``InstanceNorm``, ``L2Normalization`` and
``LRN`` as in MXNet 1.x (src/operator/nn/batch_norm.cc,
src/operator/nn/layer_norm-inl.h, src/operator/instance_norm-inl.h,
src/operator/l2_normalization-inl.h, src/operator/nn/lrn-inl.h).

All of them share one piece of calculus.  With ``xhat = (x - mean) * invstd``
normalized over ``m`` elements and ``g = dy * gamma``, the gradient that
flows back through the batch statistics is::

    dx = invstd / m * (m * g - sum(g) - xhat * sum(g * xhat))

(the mean and the variance depend on every element, hence the two sums).
``LRN`` is the odd one out: it divides by a power of a local sum of
squares over neighbouring channels, with no learnt parameters.
"""

from math import prod

from ..backend import on_host
from ..backend.blas_threads import split_passes
from ..base import DLBookError
from .activation import is_known_shape
from .kernels import Elementwise, Reduction
from .op import Op, normalize_axis, register


def _normalize_backward(xp, g, xhat, invstd, axes, count):
    """``dx`` of ``y = (x - mean(x)) * invstd`` given ``g = dL/dxhat``.

    ``axes`` are the axes the statistics were taken over (``count``
    elements); ``invstd`` broadcasts against ``g``.
    """
    sum_g = g.sum(axis=axes, keepdims=True)
    sum_gx = (g * xhat).sum(axis=axes, keepdims=True)
    return (invstd / count) * (count * g - sum_g - xhat * sum_gx)


def _affine_grads(xp, dy, xhat, invstd, g, axes, param_axes):
    """``(dx, dgamma, dbeta)`` of ``y = xhat * g + beta`` with ``xhat``
    normalized over ``axes`` (a tuple); gamma's and beta's gradients sum
    over ``param_axes``.  ``xp`` may be the ``nd`` module
    (``graph_grads``)."""
    count = prod(xhat.shape[a] for a in axes)
    dx = _normalize_backward(xp, dy * g, xhat, invstd, axes, count)
    return dx, (dy * xhat).sum(axis=param_axes), dy.sum(axis=param_axes)


def _recorded_xhat(F, x, axes, eps):
    """``(xhat, invstd)`` of ``x`` normalized over ``axes``, computed with
    ``nd`` operators (recorded, for ``graph_grads``)."""
    centered = x - x.mean(axis=axes, keepdims=True)
    var = (centered * centered).mean(axis=axes, keepdims=True)
    invstd = 1 / F.sqrt(var + eps)
    return centered * invstd, invstd


def _blas_friendly(xp, a, axis):
    """Whether ``a`` is ``(N, C, ...)`` float32/float64 NumPy data
    normalized over every axis but the channels (axis 1): its per-channel
    sums can run over ``a.reshape(N*C, -1)`` in memory order.  (On a GPU
    one reduction kernel is quicker than the matrix-vector product and
    its reshapes.)"""
    return (
        axis == 1
        and a.ndim >= 3
        and a.dtype.kind == 'f'
        and a.itemsize >= 4
        and on_host(xp)
    )


def _channel_sum(xp, a, axis, axes):
    """``a.sum(axis=axes)``, the sum over every axis but ``axis``.

    For the channel axis of ``(N, C, ...)`` float32/float64 data this is a
    matrix-vector product, ``a.reshape(N*C, -1) @ ones``, then a sum over
    ``N``: BLAS reads ``a`` once in order, where NumPy's reduction over
    axes 0, 2 and 3 strides through it (4 times slower on a ResNet
    block's ``(256, 16, 8, 8)``).
    """
    if not _blas_friendly(xp, a, axis):
        return a.sum(axis=axes)
    n, c = a.shape[:2]
    rows = a.reshape(n * c, -1)
    ones = xp.ones(rows.shape[1], dtype=a.dtype)
    return xp.matmul(rows, ones).reshape(n, c).sum(axis=0)


def _channel_dot(xp, a, b, axis, axes):
    """``(a * b).sum(axis=axes)`` without the product array (for the
    channel axis of float32/float64 NumPy data one ``einsum`` pass, on a
    GPU one reduction kernel, :data:`SUM_OF_PRODUCTS`)."""
    if not _blas_friendly(xp, a, axis):
        return SUM_OF_PRODUCTS(xp, a, b, axis=axes)
    n, c = a.shape[:2]
    return xp.einsum('nck,nck->c', a.reshape(n, c, -1), b.reshape(n, c, -1))


def _sum_of_products_steps(xp, u, v, axis):
    """:data:`SUM_OF_PRODUCTS` in array operations."""
    return (u * v).sum(axis=axis)


#: ``sum(u * v)`` over ``axis``: one kernel reading each input once.
SUM_OF_PRODUCTS = Reduction(
    'dlbook_sum_of_products',
    'T u, T v',
    'T s',
    'u * v',
    'a + b',
    's = a',
    '0',
    _sum_of_products_steps,
)


def _mean_steps(xp, x, count, axis):
    """:data:`CHANNEL_MEAN` in array operations."""
    return x.sum(axis=axis) / count


#: ``sum(x) / count`` over ``axis``: the batch mean as one kernel.
CHANNEL_MEAN = Reduction(
    'dlbook_channel_mean',
    'T x, T count',
    'T mean',
    'x',
    'a + b',
    'mean = a / count',
    '0',
    _mean_steps,
)


def _variance_steps(xp, x, mean, count, axis):
    """:data:`CHANNEL_VARIANCE` in array operations."""
    centered = x - mean
    return (centered * centered).sum(axis=axis) / count


#: ``sum((x - mean)^2) / count`` over ``axis`` (``mean`` broadcast
#: against ``x``): the biased batch variance in one pass over ``x``, with
#: neither ``x - mean`` nor its square stored.
CHANNEL_VARIANCE = Reduction(
    'dlbook_channel_variance',
    'T x, T mean, T count',
    'T var',
    '(x - mean) * (x - mean)',
    'a + b',
    'var = a / count',
    '0',
    _variance_steps,
)


class _ChannelBroadcast:
    """Per-channel vectors broadcast against ``(N, C, ...)`` data.

    The plain way reshapes a vector to ``(1, C, 1, 1)``; NumPy then runs
    its inner loop over one channel's spatial block at a time, which is
    short on a small feature map (16 elements on 4x4).  For the channel
    axis of float32/float64 data (:func:`_blas_friendly`) the data is
    seen as ``(N, C*S)`` rows instead and the vector repeated to one row,
    ``(C*S,)``: one long inner loop per image (a subtraction on
    ``(256, 16, 4, 4)``: 37 -> 22 us).  ``rows`` gives the data's view,
    ``vector`` the vector's, ``back`` a result in the data's shape.
    """

    def __init__(self, xp, x, axis, shape):
        self.xp, self.data_shape, self.shape = xp, x.shape, shape
        self.flat = _blas_friendly(xp, x, axis)
        if self.flat:
            self.spatial = prod(x.shape[2:])

    def rows(self, a):
        return a.reshape(a.shape[0], -1) if self.flat else a

    def vector(self, v):
        if self.flat:
            return self.xp.repeat(v, self.spatial)
        return v.reshape(self.shape)

    def back(self, a):
        return a.reshape(self.data_shape)

    def split(self, fn, passes):
        """Run ``fn(start, stop)`` over ranges of images: on threads for
        large NumPy data (``passes`` element-wise passes, see
        :func:`~dlbook.backend.blas_threads.split_passes`), else once.
        Only element-wise work is split, so the numbers never depend on
        the thread count."""
        n = self.data_shape[0]
        if self.flat:
            split_passes(self.xp, fn, n, prod(self.data_shape), passes)
        else:
            fn(0, n)


def _scalar_count(dtype, count):
    """``count`` (elements per channel) as a scalar of a float32/float64
    ``dtype``, so that dividing by it keeps the dtype under every NumPy:
    NumPy 1.x reads a Python int over 65,535 as uint32, and ``float32 /
    uint32`` is float64.  Other dtypes get the Python int."""
    if dtype.kind == 'f' and dtype.itemsize >= 4:
        return dtype.type(count)
    return count


def _apply_steps(xp, centered, invstd, gamma, beta, xhat, y):
    """:data:`BN_APPLY` in array operations; ``xhat`` may be ``centered``
    itself (updated in place), and a ``gamma`` of exactly 1 (fix_gamma)
    skips its product."""
    xp.multiply(centered, invstd, out=xhat)
    if isinstance(gamma, float) and gamma == 1.0:
        xp.add(xhat, beta, out=y)
    else:
        xp.multiply(xhat, gamma, out=y)
        y += beta


def _normalize_steps(xp, x, mean, invstd, gamma, beta):
    """:data:`BN_NORMALIZE` in array operations."""
    xhat = (x - mean) * invstd
    return xhat, xhat * gamma + beta


#: ``xhat = (x - mean) * invstd``; ``y = xhat * gamma + beta``, new
#: arrays: the device's apply step, which never stores ``x - mean``.
BN_NORMALIZE = Elementwise(
    'dlbook_batch_norm_normalize',
    'T x, T mean, T invstd, T gamma, T beta',
    'T xhat, T y',
    'xhat = (x - mean) * invstd; y = xhat * gamma + beta;',
    _normalize_steps,
)


def _normalize_relu_steps(xp, x, mean, invstd, gamma, beta):
    """:data:`BN_NORMALIZE_RELU` in array operations."""
    xhat, y = _normalize_steps(xp, x, mean, invstd, gamma, beta)
    return xhat, xp.maximum(y, 0, out=y)


#: :data:`BN_NORMALIZE` with a relu on ``y`` (a BatchNorm whose output
#: only feeds a relu, in a compiled graph: ``dlbook/symbol/fusion.py``).
#: ``y < 0 ? 0 : y`` keeps a NaN, as ``maximum(y, 0)`` does.
BN_NORMALIZE_RELU = Elementwise(
    'dlbook_batch_norm_normalize_relu',
    'T x, T mean, T invstd, T gamma, T beta',
    'T xhat, T y',
    """
    xhat = (x - mean) * invstd;
    y = xhat * gamma + beta;
    y = y < 0 ? (T)0 : y;
    """,
    _normalize_relu_steps,
)


#: ``xhat = centered * invstd``; ``y = xhat * gamma + beta``.
BN_APPLY = Elementwise(
    'dlbook_batch_norm_apply',
    'T centered, T invstd, T gamma, T beta',
    'T xhat, T y',
    'xhat = centered * invstd; y = xhat * gamma + beta;',
    _apply_steps,
)


def _stats_steps(
    xp, mean, var, eps, momentum, invstd, moving_mean, moving_var
):
    """:data:`BN_STATS` in array operations."""
    moving_mean[...] = momentum * moving_mean + (1 - momentum) * mean
    moving_var[...] = momentum * moving_var + (1 - momentum) * var
    xp.divide(1, xp.sqrt(var + eps), out=invstd)


#: The per-channel step of a training forward: ``invstd = 1 / sqrt(var +
#: eps)`` and the running statistics updated in place,
#: ``moving = momentum * moving + (1 - momentum) * batch``.
BN_STATS = Elementwise(
    'dlbook_batch_norm_stats',
    'T mean, T var, T eps, T momentum',
    'T invstd, T moving_mean, T moving_var',
    """
    moving_mean = momentum * moving_mean + (1 - momentum) * mean;
    moving_var = momentum * moving_var + (1 - momentum) * var;
    invstd = 1 / sqrt(var + eps);
    """,
    _stats_steps,
)


def _grad_steps(xp, dy, xhat, dbeta, dy_xhat, scale, invstd, count, dx=None):
    """:data:`BN_GRAD` in array operations: four passes over ``dx`` (a
    new array like ``dy`` when not given)."""
    if dx is None:
        dx = xp.empty_like(dy)
        _grad_steps(xp, dy, xhat, dbeta, dy_xhat, scale, invstd, count, dx)
        return dx
    xp.multiply(xhat, dy_xhat / count, out=dx)
    xp.subtract(dy, dx, out=dx)
    dx -= dbeta / count
    dx *= scale * invstd


#: The batch-statistics gradient of the module docstring with ``g = dy *
#: gamma``, whose sums are ``gamma * dbeta`` and ``gamma * dy_xhat``:
#: ``dx = gamma*invstd * (dy - dbeta/m - xhat * dy_xhat/m)`` (``scale``
#: is gamma, ``count`` is m).
BN_GRAD = Elementwise(
    'dlbook_batch_norm_grad',
    'T dy, T xhat, T dbeta, T dy_xhat, T scale, T invstd, T count',
    'T dx',
    'dx = scale * invstd * (dy - dbeta / count - xhat * (dy_xhat / count));',
    _grad_steps,
)


def _centered(xp, per, rows, mean):
    """``x - mean`` per channel, in the data's shape (one pass, split over
    images on threads for large NumPy data)."""
    mean_v = per.vector(mean)
    out = xp.empty(rows.shape, dtype=xp.result_type(rows, mean_v))
    per.split(
        lambda a, b: xp.subtract(rows[a:b], mean_v, out=out[a:b]), passes=1
    )
    return per.back(out)


def _check_param(op, name, array, channels, data_shape):
    if array.shape != (channels,):
        raise DLBookError(
            f'{op}: {name} has shape {array.shape} but data of '
            f'shape {data_shape} needs ({channels},)'
        )


@register('BatchNorm')
class BatchNorm(Op):
    """Batch normalization over every axis but ``axis`` (the channels).

    y = (x - mean) / sqrt(var + eps) * gamma + beta   (gamma = 1 if fix_gamma)
    training:  mean, var = batch statistics (biased var);
               dx = gamma*invstd/m * (m*dy - sum(dy) - xhat*sum(dy*xhat))
    inference or use_global_stats: mean, var = moving_mean, moving_var;
               dx = dy * gamma * invstd
    dgamma = sum(dy * xhat) (0 if fix_gamma);   dbeta = sum(dy)

    In training (and not ``use_global_stats``) the aux states are updated in
    place: ``moving = momentum * moving + (1 - momentum) * batch``.  MXNet's
    CPU kernel (src/operator/nn/batch_norm.cc, BatchNormBackwardImpl) uses
    the *biased* batch variance ``sum((x - mean)^2) / m`` for
    ``moving_var``; so do we.  (MXNet does the update in the backward pass;
    we do it in the forward pass, which gives the same values whenever a
    training forward is followed by its backward, and also updates when no
    backward follows.)

    With ``output_mean_var=True`` the outputs are ``(y, mean, invstd)``:
    MXNet's second extra output is ``1 / sqrt(var + eps)``, not the
    variance (documented in batch_norm.cc, apache/mxnet#9216).  No gradient
    flows through those two outputs.
    """

    arguments = ('data', 'gamma', 'beta')
    learned_inputs = ('gamma', 'beta')
    aux_states = ('moving_mean', 'moving_var')
    #: a relu on the output, applied while it is computed (set by the
    #: fused BatchNorm + relu step of compiled graphs)
    relu = False
    defaults = {
        'eps': 1e-3,
        'momentum': 0.9,
        'fix_gamma': True,
        'use_global_stats': False,
        'output_mean_var': False,
        'axis': 1,
        'cudnn_off': False,
        'min_calib_range': None,
        'max_calib_range': None,
    }

    def __init__(self, **attrs):
        super().__init__(**attrs)
        if self.attrs['output_mean_var']:
            self.num_outputs = 3

    def list_outputs(self):
        if self.attrs['output_mean_var']:
            return ('output', 'mean', 'var')
        return ('output',)

    def infer_shape(self, *in_shapes):
        data = in_shapes[0]
        if not is_known_shape(data):
            return (
                list(in_shapes[:3]),
                [None] * self.num_outputs,
                list(in_shapes[3:5]),
            )
        axis = normalize_axis(self.attrs['axis'], len(data), 'BatchNorm')
        channels = (int(data[axis]),)
        outs = [tuple(data)]
        if self.attrs['output_mean_var']:
            outs += [channels, channels]
        return [tuple(data), channels, channels], outs, [channels, channels]

    def forward(self, xp, x, gamma, beta, moving_mean, moving_var):
        attrs = self.attrs
        axis = normalize_axis(attrs['axis'], x.ndim, 'BatchNorm')
        channels = x.shape[axis]
        for name, array in (
            ('gamma', gamma),
            ('beta', beta),
            ('moving_mean', moving_mean),
            ('moving_var', moving_var),
        ):
            _check_param('BatchNorm', name, array, channels, x.shape)
        axes = tuple(i for i in range(x.ndim) if i != axis)
        shape = [1] * x.ndim
        shape[axis] = channels  # (1, C, 1, 1) for NCHW
        eps, momentum = float(attrs['eps']), float(attrs['momentum'])

        batch_stats = self.is_train and not attrs['use_global_stats']
        per = _ChannelBroadcast(xp, x, axis, shape)
        rows = per.rows(x)
        # NumPy stores x - mean once and reads it for the variance and
        # the output; a GPU reads x in each of three kernels instead and
        # stores nothing between them (each stored array costs a launch
        # and a pass through memory)
        host = on_host(xp)
        centered = None
        if batch_stats:
            count = _scalar_count(x.dtype, x.size // channels)  # per channel
            if host:
                mean = _channel_sum(xp, x, axis, axes) / count
                centered = _centered(xp, per, rows, mean)
                var = _channel_dot(xp, centered, centered, axis, axes) / count
            else:
                mean = CHANNEL_MEAN(xp, x, count, axis=axes)
                var = CHANNEL_VARIANCE(
                    xp, x, mean.reshape(shape), count, axis=axes
                )
            # invstd, and the running statistics (aux states) in place
            invstd = xp.empty_like(var)
            BN_STATS(
                xp, mean, var, eps, momentum, invstd, moving_mean, moving_var
            )
        else:
            mean = moving_mean.astype(x.dtype, copy=False)
            var = moving_var.astype(x.dtype, copy=False)
            invstd = 1 / xp.sqrt(var + eps)
        gamma_or_one = 1.0 if attrs['fix_gamma'] else per.vector(gamma)
        if host:
            if centered is None:
                centered = _centered(xp, per, rows, mean)
            # xhat overwrites centered (not kept)
            xhat, c_rows = centered, per.rows(centered)
            y = xp.empty(rows.shape, dtype=x.dtype)
            vectors = (per.vector(invstd), gamma_or_one, per.vector(beta))
            relu = self.relu

            def apply(a, b):
                BN_APPLY(xp, c_rows[a:b], *vectors, c_rows[a:b], y[a:b])
                if relu:  # while the rows are in cache
                    xp.maximum(y[a:b], 0, out=y[a:b])

            per.split(apply, passes=3 + relu)
        else:
            normalize = BN_NORMALIZE_RELU if self.relu else BN_NORMALIZE
            xhat, y = normalize(
                xp,
                x,
                mean.reshape(shape),
                invstd.reshape(shape),
                gamma_or_one,
                beta.reshape(shape),
            )
            if y.dtype != x.dtype:  # float16 data, float32 beta
                y = y.astype(x.dtype)
        y = per.back(y)
        scale = xp.ones_like(invstd) if attrs['fix_gamma'] else gamma
        self.saved = (
            xhat,
            invstd,
            scale,
            (axis, axes, shape),
            batch_stats,
            gamma,
        )
        if attrs['output_mean_var']:
            return y, mean, invstd
        return y

    def graph_grads(self, F, inputs, dys):
        """The rules of the docstring with ``nd`` operators, the batch
        statistics recomputed (recorded) in training."""
        x, gamma = inputs[:2]
        moving_mean, moving_var = inputs[3:5]
        attrs = self.attrs
        axis = normalize_axis(attrs['axis'], x.ndim, 'BatchNorm')
        axes = tuple(i for i in range(x.ndim) if i != axis)
        shape = tuple(x.shape[axis] if i == axis else 1 for i in range(x.ndim))
        eps = float(attrs['eps'])
        dy = dys[0]
        g = 1.0 if attrs['fix_gamma'] else gamma.reshape(shape)
        if self.is_train and not attrs['use_global_stats']:
            xhat, invstd = _recorded_xhat(F, x, axes, eps)
            dx, dgamma, dbeta = _affine_grads(
                F, dy, xhat, invstd, g, axes, axes
            )
        else:
            invstd = 1 / F.sqrt(moving_var.reshape(shape) + eps)
            xhat = (x - moving_mean.reshape(shape)) * invstd
            dx = dy * g * invstd
            dgamma, dbeta = (dy * xhat).sum(axis=axes), dy.sum(axis=axes)
        if attrs['fix_gamma']:
            dgamma = None
        return dx, dgamma, dbeta, None, None

    def backward(self, xp, dy, *ignored):
        xhat, invstd, scale, (axis, axes, shape), batch_stats, gamma = (
            self.saved
        )
        dbeta = _channel_sum(xp, dy, axis, axes)
        if batch_stats or not self.attrs['fix_gamma']:
            dy_xhat = _channel_dot(xp, dy, xhat, axis, axes)
        dgamma = xp.zeros_like(gamma) if self.attrs['fix_gamma'] else dy_xhat
        per = _ChannelBroadcast(xp, dy, axis, shape)
        if not batch_stats:
            dx = per.rows(dy) * per.vector(scale * invstd)
            return per.back(dx), dgamma, dbeta, None, None
        # the module docstring's dx with g = dy * gamma, whose sums are
        # gamma * dbeta and gamma * dy_xhat:
        #   dx = gamma * invstd * (dy - dbeta/m - xhat * dy_xhat/m)
        # in four passes over one new array
        count = _scalar_count(xhat.dtype, xhat.size // invstd.size)
        dy_rows, xhat_rows = per.rows(dy), per.rows(xhat)
        vectors = (
            per.vector(dbeta),
            per.vector(dy_xhat),
            per.vector(scale),
            per.vector(invstd),
        )
        if not on_host(xp):  # one kernel, which allocates dx
            dx = BN_GRAD(xp, dy_rows, xhat_rows, *vectors, count)
            return per.back(dx), dgamma, dbeta, None, None
        dx = xp.empty(dy_rows.shape, dtype=dy.dtype)
        per.split(
            lambda a, b: BN_GRAD(
                xp, dy_rows[a:b], xhat_rows[a:b], *vectors, count, dx[a:b]
            ),
            passes=4,
        )
        return per.back(dx), dgamma, dbeta, None, None


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
        _check_param('LayerNorm', 'gamma', gamma, channels, x.shape)
        _check_param('LayerNorm', 'beta', beta, channels, x.shape)
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
        xhat, invstd = _recorded_xhat(F, x, axis, float(self.attrs['eps']))
        return self._grads(F, dys[0], xhat, invstd, gamma.reshape(shape), axis)

    def backward(self, xp, dy, *ignored):
        return self._grads(xp, dy, *self.saved)

    @staticmethod
    def _grads(xp, dy, xhat, invstd, g, axis):
        others = tuple(i for i in range(dy.ndim) if i != axis)
        return _affine_grads(xp, dy, xhat, invstd, g, (axis,), others)


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
        _check_param('InstanceNorm', 'gamma', gamma, channels, x.shape)
        _check_param('InstanceNorm', 'beta', beta, channels, x.shape)
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
        return _affine_grads(xp, dy, xhat, invstd, g, spatial, (0,) + spatial)

    def graph_grads(self, F, inputs, dys):
        x, gamma = inputs[:2]
        spatial = tuple(range(2, x.ndim))
        xhat, invstd = _recorded_xhat(F, x, spatial, float(self.attrs['eps']))
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


# -- local response normalization ---------------------------------------------


def _channel_window_sum(xp, a, nsize):
    """``s[:, c] = sum of a[:, j] for |j - c| <= nsize // 2``, channels
    beyond the edges counting as zero (MXNet's ``chpool<sum>``).

    One shifted slice of a zero-padded copy per window offset: a loop of
    ``nsize`` whole-array additions, not a loop over pixels.
    """
    half, channels = nsize // 2, a.shape[1]
    padded = xp.zeros(
        (a.shape[0], channels + 2 * half) + a.shape[2:], dtype=a.dtype
    )
    padded[:, half : half + channels] = a
    total = padded[:, :channels].copy()
    for offset in range(1, nsize):
        total += padded[:, offset : offset + channels]
    return total


@register('LRN')
class LRN(Op):
    """Local response normalization across channels (AlexNet, 2012).

    For each sample and pixel, with the window W(c) = {j : |j - c| <=
    nsize // 2} of neighbouring channels (clipped at the edges):

    n_c = knorm + alpha / nsize * sum_{j in W(c)} x_j^2
    y_c = x_c * n_c^(-beta)
    dx_c = dy_c * n_c^(-beta)
           - 2 * beta * alpha / nsize * x_c
             * sum_{j in W(c)} dy_j * x_j * n_j^(-beta - 1)

    MXNet scales ``alpha`` by ``1 / nsize`` (as Caffe does); ``nsize``
    must be odd and the input 4-D ``(batch, channel, height, width)``.
    """

    defaults = {'alpha': 1e-4, 'beta': 0.75, 'knorm': 2.0, 'nsize': None}

    def forward(self, xp, x):
        nsize = self.attrs['nsize']
        if nsize is None:
            raise DLBookError(
                'LRN: the window width nsize is required, '
                'e.g. nd.LRN(x, nsize=5)'
            )
        nsize = int(nsize)
        if nsize < 1 or nsize % 2 == 0:
            raise DLBookError(
                f'LRN only supports odd values for '
                f'local_size (nsize), got {nsize}'
            )
        if x.ndim != 4:
            raise DLBookError(
                f'LRN: data must be 4-D (batch, channel, '
                f'height, width), got shape {x.shape}'
            )
        scale = float(self.attrs['alpha']) / nsize
        beta = float(self.attrs['beta'])
        norm = float(self.attrs['knorm']) + scale * _channel_window_sum(
            xp, x * x, nsize
        )
        factor = norm**-beta
        self.saved = (x, norm, factor, nsize, scale, beta)
        return x * factor

    def backward(self, xp, dy):
        x, norm, factor, nsize, scale, beta = self.saved
        # the window is symmetric: c is in W(j) exactly when j is in W(c)
        through_norm = _channel_window_sum(xp, dy * x * factor / norm, nsize)
        return dy * factor - (2 * beta * scale) * x * through_norm
