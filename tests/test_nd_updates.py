"""MXNet's update operators in ``nd`` (``dlbook/ndarray/updates.py``).

Each operator is checked against its rule written out in NumPy (float64)
from MXNet's documentation and kernels, for the returned weight, the
states updated in place and the weight left alone (unless ``out`` is the
weight); a few results of MXNet 1.9.1 itself are recorded as expected
values.
"""

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd
from dlbook.base import DLBookError

RNG = np.random.RandomState(7)
W, G = RNG.uniform(-1, 1, 6), RNG.uniform(-3, 3, 6)
S1, S2, S3 = RNG.uniform(-1, 1, 6), RNG.uniform(0, 1, 6), RNG.uniform(-1, 1, 6)


def _clip(x, bound):
    return x if bound < 0 else np.clip(x, -bound, bound)


def _sgd(w, g, lr, wd, rescale_grad, clip_gradient):
    return (1 - lr * wd) * w - lr * _clip(rescale_grad * g, clip_gradient), ()


def _sgd_mom(w, g, mom, lr, momentum, wd, rescale_grad, clip_gradient):
    mom = (
        momentum * mom
        - lr * wd * w
        - lr * _clip(rescale_grad * g, clip_gradient)
    )
    return w + mom, (mom,)


def _nag(w, g, mom, lr, momentum, wd, rescale_grad, clip_gradient):
    d = lr * (_clip(rescale_grad * g, clip_gradient) + wd * w)
    mom = momentum * mom - d
    return w + momentum * mom - d, (mom,)


def _adam(w, g, mean, var, lr, beta1, beta2, epsilon, wd, rescale, clip):
    g = _clip(rescale * g + wd * w, clip)
    mean = beta1 * mean + (1 - beta1) * g
    var = beta2 * var + (1 - beta2) * g * g
    return w - lr * mean / (np.sqrt(var) + epsilon), (mean, var)


def _rmsprop(w, g, n, lr, gamma1, epsilon, wd, rescale, clip, clip_weights):
    g = _clip(rescale * g + wd * w, clip)
    n = (1 - gamma1) * g * g + gamma1 * n
    return _clip(w - lr * g / np.sqrt(n + epsilon), clip_weights), (n,)


def _rmspropalex(w, g, n, g_avg, delta, lr, gamma1, gamma2, epsilon, wd):
    n = (1 - gamma1) * g * g + gamma1 * n
    g_avg = (1 - gamma1) * g + gamma1 * g_avg
    delta = gamma2 * delta - lr * g / np.sqrt(n - g_avg * g_avg + epsilon)
    return w + delta, (n, g_avg, delta)


def _signum(w, g, mom, lr, momentum, wd, wd_lh):
    mom = momentum * mom - (1 - momentum) * (wd * w + g)
    return (1 - lr * wd_lh) * w + lr * np.sign(mom), (mom,)


def _ftml(w, g, d, v, z, lr, beta1, beta2, epsilon, t, wd):
    g = g + wd * w
    v = beta2 * v + (1 - beta2) * g * g
    d_t = (1 - beta1**t) / lr * (np.sqrt(v / (1 - beta2**t)) + epsilon)
    z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d) * w
    return -z / d_t, (d_t, v, z)


def _ftrl(w, g, z, n, lr, lamda1, beta, wd):
    z = z + g - (np.sqrt(n + g * g) - np.sqrt(n)) * w / lr
    n = n + g * g
    w = (np.sign(z) * lamda1 - z) / ((beta + np.sqrt(n)) / lr + wd)
    return w * (np.abs(z) > lamda1), (z, n)


