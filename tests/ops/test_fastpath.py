"""The fast convolution/pooling paths against the reference paths.

``dlbook.ops.fastpath`` switches Convolution, Deconvolution and Pooling
between two implementations; both must give the same outputs and the same
gradients (all inputs) for every geometry, in float32 and float64.  The
reference paths themselves are checked against nested loops in
``test_conv_pool_reference.py``.
"""

import itertools

import numpy as np
import pytest

from dlbook.ops import (
    REGISTRY,
    conv_fast,
    conv_fast_data_grad,
    conv_wide_rows,
    fastpath,
    windows,
)

TOL = {np.float64: 1e-10, np.float32: 2e-5}


def run(name, attrs, inputs, fast, is_train=True, needs=None):
    with fastpath.use(fast):
        op = REGISTRY[name](**attrs)
        op.is_train = is_train
        op.needs_input_grad = needs
        y = op.forward(np, *inputs)
        dy = np.random.RandomState(1).uniform(-1, 1, y.shape)
        grads = op.backward(np, dy.astype(y.dtype))
    return [y] + list(grads)


def assert_same(got, want, dtype, label):
    assert len(got) == len(want), label
    for a, b in zip(got, want):
        if b is None:
            assert a is None, label
            continue
        assert a.shape == b.shape and a.dtype == b.dtype == dtype, label
        np.testing.assert_allclose(a, b, TOL[dtype], TOL[dtype], err_msg=label)


SPATIAL = {1: (9,), 2: (6, 9), 3: (4, 5, 9)}
KERNEL = {1: (3,), 2: (3, 2), 3: (2, 3, 2)}
# width 30 reaches the per-image col2im (rows >= 24), width 9 the
# batch-last one; small outputs take the channels-last weight gradient.
CONV_GRID = [
    pytest.param(
        nd, s, p, d, g, width, id=f'{nd}d-s{s}-p{p}-d{d}-g{g}-w{width}'
    )
    for nd, s, p, d, g, width in itertools.product(
        (1, 2, 3), (1, 2), (0, 1), (1, 2), (1, 2), (9, 30)
    )
]


