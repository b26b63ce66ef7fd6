"""``mx.np`` / ``mx.npx`` name by name against MXNet 1.9.1.

Each row is an expression and the ``repr`` MXNet 1.9.1 prints for it
after ``npx.set_np()`` (recorded with the PyPI wheel); the repr carries
the values, the dtype (``dtype=`` when not float32) and 0-d-ness
(``array(6.)``).
"""

import numpy as onp
import pytest

import dlbook as mx
from dlbook import nd, np, npx


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


x = None  # rebound per test: np.arange(4)

# MXNet 1.9.1 gives each repr on the right.
ROWS = [
    ('np.arange(4)', 'array([0., 1., 2., 3.])'),
    (
        'np.array([[1,2],[3,4]], dtype="int32")',
        'array([[1, 2],\n       [3, 4]], dtype=int32)',
    ),
    ('np.array(onp.arange(3))', 'array([0, 1, 2], dtype=int64)'),
    ('np.array(onp.arange(3.0))', 'array([0., 1., 2.], dtype=float64)'),
    ('np.array([1,2])', 'array([1., 2.])'),
    ('np.array(3.5)', 'array(3.5)'),
    ('np.array([True, False])', 'array([1., 0.])'),
    ('x.sum()', 'array(6.)'),
    ('x.mean()', 'array(1.5)'),
    ('x[1]', 'array(1.)'),
    ('x > 1', 'array([False, False,  True,  True])'),
    ('x == 2', 'array([False, False,  True, False])'),
    ('(x > 1).sum()', 'array(2, dtype=int64)'),
    ('(x > 1).mean()', 'array(0.5)'),
    ('(x > 1) + 1', 'array([1, 1, 2, 2], dtype=int64)'),
    ('(x > 1) * x', 'array([0., 0., 2., 3.])'),
    ('np.array([1,2],dtype="int32") + 1.5', 'array([2, 3], dtype=int32)'),
    ('np.array([1,2],dtype="int32") - 1.5', 'array([0, 1], dtype=int32)'),
    ('np.array([1,2],dtype="int32") * 1.5', 'array([1, 2], dtype=int32)'),
    ('np.array([1,2],dtype="int32") / 2', 'array([0.5, 1. ])'),
    (
        'np.array([1,2],dtype="int32") / np.array([2,2],dtype="int32")',
        'array([0.5, 1. ])',
    ),
    ('np.array([1,2],dtype="int32") + np.array([1.,2.])', 'array([2., 4.])'),
    (
        'np.array([1,2],dtype="int32") + np.array([1.,2.], dtype="float64")',
        'array([2., 4.], dtype=float64)',
    ),
    (
        'np.array([1,2],dtype="int32") + np.array([1,2],dtype="int64")',
        'array([2, 4], dtype=int64)',
    ),
    (
        'np.array([1,2],dtype="int32") + np.array([1.,2.],dtype="float16")',
        'array([2., 4.], dtype=float16)',
    ),
    ('np.array([1,2],dtype="int32") ** 2', 'array([1, 4], dtype=int32)'),
    ('2 ** np.array([1,2],dtype="int32")', 'array([2, 4], dtype=int32)'),
    ('2 - x', 'array([ 2.,  1.,  0., -1.])'),
    ('2 / x[1:]', 'array([2.       , 1.       , 0.6666667])'),
    ('x ** 2', 'array([0., 1., 4., 9.])'),
    ('-np.arange(3)', 'array([-0., -1., -2.])'),
    ('np.arange(5) % 2', 'array([0., 1., 0., 1., 0.])'),
    (
        'np.arange(6).reshape(2,3)[np.arange(6).reshape(2,3) > 2]',
        'array([3., 4., 5.])',
    ),
    (
        'np.arange(6).reshape(2,3)[:, [0, 2]]',
        'array([[0., 2.],\n       [3., 5.]])',
    ),
    ('np.arange(6).reshape(2,3)[1, 2]', 'array(5.)'),
    (
        'np.arange(4).reshape(2,2)[np.array([1,0])]',
        'array([[2., 3.],\n       [0., 1.]])',
    ),
    ('np.array([1,2])[np.array([True, False])]', 'array([2., 1.])'),
    ('np.arange(10).reshape(2, 5)[1]', 'array([5., 6., 7., 8., 9.])'),
    ('np.arange(5)[1:3]', 'array([1., 2.])'),
    ('np.dot(np.arange(3), np.arange(3))', 'array(5.)'),
    ('np.arange(3).dot(np.arange(3))', 'array(5.)'),
    ('np.arange(4) @ np.arange(4)', 'array(14.)'),
    ('np.cumsum(np.arange(5))', 'array([ 0.,  1.,  3.,  6., 10.])'),
    (
        'np.arange(6).reshape(2,3).cumsum(axis=1)',
        'array([[ 0.,  1.,  3.],\n       [ 3.,  7., 12.]])',
    ),
    (
        'np.meshgrid(np.arange(2), np.arange(3))',
        '[array([[0., 1.],\n       [0., 1.],\n       [0., 1.]]), '
        'array([[0., 0.],\n       [1., 1.],\n       [2., 2.]])]',
    ),
    ('np.nonzero(np.array([0,1,0,2]))', '(array([1, 3], dtype=int64),)'),
    (
        'np.nonzero(np.array([[0,1],[2,0]]))',
        '(array([0, 1], dtype=int64), array([1, 0], dtype=int64))',
    ),
    ('np.unique(np.array([3,1,1,2]))', 'array([1., 2., 3.])'),
    (
        'np.unique(np.array([3,1,1,2]), return_counts=True)',
        '(array([1., 2., 3.]), array([2, 1, 1], dtype=int64))',
    ),
    (
        'np.linalg.norm(np.arange(6).reshape(2,3), axis=1)',
        'array([2.236068, 7.071068])',
    ),
    ('np.linalg.norm(np.arange(4), ord=1)', 'array(6.)'),
    ('np.arange(4).argmax()', 'array(3, dtype=int64)'),
    (
        'np.argmax(np.arange(6).reshape(2,3), axis=1)',
        'array([2, 2], dtype=int64)',
    ),
    ('np.arange(4).std()', 'array(1.118034)'),
    ('np.arange(6).reshape(2,3).std(axis=0)', 'array([1.5, 1.5, 1.5])'),
    ('np.array([1., 2.]).var()', 'array(0.25)'),
    ('np.array([1,2,3], dtype="int32").std()', 'array(0, dtype=int32)'),
    ('np.full((2,), 3)', 'array([3., 3.])'),
    ('np.linspace(0, 1, 5)', 'array([0.  , 0.25, 0.5 , 0.75, 1.  ])'),
    ('np.eye(2)', 'array([[1., 0.],\n       [0., 1.]])'),
    ('np.ones((2,2)) * np.arange(2)', 'array([[0., 1.],\n       [0., 1.]])'),
    ('np.concatenate([np.ones(2), np.zeros(2)])', 'array([1., 1., 0., 0.])'),
    (
        'np.concatenate([np.ones((2,1)), np.zeros((2,1))], axis=1)',
        'array([[1., 0.],\n       [1., 0.]])',
    ),
    (
        'np.stack([np.ones(2), np.zeros(2)])',
        'array([[1., 1.],\n       [0., 0.]])',
    ),
    ('np.sort(np.array([3.,1.,2.]))', 'array([1., 2., 3.])'),
    ('np.arange(12).reshape(3,4).max(axis=0)', 'array([ 8.,  9., 10., 11.])'),
    ('np.max(np.arange(4))', 'array(3.)'),
    ('np.min(np.arange(3))', 'array(0.)'),
    ('np.clip(np.arange(5), 1, 3)', 'array([1., 1., 2., 3., 3.])'),
    ('np.tile(np.arange(2), 2)', 'array([0., 1., 0., 1.])'),
    ('np.repeat(np.arange(2), 2)', 'array([0., 0., 1., 1.])'),
    ('np.sign(np.array([-2., 0., 3.]))', 'array([-1.,  0.,  1.])'),
    ('np.power(np.arange(3), 2)', 'array([0., 1., 4.])'),
    ('np.maximum(np.arange(3), 1)', 'array([1., 1., 2.])'),
    ('np.maximum(np.arange(3), np.ones(3))', 'array([1., 1., 2.])'),
    ('np.minimum(np.arange(3), 1)', 'array([0., 1., 1.])'),
    ('np.abs(np.array([-1.,2.]))', 'array([1., 2.])'),
    ('np.arange(1,5).prod()', 'array(24.)'),
    ('np.arange(4).astype("int32").sum()', 'array(6, dtype=int32)'),
    ('np.arange(4).astype("int32").mean()', 'array(1.5)'),
    ('np.zeros((2,0))', 'array([], shape=(2, 0))'),
    ('np.zeros(())', 'array(0.)'),
    ('np.array(5)', 'array(5.)'),
    ('np.arange(12).reshape(3,4).mean(axis=0)', 'array([4., 5., 6., 7.])'),
    ('x.mean(axis=0, keepdims=True)', 'array([1.5])'),
    ('x.sum(keepdims=True)', 'array([6.])'),
    ('np.arange(6).reshape(2,3).sum(axis=(0,1))', 'array(15.)'),
    ('np.squeeze(np.ones((1,3)))', 'array([1., 1., 1.])'),
    ('np.split(np.arange(4), 2)', '[array([0., 1.]), array([2., 3.])]'),
    ('np.zeros_like(np.arange(3))', 'array([0., 0., 0.])'),
    (
        'np.ones_like(np.arange(3, dtype="int32"))',
        'array([1, 1, 1], dtype=int32)',
    ),
    ('np.floor(np.array([1.5]))', 'array([1.])'),
    ('np.log2(np.array([8.]))', 'array([3.])'),
    ('np.arccos(np.array([1.]))', 'array([0.])'),
    ('np.exp(np.array([0, 1], dtype="int32"))', 'array([1, 2], dtype=int32)'),
    ('np.sqrt(np.array([4], dtype="int32"))', 'array([2], dtype=int32)'),
    (
        'np.broadcast_to(np.arange(2), (2,2))',
        'array([[0., 1.],\n       [0., 1.]])',
    ),
    ('np.arange(3).argsort()', 'array([0, 1, 2], dtype=int64)'),
    ('np.arange(4).reshape(2,2).flatten()', 'array([0., 1., 2., 3.])'),
    ('np.array([1.5, 2.5]).astype(np.int32)', 'array([1, 2], dtype=int32)'),
    ('np.arange(3, dtype=np.int64)', 'array([0, 1, 2], dtype=int64)'),
    ('np.array([[1,2],[3,4]]).T', 'array([[1., 3.],\n       [2., 4.]])'),
    ('np.any(np.array([0,1]))', 'array(True)'),
    ('np.arange(5).all()', 'array(False)'),
    ('np.ones((2,3)).reshape(-1)', 'array([1., 1., 1., 1., 1., 1.])'),
    (
        'np.arange(4).as_nd_ndarray().as_np_ndarray()',
        'array([0., 1., 2., 3.])',
    ),
    ('npx.relu(np.array([-1.,2.]))', 'array([0., 2.])'),
    (
        'npx.one_hot(np.array([0,2]), 3)',
        'array([[1., 0., 0.],\n       [0., 0., 1.]])',
    ),
    (
        'npx.pick(np.array([[1.,2.],[3.,4.]]), np.array([0,1]))',
        'array([1., 4.])',
    ),
    (
        'npx.sequence_mask(np.ones((2,3)), np.array([1,2]), '
        'use_sequence_length=True, value=-1, axis=1)',
        'array([[ 1., -1., -1.],\n       [ 1.,  1., -1.]])',
    ),
    ('npx.topk(np.array([1.,3.,2.]), k=2)', 'array([1., 2.])'),
    ('npx.gammaln(np.array([0.5, 3.]))', 'array([0.5723649, 0.6931472])'),
    ('npx.erfinv(np.array([0., 0.5]))', 'array([0.        , 0.47693628])'),
    (
        'npx.slice(np.arange(10), begin=(2,), end=(8,), step=(2,))',
        'array([2., 4., 6.])',
    ),
    (
        'npx.slice(np.arange(12).reshape(3,4), begin=(1,None), end=(None,2))',
        'array([[4., 5.],\n       [8., 9.]])',
    ),
    (
        'npx.cast(np.array([1.7, -1.7]), dtype="int32")',
        'array([ 1, -1], dtype=int32)',
    ),
    (
        'npx.gather_nd(np.arange(6).reshape(2,3), np.array([[0,1],[1,2]]))',
        'array([1., 5.])',
    ),
    (
        'npx.reshape_like(np.arange(6), np.ones((3,2)))',
        'array([[0., 1.],\n       [2., 3.],\n       [4., 5.]])',
    ),
    ('npx.shape_array(np.ones((2,3)))', 'array([2, 3], dtype=int64)'),
]


