"""2-D stride-1 convolutions through whole padded rows.

im2col copies, for every output position, the ``C*KH*KW`` input values
its window covers: a matrix ``KH*KW`` times larger than the input, copied
in runs of one output row.  When a layer has few filters that copy, not
the matrix product, takes most of the time (LeNet-5's first layer, 3 -> 6
channels: 7.4 ms of copying against 3.5 ms of products on one thread).

Here the windows are taken over whole padded rows instead.  For each
input channel ``c`` and kernel row ``kh``, the input rows ``kh .. kh+Ho-1``
are one contiguous run of ``Ho*Wp`` values (``Wp`` the padded width), so
the matrix to copy is ``(C*KH, Ho*Wp)``: ``KW`` times smaller, in long
runs.  The kernel's columns move into the filters instead, the weight
seen as ``(KW*F, C*KH)``, and each of its ``KW`` row blocks is the
product for the output shifted by ``kw`` columns::

    P[(kw, f), (oh, x)] = sum_{c, kh} w[f, c, kh, kw] * x_pad[c, kh + oh, x]
    y[f, oh, ow] = sum_kw P[(kw, f), (oh, ow + kw)]

(the ``KW - 1`` columns past each output row are computed and dropped).
The gradients follow the same pattern: the data gradient multiplies the
weight ``(C*KH, KW*F)`` by ``KW`` copies of ``dy`` shifted by ``kw``
columns and adds ``KH`` contiguous blocks of rows (no strided col2im);
the weight gradient multiplies those shifted copies by the row matrix.

The price is the ``(KW*F, Ho*Wp)`` products, which grow with the number
of filters: the data gradient is taken this way when the two buffers
hold fewer values than col2im's window matrix (:func:`data_grad_wins`),
the forward and the weight gradient where that holds too, for layers of
few filters whose window matrix is not kept for backward
(:func:`forward_wins`).  CPU only; images go in blocks of
:data:`BLOCK_BYTES`, ranges of blocks on threads.  Every routine takes
the array module ``xp``.
"""

from math import prod

from ..backend.blas_threads import (
    for_gemm,
    items_per_block,
    run_split,
    run_split_sum,
    split_threads,
)
from . import host_jit, host_loops

__all__ = [
    'forward_wins',
    'forward',
    'weight_grad',
    'data_grad_wins',
    'data_grad',
    'BLOCK_BYTES',
    'MAX_FILTERS',
    'MIN_SAVING',
    'MIN_ROW',
    'MIN_ROW_TRAINING',
]

#: Whole rows are taken where the window matrix would hold more than this
#: many times the values of their two buffers: ``C*KH*KW`` against
#: ``KW*F + C*KH`` per position.  Measured, data gradient, one thread:
#: LeNet-5's second layer (6 -> 16 channels, 5x5 on 14x14, batch 512; 150
#: against 110) 11.6 -> 7.3 ms, LeNet's (20 -> 50 on 12x12, batch 128; 500
#: against 350) 8.8 -> 8.0 ms; LeNet's first layer (1 -> 20: 25 against
#: 105) 3.7 -> 5.0 ms the other way.  Forward (inference, 2 threads, ms,
#: im2col / whole rows): 3x3 "same" layers 8 -> 8 channels on 32x32 (72
#: against 48) 6.0 / 5.4, 16 -> 16 on 8x8 (144 against 96) 1.24 / 1.19,
#: 1 -> 8 (9 against 27) 1.35 / 2.9, 3 -> 16 (27 against 57) 3.4 / 6.1.
MIN_SAVING = 1.0

#: The forward (and then the weight gradient) goes through whole rows
#: only for layers with at most this many filters (and windows not
#: kept): the products ``(KW*F, Ho*Wp)`` grow with them.  Measured,
#: forward, 2 threads, ms (im2col / whole rows): LeNet-5's first layer (6
#: filters, batch 512) 7.2 / 6.2, its second (16) 4.0 / 3.2; LeNet's
#: second (50 filters, 500 values against 350) 3.2 / 4.0.
MAX_FILTERS = 16

