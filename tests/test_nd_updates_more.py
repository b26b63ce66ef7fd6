"""MXNet's LAMB operators in ``nd`` (``dlbook/ndarray/updates_lamb.py``)
and ``nd.contrib.group_adagrad_update``.

Each operator is checked against its rule written out in NumPy
(float64), for the returned arrays, the states updated in place and the
arrays left alone; results of MXNet 1.9.1 itself (float32) are recorded
as expected values.
"""

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd
from dlbook.base import DLBookError

W, G = [1.0, -2.0, 3.0], [0.5, -1.0, 2.0]
M, V = [0.1, 0.2, -0.1], [0.01, 0.02, 0.03]
# a second weight, for the several-weight forms
W2, G2 = [[0.5, 0.25], [-1.0, 2.0]], [[0.1, -0.2], [0.3, 4.0]]
M2, V2 = [[0.1, 0.0], [-0.2, 0.3]], [[0.02, 0.01], [0.05, 0.5]]


def _clip(x, bound):
    return x if bound < 0 else np.clip(x, -bound, bound)


def _arrays(ctx, *values, dtype='float64'):
    return [nd.array(v, ctx=ctx, dtype=dtype) for v in values]


# -- nd.contrib's one-weight operators: Group AdaGrad, AdamW ------------------


def _group_adagrad(w, g, history, lr, scale, clip, eps):
    g = _clip(scale * g, clip)
    history = history + (g * g).mean(axis=1, keepdims=True)
    return w - lr * g / np.sqrt(history + eps), history


ROWS = [[1.0, -2.0], [3.0, 4.0], [5.0, 6.0]]
ROW_GRADS = [[0.0, 0.0], [1.0, 2.0], [0.5, -3.0]]
HISTORY = [[0.5], [0.25], [0.1]]


