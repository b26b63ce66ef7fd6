"""Operators: MXNet 1.x layers outside the main families.

``GroupNorm`` (the operator behind ``gluon.nn.GroupNorm``), ``SVMOutput``
(a loss output layer, like ``SoftmaxOutput``), ``im2col``/``col2im``
(a convolution's window matrix and its inverse sum, exposed) and
``IdentityAttachKLSparseReg`` (an identity whose gradient pushes the mean
activation towards a target).

References: src/operator/nn/group_norm-inl.h, src/operator/svm_output.cc,
src/operator/nn/im2col.cc, src/operator/identity_attach_KL_sparse_reg-inl.h.
"""

from ..base import DLBookError
from .activation import is_known_shape
from .affine_norm import _normalize_backward
from .col2im import col2im_2d
from .im2col import im2col_2d
from .op import Op, register

__all__ = ['GroupNorm', 'SVMOutput', 'Im2Col', 'Col2Im', 'KLSparseReg']


@register('GroupNorm')
class GroupNorm(Op):
    """Group normalization (Wu and He, 2018), as MXNet 1.x computes it.

    The channels (axis 1) of each sample are split into ``num_groups``
    groups; each group of each sample (its channels and positions, ``m``
    elements) is normalized by its own mean and variance::

        mean, var = statistics of x[n, g] (biased variance)
        xhat = (x - mean) / std,   std = sqrt(var + eps)
        y[n, g] = xhat[n, g] * gamma[g] + beta[g]

    MXNet 1.x learns one ``gamma`` and ``beta`` per *group* (shape
    ``(num_groups,)``), not per channel.  Gradients, with
    ``G = dy * gamma`` and sums over one group of one sample::

        dx = 1 / (m * std) * (m * G - sum(G) - xhat * sum(G * xhat))
        dgamma[g] = sum over n and group g of dy * xhat
        dbeta[g] = sum over n and group g of dy

    With ``output_mean_var=True`` the outputs are ``(y, mean, std)``,
    the last two of shape ``(N, num_groups)``; MXNet's third output is
    the standard deviation ``sqrt(var + eps)``.  No gradient flows
    through them.
    """

    arguments = ('data', 'gamma', 'beta')
    learned_inputs = ('gamma', 'beta')
    defaults = {'num_groups': 1, 'eps': 1e-5, 'output_mean_var': False}

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
        groups = (int(self.attrs['num_groups']),)
        if not is_known_shape(data):
            return [data, groups, groups], [None] * self.num_outputs, []
        outs = [tuple(data)]
        if self.attrs['output_mean_var']:
            outs += [(data[0],) + groups] * 2
        return [tuple(data), groups, groups], outs, []

    def forward(self, xp, x, gamma, beta):
        groups = int(self.attrs['num_groups'])
        if x.ndim < 2 or groups < 1 or x.shape[1] % groups:
            raise DLBookError(
                f'GroupNorm: num_groups={groups} must divide the channels '
                f'(axis 1) of data of shape {x.shape}'
            )
        for name, p in (('gamma', gamma), ('beta', beta)):
            if p.shape != (groups,):
                raise DLBookError(
                    f'GroupNorm: {name} must have shape ({groups},) (one '
                    f'value per group in MXNet 1.x), got {p.shape}'
                )
        n = x.shape[0]
        grouped = x.reshape(n, groups, -1)
        mean = grouped.mean(axis=2, keepdims=True)
        centered = grouped - mean
        var = (centered * centered).mean(axis=2, keepdims=True)
        std = xp.sqrt(var + x.dtype.type(self.attrs['eps']))
        xhat = centered / std
        y = xhat * gamma[None, :, None] + beta[None, :, None]
        self.saved = (xhat, std, gamma, x.shape)
        y = y.astype(x.dtype, copy=False).reshape(x.shape)
        if self.attrs['output_mean_var']:
            return y, mean.reshape(n, groups), std.reshape(n, groups)
        return y

    def backward(self, xp, dy, *ignored):
        xhat, std, gamma, shape = self.saved
        dy = dy.reshape(xhat.shape)
        dgamma = (dy * xhat).sum(axis=(0, 2)).astype(gamma.dtype)
        dbeta = dy.sum(axis=(0, 2)).astype(gamma.dtype)
        g = dy * gamma[None, :, None]
        dx = _normalize_backward(xp, g, xhat, 1 / std, 2, xhat.shape[2])
        return dx.reshape(shape).astype(dy.dtype, copy=False), dgamma, dbeta


