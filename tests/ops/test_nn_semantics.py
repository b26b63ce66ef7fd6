"""Targeted raw-level tests of the nn operators (activation, norm, nn,
loss_output): MXNet semantics the table rows cannot express.

Everything runs on the registry classes with NumPy as ``xp``.
"""

import math
import warnings

import numpy as np
import pytest

from dlbook import autograd, nd
from dlbook.base import DLBookError
from dlbook.ops import REGISTRY
from dlbook.ops.special import erf


def make(name, is_train=False, seed=0, **attrs):
    op = REGISTRY[name](**attrs)
    op.is_train = is_train
    op.rng = np.random.RandomState(seed)
    return op


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# -- erf and numerical stability ----------------------------------------------


def test_erf_matches_math_erf_to_double_precision():
    x = np.concatenate(
        [np.linspace(-9, 9, 2001), [0.0, 1.0, -1.0, 8.0, -8.0, 1e-300, 40.0]]
    )
    want = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(erf(np, x), want, rtol=2e-15, atol=1e-300)


def test_erf_keeps_float32():
    x = np.linspace(-3, 3, 7, dtype='float32')
    assert erf(np, x).dtype == np.float32


def test_softmax_family_is_stable_for_huge_inputs():
    x = np.array([[1000.0, 0.0, -1000.0], [-1e4, -1e4, -1e4]])
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        y = make('softmax').forward(np, x)
        logy = make('log_softmax').forward(np, x)
        for act in ('sigmoid', 'softrelu', 'log_sigmoid'):
            assert np.isfinite(
                make('Activation', act_type=act).forward(np, x)
            ).all()
    np.testing.assert_allclose(y[0], [1, 0, 0], atol=1e-300)
    np.testing.assert_allclose(y[1], [1 / 3] * 3)
    np.testing.assert_allclose(logy[0], [0, -1000, -2000])


def test_softmax_dtype_attribute_sets_output_dtype():
    x = np.random.RandomState(0).uniform(size=(2, 3)).astype('float32')
    op = make('softmax', dtype='float64')
    y = op.forward(np, x)
    assert y.dtype == np.float64
    assert op.backward(np, np.ones_like(y)).dtype == np.float32


def test_softmax_length_input_is_optional_and_gets_no_gradient():
    assert make('softmax').list_arguments() == ('data',)
    op = make('softmax', use_length=True)
    assert op.list_arguments() == ('data', 'length')
    y = op.forward(np, np.zeros((2, 4)), np.array([1, 3]))
    np.testing.assert_allclose(y, [[1, 0, 0, 0], [1 / 3, 1 / 3, 1 / 3, 0]])
    dx, dlength = op.backward(np, np.ones((2, 4)))
    assert dlength is None and dx.shape == (2, 4)


def test_bad_axis_raises_dlbook_error():
    with pytest.raises(DLBookError, match='softmax'):
        make('softmax', axis=3).forward(np, np.zeros((2, 3)))
    with pytest.raises(DLBookError, match='BatchNorm'):
        make('BatchNorm', axis=2).forward(
            np, np.zeros((2, 3)), *[np.ones(3)] * 4
        )


def test_activation_needs_a_known_act_type():
    with pytest.raises(DLBookError, match='act_type'):
        make('Activation').forward(np, np.zeros(3))
    with pytest.raises(DLBookError, match='act_type'):
        make('LeakyReLU', act_type='swish').forward(np, np.zeros(3))


# -- LeakyReLU ----------------------------------------------------------------


def test_prelu_gamma_is_an_input_only_for_prelu():
    assert make('LeakyReLU').list_arguments() == ('data',)
    op = make('LeakyReLU', act_type='prelu')
    assert op.list_arguments() == ('data', 'gamma')
    assert op.infer_shape((2, 5, 3), None) == (
        [(2, 5, 3), (5,)],
        [(2, 5, 3)],
        [],
    )


def test_prelu_scalar_gamma_gets_a_summed_gradient():
    x = np.array([[-1.0, 2.0], [-3.0, 4.0]])
    op = make('LeakyReLU', act_type='prelu')
    y = op.forward(np, x, np.array([0.5]))
    np.testing.assert_allclose(y, [[-0.5, 2], [-1.5, 4]])
    dx, dgamma = op.backward(np, np.ones_like(x))
    np.testing.assert_allclose(dgamma, [-4.0])
    np.testing.assert_allclose(dx, [[0.5, 1], [0.5, 1]])


