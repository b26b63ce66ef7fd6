"""MXNet's LAMB, several-weight, LARS and finiteness operators in ``nd``
(``dlbook/ndarray/updates_lamb.py``, ``updates_multi.py``,
``updates_norms.py``) and ``nd.contrib.group_adagrad_update``.

Each operator is checked against its rule written out in NumPy
(float64), for the returned arrays, the states updated in place and the
arrays left alone; results of MXNet 1.9.1 itself (float32) are recorded
as expected values.
"""

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd
from dlbook.backend import fake_cupy
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


def _lamb_phase1(
    w, g, mean, var, beta1, beta2, eps, t, bias, wd, scale, clip, dtype='f8'
):
    """Phase 1 in float64, with the settings rounded as MXNet's kernel
    rounds them for ``dtype``: float32 betas, ``1 - beta`` in float32 and
    ``beta**t`` computed in double, then rounded to float32."""
    real = np.dtype(dtype).type
    beta1, beta2 = real(beta1), real(beta2)
    bias1, bias2 = (1 - real(float(b) ** t) for b in (beta1, beta2))
    g = _clip(scale * g, clip)
    mean = float(beta1) * mean + float(1 - beta1) * g
    var = float(beta2) * var + float(1 - beta2) * g * g
    if bias:
        return (
            mean / float(bias1) / (np.sqrt(var / float(bias2)) + eps) + wd * w,
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
    about 2e-5 relative from the exact value; dlbook computes it the
    same way."""
    w, g, mean, var = (nd.array(v) for v in (W, G, M, V))
    d = nd.lamb_update_phase1(w, g, mean, var, t=2, wd=0.1)
    np.testing.assert_allclose(
        d.asnumpy(), [0.42555654, -0.07003228, 0.44044095], rtol=1e-6
    )
    np.testing.assert_allclose(
        mean.asnumpy(), [0.14000002, 0.07999997, 0.11000005], rtol=1e-6
    )
    np.testing.assert_allclose(
        var.asnumpy(), [0.01024, 0.02097999, 0.03396995], rtol=1e-6
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
        dtype='f4',
    )
    np.testing.assert_allclose(d.asnumpy(), want, rtol=1e-6)
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
        d.asnumpy(), [0.5374971, -0.02534372, 0.4887307], rtol=1e-6
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
        vs[0].asnumpy(), [0.0100525, 0.02023, 0.03097], rtol=1e-6
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
        w32[0].asnumpy(), [0.97416937, -1.9957491, 2.9732659], rtol=1e-6
    )
    np.testing.assert_allclose(
        w32[1].asnumpy(),
        [[0.3804864, 0.28373715], [-0.88669407, 1.8423133]],
        rtol=1e-6,
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


def _adamw(w, g, mean, var, scale, lr, eta, wd, clip):
    g = _clip(scale * g, clip)
    mean = 0.9 * mean + 0.1 * g
    var = 0.999 * var + 0.001 * g * g
    return w - eta * (lr * mean / (np.sqrt(var) + 1e-8) + wd * w), mean, var


def test_multi_adamw_follows_the_rule(ctx):
    ws, gs, ms, vs = _lists(ctx, 'float64')
    rescale = nd.array([2.0], ctx=ctx)
    results = nd.contrib.multi_adamw_update(
        ws,
        gs,
        ms,
        vs,
        rescale,
        [0.01, 0.1],
        [0.1, 0.0],
        [0.5, 1.0],
        clip_gradient=1.5,
    )
    values = [(W, G, M, V), (W2, G2, M2, V2)]
    settings = [(0.01, 0.5, 0.1), (0.1, 1.0, 0.0)]
    for i, (arrays, (lr, eta, wd)) in enumerate(zip(values, settings)):
        want, mean, var = _adamw(*map(np.array, arrays), 2, lr, eta, wd, 1.5)
        np.testing.assert_allclose(results[i].asnumpy(), want, rtol=1e-12)
        np.testing.assert_allclose(ms[i].asnumpy(), mean, rtol=1e-12)
        np.testing.assert_allclose(vs[i].asnumpy(), var, rtol=1e-12)
        np.testing.assert_array_equal(ws[i].asnumpy(), arrays[0])


def test_multi_adamw_mxnet_values(ctx):
    """MXNet's several-weight kernel writes the moments as ``beta1 * (mean
    - g) + g``, which rounds differently in float32 (up to about 1e-5
    relative here)."""
    ws, gs, ms, vs = _lists(ctx)
    nd.contrib.multi_adamw_update(
        ws,
        gs,
        ms,
        vs,
        2.0,
        [0.01, 0.1],
        [0.1, 0.0],
        [0.5, 1.0],
        out=ws,
        clip_gradient=1.5,
    )
    np.testing.assert_allclose(
        ws[0].asnumpy(), [0.940938, -1.9010061, 2.8483286], rtol=1e-5
    )
    np.testing.assert_allclose(
        ws[1].asnumpy(),
        [[0.42225713, 0.28970334], [-0.9465, 1.9407067]],
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        vs[1].asnumpy(), [[0.02002, 0.01015], [0.05031, 0.50175]], rtol=1e-5
    )


def test_multi_mp_adamw_updates_the_master_copies(ctx):
    ws, gs, ms, vs = _lists(ctx)
    twin = _lists(ctx)
    w16 = [w.astype('float16') for w in ws]
    g16 = [g.astype('float16') for g in gs]
    w32 = [w.astype('float32') for w in w16]
    results = nd.contrib.multi_mp_adamw_update(
        w16, g16, ms, vs, w32, 2.0, [0.01, 0.1], [0.1, 0.0], [0.5, 1.0]
    )
    for i in range(2):
        want = nd.contrib.adamw_update(
            *(x[i] for x in twin),
            2.0,
            [0.01, 0.1][i],
            [0.5, 1.0][i],
            wd=[0.1, 0.0][i],
        )
        assert results[i].dtype == np.float16
        np.testing.assert_allclose(w32[i].asnumpy(), want.asnumpy(), 1e-3)
        np.testing.assert_allclose(
            results[i].asnumpy(), w32[i].asnumpy().astype('f2')
        )


@pytest.mark.parametrize('bad', [float('nan'), float('inf'), 0.0])
def test_multi_adamw_skips_a_step_that_overflowed(ctx, bad):
    """MXNet skips the step when ``rescale_grad`` is NaN, infinite or 0:
    weights and moments are left as they are."""
    ws, gs, ms, vs = _lists(ctx)
    rescale = nd.array([bad], ctx=ctx)
    out = nd.contrib.multi_adamw_update(
        ws, gs, ms, vs, rescale, [0.1, 0.1], [0.0, 0.0], [1.0, 1.0], out=ws
    )
    assert out[0] is ws[0]
    np.testing.assert_array_equal(ws[1].asnumpy(), W2)
    np.testing.assert_array_equal(ms[0].asnumpy(), np.float32(M))


# -- preloaded rates ----------------------------------------------------------


@pytest.mark.parametrize(
    'name, per_weight',
    [
        ('multi_sgd_update', 2),
        ('multi_sgd_mom_update', 3),
        ('multi_mp_sgd_update', 3),
        ('multi_mp_sgd_mom_update', 4),
    ],
)
def test_preloaded_forms_equal_the_multi_forms(ctx, name, per_weight):
    """The rates as device arrays at the end of the data, or as tuples:
    the same updates, states included."""
    mp = 'mp' in name

    def arrays():
        out = []
        for w, g, m in ((W, G, M), (W2, G2, M2)):
            weight, grad = _arrays(ctx, w, g, dtype='float16' if mp else None)
            out += [weight, grad]
            if 'mom' in name:
                out.append(nd.array(m, ctx=ctx))
            if mp:
                out.append(weight.astype('float32'))
        return out

    settings = dict(rescale_grad=2.0, clip_gradient=1.0, num_weights=2)
    if 'mom' in name:
        settings['momentum'] = 0.9
    lrs, wds = (0.1, 0.2), (0.01, 0.0)
    data = arrays()
    preloaded = getattr(nd, 'preloaded_' + name)(
        *data, nd.array(lrs, ctx=ctx), nd.array(wds, ctx=ctx), **settings
    )
    twin = arrays()
    want = getattr(nd, name)(*twin, lrs=lrs, wds=wds, **settings)
    for got, expected in zip(preloaded, want):
        np.testing.assert_allclose(got.asnumpy(), expected.asnumpy(), 1e-6)
    for got, expected in zip(data, twin):  # states; weights left alone
        np.testing.assert_allclose(got.asnumpy(), expected.asnumpy(), 1e-6)


def test_preloaded_mxnet_values(ctx):
    ws, gs, ms, _ = _lists(ctx)
    lrs, wds = nd.array([0.1, 0.2], ctx=ctx), nd.array([0.01, 0.0], ctx=ctx)
    out = nd.preloaded_multi_sgd_mom_update(
        ws[0],
        gs[0],
        ms[0],
        ws[1],
        gs[1],
        ms[1],
        lrs,
        wds,
        momentum=0.9,
        rescale_grad=2.0,
        clip_gradient=1.0,
        num_weights=2,
        out=ws,
    )
    assert out is ws  # as given, as MXNet returns it
    np.testing.assert_allclose(
        ws[0].asnumpy(), [0.98899996, -1.718, 2.807], rtol=1e-6
    )
    np.testing.assert_allclose(
        ws[1].asnumpy(), [[0.55, 0.33], [-1.3, 2.07]], rtol=1e-6
    )
    np.testing.assert_allclose(
        ms[1].asnumpy(), [[0.05, 0.08], [-0.3, 0.07]], rtol=1e-6
    )
    w, g = _arrays(ctx, W, G, dtype='float32')
    (new,) = nd.preloaded_multi_sgd_update(w, g, lrs[:1], wds[:1])
    np.testing.assert_allclose(new.asnumpy(), [0.949, -1.898, 2.797], 1e-6)


def test_several_weights_bad_input_is_named():
    ws, gs, ms, vs = _lists(mx.cpu())
    with pytest.raises(
        DLBookError,
        match=r'multi_adamw_update \(weight 1\): .*var has shape \(3,\)',
    ):
        nd.contrib.multi_adamw_update(
            ws, gs, ms, [vs[0], vs[0]], 1.0, [0.1] * 2, [0.0] * 2, [1.0] * 2
        )
    with pytest.raises(DLBookError, match='etas needs one value'):
        nd.contrib.multi_adamw_update(
            ws, gs, ms, vs, 1.0, [0.1] * 2, [0.0] * 2, [1.0]
        )
    with pytest.raises(DLBookError, match='then lrs and wds .6 in all'):
        nd.preloaded_multi_sgd_update(
            ws[0], gs[0], ws[1], gs[1], nd.ones(2), num_weights=2
        )
    with pytest.raises(
        DLBookError, match='lrs is float64 on cpu.0.; expected float32'
    ):
        nd.preloaded_multi_sgd_update(
            ws[0], gs[0], nd.ones(1, dtype='float64'), nd.ones(1)
        )
    with pytest.raises(DLBookError, match=r'wds needs one value per weight'):
        nd.preloaded_multi_sgd_update(ws[0], gs[0], nd.ones(1), nd.ones(2))
    with pytest.raises(DLBookError, match=r'\(weight 0\): .*mom has shape'):
        nd.preloaded_multi_sgd_mom_update(
            ws[0], gs[0], ms[1], nd.ones(1), nd.ones(1)
        )


# -- sums of squares, LARS, finiteness ----------------------------------------


def test_multi_sum_sq(ctx):
    a, b = _arrays(ctx, W, W2, dtype='float32')
    result = nd.multi_sum_sq(a, b, num_arrays=2)
    assert result.dtype == np.float32 and result.shape == (2,)
    np.testing.assert_allclose(result.asnumpy(), [14.0, 5.3125])  # MXNet
    c = nd.array(np.linspace(-1, 1, 24).reshape(2, 3, 4), ctx=ctx)
    np.testing.assert_allclose(
        nd.multi_sum_sq(c, num_arrays=1).asnumpy(),
        [np.sum(np.linspace(-1, 1, 24) ** 2)],
        rtol=1e-6,
    )
    # float16 squares summed in float32 (MXNet's GPU kernel does too; its
    # CPU kernel overflows to inf past 65504 here)
    h = nd.array([300.0, -400.0], ctx=ctx, dtype='float16')
    np.testing.assert_array_equal(
        nd.multi_sum_sq(h, num_arrays=1).asnumpy(), [250000.0]
    )
    out = nd.zeros(2, ctx=ctx)
    assert nd.multi_sum_sq(a, b, num_arrays=2, out=out) is out


LARS = dict(
    lrs=[0.1, 0.2, 0.3, 0.4],
    weights_sum_sq=[4.0, 0.0, 9.0, 1.0],
    grads_sum_sq=[1.0, 1.0, 0.25, 0.0],
    wds=[0.01, 0.0, 0.1, 0.1],
)


def test_multi_lars(ctx):
    """MXNet 1.9.1's values; a layer without weight norm or gradient
    keeps its rate."""
    arrays = [nd.array(v, ctx=ctx) for v in LARS.values()]
    rates = nd.multi_lars(*arrays, eta=0.5, eps=1e-3)
    assert rates.dtype == np.float32
    np.testing.assert_allclose(
        rates.asnumpy(), [0.09794319, 0.2, 0.5617978, 0.4], rtol=1e-6
    )
    np.testing.assert_allclose(
        nd.multi_lars(*arrays, 0.5, 1e-3, 2.0).asnumpy(),
        [0.04948046, 0.2, 0.3458878, 0.4],
        rtol=1e-6,
    )
    lr, wss, gss, wd = map(np.array, LARS.values())
    rate = lr * 0.5 * np.sqrt(wss) / (np.sqrt(gss) + wd * np.sqrt(wss) + 1e-3)
    want = np.where((wss > 0) & (gss > 0), rate, lr)
    np.testing.assert_allclose(rates.asnumpy(), want, rtol=1e-6)


def test_lars_operators_give_the_optimizer_rates(ctx):
    """``multi_sum_sq`` and ``multi_lars`` give each layer the rate of
    dlbook's LARS optimizer."""
    from dlbook.optimizer.large_batch import lars_rate

    rng = np.random.RandomState(0)
    ws = [nd.array(rng.uniform(-1, 1, s), ctx=ctx) for s in ((3, 4), (5,))]
    gs = [nd.array(rng.uniform(-1, 1, s), ctx=ctx) for s in ((3, 4), (5,))]
    lrs, wds = nd.array([0.1, 0.2], ctx=ctx), nd.array([0.01, 0.0], ctx=ctx)
    rates = nd.multi_lars(
        lrs,
        nd.multi_sum_sq(*ws, num_arrays=2),
        nd.multi_sum_sq(*gs, num_arrays=2),
        wds,
        eta=0.001,
        eps=1e-8,
        rescale_grad=0.5,
    )
    xp = ctx.backend.xp
    for i in range(2):
        want = lars_rate(
            xp,
            ws[i]._data,
            gs[i]._data,
            [0.1, 0.2][i],
            [0.01, 0.0][i],
            0.001,
            1e-8,
            0.5,
        )
        np.testing.assert_allclose(rates.asnumpy()[i], float(want), rtol=1e-6)


