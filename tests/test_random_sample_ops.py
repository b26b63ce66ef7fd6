"""MXNet 1.9.1's per-element samplers (``nd.sample_*``, ``nd.random.*``
with NDArray parameters), the ``nd.random.*_like`` samplers and the
densities ``nd.random_pdf_*`` (``dlbook/ops/distributions.py``).

The operator rows (statistics of every sampler, each density against a
NumPy reference and its gradient against central differences, ``nd`` ==
``sym``) are in ``tests/ops/cases_random.py``; here: shapes, dtypes,
contexts, seeding, the front ends, and values recorded with MXNet 1.9.1.
"""

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, nd
from dlbook.base import DLBookError
from dlbook.ops import REGISTRY
from dlbook.test_utils_stats import mean_check, var_check

SAMPLERS = {
    'normal': ([0.0, 1.0, 2.0], [1.0, 2.0, 3.0]),
    'uniform': ([0.0, 1.0, 2.0], [3.0, 4.0, 5.0]),
    'gamma': ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]),
    'exponential': ([1.0, 2.0, 3.0],),
    'poisson': ([1.0, 2.0, 3.0],),
    'negative_binomial': ([1.0, 2.0, 3.0], [0.2, 0.5, 0.7]),
    'generalized_negative_binomial': ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]),
}


def _params(name, ctx=None, dtype='float32'):
    return [nd.array(p, ctx=ctx, dtype=dtype) for p in SAMPLERS[name]]


@pytest.mark.parametrize('name', sorted(SAMPLERS))
def test_sample_shapes_and_dtypes(name):
    # MXNet 1.9.1: params (3,) -> (3,); shape=(2, 4) -> (3, 2, 4);
    # shape=5 -> (3, 5); float32 unless dtype= (float16/32/64 only);
    # float64 parameters still give float32
    f = getattr(nd, f'sample_{name}')
    params = _params(name)
    assert f(*params).shape == (3,)
    assert f(*params).dtype == np.float32
    assert f(*params, shape=(2, 4)).shape == (3, 2, 4)
    assert f(*params, shape=5).shape == (3, 5)
    assert f(*params, dtype='float64').dtype == np.float64
    assert f(*params, dtype='float16').dtype == np.float16
    assert f(*_params(name, dtype='float64')).dtype == np.float32
    with pytest.raises(DLBookError, match='dtype'):
        f(*params, dtype='int32')
    assert REGISTRY[f'sample_{name}'] is REGISTRY[f'_sample_{name}']


def test_sample_parameters_of_two_dimensions():
    # MXNet 1.9.1: sample_normal(ones((2, 3)), ones((2, 3)), shape=(4,))
    # has shape (2, 3, 4)
    x = nd.sample_normal(nd.ones((2, 3)), nd.ones((2, 3)), shape=(4,))
    assert x.shape == (2, 3, 4)


def test_sample_parameters_must_share_a_shape_and_dtype():
    # MXNet 1.9.1: shapes (1,) and (2,) fail shape inference; no
    # broadcasting of the parameters
    with pytest.raises(DLBookError, match='same shape'):
        nd.sample_normal(nd.array([1.0]), nd.array([1.0, 2.0]))
    with pytest.raises(DLBookError, match='same dtype'):
        nd.sample_normal(
            nd.array([0.0, 1.0]), nd.array([1.0, 1.0], dtype='float64')
        )


@pytest.mark.parametrize('name', sorted(SAMPLERS))
def test_sample_context_and_seed(name, ctx):
    f = getattr(nd, f'sample_{name}')
    params = _params(name, ctx=ctx)
    mx.random.seed(3)
    a = f(*params, shape=(50,))
    mx.random.seed(3)
    b = f(*params, shape=(50,))
    c = f(*params, shape=(50,))
    assert a.context == ctx
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert not np.array_equal(b.asnumpy(), c.asnumpy())