@pytest.mark.parametrize('name', ['Convolution', 'Deconvolution'])
@pytest.mark.parametrize('nd,s,p,d,g,width', CONV_GRID)
def test_conv_fast_matches_reference(name, nd, s, p, d, g, width):
    rng = np.random.RandomState(0)
    spatial = SPATIAL[nd][:-1] + (width,)
    kernel = KERNEL[nd]
    channels, filters = 2 * g, 3 * g
    shape = (
        (filters, channels // g)
        if name == 'Convolution'
        else (channels, filters // g)
    ) + kernel
    attrs = dict(
        kernel=kernel,
        num_filter=filters,
        num_group=g,
        stride=(s,) * nd,
        pad=(p,) * nd,
        dilate=(d,) * nd,
    )
    for dtype in (np.float64, np.float32):
        inputs = [
            rng.uniform(-1, 1, (3, channels) + spatial),
            rng.uniform(-1, 1, shape),
            rng.uniform(-1, 1, filters),
        ]
        inputs = [a.astype(dtype) for a in inputs]
        want = run(name, attrs, inputs, fast=False)
        for is_train in (True, False):
            got = run(name, attrs, inputs, fast=True, is_train=is_train)
            assert_same(got, want, dtype, f'{name} {attrs} {dtype}')


@pytest.mark.parametrize('mask', [(False, True, True), (True, False, True)])
def test_conv_fast_skips_unneeded_gradients(mask):
    rng = np.random.RandomState(0)
    inputs = [
        rng.uniform(-1, 1, (2, 3, 30, 30)),
        rng.uniform(-1, 1, (4, 3, 3, 3)),
        np.zeros(4),
    ]
    attrs = dict(kernel=(3, 3), num_filter=4, pad=(1, 1))
    want = run('Convolution', attrs, inputs, fast=False, needs=mask)
    got = run('Convolution', attrs, inputs, fast=True, needs=mask)
    assert_same(got, want, np.float64, str(mask))


def conv_attrs(kernel, s, p, d, num_filter=4):
    """Convolution attributes with the same stride, pad and dilation on
    every axis of ``kernel``."""
    nd = len(kernel)
    return dict(
        kernel=kernel,
        num_filter=num_filter,
        stride=(s,) * nd,
        pad=(p,) * nd,
        dilate=(d,) * nd,
    )


def force_thread_split(monkeypatch, module, threads):
    """Make every product big enough to split over ``threads`` threads,
    whatever the machine; with ``module``, record the thread counts its
    ``run_split`` calls get (the list returned; a module that splits
    through ``blas_threads.split_passes`` is recorded there)."""
    from dlbook.backend import blas_threads

    monkeypatch.setattr(blas_threads, 'SMALL_GEMM', 0)
    monkeypatch.setattr(
        blas_threads,
        '_STATE',
        dict(blas_threads._STATE, default=threads, single=False, fixed=True),
    )
    calls = []
    if module is not None:
        real_split = blas_threads.run_split
        monkeypatch.setattr(
            module if hasattr(module, 'run_split') else blas_threads,
            'run_split',
            lambda fn, n, t: calls.append(t) or real_split(fn, n, t),
        )
    return calls


def conv_matches_reference(attrs, batch, spatial):
    """Convolution (3 -> 4 channels, with bias) on the fast path gives
    the reference outputs and gradients, float64 and float32, in
    training (window matrices kept when small) and in inference."""
    rng = np.random.RandomState(0)
    kernel = attrs['kernel']
    for dtype in (np.float64, np.float32):
        inputs = [
            rng.uniform(-1, 1, (batch, 3) + spatial).astype(dtype),
            rng.uniform(-1, 1, (4, 3) + kernel).astype(dtype),
            rng.uniform(-1, 1, 4).astype(dtype),
        ]
        want = run('Convolution', attrs, inputs, fast=False)
        for is_train in (True, False):
            got = run(
                'Convolution', attrs, inputs, fast=True, is_train=is_train
            )
            assert_same(got, want, dtype, f'{attrs} {dtype} {is_train}')


@pytest.mark.parametrize('threads', [1, 2])
@pytest.mark.parametrize('groups', [1, 2])
@pytest.mark.parametrize('kept', [True, False])
def test_conv_fast_weight_gradient_in_chunks(
    monkeypatch, kept, groups, threads
):
    """A chunk or block of one image: the batch sum runs over many small
    products, from the forward's kept im2col matrix or (``kept=False``,
    as for a matrix too large to keep) from windows copied block by
    block."""
    from dlbook.ops import convolution

    monkeypatch.setattr(conv_fast, 'WGRAD_CHUNK_BYTES', 1)
    monkeypatch.setattr(conv_fast, 'BLOCK_BYTES', 1)
    if not kept:
        monkeypatch.setattr(convolution, 'KEEP_COLS_BYTES', 0)
    force_thread_split(monkeypatch, None, threads)
    rng = np.random.RandomState(0)
    inputs = [
        rng.uniform(-1, 1, (5, 2 * groups, 20, 20)),
        rng.uniform(-1, 1, (3 * groups, 2, 3, 3)),
        np.zeros(3 * groups),
    ]
    attrs = dict(kernel=(3, 3), num_filter=3 * groups, num_group=groups)
    assert_same(
        run('Convolution', attrs, inputs, fast=True),
        run('Convolution', attrs, inputs, fast=False),
        np.float64,
        f'chunks, kept={kept}, groups={groups}, threads={threads}',
    )


@pytest.mark.parametrize('dgrad', ['full_conv', 'col2im', 'wide_rows'])
@pytest.mark.parametrize('layout', ['channels_last', 'channels_first'])
@pytest.mark.parametrize('threads', [1, 2])
@pytest.mark.parametrize(
    'batch,spatial,kernel,s,p,d',
    [
        (1, (7,), (3,), 1, 0, 1),
        (3, (9, 11), (3, 3), 1, 1, 1),
        (4, (10, 9), (3, 2), 2, 1, 1),
        (2, (11, 13), (3, 3), 1, 2, 2),
        (3, (4, 5, 6), (2, 3, 2), 1, 1, 1),
        (3, (8, 10), (3, 3), 1, 0, 1),
        (2, (7, 9), (2, 3), 1, 1, 1),
    ],
)
def test_conv_fast_layouts_and_blocks_match_reference(
    monkeypatch, dgrad, layout, threads, batch, spatial, kernel, s, p, d
):
    """Both window layouts of the forward (channels-last rows or
    ``(N, G, Cg*K, P)`` columns) and of the weight gradient, the data
    gradient as a full convolution (stride 1), by col2im or through
    whole padded rows (2-D, stride 1, no dilation), one image per cache
    block, on one and on two threads, with bias, give the reference
    outputs and gradients."""

    limit = 10**9 if layout == 'channels_last' else 0
    monkeypatch.setattr(
        conv_fast, 'MAX_POSITIONS_FOR_CHANNELS_LAST_WGRAD', limit
    )
    full = 10**9 if dgrad == 'full_conv' else 0
    monkeypatch.setattr(
        conv_fast_data_grad, 'MAX_POSITION_RATIO_FOR_FULL_CONV', full
    )
    monkeypatch.setattr(
        conv_fast_data_grad, 'MAX_FILTER_RATIO_FOR_FULL_CONV', full
    )
    saving = 0 if dgrad == 'wide_rows' else float('inf')
    monkeypatch.setattr(conv_wide_rows, 'MIN_SAVING', saving)
    monkeypatch.setattr(conv_wide_rows, 'MAX_FILTERS', 0)  # im2col forward
    monkeypatch.setattr(conv_fast, 'BLOCK_BYTES', 1)
    monkeypatch.setattr(conv_wide_rows, 'BLOCK_BYTES', 1)
    force_thread_split(monkeypatch, None, threads)
    wide_calls = spy(monkeypatch, conv_wide_rows, 'data_grad')
    conv_matches_reference(conv_attrs(kernel, s, p, d), batch, spatial)
    # the whole-row data gradient ran exactly where it applies
    applies = dgrad == 'wide_rows' and len(kernel) == 2 and s == d == 1
    assert bool(wide_calls) == applies


def spy(monkeypatch, module, name):
    """Count the calls of ``module.name`` (the list returned)."""
    calls = []
    real = getattr(module, name)
    monkeypatch.setattr(
        module, name, lambda *args: calls.append(1) or real(*args)
    )
    return calls


@pytest.mark.parametrize('threads', [1, 2])
@pytest.mark.parametrize(
    'batch,spatial,kernel,p',
    [
        (3, (8, 10), (3, 3), 0),
        (2, (9, 11), (3, 3), 1),
        (3, (7, 9), (2, 3), 1),
        (1, (6, 6), (5, 5), 2),
        (2, (18, 17), (3, 2), 0),
    ],
)
def test_conv_wide_rows_forward_and_weight_gradient_match_reference(
    monkeypatch, threads, batch, spatial, kernel, p
):
    """The forward through whole padded rows (training, the window
    matrix then not kept), one image per block, on one and two threads,
    with bias, and the weight gradient after it, give the reference
    outputs and gradients.  The weight gradient of small outputs comes
    from channels-last windows (cache-sized blocks of images, here one
    at a time), of the others (16 x 16 positions here) by whole rows;
    the data gradient takes its own route."""
    monkeypatch.setattr(conv_wide_rows, 'MAX_FILTERS', 10**9)
    monkeypatch.setattr(conv_wide_rows, 'MIN_SAVING', 0)
    monkeypatch.setattr(conv_wide_rows, 'MIN_ROW', 0)
    monkeypatch.setattr(conv_wide_rows, 'MIN_ROW_TRAINING', 0)
    monkeypatch.setattr(conv_wide_rows, 'BLOCK_BYTES', 1)
    monkeypatch.setattr(conv_fast, 'BLOCK_BYTES', 1)
    force_thread_split(monkeypatch, None, threads)
    forwards = spy(monkeypatch, conv_wide_rows, 'forward')
    wide_wgrads = spy(monkeypatch, conv_wide_rows, 'weight_grad')
    rows_wgrads = spy(monkeypatch, conv_fast, 'weight_grad_channels_last')
    conv_matches_reference(conv_attrs(kernel, 1, p, 1), batch, spatial)
    out_size = [s + 2 * p - k + 1 for s, k in zip(spatial, kernel)]
    small = conv_fast.use_channels_last(1, out_size)
    assert len(forwards) == 4
    assert len(rows_wgrads if small else wide_wgrads) == 4
    assert len(wide_wgrads if small else rows_wgrads) == 0


def test_wide_rows_forward_only_for_few_filters_and_smaller_buffers():
    """Whole rows for LeNet-5's layers (6 and 16 filters; 75 and 150
    window values per position against 45 and 110) and 8 -> 8 channels
    3x3; not for LeNet's (20 and 50 filters), 1 -> 8 or 3 -> 16 channels
    3x3 (9 against 27, 27 against 57), nor with strides, dilations,
    groups or one kernel column."""
    one = (1, 1)
    assert conv_wide_rows.forward_wins((6, 3, 5, 5), one, one, 1)
    assert conv_wide_rows.forward_wins((16, 6, 5, 5), one, one, 1)
    assert conv_wide_rows.forward_wins((8, 8, 3, 3), one, one, 1)
    assert not conv_wide_rows.forward_wins((8, 1, 3, 3), one, one, 1)
    assert not conv_wide_rows.forward_wins((16, 3, 3, 3), one, one, 1)
    assert not conv_wide_rows.forward_wins((20, 1, 5, 5), one, one, 1)
    assert not conv_wide_rows.forward_wins((50, 20, 5, 5), one, one, 1)
    assert not conv_wide_rows.forward_wins((6, 3, 5, 5), (2, 2), one, 1)
    assert not conv_wide_rows.forward_wins((6, 3, 5, 5), one, (2, 2), 1)
    assert not conv_wide_rows.forward_wins((6, 3, 5, 5), one, one, 3)
    assert not conv_wide_rows.forward_wins((6, 3, 5, 1), one, one, 1)
    assert not conv_wide_rows.forward_wins((6, 3, 5), (1,), (1,), 1)


def test_wide_rows_forward_only_for_long_enough_rows():
    """Given the columns of each image's product (``Ho*Wp``): whole rows
    from :data:`MIN_ROW` of them in prediction, :data:`MIN_ROW_TRAINING`
    in training (ResNet's small stages: 16 -> 16 channels on 4x4 images,
    rows of 24, are faster through the window matrix)."""
    one = (1, 1)
    w = (8, 8, 3, 3)
    shortest = conv_wide_rows.MIN_ROW
    assert conv_wide_rows.forward_wins(w, one, one, 1, shortest)
    assert not conv_wide_rows.forward_wins(w, one, one, 1, shortest - 1)
    longest = conv_wide_rows.MIN_ROW_TRAINING
    assert longest > shortest
    assert conv_wide_rows.forward_wins(w, one, one, 1, longest, True)
    assert not conv_wide_rows.forward_wins(w, one, one, 1, longest - 1, True)
    x = np.zeros((2, 8, 4, 4))
    for train, route in ((True, 'fast'), (False, 'fast')):
        op = REGISTRY['Convolution'](kernel=(3, 3), num_filter=8, pad=(1, 1))
        op.is_train = train
        op.forward(np, x, np.zeros(w))
        assert op.saved[-1] == route
    x = np.zeros((2, 8, 6, 6))  # rows of 6 * 8 = 48
    for train, route in ((True, 'fast'), (False, 'wide rows')):
        op = REGISTRY['Convolution'](kernel=(3, 3), num_filter=8, pad=(1, 1))
        op.is_train = train
        op.forward(np, x, np.zeros(w))
        assert op.saved[-1] == route


def test_wide_rows_data_gradient_where_it_moves_less_memory():
    """The whole-row data gradient for LeNet-5's second layer (6 -> 16
    channels, 5x5: 150 values per position against col2im's 110) and
    LeNet's second (20 -> 50), not for LeNet's first (1 -> 20: 25 against
    105), nor for strides, dilations or groups."""
    one, none = (1, 1), (0, 0)

    def wins(w_shape, data_shape, out, stride=one, dilate=one, groups=1):
        return conv_wide_rows.data_grad_wins(
            w_shape, stride, dilate, none, data_shape, out, groups
        )

    assert wins((16, 6, 5, 5), (512, 6, 14, 14), (10, 10))
    assert wins((50, 20, 5, 5), (128, 20, 12, 12), (8, 8))
    assert not wins((20, 1, 5, 5), (128, 1, 28, 28), (24, 24))
    assert not wins((16, 6, 5, 5), (512, 6, 14, 14), (5, 5), stride=(2, 2))
    assert not wins((16, 6, 5, 5), (512, 6, 14, 14), (6, 6), dilate=(2, 2))
    assert not wins((16, 3, 5, 5), (512, 6, 14, 14), (10, 10), groups=2)


@pytest.mark.parametrize(
    'attrs',
    [
        dict(kernel=(3, 3), num_filter=4),
        dict(kernel=(3, 3), num_filter=4, pad=(1, 1)),
        dict(kernel=(3, 3), num_filter=4, target_shape=(8, 9)),
        dict(kernel=(3, 2), num_filter=4, dilate=(2, 1), pad=(2, 0)),
    ],
)
def test_deconv_fast_full_convolution_forward_matches_reference(
    monkeypatch, attrs
):
    """Deconvolution's forward is a convolution's data gradient: forced
    through the full-convolution route where it applies (stride 1; a
    ``target_shape`` there can only be the natural size, as in MXNet)."""
    monkeypatch.setattr(
        conv_fast_data_grad, 'MAX_POSITION_RATIO_FOR_FULL_CONV', 1e9
    )
    monkeypatch.setattr(
        conv_fast_data_grad, 'MAX_FILTER_RATIO_FOR_FULL_CONV', 1e9
    )
    rng = np.random.RandomState(0)
    inputs = [
        rng.uniform(-1, 1, (2, 3, 6, 7)),
        rng.uniform(-1, 1, (3, 4) + attrs['kernel']),
        rng.uniform(-1, 1, 4),
    ]
    assert_same(
        run('Deconvolution', attrs, inputs, fast=True),
        run('Deconvolution', attrs, inputs, fast=False),
        np.float64,
        str(attrs),
    )


def test_bias_grad_is_the_sum_over_batch_and_positions():
    rng = np.random.RandomState(0)
    for shape in [(1, 3, 5), (4, 2, 3, 7), (2, 5, 2, 3, 4)]:
        dy = rng.uniform(-1, 1, shape)
        np.testing.assert_allclose(
            conv_fast.bias_grad(np, dy),
            dy.sum(axis=(0,) + tuple(range(2, dy.ndim))),
            rtol=1e-12,
        )


@pytest.mark.parametrize('threads', [2, 3])
@pytest.mark.parametrize('name', ['Convolution', 'Deconvolution'])
@pytest.mark.parametrize(
    'nd,s,p,d,g,width', [param for param in CONV_GRID if param.values[0] == 2]
)
def test_conv_fast_split_over_threads_matches_reference(
    monkeypatch, threads, name, nd, s, p, d, g, width
):
    """Batches split into ranges of images on a thread pool (forced here
    for tiny shapes) give the reference results."""

    calls = force_thread_split(monkeypatch, conv_fast, threads)
    test_conv_fast_matches_reference(name, nd, s, p, d, g, width)
    assert calls and set(calls) == {threads}


def test_switch_from_environment(monkeypatch):
    monkeypatch.setenv('DLBOOK_FAST_OPS', '0')
    assert fastpath._from_environment() is False
    monkeypatch.setenv('DLBOOK_FAST_OPS', '1')
    assert fastpath._from_environment() is True
    with fastpath.use(False):
        assert not fastpath.enabled()
    assert fastpath.enabled() is True


POOL_GRID = [
    pytest.param(
        nd, k, s, p, pool, conv, id=f'{nd}d-k{k}-s{s}-p{p}-{pool}-{conv}'
    )
    for nd, k, s, p, pool, conv in itertools.product(
        (1, 2, 3),
        (1, 2, 3),
        (1, 2, 3),
        (0, 1),
        ('max', 'avg', 'sum'),
        ('valid', 'full'),
    )
    if p < k
]


@pytest.mark.parametrize('nd,k,s,p,pool,conv', POOL_GRID)
def test_pool_fast_matches_reference(nd, k, s, p, pool, conv):
    rng = np.random.RandomState(0)
    attrs = dict(
        kernel=(k,) * nd,
        stride=(s,) * nd,
        pad=(p,) * nd,
        pool_type=pool,
        pooling_convention=conv,
    )
    spatial = {1: (7,), 2: (6, 7), 3: (4, 5, 6)}[nd]
    x = rng.uniform(-1, 1, (2, 3) + spatial)
    for data in (x, np.maximum(np.round(x), 0)):  # with ties (ReLU)
        for dtype in (np.float64, np.float32):
            inputs = [data.astype(dtype)]
            assert_same(
                run('Pooling', attrs, inputs, fast=True),
                run('Pooling', attrs, inputs, fast=False),
                dtype,
                str(attrs),
            )


@pytest.mark.parametrize('threads', [2, 3])
@pytest.mark.parametrize('pool', ['max', 'avg', 'sum', 'lp'])
@pytest.mark.parametrize('nd,p', [(1, 0), (2, 0), (2, 1), (3, 1)])
@pytest.mark.parametrize('k,s', [(2, 2), (3, 2)])
def test_pool_fast_split_over_threads_matches_reference(
    monkeypatch, threads, pool, nd, p, k, s
):
    """Pooling with the batch split into ranges of images on a thread
    pool (forced here for tiny shapes), batch 1 included: non-overlapping
    windows (kernel 2, stride 2) and overlapping ones (3, 2: the
    per-offset backward of ``pool.py``, threaded under the fast path)."""
    from dlbook.ops import pool_fast

    if pool == 'lp' and k == s:
        pytest.skip('Lp pooling always takes the per-offset path')
    calls = force_thread_split(monkeypatch, pool_fast, threads)
    rng = np.random.RandomState(0)
    attrs = dict(kernel=(k,) * nd, stride=(s,) * nd, pad=(p,) * nd)
    attrs['pool_type'] = pool
    if pool == 'lp':
        attrs['p_value'] = 2
    spatial = {1: (7,), 2: (6, 7), 3: (4, 5, 6)}[nd]
    for batch in (1, 5):
        x = rng.uniform(-1, 1, (batch, 3) + spatial)
        # with ties (ReLU); Lp pooling's gradient x / y needs y > 0
        datas = (x, np.maximum(np.round(x), 0))
        if pool == 'lp':
            datas = (np.abs(x) + 0.1,)
        for data in datas:
            for dtype in (np.float64, np.float32):
                inputs = [data.astype(dtype)]
                assert_same(
                    run('Pooling', attrs, inputs, fast=True),
                    run('Pooling', attrs, inputs, fast=False),
                    dtype,
                    f'{attrs} batch {batch}',
                )
    assert calls and set(calls) == {threads}


def test_max_pool_fast_routes_ties_to_first_maximum():
    # MXNet 1.9.1 gives [[[[1, 0], [0, 0]]]] (first maximum, row-major).
    x = np.zeros((1, 1, 2, 2), np.float32)
    op = REGISTRY['Pooling'](kernel=(2, 2), stride=(2, 2), pool_type='max')
    with fastpath.use(True):
        op.forward(np, x)
        dx = op.backward(np, np.ones((1, 1, 1, 1), np.float32))
    np.testing.assert_array_equal(dx, [[[[1, 0], [0, 0]]]])


@pytest.mark.parametrize('channels_last', [False, True])
@pytest.mark.parametrize('threads', [1, 2])
def test_conv_forward_without_keeping_the_window_matrix(
    monkeypatch, channels_last, threads
):
    """``keep_cols=False`` (inference, or a matrix too large to keep)
    copies each block's windows into a small reused buffer: the same
    output, and no window matrix returned."""
    monkeypatch.setattr(conv_fast, 'BLOCK_BYTES', 1)  # one image a block
    force_thread_split(monkeypatch, None, threads)
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (5, 3, 9, 8))
    w = rng.uniform(-1, 1, (4, 3, 3, 2))
    b = rng.uniform(-1, 1, 4)
    args = (np, x, w, (1, 2), (1, 1), (7, 4), 1, b)
    want, cols = conv_fast.conv_forward(*args, channels_last=channels_last)
    got, none = conv_fast.conv_forward(
        *args, channels_last=channels_last, keep_cols=False
    )
    assert cols is not None and none is None
    np.testing.assert_allclose(got, want, 1e-12, 1e-12)


@pytest.mark.parametrize('layout', [None, 'NHWC'])
@pytest.mark.parametrize(
    'spatial,kernel,s,p,d',
    [
        ((1, 1), (3, 3), 1, 1, 1),  # a ResNet's last stage on 32x32
        ((2, 2), (3, 3), 2, 1, 1),  # the stride-2 block before it
        ((1, 3), (3, 3), 1, 1, 1),  # cut along one axis only
        ((2, 1), (5, 3), 1, 2, 1),
        ((1, 1), (3, 3), 1, 2, 2),  # dilated
        ((3, 3), (3, 3), 1, 1, 1),  # every tap reads input: not cut
    ],
)
def test_conv_kernel_cut_to_live_taps_matches_reference(
    layout, spatial, kernel, s, p, d
):
    """On maps so small that some kernel taps only ever read padding,
    the fast path runs a convolution with the kernel cut to the other
    taps: same outputs and gradients (zero for the cut taps), and the
    data gradient skipped when not needed."""
    rng = np.random.RandomState(0)
    attrs = conv_attrs(kernel, s, p, d)
    data = rng.uniform(-1, 1, (3, 2) + spatial)
    weight = rng.uniform(-1, 1, (4, 2) + kernel)
    if layout:
        attrs['layout'] = layout
        data, weight = np.moveaxis(data, 1, -1), np.moveaxis(weight, 1, -1)
    inputs = [data, weight, rng.uniform(-1, 1, 4)]
    for needs in (None, (False, True, True)):
        assert_same(
            run('Convolution', attrs, inputs, fast=True, needs=needs),
            run('Convolution', attrs, inputs, fast=False, needs=needs),
            np.float64,
            f'{attrs} needs={needs}',
        )


def test_live_taps():
    # 3x3, pad 1 on a 1x1 map: only the centre reads input
    cut = windows.live_taps((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1))
    index, kernel, pad = cut
    assert kernel == (1, 1) and pad == (0, 0)
    assert index[2:] == (slice(1, 2), slice(1, 2))
    # stride 2 on 2x2: taps 1 and 2 of each axis, no padding left
    cut = windows.live_taps((3, 3), (2, 2), (1, 1), (1, 1), (2, 2), (1, 1))
    assert cut[1:] == ((2, 2), (0, 0))
    # every tap reads input on larger maps
    assert (
        windows.live_taps((3, 3), (1, 1), (1, 1), (1, 1), (8, 8), (8, 8))
        is None
    )


@pytest.mark.parametrize(
    'shape, pad',
    [
        ((2, 3, 4, 5), (1, 2)),
        ((2, 3, 4, 5), (0, 0)),
        ((1, 2, 7), (3,)),
        ((2, 1, 2, 3, 4), (1, 0, 2)),
    ],
)
def test_pad_channels_last_is_pad_then_move(shape, pad):
    from dlbook.ops.windows import pad_channels_last, pad_spatial

    x = np.random.RandomState(0).uniform(-1, 1, shape).astype(np.float32)
    got = pad_channels_last(np, x, pad)
    want = np.moveaxis(pad_spatial(np, x, pad), 1, -1)
    np.testing.assert_array_equal(got, want)
    assert got.flags.c_contiguous and got.dtype == x.dtype
    assert not np.shares_memory(got, x)


def test_conv_keeps_the_input_only_when_it_rebuilds_windows(monkeypatch):
    """With the window matrix kept, backward never reads the input, so
    the operator does not hold it (memory, and writes into the input
    after the forward are harmless); without, it does."""
    from dlbook.ops import convolution

    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (2, 3, 6, 6))
    # (20 filters: too many for whole rows, which never keep windows)
    w = rng.uniform(-1, 1, (20, 3, 3, 3))
    for keep_bytes, holds in ((10**9, False), (0, True)):
        monkeypatch.setattr(convolution, 'KEEP_COLS_BYTES', keep_bytes)
        op = REGISTRY['Convolution'](kernel=(3, 3), num_filter=20, pad=(1, 1))
        op.is_train = True
        op.forward(np, x, w)
        assert (op.saved[0] is not None) == holds


