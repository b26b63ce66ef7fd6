"""GroupNorm, SVMOutput, im2col/col2im, the AMP casts, reset_arrays,
IdentityAttachKLSparseReg, the straight-through estimators, the
interleaved attention matmuls, fft/ifft, count_sketch and the BatchNorm
variants against values printed by MXNet 1.9.1 (recorded here; MXNet is
not imported), their error messages, and symbol forms run by an
executor.  (MXNet runs fft, ifft and count_sketch on GPUs only: those are
checked against NumPy.)"""

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, gluon, nd, sym
from dlbook.base import DLBookError


def grad_of(f, *inputs, head=None):
    for a in inputs:
        a.attach_grad()
    with autograd.record():
        y = f(*inputs)
    y.backward(head)
    return y.asnumpy(), [a.grad.asnumpy() for a in inputs]


def test_group_norm_values_and_gradients():
    x = nd.array(np.arange(24).reshape(2, 4, 3) % 7 - 3.0)
    g, b = nd.array([1.0, 2.0]), nd.array([0.5, -1])
    y, mean, std = nd.GroupNorm(x, g, b, num_groups=2, output_mean_var=True)
    assert mean.shape == std.shape == (2, 2)
    np.testing.assert_allclose(
        mean.asnumpy(), [[-0.5, -0.333333], [-0.166667, 0]], atol=1e-6
    )
    # MXNet's third output is sqrt(var + eps)
    np.testing.assert_allclose(
        std.asnumpy(), [[1.707828, 1.972029], [2.114765, 2.160249]], 1e-6
    )
    np.testing.assert_allclose(
        y.asnumpy()[0, :2], [[-0.963848, -0.378309, 0.20723],
                             [0.79277, 1.378309, 1.963848]], 1e-5
    )  # fmt: skip
    head = nd.array(np.arange(24).reshape(2, 4, 3))
    _, (dx, dg, db) = grad_of(
        lambda *a: nd.GroupNorm(*a, num_groups=2), x, g, b, head=head
    )
    np.testing.assert_allclose(dg, [5.281846, -6.480735], 1e-5)
    np.testing.assert_allclose(db, [102, 174])
    np.testing.assert_allclose(
        dx[1, 0], [-0.781257, -0.123357, -0.760695], 1e-5
    )
    with pytest.raises(DLBookError, match='one value per group'):
        nd.GroupNorm(x, nd.ones(4), nd.zeros(4), num_groups=2)
    with pytest.raises(DLBookError, match='must divide'):
        nd.GroupNorm(x, nd.ones(3), nd.zeros(3), num_groups=3)


def test_gluon_group_norm_runs_the_operator():
    layer = gluon.nn.GroupNorm(num_groups=2)
    layer.initialize()
    x = nd.array(np.arange(24).reshape(2, 4, 3) % 7 - 3.0)
    want = nd.GroupNorm(x, nd.ones(2), nd.zeros(2), num_groups=2)
    np.testing.assert_allclose(layer(x).asnumpy(), want.asnumpy(), 1e-6)
    layer.hybridize()
    np.testing.assert_allclose(layer(x).asnumpy(), want.asnumpy(), 1e-6)
    assert layer.gamma.shape == (2,)


def test_svm_output_gradients_ignore_the_head():
    x = nd.array([[0.5, -0.3, 1.2], [-1.5, 0.2, 0.1]])
    label = nd.array([2, 0])
    head = nd.ones((2, 3)) * 7
    recorded = {
        (False, 1, 1): [[3.0, 1.4, 0], [-5.0, 2.4, 2.2]],
        (False, 0.5, 2): [[4.0, 0.8, 0], [-8.0, 2.8, 2.4]],
        (True, 1, 1): [[1.0, 1.0, 0], [-1.0, 1.0, 1.0]],
        (True, 0.5, 2): [[2.0, 2.0, 0], [-2.0, 2.0, 2.0]],
    }
    for (linear, m, c), want in recorded.items():
        y, (dx,) = grad_of(
            lambda a: nd.SVMOutput(
                a, label, margin=m, regularization_coefficient=c,
                use_linear=linear,
            ),
            x,
            head=head,
        )  # fmt: skip
        np.testing.assert_allclose(y, x.asnumpy())
        np.testing.assert_allclose(dx, want, rtol=1e-6, atol=1e-6)
    # N-D data: rows are the last axis; a label out of range marks nothing
    x3 = nd.array(np.arange(12).reshape(2, 3, 2) * 0.1 - 0.5)
    _, (dx,) = grad_of(
        lambda a: nd.SVMOutput(a, nd.array([[0, 1, 2], [2, 1, 0]])), x3
    )
    np.testing.assert_allclose(
        dx,
        [[[-3.0, 1.2], [1.4, -2.4], [1.8, 2.0]],
         [[2.2, 2.4], [2.6, -1.2], [-1.0, 3.2]]],
        rtol=1e-6,
    )  # fmt: skip
    with pytest.raises(DLBookError, match='one label per row'):
        nd.SVMOutput(x, nd.array([1, 2, 0]))


