"""Operators: Convolution and Deconvolution (transposed convolution).

Both are built from three array routines written once:

* :func:`im2col` gathers every input window into the columns of one
  matrix, so that a convolution is a single matrix product (BLAS);
* :func:`conv_data_grad` runs that product backwards and scatters the
  result onto the input grid ("col2im");
* :func:`conv_weight_grad` correlates the output gradient with the input
  windows.

``Convolution`` uses them as forward, input gradient and weight gradient.
``Deconvolution`` *is* the input gradient of a convolution, so its forward
is :func:`conv_data_grad` and its backward uses the convolution forward:
the same code read in the other direction.

Layout of the matrices.  Rows are (channel, kernel offset) pairs; columns
are (batch item, output position) pairs::

    cols[g, (c, k), (n, o)] = x_pad[n, g*Cg + c, o*stride + k*dilate]

so that with groups ``G`` (``Cg = C/G`` input and ``Fg = F/G`` output
channels per group) the convolution is ``matmul(w[G, Fg, Cg*K], cols)``,
one large product per group instead of one small product per image.
"""

from math import prod

from ..base import DLBookError
from . import conv_fast, fastpath
from .im2col import im2col_2d
from .layouts import channels_last_aware
from .op import Op, register
from .windows import (
    check_layout,
    conv_out_size,
    kernel_offsets,
    pad_spatial,
    parse_bool,
    parse_int,
    parse_tuple,
    sliding_windows,
    spatial_tuple,
    window_slices,
)

__all__ = [
    'Convolution',
    'Deconvolution',
    'im2col',
    'conv_data_grad',
    'conv_weight_grad',
]


#: First entry of a Convolution's ``saved`` when its forward ran with a
#: cut kernel (``Convolution._forward_cut``).
_CUT = 'cut kernel'

#: Convolution keeps its window matrix from forward to backward when it is
#: at most this large (bytes); larger ones are rebuilt in backward.
KEEP_COLS_BYTES = 32 * 2**20


# -- the shared array routines -------------------------------------------


