"""``mx.test_utils`` as MXNet 1.9.1's unit tests and course checkers use it.
Expected values and messages were recorded from MXNet 1.9.1."""

import os

import numpy as np
import pytest

import dlbook as mx
from dlbook import test_utils as tu

# -- comparisons -------------------------------------------------------------------


def test_assert_almost_equal_message_names_worst_element(capsys):
    a = np.array([[1.0, 2.0], [3.0, 4.0]], dtype='float32')
    b = a.copy()
    b[1, 0], b[0, 1] = 3.5, 2.01
    with pytest.raises(AssertionError) as info:
        tu.assert_almost_equal(a, b, names=('x', 'y'))
    # MXNet 1.9.1 gives exactly these two lines in the message
    assert (
        'Error 370.370361 exceeds tolerance rtol=1.000000e-04, '
        'atol=1.000000e-03 (mismatch 50.000000%).\n'
        'Location of maximum error: (1, 0), x=3.00000000, y=3.50000000'
    ) in str(info.value)
    # and prints the worst elements in order
    out = capsys.readouterr().out
    assert (
        '1: Error 370.370361  Location of error: (1, 0), x=3.00000000' in out
    )
    assert '2: Error 8.326386  Location of error: (0, 1), x=2.00000000' in out


def test_assert_almost_equal_ndarrays_and_defaults():
    a = mx.nd.array([1.0, 2.0])
    tu.assert_almost_equal(a, a + 5e-4)  # float32 atol 1e-3
    with pytest.raises(AssertionError, match=r'a=1\.00000000, b=1\.10'):
        tu.assert_almost_equal(a, np.array([1.1, 2.0], dtype='float32'))
    with pytest.raises(AssertionError, match='shape'):
        tu.assert_almost_equal(
            np.ones((2, 1)), np.ones((2,)), use_broadcast=False
        )
    tu.assert_almost_equal(np.array([True, False]), np.array([True, False]))


def test_almost_equal_same_and_tolerances():
    a = np.array([[1.0, 2.0], [3.0, 4.0]], dtype='float32')
    b = a.copy()
    b[1, 0] = 3.5
    # MXNet 1.9.1: almost_equal(a, b) False, (a, a + 1e-6) True; same True
    assert not tu.almost_equal(a, b)
    assert tu.almost_equal(a, a + 1e-6)
    assert tu.same(a, a) and not tu.same(a, b)
    # MXNet 1.9.1: get_tols(float32 scalar, float64 scalar) (1e-4, 1e-3);
    # get_tols(float16, float64 arrays) (0.01, 0.1)
    assert tu.get_tols(np.float32(1), np.float64(1), None, None) == (
        1e-4,
        1e-3,
    )
    assert tu.get_tols(np.ones(2, 'float16'), np.ones(2), None, None) == (
        0.01,
        0.1,
    )
    assert tu.effective_dtype(mx.nd.ones(2)) == np.dtype('float32')
    assert tu.effective_dtype(np.ones(2, 'float16')) == np.dtype('float16')


def test_np_reduce():
    # MXNet 1.9.1: np_reduce(arange(24).reshape(2,3,4), (0,2), True, np.sum)
    # == [[[60], [92], [124]]]
    r = tu.np_reduce(np.arange(24).reshape(2, 3, 4), (0, 2), True, np.sum)
    assert r.tolist() == [[[60], [92], [124]]]
    assert tu.np_reduce(np.arange(6).reshape(2, 3), None, False, np.max) == 5


# -- random inputs -------------------------------------------------------------------


def test_random_helpers():
    np.random.seed(0)
    # MXNet 1.9.1 after np.random.seed(0): random_arrays((2, 3)) float32;
    # random_arrays((2,), ()) -> [array([0.95008844, -0.1513572]),
    # array(-0.10321885)]; random_sample([1, 2, 3, 4], 2) -> [2, 1]
    assert tu.random_arrays((2, 3)).dtype == np.float32
    x, y = tu.random_arrays((2,), ())
    np.testing.assert_allclose(x, [0.95008844, -0.1513572], rtol=1e-6)
    assert y.shape == () and abs(float(y) + 0.10321885) < 1e-6
    assert tu.random_sample([1, 2, 3, 4], 2) == [2, 1]
    s2, s3, sn = tu.rand_shape_2d(), tu.rand_shape_3d(), tu.rand_shape_nd(4)
    assert len(s2) == 2 and len(s3) == 3 and len(sn) == 4
    assert all(1 <= d <= 10 for d in s2 + s3 + sn)


