"""Pooling by kernel offsets: the array operations every pooling path
shares.

For kernel offset ``k`` the elements that every window reads form one
strided slice of the padded input (``window_slices``), so a pooling
forward is ``prod(kernel)`` whole-array ``maximum``/``add`` operations and
its backward the same number of slice-adds.  :mod:`dlbook.ops.pool` runs
them on any backend; :mod:`dlbook.ops.pool2d` uses them as the twins of
its GPU kernels.
"""

import functools

from .windows import kernel_offsets, window_slices

__all__ = ['counts', 'loop_forward', 'add_window_grads']


@functools.lru_cache(maxsize=256)
def _count_table(spatial, kernel, stride, before, out, include):
    """:func:`counts` as nested tuples of Python ints (cached: the same
    layer has the same divisors at every call)."""
    per_axis = []
    for size, k, s, p, o in zip(spatial, kernel, stride, before, out):
        lo, hi = (0, size + 2 * p) if include else (p, p + size)
        # never divide by 0
        per_axis.append(
            [max(min(j * s + k, hi) - max(j * s, lo), 1) for j in range(o)]
        )

    def outer(axes, scale):
        if not axes:
            return scale
        return tuple(outer(axes[1:], scale * c) for c in axes[0])

    return outer(per_axis, 1)


def counts(xp, spatial, kernel, stride, before, out, include, dtype):
    """Divisor of average pooling per output position, shape ``out``.

    Along one axis window ``o`` covers padded positions ``[o*s, o*s + k)``.
    It counts positions inside the padded input ``[0, H + 2p)``
    (``count_include_pad``) or inside the data ``[p, p + H)``; MXNet's CPU
    kernel does the same.  Axes are independent, so the divisor is an
    outer product of 1-D counts.  Computed once per geometry in Python
    (:func:`_count_table`), then made an array on the data's device.
    """
    table = _count_table(
        tuple(spatial),
        tuple(kernel),
        tuple(stride),
        tuple(before),
        tuple(out),
        bool(include),
    )
    # the shape spelled out: a zero-size output has an empty table
    return xp.asarray(table, dtype=dtype).reshape(tuple(out))


def loop_forward(xp, x_pad, kernel, stride, out, pool_type, p):
    """Max (of the elements that are not NaN), sum or Lp (before its
    root) pooling of the padded input: one whole-array operation per
    kernel offset."""
    ones = (1,) * len(kernel)
    y = None
    for offset in kernel_offsets(kernel):
        piece = x_pad[window_slices(offset, stride, ones, out)]
        if pool_type == 'lp' and p > 1:
            piece = piece**p
        if y is None:
            y = piece.copy()
        elif pool_type == 'max':
            xp.fmax(y, piece, out=y)  # NaN left out: pool.py's rule
        else:
            y += piece
    return y


def add_window_grads(xp, target, x_pad, y, dy, offsets, pool_type, p):
    """Add each window's gradient into ``target`` (the padded input's
    gradient): one pass per kernel offset (``offsets``: their slices).

    max: ``dy`` to the first element equal to the window's max (row-major
    inside the window), as MXNet routes ties; lp: ``dy * (x / y)^(p-1)``;
    avg (``dy`` already divided) and sum: ``dy`` to every element.
    """
    unclaimed = None  # windows whose max is not found yet: all, at first
    for k, where in enumerate(offsets):
        if pool_type == 'max':
            hit = x_pad[where] == y
            if unclaimed is not None:
                hit &= unclaimed
            target[where] += dy * hit
            if k == len(offsets) - 1:
                break
            if unclaimed is None:
                unclaimed = xp.logical_not(hit)
            else:
                unclaimed ^= hit  # hit is a subset of unclaimed
        elif pool_type == 'lp' and p > 1:
            ratio = x_pad[where] / y
            target[where] += dy * ratio ** (p - 1)
        else:
            target[where] += dy
