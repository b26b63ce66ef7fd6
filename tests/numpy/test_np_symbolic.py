"""``sym.np``/``sym.npx`` beyond element-wise functions: every name runs
the same operator eagerly (``mx.np``), hybridized (``F.np`` in a traced
block) and in a symbol graph (``sym.np``), and the three agree in value,
shape, dtype and gradient, with NumPy as the reference for the values.
Symbol arithmetic operators keep legacy semantics (no broadcasting), so
the graphs here spell broadcasting arithmetic ``np.add``, ``np.multiply``.

The node names are MXNet 1.9.1's (recorded from ``mx.sym.np`` calls under
``npx.set_np()``).
"""

import json

import numpy as onp
import pytest

import dlbook as mx
from dlbook import autograd, gluon, np, npx, sym


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


RNG = onp.random.RandomState(0)


def _u(*shape):
    return RNG.uniform(-1, 1, size=shape).astype('float32')


A34 = _u(3, 4)
B34 = _u(3, 4)
B43 = _u(4, 3)
V4 = _u(4)
W4 = _u(4)
T234 = _u(2, 3, 4)
Z = A34.copy()
Z[Z < -0.3] = 0
IDX = onp.array([2, 0, 1], dtype='int64')
LEN = onp.array([1, 3, 2], dtype='float32')

