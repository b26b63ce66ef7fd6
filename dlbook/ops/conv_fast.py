"""Fast convolution routines: per-image matrices, output already NCHW.

The reference code (``conv_reference.py``) puts the whole batch into
the columns of one matrix, ``cols[(c, k), (n, o)]``; its product with
the weight is ``(F, N*P)`` and must then be transposed into
``(N, F, *out)``, a copy as large as the output.  Here the batch axis
stays in front::

    cols[n, g, (c, k), o] = x_pad[n, g*Cg + c, o*stride + k*dilate]

so that ``matmul(w[G, Fg, Cg*K], cols)`` is a *batched* product whose
result ``(N, G, Fg, P)`` already is the ``(N, F, *out)`` output: no
transpose.  The im2col copy itself is one ``reshape`` of a zero-copy
``as_strided`` view (no Python loop), and its innermost run is an output
row (contiguous in the input when ``stride == 1``).

* weight gradient: ``dw = sum_n dy[n] @ cols[n]^T`` as batched products
  summed over the batch, in chunks so the temporary stays small;
* data gradient: for stride 1 and "same" padding a forward convolution
  of ``dy`` with the flipped kernel; else ("col2im") ``dcols = w^T @ dy``
  per image, then one strided slice-add per kernel offset.  When output
  rows are short, the reference layout (batch axis last, long contiguous
  runs) adds faster, and is used instead.

On a GPU the whole batch is one product, and a 2-D convolution's windows
(``im2col.py``) and the col2im of its data gradient (``col2im.py``) are
one kernel each.

The per-image products are each too small for BLAS's own threads, so on
NumPy a large batch is split into ranges of images computed at once on
a few Python threads (``blas_threads.split_threads``: the thread policy
of ``DLBOOK_NUM_THREADS``; NumPy and BLAS release the GIL).

Every routine takes the array module ``xp`` (NumPy or CuPy).
"""

from math import prod

from ..backend import on_host
from ..backend.blas_threads import (
    for_gemm,
    items_per_block,
    run_split,
    run_split_sum,
    split_threads,
)
from ..backend.cpu_cache import l2_cache_bytes
from . import conv_wide_rows, host_jit, host_loops
from .col2im import col2im_2d
from .im2col import im2col_2d
from .op import sum_axes
from .windows import (
    conv_out_size,
    kernel_offsets,
    pad_channels_last,
    pad_spatial,
    sliding_windows,
    window_slices,
)

__all__ = [
    'window_rows',
    'conv_forward',
    'use_channels_last',
    'weight_grad',
    'weight_grad_channels_last',
    'data_grad',
    'bias_grad',
    'live_taps',
    'device_im2col',
]

#: Output rows at least this long use the per-image col2im; shorter ones
#: the reference (batch-last) col2im, whose slice-adds move longer runs.
MIN_ROW_FOR_BATCHED_COL2IM = 24

#: Outputs with fewer positions than this (per image) take the weight
#: gradient from channels-last windows (one GEMM), when there is one group.
MAX_POSITIONS_FOR_CHANNELS_LAST_WGRAD = 256

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

#: Upper bound (bytes) of the temporary ``(chunk, F, Cg*K)`` products that
#: the weight gradient sums over the batch.
WGRAD_CHUNK_BYTES = 8 * 2**20
#: The same bound on a GPU, where each chunk costs three calls (product,
#: sum, add) and memory is plentiful: a 64 -> 64 3x3 layer on 28x28
#: (d2l's ResNet-18, batch 256) is then one chunk of 37 MiB, not five.
DEVICE_WGRAD_CHUNK_BYTES = 256 * 2**20

#: Bytes of the per-block temporaries (im2col columns, ``dcols``) that
#: each thread fills and uses before moving to its next images, so the
#: matrix product and the slice-adds read them from cache rather than
#: from memory.  None: half of a core's L2 cache, at least 512 KiB
#: (:func:`block_bytes`).  Measured, forward of LeNet-5's first layer,
#: batch 512, 2 threads, 2 MiB L2: 14.6 ms with 256 KiB blocks, 8.2 ms
#: with 512 KiB, 7.2 ms with 1 MiB, 7.4 ms with 2 MiB.
BLOCK_BYTES = None


