"""Operator: Pooling (max, avg, sum and Lp; 1-D, 2-D and 3-D).

A pooling window reads ``prod(kernel)`` input elements per output.  Rather
than copying the windows out (as convolution's im2col does), pooling loops
over the kernel offsets: for offset ``k`` the elements every output reads
form one strided slice of the padded input (``window_slices``), so the
forward is ``prod(kernel)`` whole-array ``maximum``/``add`` operations and
the backward the same number of slice-adds: the reference path.  The fast
path (``pool_fast.py``) takes max pooling one spatial axis at a time, and
writes the gradient of windows that tile the input instead of adding it.
On a GPU 2-D pooling is one kernel each way (``pool2d.py``).  Global
pooling reduces over the spatial axes directly.
"""

from math import prod

from ..backend import on_host
from ..base import DLBookError
from . import fastpath, pool2d, pool_fast
from .layouts import channels_last_aware
from .op import Op, register
from .pool_windows import add_window_grads, counts, loop_forward
from .windows import (
    check_layout,
    crop_spatial,
    kernel_offsets,
    pad_spatial,
    parse_bool,
    parse_int,
    parse_tuple,
    spatial_tuple,
    window_slices,
)

__all__ = ['Pooling']

POOL_TYPES = ('max', 'avg', 'sum', 'lp')
_POOL2D = object()  # marks ``saved`` of the GPU's 2-D kernels
CONVENTIONS = ('valid', 'full', 'same')