def test_sample_rows_follow_their_own_parameters():
    mx.random.seed(0)
    x = nd.sample_normal(
        nd.array([0.0, 100.0]), nd.array([1.0, 0.001]), shape=(1000,)
    ).asnumpy()
    assert abs(x[0].mean()) < 0.2 and 0.9 < x[0].std() < 1.1
    np.testing.assert_allclose(x[1], 100, atol=0.01)
    u = nd.sample_uniform(
        nd.array([0.0, -2.0]), nd.array([1.0, 5.0]), shape=(1000,)
    ).asnumpy()
    assert u[0].min() >= 0 and u[0].max() < 1
    assert u[1].min() >= -2 and u[1].max() < 5 and u[1].max() > 4
    # negative binomial with p = 1 and Poisson with rate 0 are all zeros
    z = nd.sample_negative_binomial(nd.array([2.0]), nd.array([1.0]), shape=9)
    assert not z.asnumpy().any()
    assert not nd.sample_poisson(nd.array([0.0]), shape=9).asnumpy().any()
    # integer samples from the discrete distributions
    p = nd.sample_poisson(nd.array([3.5]), shape=100).asnumpy()
    np.testing.assert_array_equal(p, np.round(p))


@pytest.mark.parametrize(
    'name,params,mean,var',
    [
        ('normal', (-1.0, 0.5), -1.0, 0.25),
        ('gamma', (3.0, 2.0), 6.0, 12.0),  # beta is the scale
        ('exponential', (0.5,), 2.0, 4.0),  # lam is the rate
        ('poisson', (2.5,), 2.5, 2.5),
        ('negative_binomial', (3.0, 0.4), 4.5, 11.25),
        ('generalized_negative_binomial', (2.0, 0.25), 2.0, 3.0),
    ],
)
def test_sample_mean_and_variance(name, params, mean, var):
    # 3-sigma tests of mx.test_utils, one parameter element among others
    f = getattr(nd, f'sample_{name}')
    arrays = [nd.array([p, p, 1.0]) for p in params]

    def draw(n):
        return f(*arrays, shape=(n,)).asnumpy()[1]

    mx.random.seed(11)
    assert mean_check(draw, mean, var**0.5, nsamples=200000)
    mx.random.seed(12)
    assert var_check(draw, var**0.5, nsamples=200000)


def test_nd_random_dispatches_on_ndarray_parameters():
    # MXNet 1.9.1: nd.random.normal(mu, sig, shape=2) with mu, sig of
    # shape (3,) -> (3, 2); randn(2, 3, loc=mu, scale=sig) -> (3, 2, 3)
    mu, sig = nd.array([0.0, 1.0, 2.0]), nd.array([1.0, 2.0, 3.0])
    r = nd.random
    assert r.normal(mu, sig, shape=2).shape == (3, 2)
    assert r.normal(mu, sig).dtype == np.float32
    assert r.normal(mu, sig, dtype='float64').dtype == np.float64
    assert r.randn(2, 3, loc=mu, scale=sig).shape == (3, 2, 3)
    assert r.uniform(mu, sig + 3).shape == (3,)
    assert r.gamma(sig, sig).shape == (3,)
    assert r.poisson(sig, shape=(2, 2)).shape == (3, 2, 2)
    assert r.negative_binomial(sig, nd.array([0.5] * 3)).shape == (3,)
    assert r.generalized_negative_binomial(sig, sig).shape == (3,)
    assert mx.random.normal(mu, sig, shape=4).shape == (3, 4)
    # MXNet 1.9.1: exponential(scale=NDArray) samples with mean scale
    mx.random.seed(0)
    x = r.exponential(nd.array([4.0, 0.5]), shape=100000).asnumpy()
    np.testing.assert_allclose(x.mean(1), [4, 0.5], rtol=0.02)
    # MXNet 1.9.1: an NDArray and a number together are refused
    with pytest.raises(DLBookError, match='same type'):
        r.normal(mu, 1.0)
    with pytest.raises(DLBookError, match='same type'):
        r.normal(0.0, sig)


