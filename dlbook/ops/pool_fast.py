"""Fast pooling for non-overlapping windows (kernel == stride).

When windows tile the input (the common 2x2, stride 2 pooling), every
input element belongs to at most one window, so the gradient of each
kernel offset can be *written* into its strided slice instead of added
onto a zero-filled array: no zero fill, no temporary for ``dy * hit``,
no read-modify-write.

Max pooling goes one spatial axis at a time: the maximum along each
window's rows, then over those row maxima (:func:`max_forward`), fewer
passes than one per kernel offset.  Its gradient goes back the same way
(:func:`max_backward`), sending ``dy`` to the first maximum of each
window in row-major order, MXNet's rule for ties.

A single ``argmax`` over each window, or a reduction over the window
axes of a reshaped view, would read better, but NumPy reduces short
strided axes slowly (measured 5 to 25 times slower than these
whole-array passes on LeNet-sized inputs), so the loops over offsets
stay.  Overlapping windows use the per-offset loop of ``pool.py``, whose
backward this module splits over images too (:func:`split_images`).

These passes are memory-bound and single-threaded in NumPy; on a large
batch the images are split into ranges computed at once on a few Python
threads (the policy of ``blas_threads.split_threads``; NumPy releases the
GIL in these loops), as the convolution fast path does.
Everything runs through ``xp`` (NumPy or CuPy).

Where Numba is installed, 2-D pooling of float32/float64 NumPy arrays
runs as compiled loops instead (``host_loops.py``, ``host_jit.py``):
one pass per direction, which the window-at-a-time reading that NumPy
makes slow suits well (LeNet's first max pooling backward 1.71 -> 0.95
ms on 2 threads).  The passes below remain the definition the loops are
tested against, and what runs without Numba.
"""

from ..backend.blas_threads import split_passes
from . import host_jit, host_loops
from .windows import kernel_offsets, window_slices