@pytest.mark.parametrize('expr,want', ROWS, ids=[r[0] for r in ROWS])
def test_repr_matches_mxnet(expr, want):
    env = {'np': np, 'npx': npx, 'onp': onp, 'x': np.arange(4)}
    assert repr(eval(expr, env)) == want


# MXNet 1.9.1 gives these values; float32 rounding may differ in the last
# digit, so they are compared numerically.
CLOSE = [
    ('np.linalg.norm(np.arange(4))', 3.7416573, ()),
    ('npx.softmax(np.array([[1.,2.]]))', [[0.26894143, 0.73105854]], (1, 2)),
    (
        'npx.softmax(np.array([1.,2.,3.]), axis=0)',
        [0.09003057, 0.24472848, 0.6652409],
        (3,),
    ),
    ('npx.log_softmax(np.array([1.,2.]))', [-1.3132598, -0.3132598], (2,)),
    # MXNet's float32 tgamma gives 2.0000002 for gamma(3) = 2
    ('npx.gamma(np.array([0.5, 3.]))', [1.7724538, 2.0], (2,)),
]


@pytest.mark.parametrize('expr,want,shape', CLOSE, ids=[r[0] for r in CLOSE])
def test_values_match_mxnet(expr, want, shape):
    got = eval(expr, {'np': np, 'npx': npx})
    assert got.shape == shape and got.dtype == onp.float32
    onp.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)