def test_all_finite(ctx):
    """MXNet 1.9.1's values: ``[1.]`` or ``[0.]``, float32; with
    ``init_output=False`` a finite array leaves ``out`` as it was."""
    finite, nan = nd.array(W, ctx=ctx), nd.array([1.0, np.nan], ctx=ctx)
    inf = nd.array([[1.0], [np.inf]], ctx=ctx)
    result = nd.all_finite(finite)
    assert result.dtype == np.float32 and result.shape == (1,)
    assert result.asnumpy().tolist() == [1.0]
    assert nd.all_finite(nan).asnumpy().tolist() == [0.0]
    assert nd.all_finite(inf).asnumpy().tolist() == [0.0]
    half = nd.array([1.0, -np.inf], ctx=ctx, dtype='float16')
    assert nd.all_finite(half).asnumpy().tolist() == [0.0]
    out = nd.array([0.0], ctx=ctx)
    assert nd.all_finite(finite, init_output=False, out=out) is out
    assert out.asnumpy().tolist() == [0.0]  # left as it was
    out = nd.array([1.0], ctx=ctx)
    nd.all_finite(finite, init_output=False, out=out)
    nd.all_finite(-inf, init_output=False, out=out)
    nd.all_finite(finite, init_output=False, out=out)
    assert out.asnumpy().tolist() == [0.0]
    assert nd.multi_all_finite(
        finite, nd.array([[0.5]], ctx=ctx), num_arrays=2
    ).asnumpy().tolist() == [1.0]
    assert nd.multi_all_finite(
        finite, nan, num_arrays=2
    ).asnumpy().tolist() == [0.0]


