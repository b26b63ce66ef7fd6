"""Operator: Convolution, 1-D, 2-D and 3-D, with groups.

As in MXNet 1.x (src/operator/nn/convolution-inl.h).  The forward and
both gradients run on one of two paths that compute the same numbers
(``fastpath.py``): the reference path multiplies the weight into the
im2col matrix of the whole batch (``conv_reference.py``); the fast path
uses per-image matrices (``conv_fast.py``; the data gradient in
``conv_fast_data_grad.py``), or for few filters on the CPU whole padded
rows (``conv_wide_rows.py``), and on a GPU gathers a 2-D convolution's
windows with one kernel (``im2col.py``).  The fast path
also cuts a kernel whose outer taps only ever read padding (a 3x3
kernel on a 1x1 map) down to the taps that read input.  On a GPU with
cuDNN the fast path hands the three products to cuDNN instead
(``dlbook/backend/cudnn.py``), unless the operator says ``cudnn_off=True``
as MXNet's does.

In training the window matrix is kept from forward to backward, where
the weight gradient needs it again, when it is at most
:data:`KEEP_COLS_BYTES`; larger ones, and those of whole-row layers,
are rebuilt.  A fused activation (``symbol/fusion.py``) runs as the
forward's :attr:`Convolution.epilogue`.  Attribute parsing
and shape checks are shared with Deconvolution (``conv_base.py``).
"""

from math import prod

from ..backend import cudnn, on_host
from ..base import DLBookError
from . import conv_fast, conv_fast_data_grad, conv_wide_rows, fastpath, windows
from .conv_base import ConvBase, bias_shape, needed
from .conv_reference import (
    channel_rows,
    conv_data_grad,
    conv_weight_grad,
    from_channel_rows,
    im2col,
)
from .im2col import im2col_2d
from .layouts import channels_last_aware
from .op import register
from .windows import conv_out_size, pad_spatial

__all__ = ['Convolution']


#: First entry of a Convolution's ``saved`` when its forward ran with a
#: cut kernel (``Convolution._forward_cut``).
_CUT = 'cut kernel'
#: ... and when cuDNN ran it (``Convolution._forward_cudnn``).
_CUDNN = 'cudnn'
#: Last entry of ``saved`` otherwise: how the forward ran, which backward
#: follows (the reference im2col, the fast path, whole padded rows).
_REFERENCE = 'reference'
_FAST = 'fast'
_WIDE_ROWS = 'wide rows'

#: Convolution keeps its window matrix from forward to backward when it is
#: at most this large (bytes); larger ones are rebuilt in backward.
KEEP_COLS_BYTES = 32 * 2**20


def _padded_row(data_shape, pad, out_size):
    """``Ho * Wp`` of a 2-D convolution (None for other dimensions): the
    columns of one image's whole-row product."""
    if len(out_size) != 2:
        return None
    return out_size[0] * (data_shape[3] + 2 * pad[1])