def channel_rows(xp, a, groups):
    """``(N, C, *S)`` -> ``(G, C/G, N*prod(S))``: channels become rows.

    This is the layout of an output (or output gradient) in the matrix
    products below.  One copy (a transpose), the size of ``a``.
    """
    n, c = a.shape[:2]
    return xp.moveaxis(a, 1, 0).reshape(groups, c // groups, -1)


def from_channel_rows(xp, rows, batch, spatial):
    """Inverse of :func:`channel_rows`: ``(G, C/G, N*P)`` -> ``(N, C, *S)``.

    Returns a C-contiguous array, as the next layer expects.
    """
    channels = rows.shape[0] * rows.shape[1]
    a = rows.reshape((channels, batch) + tuple(spatial))
    return xp.ascontiguousarray(xp.moveaxis(a, 0, 1))


def im2col(xp, x_pad, kernel, stride, dilate, out_size, groups):
    """Copy all windows of ``x_pad`` into a ``(G, Cg*K, N*P)`` matrix.

    ``cols[g, (c, k), (n, o)] = x_pad[n, g*Cg + c, o*s + k*d]`` with
    ``K = prod(kernel)`` and ``P = prod(out_size)``.  The window view is
    free (strides only); the reshape makes the one copy ("im2col").
    """
    n, c = x_pad.shape[:2]
    nd = len(kernel)
    windows = sliding_windows(xp, x_pad, kernel, stride, dilate, out_size)
    # (N, C, *O, *K) -> (C, *K, N, *O): rows (c, k), columns (n, o).
    spatial_out = tuple(range(2, 2 + nd))
    kernel_axes = tuple(range(2 + nd, 2 + 2 * nd))
    windows = windows.transpose((1,) + kernel_axes + (0,) + spatial_out)
    return windows.reshape(
        groups, (c // groups) * prod(kernel), n * prod(out_size)
    )


def conv_data_grad(xp, dy, w, stride, dilate, pad, data_shape, groups):
    """Input gradient of a convolution ("col2im"); Deconvolution forward.

    ``dx[n, c, i] = sum over f, o, k with o*s + k*d - p = i of
    dy[n, f, o] * w[f, c, k]``.

    dy : ``(N, F, *out)`` output gradient
    w : ``(F, Cg, *kernel)`` convolution weight
    data_shape : ``(N, C, *spatial)`` of the convolution input

    First one matrix product gives, for every window, the gradient of each
    of its elements (``dcols``).  Windows overlap, so those values are
    then *added* back onto the input grid: one strided slice-add per
    kernel offset (``K`` iterations, each a whole-array operation).  The
    batch axis goes last here: each slice-add then moves long contiguous
    runs (a whole output row times the batch), which makes the loop about
    a third faster than with the batch first.
    """
    n, f = dy.shape[:2]
    out_size = tuple(dy.shape[2:])
    kernel = tuple(w.shape[2:])
    c = data_shape[1]
    spatial = tuple(data_shape[2:])
    # (N, F, *O) -> (G, Fg, P*N): rows f, columns (o, n).
    dy_rows = xp.moveaxis(dy, 0, -1).reshape(groups, f // groups, -1)
    w_t = xp.ascontiguousarray(
        w.reshape(groups, f // groups, -1).transpose(0, 2, 1)
    )  # (G, Cg*K, Fg)
    dcols = xp.matmul(w_t, dy_rows)  # (G, Cg*K, P*N)
    dcols = dcols.reshape((c,) + kernel + out_size + (n,))
    padded = tuple(size + 2 * p for size, p in zip(spatial, pad))
    dx_pad = xp.zeros((c,) + padded + (n,), dtype=dcols.dtype)
    for offset in kernel_offsets(kernel):
        where = window_slices(offset, stride, dilate, out_size, lead=1)
        view = dx_pad[where]  # added in place: no copy back
        view += dcols[(slice(None),) + offset]
    # crop the padding, then (C, *S, N) -> (N, C, *S)
    dx = dx_pad[
        (slice(None),)
        + tuple(slice(p, p + size) for p, size in zip(pad, spatial))
    ]
    return xp.ascontiguousarray(xp.moveaxis(dx, -1, 0))


def conv_weight_grad(xp, cols, dy_rows, w_shape):
    """Weight gradient: ``dw[f, c, k] = sum_{n, o} dy[n, f, o] *
    x_pad[n, c, o*s + k*d]``, i.e. ``dy_rows @ cols.T`` per group."""
    dw = xp.matmul(dy_rows, cols.transpose(0, 2, 1))  # (G, Fg, Cg*K)
    return dw.reshape(w_shape)


def _bias_shape(nd):
    """Bias ``(F,)`` broadcast over ``(N, F, *spatial)``."""
    return (1, -1) + (1,) * nd


def _known(shape):
    """A shape is known when given and free of zeros (MXNet: 0 = unknown)."""
    return shape is not None and all(d > 0 for d in shape)


# -- shared attribute handling ----------------------------------------------


#: The attributes :meth:`_ConvBase._geometry` reads, and its results by
#: their values.
_GEOMETRY_ATTRIBUTES = (
    'kernel',
    'stride',
    'dilate',
    'pad',
    'num_filter',
    'num_group',
    'layout',
)
_GEOMETRIES = {}


class _ConvBase(Op):
    """Attribute parsing, argument lists and checks shared by both ops."""

    skips_unneeded_grads = True  # the data gradient of a first layer

    same_dtype = True

    def list_arguments(self):
        if parse_bool(self.attrs['no_bias']):
            return ('data', 'weight')
        return ('data', 'weight', 'bias')

    def _geometry(self):
        """Parse the attributes into tuples, with MXNet's defaults.

        Empty ``stride``/``dilate``/``pad`` mean 1/1/0 on every axis.
        Every layer call makes a new operator with the same attributes,
        so the parsed result is remembered by the attribute values.
        """
        key = (self.name,) + tuple(
            self.attrs[name] for name in _GEOMETRY_ATTRIBUTES
        )
        try:
            geometry = _GEOMETRIES.get(key)
        except TypeError:  # an unhashable attribute value (a list)
            return self._parse_geometry()
        if geometry is None:
            geometry = self._parse_geometry()  # raises on bad attributes
            if len(_GEOMETRIES) < 4096:
                _GEOMETRIES[key] = geometry
        return geometry

    def _parse_geometry(self):
        name = self.name
        kernel = parse_tuple(self.attrs['kernel'], 'kernel', name)
        if not kernel:
            raise DLBookError(
                f'{name}: the attribute kernel is required, e.g. kernel=(3, 3)'
            )
        nd = len(kernel)
        if nd not in (1, 2, 3):
            raise DLBookError(
                f'{name}: kernel={kernel} must have 1, 2 or '
                f'3 entries (1-D, 2-D or 3-D convolution)'
            )
        stride = spatial_tuple(self.attrs['stride'], nd, 1, 'stride', name)
        dilate = spatial_tuple(self.attrs['dilate'], nd, 1, 'dilate', name)
        pad = spatial_tuple(self.attrs['pad'], nd, 0, 'pad', name)
        if self.attrs['num_filter'] is None:
            raise DLBookError(
                f'{name}: the attribute num_filter is '
                f'required (number of output channels)'
            )
        num_filter = parse_int(self.attrs['num_filter'], 'num_filter', name)
        groups = parse_int(self.attrs['num_group'], 'num_group', name)
        for label, values in (
            ('kernel', kernel),
            ('stride', stride),
            ('dilate', dilate),
        ):
            if min(values) < 1:
                raise DLBookError(f'{name}: {label}={values} must be positive')
        if min(pad) < 0:
            raise DLBookError(f'{name}: pad={pad} must be non-negative')
        if num_filter < 1 or groups < 1 or num_filter % groups:
            raise DLBookError(
                f'{name}: num_filter={num_filter} must be a '
                f'positive multiple of num_group={groups}'
            )
        check_layout(self.attrs['layout'], nd, name)
        return kernel, stride, dilate, pad, num_filter, groups

    def _check_data(self, shape, kernel, groups):
        """Rank and channel checks on the data shape."""
        nd = len(kernel)
        if len(shape) != nd + 2:
            axes = {1: '(N, C, W)', 2: '(N, C, H, W)', 3: '(N, C, D, H, W)'}
            raise DLBookError(
                f'{self.name}: data must be {nd + 2}-D {axes[nd]} for the '
                f'{nd}-D kernel={kernel}; got data shape {tuple(shape)}'
            )
        if shape[1] and shape[1] % groups:
            raise DLBookError(
                f'{self.name}: data shape {tuple(shape)} has {shape[1]} '
                f'channels, not divisible by num_group={groups}'
            )

    def _check_param(self, label, got, want, data_shape):
        if got is not None and tuple(got) != tuple(want):
            raise DLBookError(
                f'{self.name}: {label} shape {tuple(got)} does not match '
                f'data shape {tuple(data_shape)} and the attributes '
                f'{self._attr_text()}; expected {tuple(want)}'
            )

    def _attr_text(self):
        keys = ('kernel', 'stride', 'dilate', 'pad', 'num_filter', 'num_group')
        return ', '.join(f'{k}={self.attrs[k]}' for k in keys)


# -- Convolution ----------------------------------------------------------


@channels_last_aware(moved=(0, 1))
@register('Convolution')
class Convolution(_ConvBase):
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

    def infer_shape(self, *in_shapes):
        """Fill ``weight`` and ``bias`` shapes and the output shape from the
        data shape (Gluon deferred initialisation, ``sym.infer_shape``)."""
        shapes = list(in_shapes) + [None] * (
            len(self.list_inputs()) - len(in_shapes)
        )
        data = shapes[0]
        if data is None:
            return shapes, [None], []
        data = shapes[0] = tuple(data)
        weight, bias, out = self._shapes(data)
        if data[1]:
            self._check_param(
                'weight',
                shapes[1] if _known(shapes[1]) else None,
                weight,
                data,
            )
            shapes[1] = weight
        if len(shapes) > 2:
            self._check_param(
                'bias', shapes[2] if _known(shapes[2]) else None, bias, data
            )
            shapes[2] = bias
        return shapes, [out], []

    def forward(self, xp, data, weight, bias=None):
        w_shape, b_shape, out_shape = self._shapes(data.shape)
        self._check_param('weight', weight.shape, w_shape, data.shape)
        if bias is not None:
            self._check_param('bias', bias.shape, b_shape, data.shape)
        kernel, stride, dilate, pad, num_filter, groups = self._geometry()
        n, out_size = data.shape[0], out_shape[2:]
        fast = fastpath.enabled()
        if fast:
            cut = conv_fast.live_taps(
                kernel, stride, dilate, pad, data.shape[2:], out_size
            )
            if cut is not None:
                return self._forward_cut(xp, data, weight, bias, cut)

        # channels-last windows pad while they move the channels (one
        # copy), and a GPU's 2-D windows come from one kernel that pads
        # on the way: their "x_pad" is the input itself
        channels_last = fast and conv_fast.use_channels_last(groups, out_size)
        unpadded = channels_last or (
            fast and conv_fast.device_im2col(xp, kernel)
        )
        x_pad = data if unpadded else pad_spatial(xp, data, pad)
        # The weight gradient needs ``cols`` again.  Keeping it saves one
        # im2col copy in backward, but the matrix is prod(kernel) times
        # larger than the input: keep it only in training mode and when
        # small, else keep the padded input and rebuild it.
        cols_bytes = n * prod(out_size) * data.shape[1] * prod(kernel)
        keep = self.is_train and cols_bytes * data.itemsize <= KEEP_COLS_BYTES
        if fast:
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
            )
        else:
            cols = im2col(xp, x_pad, kernel, stride, dilate, out_size, groups)
            w_mat = weight.reshape(groups, num_filter // groups, -1)
            y = from_channel_rows(xp, xp.matmul(w_mat, cols), n, out_size)
            if bias is not None:
                y += bias.reshape(_bias_shape(len(kernel)))
        if not keep:
            cols = None
        # backward rebuilds the windows from x_pad only without cols
        x_kept = x_pad if cols is None else None
        self.saved = (x_kept, cols, weight, data.shape, bias is not None, fast)
        return y

    def _forward_cut(self, xp, data, weight, bias, cut):
        """The convolution with its kernel cut to the taps that read
        input (:func:`~dlbook.ops.conv_fast.live_taps`), run by an inner
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
        x_pad, cols, weight, data_shape, has_bias, fast = self.saved
        need_dx, need_dw = _needed(self)
        grads = self._fast_grads if fast else self._reference_grads
        dx, dw = grads(
            xp, dy, x_pad, cols, weight, data_shape, need_dx, need_dw
        )
        if not has_bias:
            return dx, dw
        if fast:
            db = conv_fast.bias_grad(xp, dy)
        else:
            db = dy.sum(axis=(0,) + tuple(range(2, dy.ndim)))
        return dx, dw, db

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
            dx = conv_fast.data_grad(
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


def _needed(op):
    """Whether the data and weight gradients are wanted.

    A front end may set ``op.needs_input_grad`` (one bool per input, as in
    PyTorch) before ``backward``; the data gradient of a first layer,
    whose input is the images, is then skipped.  Unset means all.
    """
    needs = getattr(op, 'needs_input_grad', None)
    if needs is None:
        return True, True
    return bool(needs[0]), bool(needs[1])


# -- Deconvolution ---------------------------------------------------------


@channels_last_aware(moved=(0, 1))
@register('Deconvolution')
class Deconvolution(_ConvBase):
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

    def infer_shape(self, *in_shapes):
        """Fill ``weight`` ``(C, num_filter/num_group, *kernel)``, ``bias``
        and the output shape from the data shape."""
        shapes = list(in_shapes) + [None] * (
            len(self.list_inputs()) - len(in_shapes)
        )
        data = shapes[0]
        if data is None:
            return shapes, [None], []
        data = shapes[0] = tuple(data)
        weight, bias, out, _ = self._shapes(data)
        if data[1]:
            self._check_param(
                'weight',
                shapes[1] if _known(shapes[1]) else None,
                weight,
                data,
            )
            shapes[1] = weight
        if len(shapes) > 2:
            self._check_param(
                'bias', shapes[2] if _known(shapes[2]) else None, bias, data
            )
            shapes[2] = bias
        return shapes, [out], []

    def forward(self, xp, data, weight, bias=None):
        w_shape, b_shape, out_shape, pad = self._shapes(data.shape)
        self._check_param('weight', weight.shape, w_shape, data.shape)
        if bias is not None:
            self._check_param('bias', bias.shape, b_shape, data.shape)
        kernel, stride, dilate, _, num_filter, groups = self._geometry()

        # The data plays the role of a convolution's output gradient.
        fast = fastpath.enabled()
        if fast:
            y = conv_fast.data_grad(
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
        else:
            y = conv_data_grad(
                xp, data, weight, stride, dilate, pad, out_shape, groups
            )
        if bias is not None:
            y += bias.reshape(_bias_shape(len(kernel)))
        self.saved = (data, weight, pad, bias is not None, fast)
        return y

    def backward(self, xp, dy):
        data, weight, pad, has_bias, fast = self.saved
        kernel, stride, dilate, _, num_filter, groups = self._geometry()
        n, _, *spatial = data.shape

        need_dx, need_dw = _needed(self)

        # A convolution of dy with the same weight maps back to data's grid.
        dy_pad = pad_spatial(xp, dy, pad)
        if fast:
            dx, cols = conv_fast.conv_forward(
                xp, dy_pad, weight, stride, dilate, spatial, groups
            )
            dw = (
                conv_fast.weight_grad(xp, cols, data, weight.shape, groups)
                if need_dw
                else None
            )
            dx = dx if need_dx else None
        else:
            dx, dw = self._reference_grads(
                xp, dy_pad, data, weight, need_dx, need_dw
            )
        if not has_bias:
            return dx, dw
        db = dy.sum(axis=(0,) + tuple(range(2, dy.ndim)))
        return dx, dw, db

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
