"""Convolution, Deconvolution and Pooling against nested-loop references.

The case table (``cases_conv.py``, ``cases_pool.py``) checks a handful of
rows, including numeric gradients.  Here a grid of option combinations
(1-D/2-D/3-D, stride, pad, dilation, groups, bias, pooling conventions)
is compared, forward and backward, with the loop-based references, plus
the shape-inference contract and the error messages.
"""

import itertools

import numpy as np
import pytest

# Load the merged table first: cases_<family> modules import from it.
import tests.ops.cases  # noqa: F401
from dlbook.base import DLBookError
from dlbook.ops import REGISTRY
from tests.ops.cases_conv import conv_grad_ref, conv_ref, deconv_ref
from tests.ops.cases_pool import pool_grad_ref, pool_out_size, pool_ref

RTOL, ATOL = 1e-5, 1e-5


def make(name, **attrs):
    return REGISTRY[name](**attrs)


# -- Convolution ------------------------------------------------------------

SPATIAL = {1: (7,), 2: (5, 6), 3: (4, 5, 4)}
KERNEL = {1: (3,), 2: (3, 2), 3: (2, 3, 2)}

CONV_GRID = [
    pytest.param(
        nd,
        s,
        p,
        d,
        g,
        bias,
        id=f'{nd}d-s{s}-p{p}-d{d}-g{g}-{"b" if bias else "nob"}',
    )
    for nd, s, p, d, g, bias in itertools.product(
        (1, 2, 3), (1, 2), (0, 1), (1, 2), (1, 2), (True, False)
    )
    # 3-D with dilation 2 needs a larger input than we want to loop over
    if not (nd == 3 and d == 2 and p == 0)
]


def conv_setup(nd, s, p, d, g, bias, seed=0):
    rng = np.random.RandomState(seed)
    channels, filters = 2 * g, 2 * g
    kernel = KERNEL[nd]
    x = rng.uniform(-1, 1, (2, channels) + SPATIAL[nd])
    w = rng.uniform(-1, 1, (filters, channels // g) + kernel)
    b = rng.uniform(-1, 1, (filters,)) if bias else None
    attrs = dict(
        kernel=kernel,
        num_filter=filters,
        num_group=g,
        stride=(s,) * nd,
        pad=(p,) * nd,
        dilate=(d,) * nd,
        no_bias=not bias,
    )
    kw = dict(stride=(s,) * nd, pad=(p,) * nd, dilate=(d,) * nd, groups=g)
    return x, w, b, attrs, kw


@pytest.mark.parametrize('nd,s,p,d,g,bias', CONV_GRID)
def test_convolution_forward_backward(nd, s, p, d, g, bias):
    x, w, b, attrs, kw = conv_setup(nd, s, p, d, g, bias)
    op = make('Convolution', **attrs)
    inputs = [x, w] + ([b] if bias else [])
    y = op.forward(np, *[a.astype(np.float32) for a in inputs])
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, conv_ref(x, w, b, **kw), RTOL, ATOL)

    op = make('Convolution', **attrs)
    y = op.forward(np, *inputs)  # float64
    dy = np.random.RandomState(1).uniform(-1, 1, y.shape)
    grads = op.backward(np, dy)
    assert len(grads) == len(inputs)
    want = conv_grad_ref(x, w, dy, **kw)
    for got, ref, label in zip(grads, want, ('data', 'weight', 'bias')):
        assert got.shape == ref.shape, label
        np.testing.assert_allclose(got, ref, 1e-10, 1e-10, err_msg=label)


def test_convolution_training_mode_keeps_cols_same_gradients():
    x, w, b, attrs, kw = conv_setup(2, 2, 1, 1, 2, True)
    grads = []
    for is_train in (False, True):
        op = make('Convolution', **attrs)
        op.is_train = is_train
        y = op.forward(np, x, w, b)
        first = op.backward(np, np.ones_like(y))
        again = op.backward(np, np.ones_like(y))  # retain_graph: twice
        for g1, g2 in zip(first, again):
            np.testing.assert_array_equal(g1, g2)
        grads.append(first)
    for g1, g2 in zip(*grads):
        np.testing.assert_allclose(g1, g2, 1e-12, 1e-12)


@pytest.mark.parametrize('name', ['Convolution', 'Deconvolution'])
def test_backward_skips_gradients_not_needed(name):
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (2, 2, 5, 5))
    w = rng.uniform(
        -1, 1, (2, 3, 3, 3) if name == 'Deconvolution' else (3, 2, 3, 3)
    )
    b = np.zeros(3)
    attrs = dict(kernel=(3, 3), num_filter=3, no_bias=False)
    full = make(name, **attrs)
    y = full.forward(np, x, w, b)
    dy = rng.uniform(-1, 1, y.shape)
    want = full.backward(np, dy)
    for mask in [
        (False, True, True),
        (True, False, True),
        (False, False, True),
    ]:
        op = make(name, **attrs)
        op.needs_input_grad = mask
        op.forward(np, x, w, b)
        got = op.backward(np, dy)
        for g, ref, needed in zip(got, want, mask):
            if needed:
                np.testing.assert_allclose(g, ref, 1e-12, 1e-12)
            else:
                assert g is None