def test_group_adagrad_follows_its_rule(ctx):
    w, g, h = _arrays(ctx, ROWS, ROW_GRADS, HISTORY)
    result = nd.contrib.group_adagrad_update(w, g, h, 0.1, 2.0, 1.5, 1e-3)
    want, history = _group_adagrad(
        *map(np.array, (ROWS, ROW_GRADS, HISTORY)), 0.1, 2.0, 1.5, 1e-3
    )
    np.testing.assert_allclose(result.asnumpy(), want, rtol=1e-12)
    np.testing.assert_allclose(h.asnumpy(), history, rtol=1e-12)
    np.testing.assert_array_equal(w.asnumpy(), ROWS)
    # a history of shape (rows,) and a weight of three axes
    w3 = nd.array(np.arange(12.0).reshape(3, 2, 2), ctx=ctx)
    g3 = nd.array(np.linspace(-1, 1, 12).reshape(3, 2, 2), ctx=ctx)
    h1 = nd.array([0.1, 0.2, 0.3], ctx=ctx)
    result = nd.contrib.group_adagrad_update(w3, g3, h1, lr=0.1)
    rows = g3.asnumpy().reshape(3, 4)
    history = np.array([0.1, 0.2, 0.3]) + (rows * rows).mean(axis=1)
    want = w3.asnumpy() - 0.1 * g3.asnumpy() / np.sqrt(
        history.reshape(3, 1, 1) + 1e-5
    )
    np.testing.assert_allclose(result.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(h1.asnumpy(), history, rtol=1e-6)


def test_group_adagrad_mxnet_values():
    """MXNet 1.9.1 takes row_sparse gradients only: the rows it holds
    change, the others (and their history) do not."""
    w, h = nd.array(ROWS), nd.array(HISTORY)
    g = nd.array(ROW_GRADS).tostype('row_sparse')
    out = nd.contrib.group_adagrad_update(w, g, h, 0.1, 2.0, 1.5, 1e-3, out=w)
    assert out is w
    np.testing.assert_allclose(
        w.asnumpy(), [[1, -2], [2.9051507, 3.9051507], [4.9238834, 6.1141748]]
    )
    np.testing.assert_allclose(h.asnumpy(), [[0.5], [2.5], [1.725]])
    w, h = nd.array(ROWS), nd.array(HISTORY)
    dense = np.zeros((3, 2))
    dense[1] = [1.0, 2.0]
    g = nd.array(dense).tostype('row_sparse')
    nd.contrib.group_adagrad_update(w, g, h, lr=0.1, out=w)
    np.testing.assert_allclose(
        w.asnumpy(), [[1, -2], [2.9396977, 3.8793957], [5, 6]]
    )
    np.testing.assert_allclose(h.asnumpy(), [[0.5], [2.75], [0.1]])


def test_adamw_update_skips_a_step_scaled_by_zero(ctx):
    """MXNet skips AdamW's step when ``rescale_grad`` is NaN, infinite or
    0 (its loss scaling marks an overflowed step so)."""
    w, g, m, v = _arrays(ctx, W, G, M, V)
    out = nd.contrib.adamw_update(w, g, m, v, 0.0, 0.1, 1.0, out=w)
    assert out is w
    np.testing.assert_array_equal(w.asnumpy(), W)
    np.testing.assert_array_equal(m.asnumpy(), M)
    np.testing.assert_array_equal(v.asnumpy(), V)


def test_group_adagrad_bad_input_is_named():
    w = nd.array(ROWS)
    with pytest.raises(DLBookError, match='lr is required'):
        nd.contrib.group_adagrad_update(w, w, nd.zeros((3, 1)))
    with pytest.raises(DLBookError, match=r'history has shape \(2, 1\)'):
        nd.contrib.group_adagrad_update(w, w, nd.zeros((2, 1)), lr=0.1)
    with pytest.raises(DLBookError, match='history is float64'):
        nd.contrib.group_adagrad_update(
            w, w, nd.zeros((3, 1), dtype='float64'), lr=0.1
        )
    with pytest.raises(DLBookError, match=r'grad has shape \(3,\)'):
        nd.contrib.group_adagrad_update(w, nd.ones(3), nd.zeros(3), lr=0.1)


# -- LAMB's phases ------------------------------------------------------------


def _lamb_phase1(w, g, mean, var, beta1, beta2, eps, t, bias, wd, scale, clip):
    g = _clip(scale * g, clip)
    mean = beta1 * mean + (1 - beta1) * g
    var = beta2 * var + (1 - beta2) * g * g
    if bias:
        return (
            mean / (1 - beta1**t) / (np.sqrt(var / (1 - beta2**t)) + eps)
            + wd * w,
            mean,
            var,
        )
    return mean / (np.sqrt(var) + eps) + wd * w, mean, var


def _lamb_phase2(w, d, r1, r2, lr, lower_bound, upper_bound):
    if lower_bound >= 0:
        r1 = max(r1, lower_bound)
    if upper_bound >= 0:
        r1 = min(r1, upper_bound)
    rate = lr if r1 == 0 or r2 == 0 else lr * r1 / r2
    return w - rate * d


@pytest.mark.parametrize(
    'settings',
    [
        dict(t=2, wd=0.1),
        dict(
            beta1=0.8,
            beta2=0.9,
            epsilon=1e-5,
            t=3,
            bias_correction=False,
            wd=0.05,
            rescale_grad=2.0,
            clip_gradient=0.7,
        ),
    ],
)
def test_lamb_phase1_follows_its_rule(ctx, settings):
    w, g, mean, var = _arrays(ctx, W, G, M, V)
    d = nd.lamb_update_phase1(w, g, mean, var, **settings)
    full = dict(
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-6,
        bias_correction=True,
        rescale_grad=1.0,
        clip_gradient=-1.0,
    )
    full.update(settings)
    want, want_mean, want_var = _lamb_phase1(
        *map(np.array, (W, G, M, V)),
        *(full[k] for k in ('beta1', 'beta2', 'epsilon', 't')),
        *(full[k] for k in ('bias_correction', 'wd', 'rescale_grad')),
        full['clip_gradient'],
    )
    np.testing.assert_allclose(d.asnumpy(), want, rtol=1e-12)
    # the moments in place, the weight and gradient left alone
    np.testing.assert_allclose(mean.asnumpy(), want_mean, rtol=1e-12)
    np.testing.assert_allclose(var.asnumpy(), want_var, rtol=1e-12)
    np.testing.assert_array_equal(w.asnumpy(), W)
    np.testing.assert_array_equal(g.asnumpy(), G)


@pytest.mark.parametrize(
    'r1, r2, bounds',
    [
        (3.0, 0.5, (-1.0, -1.0)),
        (3.0, 0.5, (4.0, 5.0)),  # r1 raised to 4
        (3.0, 0.5, (0.0, 2.0)),  # r1 lowered to 2
        (0.0, 0.5, (-1.0, -1.0)),  # r1 = 0: the plain step
        (3.0, 0.0, (-1.0, -1.0)),  # r2 = 0: the plain step
        (0.0, 0.5, (1.0, -1.0)),  # r1 = 0 raised to 1
    ],
)
def test_lamb_phase2_follows_its_rule(ctx, r1, r2, bounds):
    w, d = _arrays(ctx, W, G)
    n1, n2 = _arrays(ctx, [r1], [r2])
    result = nd.lamb_update_phase2(w, d, n1, n2, 0.01, *bounds)
    want = _lamb_phase2(np.array(W), np.array(G), r1, r2, 0.01, *bounds)
    np.testing.assert_allclose(result.asnumpy(), want, rtol=1e-12)
    np.testing.assert_array_equal(w.asnumpy(), W)
    out = nd.lamb_update_phase2(w, d, n1, n2, 0.01, *bounds, out=w)
    assert out is w
    np.testing.assert_allclose(w.asnumpy(), want, rtol=1e-12)


def test_lamb_phases_mxnet_values():
    """MXNet 1.9.1 (float32): phase 1 at step 2, the norms, phase 2 with
    and without bounds; phase 1 with every setting given by position.

    MXNet takes ``1 - beta2**t`` from float32 parameters (0.999 rounded,
    then its power rounded), which at small ``t`` moves ``g`` by up to
    about 2e-5 relative (1e-6 absolute where ``wd * weight`` cancels
    most of it); dlbook computes it in float64."""
    w, g, mean, var = (nd.array(v) for v in (W, G, M, V))
    d = nd.lamb_update_phase1(w, g, mean, var, t=2, wd=0.1)
    np.testing.assert_allclose(
        d.asnumpy(), [0.42555654, -0.07003228, 0.44044095], rtol=3e-5
    )
    np.testing.assert_allclose(
        mean.asnumpy(), [0.14000002, 0.07999997, 0.11000005], rtol=1e-6
    )
    np.testing.assert_allclose(
        var.asnumpy(), [0.01024, 0.02097999, 0.03396995], rtol=1e-5
    )
    d = nd.array([0.42555654, -0.07003228, 0.44044095])  # MXNet's g
    r1, r2 = w.norm(), d.norm()
    np.testing.assert_allclose(
        nd.lamb_update_phase2(w, d, r1, r2, lr=0.01).asnumpy(),
        [0.97416937, -1.9957491, 2.9732659],
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        nd.lamb_update_phase2(w, d, r1, r2, 0.01, 4.0, 5.0).asnumpy(),
        [0.97238594, -1.9954556, 2.97142],
        rtol=1e-6,
    )
    w, g, mean, var = (nd.array(v) for v in (W, G, M, V))
    d = nd.lamb_update_phase1(
        w, g, mean, var, 0.8, 0.9, 1e-5, 3, False, 0.05, 2.0, 0.7
    )
    np.testing.assert_allclose(
        d.asnumpy(), [0.9634623, -0.02273615, 0.3676349], atol=1e-7
    )
    np.testing.assert_allclose(mean.asnumpy(), [0.22, 0.02, 0.06], rtol=2e-6)
    np.testing.assert_allclose(var.asnumpy(), [0.058, 0.067, 0.076], rtol=1e-6)


def test_mixed_precision_lamb_phases(ctx):
    """The float32 master copy: phase 1 reads it (``wd * weight32``) and
    returns float32; phase 2 returns ``weight32 - lr * r1/r2 * g`` as
    float16 and leaves ``weight32`` as it is, as MXNet 1.9.1 does (values
    recorded from it)."""
    w16 = nd.array(W, ctx=ctx, dtype='float16')
    g16 = nd.array(G, ctx=ctx, dtype='float16')
    w32 = w16.astype('float32') + 0.001  # a master copy ahead of w16
    mean, var = nd.array(M, ctx=ctx), nd.array(V, ctx=ctx)
    d = nd.mp_lamb_update_phase1(w16, g16, mean, var, w32, t=1, wd=0.1)
    assert d.dtype == np.float32
    want, want_mean, want_var = _lamb_phase1(
        np.array(W) + 0.001,
        np.array(G),
        np.array(M),
        np.array(V),
        0.9,
        0.999,
        1e-6,
        1,
        True,
        0.1,
        1.0,
        -1,
    )
    np.testing.assert_allclose(d.asnumpy(), want, rtol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), want_mean, rtol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), want_var, rtol=1e-6)
    master = w32.asnumpy()
    r1, r2 = w32.norm(), d.norm()
    result = nd.mp_lamb_update_phase2(w16, d, r1, r2, w32, lr=0.01)
    assert result.dtype == np.float16
    want = _lamb_phase2(
        master,
        d.asnumpy(),
        np.linalg.norm(master),
        np.linalg.norm(d.asnumpy()),
        0.01,
        -1,
        -1,
    )
    np.testing.assert_allclose(result.asnumpy(), want, rtol=1e-3)
    np.testing.assert_array_equal(w32.asnumpy(), master)
    np.testing.assert_array_equal(w16.asnumpy(), W)