@register('SVMOutput')
class SVMOutput(Op):
    """y = x; the backward pass returns the gradient of a multi-class SVM
    hinge loss and **ignores the head gradient** (a loss output layer, see
    ``loss_output.py``).

    The data is viewed as rows of scores ``(prod(shape[:-1]), C)`` (the
    last axis holds the classes), one label per row.  With margin ``m``
    and ``c = regularization_coefficient``, for the label's score x_k and
    every other score x_j of a row::

        L2-SVM (default):  dx_k = -2c (m - x_k)  if m > x_k, else 0
                           dx_j =  2c (m + x_j)  if m > -x_j, else 0
        L1-SVM (use_linear=True):
                           dx_k = -c  if m > x_k, else 0
                           dx_j =  c  if m > -x_j, else 0

    A label outside ``[0, C)`` marks no score of its row as the label's.
    The label gets no gradient.
    """

    arguments = ('data', 'label')
    defaults = {
        'margin': 1.0,
        'regularization_coefficient': 1.0,
        'use_linear': False,
    }

    def infer_shape(self, *in_shapes):
        data = in_shapes[0]
        if not is_known_shape(data):
            return list(in_shapes), [None], []
        data = tuple(int(n) for n in data)
        return [data, data[:-1]], [data], []

    def forward(self, xp, x, label):
        if x.ndim < 2 or label.size * x.shape[-1] != x.size:
            raise DLBookError(
                f'SVMOutput: label of shape {label.shape} does not match '
                f'data of shape {x.shape}; expected one label per row of '
                f'scores, shape {x.shape[:-1]}'
            )
        self.saved = (x, label)
        return x.copy()

    def backward(self, xp, dy):
        x, label = self.saved
        rows = x.reshape(-1, x.shape[-1])
        target = xp.arange(rows.shape[1]) == label.reshape(-1, 1).astype(
            'int64'
        )
        margin = float(self.attrs['margin'])
        c = float(self.attrs['regularization_coefficient'])
        # the label's score: below the margin; the others: above -margin
        active = xp.where(target, margin > rows, margin > -rows)
        sign = xp.where(target, -c, c)
        if self.attrs['use_linear']:
            dx = sign * active
        else:
            dx = (
                2
                * sign
                * active
                * xp.where(target, margin - rows, margin + rows)
            )
        return dx.reshape(x.shape).astype(x.dtype, copy=False), None


def _window_attrs(name, attrs, spatial):
    """kernel, stride, dilate, pad of a 2-D window op, checked."""
    kernel = tuple(int(k) for k in attrs['kernel'])
    if len(kernel) != 2 or spatial != 2:
        raise DLBookError(
            f'{name}: dlbook supports 2-D windows (kernel (h, w) on data '
            f'(N, C, H, W)); got kernel {attrs["kernel"]} for '
            f'{spatial} spatial axes'
        )

    def pair(key, fill):
        value = tuple(int(v) for v in (attrs[key] or ()))
        return value or (fill, fill)

    return kernel, pair('stride', 1), pair('dilate', 1), pair('pad', 0)