def test_convolution_infer_shape_fills_parameters():
    op = make('Convolution', kernel=(5, 5), num_filter=6, pad=(2, 2))
    assert op.list_arguments() == ('data', 'weight', 'bias')
    ins, outs, aux = op.infer_shape((256, 1, 28, 28), None, None)
    assert ins == [(256, 1, 28, 28), (6, 1, 5, 5), (6,)]
    assert outs == [(256, 6, 28, 28)] and aux == []
    # groups, stride, dilation, no bias
    op = make(
        'Convolution',
        kernel=(3, 3),
        num_filter=8,
        num_group=2,
        stride=(2, 2),
        dilate=(2, 2),
        no_bias=True,
    )
    assert op.list_arguments() == ('data', 'weight')
    ins, outs, _ = op.infer_shape((4, 6, 11, 12), None)
    assert ins == [(4, 6, 11, 12), (8, 3, 3, 3)]
    assert outs == [(4, 8, 4, 4)]  # floor((11 - 4 - 1)/2) + 1 = 4
    # unknown batch (0) still gives parameter shapes
    ins, outs, _ = op.infer_shape((0, 6, 11, 12), (0, 0, 0, 0))
    assert ins[1] == (8, 3, 3, 3) and outs == [(0, 8, 4, 4)]
    # unknown data
    ins, outs, _ = op.infer_shape(None, None)
    assert outs == [None]


def test_convolution_string_attributes_from_json():
    op = make(
        'Convolution',
        kernel='(3, 3)',
        num_filter='4',
        pad='(1, 1)',
        no_bias='True',
        stride='(1, 1)',
        num_group='1',
    )
    assert op.list_arguments() == ('data', 'weight')
    x = np.ones((1, 2, 4, 4), np.float32)
    w = np.ones((4, 2, 3, 3), np.float32)
    y = op.forward(np, x, w)
    assert y.shape == (1, 4, 4, 4) and y[0, 0, 1, 1] == 18


@pytest.mark.parametrize(
    'attrs,shapes,words',
    [
        (
            dict(kernel=(3, 3), num_filter=2),
            [(1, 3, 5, 5), (2, 2, 3, 3), (2,)],
            ['weight', '(2, 2, 3, 3)', '(2, 3, 3, 3)'],
        ),
        (
            dict(kernel=(3, 3), num_filter=2, num_group=2),
            [(1, 3, 5, 5), (2, 1, 3, 3), (2,)],
            ['channels', 'num_group=2'],
        ),
        (
            dict(kernel=(7, 7), num_filter=2),
            [(1, 1, 5, 5), (2, 1, 7, 7), (2,)],
            ['kernel=(7, 7)', '(1, 1, 5, 5)'],
        ),
        (
            dict(kernel=(3, 3), num_filter=2, dilate=(3, 3)),
            [(1, 1, 6, 6), (2, 1, 3, 3), (2,)],
            ['dilate=(3, 3)'],
        ),
        (
            dict(kernel=(3, 3), num_filter=2),
            [(1, 5, 5), (2, 1, 3, 3), (2,)],
            ['4-D', '(1, 5, 5)'],
        ),
        (
            dict(kernel=(3, 3), num_filter=3),
            [(1, 1, 5, 5), (3, 1, 3, 3), (2,)],
            ['bias', '(2,)'],
        ),
    ],
)
def test_convolution_errors_name_op_and_shapes(attrs, shapes, words):
    arrays = [np.zeros(s, np.float32) for s in shapes]
    with pytest.raises(DLBookError) as info:
        make('Convolution', **attrs).forward(np, *arrays)
    message = str(info.value)
    assert 'Convolution' in message
    for word in words:
        assert word in message, message