def test_im2col_and_col2im():
    x = nd.array(np.arange(80).reshape(2, 2, 4, 5))
    cols = nd.im2col(
        x, kernel=(2, 3), stride=(2, 1), dilate=(1, 2), pad=(1, 0)
    )
    assert cols.shape == (2, 12, 3)
    assert cols[0, :3].asnumpy().tolist() == [
        [0, 5, 15],
        [0, 7, 17],
        [0, 9, 19],
    ]
    _, (dx,) = grad_of(
        lambda a: nd.im2col(
            a, kernel=(2, 3), stride=(2, 1), dilate=(1, 2), pad=(1, 0)
        ),
        x,
    )
    assert dx[0, 0].tolist() == [[1, 0, 1, 0, 1]] * 4
    c = nd.array(np.arange(2 * 12 * 9).reshape(2, 12, 9))
    fold = dict(output_size=(4, 5), kernel=(2, 3), stride=(2, 2), pad=(1, 1))
    y, (dc,) = grad_of(
        lambda a: nd.col2im(a, **fold),
        c,
        head=nd.array(np.arange(80).reshape(2, 2, 4, 5)),
    )
    assert y.shape == (2, 2, 4, 5)
    assert y[0, 0].tolist() == [
        [36, 73, 37, 75, 38], [12, 25, 13, 27, 14],
        [39, 79, 40, 81, 41], [15, 31, 16, 33, 17],
    ]  # fmt: skip
    assert dc[0, :3].tolist() == [
        [0, 0, 0, 0, 6, 8, 0, 16, 18],
        [0, 0, 0, 5, 7, 9, 15, 17, 19],
        [0, 0, 0, 6, 8, 0, 16, 18, 0],
    ]
    with pytest.raises(DLBookError, match='does not match kernel'):
        nd.col2im(nd.ones((2, 12, 6)), **fold)
    with pytest.raises(DLBookError, match='2-D windows'):
        nd.im2col(nd.ones((1, 1, 6)), kernel=(3,))


def test_amp_casts():
    x = nd.array([1.5, -2.25, 3.1])
    y, (dx,) = grad_of(
        lambda a: nd.amp_cast(a, dtype='float16'),
        x,
        head=nd.array([1, 2, 3], dtype='float16'),
    )
    assert y.dtype == np.float16 and dx.dtype == np.float32
    assert dx.tolist() == [1, 2, 3]
    # integer arrays are left alone (unlike Cast)
    assert (
        nd.amp_cast(nd.array([1, 2], dtype='int32'), dtype='float16').dtype
        == np.int32
    )
    h, f, d = (
        nd.array([1], dtype=t) for t in ('float16', 'float32', 'float64')
    )
    i = nd.array([1], dtype='int32')

    def kinds(*arrays, **kw):
        out = nd.amp_multicast(*arrays, num_outputs=len(arrays), **kw)
        return [o.dtype.name for o in out]

    assert kinds(h, f) == ['float32', 'float32']
    assert kinds(h, f, d) == ['float32', 'float32', 'float64']
    assert kinds(h, f, cast_narrow=True) == ['float16', 'float16']
    assert kinds(h, f, d, cast_narrow=True) == [
        'float16',
        'float16',
        'float64',
    ]
    assert kinds(h, d) == ['float16', 'float64']
    assert kinds(f, d, cast_narrow=True) == ['float32', 'float64']
    assert kinds(i, f) == ['int32', 'float32']
    with pytest.raises(DLBookError, match='dtype attribute is required'):
        nd.amp_cast(x)
    with pytest.raises(DLBookError, match='num_outputs=3 but 2'):
        nd.amp_multicast(h, f, num_outputs=3)


