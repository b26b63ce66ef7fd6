"""Gluon losses against plain NumPy formulas.

Each loss is checked for: the forward value (float32) against a direct,
naive NumPy formula; the gradient (float64, random cotangent) against
central differences; label reshaping ``(n,)`` vs ``(n, 1)``; ``weight``
and ``sample_weight``; and finite values and gradients at scores of
+-1e4.
"""

import copy
import re

import numpy as np
import pytest

from dlbook import autograd, nd
from dlbook.base import DLBookError
from dlbook.gluon import loss as gloss
from tests.ops.cases import numeric_vjp
from tests.ops.cases_ctc import brute_force_ctc


@pytest.fixture
def rng():
    """A fresh generator per test: values do not depend on test order."""
    return np.random.RandomState(0)


def _to_nd(arrays, ctx, dtype):
    return [
        None if a is None else nd.array(a, ctx=ctx, dtype=dtype)
        for a in arrays
    ]


def check_loss(loss, args, ref, ctx, grad=(0,), rtol=1e-5, atol=1e-6):
    """Forward (float32) vs ``ref(*args)``; gradient of the inputs in
    ``grad`` (float64) vs central differences of the loss itself."""
    out = loss(*_to_nd(args, ctx, 'float32'))
    want = ref(
        *[None if a is None else np.asarray(a, np.float64) for a in args]
    )
    assert out.shape == want.shape
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.asnumpy(), want, rtol=rtol, atol=atol)
    # the same loss as a graph (hybridized: F is the symbol API)
    hybrid = copy.deepcopy(loss)
    hybrid.hybridize()
    np.testing.assert_allclose(
        hybrid(*_to_nd(args, ctx, 'float32')).asnumpy(),
        out.asnumpy(),
        rtol=1e-6,
        atol=1e-7,
        err_msg='hybridized',
    )

    arrays = [None if a is None else np.asarray(a, np.float64) for a in args]
    inputs = _to_nd(arrays, ctx, 'float64')
    for i in grad:
        inputs[i].attach_grad()
    with autograd.record():
        out = loss(*inputs)
    cot = np.random.RandomState(1).uniform(-1, 1, size=out.shape)
    out.backward(nd.array(cot, ctx=ctx, dtype='float64'))

    def f(*probed):
        full = list(arrays)
        for i, a in zip(grad, probed):
            full[i] = a
        return (loss(*_to_nd(full, ctx, 'float64')).asnumpy(),)

    numeric = numeric_vjp(f, [arrays[i].copy() for i in grad], [cot])
    for i, want_grad in zip(grad, numeric):
        np.testing.assert_allclose(
            inputs[i].grad.asnumpy(),
            want_grad,
            rtol=1e-5,
            atol=1e-7,
            err_msg=f'gradient of input {i}',
        )


def batch_mean(x, batch_axis=0):
    axes = tuple(a for a in range(x.ndim) if a != batch_axis)
    return x.mean(axis=axes) if axes else x


def batch_sum(x, batch_axis=0):
    """KLDivLoss's reduction: MXNet 1.9.1 sums its non-batch axes."""
    axes = tuple(a for a in range(x.ndim) if a != batch_axis)
    return x.sum(axis=axes) if axes else x


def full_mean(x):
    """PoissonNLLLoss's: one mean over everything, shape (1,)."""
    return np.array([x.mean()])


def away_from(x, kinks, margin=0.05):
    """``x`` with values near any of ``kinks`` pushed ``2 * margin``
    away, so central differences never straddle a kink."""
    x = np.array(x, dtype=np.float64)
    for k in kinks:
        close = np.abs(x - k) < margin
        x[close] = k + np.where(x[close] >= k, 2, -2) * margin
    return x


def log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# -- names and reprs ------------------------------------------------------