def test_convolution_bad_attributes():
    x = np.zeros((1, 1, 5, 5), np.float32)
    w = np.zeros((2, 1, 3, 3), np.float32)
    with pytest.raises(DLBookError, match='kernel'):
        make('Convolution', num_filter=2).forward(np, x, w)
    with pytest.raises(DLBookError, match='stride'):
        make(
            'Convolution', kernel=(3, 3), num_filter=2, stride=(1, 1, 1)
        ).forward(np, x, w)
    with pytest.raises(DLBookError, match='layout'):
        make('Convolution', kernel=(3, 3), num_filter=2, layout='NWC').forward(
            np, x, w
        )


def test_convolution_accepts_scalar_stride_and_layout():
    x = np.random.rand(1, 1, 6, 6).astype(np.float32)
    w = np.random.rand(2, 1, 3, 3).astype(np.float32)
    b = np.zeros(2, np.float32)
    op = make(
        'Convolution',
        kernel=(3, 3),
        num_filter=2,
        stride=2,
        pad=1,
        layout='NCHW',
    )
    np.testing.assert_allclose(
        op.forward(np, x, w, b),
        conv_ref(x, w, b, stride=(2, 2), pad=(1, 1)),
        RTOL,
        ATOL,
    )


# -- Deconvolution -----------------------------------------------------------


