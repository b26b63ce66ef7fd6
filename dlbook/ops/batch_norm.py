"""Operator: BatchNorm, batch normalization (Ioffe and Szegedy, 2015).

As in MXNet 1.x (src/operator/nn/batch_norm.cc).  In training each
channel is normalized by the mean and variance of the batch, and the
running statistics (the aux states ``moving_mean`` and ``moving_var``)
follow them; in inference the running statistics are used instead.  The
calculus it shares with LayerNorm and InstanceNorm is in
``affine_norm.py``; its per-channel sums and element-wise steps, one
kernel each on a GPU, in ``batch_norm_steps.py``.
"""

from ..backend import on_host
from .activation import is_known_shape
from .affine_norm import affine_grads, check_param, recorded_xhat
from .batch_norm_steps import (
    BN_APPLY,
    BN_GRAD,
    BN_NORMALIZE,
    BN_NORMALIZE_RELU,
    BN_STATS,
    CHANNEL_MEAN,
    CHANNEL_VARIANCE,
    ChannelBroadcast,
    center,
    channel_dot,
    channel_sum,
    scalar_count,
)
from .op import Op, normalize_axis, register

__all__ = ['BatchNorm']


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
            check_param('BatchNorm', name, array, channels, x.shape)
        axes = tuple(i for i in range(x.ndim) if i != axis)
        shape = [1] * x.ndim
        shape[axis] = channels  # (1, C, 1, 1) for NCHW
        eps, momentum = float(attrs['eps']), float(attrs['momentum'])

        batch_stats = self.is_train and not attrs['use_global_stats']
        per = ChannelBroadcast(xp, x, axis, shape)
        rows = per.rows(x)
        # NumPy stores x - mean once and reads it for the variance and
        # the output; a GPU reads x in each of three kernels instead and
        # stores nothing between them (each stored array costs a launch
        # and a pass through memory)
        host = on_host(xp)
        centered = None
        if batch_stats:
            count = scalar_count(x.dtype, x.size // channels)  # per channel
            if host:
                mean = channel_sum(xp, x, axis, axes) / count
                centered = center(xp, per, rows, mean)
                var = channel_dot(xp, centered, centered, axis, axes) / count
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
                centered = center(xp, per, rows, mean)
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
            xhat, invstd = recorded_xhat(F, x, axes, eps)
            dx, dgamma, dbeta = affine_grads(
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
        dbeta = channel_sum(xp, dy, axis, axes)
        if batch_stats or not self.attrs['fix_gamma']:
            dy_xhat = channel_dot(xp, dy, xhat, axis, axes)
        dgamma = xp.zeros_like(gamma) if self.attrs['fix_gamma'] else dy_xhat
        per = ChannelBroadcast(xp, dy, axis, shape)
        if not batch_stats:
            dx = per.rows(dy) * per.vector(scale * invstd)
            return per.back(dx), dgamma, dbeta, None, None
        # affine_norm.py's dx with g = dy * gamma, whose sums are
        # gamma * dbeta and gamma * dy_xhat:
        #   dx = gamma * invstd * (dy - dbeta/m - xhat * dy_xhat/m)
        # in four passes over one new array
        count = scalar_count(xhat.dtype, xhat.size // invstd.size)
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