def test_rand_ndarray_dense():
    x = tu.rand_ndarray((2, 3))
    assert x.shape == (2, 3) and x.dtype == np.float32
    assert tu.rand_ndarray((2, 3), dtype='float64').dtype == np.float64


# -- symbolic checks -----------------------------------------------------------------


def _dot():
    return mx.sym.dot(mx.sym.var('lhs'), mx.sym.var('rhs'))


M1, M2 = np.array([[1, 2], [3, 4]]), np.array([[5, 6], [7, 8]])


def test_check_symbolic_forward():
    out = tu.check_symbolic_forward(
        _dot(), [M1, M2], [np.array([[19, 22], [43, 50]])]
    )
    assert out[0].dtype == np.float32
    # MXNet 1.9.1: 'Error 166.666665 exceeds tolerance ... (mismatch
    # 25.000000%).' naming EXPECTED_dot0_output / FORWARD_dot0_output
    with pytest.raises(
        AssertionError,
        match=r'Error 166\.666665 exceeds tolerance '
        r'rtol=1\.000000e-04, atol=1\.000000e-03 '
        r'\(mismatch 25\.000000%\)',
    ):
        tu.check_symbolic_forward(
            _dot(), {'lhs': M1, 'rhs': M2}, [np.array([[19, 22], [43, 51]])]
        )


@pytest.mark.parametrize('grad_req', ['write', 'add', 'null'])
def test_check_symbolic_backward(grad_req):
    # MXNet 1.9.1: grads [[11, 15], [11, 15]] and [[4, 4], [6, 6]]
    expected = [np.array([[11, 15], [11, 15]]), np.array([[4, 4], [6, 6]])]
    grads = tu.check_symbolic_backward(
        _dot(), [M1, M2], [np.ones((2, 2))], expected, grad_req=grad_req
    )
    assert sorted(grads) == ['lhs', 'rhs']
    if grad_req == 'write':
        assert grads['lhs'].asnumpy().tolist() == [[11, 15], [11, 15]]
    with pytest.raises(AssertionError, match='EXPECTED_lhs'):
        tu.check_symbolic_backward(
            _dot(),
            [M1, M2],
            [np.ones((2, 2))],
            [expected[0] + 1, expected[1]],
            grad_req='write',
        )


def test_check_numeric_gradient_symbol():
    x = mx.sym.var('x')
    tu.check_numeric_gradient(mx.sym.tanh(x) * x, [np.random.rand(3, 4)])
    tu.check_numeric_gradient(
        mx.sym.tanh(x) * x, [np.random.rand(3, 4)], dtype=np.float64
    )
    # MXNet 1.9.1: BlockGrad(x) * x fails with NUMERICAL_x twice BACKWARD_x
    with pytest.raises(AssertionError, match='NUMERICAL_x=.*BACKWARD_x='):
        tu.check_numeric_gradient(
            mx.sym.BlockGrad(x) * x, [np.random.rand(2, 3) + 0.5]
        )


def test_check_numeric_gradient_function():
    tu.check_numeric_gradient(
        lambda a: mx.nd.tanh(a) * a, [np.random.rand(3, 2)]
    )
    with pytest.raises(AssertionError):
        tu.check_numeric_gradient(
            lambda a: mx.nd.BlockGrad(a) * a, [np.random.rand(3, 2) + 0.5]
        )


