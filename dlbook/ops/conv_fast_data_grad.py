"""The input gradient of a convolution, ``dx`` from ``dy`` (on the fast
path; also Deconvolution's forward).

Each input element receives ``dy`` times its weight from every window
that covers it::

    dx[n, c, o*s + k*d - p] += sum_f w[f, c, k] * dy[n, f, o]

Three ways to compute it, chosen by the layer's shape (:func:`data_grad`):

* stride 1 with "same" padding: a *forward* convolution of ``dy`` with
  the kernel flipped and its channel axes swapped (no scatter at all);
* few filters, stride 1 (``conv_wide_rows.py``): whole padded rows;
* else col2im: ``dcols = w^T @ dy`` per block of images, then one
  strided slice-add per kernel offset (one compiled pass on the CPU,
  ``host_loops.col2im_2d``; one kernel on a GPU, ``col2im.py``).  When
  output rows are short, the reference layout (batch axis last, long
  contiguous runs) adds faster, split over ranges of channels.

Every routine takes the array module ``xp`` (NumPy or CuPy).
"""

from math import prod

from ..backend import on_host
from ..backend.blas_threads import for_gemm, run_split, split_threads
from . import conv_wide_rows, host_jit, host_loops
from .col2im import col2im_2d
from .conv_fast import cache_block, conv_forward, use_channels_last
from .windows import kernel_offsets, window_slices

__all__ = ['data_grad']

#: Output rows at least this long use the per-image col2im; shorter ones
#: the reference (batch-last) col2im, whose slice-adds move longer runs.
MIN_ROW_FOR_BATCHED_COL2IM = 24

#: The data gradient of a stride-1 convolution is computed as a "full"
#: convolution of ``dy`` with the flipped kernel (no col2im) when the
#: input has at most this many times the output's positions and
#: ``F <= MAX_FILTER_RATIO_FOR_FULL_CONV * C``: its im2col copy is
#: ``F * K`` per input position, against ``C * K`` per output position
#: for col2im.  Measured: "same"-padded 3x3 layers 1.2-2.6x faster
#: (16 -> 32 channels on 14x14, 64 -> 64 on 16x16 and 28x28, 32 -> 16),
#: 3 -> 32 channels (F = 11 C) 3x slower, LeNet's unpadded 5x5 (input
#: 2.25x the output) 2.4x slower.
MAX_POSITION_RATIO_FOR_FULL_CONV = 1.25
MAX_FILTER_RATIO_FOR_FULL_CONV = 4