def test_mixed_precision_lamb_mxnet_values():
    w16, g16 = nd.array(W, dtype='float16'), nd.array(G, dtype='float16')
    w32, mean, var = w16.astype('float32'), nd.array(M), nd.array(V)
    d = nd.mp_lamb_update_phase1(w16, g16, mean, var, w32, t=1, wd=0.1)
    np.testing.assert_allclose(
        d.asnumpy(), [0.5374971, -0.02534372, 0.4887307], 3e-5, 2e-6
    )
    d = nd.array([0.5374971, -0.02534372, 0.4887307])  # MXNet's g
    out = nd.mp_lamb_update_phase2(w16, d, w32.norm(), d.norm(), w32, 0.01)
    np.testing.assert_array_equal(
        out.asnumpy(), np.array([0.97216797, -1.9990234, 2.9746094], 'f2')
    )
    np.testing.assert_array_equal(w32.asnumpy(), W)


def test_lamb_optimizer_is_the_two_phases():
    """MXNet's LAMB optimizer is phase 1, the norms, phase 2: a Trainer
    step equals the operators."""
    param = mx.gluon.Parameter('w', shape=(4,))
    param.initialize(mx.init.Constant(0.5))
    trainer = mx.gluon.Trainer(
        [param], 'lamb', {'learning_rate': 0.01, 'wd': 0.1}
    )
    with mx.autograd.record():
        loss = (param.data() * nd.array([0.1, -0.2, 0.3, -0.4])).sum()
    loss.backward()
    weight, grad = param.data().copy(), param.grad().copy()
    trainer.step(1)
    mean, var = nd.zeros(4), nd.zeros(4)
    d = nd.lamb_update_phase1(weight, grad, mean, var, t=1, wd=0.1)
    want = nd.lamb_update_phase2(weight, d, weight.norm(), d.norm(), lr=0.01)
    np.testing.assert_allclose(
        param.data().asnumpy(), want.asnumpy(), rtol=1e-6
    )


