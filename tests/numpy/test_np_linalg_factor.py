"""``np.linalg.svd``, ``cholesky``, ``qr`` and ``pinv`` against MXNet
1.9.1 (values recorded with MXNet 1.9.1, rounded to 5 decimals)."""

import numpy
import pytest

from dlbook import autograd, np, npx

A = [[4.0, 1.0, 0.5, 0.3], [1.0, 3.0, 0.2, -0.4], [0.5, 0.2, 2.0, 1.0]]
C1 = numpy.arange(9.0).reshape(3, 3) / 7
C2 = numpy.arange(12.0).reshape(3, 4) / 5
SPD = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def close(x, expected, atol=2e-5):
    numpy.testing.assert_allclose(numpy.asarray(x), expected, atol=atol)


@pytest.mark.parametrize(
    'cols,l_want,v_abs,grad_want',
    [
        # MXNet 1.9.1 gives (|v| and a loss of squares: the singular vectors'
        # signs are LAPACK's choice)
        (
            4,
            [4.72807, 2.51948, 2.03165],
            [
                [0.83892, 0.50456, 0.19672, 0.05424],
                [0.37095, 0.78933, 0.3477, 0.34417],
                [0.39491, 0.30898, 0.8024, 0.32364],
            ],
            [
                [1.44083, -0.53403, -0.48957, -0.04224],
                [-0.5134, 1.79588, 0.21724, -0.31062],
                [-0.56282, 0.26342, 2.42967, 1.21758],
            ],
        ),
        (
            3,
            [4.72157, 2.39834, 1.88009],
            [
                [0.83886, 0.50952, 0.19156],
                [0.48195, 0.8588, 0.17376],
                [0.25304, 0.05344, 0.96598],
            ],
            [
                [1.36034, -0.44094, -0.40512],
                [-0.44094, 1.74324, -0.04598],
                [-0.40512, -0.04598, 2.89642],
            ],
        ),
    ],
)
def test_svd_values_and_gradient(cols, l_want, v_abs, grad_want):
    x = np.array(numpy.asarray(A)[:, :cols])
    x.attach_grad()
    with autograd.record():
        ut, l, v = np.linalg.svd(x)
        loss = (
            (ut**2 * np.array(C1)).sum()
            + (v**2 * np.array(C2[:, :cols])).sum()
            + (l * np.array([1.0, 2.0, 3.0])).sum()
        )
    loss.backward()
    assert ut.shape == (3, 3) and l.shape == (3,) and v.shape == (3, cols)
    close(l.asnumpy(), l_want)
    close(numpy.abs(v.asnumpy()), v_abs)
    close(
        (ut @ (l.reshape(-1, 1) * v)).asnumpy(),
        numpy.asarray(A)[:, :cols],
        atol=1e-5,
    )
    close(x.grad.asnumpy(), grad_want, atol=1e-4)


def test_svd_needs_wide_input():
    # MXNet 1.9.1: "The second to last dimension must be less than or
    # equal to the last dimension"
    with pytest.raises(Exception, match='M <= N'):
        np.linalg.svd(np.ones((4, 3)))


def test_cholesky_values_and_gradient():
    x = np.array(SPD)
    x.attach_grad()
    with autograd.record():
        low = np.linalg.cholesky(x)
        loss = (low * np.array(C1)).sum()
    loss.backward()
    # MXNet 1.9.1 gives
    close(
        low.asnumpy(),
        [[2.0, 0.0, 0.0], [0.5, 1.65831, 0.0], [0.25, 0.04523, 1.39121]],
    )
    close(
        x.grad.asnumpy(),
        [
            [-0.01874, 0.02976, 0.09037],
            [0.02976, 0.16437, 0.29031],
            [0.09037, 0.29031, 0.41074],
        ],
    )
    batch = np.linalg.cholesky(
        np.array([[[4.0, 2.0], [2.0, 3.0]], [[2.0, -1.0], [-1.0, 5.0]]])
    )
    close(
        batch.asnumpy(),
        [[[2.0, 0.0], [1.0, 1.41421]], [[1.41421, 0.0], [-0.70711, 2.12132]]],
    )


def test_qr():
    q, r = np.linalg.qr(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    # MXNet 1.9.1 gives
    close(
        q.asnumpy(),
        [[-0.16903, 0.89709], [-0.50709, 0.27603], [-0.84515, -0.34503]],
    )
    close(r.asnumpy(), [[-5.91608, -7.43736], [0.0, 0.82808]])
    q, r = np.linalg.qr(np.array([[1.0, 2.0, 0.5], [3.0, 4.0, -1.0]]))
    close(q.asnumpy(), [[-0.31623, -0.94868], [-0.94868, 0.31623]])
    close(
        r.asnumpy(), [[-3.16228, -4.42719, 0.79057], [0.0, -0.63246, -0.79057]]
    )


def test_pinv_values_and_zero_gradient():
    a = np.array(A)
    # MXNet 1.9.1 gives
    close(
        np.linalg.pinv(a).asnumpy(),
        [
            [0.27984, -0.0856, -0.07283],
            [-0.08892, 0.35245, 0.02335],
            [-0.06195, 0.01719, 0.41548],
            [0.00176, -0.06207, 0.20078],
        ],
    )
    close(
        np.linalg.pinv(a, rcond=0.5).asnumpy(),
        [
            [0.20594, -0.03174, 0.09869],
            [-0.0311, 0.3103, -0.11085],
            [0.0882, -0.09226, 0.06697],
            [0.06232, -0.10622, 0.06021],
        ],
    )
    a.attach_grad()
    with autograd.record():
        loss = (np.linalg.pinv(a) * 2).sum()
    loss.backward()
    close(a.grad.asnumpy(), numpy.zeros((3, 4)))  # MXNet 1.9.1: zeros
    with pytest.raises(NotImplementedError):
        np.linalg.pinv(a, hermitian=True)