# -- a convolution's epilogue (a fused activation) ---------------------------

#: (data shape, Convolution attributes, training, the route forward takes)
EPILOGUE_CASES = {
    'channels-last windows, kept': (
        (5, 3, 6, 6),
        dict(kernel=(3, 3), num_filter=20, pad=(1, 1)),
        True,
        'fast',
    ),
    'per-image windows, not kept': (
        (5, 3, 18, 18),
        dict(kernel=(3, 3), num_filter=20),
        False,
        'fast',
    ),
    'grouped': (
        (5, 4, 18, 18),
        dict(kernel=(3, 3), num_filter=4, num_group=2),
        True,
        'fast',
    ),
    'whole rows': (
        (5, 3, 9, 9),
        dict(kernel=(3, 3), num_filter=4),
        False,
        'wide rows',
    ),
    'taps cut': (
        (5, 3, 1, 1),
        dict(kernel=(3, 3), num_filter=4, pad=(1, 1)),
        True,
        'cut kernel',
    ),
}


@pytest.mark.parametrize('threads', [1, 2])
@pytest.mark.parametrize('case', sorted(EPILOGUE_CASES))
def test_convolution_epilogue_applied_once_to_every_element(
    monkeypatch, case, threads
):
    """``Convolution.epilogue`` runs on blocks of images of the output
    as the forward writes them: every element gets it exactly once
    (``2 y + 1`` is exact in float64), on every route, on one thread or
    split over several."""
    shape, attrs, train, route = EPILOGUE_CASES[case]
    calls = force_thread_split(monkeypatch, None, threads)
    assert calls == []
    rng = np.random.RandomState(10)
    x = rng.randn(*shape)
    groups = attrs.get("num_group", 1)
    w = rng.randn(attrs["num_filter"], shape[1] // groups, 3, 3)
    b = rng.randn(attrs['num_filter'])
    plain = REGISTRY['Convolution'](**attrs)
    plain.is_train = train
    expected = 2 * plain.forward(np, x, w, b) + 1
    blocks = []

    def epilogue(xp, y_block):
        blocks.append(y_block.shape[0])
        xp.multiply(y_block, 2, out=y_block)
        y_block += 1

    op = REGISTRY['Convolution'](**attrs)
    op.is_train = train
    op.epilogue = epilogue
    np.testing.assert_array_equal(op.forward(np, x, w, b), expected)
    first = op.saved[0]
    taken = first if isinstance(first, str) else op.saved[-1]
    assert taken == route
    assert sum(blocks) == shape[0]
    if route != 'cut kernel':  # (its inner convolution's output after)
        assert len(blocks) >= threads