def test_rrelu_draws_random_slopes_only_in_training():
    assert make('LeakyReLU', act_type='rrelu').needs_rng
    assert not make('LeakyReLU').needs_rng
    x = -np.ones((50,))
    train = make('LeakyReLU', act_type='rrelu', is_train=True).forward(np, x)
    assert len(np.unique(train)) > 10
    infer = make('LeakyReLU', act_type='rrelu').forward(np, x)
    np.testing.assert_allclose(infer, -(0.125 + 0.334) / 2)


# -- FullyConnected -----------------------------------------------------------


def test_fully_connected_arguments_and_infer_shape():
    op = make('FullyConnected', num_hidden=5)
    assert op.list_arguments() == ('data', 'weight', 'bias')
    assert op.infer_shape((2, 3, 4), None, None) == (
        [(2, 3, 4), (5, 12), (5,)],
        [(2, 5)],
        [],
    )
    op = make('FullyConnected', num_hidden=5, flatten=False, no_bias=True)
    assert op.list_arguments() == ('data', 'weight')
    assert op.infer_shape((2, 3, 4), None) == (
        [(2, 3, 4), (5, 4)],
        [(2, 3, 5)],
        [],
    )


def test_fully_connected_wrong_weight_shape_names_everything():
    op = make('FullyConnected', num_hidden=5)
    with pytest.raises(DLBookError) as err:
        op.forward(np, np.zeros((2, 3)), np.zeros((5, 4)), np.zeros(5))
    message = str(err.value)
    for part in ('FullyConnected', 'weight', '(5, 4)', '(2, 3)', '(5, 3)'):
        assert part in message


def test_fully_connected_backward_shares_the_input_buffers():
    x = np.random.RandomState(0).uniform(size=(4, 3))
    w = np.random.RandomState(1).uniform(size=(2, 3))
    op = make('FullyConnected', num_hidden=2)
    op.forward(np, x, w, np.zeros(2))
    assert op.saved[0] is x and op.saved[1] is w  # no copies saved
    dy = np.ones((4, 2))
    dx, dw, db = op.backward(np, dy)
    np.testing.assert_allclose(dx, dy @ w)
    np.testing.assert_allclose(dw, dy.T @ x)
    np.testing.assert_allclose(db, [4, 4])


# -- BatchNorm and friends ----------------------------------------------------


def _bn_arrays(shape=(4, 3, 2, 2), axis=1, seed=0):
    rng = np.random.RandomState(seed)
    c = shape[axis]
    return (
        rng.uniform(-2, 2, size=shape),
        rng.uniform(0.5, 1.5, size=c),
        rng.uniform(-0.5, 0.5, size=c),
        rng.uniform(-0.2, 0.2, size=c),
        rng.uniform(0.5, 1.5, size=c),
    )


def test_batchnorm_training_updates_moving_stats_in_place():
    x, gamma, beta, mm, mv = _bn_arrays()
    mm0, mv0 = mm.copy(), mv.copy()
    op = make('BatchNorm', is_train=True, momentum=0.8)
    op.forward(np, x, gamma, beta, mm, mv)
    axes = (0, 2, 3)
    # MXNet's CPU kernel uses the biased batch variance (ddof=0)
    np.testing.assert_allclose(mm, 0.8 * mm0 + 0.2 * x.mean(axis=axes))
    np.testing.assert_allclose(mv, 0.8 * mv0 + 0.2 * x.var(axis=axes))


@pytest.mark.parametrize(
    'attrs,is_train', [({}, False), ({'use_global_stats': True}, True)]
)
def test_batchnorm_leaves_moving_stats_alone(attrs, is_train):
    x, gamma, beta, mm, mv = _bn_arrays()
    mm0, mv0 = mm.copy(), mv.copy()
    make('BatchNorm', is_train=is_train, **attrs).forward(
        np, x, gamma, beta, mm, mv
    )
    np.testing.assert_array_equal(mm, mm0)
    np.testing.assert_array_equal(mv, mv0)


def test_batchnorm_fix_gamma_ignores_gamma_and_zeroes_its_gradient():
    x, gamma, beta, mm, mv = _bn_arrays()
    op = make('BatchNorm', is_train=True)
    y = op.forward(np, x, gamma * 10, beta, mm, mv)
    y_ones = make('BatchNorm', is_train=True).forward(
        np, x, np.ones(3), beta, mm.copy(), mv.copy()
    )
    np.testing.assert_allclose(y, y_ones)
    dx, dgamma, dbeta, dmm, dmv = op.backward(np, np.ones_like(y))
    np.testing.assert_array_equal(dgamma, 0)
    assert dmm is None and dmv is None