def deconv_grad_ref(x, w, dy, stride, pad, dilate, groups):
    """Loops: y_pad[n, gF+f, i*s + k*d] += x[n, c, i] * w[c, f, k], so dy
    at that position flows to x (times w) and to w (times x)."""
    nd = x.ndim - 2
    kernel = w.shape[2:]
    fg = w.shape[1]
    cg = x.shape[1] // groups
    dy_pad = np.pad(dy, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    # room for windows that reach into the adj region
    extra = [
        max(
            0,
            (x.shape[2 + a] - 1) * stride[a]
            + dilate[a] * (kernel[a] - 1)
            + 1
            - dy_pad.shape[2 + a],
        )
        for a in range(nd)
    ]
    dy_pad = np.pad(dy_pad, [(0, 0), (0, 0)] + [(0, e) for e in extra])
    dx, dw = np.zeros_like(x), np.zeros_like(w)
    for n in range(x.shape[0]):
        for c in range(x.shape[1]):
            g = c // cg
            for i in np.ndindex(*x.shape[2:]):
                for f in range(fg):
                    for k in np.ndindex(*kernel):
                        o = tuple(
                            i[a] * stride[a] + k[a] * dilate[a]
                            for a in range(nd)
                        )
                        grad = dy_pad[(n, g * fg + f) + o]
                        dx[(n, c) + i] += grad * w[(c, f) + k]
                        dw[(c, f) + k] += grad * x[(n, c) + i]
    db = dy.sum(axis=(0,) + tuple(range(2, dy.ndim)))
    return dx, dw, db


DECONV_GRID = [
    pytest.param(
        nd,
        s,
        p,
        a,
        d,
        g,
        bias,
        id=f'{nd}d-s{s}-p{p}-adj{a}-d{d}-g{g}-{"b" if bias else "nob"}',
    )
    for nd, s, p, a, d, g, bias in itertools.product(
        (1, 2, 3), (1, 2), (0, 1), (0, 1), (1, 2), (1, 2), (True, False)
    )
    if a < s and not (nd == 3 and (d == 2 or g == 2))
]


@pytest.mark.parametrize('nd,s,p,a,d,g,bias', DECONV_GRID)
def test_deconvolution_forward_backward(nd, s, p, a, d, g, bias):
    rng = np.random.RandomState(0)
    spatial = {1: (4,), 2: (3, 4), 3: (2, 3, 2)}[nd]
    kernel = KERNEL[nd]
    channels, filters = 2 * g, 3 * g
    x = rng.uniform(-1, 1, (2, channels) + spatial)
    w = rng.uniform(-1, 1, (channels, filters // g) + kernel)
    b = rng.uniform(-1, 1, (filters,)) if bias else None
    attrs = dict(
        kernel=kernel,
        num_filter=filters,
        num_group=g,
        stride=(s,) * nd,
        pad=(p,) * nd,
        adj=(a,) * nd,
        dilate=(d,) * nd,
        no_bias=not bias,
    )
    kw = dict(stride=(s,) * nd, pad=(p,) * nd, dilate=(d,) * nd, groups=g)
    inputs = [x, w] + ([b] if bias else [])

    op = make('Deconvolution', **attrs)
    y = op.forward(np, *[v.astype(np.float32) for v in inputs])
    want = deconv_ref(x, w, b, adj=(a,) * nd, **kw)
    assert y.dtype == np.float32 and y.shape == want.shape
    np.testing.assert_allclose(y, want, RTOL, ATOL)
    _, outs, _ = make('Deconvolution', **attrs).infer_shape(
        x.shape, w.shape, *([b.shape] if bias else [])
    )
    assert outs == [want.shape]

    op = make('Deconvolution', **attrs)
    y = op.forward(np, *inputs)
    dy = np.random.RandomState(1).uniform(-1, 1, y.shape)
    grads = op.backward(np, dy)
    assert len(grads) == len(inputs)
    refs = deconv_grad_ref(x, w, dy, **kw)
    for got, ref, label in zip(grads, refs, ('data', 'weight', 'bias')):
        np.testing.assert_allclose(got, ref, 1e-10, 1e-10, err_msg=label)


def test_deconvolution_is_convolution_input_gradient():
    """<conv(x, w), y> == <x, deconv(y, w)>: the two are adjoint."""
    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, (2, 4, 7, 6))
    w = rng.uniform(-1, 1, (6, 2, 3, 3))
    geometry = dict(
        kernel=(3, 3), stride=(2, 2), pad=(1, 1), dilate=(1, 2), num_group=2
    )
    conv = make('Convolution', num_filter=6, no_bias=True, **geometry)
    y = conv.forward(np, x, w)
    dy = rng.uniform(-1, 1, y.shape)
    # adj makes the deconvolution output x's shape again
    deconv = make('Deconvolution', num_filter=4, adj=(0, 1), **geometry)
    back = deconv.forward(np, dy, w)
    assert back.shape == x.shape
    np.testing.assert_allclose(np.sum(y * dy), np.sum(x * back), 1e-10)
    np.testing.assert_allclose(back, conv.backward(np, dy)[0], 1e-10, 1e-12)


def test_deconvolution_infer_shape_and_target_shape():
    op = make(
        'Deconvolution', kernel=(4, 4), num_filter=3, stride=(2, 2), pad=(1, 1)
    )
    assert op.list_arguments() == ('data', 'weight')  # no_bias=True
    ins, outs, _ = op.infer_shape((2, 8, 5, 5), None)
    assert ins == [(2, 8, 5, 5), (8, 3, 4, 4)]
    assert outs == [(2, 3, 10, 10)]  # (5-1)*2 - 2 + 4 = 10
    op = make(
        'Deconvolution',
        kernel=(3, 3),
        num_filter=2,
        stride=(2, 2),
        target_shape=(10, 9),
        no_bias=False,
    )
    ins, outs, _ = op.infer_shape((1, 4, 5, 5), None, None)
    assert ins[1:] == [(4, 2, 3, 3), (2,)]
    assert outs == [(1, 2, 10, 9)]
    x = np.random.rand(1, 4, 5, 5).astype(np.float32)
    w = np.random.rand(4, 2, 3, 3).astype(np.float32)
    y = op.forward(np, x, w, np.zeros(2, np.float32))
    assert y.shape == (1, 2, 10, 9)
    with pytest.raises(DLBookError, match='target_shape'):
        make(
            'Deconvolution', kernel=(3, 3), num_filter=2, target_shape=(20, 20)
        ).infer_shape((1, 4, 5, 5), None)
    with pytest.raises(DLBookError, match='adj'):
        make(
            'Deconvolution', kernel=(3, 3), num_filter=2, adj=(1, 1)
        ).infer_shape((1, 4, 5, 5), None)
    with pytest.raises(DLBookError, match='Deconvolution.*weight'):
        make('Deconvolution', kernel=(3, 3), num_filter=2).forward(
            np, x, np.zeros((2, 4, 3, 3), np.float32)
        )


# -- Pooling -----------------------------------------------------------------

POOL_SPATIAL = {1: (7,), 2: (5, 6), 3: (4, 5, 3)}
POOL_KERNEL = {1: (3,), 2: (2, 3), 3: (2, 2, 3)}


def _windows_nonempty(spatial, kernel, stride, pad, convention):
    """Skip 'full' windows that start beyond the data (MXNet divides by
    zero there; the reference cannot pool an empty window)."""
    for size, k, s, p in zip(spatial, kernel, stride, pad):
        last = (pool_out_size(size, k, s, p, convention) - 1) * s - p
        if last >= size:
            return False
    return True


POOL_GRID = [
    pytest.param(
        nd,
        kind,
        s,
        p,
        conv,
        inc,
        id=f'{nd}d-{kind}-s{s}-p{p}-{conv}-{"inc" if inc else "exc"}',
    )
    for nd, kind, s, p, conv, inc in itertools.product(
        (1, 2, 3),
        ('max', 'avg', 'sum'),
        (1, 2),
        (0, 1),
        ('valid', 'full'),
        (True, False),
    )
    if (inc or kind == 'avg')
    and _windows_nonempty(
        POOL_SPATIAL[nd], POOL_KERNEL[nd], (s,) * nd, (p,) * nd, conv
    )
]


def distinct_values(shape, rng):
    size = int(np.prod(shape))
    return ((rng.permutation(size) - size / 2) / size).reshape(shape)


@pytest.mark.parametrize('nd,kind,s,p,conv,inc', POOL_GRID)
def test_pooling_forward_backward(nd, kind, s, p, conv, inc):
    rng = np.random.RandomState(0)
    x = distinct_values((2, 3) + POOL_SPATIAL[nd], rng)
    kernel = POOL_KERNEL[nd]
    attrs = dict(
        kernel=kernel,
        pool_type=kind,
        stride=(s,) * nd,
        pad=(p,) * nd,
        pooling_convention=conv,
        count_include_pad=inc,
    )
    kw = dict(
        kernel=kernel,
        pool_type=kind,
        stride=(s,) * nd,
        pad=(p,) * nd,
        convention=conv,
        count_include_pad=inc,
    )
    op = make('Pooling', **attrs)
    y = op.forward(np, x.astype(np.float32))
    want = pool_ref(x, **kw)
    assert y.dtype == np.float32 and y.shape == want.shape
    np.testing.assert_allclose(y, want, RTOL, ATOL)
    assert make('Pooling', **attrs).infer_shape(x.shape)[1] == [want.shape]

    op = make('Pooling', **attrs)
    y = op.forward(np, x)
    dy = rng.uniform(-1, 1, y.shape)
    np.testing.assert_allclose(
        op.backward(np, dy), pool_grad_ref(x, dy, **kw), 1e-10, 1e-12
    )


@pytest.mark.parametrize('kind', ['max', 'avg', 'sum', 'lp'])
@pytest.mark.parametrize('nd', [1, 2, 3])
def test_global_pooling(nd, kind):
    rng = np.random.RandomState(0)
    x = distinct_values((2, 3) + POOL_SPATIAL[nd], rng) + 1.0
    p_value = 2 if kind == 'lp' else None
    op = make(
        'Pooling',
        global_pool=True,
        pool_type=kind,
        p_value=p_value,
        kernel=(1,) * nd,
        pad=(1,) * nd,
    )  # ignored by global_pool
    y = op.forward(np, x)
    kw = dict(pool_type=kind, global_pool=True, p_value=p_value)
    assert y.shape == (2, 3) + (1,) * nd
    np.testing.assert_allclose(y, pool_ref(x, **kw), 1e-12)
    dy = rng.uniform(-1, 1, y.shape)
    np.testing.assert_allclose(
        op.backward(np, dy), pool_grad_ref(x, dy, **kw), 1e-10, 1e-12
    )


def test_max_pooling_ties_go_to_first_maximum():
    x = np.ones((1, 1, 2, 4))
    op = make('Pooling', kernel=(2, 2), stride=(2, 2))
    y = op.forward(np, x)
    dx = op.backward(np, np.ones_like(y))
    np.testing.assert_array_equal(dx[0, 0], [[1, 0, 1, 0], [0, 0, 0, 0]])
    op = make('Pooling', global_pool=True)
    op.forward(np, x)
    dx = op.backward(np, np.ones((1, 1, 1, 1)))
    assert dx[0, 0, 0, 0] == 1 and dx.sum() == 1


@pytest.mark.parametrize('fast', [True, False])
@pytest.mark.parametrize(
    'kw',
    [
        dict(kernel=(2, 2), stride=(2, 2)),  # windows tile the input
        dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1)),  # they overlap
    ],
)
def test_max_pooling_ties_at_every_offset_go_to_the_first(kw, fast):
    """Small integers: most windows hold their max twice or more, first
    at any offset; only the first gets the gradient."""
    from dlbook.ops import fastpath

    x = np.random.RandomState(3).randint(0, 3, (2, 3, 8, 8)).astype(float)
    op = make('Pooling', **kw)
    with fastpath.use(fast):
        y = op.forward(np, x)
        dy = np.random.RandomState(4).uniform(size=y.shape)
        dx = op.backward(np, dy)
    np.testing.assert_allclose(dx, pool_grad_ref(x, dy, **kw), 1e-12, 0)