@channels_last_aware(moved=(0, 1))
@register('Convolution')
class Convolution(ConvBase):
    """N-D convolution (1-D NCW, 2-D NCHW, 3-D NCDHW) of ``data`` with
    ``weight`` ``(num_filter, C/num_group, *kernel)`` plus ``bias``.

    y[n, f, o] = bias[f] + sum_{c,k} w[f, c, k] * x_pad[n, g*Cg + c, o*s + k*d]
    (``g`` the group of ``f``, ``x_pad`` = data zero-padded by ``pad``);
    output size per axis ``floor((H + 2p - d*(k-1) - 1) / s) + 1``.

    dx = col2im(w^T dy) (every window element receives dy times its
    weight); dw[f, c, k] = sum_{n, o} dy[n, f, o] * x_pad[n, c, o*s + k*d];
    dbias[f] = sum_{n, o} dy[n, f, o].
    """

    arguments = ('data', 'weight', 'bias')
    learned_inputs = ('weight', 'bias')
    #: None, or ``epilogue(xp, y_block)``: an element-wise step applied in
    #: place to the output, a block of images at a time while the block
    #: is still in cache (a fused activation, ``symbol/fusion.py``)
    epilogue = None
    defaults = {
        'kernel': (),
        'stride': (),
        'dilate': (),
        'pad': (),
        'num_filter': None,
        'num_group': 1,
        'workspace': 1024,
        'no_bias': False,
        'cudnn_tune': None,
        'cudnn_off': False,
        'layout': None,
    }

    def _shapes(self, data_shape):
        """Weight, bias and output shapes for ``data_shape`` (checked)."""
        kernel, stride, dilate, pad, num_filter, groups = self._geometry()
        self._check_data(data_shape, kernel, groups)
        n, c, *spatial = data_shape
        out = []
        for axis, (size, k, s, d, p) in enumerate(
            zip(spatial, kernel, stride, dilate, pad)
        ):
            if not size:  # unknown (shape inference)
                out.append(0)
                continue
            span = d * (k - 1) + 1
            if span > size + 2 * p:
                raise DLBookError(
                    f'{self.name}: kernel={kernel} with dilate={dilate} '
                    f'spans {span} elements along axis {axis + 2}, more '
                    f'than the padded input {size} + 2*{p}; data shape '
                    f'{tuple(data_shape)}.  Use a smaller kernel or more '
                    f'padding'
                )
            out.append(conv_out_size(size, k, s, d, p))
        weight = (num_filter, c // groups if c else 0) + kernel
        return weight, (num_filter,), (n, num_filter) + tuple(out)

    def forward(self, xp, data, weight, bias=None):
        out_shape = self._checked_shapes(data, weight, bias)[2]
        kernel, stride, dilate, pad, num_filter, groups = self._geometry()
        n, out_size = data.shape[0], out_shape[2:]
        fast = fastpath.enabled()
        if fast:
            cut = windows.live_taps(
                kernel, stride, dilate, pad, data.shape[2:], out_size
            )
            if cut is not None:
                return self._finished(
                    xp, self._forward_cut(xp, data, weight, bias, cut)
                )
            settings = self._cudnn_settings(xp, data.dtype, pad)
            if settings is not None:
                try:
                    return self._finished(
                        xp,
                        self._forward_cudnn(
                            xp, data, weight, bias, out_shape, settings
                        ),
                    )
                except cudnn.CudnnError as err:
                    cudnn.fell_back(err)

        # The weight gradient needs ``cols`` again.  Keeping it saves one
        # im2col copy in backward, but the matrix is prod(kernel) times
        # larger than the input: keep it only in training mode and when
        # small, else keep the padded input and rebuild it.
        cols_bytes = n * prod(out_size) * data.shape[1] * prod(kernel)
        keep = self.is_train and cols_bytes * data.itemsize <= KEEP_COLS_BYTES
        # few filters: whole padded rows on the CPU (conv_wide_rows.py),
        # in training too, the window matrix then not kept: their forward
        # copies KW times less, which outweighs rebuilding windows for the
        # weight gradient (LeNet-5's second layer, 6 -> 16 channels, batch
        # 512, forward and all gradients, 2 threads: 13.3 -> 11.3 ms)
        route = _FAST if fast else _REFERENCE
        if (
            fast
            and on_host(xp)
            and conv_wide_rows.forward_wins(
                weight.shape,
                stride,
                dilate,
                groups,
                _padded_row(data.shape, pad, out_size),
                self.is_train,
            )
        ):
            route, keep = _WIDE_ROWS, False
        # channels-last windows pad while they move the channels (one
        # copy), and a GPU's 2-D windows come from one kernel that pads
        # on the way: their "x_pad" is the input itself
        channels_last = route is _FAST and conv_fast.use_channels_last(
            groups, out_size
        )
        unpadded = channels_last or (
            route is _FAST and conv_fast.device_im2col(xp, kernel)
        )
        x_pad = data if unpadded else pad_spatial(xp, data, pad)
        if route is _WIDE_ROWS:
            y = conv_wide_rows.forward(
                xp, x_pad, weight, bias, out_size, self.epilogue
            )
            cols = None
        elif route is _FAST:
            y, cols = conv_fast.conv_forward(
                xp,
                x_pad,
                weight,
                stride,
                dilate,
                out_size,
                groups,
                bias,
                channels_last=channels_last,
                keep_cols=keep,
                pad=pad if unpadded else None,
                epilogue=self.epilogue,
            )
        else:
            cols = im2col(xp, x_pad, kernel, stride, dilate, out_size, groups)
            w_mat = weight.reshape(groups, num_filter // groups, -1)
            y = from_channel_rows(xp, xp.matmul(w_mat, cols), n, out_size)
            if bias is not None:
                y += bias.reshape(bias_shape(len(kernel)))
            y = self._finished(xp, y)
        if not keep:
            cols = None
        # backward rebuilds the windows from x_pad only without cols
        x_kept = x_pad if cols is None else None
        self.saved = (
            x_kept,
            cols,
            weight,
            data.shape,
            bias is not None,
            route,
        )
        return y

    def _finished(self, xp, y):
        """``y`` after :attr:`epilogue` (in place), if there is one."""
        if self.epilogue is not None:
            self.epilogue(xp, y)
        return y

    def _forward_cut(self, xp, data, weight, bias, cut):
        """The convolution with its kernel cut to the taps that read
        input (:func:`~dlbook.ops.windows.live_taps`), run by an inner
        Convolution; backward puts its weight gradient back into the
        full kernel's shape (zeros for the cut taps)."""
        index, kernel, pad = cut
        inner = Convolution(**dict(self.attrs, kernel=kernel, pad=pad))
        inner.attrs['layout'] = None  # the data is channels-first here
        inner.is_train = self.is_train
        y = inner.forward(xp, data, weight[index], bias)
        # inner.saved listed too: memory accounting and autograd's check
        # for stale inputs look for arrays in ``saved``
        self.saved = (_CUT, inner, index, weight.shape, inner.saved)
        return y

    def _forward_cudnn(self, xp, data, weight, bias, out_shape, settings):
        """The convolution by cuDNN; its bias added here (one launch)."""
        y = cudnn.forward(xp, data, weight, out_shape, *settings)
        if bias is not None:
            y += bias.reshape(bias_shape(weight.ndim - 2))
        self.saved = (_CUDNN, data, weight, bias is not None, settings)
        return y

    def _backward_cudnn(self, xp, dy):
        _, data, weight, has_bias, settings = self.saved
        need_dx, need_dw = needed(self)
        dx = dw = None
        try:
            if need_dx:
                dx = cudnn.backward_data(xp, dy, weight, data.shape, *settings)
            if need_dw:
                dw = cudnn.backward_filter(
                    xp, data, dy, weight.shape, *settings
                )
        except cudnn.CudnnError as err:
            cudnn.fell_back(err)
            # the same gradients from an im2col forward of the kept inputs
            inner = Convolution(**dict(self.attrs, cudnn_off=True))
            inner.attrs['layout'] = None  # the data is channels-first here
            inner.is_train = True
            inner.forward(xp, data, weight)
            inner.needs_input_grad = getattr(self, 'needs_input_grad', None)
            dx, dw = inner.backward(xp, dy)[:2]
        if not has_bias:
            return dx, dw
        return dx, dw, conv_fast.bias_grad(xp, dy)

    def _backward_cut(self, xp, dy):
        _, inner, index, w_shape, _ = self.saved
        inner.needs_input_grad = getattr(self, 'needs_input_grad', None)
        dx, dw_cut, *db = inner.backward(xp, dy)
        dw = None
        if dw_cut is not None:
            dw = xp.zeros(w_shape, dtype=dw_cut.dtype)
            dw[index] = dw_cut
        return (dx, dw, *db)

    def backward(self, xp, dy):
        if self.saved[0] is _CUT:
            return self._backward_cut(xp, dy)
        if self.saved[0] is _CUDNN:
            return self._backward_cudnn(xp, dy)
        x_pad, cols, weight, data_shape, has_bias, route = self.saved
        need_dx, need_dw = needed(self)
        if route is _REFERENCE:
            grads = self._reference_grads
        else:
            grads = self._fast_grads
        wide_dw = route is _WIDE_ROWS and need_dw
        dx, dw = grads(
            xp,
            dy,
            x_pad,
            cols,
            weight,
            data_shape,
            need_dx,
            need_dw and not wide_dw,
        )
        if wide_dw:
            dw = self._wide_rows_weight_grad(xp, x_pad, dy, weight.shape)
        if not has_bias:
            return dx, dw
        if route is not _REFERENCE:
            db = conv_fast.bias_grad(xp, dy)
        else:
            db = dy.sum(axis=(0,) + tuple(range(2, dy.ndim)))
        return dx, dw, db

    def _wide_rows_weight_grad(self, xp, x_pad, dy, w_shape):
        """The weight gradient after a whole-row forward, from the padded
        input ``x_pad``: small outputs (:func:`conv_fast.use_channels_last`)
        from its channels-last windows, one cache-sized block of images at
        a time, one product each; others by whole rows.  Measured, 2
        threads: LeNet-5's second layer (6 -> 16, 5x5 on 14x14, batch 512)
        4.3 against 4.8 ms; a 4 -> 8 layer on 12x12 (batch 32) is the other
        way (0.12 ms of 0.5), which the forward's gain still outweighs."""
        _, stride, dilate, _, _, groups = self._geometry()
        if conv_fast.use_channels_last(groups, dy.shape[2:]):
            return conv_fast.weight_grad_channels_last(
                xp, x_pad, dy, w_shape, stride, dilate
            )
        return conv_wide_rows.weight_grad(xp, x_pad, dy, w_shape)

    def graph_grads(self, F, inputs, dys):
        """The three gradients as recorded convolutions (one group,
        channels first): ``dx`` is the transposed convolution of ``dy``
        (``Deconvolution`` with this weight); ``dw[f, c]`` correlates the
        images with ``dy``, channels and batch swapped, so that the
        stride becomes a dilation and the dilation a stride; ``db`` sums
        ``dy``."""
        kernel, stride, dilate, pad, num_filter, groups = self._geometry()
        if groups != 1 or self.attrs['layout'] not in (
            None,
            'NCW',
            'NCHW',
            'NCDHW',
        ):
            return super().graph_grads(F, inputs, dys)  # raises, naming it
        x, weight = inputs[:2]
        dy = dys[0]
        spatial = x.shape[2:]
        out = dy.shape[2:]
        # the rows and columns the forward's windows left out at the end
        adj = tuple(
            size + 2 * p - d * (k - 1) - 1 - (o - 1) * s
            for size, o, k, s, d, p in zip(
                spatial, out, kernel, stride, dilate, pad
            )
        )
        dx = F.Deconvolution(
            dy,
            weight,
            kernel=kernel,
            stride=stride,
            dilate=dilate,
            pad=pad,
            adj=adj,
            num_filter=x.shape[1],
            no_bias=True,
        )
        swap = (1, 0) + tuple(range(2, x.ndim))
        dw = F.Convolution(
            x.transpose(swap),
            dy.transpose(swap),
            kernel=out,
            stride=dilate,
            dilate=stride,
            pad=pad,
            num_filter=num_filter,
            no_bias=True,
        )
        # (C, F, ...) with possibly more taps than the kernel: keep its own
        dw = dw.transpose(swap)
        if tuple(dw.shape[2:]) != tuple(kernel):
            dw = F.slice(
                dw,
                begin=(None, None) + (0,) * len(kernel),
                end=(None, None) + kernel,
            )
        if len(inputs) == 2:
            return dx, dw
        return dx, dw, dy.sum(axis=(0,) + tuple(range(2, dy.ndim)))

    def _reference_grads(
        self, xp, dy, x_pad, cols, weight, data_shape, need_dx, need_dw
    ):
        kernel, stride, dilate, pad, _, groups = self._geometry()
        dx = dw = None
        if need_dw:
            dy_rows = channel_rows(xp, dy, groups)  # (G, Fg, N*P)
            if cols is None:
                cols = im2col(
                    xp, x_pad, kernel, stride, dilate, dy.shape[2:], groups
                )
            dw = conv_weight_grad(xp, cols, dy_rows, weight.shape)
            del cols, dy_rows  # free them early
        if need_dx:
            dx = conv_data_grad(
                xp, dy, weight, stride, dilate, pad, data_shape, groups
            )
        return dx, dw

    def _fast_grads(
        self, xp, dy, x_pad, cols, weight, data_shape, need_dx, need_dw
    ):
        kernel, stride, dilate, pad, _, groups = self._geometry()
        dx = dw = None
        if need_dw and conv_fast.use_channels_last(groups, dy.shape[2:]):
            # cols, when kept, are the forward's channels-last rows; x_pad
            # is then the unpadded input (see forward)
            dw = conv_fast.weight_grad_channels_last(
                xp, x_pad, dy, weight.shape, stride, dilate, cols, pad
            )
        elif need_dw:
            windows = None
            if cols is None and conv_fast.device_im2col(xp, kernel):
                # x_pad is the input, not padded (see forward)
                cols = im2col_2d(
                    xp,
                    x_pad,
                    kernel,
                    stride,
                    dilate,
                    pad,
                    dy.shape[2:],
                    False,
                    groups,
                )
            elif cols is None:
                windows = conv_fast.window_rows(
                    xp, x_pad, kernel, stride, dilate, dy.shape[2:]
                )
            dw = conv_fast.weight_grad(
                xp, cols, dy, weight.shape, groups, windows
            )
            del cols
        if need_dx:
            dx = conv_fast_data_grad.data_grad(
                xp,
                dy,
                weight,
                stride,
                dilate,
                pad,
                data_shape,
                groups,
                conv_data_grad,
            )
        return dx, dw