def test_batchnorm_output_mean_var_gives_mean_and_invstd():
    x, gamma, beta, mm, mv = _bn_arrays()
    op = make('BatchNorm', is_train=True, output_mean_var=True)
    assert op.list_outputs() == ('output', 'mean', 'var')
    y, mean, invstd = op.forward(np, x, gamma, beta, mm, mv)
    np.testing.assert_allclose(mean, x.mean(axis=(0, 2, 3)))
    np.testing.assert_allclose(
        invstd, 1 / np.sqrt(x.var(axis=(0, 2, 3)) + 1e-3)
    )


@pytest.mark.parametrize('fix_gamma', [True, False])
def test_batchnorm_float16_data_with_float32_parameters(ctx, fix_gamma):
    """MXNet 1.9.1 (checked by hand): float16 data normalised with float32
    gamma, beta and running statistics gives float16 output and data
    gradient; the parameters' gradients and the running statistics stay
    float32."""
    x = nd.random.uniform(shape=(2, 3, 4, 4)).astype('float16')
    gamma, beta = nd.ones(3), nd.zeros(3)
    mm, mv = nd.zeros(3), nd.ones(3)
    for a in (x, gamma, beta):
        a.attach_grad()
    with autograd.record():
        y = nd.BatchNorm(x, gamma, beta, mm, mv, fix_gamma=fix_gamma)
    y.backward()
    assert y.dtype == np.float16 and x.grad.dtype == np.float16
    assert gamma.grad.dtype == beta.grad.dtype == np.float32
    assert mm.dtype == mv.dtype == np.float32
    want = x.asnumpy().astype(np.float64)
    mean = want.mean(axis=(0, 2, 3))
    np.testing.assert_allclose(mm.asnumpy(), 0.1 * mean, rtol=1e-3)
    np.testing.assert_allclose(
        y.asnumpy(),
        (want - mean[:, None, None])
        / np.sqrt(want.var(axis=(0, 2, 3))[:, None, None] + 1e-3),
        atol=5e-3,
    )


def test_norm_infer_shape_fills_parameters():
    bn = make('BatchNorm', axis=-1)
    assert bn.infer_shape((2, 5, 7), None, None, None, None) == (
        [(2, 5, 7), (7,), (7,)],
        [(2, 5, 7)],
        [(7,), (7,)],
    )
    ln = make('LayerNorm', axis=1, output_mean_var=True)
    assert ln.infer_shape((2, 5, 7), None, None) == (
        [(2, 5, 7), (5,), (5,)],
        [(2, 5, 7), (2, 1, 7), (2, 1, 7)],
        [],
    )
    inorm = make('InstanceNorm')
    assert inorm.infer_shape((2, 5, 7), None, None) == (
        [(2, 5, 7), (5,), (5,)],
        [(2, 5, 7)],
        [],
    )