#: The shortest products (``Ho*Wp`` columns per image) taken by whole
#: rows in prediction and in training: below, one product per image of a
#: small image costs more calls than the window matrix's one product per
#: block saves.  Measured, 3x3 "same" layers, 2 threads, ms (im2col /
#: whole rows): prediction, 8 -> 8 channels on 6x6 (rows of 48, batch
#: 256) 0.72 / 0.47, 16 -> 16 on 4x4 (24) 0.64 / 0.75; training (forward
#: and all gradients), 8 -> 8 on 6x6 (48) 1.95 / 2.08, on 8x8 (80) 3.09 /
#: 3.03, on 16x16 (288, batch 64) 2.27 / 2.07, 16 -> 16 on 4x4 (24) 1.65
#: / 2.02; LeNet-5's second layer (140) 12.9 / 11.4.
MIN_ROW = 32
MIN_ROW_TRAINING = 64

#: Bytes of the buffers one block of images fills.  Larger than the
#: im2col blocks: each block costs about ten NumPy calls, and the row
#: matrices are small.  LeNet-5's first layer, forward, 2 threads: 11.3 ms
#: with 512 KiB blocks, 7.0 with 1 MiB, 6.0 with 4 MiB, 6.1 with 8 MiB.
BLOCK_BYTES = 4 * 2**20


def _applies(w_shape, stride, dilate, groups):
    """A 2-D convolution of one group, stride 1, no dilation, a kernel
    more than one column wide (one column has nothing to fold)."""
    return (
        len(w_shape) == 4
        and w_shape[3] > 1
        and groups == 1
        and all(s == 1 for s in stride)
        and all(d == 1 for d in dilate)
    )


def _saves(w_shape):
    """Whether the two buffers hold fewer values per position than the
    window matrix, by :data:`MIN_SAVING`: ``KW*F + C*KH`` against
    ``C*KH*KW``."""
    f, c, kh, kw = w_shape
    return c * kh * kw > MIN_SAVING * (kw * f + c * kh)


def forward_wins(w_shape, stride, dilate, groups, row=None, training=False):
    """Whether :func:`forward` (and a weight gradient after it) should run
    the convolution: few filters (:data:`MAX_FILTERS`), smaller buffers
    (:data:`MIN_SAVING`) and, given ``row`` (``Ho*Wp``, the columns of
    each image's product), rows of at least :data:`MIN_ROW`
    (:data:`MIN_ROW_TRAINING` in training)."""
    shortest = MIN_ROW_TRAINING if training else MIN_ROW
    return (
        _applies(w_shape, stride, dilate, groups)
        and w_shape[0] <= MAX_FILTERS
        and _saves(w_shape)
        and (row is None or row >= shortest)
    )


def data_grad_wins(w_shape, stride, dilate, pad, data_shape, out_size, groups):
    """Whether :func:`data_grad` applies (the output lands exactly on the
    padded input, as for a Convolution; a Deconvolution's ``adj`` or
    ``target_shape`` may ask for more) and its buffers are the smaller
    (:data:`MIN_SAVING`)."""
    if not _applies(w_shape, stride, dilate, groups):
        return False
    return _saves(w_shape) and all(
        o + k - 1 - 2 * p == size
        for o, k, p, size in zip(out_size, w_shape[2:], pad, data_shape[2:])
    )


def _row_windows(xp, x_pad, kh, ho):
    """The zero-copy ``(N, C, KH, Ho*Wp)`` view: for each channel and
    kernel row, the ``Ho`` padded input rows it reads, one run."""
    x_pad = xp.ascontiguousarray(x_pad)
    n, c, _, wp = x_pad.shape
    s_n, s_c, s_h, s_w = x_pad.strides
    return xp.lib.stride_tricks.as_strided(
        x_pad, shape=(n, c, kh, ho * wp), strides=(s_n, s_c, s_h, s_w)
    )