def test_reset_arrays_zeroes_in_place():
    a, b = nd.ones((2, 2)), nd.ones(3, dtype='float64')
    assert nd.reset_arrays(a, b, num_arrays=2) == []
    assert a.asnumpy().sum() == 0 and b.asnumpy().sum() == 0
    with pytest.raises(DLBookError, match='only float arrays'):
        nd.reset_arrays(nd.ones(3, dtype='int32'), num_arrays=1)
    with pytest.raises(DLBookError, match='num_arrays'):
        nd.reset_arrays(a, b, num_arrays=1)


def test_straight_through_estimators():
    x = nd.array([-2.5, -1.5, -0.4, 0.5, 1.5, 2.6])
    assert nd.contrib.round_ste(x).asnumpy().tolist() == [-3, -2, 0, 1, 2, 3]
    assert nd.contrib.sign_ste(
        nd.array([-2.5, 0, 0.3])
    ).asnumpy().tolist() == [-1, 0, 1]
    _, (dx,) = grad_of(
        lambda a: nd.contrib.sign_ste(a) * 3 + nd.contrib.round_ste(a) * 5,
        nd.array([-2.5, 0, 0.3]),
    )
    assert dx.tolist() == [8, 8, 8]
    assert (
        nd.contrib.round_ste(nd.array([1, 2], dtype='int32')).dtype == np.int32
    )


def test_kl_sparse_reg_updates_and_gradient():
    x = nd.array([[0.2, 0.7, 0.4], [0.9, 0.1, 0.5]])
    avg = nd.zeros(3)
    want_avg = [[0.055, 0.04, 0.045], [0.1045, 0.076, 0.0855]]
    want_dx = [
        [1.9991342, 1.9984375, 1.9987202],
        [2.0000482, 1.9996582, 1.9998145],
    ]
    for a, d in zip(want_avg, want_dx):
        _, (dx,) = grad_of(
            lambda t: nd.IdentityAttachKLSparseReg(t, avg), x,
            head=nd.ones((2, 3)) * 2,
        )  # fmt: skip
        np.testing.assert_allclose(avg.asnumpy(), a, rtol=1e-6)
        np.testing.assert_allclose(dx, [d, d], rtol=1e-6)
    nd.IdentityAttachKLSparseReg(x, avg)  # prediction: no update
    np.testing.assert_allclose(avg.asnumpy(), want_avg[1], rtol=1e-6)
    with pytest.raises(DLBookError, match=r'2-D data \(N, C\)'):
        nd.IdentityAttachKLSparseReg(nd.ones((2, 3, 2)), avg)


def test_interleaved_attention_recorded_values():
    x = nd.array(np.arange(12).reshape(1, 1, 12) * 0.1)
    y, (dx,) = grad_of(
        lambda a: nd.contrib.interleaved_matmul_selfatt_qk(a, heads=2),
        x,
        head=nd.array([[[1.0]], [[2.0]]]),
    )
    np.testing.assert_allclose(y.ravel(), [0.0212132, 0.7848885], 1e-5)
    np.testing.assert_allclose(
        dx.ravel(),
        [0.1414214, 0.2121320, 0, 0.0707107, 0, 0,
         1.1313709, 1.2727921, 0.8485281, 0.9899495, 0, 0],
        rtol=1e-5, atol=1e-7,
    )  # fmt: skip
    with pytest.raises(DLBookError, match=r'heads \* 3 \* head_dim'):
        nd.contrib.interleaved_matmul_selfatt_qk(nd.ones((2, 1, 8)), heads=2)
    with pytest.raises(DLBookError, match='attention of shape'):
        nd.contrib.interleaved_matmul_selfatt_valatt(
            nd.ones((2, 1, 12)), nd.ones((1, 2, 2)), heads=2
        )