def test_batchnorm_matches_torch_when_available():
    torch = pytest.importorskip('torch')
    x, gamma, beta, mm, mv = _bn_arrays()
    op = make('BatchNorm', is_train=True, fix_gamma=False, eps=1e-5)
    y = op.forward(np, x, gamma, beta, mm.copy(), mv.copy())
    dy = np.random.RandomState(3).uniform(-1, 1, size=y.shape)
    dx, dgamma, dbeta, _, _ = op.backward(np, dy)
    tx, tg, tb = (
        torch.tensor(a, requires_grad=True) for a in (x, gamma, beta)
    )
    ty = torch.nn.functional.batch_norm(
        tx, None, None, tg, tb, training=True, eps=1e-5
    )
    ty.backward(torch.tensor(dy))
    np.testing.assert_allclose(y, ty.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(dx, tx.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(dgamma, tg.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(dbeta, tb.grad.numpy(), atol=1e-12)


# -- LRN ----------------------------------------------------------------------


def test_lrn_hand_computed_example_scales_alpha_by_nsize():
    # one pixel, channels 1, 2, 3; alpha / nsize = 0.3 / 3 = 0.1
    x = np.array([1.0, 2.0, 3.0]).reshape(1, 3, 1, 1)
    op = make('LRN', nsize=3, alpha=0.3, beta=0.5, knorm=1.0)
    y = op.forward(np, x).ravel()
    # windows {0, 1}, {0, 1, 2}, {1, 2}: sums of squares 5, 14, 13
    want = [
        1 / math.sqrt(1 + 0.1 * 5),
        2 / math.sqrt(1 + 0.1 * 14),
        3 / math.sqrt(1 + 0.1 * 13),
    ]
    np.testing.assert_allclose(y, want)
    # gradient of y_0 = x_0 n_0^-1/2 with respect to x_1 (in n_0's window)
    dx = op.backward(np, np.array([1.0, 0.0, 0.0]).reshape(1, 3, 1, 1))
    np.testing.assert_allclose(
        dx.ravel()[1], -0.5 * 1 * 1.5**-1.5 * 0.1 * 2 * 2
    )
    assert dx.ravel()[2] == 0  # channel 2 is outside the window


def test_lrn_defaults_and_errors():
    x = np.ones((1, 3, 2, 2))
    y = make('LRN', nsize=5).forward(np, x)
    # knorm=2, alpha=1e-4, beta=0.75: 1 / (2 + 1e-4 / 5 * 3)^0.75 inside
    np.testing.assert_allclose(y[0, 1], (2 + 1e-4 / 5 * 3) ** -0.75)
    with pytest.raises(DLBookError, match='odd'):
        make('LRN', nsize=4).forward(np, x)
    with pytest.raises(DLBookError, match='nsize'):
        make('LRN').forward(np, x)
    with pytest.raises(DLBookError, match=r'4-D.*\(3, 2\)'):
        make('LRN', nsize=3).forward(np, np.ones((3, 2)))


# -- Dropout, Embedding, SequenceMask -----------------------------------------


def test_dropout_is_identity_outside_training():
    x = np.arange(6.0).reshape(2, 3)
    for attrs, is_train in (({}, False), ({'p': 0.0}, True)):
        op = make('Dropout', is_train=is_train, **attrs)
        np.testing.assert_array_equal(op.forward(np, x), x)
        np.testing.assert_array_equal(op.backward(np, np.ones_like(x)), 1)


def test_dropout_backward_uses_the_forward_mask():
    x = np.ones((20, 30))
    op = make('Dropout', is_train=True, p=0.4)
    y = op.forward(np, x)
    np.testing.assert_allclose(op.backward(np, np.ones_like(x)), y)
    assert set(np.unique(y)) == {0.0, 1 / 0.6}


def test_embedding_clips_indices_and_accumulates_repeats():
    weight = np.arange(12.0).reshape(4, 3)
    op = make('Embedding', input_dim=4, output_dim=3)
    y = op.forward(np, np.array([[1.0, 1.0], [7.0, -2.0]]), weight)
    np.testing.assert_array_equal(y[1], weight[[3, 0]])  # clipped
    ddata, dweight = op.backward(np, np.ones((2, 2, 3)))
    assert ddata is None
    np.testing.assert_array_equal(dweight[:, 0], [1, 2, 0, 1])
    assert op.infer_shape((2, 5), None) == ([(2, 5), (4, 3)], [(2, 5, 3)], [])


def test_embedding_rejects_a_wrong_weight():
    with pytest.raises(DLBookError, match='Embedding.*weight'):
        make('Embedding', input_dim=4, output_dim=3).forward(
            np, np.zeros(2), np.zeros((3, 3))
        )


def test_sequence_mask_arguments_and_errors():
    assert make('SequenceMask').list_arguments() == ('data',)
    op = make('sequence_mask', use_sequence_length=True, axis=1)
    assert op.list_arguments() == ('data', 'sequence_length')
    with pytest.raises(DLBookError, match='sequence_length'):
        op.forward(np, np.zeros((2, 5)), np.array([1.0, 2.0, 3.0]))


def test_sequence_mask_fills_with_minus_infinity_safely():
    x = np.ones((3, 2))
    op = make('SequenceMask', use_sequence_length=True, value=-np.inf)
    y = op.forward(np, x, np.array([1.0, 3.0]))
    np.testing.assert_array_equal(y, [[1, 1], [-np.inf, 1], [-np.inf, 1]])
    dx, dlen = op.backward(np, np.ones_like(x))
    np.testing.assert_array_equal(dx, [[1, 1], [0, 1], [0, 1]])
    assert dlen is None


# -- loss-output operators: the backward is the loss gradient -----------------


def _logits(shape=(4, 5), seed=0):
    return np.random.RandomState(seed).uniform(-2, 2, size=shape)


def _backward(op, y, seed=7):
    """Backward with a random head gradient: it must be ignored."""
    dy = np.random.RandomState(seed).uniform(-3, 3, size=y.shape)
    return op.backward(np, dy)


def test_softmax_output_gradient_is_softmax_minus_one_hot():
    x, label = _logits(), np.array([0.0, 3.0, 4.0, 1.0])
    op = make('SoftmaxOutput', grad_scale=2.0)
    y = op.forward(np, x, label)
    dx, dlabel = _backward(op, y)
    assert dlabel is None
    want = 2.0 * (softmax(x, 1) - np.eye(5)[[0, 3, 4, 1]])
    np.testing.assert_allclose(dx, want)
    # the same as the gradient of softmax_cross_entropy with head grad 1
    ce = make('softmax_cross_entropy')
    ce.forward(np, x, label)
    np.testing.assert_allclose(ce.backward(np, np.ones(1))[0] * 2.0, dx)


@pytest.mark.parametrize(
    'normalization,use_ignore,divisor',
    [
        ('null', True, 1),
        ('batch', True, 4),
        ('valid', True, 3),
        ('valid', False, 3),
    ],
)
def test_softmax_output_normalization_and_ignore(
    normalization, use_ignore, divisor
):
    x, label = _logits(), np.array([0.0, -1.0, 4.0, 1.0])
    op = make(
        'SoftmaxOutput', normalization=normalization, use_ignore=use_ignore
    )
    dx, _ = _backward(op, op.forward(np, x, label))
    one_hot = np.arange(5) == label[:, None]
    want = softmax(x, 1) - one_hot
    if use_ignore:
        want[1] = 0
    np.testing.assert_allclose(dx, want / divisor)


def test_softmax_output_label_smoothing():
    x, label = _logits(), np.array([0.0, 3.0, 4.0, 1.0])
    op = make('SoftmaxOutput', smooth_alpha=0.2)
    dx, _ = _backward(op, op.forward(np, x, label))
    target = np.full((4, 5), 0.2 / 4)
    target[np.arange(4), label.astype(int)] = 0.8
    np.testing.assert_allclose(dx, softmax(x, 1) - target)


def test_softmax_output_multi_output_and_preserve_shape():
    x = _logits((2, 3, 4))
    label = np.array([[0.0, 1, 2, 1], [2, 2, 0, -1]])
    op = make('SoftmaxOutput', multi_output=True, use_ignore=True)
    dx, _ = _backward(op, op.forward(np, x, label))
    one_hot = np.arange(3)[None, :, None] == label[:, None, :]
    want = (softmax(x, 1) - one_hot) * (label != -1)[:, None, :]
    # MXNet divides the multi_output gradient by the spatial size (4)
    np.testing.assert_allclose(dx, want / 4)

    label = np.array([[0.0, 3, 2], [1, 1, 0]])
    op = make('SoftmaxOutput', preserve_shape=True, normalization='batch')
    dx, _ = _backward(op, op.forward(np, x, label))
    one_hot = np.arange(4) == label[..., None]
    np.testing.assert_allclose(dx, (softmax(x, -1) - one_hot) / 6)


def test_softmax_output_probability_labels_and_out_grad():
    x = _logits()
    target = softmax(_logits(seed=1), 1)
    op = make('SoftmaxOutput', normalization='batch')
    dx, _ = _backward(op, op.forward(np, x, target))
    np.testing.assert_allclose(dx, softmax(x, 1) - target)  # not divided

    label = np.array([0.0, 3.0, 4.0, 1.0])
    op = make('SoftmaxOutput', out_grad=True)
    y = op.forward(np, x, label)
    dy = np.random.RandomState(7).uniform(-3, 3, size=y.shape)
    dx, _ = op.backward(np, dy)
    np.testing.assert_allclose(dx, (y - np.eye(5)[[0, 3, 4, 1]]) * dy)


def test_softmax_output_infers_label_shape():
    assert make('SoftmaxOutput').infer_shape((8, 10), None) == (
        [(8, 10), (8,)],
        [(8, 10)],
        [],
    )
    assert make('SoftmaxOutput', multi_output=True).infer_shape(
        (8, 10, 3, 3), None
    ) == ([(8, 10, 3, 3), (8, 9)], [(8, 10, 3, 3)], [])


@pytest.mark.parametrize(
    'name,predict,grad',
    [
        ('LinearRegressionOutput', lambda x: x, lambda y, t: y - t),
        (
            'LogisticRegressionOutput',
            lambda x: 1 / (1 + np.exp(-x)),
            lambda y, t: y - t,
        ),
        ('MAERegressionOutput', lambda x: x, lambda y, t: np.sign(y - t)),
    ],
)
def test_regression_outputs_scale_by_grad_scale_over_num_output(
    name, predict, grad
):
    x = _logits((4, 3))
    label = np.random.RandomState(2).uniform(0, 1, size=(4, 3))
    op = make(name, grad_scale=6.0)
    y = op.forward(np, x, label)
    np.testing.assert_allclose(y, predict(x))
    dx, dlabel = _backward(op, y)
    assert dlabel is None
    # num_output = label.size / label.shape[0] = 3
    np.testing.assert_allclose(dx, 6.0 / 3 * grad(y, label))


def test_linear_regression_accepts_flat_labels_for_one_output():
    x, label = _logits((4, 1)), np.arange(4.0)
    op = make('LinearRegressionOutput')
    dx, _ = _backward(op, op.forward(np, x, label))
    np.testing.assert_allclose(dx, x - label[:, None])
    assert op.infer_shape((4, 1), None) == ([(4, 1), (4,)], [(4, 1)], [])


@pytest.mark.parametrize(
    'attrs,value',
    [
        ({}, 1.0),
        ({'grad_scale': 3.0, 'normalization': 'batch'}, 3.0 / 4),
        ({'normalization': 'valid', 'valid_thresh': 0.5}, 1.0 / 5),
    ],
)
def test_make_loss_gradient(attrs, value):
    x = np.array(
        [[0.1, 0.6, 0.7], [0.9, 0.2, 0.3], [1.0, 0.0, 0.8], [0.4, 0.4, 0.4]]
    )  # 5 entries > 0.5
    op = make('MakeLoss', **attrs)
    y = op.forward(np, x)
    np.testing.assert_array_equal(y, x)
    np.testing.assert_allclose(_backward(op, y), np.full(x.shape, value))


# -- UpSampling ---------------------------------------------------------------


def _up(*arrays, **attrs):
    op = make('UpSampling', num_args=len(arrays), **attrs)
    return op, op.forward(np, *arrays)


def test_upsampling_nearest_repeats_pixels_and_sums_gradients():
    x = np.array([[1.0, 2.0], [3.0, 4.0]]).reshape(1, 1, 2, 2)
    op, y = _up(x, scale=2, sample_type='nearest')
    assert y[0, 0].tolist() == [
        [1, 1, 2, 2],
        [1, 1, 2, 2],
        [3, 3, 4, 4],
        [3, 3, 4, 4],
    ]
    dy = np.arange(16.0).reshape(1, 1, 4, 4)
    assert op.backward(np, dy)[0, 0].tolist() == [[10, 18], [42, 50]]


def test_upsampling_several_inputs_concat_or_sum():
    a = np.ones((1, 2, 2, 2))  # 2x2 -> 4x4 (scale 2)
    b = 2 * np.ones((1, 3, 4, 4))  # already 4x4
    c = 3 * np.ones((1, 1, 1, 1))  # 1x1 -> 4x4 (scale 4)
    op, y = _up(a, b, c, scale=2, sample_type='nearest')
    assert y.shape == (1, 6, 4, 4)
    assert y[0, :, 0, 0].tolist() == [1, 1, 2, 2, 2, 3]
    da, db, dc = op.backward(np, np.ones(y.shape))
    assert (da == 4).all() and (db == 1).all() and (dc == 16).all()

    b2 = 2 * np.ones((1, 2, 4, 4))
    c2 = 3 * np.ones((1, 2, 1, 1))
    op, y = _up(
        a, b2, c2, scale=2, sample_type='nearest', multi_input_mode='sum'
    )
    assert y.shape == (1, 2, 4, 4) and (y == 6).all()
    da, db, dc = op.backward(np, np.ones(y.shape))
    assert (da == 4).all() and (db == 1).all() and (dc == 16).all()
    with pytest.raises(DLBookError, match='same when multi_input_mode=sum'):
        _up(a, b, scale=2, sample_type='nearest', multi_input_mode='sum')
    with pytest.raises(DLBookError, match='does not divide'):
        _up(a, np.ones((1, 1, 3, 3)), scale=2, sample_type='nearest')


def test_upsampling_bilinear_is_mxnets_deconvolution_example():
    x, w = np.ones((1, 1, 3, 3)), np.ones((1, 1, 4, 4))
    op, y = _up(x, w, scale=2, sample_type='bilinear', num_filter=1)
    edge = [1, 2, 2, 2, 2, 1]
    assert y[0, 0].tolist() == [[a * b for b in edge] for a in edge]
    assert op.list_arguments() == ('data', 'weight')
    assert op.infer_shape((2, 1, 5, 5), None) == (
        [(2, 1, 5, 5), (1, 1, 4, 4)],
        [(2, 1, 10, 10)],
        [],
    )
    with pytest.raises(DLBookError, match='num_filter must equal'):
        _up(
            np.ones((1, 2, 3, 3)),
            np.ones((2, 1, 4, 4)),
            scale=2,
            sample_type='bilinear',
            num_filter=1,
        )


def test_upsampling_needs_sample_type_and_scale():
    with pytest.raises(DLBookError, match='sample_type'):
        make('UpSampling', scale=2)
    with pytest.raises(DLBookError, match='scale'):
        make('UpSampling', sample_type='nearest')


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('fix_gamma', [True, False])
def test_batch_norm_keeps_the_dtype_with_many_elements_per_channel(
    dtype, fix_gamma
):
    """80,000 elements per channel: NumPy 1.x would read that count as
    uint32 and turn float32 statistics into float64."""
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (2, 3, 200, 200)).astype(dtype)
    params = [np.ones(3, dtype), np.zeros(3, dtype)]
    stats = [np.zeros(3, dtype), np.ones(3, dtype)]
    op = REGISTRY['BatchNorm'](fix_gamma=fix_gamma)
    op.is_train = True
    y = op.forward(np, x, *params, *stats)
    grads = op.backward(np, np.ones_like(y))
    assert y.dtype == dtype
    assert [g.dtype for g in grads[:3]] == [dtype] * 3
    assert [s.dtype for s in stats] == [dtype] * 2
    want = (x - x.mean(axis=(0, 2, 3), keepdims=True)) / np.sqrt(
        x.var(axis=(0, 2, 3), keepdims=True) + 1e-3
    )
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)


def test_sigmoid_of_integers_as_mxnet(ctx):
    """MXNet 1.9.1 (checked by hand): nd.sigmoid of int32 [-2, 0, 3]
    gives int32 [0, 0, 0] (the floating results truncated)."""
    y = nd.sigmoid(nd.array([-2, 0, 3], dtype='int32'))
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y.asnumpy(), [0, 0, 0])


