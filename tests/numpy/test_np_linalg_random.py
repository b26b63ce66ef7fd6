"""``np.linalg`` and ``np.random`` beyond the basics, against MXNet 1.9.1."""

import math

import numpy
import pytest

import dlbook as mx
from dlbook import autograd, np, npx
from dlbook.base import DLBookError


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


A = [[2.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 4.0]]
B = [[1.0, 2.0], [3.0, 4.0]]


def close(x, expected, rtol=1e-5):
    numpy.testing.assert_allclose(
        numpy.asarray(x.tolist() if hasattr(x, 'tolist') else x),
        expected,
        rtol=rtol,
        atol=1e-6,
    )


def test_det_inv_slogdet_solve_values():
    a, b = np.array(A), np.array(B)
    # MXNet 1.9.1 gives det 19.375, -2.0 and [19.375, 155.] for a stack
    close(np.linalg.det(a), 19.375)
    close(np.linalg.det(b), -2.0)
    close(np.linalg.det(np.stack([a, 2 * a])), [19.375, 155.0])
    assert np.linalg.det(b).shape == ()
    close(np.linalg.inv(b), [[-2.0, 1.0], [1.5, -0.5]])
    sign, logdet = np.linalg.slogdet(b)  # array(-1.), array(0.6931472)
    close(sign, -1.0)
    close(logdet, 0.6931472)
    close(np.linalg.solve(b, np.array([1.0, 1.0])), [-1.0, 1.0])
    close(
        np.linalg.solve(b, np.array([[1.0, 0.0], [0.0, 1.0]])),
        [[-2.0, 1.0], [1.5, -0.5]],
    )
    with pytest.raises(DLBookError, match='square'):
        np.linalg.det(np.ones((2, 3)))


def test_det_and_inv_gradients_match_mxnet():
    a = np.array(A)
    a.attach_grad()
    with autograd.record():
        y = np.linalg.det(a)
    y.backward()
    # MXNet 1.9.1 gives
    close(
        a.grad,
        [[11.9375, -3.875, -1.25], [-3.875, 7.75, -0.0], [-1.25, 0.0, 5.0]],
    )
    with autograd.record():
        y = np.linalg.inv(a).sum()
    y.backward()
    close(
        a.grad,
        [
            [-0.12363164871931076, -0.07032258063554764, -0.06805410981178284],
            [-0.07032258063554764, -0.03999999910593033, -0.03870967775583267],
            [-0.06805410981178284, -0.03870967775583267, -0.03746097534894943],
        ],
    )


def test_eigen_values_and_vectors():
    # MXNet 1.9.1 gives
    w, v = np.linalg.eigh(np.array(A))
    close(w, [1.3481240272521973, 3.3102056980133057, 4.341670513153076])
    assert v.shape == (3, 3) and v.dtype == numpy.float32
    close(np.linalg.eigvalsh(np.array(A)), w.tolist())
    w, v = np.linalg.eig(np.array(B))
    close(w, [-0.37228107, 5.3722816])
    close(
        abs(v),
        abs(
            numpy.array([[-0.8245648, -0.41597357], [0.56576747, -0.9093767]])
        ),
    )
    close(np.linalg.eigvals(np.array(B)), [-0.37228107, 5.3722816])


def test_norm_orders():
    x = np.array([[3.0, -4.0], [1.0, 2.0]])
    v = np.array([3.0, -4.0, 1.0])
    # MXNet 1.9.1 gives
    close(np.linalg.norm(x), 5.477226)
    close(np.linalg.norm(x, axis=1), [5.0, 2.236068])
    close(np.linalg.norm(x, ord=1, axis=1), [7.0, 3.0])
    for order, expected in [
        (1, 8.0),
        (2, 5.099019527435303),
        (0, 3.0),
        (3, 4.514357566833496),
    ]:
        close(np.linalg.norm(v, ord=order), expected)
    for order, expected in [
        (math.inf, 7.0),
        (-math.inf, 3.0),
        (1, 6.0),
        (-1, 4.0),
        ('fro', 5.4772257804870605),
        ('nuc', 7.071067810058594),
        (2, 5.116672515869141),
    ]:
        close(np.linalg.norm(x, ord=order), expected)
    # MXNet 1.9.1 raises for the vector inf norms; NumPy's values here
    close(np.linalg.norm(v, ord=math.inf), 4.0)
    close(np.linalg.norm(v, ord=-math.inf), 1.0)
    assert np.linalg.norm(x, ord=1, keepdims=True).shape == (1, 1)


def test_normal_and_uniform_with_array_parameters():
    # MXNet 1.9.1 gives shapes (2, 3), (4, 2), (3,) and float32
    assert np.random.normal(np.zeros((2, 3)), np.ones(3)).shape == (2, 3)
    assert np.random.normal(np.array([0.0, 10.0]), 1, size=(4, 2)).shape == (
        4,
        2,
    )
    assert np.random.normal(np.zeros(2), 1).dtype == numpy.float32
    u = np.random.uniform(
        np.zeros(3), np.array([1.0, 2.0, 3.0]), size=(5000, 3)
    )
    assert u.shape == (5000, 3)
    close(u.asnumpy().mean(axis=0), [0.5, 1.0, 1.5], rtol=0.05)
    assert (u.asnumpy() < [1.0, 2.0, 3.0]).all()
    s = np.random.normal(
        np.array([0.0, 100.0]), np.array([1.0, 0.0]), size=(1000, 2)
    ).asnumpy()
    assert abs(s[:, 0].mean()) < 0.15 and (s[:, 1] == 100).all()
    loc, scale = np.array([1.0, 2.0]), np.array([2.0, 3.0])
    loc.attach_grad()
    scale.attach_grad()
    with autograd.record():
        draw = np.random.normal(loc, scale, size=(5, 2))
    draw.backward()
    close(loc.grad, [5.0, 5.0])  # MXNet 1.9.1 gives [5. 5.]
    assert scale.grad.shape == (2,)


def test_choice_with_p_and_without_replacement():
    mx.random.seed(3)
    picks = np.random.choice(5, 3, replace=False)
    assert picks.dtype == numpy.int64  # MXNet 1.9.1: int64
    assert len(set(picks.tolist())) == 3
    assert np.random.choice(5).shape == ()
    weighted = np.random.choice(
        4, size=(4000,), p=np.array([0.1, 0.2, 0.3, 0.4])
    )
    assert weighted.dtype == numpy.int64
    counts = numpy.bincount(weighted.asnumpy(), minlength=4) / 4000
    close(counts, [0.1, 0.2, 0.3, 0.4], rtol=0.2)
    values = np.random.choice(np.array([1.0, 2.0, 3.0]), 2)
    assert set(values.tolist()) <= {1.0, 2.0, 3.0}
    mx.random.seed(3)
    assert np.random.choice(5, 3, replace=False).tolist() == picks.tolist()
    with pytest.raises(DLBookError, match='larger sample'):
        np.random.choice(3, 4, replace=False)