#: operator -> (its states' kinds, its settings, the rule in NumPy taking
#: the settings in the operator's order)
CASES = {
    'sgd_update': (
        (),
        dict(lr=0.1, wd=0.01, rescale_grad=2.0, clip_gradient=0.5),
        _sgd,
    ),
    'sgd_mom_update': (
        ('any',),
        dict(
            lr=0.1, momentum=0.9, wd=0.01, rescale_grad=2.0, clip_gradient=0.5
        ),
        _sgd_mom,
    ),
    'nag_mom_update': (
        ('any',),
        dict(
            lr=0.1, momentum=0.9, wd=0.01, rescale_grad=1.0, clip_gradient=-1
        ),
        _nag,
    ),
    'signsgd_update': (
        (),
        dict(lr=0.1, wd=0.01),
        lambda w, g, lr, wd: ((1 - lr * wd) * w - lr * np.sign(g), ()),
    ),
    'signum_update': (
        ('any',),
        dict(lr=0.1, momentum=0.9, wd=0.01, wd_lh=0.02),
        _signum,
    ),
    'adam_update': (
        ('any', 'pos'),
        dict(
            lr=0.01,
            beta1=0.9,
            beta2=0.999,
            epsilon=1e-8,
            wd=0.01,
            rescale_grad=2.0,
            clip_gradient=1.5,
        ),
        _adam,
    ),
    'rmsprop_update': (
        ('pos',),
        dict(
            lr=0.01,
            gamma1=0.95,
            epsilon=1e-8,
            wd=0.01,
            rescale_grad=1.0,
            clip_gradient=2.0,
            clip_weights=0.9,
        ),
        _rmsprop,
    ),
    'rmspropalex_update': (
        ('pos', 'small', 'any'),
        dict(lr=0.01, gamma1=0.95, gamma2=0.9, epsilon=1e-8, wd=0.0),
        _rmspropalex,
    ),
    'ftml_update': (
        ('pos', 'pos', 'any'),
        dict(lr=0.01, beta1=0.6, beta2=0.999, epsilon=1e-8, t=3, wd=0.01),
        _ftml,
    ),
    'ftrl_update': (
        ('any', 'pos'),
        dict(lr=0.1, lamda1=0.01, beta=1.0, wd=0.01),
        _ftrl,
    ),
}


#: the states' values by kind: any sign, or positive (running means of
#: squares, larger than the square of the running mean ``small``)
STATES = {'any': S1, 'pos': 0.5 + S2 / 2, 'small': S3 / 4}


def _arrays(states, ctx):
    """Weight, gradient and states (``states``: their kinds) as float64
    NDArrays."""
    values = [W, G] + [STATES[kind] for kind in states]
    return [nd.array(v, ctx=ctx, dtype='float64') for v in values]


@pytest.mark.parametrize('name', sorted(CASES))
def test_update_follows_its_rule(ctx, name):
    states, settings, rule = CASES[name]
    arrays = _arrays(states, ctx)
    before = [a.asnumpy() for a in arrays]
    result = getattr(nd, name)(*arrays, **settings)
    want, want_states = rule(*before, *settings.values())
    np.testing.assert_allclose(result.asnumpy(), want, rtol=1e-12)
    # the weight is left alone, the states are updated in place
    np.testing.assert_array_equal(arrays[0].asnumpy(), before[0])
    for got, expected in zip(arrays[2:], want_states):
        np.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-12)


@pytest.mark.parametrize('name', sorted(CASES))
def test_out_weight_updates_in_place(ctx, name):
    states, settings, _ = CASES[name]
    arrays = _arrays(states, ctx)
    twin = [a.copy() for a in arrays]
    result = getattr(nd, name)(*arrays, out=arrays[0], **settings)
    expected = getattr(nd, name)(*twin, **settings)
    assert result is arrays[0]
    np.testing.assert_allclose(result.asnumpy(), expected.asnumpy())


def test_positional_settings_follow_mxnet_order():
    """``nd.sgd_mom_update(w, g, mom, lr, momentum)``, as MXNet fills its
    parameters; MXNet 1.9.1 gives [0.9, 1.9] here."""
    w, g, m = nd.array([1.0, 2.0]), nd.array([1.0, 1.0]), nd.zeros(2)
    np.testing.assert_allclose(
        nd.sgd_mom_update(w, g, m, 0.1, 0.9).asnumpy(), [0.9, 1.9]
    )


def test_mxnet_values():
    """Results of MXNet 1.9.1 (float32) for the same calls."""
    w, g = nd.array([1.0, 2.0, 3.0]), nd.array([0.5, -1, 2])
    m = nd.array([0.1, 0.1, 0.1])
    r = nd.sgd_mom_update(
        w,
        g,
        m,
        lr=0.1,
        momentum=0.9,
        wd=0.01,
        clip_gradient=1.0,
        rescale_grad=2.0,
    )
    np.testing.assert_allclose(
        r.asnumpy(), [0.98899996, 2.188, 2.987], rtol=1e-6
    )
    np.testing.assert_allclose(
        m.asnumpy(), [-0.01100001, 0.188, -0.013], rtol=1e-6
    )
    w = nd.array([0.95, 2.1, 2.8])
    mean, var = nd.zeros(3), nd.zeros(3)
    r = nd.adam_update(w, g, mean, var, lr=0.01)
    np.testing.assert_allclose(
        r.asnumpy(), [0.91837704, 2.1316228, 2.768377], rtol=1e-6
    )
    np.testing.assert_allclose(mean.asnumpy(), [0.05, -0.1, 0.2], rtol=1e-6)
    # 1 - beta2 in float32, as MXNet's kernel computes it: 1 - 0.999f is
    # 0.00099998713, not 0.001
    np.testing.assert_allclose(
        var.asnumpy(), [0.00024999678, 0.00099998713, 0.0039999485], rtol=1e-7
    )