def _out_size(name, size, kernel, stride, dilate, pad):
    out = []
    for n, k, s, d, p in zip(size, kernel, stride, dilate, pad):
        span = d * (k - 1) + 1
        if n + 2 * p < span:
            raise DLBookError(
                f'{name}: kernel {kernel} (dilate {dilate}) does not fit '
                f'the padded size {tuple(size)} + 2 * {pad}'
            )
        out.append((n + 2 * p - span) // s + 1)
    return tuple(out)


@register('im2col')
class Im2Col(Op):
    """The sliding windows of an image as columns (PyTorch's ``unfold``).

    data (N, C, H, W) -> y (N, C * kh * kw, L), L = out_h * out_w::

        y[n, (c, ky, kx), (oy, ox)] = x_padded[n, c, oy*sy + ky*dy,
                                                    ox*sx + kx*dx]

    (rows in the order c, ky, kx; padded positions give 0).  A
    convolution is then ``weight.reshape(F, -1) @ y``.  The gradient is
    :class:`Col2Im` of ``dy``: every window element's gradient is added
    back onto the pixel it was read from (overlapping windows sum).
    """

    defaults = {'kernel': (), 'stride': (), 'dilate': (), 'pad': ()}

    def forward(self, xp, x):
        window = _window_attrs('im2col', self.attrs, x.ndim - 2)
        out_size = _out_size('im2col', x.shape[2:], *window)
        kernel, stride, dilate, pad = window
        cols = im2col_2d(xp, x, kernel, stride, dilate, pad, out_size, False)
        self.saved = (x.shape, window, out_size)
        return cols.reshape(x.shape[0], -1, out_size[0] * out_size[1])

    def backward(self, xp, dy):
        shape, (kernel, stride, dilate, pad), out_size = self.saved
        return col2im_2d(xp, dy, shape, kernel, stride, pad, dilate, out_size)


@register('col2im')
class Col2Im(Op):
    """The inverse sum of :class:`Im2Col` (PyTorch's ``fold``).

    data (N, C * kh * kw, L) -> y (N, C, *output_size): each column is one
    window; its elements are added onto the pixels of the (padded) image
    they cover, and the padding is cropped::

        y[n, c, i, j] = sum of data[n, (c, ky, kx), (oy, ox)] over the
                        windows (oy, ox) whose tap (ky, kx) lands on (i, j)

    ``col2im(im2col(x))`` is ``x`` times the number of windows covering
    each pixel.  The gradient is ``im2col(dy)`` (each window reads the
    output gradient of the pixels it covers).
    """

    defaults = {
        'output_size': (),
        'kernel': (),
        'stride': (),
        'dilate': (),
        'pad': (),
    }

    def forward(self, xp, x):
        size = tuple(int(n) for n in self.attrs['output_size'])
        window = _window_attrs('col2im', self.attrs, len(size))
        out_size = _out_size('col2im', size, *window)
        kernel, stride, dilate, pad = window
        rows = kernel[0] * kernel[1]
        blocks = out_size[0] * out_size[1]
        if x.ndim != 3 or x.shape[1] % rows or x.shape[2] != blocks:
            raise DLBookError(
                f'col2im: data of shape {x.shape} does not match kernel '
                f'{kernel} and output_size {size}: expected (N, C * '
                f'{rows}, {blocks})'
            )
        shape = (x.shape[0], x.shape[1] // rows) + size
        self.saved = (window, out_size)
        return col2im_2d(xp, x, shape, kernel, stride, pad, dilate, out_size)

    def backward(self, xp, dy):
        (kernel, stride, dilate, pad), out_size = self.saved
        cols = im2col_2d(xp, dy, kernel, stride, dilate, pad, out_size, False)
        return cols.reshape(dy.shape[0], -1, out_size[0] * out_size[1])


@register('IdentityAttachKLSparseReg')
class KLSparseReg(Op):
    """y = x; a sparsity penalty added to the gradient (sparse
    autoencoders).

    The aux state ``moving_avg`` (one value per column of the 2-D data
    ``(N, C)``) follows the mean activation in training::

        moving_avg = momentum * moving_avg + (1 - momentum) * mean(x, 0)

    and the gradient adds the derivative of the KL divergence between the
    target ``rho`` (``sparseness_target``) and that running mean::

        dx = dy + penalty * (-rho / moving_avg + (1 - rho) / (1 - moving_avg))

    (the running mean taken as a constant: ``dx`` is not the derivative
    of any function of ``x``).  MXNet updates ``moving_avg`` in its
    backward pass; dlbook does it in a training forward pass, which gives
    the same values when the backward follows.
    """

    aux_states = ('moving_avg',)
    defaults = {'sparseness_target': 0.1, 'penalty': 0.001, 'momentum': 0.9}

    def infer_shape(self, *in_shapes):
        data = in_shapes[0]
        if not is_known_shape(data):
            return [data], [None], [None]
        return [tuple(data)], [tuple(data)], [(int(data[1]),)]

    def forward(self, xp, x, moving_avg):
        if x.ndim != 2 or moving_avg.shape != (x.shape[1],):
            raise DLBookError(
                f'IdentityAttachKLSparseReg: needs 2-D data (N, C) and '
                f'moving_avg (C,), got {x.shape} and {moving_avg.shape}'
            )
        if self.is_train:
            m = float(self.attrs['momentum'])
            moving_avg *= m
            moving_avg += (1 - m) * x.mean(axis=0).astype(moving_avg.dtype)
        self.saved = (moving_avg.astype(x.dtype, copy=True),)
        return x.copy()

    def backward(self, xp, dy):
        (avg,) = self.saved
        rho = float(self.attrs['sparseness_target'])
        penalty = float(self.attrs['penalty'])
        push = penalty * (-rho / avg + (1 - rho) / (1 - avg))
        return (dy + push).astype(dy.dtype, copy=False), None
