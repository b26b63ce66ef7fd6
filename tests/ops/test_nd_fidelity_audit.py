"""Regression tests from the ``mx.nd`` operator fidelity audit: expected
values were recorded from MXNet 1.9.1."""

import numpy as np
import pytest

import dlbook as mx

nd = mx.nd
NAN, INF = np.nan, np.inf


def close(got, want):
    np.testing.assert_allclose(
        got.asnumpy(), np.array(want), rtol=1e-5, atol=1e-6
    )


def test_mod_by_zero_is_zero():
    a = nd.array([NAN, INF, -INF, 1, 0, -2])
    b = nd.array([1, NAN, 2, 0, 0, INF])
    close(nd.broadcast_mod(a, b), [NAN, NAN, NAN, 0, 0, INF])
    x = nd.array([-3, -2.5, -1, 0, 0.5, 2, 3.5, 7], dtype='float64')
    close(x % 0, [0] * 8)
    close(3 % x, [0, -2, 0, 0, 0, 1, 3, 3])
    y = nd.array([-7, -3.5, 0, 3, 7.5]) % nd.array([2, 2, 1, -2, 0])
    close(y, [1, 0.5, 0, -1, 0])


def test_clip_with_crossed_bounds():
    x = nd.array([-2, -1, -0.5, 0, 0.5, 1, 2, NAN])
    close(nd.clip(x, 1, -1), [1, 1, -1, -1, -1, -1, -1, NAN])
    close(nd.clip(x, -1, 1), [-1, -1, -0.5, 0, 0.5, 1, 1, NAN])


def test_mae_regression_gradient_at_tie():
    d = nd.array([[1.0, 2.0]])
    d.attach_grad()
    with mx.autograd.record():
        y = nd.MAERegressionOutput(d, nd.array([[1.0, 3.0]]))
    y.backward()
    close(d.grad, [[-0.5, -0.5]])


TK = [[3, 1, 4, 1, 5, 9], [2, 6, 5, 3, 5, 8]]
DESC = [[5, 4, 2, 0, 1, 3], [5, 1, 2, 4, 3, 0]]


def test_descending_sort_keeps_ties_in_order():
    tk = nd.array(TK)
    close(nd.topk(tk, k=0), DESC)
    close(nd.argsort(tk, is_ascend=False), DESC)
    close(
        nd.topk(tk, k=3, ret_typ='mask'),
        [[0, 0, 1, 0, 1, 1], [0, 1, 1, 0, 0, 1]],
    )
    close(
        nd.argsort(
            nd.array([[1, 2], [1, 0], [1, 2]]), axis=0, is_ascend=False
        ),
        [[0, 0], [1, 2], [2, 1]],
    )
    close(nd.argsort(nd.array(TK, dtype='int32'), is_ascend=False), DESC)
    tk.attach_grad()
    with mx.autograd.record():
        s = nd.sort(tk, is_ascend=False)
    s.backward(nd.array(np.arange(12).reshape(2, 6)))
    close(s, [[9, 5, 4, 3, 1, 1], [8, 6, 5, 5, 3, 2]])
    close(tk.grad, [[3, 4, 2, 5, 1, 0], [11, 7, 8, 10, 9, 6]])


def test_dot_transpose_a_contracts_first_axis_of_nd_lhs():
    a = np.arange(24).reshape(2, 3, 4) / 10.0
    b = np.arange(10).reshape(2, 5) / 10.0 - 0.3
    head = np.arange(60).reshape(3, 4, 5) % 7 - 3.0
    A, B = nd.array(a), nd.array(b)
    A.attach_grad()
    B.attach_grad()
    with mx.autograd.record():
        y = nd.dot(A, B, transpose_a=True)
    y.backward(nd.array(head))
    assert y.shape == (3, 4, 5)
    close(y, np.tensordot(a, b, axes=([0], [0])))
    close(A.grad[0, 0], [1.5, -1.0, -0.7, 1.0])
    close(A.grad, np.tensordot(b, head, axes=([1], [2])))
    close(B.grad[1], [1.5, -4.8, -6.9, 2.2, -1.3])


def test_dot_transpose_b_contracts_last_axis_of_nd_rhs():
    c = np.arange(12).reshape(4, 3) / 10.0
    d = np.arange(30).reshape(5, 2, 3) / 10.0
    C, D = nd.array(c), nd.array(d)
    D.attach_grad()
    with mx.autograd.record():
        y = nd.dot(C, D, transpose_b=True)
    y.backward(nd.ones(y.shape))
    assert y.shape == (4, 5, 2)
    close(y[0, 0], [0.05, 0.14])
    close(y, np.tensordot(c, d, axes=([1], [2])))
    close(D.grad, np.broadcast_to([1.8, 2.2, 2.6], (5, 2, 3)))


def test_tile_empty_reps_copies():
    close(nd.tile(nd.array([[1, 2], [3, 4]]), reps=()), [[1, 2], [3, 4]])


def test_ctc_loss_lengths_fill_the_inputs_it_takes():
    cd = nd.array(np.sin(np.arange(40)).reshape(5, 2, 4))
    cl = nd.array([[1, 2], [3, 0]])
    ll = nd.ctc_loss(cd, cl, nd.array([2, 1]), use_label_lengths=True)
    close(ll, [3.314214, 4.867836])
    dl = nd.ctc_loss(cd, cl, nd.array([5, 3]), use_data_lengths=True)
    close(dl, [3.314214, 2.201641])
    both = nd.ctc_loss(
        cd,
        cl,
        nd.array([5, 3]),
        nd.array([2, 1]),
        use_data_lengths=True,
        use_label_lengths=True,
    )
    close(both, [3.314214, 2.201641])


def test_gather_nd_out_of_bounds_is_index_error():
    with pytest.raises(IndexError):
        nd.gather_nd(nd.ones((3, 4)), nd.array([[5, 0], [1, 2]])).asnumpy()