def test_norms_bad_input_is_named():
    w = nd.array(W)
    with pytest.raises(DLBookError, match='num_arrays is required'):
        nd.multi_sum_sq(w, w)
    with pytest.raises(DLBookError, match='num_arrays=1, got 2 arrays'):
        nd.multi_sum_sq(w, w, num_arrays=1)
    with pytest.raises(DLBookError, match='array 1 is float16'):
        nd.multi_all_finite(w, w.astype('float16'), num_arrays=2)
    with pytest.raises(DLBookError, match='only floating-point'):
        nd.all_finite(nd.array([1, 2], dtype='int32'))
    with pytest.raises(DLBookError, match='eps is required'):
        nd.multi_lars(w, w, w, w, eta=0.1)
    with pytest.raises(DLBookError, match=r'wds has shape \(2,\)'):
        nd.multi_lars(w, w, w, nd.ones(2), eta=0.1, eps=0.0)
    with pytest.raises(DLBookError, match='float32 only'):
        nd.multi_lars(w, w, w, w.astype('float64'), eta=0.1, eps=0.0)


# -- on a GPU: no host syncs --------------------------------------------------


def test_lamb_and_lars_stay_on_the_device(fake_gpu):
    """The norms, trust ratios, LARS rates and finiteness checks are never
    read on the host."""
    ws, gs, ms, vs = _lists(fake_gpu)
    lrs, wds = nd.array([0.1, 0.2], ctx=fake_gpu), nd.zeros(2, ctx=fake_gpu)
    with fake_cupy.count_syncs() as syncs:
        d = nd.lamb_update_phase1(ws[0], gs[0], ms[0], vs[0], t=1, wd=0.1)
        nd.lamb_update_phase2(ws[0], d, ws[0].norm(), d.norm(), lr=0.1)
        nd.contrib.multi_lamb_update(
            ws, gs, ms, vs, [1, 1], [0.1, 0.1], [0.0, 0.0], out=ws
        )
        sums = nd.multi_sum_sq(*ws, num_arrays=2)
        nd.multi_lars(lrs, sums, sums, wds, eta=0.1, eps=0.0)
        nd.multi_all_finite(*gs, num_arrays=2)
    assert sum(syncs.values()) == 0, syncs