def test_fft_layout_and_unnormalized_ifft():
    x = nd.array([[1, 2, 3, 4]])
    y = nd.contrib.fft(x)
    assert y.asnumpy().tolist() == [[10, 0, -2, 2, -2, 0, -2, -2]]
    # MXNet's ifft leaves out the 1/d: ifft(fft(x)) = d * x
    assert nd.contrib.ifft(y).asnumpy().tolist() == [[4, 8, 12, 16]]
    with pytest.raises(DLBookError, match='2-D'):
        nd.contrib.fft(nd.ones((2, 2, 4)))
    with pytest.raises(DLBookError, match='even last axis'):
        nd.contrib.ifft(nd.ones((2, 5)))


def test_count_sketch():
    y = nd.contrib.count_sketch(
        nd.array([[1, 2, 3]]), nd.array([[0, 2, 1]]), nd.array([[1, -1, 1]]),
        out_dim=3,
    )  # fmt: skip
    assert y.asnumpy().tolist() == [[1, 3, -2]]
    with pytest.raises(DLBookError, match=r'h must lie in \[0, out_dim=2\)'):
        nd.contrib.count_sketch(
            nd.ones((1, 3)), nd.array([[0, 2, 1]]), nd.ones((1, 3)), out_dim=2
        )


def test_batch_norm_variants():
    x = nd.array(np.random.RandomState(0).randn(4, 3, 2))
    params = [nd.ones(3), nd.zeros(3), nd.zeros(3), nd.ones(3)]
    with autograd.record():
        plain = nd.BatchNorm(x, *params)
        fused = nd.contrib.BatchNormWithReLU(x, *params)
        synced = nd.contrib.SyncBatchNorm(x, *params, key='bn')
    np.testing.assert_allclose(fused.asnumpy(), np.maximum(plain.asnumpy(), 0))
    np.testing.assert_allclose(synced.asnumpy(), plain.asnumpy())
    with pytest.raises(DLBookError, match='ndev=2'):
        nd.contrib.SyncBatchNorm(x, *params, key='bn', ndev=2)
    layer = gluon.contrib.nn.SyncBatchNorm(in_channels=3)
    layer.initialize()
    layer.hybridize()
    with autograd.record():
        out = layer(x)
    fresh = [nd.ones(3), nd.zeros(3), nd.zeros(3), nd.ones(3)]
    with autograd.train_mode():
        want = nd.BatchNorm(x, *fresh, eps=1e-5, fix_gamma=False)
    np.testing.assert_allclose(out.asnumpy(), want.asnumpy(), 1e-6)
    np.testing.assert_allclose(
        layer.running_mean.data().asnumpy(),
        0.1 * x.asnumpy().mean(axis=(0, 2)),
        rtol=1e-5,
    )


def test_symbol_forms_run_in_an_executor():
    data = sym.var('data')
    net = sym.GroupNorm(data, num_groups=2, name='gn')
    assert net.list_arguments() == ['data', 'gn_gamma', 'gn_beta']
    net = sym.SVMOutput(net, name='svm')
    assert net.list_arguments()[-1] == 'svm_label'
    exe = net.simple_bind(mx.cpu(), data=(2, 4, 3))
    assert exe.arg_dict['svm_label'].shape == (2, 4)
    kl = sym.IdentityAttachKLSparseReg(data, name='kl')
    assert kl.list_auxiliary_states() == ['kl_moving_avg']
    assert kl.infer_shape(data=(2, 3))[2] == [(3,)]
    qkv = sym.var('qkv')
    att = sym.contrib.interleaved_matmul_selfatt_qk(qkv, heads=2)
    out = sym.contrib.interleaved_matmul_selfatt_valatt(qkv, att, heads=2)
    exe = out.simple_bind(mx.cpu(), qkv=(3, 2, 12))
    exe.arg_dict['qkv'][:] = nd.array(np.random.RandomState(0).rand(3, 2, 12))
    assert exe.forward()[0].shape == (3, 2, 4)
    bn = sym.contrib.SyncBatchNorm(data, key='k', name='sbn')
    assert bn.list_auxiliary_states() == ['sbn_moving_mean', 'sbn_moving_var']
    cs = sym.contrib.count_sketch(data, name='cs', out_dim=4)
    assert cs.infer_shape(data=(2, 5))[0] == [(2, 5), (1, 5), (1, 5)]