def test_pooling_lp_matches_reference():
    rng = np.random.RandomState(2)
    x = rng.uniform(0.5, 1.5, (2, 2, 5, 5))
    for p_value in (1, 2, 3):
        kw = dict(
            kernel=(3, 3),
            pool_type='lp',
            stride=(2, 2),
            pad=(1, 1),
            p_value=p_value,
        )
        op = make('Pooling', **kw)
        y = op.forward(np, x)
        ref_kw = dict(kw)
        np.testing.assert_allclose(y, pool_ref(x, **ref_kw), 1e-12)
        dy = rng.uniform(-1, 1, y.shape)
        np.testing.assert_allclose(
            op.backward(np, dy), pool_grad_ref(x, dy, **ref_kw), 1e-10
        )


def test_pooling_same_convention_shape():
    op = make('Pooling', kernel=(3,), stride=(2,), pooling_convention='same')
    y = op.forward(np, np.random.rand(2, 3, 7).astype(np.float32))
    assert y.shape == (2, 3, 4)  # ceil(7 / 2)


def test_pooling_defaults_and_errors():
    # stride defaults to 1, pad to 0
    op = make('Pooling', kernel=(2, 2))
    assert op.infer_shape((1, 2, 5, 6)) == ([(1, 2, 5, 6)], [(1, 2, 4, 5)], [])
    with pytest.raises(DLBookError, match=r'Pooling.*\(1, 2, 3, 3\)'):
        make('Pooling', kernel=(5, 5)).forward(
            np, np.zeros((1, 2, 3, 3), np.float32)
        )
    with pytest.raises(DLBookError, match='Pooling.*kernel'):
        make('Pooling', kernel=(2,)).forward(
            np, np.zeros((1, 2, 3, 3), np.float32)
        )
    with pytest.raises(DLBookError, match='Pooling.*data'):
        make('Pooling', kernel=(2, 2)).forward(
            np, np.zeros((3, 3), np.float32)
        )
    with pytest.raises(DLBookError, match='pool_type'):
        make('Pooling', kernel=(2, 2), pool_type='median').forward(
            np, np.zeros((1, 1, 3, 3), np.float32)
        )
    with pytest.raises(DLBookError, match='p_value'):
        make('Pooling', kernel=(2, 2), pool_type='lp').forward(
            np, np.zeros((1, 1, 3, 3), np.float32)
        )


def test_pooling_runs_on_zero_stride_dummies():
    """The symbol layer may run forward on numpy.broadcast_to(0.0, shape)
    to infer shapes; pooling must cope with read-only zero-stride input."""
    x = np.broadcast_to(np.float32(0), (4, 3, 8, 8))
    for kind in ('max', 'avg'):
        y = make(
            'Pooling', kernel=(2, 2), stride=(2, 2), pool_type=kind
        ).forward(np, x)
        assert y.shape == (4, 3, 4, 4)


@pytest.mark.parametrize('kind', ['avg', 'sum', 'max'])
def test_pooling_of_zero_size_input_keeps_its_shape(kind):
    """An empty spatial axis gives an empty output of the right shape
    (average pooling's divisor table is empty then)."""
    y = make('Pooling', kernel=(2, 2), stride=(2, 2), pool_type=kind).forward(
        np, np.zeros((2, 3, 0, 5), np.float32)
    )
    assert y.shape == (2, 3, 0, 2)
