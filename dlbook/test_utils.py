"""Testing helpers with MXNet's names (``mx.test_utils``).

``assert_almost_equal`` compares arrays of any kind with MXNet-style
tolerances; ``check_numeric_gradient`` compares the tape's gradient of a
function with float64 central differences, the check every dlbook
operator passes.
"""

import numpy as np

from . import autograd
from .context import Context, current_context, num_gpus
from .ndarray.ndarray import NDArray

__all__ = ['default_context', 'set_default_context', 'list_gpus',
           'assert_almost_equal', 'almost_equal', 'same',
           'check_numeric_gradient', 'numeric_grad', 'rand_shape_nd',
           'rand_ndarray', 'get_mnist', 'assert_exception']


def default_context():
    """The context tests run on (the current default context)."""
    return current_context()


def set_default_context(ctx):
    """Make ``ctx`` the default context for the rest of the thread."""
    Context._default.stack = [ctx]


def list_gpus():
    """``range(n)`` over the usable GPUs (empty without CuPy/CUDA)."""
    return range(num_gpus())


def _as_numpy(a):
    if isinstance(a, NDArray):
        return a.asnumpy()
    return np.asarray(a)


def _default_tols(*arrays):
    low = min((np.asarray(a).dtype.itemsize for a in arrays
               if np.asarray(a).dtype.kind == 'f'), default=8)
    return (1e-5, 1e-20) if low >= 8 else \
        (1e-4, 1e-5) if low >= 4 else (1e-2, 1e-2)


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False):
    """True if ``|a - b| <= atol + rtol * |b|`` everywhere."""
    a, b = _as_numpy(a), _as_numpy(b)
    drtol, datol = _default_tols(a, b)
    return np.allclose(a, b, rtol=rtol if rtol is not None else drtol,
                       atol=atol if atol is not None else datol,
                       equal_nan=equal_nan)


def assert_almost_equal(a, b, rtol=None, atol=None, names=('a', 'b'),
                        equal_nan=False, use_broadcast=True, mismatches=(10, 10)):
    """Raise AssertionError naming the worst element if ``a`` and ``b``
    differ by more than ``atol + rtol * |b|`` (NDArrays, NumPy arrays or
    numbers)."""
    a, b = _as_numpy(a), _as_numpy(b)
    drtol, datol = _default_tols(a, b)
    rtol = rtol if rtol is not None else drtol
    atol = atol if atol is not None else datol
    if not use_broadcast and a.shape != b.shape:
        raise AssertionError(f'shape mismatch: {names[0]} {a.shape} vs '
                             f'{names[1]} {b.shape}')
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol,
                               equal_nan=equal_nan,
                               err_msg=f'{names[0]} vs {names[1]}')


def same(a, b):
    """True if ``a`` and ``b`` are exactly equal."""
    return np.array_equal(_as_numpy(a), _as_numpy(b))


def assert_exception(f, exception_type, *args, **kwargs):
    """Assert that ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError(f'{f} did not raise {exception_type.__name__}')


def rand_shape_nd(num_dim, dim=10):
    """A random shape with ``num_dim`` dimensions of size 1..dim."""
    return tuple(np.random.randint(1, dim + 1, size=num_dim))


def rand_ndarray(shape, stype='default', density=None, dtype=None,
                 ctx=None):
    """A random uniform NDArray of ``shape``."""
    from . import ndarray as nd
    return nd.array(np.random.uniform(-1, 1, shape), ctx=ctx,
                    dtype=dtype or 'float32')


def numeric_grad(f, inputs, eps=1e-4):
    """Central-difference gradient of the scalar ``f(*inputs)`` for each
    NumPy array in ``inputs`` (computed in float64)."""
    inputs = [np.array(x, dtype=np.float64) for x in inputs]
    grads = []
    for x in inputs:
        g = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            keep = x[i]
            x[i] = keep + eps
            up = float(f(*inputs))
            x[i] = keep - eps
            down = float(f(*inputs))
            x[i] = keep
            g[i] = (up - down) / (2 * eps)
        grads.append(g)
    return grads


def check_numeric_gradient(f, location, numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, ctx=None, seed=0):
    """Check the autograd gradient of ``f`` at ``location``.

    ``f`` maps NDArrays to one NDArray; ``location`` is a list of arrays
    (NumPy or NDArray).  Both gradients are computed in float64 with a
    random cotangent, so transposed or mis-broadcast gradients fail.
    (MXNet's version takes a Symbol; dlbook's takes a function, which also
    accepts a hybridized block.)
    """
    from . import ndarray as nd
    ctx = ctx or current_context()
    points = [np.array(_as_numpy(x), dtype=np.float64) for x in location]
    cot = None

    def value(*arrays):
        nonlocal cot
        out = f(*[nd.array(a, ctx=ctx, dtype='float64') for a in arrays])
        out = out.asnumpy()
        if cot is None:
            cot = np.random.RandomState(seed).uniform(-1, 1, out.shape)
        return float(np.sum(out * cot))

    value(*points)
    numeric = numeric_grad(value, points, eps=numeric_eps)
    args = [nd.array(a, ctx=ctx, dtype='float64') for a in points]
    for a in args:
        a.attach_grad()
    with autograd.record():
        out = f(*args)
    out.backward(nd.array(cot, ctx=ctx, dtype='float64'))
    for i, (a, g) in enumerate(zip(args, numeric)):
        assert_almost_equal(a.grad.asnumpy(), g, rtol=rtol, atol=atol,
                            names=(f'autograd d/dx{i}', f'numeric d/dx{i}'))


def get_mnist(path=None):
    """MNIST as NumPy arrays: ``train_data`` (60000, 1, 28, 28) float32 in
    [0, 1], ``train_label`` (60000,), ``test_data``, ``test_label``."""
    from .test_utils_data import get_mnist as _get_mnist
    return _get_mnist() if path is None else _get_mnist(path=path)