# name, f(np_module, npx_module, *arrays), inputs, NumPy reference (or
# None: the layer operators, checked eager == hybridized == symbolic),
# the MXNet 1.9.1 node name
CASES = [
    (
        'sum',
        lambda n, x, a: n.sum(a, axis=1, keepdims=True),
        [A34],
        lambda a: a.sum(axis=1, keepdims=True),
        '_np_sum',
    ),
    ('sum_all', lambda n, x, a: n.sum(a), [A34], lambda a: a.sum(), '_np_sum'),
    (
        'mean',
        lambda n, x, a: n.mean(a, axis=0),
        [A34],
        lambda a: a.mean(axis=0),
        '_npi_mean',
    ),
    (
        'max',
        lambda n, x, a: n.max(a, axis=1),
        [A34],
        lambda a: a.max(axis=1),
        '_np_max',
    ),
    ('min', lambda n, x, a: n.min(a), [A34], lambda a: a.min(), '_np_min'),
    (
        'prod',
        lambda n, x, a: n.prod(a, axis=0),
        [A34],
        lambda a: a.prod(axis=0),
        '_np_prod',
    ),
    (
        'argmax',
        lambda n, x, a: n.argmax(a, axis=1),
        [A34],
        lambda a: a.argmax(axis=1),
        '_npi_argmax',
    ),
    (
        'argmax_all',
        lambda n, x, a: n.argmax(a),
        [A34],
        lambda a: a.argmax(),
        '_npi_argmax',
    ),
    (
        'argmin',
        lambda n, x, a: n.argmin(a, axis=0),
        [A34],
        lambda a: a.argmin(axis=0),
        '_npi_argmin',
    ),
    ('std', lambda n, x, a: n.std(a), [A34], lambda a: a.std(), '_npi_std'),
    (
        'var',
        lambda n, x, a: n.var(a, axis=0, ddof=1),
        [A34],
        lambda a: a.var(axis=0, ddof=1),
        '_npi_var',
    ),
    (
        'cumsum',
        lambda n, x, a: n.cumsum(a, axis=1),
        [A34],
        lambda a: a.cumsum(axis=1),
        '_np_cumsum',
    ),
    (
        'all',
        lambda n, x, a: n.all(a, axis=1),
        [Z],
        lambda a: a.all(axis=1),
        '_np_all',
    ),
    ('any', lambda n, x, a: n.any(a), [Z], lambda a: a.any(), '_np_any'),
    (
        'dot_vectors',
        lambda n, x, a, b: n.dot(a, b),
        [V4, W4],
        onp.dot,
        '_np_dot',
    ),
    ('dot', lambda n, x, a, b: n.dot(a, b), [A34, B43], onp.dot, '_np_dot'),
    ('dot_nd', lambda n, x, a, b: n.dot(a, b), [T234, V4], onp.dot, '_np_dot'),
    (
        'matmul',
        lambda n, x, a, b: n.matmul(a, b),
        [T234, B43],
        onp.matmul,
        '_npi_matmul',
    ),
    (
        'reshape',
        lambda n, x, a: n.reshape(a, (2, -1)),
        [A34],
        lambda a: a.reshape(2, -1),
        '_np_reshape',
    ),
    ('ravel', lambda n, x, a: n.ravel(a), [A34], onp.ravel, '_np_reshape'),
    (
        'transpose',
        lambda n, x, a: n.transpose(a),
        [T234],
        onp.transpose,
        '_np_transpose',
    ),
    (
        'transpose_axes',
        lambda n, x, a: n.transpose(a, (1, 0, 2)),
        [T234],
        lambda a: a.transpose(1, 0, 2),
        '_np_transpose',
    ),
    (
        'swapaxes',
        lambda n, x, a: n.swapaxes(a, 0, 2),
        [T234],
        lambda a: a.swapaxes(0, 2),
        'SwapAxis',
    ),
    (
        'expand_dims',
        lambda n, x, a: n.expand_dims(a, 1),
        [A34],
        lambda a: onp.expand_dims(a, 1),
        'expand_dims',
    ),
    (
        'squeeze',
        lambda n, x, a: n.squeeze(n.expand_dims(a, 0)),
        [A34],
        lambda a: a,
        '_np_squeeze',
    ),
    (
        'broadcast_to',
        lambda n, x, a: n.broadcast_to(a, (2, 3, 4)),
        [V4],
        lambda a: onp.broadcast_to(a, (2, 3, 4)),
        '_npi_broadcast_to',
    ),
    (
        'tile',
        lambda n, x, a: n.tile(a, (2, 1)),
        [A34],
        lambda a: onp.tile(a, (2, 1)),
        'tile',
    ),
    (
        'repeat',
        lambda n, x, a: n.repeat(a, 2, axis=0),
        [A34],
        lambda a: a.repeat(2, axis=0),
        'repeat',
    ),
    (
        'concatenate',
        lambda n, x, a, b: n.concatenate([a, b], axis=1),
        [A34, B34],
        lambda a, b: onp.concatenate([a, b], axis=1),
        '_npi_concatenate',
    ),
    (
        'stack',
        lambda n, x, a, b: n.stack([a, b], axis=1),
        [A34, B34],
        lambda a, b: onp.stack([a, b], axis=1),
        '_npi_stack',
    ),
    (
        'split',
        lambda n, x, a: n.split(a, 2, axis=1),
        [A34],
        lambda a: onp.split(a, 2, axis=1),
        '_split_v2',
    ),
    (
        'split_indices',
        lambda n, x, a: n.split(a, [1, 3], axis=1),
        [A34],
        lambda a: onp.split(a, [1, 3], axis=1),
        '_split_v2',
    ),
    (
        'where',
        lambda n, x, a, b: n.where(n.greater(a, 0), a, b),
        [A34, B34],
        lambda a, b: onp.where(a > 0, a, b),
        '_npi_where',
    ),
    (
        'where_scalar',
        lambda n, x, a: n.where(n.less(a, 0), a, 0.5),
        [A34],
        lambda a: onp.where(a < 0, a, onp.float32(0.5)),
        '_npi_where_rscalar',
    ),
    (
        'zeros',
        lambda n, x, a: n.add(a, n.zeros((3, 4))),
        [A34],
        lambda a: a,
        '_npi_zeros',
    ),
    (
        'ones',
        lambda n, x, a: n.multiply(a, n.ones((4,))),
        [A34],
        lambda a: a,
        '_npi_ones',
    ),
    (
        'full',
        lambda n, x, a: n.subtract(a, n.full((3, 4), 2.0)),
        [A34],
        lambda a: a - 2,
        '_full',
    ),
    (
        'arange',
        lambda n, x, a: n.add(a, n.arange(4)),
        [A34],
        lambda a: a + onp.arange(4, dtype='float32'),
        '_npi_arange',
    ),
    (
        'linspace',
        lambda n, x, a: n.multiply(a, n.linspace(0, 1, 4)),
        [A34],
        lambda a: a * onp.linspace(0, 1, 4, dtype='float32'),
        '_linspace',
    ),
    (
        'eye',
        lambda n, x, a: n.dot(a, n.eye(4, k=1)),
        [A34],
        lambda a: a @ onp.eye(4, k=1, dtype='float32'),
        '_npi_eye',
    ),
    (
        'zeros_like',
        lambda n, x, a: n.add(a, n.zeros_like(a)),
        [A34],
        lambda a: a,
        '_npi_full_like',
    ),
    (
        'ones_like',
        lambda n, x, a: n.multiply(a, n.ones_like(a)),
        [A34],
        lambda a: a,
        '_npi_full_like',
    ),
    (
        'full_like',
        lambda n, x, a: n.add(a, n.full_like(a, 3.0)),
        [A34],
        lambda a: a + 3,
        '_npi_full_like',
    ),
    (
        'clip',
        lambda n, x, a: n.clip(a, -0.5, 0.5),
        [A34],
        lambda a: a.clip(-0.5, 0.5),
        'clip',
    ),
    ('sort', lambda n, x, a: n.sort(a), [A34], onp.sort, 'sort'),
    (
        'argsort',
        lambda n, x, a: n.argsort(a, axis=0),
        [A34],
        lambda a: a.argsort(axis=0),
        'argsort',
    ),
    (
        'take',
        lambda n, x, a, i: n.take(a, i, axis=1),
        [A34, IDX],
        lambda a, i: a.take(i, axis=1),
        'take',
    ),
    (
        'power',
        lambda n, x, a: n.power(n.abs(a), 1.5),
        [A34],
        lambda a: abs(a) ** 1.5,
        '_npi_power_scalar',
    ),
    (
        'exp_log',
        lambda n, x, a: n.log(n.add(n.exp(a), 1)),
        [A34],
        lambda a: onp.log(onp.exp(a) + 1),
        '_npi_log',
    ),
    ('softmax', lambda n, x, a: x.softmax(a), [A34], None, 'softmax'),
    (
        'log_softmax',
        lambda n, x, a: x.log_softmax(a, axis=0),
        [A34],
        None,
        'log_softmax',
    ),
    (
        'one_hot',
        lambda n, x, i: x.one_hot(i, 5),
        [IDX],
        lambda i: onp.eye(5, dtype='float32')[i],
        'one_hot',
    ),
    (
        'batch_dot',
        lambda n, x, a, b: x.batch_dot(a, b, transpose_b=True),
        [T234, T234],
        lambda a, b: a @ b.transpose(0, 2, 1),
        'batch_dot',
    ),
    (
        'sequence_mask',
        lambda n, x, a, s: x.sequence_mask(
            a, s, use_sequence_length=True, value=-1.0, axis=1
        ),
        [A34, LEN],
        None,
        'SequenceMask',
    ),
    (
        'pick',
        lambda n, x, a, i: x.pick(a, i),
        [A34[:, :3].T.copy(), IDX],
        None,
        'pick',
    ),
    (
        'batch_flatten',
        lambda n, x, a: x.batch_flatten(a),
        [T234],
        lambda a: a.reshape(2, -1),
        'Flatten',
    ),
    (
        'npx_reshape',
        lambda n, x, a: x.reshape(a, (-2, -2, -6, 2, -1)),
        [T234],
        lambda a: a.reshape(2, 3, 2, 2),
        '_npx_reshape',
    ),
    (
        'relu',
        lambda n, x, a: x.relu(a),
        [A34],
        lambda a: onp.maximum(a, 0),
        '_npx_relu',
    ),
    (
        'sigmoid',
        lambda n, x, a: x.sigmoid(a),
        [A34],
        lambda a: 1 / (1 + onp.exp(-a)),
        '_npx_sigmoid',
    ),
    (
        'topk',
        lambda n, x, a: x.topk(a, k=2, ret_typ='value'),
        [A34],
        None,
        'topk',
    ),
    # anchors depend on the input's shape only: the sum makes a gradient
    (
        'multibox_prior',
        lambda n, x, a: n.add(
            x.multibox_prior(a, sizes=(0.5, 0.25), ratios=(1, 2)), n.sum(a)
        ),
        [T234[None, :, :, :2]],
        None,
        '_contrib_MultiBoxPrior',
    ),
    (
        'roi_pooling',
        lambda n, x, a, r: x.roi_pooling(
            a, r, pooled_size=(2, 2), spatial_scale=1.0
        ),
        [
            _u(1, 2, 6, 6),
            onp.array([[0, 0, 0, 3, 3], [0, 1, 2, 5, 5]], dtype='float32'),
        ],
        None,
        'ROIPooling',
    ),
    (
        'fully_connected',
        lambda n, x, a, w: x.fully_connected(a, w, num_hidden=3, no_bias=True),
        [A34, B34],
        lambda a, w: a @ w.T,
        'FullyConnected',
    ),
]
IDS = [c[0] for c in CASES]


