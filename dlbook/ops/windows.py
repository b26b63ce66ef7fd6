"""Sliding windows: the shared machinery of convolution and pooling.

A convolution or pooling layer looks at the input through a window of
``kernel`` elements that slides by ``stride`` and samples every
``dilate``-th element.  Along one spatial axis, output position ``o`` and
kernel offset ``k`` read padded input position::

    i = o * stride + k * dilate

Two views of that one formula do all the work:

* :func:`sliding_windows` is the *gather* view: a zero-copy
  ``as_strided`` view of shape ``(N, C, *out, *kernel)`` whose element
  ``[n, c, o, k]`` is ``x_pad[n, c, o * s + k * d]``.  Copying it into a
  matrix is "im2col"; one matrix product then computes a convolution.
* :func:`window_slices` is the *scatter* view: for one kernel offset ``k``
  the output positions read ``x_pad[k*d : k*d + s*(out-1) + 1 : s]``, a
  plain strided slice.  Looping over the (few) kernel offsets and adding
  into those slices undoes a gather ("col2im"), which is how gradients
  flow back to the input; pooling uses the same loop for its forward.

Both work unchanged with NumPy and CuPy.  This module also parses the
tuple attributes (``kernel``, ``stride``, ``dilate``, ``pad``) the way
MXNet does, and computes output sizes.
"""

import ast
import functools
import itertools

from ..backend import on_host
from ..base import DLBookError
from .kernels import Elementwise

__all__ = [
    'parse_tuple',
    'parse_int',
    'parse_bool',
    'spatial_tuple',
    'conv_out_size',
    'pad_spatial',
    'pad_channels_last',
    'crop_spatial',
    'sliding_windows',
    'window_slices',
    'kernel_offsets',
    'check_layout',
    'live_taps',
]

LAYOUTS = {1: 'NCW', 2: 'NCHW', 3: 'NCDHW'}


# -- attribute parsing ---------------------------------------------------
# Attributes arrive as Python values from ``nd.*`` and Gluon, and as
# strings ('(3, 3)', 'True', 'None') from symbol JSON files.


def _literal(value):
    if isinstance(value, str):
        return _parse_text(value)
    return value


@functools.lru_cache(maxsize=1024)
def _parse_text(value):
    # Cached: a hybridized graph parses the same few strings ('(5, 5)',
    # 'True') at every step, and literal_eval compiles each one.
    text = value.strip()
    if text in ('None', ''):
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def parse_tuple(value, name, op_name):
    """A shape-like attribute as a tuple of ints (``()`` when empty)."""
    value = _literal(value)
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        try:
            return tuple(int(v) for v in value)
        except (TypeError, ValueError):
            pass
    else:
        try:
            return (int(value),)
        except (TypeError, ValueError):
            pass
    raise DLBookError(
        f'{op_name}: attribute {name}={value!r} is not a tuple of integers'
    )


def parse_int(value, name, op_name):
    value = _literal(value)
    try:
        return int(value)
    except (TypeError, ValueError):
        raise DLBookError(
            f'{op_name}: attribute {name}={value!r} is not an integer'
        ) from None


def parse_bool(value):
    value = _literal(value)
    if isinstance(value, str):
        return value.lower() in ('true', '1')
    return bool(value)


def spatial_tuple(value, ndim, default, name, op_name):
    """``stride``/``dilate``/``pad`` with one entry per spatial axis.

    An empty value means ``default`` on every axis (MXNet); a single
    integer is repeated on every axis (a convenience MXNet lacks).
    """
    raw = _literal(value)
    if raw is None or (isinstance(raw, (list, tuple)) and len(raw) == 0):
        return (default,) * ndim
    if not isinstance(raw, (list, tuple)):
        return (parse_int(raw, name, op_name),) * ndim
    values = parse_tuple(raw, name, op_name)
    if len(values) != ndim:
        raise DLBookError(
            f'{op_name}: {name}={values} has {len(values)} '
            f'entries but kernel has {ndim}; give one per '
            f'spatial axis'
        )
    return values


