"""Operator: Deconvolution, the transposed convolution.

As in MXNet 1.x (src/operator/nn/deconvolution-inl.h).  A
Deconvolution's forward is the input gradient of a Convolution, and its
backward uses a convolution forward: the routines of
``conv_reference.py`` (or ``conv_fast.py`` on the fast path) read in the
other direction.  It upsamples: each input element spreads, weighted by
the kernel, over a window of the output (bilinear upsampling in
``upsampling.py`` is one).  ``target_shape`` asks for an output size and
derives ``pad`` and ``adj`` from it.  On a GPU with cuDNN the fast path
runs the same three products there (``dlbook/backend/cudnn.py``): the
forward as cuDNN's data gradient, the data gradient as its forward.
Attribute parsing and shape checks are shared with Convolution
(``conv_base.py``).
"""

from ..backend import cudnn
from ..base import DLBookError
from . import conv_fast, conv_fast_data_grad, fastpath
from .conv_base import ConvBase, bias_shape, needed
from .conv_reference import (
    channel_rows,
    conv_data_grad,
    conv_weight_grad,
    from_channel_rows,
    im2col,
)
from .layouts import channels_last_aware
from .op import register
from .windows import (
    conv_out_size,
    pad_spatial,
    parse_tuple,
    spatial_tuple,
)

__all__ = ['Deconvolution']


