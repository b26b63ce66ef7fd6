"""Checkers of chapter 8: references pass, typical mistakes explained."""

from dlbook import nd
from dlbook.book import cnn
from dlbook.exercises.checker import run_check
from dlbook.gluon import nn

from .failing import fails as _fails

# -- ch08.corr2d -------------------------------------------------------------


def corr2d(X, K):
    h, w = K.shape
    Y = nd.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i : i + h, j : j + w] * K).sum().asscalar()
    return Y


def test_corr2d_reference_and_library_pass():
    assert run_check('ch08.corr2d', corr2d).passed
    assert run_check('ch08.corr2d', cnn.corr2d).passed


def test_corr2d_off_by_one():
    def short(X, K):
        h, w = K.shape
        Y = nd.zeros((X.shape[0] - h, X.shape[1] - w))
        for i in range(Y.shape[0]):
            for j in range(Y.shape[1]):
                Y[i, j] = (X[i : i + h, j : j + w] * K).sum().asscalar()
        return Y

    _fails('ch08.corr2d', short, 'one row and one column too small')


def test_corr2d_flipped_kernel():
    def convolve(X, K):
        return corr2d(X, nd.flip(nd.flip(K, axis=0), axis=1))

    _fails('ch08.corr2d', convolve, 'flipped the kernel')


def test_corr2d_assignment_error_is_reported():
    def bad(X, K):
        Y = nd.zeros((2, 2))
        Y[0, 0] = nd.ones((3,))
        return Y

    _fails('ch08.corr2d', bad, 'raised', 'Y[i, j]')


# -- ch08.output_size --------------------------------------------------------


def test_output_size_reference_and_library_pass():
    assert run_check(
        'ch08.output_size', lambda n, k, p, s: (n + 2 * p - k) // s + 1
    ).passed
    result = run_check(
        'ch08.output_size',
        lambda n, k, p, s: cnn.conv_output_shape((n, n), k, p, s)[0],
    )
    assert result.passed, result.report()


def test_output_size_forgot_plus_one():
    _fails(
        'ch08.output_size',
        lambda n, k, p, s: (n + 2 * p - k) // s,
        'forgot the + 1',
    )


def test_output_size_padding_once():
    _fails(
        'ch08.output_size',
        lambda n, k, p, s: (n + p - k) // s + 1,
        'both sides',
    )


def test_output_size_float_division():
    _fails(
        'ch08.output_size',
        lambda n, k, p, s: (n + 2 * p - k) / s + 1,
        'use //',
    )


def test_output_size_float_result_of_the_right_value():
    _fails(
        'ch08.output_size',
        lambda n, k, p, s: float((n + 2 * p - k) // s + 1),
        'a float',
        'use //',
    )


def test_output_size_ignores_stride():
    _fails(
        'ch08.output_size',
        lambda n, k, p, s: n + 2 * p - k + 1,
        'stride divides',
    )


# -- ch08.pool2d -------------------------------------------------------------


def test_pool2d_reference_and_library_pass():
    assert run_check('ch08.pool2d', cnn.pool2d).passed


def test_pool2d_modes_swapped():
    def swapped(X, pool_size, mode='max'):
        return cnn.pool2d(X, pool_size, 'avg' if mode == 'max' else 'max')

    _fails('ch08.pool2d', swapped, "computed the avg")


def test_pool2d_non_overlapping_windows():
    def strided(X, pool_size, mode='max'):
        pool = (
            nn.MaxPool2D(pool_size)
            if mode == 'max'
            else nn.AvgPool2D(pool_size)
        )
        return pool(X.reshape((1, 1) + X.shape))[0, 0]

    _fails('ch08.pool2d', strided, 'stride 1')


def test_pool2d_without_default_mode():
    def no_default(X, pool_size, mode):
        return cnn.pool2d(X, pool_size, mode)

    _fails('ch08.pool2d', no_default, 'raised TypeError')


# -- ch08.lenet --------------------------------------------------------------


def lenet(act='sigmoid', padding=2, pool=nn.AvgPool2D):
    net = nn.Sequential()
    net.add(
        nn.Conv2D(channels=6, kernel_size=5, padding=padding, activation=act),
        pool(pool_size=2, strides=2),
        nn.Conv2D(channels=16, kernel_size=5, activation=act),
        pool(pool_size=2, strides=2),
        nn.Dense(120, activation=act),
        nn.Dense(84, activation=act),
        nn.Dense(10),
    )
    return net


def test_lenet_reference_and_relu_variant_pass():
    result = run_check('ch08.lenet', lenet)
    assert result.passed, result.report()
    assert '61,706' in result.message
    assert run_check(
        'ch08.lenet', lambda: lenet('relu', pool=nn.MaxPool2D)
    ).passed


def test_lenet_without_padding():
    _fails('ch08.lenet', lambda: lenet(padding=0), 'padding=2')


def test_lenet_network_instead_of_function():
    _fails('ch08.lenet', lenet(), 'not lenet()')


def test_lenet_wrong_number_of_classes():
    def eight():
        net = lenet()
        net.add(nn.Dense(8))
        return net

    _fails('ch08.lenet', eight, 'expected (2, 10)')