def test_repr_name_and_aliases():
    loss = gloss.SoftmaxCrossEntropyLoss()
    assert repr(loss) == 'SoftmaxCrossEntropyLoss(batch_axis=0, w=None)'
    assert re.fullmatch(r'softmaxcrossentropyloss\d+_', loss.prefix)
    assert repr(gloss.L2Loss()) == 'L2Loss(batch_axis=0, w=1.0)'
    assert (
        repr(gloss.CTCLoss(layout='TNC', label_layout='TN'))
        == 'CTCLoss(batch_axis=1, w=None)'
    )
    assert gloss.SoftmaxCELoss is gloss.SoftmaxCrossEntropyLoss
    assert gloss.SigmoidBCELoss is gloss.SigmoidBinaryCrossEntropyLoss
    assert isinstance(loss, gloss.Loss)


def test_weight_must_be_a_number(ctx):
    loss = gloss.L1Loss(weight=nd.ones((1,)))
    with pytest.raises(AssertionError, match='weight must be a number'):
        loss(nd.ones((2, 3)), nd.zeros((2, 3)))


# -- regression losses ----------------------------------------------------


def test_l2_loss(ctx, rng):
    pred, label = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    check_loss(
        gloss.L2Loss(),
        [pred, label],
        lambda p, y: batch_mean(0.5 * (y - p) ** 2),
        ctx,
    )


def test_l2_loss_reshapes_the_label(ctx, rng):
    pred, label = rng.normal(size=(5, 1)), rng.normal(size=(5,))
    check_loss(
        gloss.L2Loss(),
        [pred, label],
        lambda p, y: 0.5 * (y - p[:, 0]) ** 2,
        ctx,
    )


def test_l2_loss_weight_sample_weight_and_batch_axis(ctx, rng):
    pred, label = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    sample_weight = rng.uniform(0, 2, size=(1, 4))
    check_loss(
        gloss.L2Loss(weight=3.0, batch_axis=1),
        [pred, label, sample_weight],
        lambda p, y, s: batch_mean(1.5 * (y - p) ** 2 * s, 1),
        ctx,
    )


def test_l1_loss(ctx, rng):
    pred = rng.normal(size=(4, 3))
    label = pred + away_from(rng.normal(size=(4, 3)), [0])
    sample_weight = rng.uniform(0, 2, size=(4, 1))
    check_loss(
        gloss.L1Loss(),
        [pred, label],
        lambda p, y: batch_mean(np.abs(y - p)),
        ctx,
    )
    check_loss(
        gloss.L1Loss(weight=0.5),
        [pred, label, sample_weight],
        lambda p, y, s: batch_mean(0.5 * s * np.abs(y - p)),
        ctx,
    )


@pytest.mark.parametrize('rho', [1, 0.5])
def test_huber_loss(ctx, rho, rng):
    label = rng.normal(size=(4, 3))
    diff = away_from(rng.uniform(-2, 2, size=(4, 3)), [0, rho, -rho])
    pred = label + diff

    def ref(p, y):
        d = np.abs(y - p)
        return batch_mean(np.where(d > rho, d - rho / 2, d * d / (2 * rho)))

    check_loss(gloss.HuberLoss(rho=rho), [pred, label], ref, ctx)


def test_poisson_nll_loss(ctx, rng):
    pred = rng.uniform(-1, 1, size=(4, 3))
    target = rng.randint(0, 5, size=(4, 3)).astype(np.float64)
    check_loss(
        gloss.PoissonNLLLoss(),
        [pred, target],
        lambda p, t: full_mean(np.exp(p) - t * p),
        ctx,
    )
    rate = rng.uniform(0.5, 3, size=(4, 3))
    check_loss(
        gloss.PoissonNLLLoss(from_logits=False),
        [rate, target],
        lambda p, t: full_mean(p - t * np.log(p + 1e-8)),
        ctx,
    )


def test_poisson_nll_loss_compute_full(ctx, rng):
    pred = rng.uniform(-1, 1, size=(2, 4))
    target = np.array([[0.0, 1, 2, 5], [3, 0, 1, 7]])

    def ref(p, t):
        with np.errstate(divide='ignore', invalid='ignore'):
            stirling = t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t)
        return full_mean(np.exp(p) - t * p + np.where(t > 1, stirling, 0))

    check_loss(
        gloss.PoissonNLLLoss(compute_full=True), [pred, target], ref, ctx
    )


# -- classification losses -------------------------------------------------