def test_lamb_bad_input_is_named():
    w, g, m, v = (nd.array(x) for x in (W, G, M, V))
    with pytest.raises(DLBookError, match='t is required'):
        nd.lamb_update_phase1(w, g, m, v, wd=0.0)
    with pytest.raises(DLBookError, match='wd is required'):
        nd.lamb_update_phase1(w, g, m, v, t=1)
    with pytest.raises(
        DLBookError, match=r'var has shape \(2,\), the weight \(3,\)'
    ):
        nd.lamb_update_phase1(w, g, m, nd.zeros(2), t=1, wd=0.0)
    with pytest.raises(DLBookError, match='lr is required'):
        nd.lamb_update_phase2(w, g, nd.ones(1), nd.ones(1))
    with pytest.raises(DLBookError, match=r'r1 must hold one value'):
        nd.lamb_update_phase2(w, g, nd.ones(2), nd.ones(1), lr=0.1)
    with pytest.raises(DLBookError, match=r'g has shape \(2,\)'):
        nd.lamb_update_phase2(w, nd.ones(2), nd.ones(1), nd.ones(1), lr=0.1)
    with pytest.raises(
        DLBookError, match='r2 is float64 on cpu.0., expected float32'
    ):
        nd.lamb_update_phase2(
            w, g, nd.ones(1), nd.ones(1, dtype='float64'), lr=0.1
        )
    w16, g16 = w.astype('float16'), g.astype('float16')
    with pytest.raises(DLBookError, match='weight32 is float16'):
        nd.mp_lamb_update_phase1(w16, g16, m, v, w16, t=1, wd=0.0)
    with pytest.raises(DLBookError, match='mean is float16, expected float32'):
        nd.mp_lamb_update_phase1(
            w16, g16, m.astype('float16'), v, w, t=1, wd=0
        )


# -- several weights per call -------------------------------------------------


def _lists(ctx, dtype='float32'):
    """Two weights' (weights, grads, mean, var) lists."""
    return [
        _arrays(ctx, a, b, dtype=dtype)
        for a, b in ((W, W2), (G, G2), (M, M2), (V, V2))
    ]


LAMB_SETTINGS = dict(
    clip_gradient=1.5, rescale_grad=0.5, lower_bound=0.1, upper_bound=2.0
)