@channels_last_aware(moved=(0, 1))
@register('Deconvolution')
class Deconvolution(ConvBase):
    """Transposed convolution: the input gradient of a Convolution, used
    as a layer.  ``weight`` is ``(C, num_filter/num_group, *kernel)``, the
    weight of the Convolution that maps the output back to ``data``.

    y = col2im(w^T x) + bias: each input element x[n, c, i] adds
    x * w[c, f, k] to y[n, g*Fg + f, i*s + k*d - p];
    output size per axis ``(H-1)*s - 2p + d*(k-1) + 1 + adj`` (or
    ``target_shape``, which then sets ``pad`` and ``adj``).

    dx = Convolution(dy, w) (no bias); dw[c, f, k] = sum_{n, i}
    x[n, c, i] * dy_pad[n, f, i*s + k*d]; dbias[f] = sum_{n, o} dy[n, f, o].
    """

    arguments = ('data', 'weight', 'bias')
    learned_inputs = ('weight', 'bias')
    defaults = {
        'kernel': (),
        'stride': (),
        'dilate': (),
        'pad': (),
        'adj': (),
        'target_shape': (),
        'num_filter': None,
        'num_group': 1,
        'workspace': 512,
        'no_bias': True,
        'cudnn_tune': None,
        'cudnn_off': False,
        'layout': None,
    }

    def _pad_adj(self, spatial, kernel, stride, dilate, pad):
        """``pad`` and ``adj`` per axis, derived from ``target_shape`` when
        it is given (MXNet: excess = full size - target;
        pad = ceil(excess / 2), adj = excess % 2).  ``adj`` must stay
        below ``stride``: it only adds the rows a strided convolution
        would have dropped."""
        nd = len(kernel)
        target = parse_tuple(
            self.attrs['target_shape'], 'target_shape', self.name
        )
        if not any(target):
            adj = spatial_tuple(self.attrs['adj'], nd, 0, 'adj', self.name)
        elif len(target) != nd:
            raise DLBookError(
                f'{self.name}: target_shape={target} needs '
                f'one entry per kernel axis ({nd})'
            )
        else:
            pads, adjs = [], []
            for size, k, s, d, t in zip(
                spatial, kernel, stride, dilate, target
            ):
                full = s * (size - 1) + d * (k - 1) + 1
                if size and full < t:
                    raise DLBookError(
                        f'{self.name}: target_shape={target} is too big; '
                        f'the largest output for input size {size} is '
                        f'{full}'
                    )
                excess = max(full - t, 0)
                pads.append((excess + 1) // 2)
                adjs.append(excess % 2)
            pad, adj = tuple(pads), tuple(adjs)
        for a, s in zip(adj, stride):
            if not 0 <= a < s:
                raise DLBookError(
                    f'{self.name}: adj={adj} must be smaller than '
                    f'stride={stride} (target_shape={target})'
                )
        return pad, adj

    def _shapes(self, data_shape):
        kernel, stride, dilate, pad, num_filter, groups = self._geometry()
        self._check_data(data_shape, kernel, groups)
        n, c, *spatial = data_shape
        pad, adj = self._pad_adj(spatial, kernel, stride, dilate, pad)
        out = []
        for size, k, s, d, p, a in zip(
            spatial, kernel, stride, dilate, pad, adj
        ):
            o = s * (size - 1) - 2 * p + d * (k - 1) + 1 + a
            if size and o < 1:
                raise DLBookError(
                    f'{self.name}: pad={pad} is too large; the output '
                    f'size would be {o} for data shape {tuple(data_shape)}'
                )
            out.append(o if size else 0)
        weight = (c, num_filter // groups) + kernel
        return weight, (num_filter,), (n, num_filter) + tuple(out), pad

    def forward(self, xp, data, weight, bias=None):
        _, _, out_shape, pad = self._checked_shapes(data, weight, bias)
        kernel, stride, dilate, _, num_filter, groups = self._geometry()

        # The data plays the role of a convolution's output gradient.
        fast = fastpath.enabled()
        y = settings = None
        if fast:
            y, settings = self._forward_cudnn(xp, data, weight, out_shape, pad)
        if y is None and fast:
            y = conv_fast_data_grad.data_grad(
                xp,
                data,
                weight,
                stride,
                dilate,
                pad,
                out_shape,
                groups,
                conv_data_grad,
            )
        elif y is None:
            y = conv_data_grad(
                xp, data, weight, stride, dilate, pad, out_shape, groups
            )
        if bias is not None:
            y += bias.reshape(bias_shape(len(kernel)))
        # backward's path: cuDNN's settings when it ran forward, else
        # whether the fast path did
        self.saved = (data, weight, pad, bias is not None, settings or fast)
        return y

    def backward(self, xp, dy):
        data, weight, pad, has_bias, path = self.saved
        need_dx, need_dw = needed(self)
        grads = None
        if type(path) is tuple:  # cuDNN's settings (only on the fast path)
            try:
                grads = self._cudnn_grads(xp, dy, path, need_dx, need_dw)
            except cudnn.CudnnError as err:
                cudnn.fell_back(err)
        if grads is None:
            # A convolution of dy with the same weight maps back to data's
            # grid.
            dy_pad = pad_spatial(xp, dy, pad)
            grads = (self._fast_grads if path else self._reference_grads)(
                xp, dy_pad, data, weight, need_dx, need_dw
            )
        dx, dw = grads
        if not has_bias:
            return dx, dw
        db = dy.sum(axis=(0,) + tuple(range(2, dy.ndim)))
        return dx, dw, db

    def _forward_cudnn(self, xp, data, weight, out_shape, pad):
        """``(y, settings)`` of cuDNN's forward (its data gradient), or
        ``(None, None)`` where cuDNN does not run it or raised."""
        if not self._transposes_onto(data.shape, out_shape, pad):
            return None, None
        settings = self._cudnn_settings(xp, data.dtype, pad)
        if settings is None:
            return None, None
        try:
            y = cudnn.backward_data(xp, data, weight, out_shape, *settings)
        except cudnn.CudnnError as err:
            cudnn.fell_back(err)
            return None, None
        return y, settings

    def _cudnn_grads(self, xp, dy, settings, need_dx, need_dw):
        """``(dx, dw)`` by cuDNN: ``dx`` is its forward convolution of
        ``dy``, ``dw`` its weight gradient with ``dy`` as the input."""
        data, weight = self.saved[:2]
        dx = dw = None
        if need_dx:
            dx = cudnn.forward(xp, dy, weight, data.shape, *settings)
        if need_dw:
            dw = cudnn.backward_filter(xp, dy, data, weight.shape, *settings)
        return dx, dw

    def _fast_grads(self, xp, dy_pad, data, weight, need_dx, need_dw):
        """``(dx, dw)`` on the fast path: the windows of ``dy_pad`` once,
        for the convolution giving ``dx`` and for ``dw``."""
        _, stride, dilate, _, _, groups = self._geometry()
        dx, cols = conv_fast.conv_forward(
            xp, dy_pad, weight, stride, dilate, data.shape[2:], groups
        )
        dw = None
        if need_dw:
            dw = conv_fast.weight_grad(xp, cols, data, weight.shape, groups)
        return (dx if need_dx else None), dw

    def _transposes_onto(self, data_shape, out_shape, pad):
        """Whether the convolution this operator transposes maps
        ``out_shape`` back onto ``data_shape`` exactly, as cuDNN needs (an
        ``adj`` or ``target_shape`` may add rows it would not)."""
        kernel, stride, dilate = self._geometry()[:3]
        return all(
            conv_out_size(out, k, s, d, p) == size
            for size, out, k, s, d, p in zip(
                data_shape[2:], out_shape[2:], kernel, stride, dilate, pad
            )
        )

    def _reference_grads(self, xp, dy_pad, data, weight, need_dx, need_dw):
        kernel, stride, dilate, _, num_filter, groups = self._geometry()
        n, _, *spatial = data.shape
        cols = im2col(xp, dy_pad, kernel, stride, dilate, spatial, groups)
        dx = dw = None
        if need_dx:
            w_mat = weight.reshape(groups, weight.shape[0] // groups, -1)
            dx = from_channel_rows(xp, xp.matmul(w_mat, cols), n, spatial)
        if need_dw:
            x_rows = channel_rows(xp, data, groups)  # (G, Cg, N*H)
            dw = conv_weight_grad(xp, cols, x_rows, weight.shape)
        return dx, dw