def check_layout(layout, ndim, op_name):
    """Channels-first (NCW, NCHW, NCDHW) or channels-last (NWC, NHWC,
    NDHWC, see ``layouts.py``) for the number of spatial axes."""
    from .layouts import CHANNELS_LAST

    layout = _literal(layout)
    if layout is not None and layout not in (
        LAYOUTS.get(ndim),
        CHANNELS_LAST.get(ndim),
    ):
        raise DLBookError(
            f'{op_name}: layout {layout!r} is not supported '
            f'for a {ndim}-D kernel; use '
            f'{LAYOUTS.get(ndim)!r} (channels first) or '
            f'{CHANNELS_LAST.get(ndim)!r} (channels last)'
        )


# -- sizes -----------------------------------------------------------------


def conv_out_size(size, kernel, stride, dilate, pad):
    """``floor((size + 2*pad - dilate*(kernel-1) - 1) / stride) + 1``."""
    return (size + 2 * pad - dilate * (kernel - 1) - 1) // stride + 1


# -- padding ---------------------------------------------------------------


def pad_spatial(xp, x, before, after=None, value=0):
    """Pad the spatial axes (all but the first two) of ``x``.

    ``before``/``after`` give one amount per spatial axis; with no padding
    ``x`` itself is returned (no copy).
    """
    after = before if after is None else after
    if not any(before) and not any(after):
        return x
    # a filled array with x written inside: what ``xp.pad`` does, without
    # its per-axis passes (about 20 % quicker on convolution inputs)
    shape = x.shape[:2] + tuple(
        n + b + a for n, b, a in zip(x.shape[2:], before, after)
    )
    out = (
        xp.zeros(shape, dtype=x.dtype)
        if value == 0
        else xp.full(shape, value, dtype=x.dtype)
    )
    out[crop_index(before, x.shape[2:])] = x
    return out


def pad_channels_last(xp, x, pad):
    """``(N, C, *S)`` -> ``(N, *(S + 2*pad), C)``: zero-padded and with the
    channels moved last, C-contiguous, in one copy (where
    :func:`pad_spatial` and then a move of the channels copy twice).  On
    a GPU a padded 2-D input is one kernel (:data:`PAD_CHANNELS_LAST_2D`)
    where zeros and a copy into them are two."""
    if not any(pad):
        return xp.ascontiguousarray(xp.moveaxis(x, 1, -1))
    spatial = x.shape[2:]
    shape = (
        (x.shape[0],)
        + tuple(n + 2 * p for n, p in zip(spatial, pad))
        + (x.shape[1],)
    )
    if len(spatial) == 2 and not on_host(xp):
        out = xp.empty(shape, dtype=x.dtype)
        PAD_CHANNELS_LAST_2D(
            xp, xp.ascontiguousarray(x), x.shape[1], *spatial, *pad, out
        )
        return out
    out = xp.zeros(shape, dtype=x.dtype)
    _copy_channels_last(x, out, pad)
    return out


def _copy_channels_last(x, out, pad):
    """Copy ``x`` ``(N, C, *S)`` into the middle of ``out`` ``(N, *(S +
    2*pad), C)``."""
    # crop_index's spatial slices, with the channels now the last axis
    out[(slice(None),) + crop_index(pad, x.shape[2:])[2:]] = x.transpose(
        (0,) + tuple(range(2, x.ndim)) + (1,)
    )


def _pad_channels_last_steps(xp, x, C, h, w, ph, pw, out):
    """:data:`PAD_CHANNELS_LAST_2D` in array operations."""
    out[...] = 0
    _copy_channels_last(x, out, (ph, pw))


#: ``out[n, y, x, c] = x[n, c, y - ph, x - pw]`` inside the input, 0 in
#: the padding: ``out`` is ``(N, h + 2ph, w + 2pw, C)``, ``x``
#: C-contiguous ``(N, C, h, w)``.
PAD_CHANNELS_LAST_2D = Elementwise(
    'dlbook_pad_channels_last_2d',
    'raw T x, int32 C, int32 h, int32 w, int32 ph, int32 pw',
    'T out',
    """
    const int c = i % C;
    long long r = i / C;
    const int xx = r % (w + 2 * pw) - pw;
    r /= w + 2 * pw;
    const int yy = r % (h + 2 * ph) - ph;
    r /= h + 2 * ph;  // the image
    out = (yy < 0 || yy >= h || xx < 0 || xx >= w)
        ? (T)0 : x[((r * C + c) * h + yy) * w + xx];
    """,
    _pad_channels_last_steps,
)