def test_lazy_update_touches_only_the_gradient_rows():
    """A row_sparse gradient with ``lazy_update`` (the default) changes
    only its rows, weight decay and momentum included; without it every
    row decays."""
    weight = nd.array(np.arange(8.0).reshape(4, 2))
    dense = np.zeros((4, 2))
    dense[1] = [1.0, -1.0]
    grad = nd.array(dense).tostype('row_sparse')
    settings = dict(lr=0.1, momentum=0.9, wd=0.1)
    mom = nd.ones((4, 2))
    lazy = nd.sgd_mom_update(weight, grad, mom, **settings)
    want, (want_mom,) = _sgd_mom(
        weight.asnumpy(), dense, np.ones((4, 2)), 0.1, 0.9, 0.1, 1.0, -1
    )
    rows = [1]
    others = [0, 2, 3]
    np.testing.assert_allclose(lazy.asnumpy()[rows], want[rows], rtol=1e-6)
    np.testing.assert_array_equal(
        lazy.asnumpy()[others], weight.asnumpy()[others]
    )
    np.testing.assert_array_equal(mom.asnumpy()[others], 1.0)
    mom = nd.ones((4, 2))
    eager = nd.sgd_mom_update(weight, grad, mom, lazy_update=False, **settings)
    np.testing.assert_allclose(eager.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(mom.asnumpy(), want_mom, rtol=1e-6)


@pytest.mark.parametrize('momentum', [None, 0.9])
def test_mixed_precision_updates_the_master_copy(ctx, momentum):
    start, grad = np.array([1.0, 2.0, -1.0]), np.array([0.5, -1.0, 2.0])
    w16 = nd.array(start, ctx=ctx, dtype='float16')
    g16 = nd.array(grad, ctx=ctx, dtype='float16')
    w32 = w16.astype('float32')
    if momentum is None:
        result = nd.mp_sgd_update(w16, g16, w32, lr=0.1, wd=0.01)
        want, _ = _sgd(start, grad, 0.1, 0.01, 1.0, -1)
    else:
        mom = nd.zeros(3, ctx=ctx)
        result = nd.mp_sgd_mom_update(
            w16, g16, mom, w32, lr=0.1, momentum=momentum, wd=0.01
        )
        want, _ = _sgd_mom(start, grad, 0, 0.1, momentum, 0.01, 1.0, -1)
    assert result.dtype == np.float16
    np.testing.assert_allclose(w32.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(result.asnumpy(), want.astype('f2'), rtol=1e-3)
    np.testing.assert_array_equal(w16.asnumpy(), start)


@pytest.mark.parametrize(
    'aliased, mom_after',
    [
        (True, [0.12893489003181458, 0.36757081747055054]),
        (False, [0.1289999932050705, 0.3680000305175781]),
    ],
)
def test_nag_momentum_reads_the_weight_as_mxnet(ctx, aliased, mom_after):
    """MXNet 1.9.1's kernel reads ``weight`` again for the momentum after
    writing ``out``: with ``out=weight`` (what its optimizer does) the
    momentum's weight decay uses the new weight.  Values printed by MXNet;
    the weight is [1.0651, 2.4292] either way."""
    w = nd.array([1.0, 2.0], ctx=ctx)
    g = nd.array([0.5, -1.0], ctx=ctx)
    mom = nd.array([0.2, 0.3], ctx=ctx)
    out = w if aliased else nd.zeros(2, ctx=ctx)
    nd.nag_mom_update(w, g, mom, out=out, lr=0.1, wd=0.01, momentum=0.9)
    np.testing.assert_allclose(out.asnumpy(), [1.0651, 2.4292], rtol=1e-6)
    np.testing.assert_array_equal(mom.asnumpy(), np.float32(mom_after))
    # the mixed-precision kernel always reads weight32 back
    w16, g16 = w.astype('float16'), g.astype('float16')
    w16[:] = [1.0, 2.0]
    w32, mom = w16.astype('float32'), nd.array([0.2, 0.3], ctx=ctx)
    nd.mp_nag_mom_update(w16, g16, mom, w32, lr=0.1, momentum=0.9, wd=0.01)
    np.testing.assert_array_equal(
        mom.asnumpy(), np.float32([0.12893489003181458, 0.36757081747055054])
    )


def test_mixed_precision_nag_writes_the_weight_when_asked(ctx):
    w16 = nd.array([1.0, 2.0], ctx=ctx, dtype='float16')
    g16 = nd.array([0.5, -1.0], ctx=ctx, dtype='float16')
    w32, mom = w16.astype('float32'), nd.zeros(2, ctx=ctx)
    out = nd.mp_nag_mom_update(
        w16, g16, mom, w32, lr=0.1, momentum=0.9, out=w16
    )
    want, _ = _nag(
        np.array([1.0, 2.0]), np.array([0.5, -1.0]), 0, 0.1, 0.9, 0, 1, -1
    )
    assert out is w16
    np.testing.assert_allclose(w16.asnumpy(), want, rtol=1e-3)


@pytest.mark.parametrize(
    'name, per_weight, single',
    [
        ('multi_sgd_update', 2, 'sgd_update'),
        ('multi_sgd_mom_update', 3, 'sgd_mom_update'),
        ('multi_mp_sgd_update', 3, 'mp_sgd_update'),
        ('multi_mp_sgd_mom_update', 4, 'mp_sgd_mom_update'),
    ],
)
def test_multi_forms_equal_one_weight_calls(ctx, name, per_weight, single):
    shapes = [(3, 2), (4,)]
    mp = 'mp' in name

    def arrays():
        out = []
        for i, shape in enumerate(shapes):
            rng = np.random.RandomState(i)
            dtype = 'float16' if mp else 'float32'
            w = nd.array(rng.uniform(-1, 1, shape), ctx=ctx, dtype=dtype)
            g = nd.array(rng.uniform(-1, 1, shape), ctx=ctx, dtype=dtype)
            out += [w, g]
            if per_weight - mp == 3:
                out.append(nd.array(rng.uniform(-1, 1, shape), ctx=ctx))
            if mp:
                out.append(w.astype('float32'))
        return out

    settings = dict(rescale_grad=2.0, clip_gradient=0.7)
    if 'mom' in name:
        settings['momentum'] = 0.9
    lrs, wds = (0.1, 0.2), (0.01, 0.0)
    data = arrays()
    results = getattr(nd, name)(
        *data,
        lrs=lrs,
        wds=wds,
        num_weights=2,
        out=data[::per_weight],
        **settings,
    )
    twin = arrays()
    for i in range(2):
        one = twin[i * per_weight : (i + 1) * per_weight]
        want = getattr(nd, single)(*one, lr=lrs[i], wd=wds[i], **settings)
        assert results[i] is data[i * per_weight]
        np.testing.assert_allclose(
            results[i].asnumpy(), want.asnumpy(), rtol=1e-6
        )
        # the states (momentum, master copy) moved alike
        for got, expected in zip(
            data[i * per_weight + 2 : (i + 1) * per_weight], one[2:]
        ):
            np.testing.assert_allclose(
                got.asnumpy(), expected.asnumpy(), rtol=1e-6
            )


def test_bad_input_is_named():
    w, g = nd.ones(3), nd.ones(3)
    with pytest.raises(DLBookError, match='lr is required'):
        nd.sgd_update(w, g)
    with pytest.raises(
        DLBookError, match=r'mom has shape \(2,\), the weight \(3,\)'
    ):
        nd.sgd_mom_update(w, g, nd.zeros(2), lr=0.1)
    with pytest.raises(DLBookError, match='grad is float64, expected float32'):
        nd.sgd_update(w, nd.ones(3, dtype='float64'), lr=0.1)
    with pytest.raises(DLBookError, match='t is required'):
        nd.ftml_update(w, g, nd.zeros(3), nd.zeros(3), nd.zeros(3), lr=0.1)
    with pytest.raises(DLBookError, match='2 arrays per weight'):
        nd.multi_sgd_update(w, g, w, lrs=(0.1,), wds=(0.0,), num_weights=2)
    with pytest.raises(DLBookError, match='one value per weight'):
        nd.multi_sgd_update(w, g, lrs=(0.1, 0.2), wds=(0.0,), num_weights=1)


def test_optimizers_and_operators_agree():
    """MXNet's Adam optimizer is this operator with a bias-corrected rate:
    a Trainer step equals the operator call."""
    param = mx.gluon.Parameter('w', shape=(4,))
    param.initialize(mx.init.Constant(0.5))
    trainer = mx.gluon.Trainer([param], 'adam', {'learning_rate': 0.01})
    with mx.autograd.record():
        loss = (param.data() * nd.array([0.1, -0.2, 0.3, -0.4])).sum()
    loss.backward()
    weight = param.data().copy()
    grad = param.grad().copy()
    trainer.step(1)
    lr = 0.01 * np.sqrt(1 - 0.999) / (1 - 0.9)
    want = nd.adam_update(weight, grad, nd.zeros(4), nd.zeros(4), lr=lr)
    np.testing.assert_allclose(
        param.data().asnumpy(), want.asnumpy(), rtol=1e-6
    )


#: 1 - beta1 and 1 - beta2 of AdamW's defaults as MXNet's kernels compute
#: them on float32 data, in float32 (1 - 0.999f is 0.00099998713)
ONE_MINUS_BETAS32 = [float(1 - np.float32(b)) for b in (0.9, 0.999)]


def _adamw(w, g, mean, var, rescale, lr, eta, wd, clip):
    """AdamW on float32 data, with MXNet's float32 ``1 - beta``."""
    one_minus_beta1, one_minus_beta2 = ONE_MINUS_BETAS32
    g = _clip(rescale * g, clip)
    mean = 0.9 * mean + one_minus_beta1 * g
    var = 0.999 * var + one_minus_beta2 * g * g
    step = lr * mean / (np.sqrt(var) + 1e-8) + wd * w
    return w - eta * step, (mean, var)


@pytest.mark.parametrize('rescale', [2.0, 'array'])
def test_contrib_adamw_update(ctx, rescale):
    """MXNet 1.9.1's positional order (rescale_grad, lr, eta); its value
    [0.9341885, 1.9158115, 2.8341885] for these arrays."""
    w, g = nd.array([1.0, 2.0, 3.0], ctx=ctx), nd.array([0.5, -1, 2], ctx=ctx)
    mean, var = nd.zeros(3, ctx=ctx), nd.zeros(3, ctx=ctx)
    factor = nd.array([2.0], ctx=ctx) if rescale == 'array' else rescale
    result = nd.contrib.adamw_update(
        w, g, mean, var, factor, 0.01, 0.5, wd=0.1, clip_gradient=1.5
    )
    want, (want_mean, want_var) = _adamw(
        np.array([1.0, 2, 3]),
        np.array([0.5, -1, 2]),
        0,
        0,
        2.0,
        0.01,
        0.5,
        0.1,
        1.5,
    )
    np.testing.assert_allclose(result.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(
        result.asnumpy(), [0.9341885, 1.9158115, 2.8341885], rtol=1e-6
    )
    np.testing.assert_allclose(mean.asnumpy(), want_mean, rtol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), want_var, rtol=1e-6)
    np.testing.assert_array_equal(g.asnumpy(), [0.5, -1, 2])  # left as it was


def test_contrib_adamw_update_skips_a_step_that_overflowed(ctx):
    w, g = nd.array([1.0, 2.0], ctx=ctx), nd.array([0.5, -1], ctx=ctx)
    mean, var = nd.ones(2, ctx=ctx), nd.ones(2, ctx=ctx)
    for bad in (float('nan'), float('inf')):
        out = nd.contrib.adamw_update(
            w, g, mean, var, nd.array([bad], ctx=ctx), lr=0.01, eta=1.0, out=w
        )
        assert out is w
        np.testing.assert_array_equal(w.asnumpy(), [1.0, 2.0])
        np.testing.assert_array_equal(mean.asnumpy(), [1.0, 1.0])
    with pytest.raises(DLBookError, match='eta is required'):
        nd.contrib.adamw_update(w, g, mean, var, 1.0, lr=0.01)


def test_contrib_mp_adamw_update(ctx):
    w16 = nd.array([1.0, 2.0], ctx=ctx, dtype='float16')
    g16 = nd.array([0.5, -1.0], ctx=ctx, dtype='float16')
    w32 = w16.astype('float32')
    mean, var = nd.zeros(2, ctx=ctx), nd.zeros(2, ctx=ctx)
    result = nd.contrib.mp_adamw_update(
        w16, g16, mean, var, w32, 1.0, 0.01, 0.5, wd=0.1
    )
    want, _ = _adamw(
        np.array([1.0, 2]), np.array([0.5, -1]), 0, 0, 1.0, 0.01, 0.5, 0.1, -1
    )
    assert result.dtype == np.float16
    np.testing.assert_allclose(w32.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(result.asnumpy(), want, rtol=1e-3)
