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
* the data gradient is in ``conv_fast_data_grad.py``.

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
from .im2col import im2col_2d
from .op import sum_axes
from .windows import (
    pad_channels_last,
    pad_spatial,
    sliding_windows,
)

__all__ = [
    'window_rows',
    'conv_forward',
    'use_channels_last',
    'weight_grad',
    'weight_grad_channels_last',
    'bias_grad',
    'device_im2col',
    'block_bytes',
    'cache_block',
]

#: Outputs with fewer positions than this (per image) take the weight
#: gradient from channels-last windows (one GEMM), when there is one group.
MAX_POSITIONS_FOR_CHANNELS_LAST_WGRAD = 256

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
    block = cache_block(xp, per_image, n, threads)

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


def cache_block(xp, per_image, n, threads):
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
    added.  Rows copied from the input go a cache-sized block of images
    at a time (:func:`cache_block`), each block multiplied while in cache
    (LeNet-5's second layer, batch 512: 5.5 -> 4.3 ms on 2 threads).
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
        block = cache_block(xp, positions * columns * dy.itemsize, n, threads)

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
        chunk = cache_block(
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