@pytest.mark.parametrize(
    'transpose', [(False, False), (True, False), (False, True)]
)
@pytest.mark.parametrize('needs', [(False, True), (True, False), (True, True)])
def test_dot_computes_only_the_gradients_asked_for(needs, transpose):
    """``dot(X, W)`` with data ``X`` that wants no gradient skips ``dX``
    (the tape tells the operator, ``needs_input_grad``); the gradient
    it computes equals the one of a full backward."""
    rng = np.random.RandomState(0)
    ta, tb = transpose
    a = rng.uniform(-1, 1, (3, 4) if not ta else (4, 3))
    b = rng.uniform(-1, 1, (4, 5) if not tb else (5, 4))
    dy = rng.uniform(-1, 1, (3, 5))

    def grads(wanted):
        op = REGISTRY['dot'](transpose_a=ta, transpose_b=tb)
        op.needs_input_grad = wanted
        op.forward(np, a, b)
        return op.backward(np, dy)

    full = grads(None)
    some = grads(needs)
    for wanted, got, want in zip(needs, some, full):
        if wanted:
            np.testing.assert_array_equal(got, want)
        else:
            assert got is None


def test_dot_of_data_without_gradient_leaves_the_weight_gradient():
    x = nd.array(np.arange(6.0).reshape(2, 3))  # data: no attach_grad
    w = nd.array(np.ones((3, 2)))
    w.attach_grad()
    with autograd.record():
        y = nd.dot(x, w).sum()
    y.backward()
    np.testing.assert_allclose(
        w.grad.asnumpy(), x.asnumpy().T @ np.ones((2, 2))
    )
