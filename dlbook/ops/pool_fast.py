"""Fast pooling backward for non-overlapping windows (kernel == stride).

When windows tile the input (the common 2x2, stride 2 pooling), every
input element belongs to at most one window, so the gradient of each
kernel offset can be *written* into its strided slice instead of added
onto a zero-filled array: no zero fill, no temporary for ``dy * hit``,
no read-modify-write.  For max pooling the slot of each window's first
maximum (row-major order, MXNet's rule for ties) is found with one
comparison per offset into preallocated boolean buffers.

A single ``argmax`` over each window, or a reduction over the window
axes of a reshaped view, would read better, but NumPy reduces short
strided axes slowly (measured 5 to 25 times slower than these
whole-array passes on LeNet-sized inputs), so the offset loop stays.
Overlapping windows use the per-offset loop of ``pool.py``, whose
backward this module splits over images too (:func:`split_images`).

These passes are memory-bound and single-threaded in NumPy; on a large
batch the images are split into ranges computed at once on a few Python
threads (the policy of ``blas_threads.split_threads``; NumPy releases the
GIL in these loops), as the convolution fast path does.
Everything runs through ``xp`` (NumPy or CuPy).
"""

from ..backend.blas_threads import split_passes
from .windows import kernel_offsets, window_slices

__all__ = [
    'non_overlapping',
    'forward',
    'max_backward',
    'spread_backward',
    'split_images',
]


def split_images(xp, fn, x_pad):
    """Run ``fn(start, stop)`` over ranges of images (on threads when the
    batch is large: up to four passes touch each element of ``x_pad``,
    so inputs of a quarter million elements and more are split).
    Overlapping windows (``pool.py``'s per-offset backward) use it too."""
    split_passes(xp, fn, x_pad.shape[0], x_pad.size, passes=4)


def forward(xp, x_pad, kernel, out, pool_type):
    """Max, average (before dividing) or sum pooling, windows tiling the
    input: one whole-array pass per kernel offset."""
    ones = (1,) * len(kernel)
    y = xp.empty(x_pad.shape[:2] + tuple(out), dtype=x_pad.dtype)
    combine = xp.maximum if pool_type == 'max' else xp.add
    offsets = [
        window_slices(offset, kernel, ones, out)
        for offset in kernel_offsets(kernel)
    ]

    def images(start, stop):
        part = y[start:stop]
        source = x_pad[start:stop]
        part[...] = source[offsets[0]]
        for where in offsets[1:]:
            combine(part, source[where], out=part)

    split_images(xp, images, x_pad)
    return y


def non_overlapping(kernel, stride):
    """Whether windows tile the input without overlap (kernel == stride)."""
    return tuple(kernel) == tuple(stride)


def _grid(xp, padded_shape, kernel, out, dtype):
    """Gradient buffer: uninitialised where the windows cover it all."""
    covered = all(
        o * k == size for o, k, size in zip(out, kernel, padded_shape[2:])
    )
    return (xp.empty if covered else xp.zeros)(padded_shape, dtype=dtype)


def max_backward(xp, x_pad, y, dy, kernel, out):
    """Max pooling gradient on the padded grid (windows must not overlap).

    ``dy`` goes to the first element of each window equal to its max.
    """
    ones = (1,) * len(kernel)
    dx_pad = _grid(xp, x_pad.shape, kernel, out, dy.dtype)
    offsets = [
        window_slices(offset, kernel, ones, out)
        for offset in kernel_offsets(kernel)
    ]

    def images(start, stop):
        x_part, y_part, dy_part = (
            x_pad[start:stop],
            y[start:stop],
            dy[start:stop],
        )
        target = dx_pad[start:stop]
        hit = xp.empty(y_part.shape, dtype=bool)
        unclaimed = None  # windows whose max is not found yet: all, at first
        last = len(offsets) - 1
        for k, where in enumerate(offsets):
            xp.equal(x_part[where], y_part, out=hit)
            if unclaimed is not None:
                hit &= unclaimed
            xp.multiply(dy_part, hit, out=target[where])
            if k == last:
                break
            if unclaimed is None:
                unclaimed = xp.logical_not(hit)
            else:
                unclaimed ^= hit  # hit is a subset of unclaimed

    split_images(xp, images, x_pad)
    return dx_pad


def spread_backward(xp, dy, padded_shape, kernel, out):
    """Sum (and average) pooling gradient, windows not overlapping: every
    window element receives its window's ``dy``."""
    ones = (1,) * len(kernel)
    dx_pad = _grid(xp, padded_shape, kernel, out, dy.dtype)
    offsets = [
        window_slices(offset, kernel, ones, out)
        for offset in kernel_offsets(kernel)
    ]

    def images(start, stop):
        target, dy_part = dx_pad[start:stop], dy[start:stop]
        for where in offsets:
            target[where] = dy_part

    split_images(xp, images, dx_pad)
    return dx_pad