def test_nd_random_ndarray_parameters_into_out():
    # MXNet 1.9.1: normal([0, 10], [1, 1], shape=3, out=zeros((2, 3)))
    # fills out, row i around its mean
    out = nd.zeros((2, 3))
    y = nd.random.normal(
        nd.array([0.0, 10.0]), nd.array([0.01, 0.01]), shape=3, out=out
    )
    assert y is out
    np.testing.assert_allclose(out.asnumpy(), [[0] * 3, [10] * 3], atol=0.1)


def test_nd_random_ndarray_parameters_keep_their_context(ctx):
    mu = nd.array([0.0, 1.0], ctx=ctx)
    assert nd.random.normal(mu, mu + 1, shape=2).context == ctx


LIKE = {
    'normal': (2.0, 0.001),
    'uniform': (2.0, 2.001),
    'gamma': (2.0, 0.5),
    'exponential': (4.0,),
    'poisson': (3.0,),
    'negative_binomial': (2, 0.2),
    'generalized_negative_binomial': (3.0, 0.5),
}


@pytest.mark.parametrize('name', sorted(LIKE))
def test_like_takes_shape_dtype_and_context(name, ctx):
    # MXNet 1.9.1: <dist>_like(ones((3, 4))) is (3, 4) float32; float64
    # and float16 data give float64 and float16 samples
    f = getattr(nd.random, f'{name}_like')
    for dtype in ('float32', 'float64', 'float16'):
        data = nd.ones((3, 4), ctx=ctx, dtype=dtype)
        y = f(data, *LIKE[name])
        assert y.shape == (3, 4) and y.dtype == np.dtype(dtype)
        assert y.context == ctx
    y = f(data=nd.zeros((2, 5, 1), ctx=ctx))
    assert y.shape == (2, 5, 1)


def test_like_values_and_defaults():
    r = nd.random
    d = nd.ones((2, 3))
    np.testing.assert_allclose(
        r.normal_like(d, 2.0, 0.001).asnumpy(), 2, atol=0.01
    )
    u = r.uniform_like(d, 2.0, 2.001).asnumpy()
    assert (u >= 2).all() and (u < 2.001).all()
    # MXNet 1.9.1: negative_binomial_like's defaults k=1, p=1 give zeros
    assert not r.negative_binomial_like(d).asnumpy().any()
    mx.random.seed(0)
    big = nd.ones((100000,))
    # MXNet 1.9.1: exponential_like(lam=4) mean 0.2501 (lam the rate);
    # gamma_like(4, 0.5) mean 2.004, variance 1.006 (beta the scale)
    assert abs(r.exponential_like(big, 4.0).asnumpy().mean() - 0.25) < 0.01
    g = r.gamma_like(big, 4.0, 0.5).asnumpy()
    assert abs(g.mean() - 2) < 0.03 and abs(g.var() - 1) < 0.05


def test_like_refuses_integer_data_and_is_not_in_mx_random():
    # MXNet 1.9.1: "This operation only support floating point types"
    with pytest.raises(DLBookError, match='floating-point'):
        nd.random.normal_like(nd.ones((2,), dtype='int32'))
    # MXNet 1.9.1: hasattr(mx.random, 'normal_like') -> False
    assert not hasattr(mx.random, 'normal_like')
    assert 'normal_like' not in nd.random.__all__


def test_like_reproducible_with_seed():
    d = nd.ones((4, 5))
    mx.random.seed(5)
    a = nd.random.gamma_like(d, 2.0, 1.0).asnumpy()
    mx.random.seed(5)
    b = nd.random.gamma_like(d, 2.0, 1.0).asnumpy()
    np.testing.assert_array_equal(a, b)


# -- densities ----------------------------------------------------------------