def _shifted(xp, dy, kw, wp, size):
    """A zero buffer for ``size`` images of ``KW`` copies of ``dy``, each
    shifted by ``kw`` columns within rows of ``Wp``: ``(size, KW, F, Ho,
    Wp)``.  Only the shifted columns are ever written, so the others stay
    0 for every block."""
    f, ho = dy.shape[1:3]
    return xp.zeros((size, kw, f, ho, wp), dtype=dy.dtype)


def _fill_shifted(xp, buffer, dy_block):
    """``buffer[:, k, :, :, k : k + Wo] = dy_block`` for every ``k``: one
    compiled pass where it applies (``host_loops.fill_shifted``), else
    ``KW`` strided copies."""
    if host_jit.applies(xp, dy_block, buffer) and host_jit.ran(
        host_loops.fill_shifted, buffer, dy_block, 0, dy_block.shape[0]
    ):
        return
    wo = dy_block.shape[-1]
    for k in range(buffer.shape[1]):
        buffer[:, k, :, :, k : k + wo] = dy_block


def forward(xp, x_pad, weight, bias, out_size, epilogue=None):
    """The convolution of the padded input ``x_pad`` ``(N, C, Hp, Wp)``:
    ``y`` ``(N, F, Ho, Wo)``, C-contiguous, plus ``bias`` (``(F,)`` or
    None), then ``epilogue(xp, y_block)`` in place on each block of
    images (see :func:`~dlbook.ops.conv_fast.conv_forward`)."""
    n, c = x_pad.shape[:2]
    f, _, kh, kw = weight.shape
    ho, wo = out_size
    wp = x_pad.shape[3]
    row = ho * wp
    windows = _row_windows(xp, x_pad, kh, ho)
    # w_stack[(kw, f), (c, kh)] = w[f, c, kh, kw]
    w_stack = xp.ascontiguousarray(weight.transpose(3, 0, 1, 2)).reshape(
        kw * f, c * kh
    )
    dtype = xp.result_type(weight, x_pad)
    y = xp.empty((n, f, ho, wo), dtype=dtype)
    threads = split_threads(xp, w_stack.size * row * n)
    if threads == 1:
        for_gemm(xp, kw * f, row, c * kh)
    block = items_per_block(
        (c * kh + kw * f) * row * y.itemsize, n, threads, BLOCK_BYTES
    )
    # the shifted adds and the bias in one compiled pass where it applies
    # (host_loops.shifted_sum)
    loop = host_loops.shifted_sum(kw) if host_jit.applies(xp, y) else None
    bias_or_zeros = bias if bias is not None else xp.zeros(f, dtype=dtype)

    def images(start, stop):
        size = min(block, stop - start)
        rows = xp.empty((size, c * kh, row), dtype=x_pad.dtype)
        products = xp.empty((size, kw * f, row), dtype=dtype)
        for begin in range(start, stop, block):
            end = min(begin + block, stop)
            m = end - begin
            rows[:m].reshape(windows[begin:end].shape)[...] = windows[
                begin:end
            ]
            p = xp.matmul(w_stack, rows[:m], out=products[:m])
            p = p.reshape(m, kw, f, ho, wp)
            out = y[begin:end]
            if loop is None or not host_jit.ran(
                loop, p, bias_or_zeros, out, bias is not None, 0, m
            ):
                xp.add(p[:, 0, :, :, :wo], p[:, 1, :, :, 1 : 1 + wo], out=out)
                for k in range(2, kw):
                    out += p[:, k, :, :, k : k + wo]
                if bias is not None:
                    out += bias.reshape(1, f, 1, 1)
            if epilogue is not None:
                epilogue(xp, out)

    run_split(images, n, threads)
    return y