@pytest.mark.parametrize('label_shape', [(5,), (5, 1)])
def test_softmax_ce_sparse_labels(ctx, label_shape, rng):
    pred = rng.normal(size=(5, 4))
    label = rng.randint(0, 4, size=label_shape).astype(np.float64)

    def ref(p, y):
        return -log_softmax(p)[np.arange(5), y.reshape(-1).astype(int)]

    check_loss(gloss.SoftmaxCrossEntropyLoss(), [pred, label], ref, ctx)


def test_softmax_ce_axis_and_sample_weight(ctx, rng):
    pred = rng.normal(size=(2, 4, 3))  # classes on axis 1
    label = rng.randint(0, 4, size=(2, 3)).astype(np.float64)
    sample_weight = rng.uniform(0, 1, size=(2, 1, 3))

    def ref(p, y, s):
        logp = log_softmax(p, axis=1)
        picked = np.take_along_axis(logp, y.astype(int)[:, None], axis=1)
        return batch_mean(-picked * s * 2)

    check_loss(
        gloss.SoftmaxCrossEntropyLoss(axis=1, weight=2),
        [pred, label, sample_weight],
        ref,
        ctx,
    )


def test_softmax_ce_dense_labels_and_from_logits(ctx, rng):
    pred = rng.normal(size=(3, 4))
    label = np.exp(rng.normal(size=(3, 4)))
    label /= label.sum(axis=1, keepdims=True)
    check_loss(
        gloss.SoftmaxCrossEntropyLoss(sparse_label=False),
        [pred, label],
        lambda p, y: -(log_softmax(p) * y).sum(axis=1),
        ctx,
    )
    logp = log_softmax(pred)
    check_loss(
        gloss.SoftmaxCrossEntropyLoss(from_logits=True),
        [logp, np.array([0.0, 3, 1])],
        lambda p, y: -p[np.arange(3), y.astype(int)],
        ctx,
    )


def _bce(x, z, pos_weight=1.0):
    return -(
        pos_weight * z * np.log(sigmoid(x)) + (1 - z) * np.log(1 - sigmoid(x))
    )


@pytest.mark.parametrize('label_shape', [(6,), (6, 1)])
def test_sigmoid_bce_from_scores(ctx, label_shape, rng):
    pred = away_from(rng.normal(size=(6, 1)) * 3, [0])
    label = rng.randint(0, 2, size=label_shape).astype(np.float64)
    check_loss(
        gloss.SigmoidBCELoss(),
        [pred, label],
        lambda x, z: _bce(x[:, 0], z.reshape(-1)),
        ctx,
    )


def test_sigmoid_bce_soft_labels_pos_weight_and_sample_weight(ctx, rng):
    pred = away_from(rng.normal(size=(4, 3)) * 3, [0])
    label = rng.uniform(0, 1, size=(4, 3))
    pos_weight = rng.uniform(0.5, 3, size=(1, 3))
    sample_weight = rng.uniform(0, 1, size=(4, 1))
    check_loss(
        gloss.SigmoidBinaryCrossEntropyLoss(),
        [pred, label, sample_weight, pos_weight],
        lambda x, z, s, w: batch_mean(s * _bce(x, z, w)),
        ctx,
    )
    check_loss(
        gloss.SigmoidBinaryCrossEntropyLoss(),
        [pred, label, None, pos_weight],
        lambda x, z, s, w: batch_mean(_bce(x, z, w)),
        ctx,
    )


def test_sigmoid_bce_from_sigmoid(ctx, rng):
    prob = rng.uniform(0.05, 0.95, size=(4, 3))
    label = rng.uniform(0, 1, size=(4, 3))
    pos_weight = rng.uniform(0.5, 3, size=(1, 3))
    loss = gloss.SigmoidBCELoss(from_sigmoid=True)

    def ref(p, z, s=None, w=1.0):
        return batch_mean(-(w * z * np.log(p) + (1 - z) * np.log(1 - p)))

    check_loss(loss, [prob, label], ref, ctx)
    check_loss(loss, [prob, label, None, pos_weight], ref, ctx)