__all__ = [
    'non_overlapping',
    'forward',
    'max_forward',
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


def forward(xp, x_pad, kernel, out):
    """Sum pooling (average before dividing), windows tiling the input:
    one whole-array pass per kernel offset (max pooling:
    :func:`max_forward`)."""
    ones = (1,) * len(kernel)
    y = xp.empty(x_pad.shape[:2] + tuple(out), dtype=x_pad.dtype)
    if _loops_apply(xp, kernel, x_pad):
        loop = host_loops.sum_pool_2d(*kernel)
        if _run_loop(xp, x_pad, lambda a, b: loop(x_pad, y, *kernel, a, b)):
            return y
    offsets = [
        window_slices(offset, kernel, ones, out)
        for offset in kernel_offsets(kernel)
    ]

    def images(start, stop):
        part = y[start:stop]
        source = x_pad[start:stop]
        part[...] = source[offsets[0]]
        for where in offsets[1:]:
            xp.add(part, source[where], out=part)

    split_images(xp, images, x_pad)
    return y


def _stages(kernel, stride, out, shape):
    """The axes max pooling reduces one after the other, last axis first:
    ``(axis, k, s, o)`` for each spatial axis that changes (a window
    longer than 1, a stride, or elements past the last window)."""
    return [
        (2 + i, k, s, o)
        for i, (k, s, o) in reversed(list(enumerate(zip(kernel, stride, out))))
        if k > 1 or s > 1 or o != shape[2 + i]
    ]


def _along(ndim, axis, offset, s, o):
    """Index of the elements at ``offset`` of each window along ``axis``
    (``o`` windows, ``s`` apart)."""
    index = [slice(None)] * ndim
    index[axis] = slice(offset, offset + s * (o - 1) + 1, s)
    return tuple(index)


def _stage_buffers(xp, x_pad, steps):
    """Empty arrays for the result of each stage: ``x_pad`` reduced along
    one more axis each time."""
    shape, buffers = list(x_pad.shape), []
    for axis, _, _, o in steps:
        shape[axis] = o
        buffers.append(xp.empty(tuple(shape), dtype=x_pad.dtype))
    return buffers


def _reduce(xp, source, target, axis, k, s, o):
    """``target`` = the maximum over each window of ``k`` along ``axis``
    of ``source``, NaN left out (windows ``s`` apart): ``k - 1`` passes."""
    ndim = source.ndim
    if k == 1:
        target[...] = source[_along(ndim, axis, 0, s, o)]
        return
    # fmax: the maximum of the elements that are not NaN (pool.py's rule)
    xp.fmax(
        source[_along(ndim, axis, 0, s, o)],
        source[_along(ndim, axis, 1, s, o)],
        out=target,
    )
    for j in range(2, k):
        xp.fmax(target, source[_along(ndim, axis, j, s, o)], out=target)


def max_forward(xp, x_pad, kernel, stride, out):
    """Max pooling of the padded input.

    The maximum of a ``kh x kw`` window is the maximum over its rows of
    each row's maximum, so the pooling runs one axis at a time: first
    the maximum of each run of ``kw`` along the width (``kw - 1`` passes),
    then of ``kh`` of those row maxima (``kh - 1`` passes), against
    ``kh*kw - 1`` passes for all offsets at once.  2x2 windows (stride 2):
    two passes, the second over half-size contiguous rows; LeNet's first
    pooling (128, 20, 24, 24) 1.3 against 0.75 ms on 2 threads.  3x3
    windows, stride 2 (a ResNet's stem): four passes instead of eight.
    """
    steps = _stages(kernel, stride, out, x_pad.shape)
    if not steps:  # a 1x1 window, stride 1: the input itself
        return x_pad.copy()
    if _loops_apply(xp, kernel, x_pad):
        y = xp.empty(x_pad.shape[:2] + tuple(out), dtype=x_pad.dtype)
        loop = host_loops.max_pool_2d(*kernel)
        if _run_loop(xp, x_pad, lambda a, b: loop(x_pad, y, *stride, a, b)):
            return y
    arrays = [x_pad] + _stage_buffers(xp, x_pad, steps)

    def images(start, stop):
        for (axis, k, s, o), source, target in zip(steps, arrays, arrays[1:]):
            _reduce(xp, source[start:stop], target[start:stop], axis, k, s, o)

    split_images(xp, images, x_pad)
    return arrays[-1]


def _loops_apply(xp, kernel, x_pad, *others):
    """Whether 2-D pooling runs as a compiled loop (``host_loops.py``,
    :func:`~dlbook.ops.host_jit.applies`)."""
    return len(kernel) == 2 and host_jit.applies(xp, x_pad, *others)


def _run_loop(xp, x_pad, images):
    """``images(start, stop)`` over ranges of images (on threads for a
    large batch); False if Numba could not compile the loop."""
    return host_jit.ran(split_images, xp, images, x_pad)


def non_overlapping(kernel, stride):
    """Whether windows tile the input without overlap (kernel == stride)."""
    return tuple(kernel) == tuple(stride)


def _grid(xp, padded_shape, kernel, out, dtype):
    """Gradient buffer: uninitialised where the windows cover it all."""
    covered = all(
        o * k == size for o, k, size in zip(out, kernel, padded_shape[2:])
    )
    return (xp.empty if covered else xp.zeros)(padded_shape, dtype=dtype)


def max_backward(xp, x_pad, y, dy, kernel, stride, out):
    """Max pooling gradient on the padded grid, from the padded input and
    the output of :func:`max_forward`.

    ``dy`` goes to the first element of each window equal to its max
    (row-major order, MXNet's rule for ties): the first row holding the
    window's maximum, and in it the first element equal to that row's
    maximum.  So the gradient goes back one axis at a time, each window
    of ``k`` sending ``d`` to its first maximum::

        d_0 = d * (v_0 == m);  d_1 = (d - d_0) * (v_1 == m);  ...
        d_(k-1) = d - d_0 - ... - d_(k-2)

    (every term but one is ``d * 0``, so the subtractions are exact, and
    the last element takes what the others did not).  Where windows tile
    an axis the parts are written into place; where they overlap, added.
    The stages between the input and the output (the row maxima) are
    computed again, a block of images at a time, rather than kept from
    the forward: a pass over half the input, where keeping them would
    hold that half for every pooling layer until its backward.
    """
    steps = _stages(kernel, stride, out, x_pad.shape)
    if not steps:
        return dy.copy()
    if _loops_apply(xp, kernel, x_pad, y, dy):
        tiles = non_overlapping(kernel, stride)
        dx = (
            _grid(xp, x_pad.shape, kernel, out, dy.dtype)
            if tiles
            else xp.zeros(x_pad.shape, dtype=dy.dtype)
        )
        loop = host_loops.max_pool_2d_grad(*kernel, tiles)
        if _run_loop(
            xp, x_pad, lambda a, b: loop(x_pad, y, dy, dx, *stride, a, b)
        ):
            return dx
    ndim = x_pad.ndim
    inner = _stage_buffers(xp, x_pad, steps[:-1])
    stages = [x_pad] + inner + [y]
    grads = [None] * len(stages)
    grads[-1] = dy
    for i, (axis, k, s, o) in enumerate(steps):
        source = stages[i]
        covered = k == s and o * k == source.shape[axis]
        # a buffer the windows fill entirely, else zeros for the rest
        make = xp.empty if covered else xp.zeros
        grads[i] = make(source.shape, dtype=dy.dtype)

    def images(start, stop):
        for (axis, k, s, o), source, target in zip(steps[:-1], stages, inner):
            _reduce(xp, source[start:stop], target[start:stop], axis, k, s, o)
        for i in reversed(range(len(steps))):
            axis, k, s, o = steps[i]
            source = stages[i][start:stop]
            top = stages[i + 1][start:stop]
            rest = grads[i + 1][start:stop]
            target = grads[i][start:stop]
            slot = [target[_along(ndim, axis, j, s, o)] for j in range(k)]
            if s < k:  # overlapping windows: add into place
                hit = None
                for j in range(k - 1):
                    hit = xp.equal(
                        source[_along(ndim, axis, j, s, o)], top, out=hit
                    )
                    part = rest * hit
                    slot[j] += part
                    rest = rest - part
                slot[k - 1] += rest
                continue
            if k == 1:
                slot[0][...] = rest
                continue
            hit = xp.empty(top.shape, dtype=bool)
            for j in range(k - 1):
                xp.equal(source[_along(ndim, axis, j, s, o)], top, out=hit)
                xp.multiply(rest, hit, out=slot[j])
                if j < k - 2:
                    rest = rest - slot[j]
            xp.subtract(rest, slot[k - 2], out=slot[k - 1])

    split_images(xp, images, x_pad)
    return grads[0]


def spread_backward(xp, dy, padded_shape, kernel, out):
    """Sum (and average) pooling gradient, windows not overlapping: every
    window element receives its window's ``dy``."""
    ones = (1,) * len(kernel)
    dx_pad = _grid(xp, padded_shape, kernel, out, dy.dtype)
    if _loops_apply(xp, kernel, dy):
        loop = host_loops.spread_2d(*kernel)
        if _run_loop(xp, dx_pad, lambda a, b: loop(dy, dx_pad, a, b)):
            return dx_pad
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