def test_scalars_and_conversions():
    x = np.arange(3)
    assert float(x.sum()) == 3.0  # MXNet 1.9.1 gives 3.0
    assert x.item(1) == 1.0 and x.tolist() == [0.0, 1.0, 2.0]
    assert len(np.arange(5)) == 5
    assert '{:.2f}'.format(np.array(3.14159)) == '3.14'
    assert str(np.arange(3)) == '[0. 1. 2.]' and str(np.array(3.0)) == '3.0'
    assert x.ctx == mx.cpu(0) and x.size == 3 and x.ndim == 1
    legacy = x.as_nd_ndarray()
    assert type(legacy) is nd.NDArray
    assert repr(legacy) == '\n[0. 1. 2.]\n<NDArray 3 @cpu(0)>'
    with pytest.raises(TypeError, match='unsized'):
        len(np.array(1.0))


def test_random_dtypes_and_shapes():
    # MXNet 1.9.1: float32 samples, int64 integers, 0-d without size
    assert np.random.normal(0, 1, (2,)).dtype == onp.float32
    assert np.random.uniform(size=(2,)).dtype == onp.float32
    assert np.random.randint(0, 5, (3,)).dtype == onp.int64
    assert np.random.rand(2).shape == (2,)
    assert np.random.normal(0, 1).shape == ()
    assert np.random.uniform().shape == ()
    assert np.random.randint(5).shape == ()
    counts = np.random.multinomial(10, [0.2, 0.8], size=3)
    assert counts.shape == (3, 2) and counts.dtype == onp.int64
    assert (counts.sum(axis=1).asnumpy() == 10).all()
    y = np.arange(10)
    np.random.shuffle(y)
    assert sorted(y.tolist()) == list(range(10))