@pytest.mark.parametrize('label_format', ['signed', 'binary'])
def test_logistic_loss(ctx, label_format, rng):
    pred = away_from(rng.normal(size=(5, 2)) * 3, [0])
    signs = rng.choice([-1.0, 1.0], size=(5, 2))
    label = signs if label_format == 'signed' else (signs + 1) / 2
    check_loss(
        gloss.LogisticLoss(label_format=label_format),
        [pred, label],
        lambda p, y: batch_mean(np.log1p(np.exp(-p * signs))),
        ctx,
    )


def test_logistic_loss_rejects_unknown_format():
    with pytest.raises(ValueError, match='signed or binary'):
        gloss.LogisticLoss(label_format='zero_one')


@pytest.mark.parametrize('squared', [False, True])
@pytest.mark.parametrize('margin', [1, 2])
def test_hinge_losses(ctx, squared, margin, rng):
    label = rng.choice([-1.0, 1.0], size=(5, 3))
    pred = label * away_from(rng.uniform(-1, 3, size=(5, 3)), [margin])
    cls = gloss.SquaredHingeLoss if squared else gloss.HingeLoss

    def ref(p, y):
        hinge = np.maximum(0, margin - p * y)
        return batch_mean(hinge**2 if squared else hinge)

    check_loss(cls(margin=margin), [pred, label], ref, ctx)


@pytest.mark.parametrize('from_logits', [True, False])
def test_kl_div_loss(ctx, from_logits, rng):
    pred = rng.normal(size=(3, 4))
    if from_logits:
        pred = log_softmax(pred)
    label = np.exp(rng.normal(size=(3, 4)))
    label /= label.sum(axis=1, keepdims=True)

    def ref(p, y):
        logp = p if from_logits else log_softmax(p)
        return batch_sum(y * (np.log(y + 1e-12) - logp))

    check_loss(
        gloss.KLDivLoss(from_logits=from_logits), [pred, label], ref, ctx
    )


# -- embedding losses ------------------------------------------------------


def test_triplet_loss(ctx, rng):
    pred = rng.normal(size=(4, 3))
    positive = pred + rng.normal(size=(4, 3)) * 0.5
    negative = pred + rng.normal(size=(4, 3))
    sample_weight = rng.uniform(0, 1, size=(4,))

    def ref(p, pos, neg):
        gap = ((pos - p) ** 2 - (neg - p) ** 2).sum(axis=1)
        return np.maximum(gap + 1, 0)

    gap = ((positive - pred) ** 2 - (negative - pred) ** 2).sum(axis=1)
    assert np.all(np.abs(gap + 1) > 0.05)  # no kink nearby
    check_loss(
        gloss.TripletLoss(),
        [pred, positive, negative],
        ref,
        ctx,
        grad=(0, 1, 2),
    )
    check_loss(
        gloss.TripletLoss(),
        [pred, positive, negative, sample_weight],
        lambda p, a, b, s: ref(p, a, b) * s,
        ctx,
        grad=(0, 1, 2),
    )


def cosine(a, b):
    return (a * b).sum(1) / (
        np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    )


@pytest.mark.parametrize('margin', [0, 0.2])
def test_cosine_embedding_loss(ctx, margin, rng):
    x1, x2 = rng.normal(size=(6, 4)), rng.normal(size=(6, 4))
    label = np.array([1.0, -1, 1, -1, -1, 1])
    assert np.all(np.abs(cosine(x1, x2) - margin) > 0.02)  # no kink

    def ref(a, b, y):
        cos = cosine(a, b)
        loss = np.where(y == 1, 1 - cos, np.maximum(0, cos - margin))
        return loss.reshape(-1, 1)  # (batch_size, 1), as MXNet

    check_loss(
        gloss.CosineEmbeddingLoss(margin=margin),
        [x1, x2, label],
        ref,
        ctx,
        grad=(0, 1),
    )


# -- CTC -------------------------------------------------------------------