# MXNet 1.9.1's documented examples
def test_pdf_documented_examples():
    sample = nd.array([[-2, -1, 0, 1, 2]])
    np.testing.assert_allclose(
        nd.random_pdf_normal(sample, nd.array([0]), nd.array([1])).asnumpy(),
        [[0.05399097, 0.24197073, 0.3989423, 0.24197073, 0.05399097]],
        rtol=1e-6,
    )
    got = nd.random_pdf_normal(
        nd.concat(sample, sample, dim=0), nd.array([0, 0]), nd.array([1, 2])
    )
    np.testing.assert_allclose(
        got.asnumpy()[1],
        [0.12098537, 0.17603266, 0.19947115, 0.17603266, 0.12098537],
        rtol=1e-6,
    )
    # MXNet 1.9.1 (float32): [38.413498, 199.60234, 564.56085]
    got = nd.random_pdf_dirichlet(
        nd.array([[1, 2], [2, 3], [3, 4]]), nd.array([2.5, 2.5])
    )
    assert got.shape == (3,)
    np.testing.assert_allclose(
        got.asnumpy(), [38.413498, 199.60234, 564.56085], rtol=1e-6
    )
    sample = nd.array(
        [
            [[1, 2, 3], [10, 20, 30], [100, 200, 300]],
            [[0.1, 0.2, 0.3], [0.01, 0.02, 0.03], [0.001, 0.002, 0.003]],
        ]
    )
    got = nd.random_pdf_dirichlet(sample, nd.array([0.1, 0.4, 0.9]))
    np.testing.assert_allclose(
        got.asnumpy(),
        [
            [2.3257459e-02, 5.8420084e-04, 1.4674458e-05],
            [9.2589635e-01, 3.6860607e01, 1.4674468e03],
        ],
        rtol=2e-6,
    )
    got = nd.random_pdf_negative_binomial(
        nd.array([[1, 2, 3, 4]]), nd.array([1]), nd.array([0.5])
    )
    np.testing.assert_allclose(
        got.asnumpy(), [[0.25, 0.125, 0.0625, 0.03125]], rtol=1e-6
    )