def test_npx_reshape_codes():
    ones = np.ones((2, 3, 4))
    # MXNet 1.9.1 gives these shapes
    assert npx.reshape(ones, (-2, -1)).shape == (2, 12)
    assert npx.reshape(ones, (-5, -2)).shape == (6, 4)
    assert npx.reshape(np.ones((2, 1, 4)), (-2, -3, -2)).shape == (2, 4)
    assert npx.reshape(ones, (-6, 1, 2, -4)).shape == (1, 2, 3, 4)
    assert npx.reshape(ones, (-2, -4)).shape == (2, 3, 4)
    assert npx.batch_flatten(ones).shape == (2, 12)
    with pytest.raises(mx.DLBookError, match='npx.reshape'):
        npx.reshape(ones, (-4, 1, 2, -2, -2))


def test_masked_softmax():
    got = npx.masked_softmax(
        np.array([[1.0, 2.0, 3.0]]), np.array([[True, True, False]])
    )
    onp.testing.assert_allclose(
        got.asnumpy(), [[0.26894143, 0.73105854, 0.0]], rtol=1e-6
    )


def test_setitem_with_masks_and_none():
    x = np.arange(6).reshape(2, 3)
    x[x > 3] = 0
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]]
    assert x[None].shape == (1, 2, 3) and x[..., None].shape == (2, 3, 1)
    x[:, [0, 2]] = np.array([7.0, 8.0])
    assert x.tolist() == [[7.0, 1.0, 8.0], [7.0, 0.0, 8.0]]


def test_set_np_has_no_dtype_switch_in_1_9_1():
    """MXNet 1.9.1: ``npx.set_np(dtype=True)`` raises TypeError
    ("set_np() got an unexpected keyword argument 'dtype'"); the
    float64-default switch came with MXNet 2.0."""
    import pytest

    from dlbook import np, npx

    with pytest.raises(TypeError, match="unexpected keyword argument 'dtype'"):
        npx.set_np(dtype=True)
    npx.set_np()
    assert np.zeros(2).dtype == 'float32'