def test_check_consistency_across_contexts_and_dtypes():
    x = mx.sym.var('x')
    fc = mx.sym.FullyConnected(x, num_hidden=3, name='fc')
    gt = tu.check_consistency(
        fc,
        [
            {'ctx': mx.cpu(0), 'x': (2, 4), 'type_dict': {'x': np.float64}},
            {'ctx': mx.cpu(1), 'x': (2, 4), 'type_dict': {'x': np.float32}},
        ],
    )
    # MXNet 1.9.1: keys fc_bias, fc_output, fc_weight, x; float64 truth
    assert sorted(gt) == ['fc_bias', 'fc_output', 'fc_weight', 'x']
    assert gt['fc_output'].dtype == np.float64


def test_simple_forward():
    # MXNet 1.9.1: simple_forward(x * 2, x=np.ones(2)) -> [2., 2.]
    x = mx.sym.var('x')
    assert tu.simple_forward(x * 2, x=np.ones(2)).tolist() == [2, 2]


# -- environment and control ------------------------------------------------------------


def test_environment_restores():
    name = 'DLBOOK_TEST_ENVIRONMENT_VAR'
    os.environ.pop(name, None)
    with tu.environment(name, '1'):
        assert os.environ[name] == '1'
        with tu.environment({name: None}):
            assert name not in os.environ
        assert os.environ[name] == '1'
    assert name not in os.environ
    with pytest.raises(KeyError):
        with tu.environment(name, '2'):
            raise KeyError
    assert name not in os.environ


def test_discard_stderr(capfd):
    with tu.discard_stderr():
        os.write(2, b'hidden\n')
    os.write(2, b'shown\n')
    assert capfd.readouterr().err == 'shown\n'


def test_retry():
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) == 3

    flaky()
    assert len(calls) == 3

    @tu.retry(2)
    def broken():
        assert False, 'always'

    with pytest.raises(AssertionError, match='always'):
        broken()


def test_default_context_roundtrip():
    before = tu.default_context()
    try:
        tu.set_default_context(mx.cpu(1))
        assert tu.default_context() == mx.cpu(1)
        assert mx.nd.zeros(1).context == mx.cpu(1)
    finally:
        tu.set_default_context(before)


# -- statistics ---------------------------------------------------------------------------


def test_gen_buckets_probs_with_ppf():
    # MXNet 1.9.1: gen_buckets_probs_with_ppf(lambda x: x * 2, 4) ->
    # [(0.0, 0.5), (0.5, 1.0), (1.0, 1.5), (1.5, 2.0)], [0.25] * 4
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda x: x * 2, 4)
    assert buckets == [(0.0, 0.5), (0.5, 1.0), (1.0, 1.5), (1.5, 2.0)]
    assert probs == [0.25] * 4


def test_chi2_sf_matches_scipy():
    from dlbook.test_utils_stats import chi2_sf

    # scipy.stats.chi2.sf values (scipy 1.x, in MXNet's venv)
    for (stat, dof), p in {
        (3.2, 4): 0.5249309467861041,
        (30.5, 9): 0.0003605272842035689,
        (0.1, 1): 0.7518296340458493,
        (250, 200): 0.009379131668826505,
    }.items():
        assert abs(chi2_sf(stat, dof) - p) < 1e-10


def test_verify_generator():
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda q: q * 2, 5)
    mx.random.seed(3)
    ps = tu.verify_generator(
        lambda n: mx.random.uniform(0, 2, shape=(n,)).asnumpy(),
        buckets,
        probs,
        nsamples=20000,
        nrepeat=3,
    )
    assert len(ps) == 3
    with pytest.raises(AssertionError, match='Generator test fails'):
        tu.verify_generator(
            lambda n: mx.random.uniform(0, 1.5, shape=(n,)).asnumpy(),
            buckets,
            probs,
            nsamples=20000,
            nrepeat=3,
        )
    # discrete buckets
    tu.verify_generator(
        lambda n: mx.random.randint(0, 4, shape=(n,)).asnumpy(),
        [0, 1, 2, 3],
        [0.25] * 4,
        nsamples=20000,
        nrepeat=3,
    )
    assert tu.mean_check(lambda n: np.random.normal(1, 2, n), 1, 2, 20000)
    assert tu.var_check(lambda n: np.random.normal(1, 2, n), 2, 20000)