@pytest.mark.parametrize('layout,label_layout', [('NTC', 'NT'), ('TNC', 'TN')])
def test_ctc_loss(ctx, layout, label_layout, rng):
    steps, batch, classes = 4, 3, 3
    scores = rng.uniform(-2, 2, size=(steps, batch, classes))  # TNC
    label = np.array([[0.0, 1], [1, -1], [-1, -1]])  # NT
    want = brute_force_ctc(scores, label, blank_label='last')
    pred = scores.transpose(1, 0, 2) if layout == 'NTC' else scores
    lab = label if label_layout == 'NT' else label.T
    check_loss(
        gloss.CTCLoss(layout, label_layout),
        [pred, lab],
        lambda p, y: want,
        ctx,
    )


def test_ctc_loss_lengths_and_weights(ctx, rng):
    scores = rng.uniform(-2, 2, size=(3, 4, 3))  # NTC
    label = np.array([[0.0, 1], [1, 0], [1, 1]])
    pred_lengths, label_lengths = np.array([4.0, 3, 4]), np.array([2.0, 1, 2])
    want = brute_force_ctc(
        scores.transpose(1, 0, 2),
        label,
        pred_lengths,
        label_lengths,
        blank_label='last',
    )
    sample_weight = np.array([0.5, 1.0, 2.0])
    check_loss(
        gloss.CTCLoss(weight=2.0),
        [scores, label, pred_lengths, label_lengths, sample_weight],
        lambda *a: want * sample_weight * 2,
        ctx,
    )


def test_ctc_impossible_alignment_is_inf_with_zero_gradient(ctx, rng):
    pred = nd.array(rng.normal(size=(1, 2, 3)), ctx=ctx)
    pred.attach_grad()
    with autograd.record():
        loss = gloss.CTCLoss()(pred, nd.array([[0, 0]], ctx=ctx))
    loss.backward()
    assert np.isinf(loss.asnumpy()).all()
    assert np.all(pred.grad.asnumpy() == 0)


# -- extreme scores stay finite --------------------------------------------

EXTREME = np.array(
    [[1e4, -1e4, 0.5], [-1e4, 1e4, -0.5], [1e4, 1e4, -1e4], [-1e4, -1e4, 1e4]]
)

FINITE_CASES = {
    'softmax_ce': (
        gloss.SoftmaxCrossEntropyLoss(),
        lambda: [np.array([1.0, 0, 2, 0])],
    ),
    'softmax_ce_dense': (
        gloss.SoftmaxCrossEntropyLoss(sparse_label=False),
        lambda: [np.full((4, 3), 1 / 3)],
    ),
    'sigmoid_bce': (
        gloss.SigmoidBCELoss(),
        lambda: [np.array([[1.0, 0, 1]] * 4)],
    ),
    'sigmoid_bce_pos_weight': (
        gloss.SigmoidBCELoss(),
        lambda: [
            np.array([[0.0, 1, 1]] * 4),
            None,
            np.array([[3.0, 0.5, 1.0]]),
        ],
    ),
    'logistic': (gloss.LogisticLoss(), lambda: [np.array([[1.0, -1, 1]] * 4)]),
    'kl_div': (
        gloss.KLDivLoss(from_logits=False),
        lambda: [np.full((4, 3), 1 / 3)],
    ),
    'l1': (gloss.L1Loss(), lambda: [np.zeros((4, 3))]),
    'l2': (gloss.L2Loss(), lambda: [np.zeros((4, 3))]),
    'huber': (gloss.HuberLoss(), lambda: [np.zeros((4, 3))]),
    'hinge': (gloss.HingeLoss(), lambda: [np.array([[-1.0, 1, 1]] * 4)]),
    'squared_hinge': (
        gloss.SquaredHingeLoss(),
        lambda: [np.array([[1.0, -1, 1]] * 4)],
    ),
}


@pytest.mark.parametrize('name', sorted(FINITE_CASES))
def test_extreme_scores_stay_finite(ctx, name):
    loss, make_rest = FINITE_CASES[name]
    pred = nd.array(EXTREME, ctx=ctx)
    pred.attach_grad()
    rest = _to_nd(make_rest(), ctx, 'float32')
    with autograd.record():
        out = loss(pred, *rest)
    out.backward()
    assert out.shape == (4,)
    assert np.isfinite(out.asnumpy()).all()
    assert np.isfinite(pred.grad.asnumpy()).all()