def crop_spatial(x, before, sizes):
    """Undo :func:`pad_spatial`: keep ``sizes`` elements after ``before``."""
    if not any(before) and tuple(x.shape[2:]) == tuple(sizes):
        return x
    return x[crop_index(before, sizes)]


def crop_index(before, sizes):
    """The index of ``sizes`` elements after ``before`` on the spatial
    axes (all axes after the first two)."""
    return (slice(None), slice(None)) + tuple(
        slice(b, b + n) for b, n in zip(before, sizes)
    )


# -- the two views of a sliding window -------------------------------------


def sliding_windows(xp, x_pad, kernel, stride, dilate, out_size):
    """Zero-copy view ``w[n, c, *o, *k] = x_pad[n, c, *(o*s + k*d)]``.

    ``x_pad`` has shape ``(N, C, *spatial)``; the view has shape
    ``(N, C, *out_size, *kernel)``.  Moving one output step skips
    ``stride`` elements, moving one kernel step skips ``dilate``: only the
    strides differ from ``x_pad``'s, no data moves.  The view is
    read-only; never write through it (windows overlap).
    """
    strides_n, strides_c, *strides_sp = x_pad.strides
    shape = tuple(x_pad.shape[:2]) + tuple(out_size) + tuple(kernel)
    strides = (
        (strides_n, strides_c)
        + tuple(st * s for st, s in zip(strides_sp, stride))
        + tuple(st * d for st, d in zip(strides_sp, dilate))
    )
    return xp.lib.stride_tricks.as_strided(x_pad, shape=shape, strides=strides)


def window_slices(offset, stride, dilate, out_size, lead=2):
    """Index of the input elements that kernel ``offset`` sees.

    For an ``(N, C, *spatial)`` array ``x_pad``,
    ``x_pad[window_slices(...)]`` has shape ``(N, C, *out_size)`` and
    element ``o`` is ``x_pad[..., o*s + k*d]``.  ``lead`` is the number of
    whole axes before the spatial ones (trailing axes are kept whole).
    """
    return (slice(None),) * lead + tuple(
        slice(k * d, k * d + s * (o - 1) + 1, s)
        for k, s, d, o in zip(offset, stride, dilate, out_size)
    )


def kernel_offsets(kernel):
    """Every kernel offset ``(k0, k1, ...)`` in row-major order."""
    return itertools.product(*(range(k) for k in kernel))


# -- kernel taps that read input ----------------------------------------


def _reads_input(tap, stride, dilate, pad, size, out):
    """Whether kernel ``tap`` reads an input element (not padding) at some
    output position ``j < out``: ``0 <= j*stride + tap*dilate - pad <
    size``.  The first ``j`` past the leading padding is enough."""
    first = max(0, -(-(pad - tap * dilate) // stride))
    return first < out and first * stride + tap * dilate - pad < size


def live_taps(kernel, stride, dilate, pad, spatial, out_size):
    """The part of the kernel that ever reads input, for small maps.

    A 3x3 convolution with padding 1 on a 1x1 map (the last stage of a
    ResNet on 32x32 images) reads padding with 8 of its 9 taps at every
    output position: the same convolution with the kernel cut to its
    centre and no padding computes the same numbers at a ninth of the
    cost.  Returns ``(index, kernel, pad)`` of that smaller convolution
    (``index`` selects its taps from the weight), or None when every tap
    reads input somewhere, or when the cut kernel would need uneven
    padding or change the output size.
    """
    lows, highs = [], []
    for k, s, d, p, size, o in zip(
        kernel, stride, dilate, pad, spatial, out_size
    ):
        live = [t for t in range(k) if _reads_input(t, s, d, p, size, o)]
        if not live:
            return None
        lows.append(live[0])
        highs.append(live[-1])
    if all(lo == 0 and hi == k - 1 for lo, hi, k in zip(lows, highs, kernel)):
        return None
    new_kernel = tuple(hi - lo + 1 for lo, hi in zip(lows, highs))
    new_pad = tuple(p - lo * d for p, lo, d in zip(pad, lows, dilate))
    if min(new_pad) < 0 or any(
        conv_out_size(size, k, s, d, p) != o
        for size, k, s, d, p, o in zip(
            spatial, new_kernel, stride, dilate, new_pad, out_size
        )
    ):
        return None
    index = (slice(None), slice(None)) + tuple(
        slice(lo, hi + 1) for lo, hi in zip(lows, highs)
    )
    return index, new_kernel, new_pad