# MXNet 1.9.1, float64, sum(pdf * cot) with cot = linspace(0.5, 1.5, size)
# reshaped like the output: (density, [grad sample, grad params...])
SAMPLE = [[0.5, 1.0, 2.0], [0.3, 1.5, 4.0]]
COUNTS = [[0, 1, 3], [2, 5, 1]]
INPUTS = {
    'normal': (SAMPLE, [0.2, 1.0], [1.0, 2.0]),
    'uniform': ([[0.5, 0.8, 0.9], [0.3, 1.5, 0.1]], [0.1, -1.0], [1.0, 2.0]),
    'gamma': (SAMPLE, [2.0, 0.7], [1.5, 2.0]),
    'exponential': (SAMPLE, [2.0, 0.7]),
    'poisson': (COUNTS, [2.0, 0.7]),
    'negative_binomial': (COUNTS, [2.0, 3.0], [0.4, 0.7]),
    'generalized_negative_binomial': (COUNTS, [2.0, 3.0], [0.4, 0.7]),
    'dirichlet': (
        [
            [[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]],
            [[0.3, 0.3, 0.4], [0.5, 0.25, 0.25]],
        ],
        [[1.5, 2.0, 0.7], [2.0, 1.2, 3.0]],
    ),
}
RECORDED = {
    ('normal', False): (
        [
            [0.3813878102, 0.2896915487, 0.0789501572],
            [0.1876201708, 0.1933340557, 0.06475879693],
        ],
        [
            [
                [-0.05720817152, -0.1622272673, -0.1278992547],
                [0.03611688289, -0.03141678405, -0.07285364655],
            ],
            [0.3473346935, 0.06815354771],
            [-0.08737020698, -0.147651753],
        ],
    ),
    ('uniform', False): (
        [
            [1.111111111, 1.111111111, 1.111111111],
            [0.3333333333, 0.3333333333, 0.3333333333],
        ],
        [
            [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
            [2.592592593, 0.4333333333],
            [-2.592592593, -0.4333333333],
        ],
    ),
    ('gamma', False): (
        [
            [0.5314123718, 0.5020428603, 0.2240418077],
            [0.9856318426, 0.05517177645, 0.0002769835254],
        ],
        [
            [
                [0.132853093, -0.1757150011, -0.2016376269],
                [-3.252585081, -0.1577912807, -0.0008621112229],
            ],
            [-0.05858947061, 0.9365798973],
            [0.2041400711, -0.02978853926],
        ],
    ),
    ('exponential', False): (
        [
            [0.7357588823, 0.2706705665, 0.03663127778],
            [0.5674089722, 0.2449564244, 0.04256704384],
        ],
        [
            [
                [-0.7357588823, -0.3789387931, -0.0659363],
                [-0.4369049086, -0.2229103462, -0.04469539603],
            ],
            [-0.1441869233, 0.517464587],
        ],
    ),
    ('poisson', False): (
        [
            [0.1353352832, 0.2706705665, 0.1804470443],
            [0.1216633994, 0.0006955091001, 0.3476097127],
        ],
        [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [-0.08120116994, 0.4775584682]],
    ),
    ('negative_binomial', False): (
        [[0.16, 0.192, 0.13824], [0.18522, 0.01750329, 0.3087]],
        [
            [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
            [-0.1084699606, 0.05212279446],
            [0.848, -0.32581962],
        ],
    ),
    ('generalized_negative_binomial', False): (
        [
            [0.2300481458, 0.2556090509, 0.1325380264],
            [0.1581221717, 0.06752688791, 0.1922269539],
        ],
        [
            [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
            [-0.08046951603, -0.06183283247],
            [-0.008467764394, -0.1263592965],
        ],
    ),
    ('dirichlet', False): (
        [[1.113739221, 1.835917395], [3.480503156, 2.184814488]],
        [
            [
                [
                    [1.392174026, 1.856232035, -0.3341217663],
                    [7.649655811, 2.54988527, -1.529931162],
                ],
                [
                    [13.53529005, 2.70705801, 20.30293508],
                    [6.554443463, 2.621777385, 26.21777385],
                ],
            ],
            [
                [-1.758688273, 0.4022523754, 3.054460845],
                [2.517824259, 5.469457513, -2.254519029],
            ],
        ],
    ),
    ('normal', True): (
        [
            [-0.9639385471, -1.238938547, -2.538938547],
            [-1.673335728, -1.643335728, -2.737085728],
        ],
        [
            [[-0.15, -0.56, -1.62], [0.1925, -0.1625, -1.125]],
            [2.33, 1.095],
            [1.309, -0.1545],
        ],
    ),
    ('uniform', True): (
        [
            [0.1053605157, 0.1053605157, 0.1053605157],
            [-1.098612289, -1.098612289, -1.098612289],
        ],
        [
            [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
            [2.333333333, 1.3],
            [-2.333333333, -1.3],
        ],
    ),
    ('gamma', True): (
        [
            [-0.6322169643, -0.6890697838, -1.495922603],
            [-0.01447237884, -2.897303753, -8.191552528],
        ],
        [
            [[0.25, -0.35, -0.9], [-3.3, -2.86, -3.1125]],
            [0.2408884955, 8.743541781],
            [0.05, -6.915],
        ],
    ),
    ('exponential', True): (
        [
            [-0.3068528194, -1.306852819, -3.306852819],
            [-0.5666749439, -1.406674944, -3.156674944],
        ],
        [[[-1.0, -1.4, -1.8], [-0.77, -0.91, -1.05]], [-1.7, -2.708571429]],
    ),
    ('poisson', True): (
        [
            [-2.0, -1.306852819, -1.712317928],
            [-2.106497068, -7.270866462, -1.056674944],
        ],
        [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [-0.4, 10.67142857]],
    ),
    ('negative_binomial', True): (
        [
            [-1.832581464, -1.650259907, -1.978763974],
            [-1.686210971, -4.045366416, -1.175385347],
        ],
        [
            [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
            [-0.5992105369, 1.171348671],
            [4.833333333, -17.28571429],
        ],
    ),
    ('generalized_negative_binomial', True): (
        [
            [-1.469466662, -1.364106147, -2.020885683],
            [-1.844387306, -2.695229421, -1.649078554],
        ],
        [
            [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
            [-0.2222222222, -0.1612903226],
            [-0.2535539914, -1.136051989],
        ],
    ),
    ('dirichlet', True): (
        [[0.1077230217, 0.6075442991], [1.247176868, 0.7815309223]],
        [
            [
                [
                    [1.25, 1.666666667, -0.3],
                    [4.166666667, 1.388888889, -0.8333333333],
                ],
                [[3.888888889, 0.7777777778, 5.833333333], [3.0, 1.2, 12.0]],
            ],
            [
                [-1.023741456, 0.157064953, 2.025265571],
                [1.072864188, 1.931341435, -0.9645608312],
            ],
        ],
    ),
}


@pytest.mark.parametrize('name,is_log', sorted(RECORDED))
def test_pdf_values_and_gradients_recorded_with_mxnet(name, is_log, ctx):
    inputs = [nd.array(a, ctx=ctx, dtype='float64') for a in INPUTS[name]]
    for x in inputs:
        x.attach_grad()
    with autograd.record():
        y = getattr(nd, f'random_pdf_{name}')(*inputs, is_log=is_log)
    cot = np.linspace(0.5, 1.5, y.size).reshape(y.shape)
    y.backward(nd.array(cot, ctx=ctx, dtype='float64'))
    value, grads = RECORDED[name, is_log]
    assert y.dtype == np.float64 and y.context == ctx
    # MXNet takes log(2 pi)/2 in float32 and has its own digamma: the
    # last digits differ (at most 2e-7 relative)
    np.testing.assert_allclose(y.asnumpy(), value, rtol=1e-6, atol=1e-12)
    for x, g in zip(inputs, grads):
        np.testing.assert_allclose(x.grad.asnumpy(), g, rtol=1e-6, atol=1e-12)


def test_pdf_is_log_is_the_log_of_the_density():
    x = nd.array([[0.5, 1.0, 2.0]])
    a, b = nd.array([2.0]), nd.array([1.5])
    np.testing.assert_allclose(
        nd.random_pdf_gamma(x, a, b, is_log=True).asnumpy(),
        np.log(nd.random_pdf_gamma(x, a, b).asnumpy()),
        rtol=1e-6,
    )
    # positionally, as in MXNet: (sample, mu, sigma, is_log)
    # MXNet 1.9.1: log N(1; 0, 1) = -1.4189385
    y = nd.random_pdf_normal(
        nd.ones((2, 3)), nd.zeros((2,)), nd.ones((2,)), True
    )
    np.testing.assert_allclose(y.asnumpy(), -1.4189385, rtol=1e-6)


def test_pdf_shapes():
    # MXNet 1.9.1: parameters (P) must be the leading sub-shape of the
    # sample (P + S): (2,) with (2,) and (2, 3, 4) with (2, 3) work;
    # (2, 3, 4) with (3,), (2,) with (1,) and (2, 3) with (2, 1) fail
    f = nd.random_pdf_normal
    assert f(nd.ones((2,)), nd.zeros((2,)), nd.ones((2,))).shape == (2,)
    assert f(nd.ones((2, 3, 4)), nd.zeros((2, 3)), nd.ones((2, 3))).shape == (
        2,
        3,
        4,
    )
    for sample, param in [((2, 3, 4), (3,)), ((2,), (1,)), ((2, 3), (2, 1))]:
        with pytest.raises(DLBookError, match='leading sub-shape'):
            f(nd.ones(sample), nd.zeros(param), nd.ones(param))
    with pytest.raises(DLBookError, match='same shape'):
        f(nd.ones((2, 3)), nd.zeros((2,)), nd.ones((2, 3)))
    # Dirichlet: alpha P + (K,), sample P + S + (K,), output P + S
    d = nd.random_pdf_dirichlet
    assert d(nd.ones((2, 3, 4)) / 4, nd.ones((2, 4))).shape == (2, 3)
    assert d(nd.ones((2, 4)) / 4, nd.ones((2, 4))).shape == (2,)
    with pytest.raises(DLBookError, match='leading sub-shape'):
        d(nd.ones((5, 2, 4)) / 4, nd.ones((2, 4)))


def test_pdf_dtypes():
    # MXNet 1.9.1: float16 in, float16 out; float32 sample with float64
    # parameters is refused
    x = nd.random_pdf_normal(
        nd.ones((2, 3), dtype='float16'),
        nd.zeros((2,), dtype='float16'),
        nd.ones((2,), dtype='float16'),
    )
    assert x.dtype == np.float16
    np.testing.assert_allclose(x.asnumpy(), 0.242, rtol=1e-3)
    with pytest.raises(DLBookError, match='same dtype'):
        nd.random_pdf_normal(
            nd.ones((2, 3)),
            nd.zeros((2,), dtype='float64'),
            nd.ones((2,), dtype='float64'),
        )


def test_pdf_outside_the_support_as_mxnet():
    # MXNet 1.9.1: no support checks: uniform on [0, 1) is 1 at -0.5 and
    # 1.5; exponential(2) at -0.5 is 2 e = 5.4365635; gamma at a negative
    # sample is nan; Poisson at 0.5 is 0.21596387 (x! as gamma(x+1)) and
    # at -1 is 0
    u = nd.random_pdf_uniform(
        nd.array([[-0.5, 0.5, 1.5]]), nd.array([0.0]), nd.array([1.0])
    )
    np.testing.assert_allclose(u.asnumpy(), [[1, 1, 1]])
    e = nd.random_pdf_exponential(nd.array([[-0.5, 0.0]]), nd.array([2.0]))
    np.testing.assert_allclose(e.asnumpy(), [[5.4365635, 2.0]], rtol=1e-6)
    with np.errstate(divide='ignore', invalid='ignore'):
        g = nd.random_pdf_gamma(
            nd.array([[-0.5, 0.0]]), nd.array([2.0]), nd.array([1.0])
        ).asnumpy()
    assert np.isnan(g[0, 0]) and g[0, 1] == 0
    p = nd.random_pdf_poisson(nd.array([[0.5, 1.5, -1.0]]), nd.array([2.0]))
    np.testing.assert_allclose(
        p.asnumpy(), [[0.21596387, 0.28795183, 0.0]], rtol=1e-6
    )


def test_symbol_front_end():
    x, m, s = mx.sym.var('x'), mx.sym.var('m'), mx.sym.var('s')
    samples = mx.sym.sample_normal(m, s, shape=(4,))
    args, outs, _ = samples.infer_shape(m=(2, 3), s=(2, 3))
    assert outs == [(2, 3, 4)]
    _, out_types, _ = samples.infer_type(m='float64', s='float64')
    assert out_types == [np.float32]
    exe = samples.simple_bind(mx.cpu(), m=(2, 3), s=(2, 3))
    assert exe.forward()[0].shape == (2, 3, 4)
    pdf = mx.sym.random_pdf_normal(x, m, s, is_log=True)
    assert pdf.infer_shape(x=(2, 3, 4), m=(2, 3), s=(2, 3))[1] == [(2, 3, 4)]
    exe = pdf.simple_bind(mx.cpu(), x=(2, 5), m=(2,), s=(2,))
    exe.arg_dict['x'][:] = nd.ones((2, 5))
    exe.arg_dict['m'][:] = nd.zeros((2,))
    exe.arg_dict['s'][:] = nd.ones((2,))
    np.testing.assert_allclose(
        exe.forward()[0].asnumpy(), -1.4189385, rtol=1e-6
    )
    like = mx.sym._random_gamma_like(x, alpha=2.0)
    assert like.infer_shape(x=(3, 2))[1] == [(3, 2)]