@channels_last_aware(moved=(0,))
@register('Pooling')
class Pooling(Op):
    """Pool each window of ``kernel`` elements (stride ``stride``, padding
    ``pad``) into one value, per channel.

    max: y = max over the window of the elements above the dtype's
    lowest finite value, starting from that value (MXNet's rule: NaN and
    -inf never win, padding never counts, and a window with nothing
    above it gives the lowest value, -3.4028235e38 in float32);
    avg: y = sum / count (count includes padding unless
    ``count_include_pad=False``); sum: y = sum; lp: y = (sum x^p)^(1/p).
    Output size per axis: valid ``floor((H + 2p - k)/s) + 1``, full
    ``ceil((H + 2p - k)/s) + 1``; ``global_pool`` pools all of H, W.

    max: dx = dy routed to the first maximum of each window (row-major;
    a window at the lowest value: its first position, as MXNet's oneDNN
    kernels route it in float32);
    avg: dx += dy / count on every window element; sum: dx += dy;
    lp: dx += dy * (x / y)^(p-1).
    """

    defaults = {
        'kernel': (),
        'pool_type': 'max',
        'global_pool': False,
        'cudnn_off': False,
        'pooling_convention': 'valid',
        'stride': (),
        'pad': (),
        'p_value': None,
        'count_include_pad': None,
        'layout': None,
    }

    # -- attributes and shapes -------------------------------------------
    def _options(self):
        """pool_type, global_pool, p, count_include_pad, convention."""
        name = self.name
        pool_type = str(self.attrs['pool_type'])
        if pool_type not in POOL_TYPES:
            raise DLBookError(
                f'{name}: pool_type={pool_type!r} is not one of {POOL_TYPES}'
            )
        convention = str(self.attrs['pooling_convention'])
        if convention not in CONVENTIONS:
            raise DLBookError(
                f'{name}: pooling_convention={convention!r} '
                f'is not one of {CONVENTIONS}'
            )
        p = None
        if pool_type == 'lp':
            if self.attrs['p_value'] in (None, 'None'):
                raise DLBookError(
                    f'{name}: pool_type=\'lp\' needs p_value (1, 2 or 3)'
                )
            p = parse_int(self.attrs['p_value'], 'p_value', name)
            if p not in (1, 2, 3):
                raise DLBookError(
                    f'{name}: p_value={p} is not supported; use 1, 2 or 3'
                )
        include = self.attrs['count_include_pad']
        include = True if include in (None, 'None') else parse_bool(include)
        return (
            pool_type,
            parse_bool(self.attrs['global_pool']),
            p,
            include,
            convention,
        )

    def _geometry(self, shape):
        """kernel, stride, pad before/after and output size for ``shape``.

        Padding after may exceed ``pad``: with the 'full' (ceil)
        convention the last window can run past the padded input.
        """
        name = self.name
        pool_type, global_pool, _, _, convention = self._options()
        if not 3 <= len(shape) <= 5:
            raise DLBookError(
                f'{name}: data must be 3-D (N, C, W), 4-D '
                f'(N, C, H, W) or 5-D (N, C, D, H, W); got '
                f'data shape {tuple(shape)}'
            )
        spatial = tuple(shape[2:])
        nd = len(spatial)
        check_layout(self.attrs['layout'], nd, name)
        if global_pool:
            ones = (1,) * nd
            return spatial, ones, (0,) * nd, (0,) * nd, ones
        kernel = parse_tuple(self.attrs['kernel'], 'kernel', name)
        if len(kernel) != nd:
            raise DLBookError(
                f'{name}: kernel={kernel} needs {nd} entries '
                f'for data shape {tuple(shape)} (or set '
                f'global_pool=True)'
            )
        stride = spatial_tuple(self.attrs['stride'], nd, 1, 'stride', name)
        pad = spatial_tuple(self.attrs['pad'], nd, 0, 'pad', name)
        if min(kernel) < 1 or min(stride) < 1 or min(pad) < 0:
            raise DLBookError(
                f'{name}: kernel={kernel} and stride={stride} '
                f'must be positive, pad={pad} non-negative'
            )
        if convention == 'same' and (nd != 1 or any(pad)):
            raise DLBookError(
                f'{name}: pooling_convention=\'same\' supports '
                f'only 1-D pooling without pad'
            )
        before, after, out = [], [], []
        for axis, (size, k, s, p) in enumerate(
            zip(spatial, kernel, stride, pad)
        ):
            if convention == 'same':
                o = -(-size // s)
                total = max((o - 1) * s + k - size, 0)
                before.append(total // 2)
                after.append(total - total // 2)
                out.append(o)
                continue
            if size and k > size + 2 * p:
                raise DLBookError(
                    f'{name}: kernel={kernel} is larger than the padded '
                    f'input along axis {axis + 2} ({size} + 2*{p}); data '
                    f'shape {tuple(shape)}'
                )
            span = size + 2 * p - k
            o = span // s + 1 if convention == 'valid' else -(-span // s) + 1
            before.append(p)
            # Room for the last window, which 'full' may push past the end.
            after.append(p + max(0, (o - 1) * s + k - (size + 2 * p)))
            out.append(o if size else 0)
        return kernel, stride, tuple(before), tuple(after), tuple(out)

    def infer_shape(self, data_shape=None):
        """Output shape ``(N, C, *out)`` from the data shape."""
        if data_shape is None:
            return [None], [None], []
        out = self._geometry(tuple(data_shape))[4]
        return [tuple(data_shape)], [tuple(data_shape[:2]) + out], []

    # -- forward and backward ----------------------------------------------
    def forward(self, xp, data):
        pool_type, global_pool, p, include, _ = self._options()
        kernel, stride, before, after, out = self._geometry(data.shape)
        if global_pool:
            axes = tuple(range(2, data.ndim))
            keep = data if pool_type in ('max', 'lp') else None
            if pool_type == 'max':
                keep, y = _max_keys(
                    xp, data, lambda x: x.max(axis=axes, keepdims=True)
                )
                self.keyed = keep is not data
            else:
                y = self._global_forward(xp, data, pool_type, p)
            self.saved = (keep, data.shape, y)
            return y
        spatial = data.shape[2:]
        # Max pooling ignores padding: pad with the lowest value.
        fill = _lowest(xp, data.dtype) if pool_type == 'max' else 0
        if len(kernel) == 2 and pool_type != 'lp' and not on_host(xp):
            # one kernel each way on a GPU, no padded copy
            geometry = (fill, kernel, stride, before, out, pool_type, include)
            y = pool2d.forward(xp, data, *geometry)
            self.saved = (_POOL2D, data, y, geometry)
            self.keyed = True  # the kernels compare keys themselves
            return y
        x_pad = pad_spatial(xp, data, before, after, value=fill)

        # the fast path: max pooling one axis at a time, and sum or
        # average pooling whose windows tile the input
        fast = fastpath.enabled() and (
            pool_type == 'max'
            or (
                pool_type != 'lp' and pool_fast.non_overlapping(kernel, stride)
            )
        )

        def pool(x):
            if fast and pool_type == 'max':
                return pool_fast.max_forward(xp, x, kernel, stride, out)
            if fast:
                return pool_fast.forward(xp, x, kernel, out)
            return loop_forward(xp, x, kernel, stride, out, pool_type, p)

        if pool_type == 'max':
            keys, y = _max_keys(xp, x_pad, pool)
            self.keyed, x_pad = keys is not x_pad, keys
        else:
            y = pool(x_pad)
        divisor = None
        if pool_type == 'avg':
            divisor = counts(
                xp, spatial, kernel, stride, before, out, include, data.dtype
            )
            y /= divisor
        elif pool_type == 'lp':
            y = _root(xp, y, p)
        # avg and sum gradients do not depend on the input values.
        keep = x_pad if pool_type in ('max', 'lp') else None
        self.saved = (keep, x_pad.shape, y, divisor, data.shape, fast)
        return y

    def graph_grads(self, F, inputs, dys):
        """For windows that tile the input (``kernel == stride``, no
        padding, or global pooling): ``dy`` spread over each window, to
        every element for 'avg' (divided by the window's size) and 'sum',
        and for 'max' to the elements equal to the window's maximum (all
        of them when several tie, where ``backward`` picks the first)."""
        (x,), (dy,) = inputs, dys
        pool_type, global_pool, _, _, _ = self._options()
        kernel, stride, before, after, out = self._geometry(x.shape)
        tiles = (
            pool_type in ('max', 'avg', 'sum')
            and (global_pool or tuple(stride) == tuple(kernel))
            and not any(before)
            and not any(after)
            and all(o * k == n for o, k, n in zip(out, kernel, x.shape[2:]))
        )
        if not tiles:
            return super().graph_grads(F, inputs, dys)  # raises, naming it
        n, c = x.shape[:2]
        grid = (n, c) + sum(((o, 1) for o in out), ())
        full = (n, c) + sum(((o, k) for o, k in zip(out, kernel)), ())

        def spread(t):
            return F.broadcast_to(t.reshape(grid), full).reshape(x.shape)

        dx = spread(dy)
        if pool_type == 'avg':
            return (dx / prod(kernel),)
        if pool_type == 'sum':
            return (dx,)
        return (dx * (x == spread(self.output_again(F, x))),)

    def backward(self, xp, dy):
        pool_type, global_pool, p, _, _ = self._options()
        if global_pool:
            data, shape, y = self.saved
            return self._global_backward(xp, data, shape, y, dy, pool_type, p)
        if self.saved[0] is _POOL2D:
            _, data, y, geometry = self.saved
            return pool2d.backward(xp, data, y, dy, *geometry)
        x_pad, padded_shape, y, divisor, data_shape, fast = self.saved
        kernel, stride, before, _, out = self._geometry(data_shape)
        ones = (1,) * len(kernel)

        if pool_type == 'avg':
            dy = dy / divisor
        if fast:  # max, or non-overlapping avg or sum
            if pool_type == 'max':
                dx_pad = pool_fast.max_backward(
                    xp, x_pad, y, dy, kernel, stride, out
                )
            else:
                dx_pad = pool_fast.spread_backward(
                    xp, dy, padded_shape, kernel, out
                )
            return crop_spatial(dx_pad, before, data_shape[2:])
        dx_pad = xp.zeros(padded_shape, dtype=dy.dtype)
        offsets = [
            window_slices(offset, stride, ones, out)
            for offset in kernel_offsets(kernel)
        ]

        def images(start, stop):
            """Overlapping windows of images start..stop-1."""
            part = slice(start, stop)
            x_part = None if x_pad is None else x_pad[part]  # avg: None
            add_window_grads(
                xp,
                dx_pad[part],
                x_part,
                y[part],
                dy[part],
                offsets,
                pool_type,
                p,
            )

        if fastpath.enabled():  # images shared by a few threads
            pool_fast.split_images(xp, images, dx_pad)
        else:
            images(0, dx_pad.shape[0])
        return crop_spatial(dx_pad, before, data_shape[2:])

    # -- global pooling: reduce over every spatial axis ---------------------
    @staticmethod
    def _global_forward(xp, x, pool_type, p):
        axes = tuple(range(2, x.ndim))
        if pool_type == 'avg':
            return x.mean(axis=axes, keepdims=True)
        if pool_type == 'sum':
            return x.sum(axis=axes, keepdims=True)
        return _root(xp, (x**p).sum(axis=axes, keepdims=True), p)

    @staticmethod
    def _global_backward(xp, x, shape, y, dy, pool_type, p):
        if pool_type == 'avg':
            return xp.broadcast_to(dy / prod(shape[2:]), shape).copy()
        if pool_type == 'sum' or p == 1:
            return xp.broadcast_to(dy, shape).copy()
        if pool_type == 'max':
            # One-hot of the first maximum of each (n, c) plane.
            flat = x.reshape(x.shape[:2] + (-1,))
            first = flat.argmax(axis=-1)[..., None]
            onehot = xp.arange(flat.shape[-1]) == first
            dx = xp.where(onehot, dy.reshape(first.shape), 0)
            return dx.astype(dy.dtype).reshape(shape)
        return dy * (x / y) ** (p - 1)


def _root(xp, total, p):
    """The p-th root of Lp pooling (p = 1, 2, 3), as MXNet's a_root_p."""
    if p == 1:
        return total
    if p == 2:
        return xp.sqrt(total)
    return xp.cbrt(total)


def _lowest(xp, dtype):
    """The dtype's lowest finite value: where MXNet's max pooling starts
    each window (and what padding holds)."""
    if xp.dtype(dtype).kind == 'f':
        return float(xp.finfo(dtype).min)
    return int(xp.iinfo(dtype).min)


def _max_keys(xp, x, pool):
    """``(keys, pool(keys))``: max pooling by MXNet's rule.

    MXNet starts each window at the dtype's lowest finite value and keeps
    an element only if it is greater, so NaN and -inf never win and a
    window with nothing above that value gives the value itself.  That is
    the plain maximum of the *keys* ``fmax(x, lowest)`` (NaN and -inf
    become ``lowest``), and routing the gradient to the first key equal
    to the maximum sends a window at ``lowest`` to its first position,
    as MXNet's oneDNN kernels do.

    ``pool(x)`` gives, per window, the maximum of its elements that are
    not NaN, or NaN (``fmax`` passes give NaN for a window of NaN only;
    the compiled loops keep a NaN that opens a window).  Where that is
    above ``lowest`` it is the maximum of the keys, and the first
    element equal to it is the first key equal to it (NaN equals
    nothing), so the input can stand for its keys.  One look at the
    (small) output tells whether every window is such; only otherwise
    are the keys made and the pooling run again: rarely, as it takes a
    NaN, a window of -inf only or the lowest value itself.  On a GPU
    that look would wait for the device, so the keys are always made
    (one element-wise kernel).  Integers are their own keys.
    """
    if xp.dtype(x.dtype).kind != 'f':
        return x, pool(x)
    if on_host(xp):
        y = pool(x)
        if not _at_lowest(xp, y):
            return x, y
    keys = xp.fmax(x, x.dtype.type(_lowest(xp, x.dtype)))
    return keys, pool(keys)


def _at_lowest(xp, y):
    """Whether the float host array ``y`` holds NaN, its dtype's lowest
    finite value or less: the max pooling outputs for which the input
    cannot stand for its keys (:func:`_max_keys`)."""
    if xp.dtype(y.dtype).kind != 'f' or y.size == 0:
        return False
    return not y.min() > y.dtype.type(_lowest(xp, y.dtype))