def test_multi_lamb_is_the_phases_weight_by_weight(ctx):
    ws, gs, ms, vs = _lists(ctx)
    twin = _lists(ctx)
    results = nd.contrib.multi_lamb_update(
        ws, gs, ms, vs, [2, 1], [0.01, 0.1], [0.1, 0.0], **LAMB_SETTINGS
    )
    bounds = dict(lower_bound=0.1, upper_bound=2.0)
    phase1 = dict(clip_gradient=1.5, rescale_grad=0.5)
    for i, (t, lr, wd) in enumerate(zip([2, 1], [0.01, 0.1], [0.1, 0.0])):
        w, g, m, v = (x[i] for x in twin)
        d = nd.lamb_update_phase1(w, g, m, v, t=t, wd=wd, **phase1)
        want = nd.lamb_update_phase2(w, d, w.norm(), d.norm(), lr, **bounds)
        np.testing.assert_allclose(
            results[i].asnumpy(), want.asnumpy(), rtol=1e-6
        )
        np.testing.assert_allclose(ms[i].asnumpy(), m.asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(vs[i].asnumpy(), v.asnumpy(), rtol=1e-6)
        np.testing.assert_array_equal(ws[i].asnumpy(), twin[0][i].asnumpy())


def test_multi_lamb_mxnet_values(ctx):
    ws, gs, ms, vs = _lists(ctx)
    results = nd.contrib.multi_lamb_update(
        ws,
        gs,
        ms,
        vs,
        [2, 1],
        [0.01, 0.1],
        [0.1, 0.0],
        out=ws,
        **LAMB_SETTINGS,
    )
    assert results[0] is ws[0] and results[1] is ws[1]
    np.testing.assert_allclose(
        ws[0].asnumpy(), [0.9847473, -2.0006218, 2.9870784], rtol=1e-6
    )
    np.testing.assert_allclose(
        ws[1].asnumpy(),
        [[0.38466093, 0.26716238], [-0.87332344, 1.8982385]],
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        ms[1].asnumpy(), [[0.095, -0.01], [-0.165, 0.42]], rtol=1e-6
    )
    np.testing.assert_allclose(
        vs[0].asnumpy(), [0.0100525, 0.02023, 0.03097], rtol=1e-5
    )


def test_multi_mp_lamb_updates_the_master_copies(ctx):
    """MXNet 1.9.1's values; ``weights32`` updated in place, the float16
    results written into ``out``."""
    ws, gs, ms, vs = _lists(ctx)
    w16 = [w.astype('float16') for w in ws]
    g16 = [g.astype('float16') for g in gs]
    w32 = [w.astype('float32') for w in w16]
    results = nd.contrib.multi_mp_lamb_update(
        w16, g16, ms, vs, w32, [2, 1], [0.01, 0.1], [0.1, 0.0], out=w16
    )
    assert results[1] is w16[1] and w16[1].dtype == np.float16
    np.testing.assert_allclose(
        w32[0].asnumpy(), [0.97416937, -1.9957491, 2.9732659], rtol=3e-5
    )
    np.testing.assert_allclose(
        w32[1].asnumpy(),
        [[0.3804864, 0.28373715], [-0.88669407, 1.8423133]],
        rtol=3e-5,
    )
    np.testing.assert_allclose(
        w16[1].asnumpy(), w32[1].asnumpy().astype('f2'), rtol=1e-3
    )


def test_multi_lamb_bad_input_is_named():
    ws, gs, ms, vs = _lists(mx.cpu())
    with pytest.raises(DLBookError, match='mean holds 1 arrays, expected 2'):
        nd.contrib.multi_lamb_update(
            ws, gs, ms[:1], vs, [1, 1], [0.1, 0.1], [0.0, 0.0]
        )
    with pytest.raises(
        DLBookError, match='weights holds 2 arrays, expected 3'
    ):
        nd.contrib.multi_lamb_update(
            ws, gs, ms, vs, [1] * 3, [0.1] * 3, [0.0] * 3, num_tensors=3
        )
    with pytest.raises(DLBookError, match='step_count needs one value'):
        nd.contrib.multi_lamb_update(
            ws, gs, ms, vs, [1], [0.1, 0.1], [0.0, 0.0]
        )
    with pytest.raises(
        DLBookError,
        match=r'multi_lamb_update \(weight 1\): .*var has shape \(3,\)',
    ):
        nd.contrib.multi_lamb_update(
            ws, gs, ms, [vs[0], vs[0]], [1, 1], [0.1, 0.1], [0.0, 0.0]
        )
    with pytest.raises(DLBookError, match='out needs one array per weight'):
        nd.contrib.multi_lamb_update(
            ws, gs, ms, vs, [1, 1], [0.1] * 2, [0.0] * 2, out=ws[:1]
        )