def block_bytes():
    """:data:`BLOCK_BYTES`, or half of one core's L2 cache, at least
    512 KiB (the size measured best on a 512 KiB L2)."""
    if BLOCK_BYTES is not None:
        return BLOCK_BYTES
    return max(512 * 2**10, l2_cache_bytes() // 2)


def device_im2col(xp, kernel):
    """Whether the windows are gathered by one kernel (:mod:`.im2col`),
    from the input not padded: 2-D convolutions on a GPU."""
    return len(kernel) == 2 and not on_host(xp)


def window_rows(xp, x_pad, kernel, stride, dilate, out_size):
    """The windows as a zero-copy ``(N, C, *K, *O)`` view; reshaping it
    to ``(N, G, Cg*K, P)`` (rows (c, k), columns o) is the im2col copy."""
    nd = len(kernel)
    windows = sliding_windows(xp, x_pad, kernel, stride, dilate, out_size)
    # (N, C, *O, *K) -> (N, C, *K, *O)
    return windows.transpose(
        (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    )


def use_channels_last(groups, out_size):
    """Whether a convolution's windows are gathered channels-last: one
    group and outputs of fewer than
    :data:`MAX_POSITIONS_FOR_CHANNELS_LAST_WGRAD` positions per image.

    Small outputs come from short output rows, which make the
    ``(N, G, Cg*K, P)`` gather slow (runs of one output row); the
    channels-last rows ``(N, P, K*C)`` copy runs of ``kernel[-1] * C``
    elements instead, and their weight gradient is one GEMM.
    """
    return (
        groups == 1 and prod(out_size) < MAX_POSITIONS_FOR_CHANNELS_LAST_WGRAD
    )


def _rows_view(xp, x, kernel, stride, dilate, out_size, pad=None):
    """Channels-last windows: a zero-copy ``(N, *O, *K, C)`` view of the
    input padded by ``pad`` (None: ``x`` is padded already) and moved to
    ``(N, *S, C)`` (one copy of the input).
    ``rows[n, o, k, c] = x_pad[n, c, o*s + k*d]``."""
    n, c = x.shape[:2]
    x_last = pad_channels_last(xp, x, pad or (0,) * len(kernel))
    strides_n, *strides_sp, strides_c = x_last.strides
    shape = (n,) + tuple(out_size) + tuple(kernel) + (c,)
    strides = (
        (strides_n,)
        + tuple(st * s for st, s in zip(strides_sp, stride))
        + tuple(st * d for st, d in zip(strides_sp, dilate))
        + (strides_c,)
    )
    return xp.lib.stride_tricks.as_strided(
        x_last, shape=shape, strides=strides
    )


def conv_forward(
    xp,
    x_pad,
    weight,
    stride,
    dilate,
    out_size,
    groups,
    bias=None,
    channels_last=False,
    keep_cols=True,
    pad=None,
    epilogue=None,
):
    """Convolution: ``(y, cols)``, ``y`` C-contiguous ``(N, F, *out_size)``.

    ``x_pad`` is the input padded already, or with ``pad`` (one amount
    per spatial axis) the input to pad here: channels-last windows pad
    while they move the channels (one copy of the input instead of two).

    ``cols`` is ``(N, G, Cg*K, P)``, or with ``channels_last`` (one group,
    see :func:`use_channels_last`) the rows ``(N, P, K*C)``; the weight
    gradient takes it back (:func:`weight_grad`,
    :func:`weight_grad_channels_last`).  Either way the product per image
    is ``(F, Cg*K) @ (Cg*K, P)``, the result already in ``(N, F, P)``
    order; the channels-last rows of a block of images are multiplied
    at once, ``(b*P, K*C) @ (K*C, F)``, and the small result transposed.

    On NumPy the images are processed in blocks of a few (each block's
    windows copied, multiplied and its ``bias`` added while the copy is
    still in cache), the blocks shared by a few threads when the work is
    large (:func:`~dlbook.backend.blas_threads.split_threads`).  ``bias``
    is ``(F,)`` or None.  On a GPU the whole batch is one block; a 2-D
    convolution's windows are then gathered by one kernel from the input
    and ``pad`` (:func:`device_im2col`; ``x_pad`` not padded).

    With ``keep_cols=False`` the window matrix is not wanted afterwards
    (``cols`` is None): each thread then copies its blocks into one small
    buffer that it reuses, so the copy and the product stay in cache.
    Writing every block into a whole-batch matrix instead sends the copy
    through memory: LeNet-5's first layer on CIFAR-sized images (batch
    512, a 115 MB matrix) took 22.7 ms that way against 12 ms, one thread.

    ``epilogue(xp, y_block)``, if given, is applied in place to each
    block of images of ``y`` once its product and bias are in (a fused
    activation: one more pass over data still in cache, not a pass over
    the whole output later); on a GPU, to the whole output.
    """
    kernel = tuple(weight.shape[2:])
    n = x_pad.shape[0]
    f = weight.shape[0]
    positions = prod(out_size)
    bias_g = None if bias is None else bias.reshape(groups, f // groups, 1)
    if device_im2col(xp, kernel):  # one kernel, padding on the way
        cols = im2col_2d(
            xp,
            x_pad,
            kernel,
            stride,
            dilate,
            pad,
            out_size,
            channels_last,
            groups,
        )
        w_mat = _weight_matrix(xp, weight, groups, channels_last)
        y = _device_forward(xp, cols, w_mat, bias_g, channels_last)
        if epilogue is not None:
            epilogue(xp, y)
        return y.reshape((n, f) + tuple(out_size)), cols if keep_cols else None
    if pad is not None and not channels_last:
        x_pad, pad = pad_spatial(xp, x_pad, pad), None
    if channels_last:
        view = _rows_view(xp, x_pad, kernel, stride, dilate, out_size, pad)
    else:
        view = window_rows(xp, x_pad, kernel, stride, dilate, out_size)
    w_mat = _weight_matrix(xp, weight, groups, channels_last)
    if channels_last:
        image_cols = (positions, w_mat.shape[2])
    else:
        image_cols = (groups, w_mat.shape[2], positions)
    if not on_host(xp):  # 1-D and 3-D: the whole batch's windows copied
        cols = xp.ascontiguousarray(view).reshape((n,) + image_cols)
        y = _device_forward(xp, cols, w_mat, bias_g, channels_last)
        if epilogue is not None:
            epilogue(xp, y)
        return y.reshape((n, f) + tuple(out_size)), cols if keep_cols else None
    y = xp.empty(
        (n,) + w_mat.shape[:2] + (positions,),
        dtype=xp.result_type(w_mat, x_pad),
    )

    def product(begin, end, cols):
        """Windows (copied into ``cols``), product, bias and epilogue of
        images begin..end-1."""
        cols.reshape((end - begin,) + view.shape[1:])[...] = view[begin:end]
        if not channels_last:
            xp.matmul(w_mat, cols, out=y[begin:end])
            if bias_g is not None:
                y[begin:end] += bias_g
        else:
            product_channels_last(begin, end, cols)
        if epilogue is not None:
            epilogue(xp, y[begin:end])

    def product_channels_last(begin, end, cols):
        """The product and bias of images begin..end-1 from their
        channels-last windows ``cols``."""
        # one (b*P, KC) @ (KC, F) product for the block (faster than b
        # products with transposed rows), then one pass that moves it
        # to (b, F, P) and adds the bias
        t = xp.matmul(cols.reshape(-1, w_mat.shape[2]), w_mat[0].T)
        t = t.reshape(end - begin, positions, f).transpose(0, 2, 1)
        if bias_g is None:
            y[begin:end, 0] = t
        else:
            xp.add(t, bias_g[0], out=y[begin:end, 0])

    cols = None
    if keep_cols:
        cols = xp.empty((n,) + image_cols, dtype=x_pad.dtype)
    threads = split_threads(xp, w_mat.size * positions * n)
    if threads == 1:
        for_gemm(xp, w_mat.shape[1], positions, w_mat.shape[2])
    per_image = prod(image_cols) * x_pad.itemsize
    block = _cache_block(xp, per_image, n, threads)

    def part(start, stop):
        buffer = None
        if cols is None:  # one block's windows, reused
            buffer = xp.empty(
                (min(block, stop - start),) + image_cols,
                dtype=x_pad.dtype,
            )
        for begin in range(start, stop, block):
            end = min(begin + block, stop)
            target = (
                cols[begin:end] if buffer is None else buffer[: end - begin]
            )
            product(begin, end, target)

    run_split(part, n, threads)
    return y.reshape((n, f) + tuple(out_size)), cols if keep_cols else None


def _weight_matrix(xp, weight, groups, channels_last):
    """The weight as the product's matrix: ``(G, Fg, Cg*K)``, or for
    channels-last rows ``(1, F, K*C)`` (the rows' column order)."""
    f = weight.shape[0]
    if channels_last:
        # weight (F, C, *K) -> (1, F, K*C)
        return xp.ascontiguousarray(xp.moveaxis(weight, 1, -1)).reshape(
            1, f, -1
        )
    return weight.reshape(groups, f // groups, -1)


def _device_forward(xp, cols, w_mat, bias_g, channels_last):
    """:func:`conv_forward` on a GPU from the whole batch's windows
    ``cols`` (``(N, G, Cg*K, P)``, or channels-last ``(N, P, K*C)``): one
    kernel per step, each allocating its result (a copy into a new array
    is one launch, where ``empty`` and a copy into it are two calls)."""
    if not channels_last:
        y = xp.matmul(w_mat, cols)  # (N, G, Fg, P)
        if bias_g is not None:
            y += bias_g
        return y
    n, positions = cols.shape[:2]
    t = xp.matmul(cols.reshape(-1, w_mat.shape[2]), w_mat[0].T)
    # (N*P, F) -> (N, F, P)
    t = t.reshape(n, positions, -1).transpose(0, 2, 1)
    if bias_g is None:
        return xp.ascontiguousarray(t)
    # into a C-contiguous array (an elementwise result follows its
    # inputs' memory order, here t's transposed one)
    y = xp.empty(t.shape, dtype=xp.result_type(t, bias_g))
    xp.add(t, bias_g[0], out=y)
    return y


def _cache_block(xp, per_image, n, threads):
    """Images per block so that one block's temporary (``per_image``
    bytes each) stays within :func:`block_bytes`, at least one.

    Blocks are a CPU cache policy: on a GPU the whole batch is one block,
    so each step is one kernel launch rather than one per block.
    """
    if not on_host(xp):
        return n
    return items_per_block(per_image, n, threads, block_bytes())


def bias_grad(xp, dy):
    """``db[f] = sum_{n, o} dy[n, f, o]``: on the CPU a matrix-vector
    product (:func:`~dlbook.ops.op.sum_axes`: BLAS reads ``dy`` once; a
    ``sum`` over axes 0, 2, 3 is several times slower), on a GPU one
    reduction kernel."""
    return sum_axes(xp, dy, (0,) + tuple(range(2, dy.ndim))).reshape(
        dy.shape[1]
    )


def weight_grad_channels_last(
    xp, x_pad, dy, w_shape, stride, dilate, rows=None, pad=None
):
    """Weight gradient (one group) from channels-last windows.

    ``rows[(n, o), (k, c)] = x_pad[n, c, o*s + k*d]`` (the ``cols`` of a
    channels-last :func:`conv_forward`, else copied from the input, padded
    by ``pad`` unless None, moved to ``(N, *S, C)``: runs of
    ``kernel[-1] * C`` elements, long when there are many channels).
    Then ``dw = dy_rows^T @ rows`` is one GEMM with a large inner
    dimension ``N*P`` instead of ``N`` small products to sum; on several
    threads, one such GEMM per range of images, the partial products
    added.
    """
    n, f = dy.shape[:2]
    c = w_shape[1]  # one group
    kernel = tuple(w_shape[2:])
    out_size = tuple(dy.shape[2:])
    if rows is None and device_im2col(xp, kernel):
        rows = im2col_2d(
            xp, x_pad, kernel, stride, dilate, pad, out_size, True
        )
    elif rows is None:
        rows = _rows_view(xp, x_pad, kernel, stride, dilate, out_size, pad)
    positions = prod(out_size)
    columns = prod(kernel) * c
    dy_rows = xp.ascontiguousarray(xp.moveaxis(dy, 1, -1)).reshape(-1, f)
    threads = split_threads(xp, f * columns * n * positions)
    if threads == 1:
        for_gemm(xp, f, columns, n * positions)

    # rows copied here from the input (not the forward's): a block of
    # images at a time, each block's product taken while it is in cache
    copied = not rows.flags.c_contiguous
    block = n
    if copied:
        block = _cache_block(xp, positions * columns * dy.itemsize, n, threads)

    def product(begin, end):
        """``dy_rows^T @ rows`` over images begin..end-1."""
        buffer = None
        if copied:
            buffer = xp.empty(
                (min(block, end - begin), positions, columns), dtype=rows.dtype
            )
        total = None
        for start in range(begin, end, block):
            stop = min(start + block, end)
            if copied:
                part = buffer[: stop - start]
                part.reshape(rows[start:stop].shape)[...] = rows[start:stop]
            else:
                part = rows[start:stop]
            part = part.reshape((stop - start) * positions, columns)
            dy_part = dy_rows[start * positions : stop * positions]
            step = xp.matmul(dy_part.T, part)
            total = step if total is None else total + step
        return total

    # Each thread multiplies the rows of a range of images and the partial
    # products are added: BLAS's own threads split the output, here a
    # small (F, K*C), and LeNet's (50, 8192) @ (8192, 500) took 2.5 ms on
    # two of them against 2.1 ms split this way.
    dw = run_split_sum(product, n, threads)
    dw = dw.reshape((f,) + kernel + (c,))
    return xp.ascontiguousarray(xp.moveaxis(dw, -1, 1))


def weight_grad(xp, cols, dy, w_shape, groups, windows=None):
    """``dw[f, c, k] = sum_{n, o} dy[n, f, o] * cols[n, g, (c, k), o]``.

    ``dy`` is ``(N, F, *out)``; the sum over the batch runs over chunks of
    images, each one batched matrix product, so no temporary exceeds
    about :data:`WGRAD_CHUNK_BYTES` (:data:`DEVICE_WGRAD_CHUNK_BYTES` on a
    GPU).

    ``cols`` is the forward's ``(N, G, Cg*K, P)`` im2col matrix, or None:
    then ``windows`` (the zero-copy view of :func:`window_rows`) is
    copied a cache-sized block of images at a time, each block multiplied
    while it is still in cache.  Copying the whole matrix first costs a
    trip through memory: LeNet-5's first layer on CIFAR-sized images
    (3 -> 6 channels, 5x5, batch 512, a 120 MB matrix) took 15.6 ms that
    way against 7.2 ms by blocks, on 2 cores.
    """
    n = dy.shape[0]
    f = w_shape[0]
    dy_rows = dy.reshape(n, groups, f // groups, -1)  # (N, G, Fg, P)
    rows = prod(w_shape[1:])  # Cg*K, the rows of one group's matrix
    positions = dy_rows.shape[3]
    threads = split_threads(xp, f * rows * positions * n)
    if threads == 1:
        for_gemm(xp, dy_rows.shape[2], rows, positions)
    blocks = cols is None and on_host(xp)
    if blocks:
        chunk = _cache_block(
            xp, groups * rows * positions * dy.itemsize, n, threads
        )
    else:
        if cols is None:  # one copy of the whole batch (one GPU kernel)
            cols = windows.reshape(n, groups, rows, positions)
        per_image = f * rows * dy.itemsize  # one image's product
        bound = WGRAD_CHUNK_BYTES if on_host(xp) else DEVICE_WGRAD_CHUNK_BYTES
        chunk = max(1, min(n, bound // max(per_image, 1)))

    def summed(begin, end):
        """The sum over images begin..end-1, in chunks of ``chunk``."""
        if blocks:
            buffer = xp.empty(
                (min(chunk, end - begin), groups, rows, positions),
                dtype=windows.dtype,
            )
        dw = None
        for start in range(begin, end, chunk):
            stop = min(start + chunk, end)
            if blocks:  # this block's windows, copied while in cache
                part = buffer[: stop - start]
                part.reshape(windows[start:stop].shape)[...] = windows[
                    start:stop
                ]
            else:
                part = cols[start:stop]
            part = xp.matmul(dy_rows[start:stop], part.transpose(0, 1, 3, 2))
            part = part.sum(axis=0)
            if dw is None:
                dw = part
            else:
                dw += part
        return dw

    return run_split_sum(summed, n, threads).reshape(w_shape)


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

    block = _cache_block(
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
