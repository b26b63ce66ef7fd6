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
Overlapping windows use the reference code in ``pool.py``.
Everything runs through ``xp`` (NumPy or CuPy).
"""

from .windows import kernel_offsets, window_slices

__all__ = ['non_overlapping', 'max_backward', 'spread_backward']


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
    unclaimed = xp.ones(y.shape, dtype=bool)
    hit = xp.empty(y.shape, dtype=bool)
    for offset in kernel_offsets(kernel):
        where = window_slices(offset, kernel, ones, out)
        xp.equal(x_pad[where], y, out=hit)
        hit &= unclaimed
        xp.multiply(dy, hit, out=dx_pad[where])
        unclaimed ^= hit  # hit is a subset of unclaimed
    return dx_pad


def spread_backward(xp, dy, padded_shape, kernel, out):
    """Sum (and average) pooling gradient, windows not overlapping: every
    window element receives its window's ``dy``."""
    ones = (1,) * len(kernel)
    dx_pad = _grid(xp, padded_shape, kernel, out, dy.dtype)
    for offset in kernel_offsets(kernel):
        dx_pad[window_slices(offset, kernel, ones, out)] = dy
    return dx_pad
