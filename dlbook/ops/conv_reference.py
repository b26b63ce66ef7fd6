"""The reference convolution routines: im2col, col2im, weight gradient.

Convolution and Deconvolution (``convolution.py``, ``deconvolution.py``)
are both built from three array routines written once:

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

This is the reference path (``fastpath.py``), written to be read first;
``conv_fast.py`` computes the same numbers with per-image matrices.
"""

from math import prod

from .windows import kernel_offsets, sliding_windows, window_slices

__all__ = [
    'channel_rows',
    'from_channel_rows',
    'im2col',
    'conv_data_grad',
    'conv_weight_grad',
]


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