def test_softmax_ce_extreme_values_are_exact(ctx):
    pred = nd.array([[1e4, -1e4, 0.0], [0.0, 1e4, 0.0]], ctx=ctx)
    loss = gloss.SoftmaxCrossEntropyLoss()(pred, nd.array([1, 1], ctx=ctx))
    np.testing.assert_allclose(loss.asnumpy(), [2e4, 0.0], rtol=1e-6)


def test_sigmoid_bce_extreme_values_are_exact(ctx):
    pred = nd.array([[1e4], [-1e4], [1e4]], ctx=ctx)
    label = nd.array([1, 0, 0], ctx=ctx)
    loss = gloss.SigmoidBCELoss()(pred, label)
    np.testing.assert_allclose(loss.asnumpy(), [0.0, 0.0, 1e4], rtol=1e-6)


def _recorded_inputs():
    """The inputs of the values below, drawn in the order they were drawn
    when MXNet 1.9.1 computed them."""
    rs = np.random.RandomState(0)
    pred, lab = rs.randn(3, 4, 5), rs.randn(3, 4, 5)
    pos = rs.rand(3, 4, 5) + 0.1
    rs.rand(3, 4, 5)  # a binary label the other losses used
    sw = rs.rand(3, 1, 1)
    return [nd.array(a) for a in (pred, lab, pos, sw)]


def test_reductions_and_shapes_as_mxnet():
    """KLDivLoss sums its non-batch axes, PoissonNLLLoss averages all of
    them into shape (1,), CosineEmbeddingLoss returns (batch, 1), SDMLLoss
    follows KLDivLoss: values printed by MXNet 1.9.1."""
    pred, lab, pos, sw = _recorded_inputs()
    recorded = [
        (
            gloss.KLDivLoss()(nd.log_softmax(pred), nd.softmax(lab)),
            [1.7687567472457886, 2.2851662635803223, 3.4217116832733154],
        ),
        (
            gloss.KLDivLoss(from_logits=False)(pred, nd.softmax(lab), sw),
            [0.4983120560646057, 1.3400447368621826, 0.2188364863395691],
        ),
        (gloss.PoissonNLLLoss()(pred, pos), [1.7504994869232178]),
        (
            gloss.PoissonNLLLoss(from_logits=False, compute_full=True)(
                pos, pos * 3
            ),
            [1.893764853477478],
        ),
        (
            gloss.CosineEmbeddingLoss()(
                pred.reshape((3, 20)),
                lab.reshape((3, 20)),
                nd.array([1, -1, 1]),
            ),
            [[1.4278607368469238], [0.2460263967514038], [1.1342408657073975]],
        ),
        (
            gloss.SDMLLoss()(pred.reshape((3, 20)), lab.reshape((3, 20))),
            [4.307796478271484, 5.791531562805176, 24.262836456298828],
        ),
    ]
    for got, want in recorded:
        assert got.shape == np.shape(want)
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)


def test_sdml_loss_gradient_and_mismatch(rng):
    x1 = nd.array(rng.normal(size=(4, 3)), dtype='float64')
    x2 = nd.array(rng.normal(size=(4, 3)), dtype='float64')
    loss = gloss.SDMLLoss(smoothing_parameter=0.2)
    x1.attach_grad()
    with autograd.record():
        out = loss(x1, x2)
    out.backward()
    step, base = 1e-6, x1.asnumpy()
    for index in [(0, 0), (2, 1), (3, 2)]:
        values = []
        for sign in (1, -1):
            probe = base.copy()
            probe[index] += sign * step
            values.append(
                loss(nd.array(probe, dtype='float64'), x2).sum().asscalar()
            )
        numeric = (values[0] - values[1]) / (2 * step)
        np.testing.assert_allclose(
            x1.grad.asnumpy()[index], numeric, rtol=1e-5
        )
    with pytest.raises(DLBookError, match='one shape'):
        loss(nd.ones((4, 3)), nd.ones((3, 3)))