def weight_grad(xp, x_pad, dy, w_shape):
    """``dw[f, c, kh, kw] = sum_{n, oh, ow} dy[n, f, oh, ow] *
    x_pad[n, c, kh + oh, kw + ow]`` from the padded input, as the product
    of the shifted copies of ``dy`` ``(KW*F, Ho*Wp)`` with the row matrix
    ``(C*KH, Ho*Wp)`` transposed, summed over the images."""
    n, f, ho, _ = dy.shape
    c, kh, kw = w_shape[1:]
    wp = x_pad.shape[3]
    row = ho * wp
    windows = _row_windows(xp, x_pad, kh, ho)
    threads = split_threads(xp, prod(w_shape) * row * n)
    if threads == 1:
        for_gemm(xp, kw * f, c * kh, row)
    block = items_per_block(
        (c * kh + kw * f) * row * dy.itemsize, n, threads, BLOCK_BYTES
    )

    def summed(start, stop):
        size = min(block, stop - start)
        rows = xp.empty((size, c * kh, row), dtype=x_pad.dtype)
        shifted = _shifted(xp, dy, kw, wp, size)
        total = None
        for begin in range(start, stop, block):
            end = min(begin + block, stop)
            m = end - begin
            rows[:m].reshape(windows[begin:end].shape)[...] = windows[
                begin:end
            ]
            _fill_shifted(xp, shifted[:m], dy[begin:end])
            part = xp.matmul(
                shifted[:m].reshape(m, kw * f, row),
                rows[:m].transpose(0, 2, 1),
            ).sum(axis=0)
            total = part if total is None else total + part
        return total

    dw = run_split_sum(summed, n, threads)
    # dw[(kw, f), (c, kh)] -> (F, C, KH, KW)
    return xp.ascontiguousarray(dw.reshape(kw, f, c, kh).transpose(1, 2, 3, 0))


def data_grad(xp, dy, w, pad, data_shape):
    """``dx`` of shape ``data_shape`` from ``dy`` ``(N, F, Ho, Wo)``.

    With ``dy`` read as 0 outside its columns, each kernel row ``kh``
    gives a whole block of rows::

        R[c, kh, oh, x] = sum_{f, kw} w[f, c, kh, kw] * dy[f, oh, x - kw]
        dx_pad[c, oh + kh, x] += R[c, kh, oh, x]

    ``R`` is one product per image, ``(C*KH, KW*F)`` by the shifted
    copies of ``dy``, and the ``KH`` adds are of contiguous ``(Ho, Wp)``
    blocks.
    """
    n, f, ho, _ = dy.shape
    c, kh, kw = w.shape[1:]
    hp, wp = (size + 2 * p for size, p in zip(data_shape[2:], pad))
    row = ho * wp
    dtype = xp.result_type(w, dy)
    # w_t[(c, kh), (kw, f)] = w[f, c, kh, kw]
    w_t = xp.ascontiguousarray(w.transpose(1, 2, 3, 0)).reshape(c * kh, -1)
    padded = any(pad)
    dx = (xp.empty if padded else xp.zeros)(tuple(data_shape), dtype=dtype)
    crop = (slice(None), slice(None)) + tuple(
        slice(p, p + size) for p, size in zip(pad, data_shape[2:])
    )
    per_image = (kw * f + c * kh + (c * hp if padded else 0)) * row
    threads = split_threads(xp, w.size * row * n)
    if threads == 1:
        for_gemm(xp, c * kh, row, kw * f)
    block = items_per_block(per_image * dx.itemsize, n, threads, BLOCK_BYTES)

    def images(start, stop):
        size = min(block, stop - start)
        shifted = _shifted(xp, dy, kw, wp, size)
        rows = xp.empty((size, c * kh, row), dtype=dtype)
        target = xp.empty((size, c, hp, wp), dtype=dtype) if padded else None
        for begin in range(start, stop, block):
            end = min(begin + block, stop)
            m = end - begin
            _fill_shifted(xp, shifted[:m], dy[begin:end])
            r = xp.matmul(
                w_t, shifted[:m].reshape(m, kw * f, row), out=rows[:m]
            )
            r = r.reshape(m, c, kh, ho, wp)
            if padded:
                t = target[:m]
                t[...] = 0
            else:
                t = dx[begin:end]
            for k in range(kh):
                t[:, :, k : k + ho] += r[:, :, k]
            if padded:
                dx[begin:end] = t[crop]

    run_split(images, n, threads)
    return dx