def data_grad(xp, dy, w, stride, dilate, pad, data_shape, groups, reference):
    """Input gradient of a convolution (Deconvolution's forward).

    Stride-1 layers whose input is about as large as their output
    ("same" padding) take it as a full convolution of ``dy`` through
    :func:`conv_forward` (:func:`_data_grad_full_conv`, no col2im); the
    others by col2im.  ``reference`` is the reference routine
    (``conv_reference.conv_data_grad``), used when output rows are
    shorter than :data:`MIN_ROW_FOR_BATCHED_COL2IM` (split over ranges
    of channels when the work is large, :func:`_data_grad_by_channels`).
    """
    out_size = tuple(dy.shape[2:])
    if len(out_size) == 2 and not on_host(xp):
        return _data_grad_col2im_kernel(
            xp, dy, w, stride, dilate, pad, data_shape, groups
        )
    if _full_conv_wins(
        w.shape, stride, dilate, pad, data_shape, out_size, groups
    ):
        return _data_grad_full_conv(xp, dy, w, dilate, pad, data_shape)
    # (2-D only: on a GPU those returned above)
    if conv_wide_rows.data_grad_wins(
        w.shape, stride, dilate, pad, data_shape, out_size, groups
    ):
        return conv_wide_rows.data_grad(xp, dy, w, pad, data_shape)
    if out_size[-1] < MIN_ROW_FOR_BATCHED_COL2IM:
        threads = (
            1
            if groups > 1
            else split_threads(xp, w.size * prod(out_size) * dy.shape[0])
        )
        if threads > 1:
            return _data_grad_by_channels(
                xp, dy, w, stride, dilate, pad, data_shape, threads
            )
        return reference(xp, dy, w, stride, dilate, pad, data_shape, groups)
    n, f = dy.shape[:2]
    kernel = tuple(w.shape[2:])
    c = data_shape[1]
    spatial = tuple(data_shape[2:])
    w_t = w.reshape(groups, f // groups, -1).transpose(0, 2, 1)
    dy_rows = dy.reshape(n, groups, f // groups, -1)
    padded = tuple(size + 2 * p for size, p in zip(spatial, pad))
    dx_pad = xp.zeros((n, c) + padded, dtype=xp.result_type(w_t, dy_rows))
    offsets = [
        (offset, window_slices(offset, stride, dilate, out_size))
        for offset in kernel_offsets(kernel)
    ]
    threads = split_threads(xp, w.size * prod(out_size) * n)
    if threads == 1:
        for_gemm(xp, w_t.shape[1], prod(out_size), f // groups)

    block = cache_block(
        xp,
        w_t.shape[0] * w_t.shape[1] * prod(out_size) * dx_pad.itemsize,
        n,
        threads,
    )

    # one compiled pass for the slice-adds (host_loops.col2im_2d); dcols
    # has dx_pad's dtype
    compiled = len(kernel) == 2 and host_jit.applies(xp, dx_pad)

    def images(start, stop):
        """col2im of images start..stop-1 into their part of dx_pad, a
        block of images at a time (``dcols`` stays in cache)."""
        for begin in range(start, stop, block):
            end = min(begin + block, stop)
            dcols = xp.matmul(w_t, dy_rows[begin:end])
            dcols = dcols.reshape((end - begin, c) + kernel + out_size)
            target = dx_pad[begin:end]  # (n, C, *padded)
            if compiled and host_jit.ran(
                host_loops.col2im_2d,
                dcols,
                target,
                *stride,
                *dilate,
                0,
                end - begin,
            ):
                continue
            for offset, where in offsets:
                view = target[where]  # added in place: no copy back
                view += dcols[(slice(None), slice(None)) + offset]

    run_split(images, n, threads)
    if not any(pad):
        return dx_pad
    return xp.ascontiguousarray(
        dx_pad[
            (slice(None), slice(None))
            + tuple(slice(p, p + size) for p, size in zip(pad, spatial))
        ]
    )


def _data_grad_col2im_kernel(
    xp, dy, w, stride, dilate, pad, data_shape, groups
):
    """2-D data gradient on a GPU: one batched product for ``dcols``
    ``(N, G, Cg*K, P)``, which is ``(N, C, kh, kw, out_h, out_w)`` in
    memory, then col2im as one kernel (:mod:`~dlbook.ops.col2im`)."""
    n, f = dy.shape[:2]
    w_t = w.reshape(groups, f // groups, -1).transpose(0, 2, 1)
    dcols = xp.matmul(w_t, dy.reshape(n, groups, f // groups, -1))
    return col2im_2d(
        xp,
        dcols,
        data_shape,
        tuple(w.shape[2:]),
        stride,
        pad,
        dilate,
        tuple(dy.shape[2:]),
    )


def _full_conv_wins(
    w_shape, stride, dilate, pad, data_shape, out_size, groups
):
    """Whether :func:`_data_grad_full_conv` applies and is expected to be
    faster than col2im (see :data:`MAX_POSITION_RATIO_FOR_FULL_CONV`)."""
    kernel = w_shape[2:]
    return (
        groups == 1
        and all(s == 1 for s in stride)
        and all(d * (k - 1) >= p for k, d, p in zip(kernel, dilate, pad))
        # the full convolution lands exactly on the input's grid (a
        # Deconvolution's output may be larger: adj, target_shape)
        and all(
            o + d * (k - 1) - 2 * p == size
            for o, k, d, p, size in zip(
                out_size, kernel, dilate, pad, data_shape[2:]
            )
        )
        and prod(data_shape[2:])
        <= MAX_POSITION_RATIO_FOR_FULL_CONV * prod(out_size)
        and w_shape[0] <= MAX_FILTER_RATIO_FOR_FULL_CONV * w_shape[1]
    )


def _data_grad_full_conv(xp, dy, w, dilate, pad, data_shape):
    """Stride-1 data gradient as a forward convolution (no col2im).

    ``dx[n, c, i] = sum_{f, k} dy[n, f, i + p - k*d] * w[f, c, k]``: a
    convolution of ``dy`` zero-padded by ``d*(K-1) - p`` with the kernel
    flipped and its two channel axes swapped, ``(C, F, *K)``; the output
    lands on the input's grid.
    """
    kernel = tuple(w.shape[2:])
    nd = len(kernel)
    spatial = tuple(data_shape[2:])
    spatial_axes = tuple(range(2, 2 + nd))
    w_flip = xp.ascontiguousarray(xp.flip(w, spatial_axes).swapaxes(0, 1))
    dx, _ = conv_forward(
        xp,
        dy,
        w_flip,
        (1,) * nd,
        dilate,
        spatial,
        1,
        channels_last=use_channels_last(1, spatial),
        keep_cols=False,
        pad=tuple(d * (k - 1) - p for k, d, p in zip(kernel, dilate, pad)),
    )
    return dx


def _data_grad_by_channels(
    xp, dy, w, stride, dilate, pad, data_shape, threads
):
    """The reference col2im (batch axis last, long runs for short output
    rows; one group) with the input channels split into ``threads``
    ranges: each range's rows of ``dcols`` and its slice-adds are
    independent of the others'."""
    n, f = dy.shape[:2]
    out_size = tuple(dy.shape[2:])
    kernel = tuple(w.shape[2:])
    taps = prod(kernel)
    c = data_shape[1]
    spatial = tuple(data_shape[2:])
    # (N, F, *O) -> (F, P*N): rows f, columns (o, n); the threads move a
    # range of filters each (this transpose alone is a tenth of the time)
    dy_rows = xp.empty((f,) + out_size + (n,), dtype=dy.dtype)

    def filters(start, stop):
        dy_rows[start:stop] = xp.moveaxis(dy[:, start:stop], 0, -1)

    run_split(filters, f, threads)
    dy_rows = dy_rows.reshape(f, -1)
    w_t = xp.ascontiguousarray(w.reshape(f, -1).T)  # rows (c, k)
    padded = tuple(size + 2 * p for size, p in zip(spatial, pad))
    dx_pad = xp.zeros((c,) + padded + (n,), dtype=xp.result_type(w_t, dy))
    dx = xp.empty(tuple(data_shape), dtype=dx_pad.dtype)
    crop = tuple(slice(p, p + size) for p, size in zip(pad, spatial))
    offsets = [
        (offset, window_slices(offset, stride, dilate, out_size, lead=1))
        for offset in kernel_offsets(kernel)
    ]

    def channels(start, stop):
        dcols = xp.matmul(w_t[start * taps : stop * taps], dy_rows)
        dcols = dcols.reshape((stop - start,) + kernel + out_size + (n,))
        target = dx_pad[start:stop]
        for offset, where in offsets:
            view = target[where]
            view += dcols[(slice(None),) + offset]
        # crop the padding and move (C, *S, N) -> (N, C, *S) while this
        # range is still in cache
        dx[:, start:stop] = xp.moveaxis(target[(slice(None),) + crop], -1, 0)

    run_split(channels, c, threads)
    return dx