def _as_list(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _float(a):
    return a.dtype.kind == 'f'


def run_eager(f, arrays):
    xs = [np.array(a, dtype=a.dtype) for a in arrays]
    for x in xs:
        if _float(x):
            x.attach_grad()
    with autograd.record():
        outs = _as_list(f(np, npx, *xs))
    heads = [o for o in outs if _float(o)]
    if heads and any(_float(a) for a in arrays):
        autograd.backward(heads, [np.ones_like(o) for o in heads])
    grads = [x.grad.asnumpy() if _float(x) else None for x in xs]
    return outs, grads


class Hybrid(gluon.HybridBlock):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def hybrid_forward(self, F, *xs):
        out = self.f(F.np, F.npx, *xs)
        return tuple(out) if isinstance(out, list) else out


def run_hybridized(f, arrays):
    block = Hybrid(f)
    block.hybridize()
    block(*[np.array(a, dtype=a.dtype) for a in arrays])  # trace
    xs = [np.array(a, dtype=a.dtype) for a in arrays]
    for x in xs:
        if _float(x):
            x.attach_grad()
    with autograd.record():
        outs = _as_list(block(*xs))
    heads = [o for o in outs if _float(o)]
    if heads and any(_float(a) for a in arrays):
        autograd.backward(heads, [np.ones_like(o) for o in heads])
    return outs, [x.grad.asnumpy() if _float(x) else None for x in xs]


def run_symbolic(f, arrays):
    names = [f'x{i}' for i in range(len(arrays))]
    out = f(sym.np, sym.npx, *[sym.var(n) for n in names])
    graph = sym.Group(out) if isinstance(out, list) else out
    args = {n: mx.nd.array(a, dtype=a.dtype) for n, a in zip(names, arrays)}
    grads = {
        n: mx.nd.zeros(a.shape, dtype=a.dtype)
        for n, a in zip(names, arrays)
        if _float(a)
    }
    exe = graph.bind(
        mx.cpu(),
        args,
        args_grad=grads,
        grad_req={n: 'write' if n in grads else 'null' for n in names},
    )
    outs = exe.forward(is_train=True)
    if any(_float(o) for o in outs):
        exe.backward(
            [
                mx.nd.ones(o.shape, dtype=o.dtype)
                if _float(o)
                else mx.nd.zeros(o.shape, dtype=o.dtype)
                for o in outs
            ]
        )
    return (
        graph,
        outs,
        [grads[n].asnumpy() if n in grads else None for n in names],
    )


@pytest.mark.parametrize('name,f,arrays,ref,node', CASES, ids=IDS)
def test_eager_hybridized_symbolic_agree(name, f, arrays, ref, node):
    eager, g_eager = run_eager(f, arrays)
    hybrid, g_hybrid = run_hybridized(f, arrays)
    graph, symbolic, g_sym = run_symbolic(f, arrays)
    assert len(eager) == len(hybrid) == len(symbolic)
    if ref is not None:
        want = _as_list(ref(*arrays))
        assert len(want) == len(eager)
        for e, w in zip(eager, want):
            w = onp.asarray(w)
            assert e.shape == w.shape, (e.shape, w.shape)
            assert e.dtype == w.dtype or (
                w.dtype == onp.float64 and e.dtype == onp.float32
            )
            onp.testing.assert_allclose(e.asnumpy(), w, rtol=1e-5, atol=1e-6)
    for e, h, s in zip(eager, hybrid, symbolic):
        assert type(e) is np.ndarray and type(h) is np.ndarray
        assert e.shape == h.shape == s.shape
        assert e.dtype == h.dtype == s.dtype
        onp.testing.assert_allclose(
            h.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6
        )
        onp.testing.assert_allclose(
            s.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6
        )
    for ge, gh, gs in zip(g_eager, g_hybrid, g_sym):
        if ge is not None:
            onp.testing.assert_allclose(gh, ge, rtol=1e-5, atol=1e-6)
            onp.testing.assert_allclose(gs, ge, rtol=1e-5, atol=1e-6)
    ops = [n['op'] for n in json.loads(graph.tojson())['nodes']]
    assert node in ops


def test_sampling_nodes():
    x = sym.np.random.normal(1.0, 2.0, size=(200, 100))
    y = sym.np.random.uniform(2.0, 4.0, size=(20000,))
    ops = [n['op'] for n in json.loads(sym.Group([x, y]).tojson())['nodes']]
    assert ops == ['_npi_normal', '_npi_uniform']
    mx.random.seed(0)
    a, b = [o.asnumpy() for o in sym.Group([x, y]).eval()]
    assert a.shape == (200, 100) and a.dtype == onp.float32
    assert abs(a.mean() - 1) < 0.05 and abs(a.std() - 2) < 0.05
    assert b.shape == (20000,) and 2 <= b.min() and b.max() < 4


def test_randint_node():
    r = sym.np.random.randint(3, size=(1000,))
    node = json.loads(r.tojson())['nodes'][0]
    # MXNet 1.9.1 records the legacy sampler with an int64 dtype
    assert node['op'] == '_random_randint'
    assert node['attrs']['dtype'] == 'int64'
    out = r.eval()[0].asnumpy()
    assert out.dtype == onp.int64 and set(out.tolist()) == {0, 1, 2}


def test_split_gives_a_list_of_symbols():
    parts = sym.np.split(sym.var('x'), [1, 3], axis=1)
    assert isinstance(parts, list) and len(parts) == 3
    attrs = json.loads(parts[0].tojson())['nodes'][1]['attrs']
    # MXNet 1.9.1 stores the leading 0 of the indices
    assert attrs == {'axis': '1', 'indices': '(0, 1, 3)'}


def test_operands_must_be_symbols():
    with pytest.raises(mx.base.DLBookError, match='Symbols'):
        sym.np.dot(sym.var('x'), np.ones((2, 2)))
