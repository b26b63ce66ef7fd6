"""Testing helpers with MXNet's names (``mx.test_utils``).

MXNet's own unit tests, course checkers and tutorials use these:

* comparisons: ``assert_almost_equal`` (names the worst element, MXNet's
  message), ``almost_equal``, ``same``, with MXNet's per-dtype default
  tolerances (``get_tols``, ``effective_dtype``);
* random inputs: ``rand_ndarray`` (dense storage only), ``rand_shape_2d``,
  ``rand_shape_3d``, ``rand_shape_nd``, ``random_arrays``,
  ``random_sample``; ``np_reduce``;
* graph checks (``dlbook.test_utils_symbolic``): ``check_numeric_gradient``,
  ``check_symbolic_forward``, ``check_symbolic_backward``,
  ``check_consistency``, ``simple_forward``;
* statistics (``dlbook.test_utils_stats``): ``verify_generator``,
  ``chi_square_check``, ``gen_buckets_probs_with_ppf``;
* environment: ``environment`` (set variables for a ``with`` block),
  ``discard_stderr``, ``retry``; data: ``get_mnist``.

More of MXNet's helpers, re-exported here from the modules that hold
them:

* comparisons (``test_utils_compare``): ``assert_almost_equal_ignore_nan``,
  ``assert_almost_equal_with_err`` (tolerates a fraction ``etol`` of bad
  elements), ``same_array``, ``compare_ndarray_tuple``; below,
  ``compare_optimizer`` (one update step of two optimizers);
* test inputs (below): ``create_vector``, ``create_2d_tensor``,
  ``get_identity_mat``, ``new_matrix_with_real_eigvals_2d`` and the other
  well-conditioned matrices of the ``linalg`` tests, ``rand_coord_2d``,
  ``collapse_sum_like``;
* graphs (``test_utils_symbolic``): ``check_speed``,
  ``same_symbol_structure``, ``check_gluon_hybridize_consistency``;
* data (``test_utils_data``): ``download`` (checksum-verified),
  ``get_zip_data``, ``get_bz2_data``, ``get_mnist_ubyte``,
  ``get_mnist_iterator``, ``DummyIter``.
"""

import os
import sys
from contextlib import contextmanager

import numpy as np
import numpy.random as rnd

from . import ndarray as nd
from . import random
from .context import Context, current_context, num_gpus
from .test_utils_compare import (  # noqa: F401  (mx.test_utils names)
    almost_equal,
    assert_allclose,
    assert_almost_equal,
    assert_almost_equal_ignore_nan,
    assert_almost_equal_with_err,
    assert_exception,
    compare_ndarray_tuple,
    default_atols,
    default_numeric_eps,
    default_rtols,
    effective_dtype,
    get_atol,
    get_etol,
    get_rtol,
    get_tolerance,
    get_tols,
    same,
    same_array,
)
from .test_utils_data import (  # noqa: F401
    DummyIter,
    download,
    get_bz2_data,
    get_mnist_iterator,
    get_mnist_ubyte,
    get_zip_data,
)
from .test_utils_sparse import (  # noqa: F401
    assign_each,
    assign_each2,
    rand_sparse_ndarray,
    shuffle_csr_column_indices,
)
from .test_utils_stats import (  # noqa
    chi_square_check,
    gen_buckets_probs_with_ppf,
    mean_check,
    var_check,
    verify_generator,
)
from .test_utils_symbolic import (  # noqa
    check_consistency,
    check_gluon_hybridize_consistency,
    check_numeric_gradient,
    check_speed,
    check_symbolic_backward,
    check_symbolic_forward,
    numeric_grad,
    same_symbol_structure,
    simple_forward,
)

__all__ = [
    'default_context',
    'set_default_context',
    'default_dtype',
    'list_gpus',
    'default_rtols',
    'default_atols',
    'default_numeric_eps',
    'effective_dtype',
    'get_tolerance',
    'get_tols',
    'get_rtol',
    'get_atol',
    'get_etol',
    'assert_almost_equal',
    'almost_equal',
    'same',
    'assert_exception',
    'assert_allclose',
    'random_arrays',
    'random_uniform_arrays',
    'random_sample',
    'rand_ndarray',
    'rand_shape_2d',
    'rand_shape_3d',
    'rand_shape_nd',
    'np_reduce',
    'retry',
    'environment',
    'discard_stderr',
    'get_mnist',
    'numeric_grad',
    'check_numeric_gradient',
    'check_symbolic_forward',
    'check_symbolic_backward',
    'check_consistency',
    'simple_forward',
    'rand_sparse_ndarray',
    'shuffle_csr_column_indices',
    'assign_each',
    'assign_each2',
    'verify_generator',
    'chi_square_check',
    'gen_buckets_probs_with_ppf',
    'mean_check',
    'var_check',
    'assert_almost_equal_ignore_nan',
    'assert_almost_equal_with_err',
    'same_array',
    'compare_ndarray_tuple',
    'compare_optimizer',
    'create_vector',
    'create_2d_tensor',
    'get_identity_mat',
    'get_identity_mat_batch',
    'rand_coord_2d',
    'new_matrix_with_real_eigvals_2d',
    'new_matrix_with_real_eigvals_nd',
    'new_orthonormal_matrix_2d',
    'new_sym_matrix_with_real_eigvals_2d',
    'new_sym_matrix_with_real_eigvals_nd',
    'collapse_sum_like',
    'check_speed',
    'same_symbol_structure',
    'check_gluon_hybridize_consistency',
    'download',
    'get_zip_data',
    'get_bz2_data',
    'get_mnist_ubyte',
    'get_mnist_iterator',
    'DummyIter',
]


# -- contexts and dtypes -------------------------------------------------------


def default_context():
    """The context tests run on (the current default context)."""
    return current_context()


def set_default_context(ctx):
    """Make ``ctx`` the default context for the rest of the thread."""
    Context._default.stack = [ctx]


def default_dtype():
    """The dtype test inputs are made in: float32."""
    return np.float32


def list_gpus():
    """``range(n)`` over the usable GPUs (empty without CuPy/CUDA)."""
    return range(num_gpus())


# -- random inputs -------------------------------------------------------------------


def random_arrays(*shapes):
    """Standard normal float32 NumPy arrays, one per shape (one array
    when one shape is given; ``()`` gives a 0-d array)."""
    arrays = [
        np.array(np.random.randn(), dtype=default_dtype())
        if len(s) == 0
        else np.random.randn(*s).astype(default_dtype())
        for s in shapes
    ]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes, low=0.0, high=1.0, dtype=None):
    """Uniform NumPy arrays in [low, high), one per shape (always a
    list)."""
    dtype = dtype or default_dtype()
    return [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]


def random_sample(population, k):
    """``k`` elements of the list ``population`` in random order."""
    assert 0 <= k <= len(population)
    population = population[:]
    np.random.shuffle(population)
    return population[0:k]


def rand_ndarray(
    shape,
    stype='default',
    density=None,
    dtype=None,
    modifier_func=None,
    shuffle_csr_indices=False,
    distribution=None,
    ctx=None,
):
    """A random NDArray of ``shape`` (float32 unless ``dtype``).

    ``stype='default'``: standard normal values.  ``'row_sparse'``: each
    row is stored with probability ``density`` (drawn in [0, 1) when
    omitted), its values uniform in [0, 1).  ``'csr'`` (2-D):
    ``density * size`` values uniform in [0, 1) at random places, or
    ``distribution='powerlaw'``: each row twice as full as the one
    before.  Draws use ``np.random``, as MXNet's (see
    ``dlbook.test_utils_sparse``).
    """
    if stype != 'default':
        from .test_utils_sparse import rand_sparse_ndarray

        arr, _ = rand_sparse_ndarray(
            shape,
            stype,
            density=density,
            modifier_func=modifier_func,
            dtype=dtype,
            shuffle_csr_indices=shuffle_csr_indices,
            distribution=distribution,
            ctx=ctx,
        )
        return arr
    return nd.array(
        random_arrays(shape), dtype=dtype, ctx=ctx or default_context()
    )


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    """A random 2-d shape with sizes in 1..dim (0..dim if allowed)."""
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    """A random 3-d shape with sizes in 1..dim (0..dim if allowed)."""
    low = 0 if allow_zero_size else 1
    return (
        rnd.randint(low, dim0 + 1),
        rnd.randint(low, dim1 + 1),
        rnd.randint(low, dim2 + 1),
    )


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    """A random shape with ``num_dim`` dimensions of size 1..dim."""
    low = 0 if allow_zero_size else 1
    return tuple(rnd.randint(low, dim + 1, size=num_dim))


def rand_coord_2d(x_low, x_high, y_low, y_high):
    """A random ``(x, y)``, ``x_low <= x < x_high`` and ``y_low <= y <
    y_high`` (int64)."""
    x = rnd.randint(x_low, x_high, dtype=np.int64)
    y = rnd.randint(y_low, y_high, dtype=np.int64)
    return x, y


# -- inputs of the large-tensor and linalg tests -------------------------------


def create_vector(size, dtype=np.int64):
    """``nd.arange(0, size)``: MXNet's large-vector tests fill with it."""
    return nd.arange(0, size, dtype=dtype)


def create_2d_tensor(rows, columns, dtype=np.int64):
    """A ``(rows, columns)`` NDArray whose row ``i`` is all ``i``."""
    a = nd.arange(0, rows, dtype=dtype).reshape(rows, 1)
    return nd.broadcast_to(a, shape=(a.shape[0], columns))


def get_identity_mat(size):
    """The ``size`` x ``size`` identity as a float32 NDArray."""
    return nd.array(np.eye(size, dtype=np.float32))


def get_identity_mat_batch(size):
    """Two identity matrices stacked: shape ``(2, size, size)``."""
    eye = np.eye(size, dtype=np.float32)
    return nd.array(np.stack([eye, eye]))


def new_matrix_with_real_eigvals_2d(n):
    """A random ``n`` x ``n`` float64 matrix with real eigenvalues in
    [-10, 10], well conditioned: ``Q^-1 D Q`` for a diagonal ``D`` and
    a ``Q`` (a reflection times a diagonal) of 2-norm condition below 3.
    Used to test ``linalg`` eig/inverse ops."""
    while True:
        d = np.diag(rnd.uniform(-1.0, 1.0, n))
        v = rnd.uniform(-1.0, 1.0, n).reshape(n, 1)
        v = v / np.linalg.norm(v, axis=-2, keepdims=True)
        q = np.matmul(np.eye(n) - 2 * np.matmul(v, v.T), d)
        if np.linalg.cond(q, 2) < 3:
            break
    d = np.diag(rnd.uniform(-10.0, 10.0, n))
    return np.matmul(np.matmul(np.linalg.inv(q), d), q)


def new_matrix_with_real_eigvals_nd(shape):
    """A batch of :func:`new_matrix_with_real_eigvals_2d` of ``shape``
    (``(..., n, n)``)."""
    n = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array(
        [new_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(n)]
    ).reshape(shape)


def new_orthonormal_matrix_2d(n):
    """A random ``n`` x ``n`` orthonormal matrix (QR of ``X^T X``)."""
    x = rnd.randn(n, n)
    return np.linalg.qr(np.matmul(x.T, x))[0]


def new_sym_matrix_with_real_eigvals_2d(n):
    """A random symmetric ``n`` x ``n`` matrix ``Q^T D Q``, eigenvalues
    uniform in [-10, 10]."""
    q = new_orthonormal_matrix_2d(n)
    d = np.diag(rnd.uniform(-10.0, 10.0, n))
    return np.matmul(np.matmul(q.T, d), q)


def new_sym_matrix_with_real_eigvals_nd(shape):
    """A batch of :func:`new_sym_matrix_with_real_eigvals_2d`."""
    n = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array(
        [new_sym_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(n)]
    ).reshape(shape)


def collapse_sum_like(a, shape):
    """Sum NumPy array ``a`` over the axes that ``shape`` broadcasts:
    the gradient of a broadcast back to the input's shape.

    Examples
    --------
    >>> collapse_sum_like(np.ones((2, 3, 4)), (3, 1)).tolist()
    [[8.0], [8.0], [8.0]]
    """
    assert len(a.shape) >= len(shape)
    if np.prod(shape) == 0 or a.size == 0:
        return np.zeros(shape, dtype=a.dtype)
    ndim_diff = len(a.shape) - len(shape)
    axes = list(range(ndim_diff))
    for i, s in enumerate(shape):
        if s != a.shape[i + ndim_diff]:
            assert s == 1
            axes.append(i + ndim_diff)
    return np.sum(a, axis=tuple(axes)).reshape(shape)


def compare_optimizer(
    opt1,
    opt2,
    shape,
    dtype,
    w_stype='default',
    g_stype='default',
    rtol=1e-4,
    atol=1e-5,
    compare_states=True,
    ntensors=1,
):
    """Check that two optimizers make the same update step.

    Both start from the same random weight and gradient (uniform in
    [0, 1)); their states are compared after creation and after one
    ``update_multi_precision``, then the weights.

    Parameters
    ----------
    opt1, opt2 : Optimizer
        E.g. a reference implementation and the one under test.
    shape : tuple, or list of tuples
        A list tests ``opt2`` updating ``ntensors`` tensors in one call
        against ``opt1`` updating them one by one.
    dtype : numpy dtype
    w_stype, g_stype : str
        Only ``'default'`` (dense) storage.
    rtol, atol : float
    compare_states : bool, default True
    """
    if w_stype != 'default' or g_stype != 'default':
        raise ValueError(
            'compare_optimizer: dlbook compares dense weights and '
            'gradients only (w_stype and g_stype must be "default")'
        )
    ctx = default_context()
    if not isinstance(shape, list):
        assert ntensors == 1
        w2 = random.uniform(shape=shape, ctx=ctx, dtype=dtype)
        w1 = w2.copyto(ctx)
        g2 = random.uniform(shape=shape, ctx=ctx, dtype=dtype)
        g1 = g2.copyto(ctx)
        state1 = opt1.create_state_multi_precision(0, w1)
        state2 = opt2.create_state_multi_precision(0, w2)
        if compare_states:
            compare_ndarray_tuple(state1, state2)
        opt1.update_multi_precision(0, w1, g1, state1)
        opt2.update_multi_precision(0, w2, g2, state2)
        if compare_states:
            compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
        assert_almost_equal(w1, w2, rtol=rtol, atol=atol)
        return
    w1 = tuple(random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    g1 = tuple(random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    w2 = tuple(w.copy() for w in w1)
    g2 = tuple(g.copy() for g in g1)
    state2 = [
        opt2.create_state_multi_precision(0, w2[i]) for i in range(ntensors)
    ]
    opt2.update_multi_precision(list(range(ntensors)), w2, g2, state2)
    for i in range(ntensors):
        state1 = opt1.create_state_multi_precision(i, w1[i])
        opt1.update_multi_precision(i, w1[i], g1[i], state1)
        if compare_states:
            compare_ndarray_tuple(state1, state2[i], rtol, atol)
        compare_ndarray_tuple(w1[i], w2[i], rtol, atol)


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """Reduce ``dat`` over ``axis`` (int, list or None) one axis at a
    time with ``numpy_reduce_func`` (``np.sum``, ``np.max`` ...)."""
    if isinstance(axis, int):
        axis = [axis]
    else:
        axis = list(axis) if axis is not None else range(len(dat.shape))
    ret = dat
    for i in reversed(sorted(axis)):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        shape = list(dat.shape)
        for i in axis:
            shape[i] = 1
        ret = ret.reshape(tuple(shape))
    return ret


# -- test control ----------------------------------------------------------------------


def retry(n):
    """Decorator: run a stochastic test up to ``n`` times; it fails only
    if every run raises AssertionError."""
    assert n > 0

    def decorate(f):
        def wrapper(*args, **kwargs):
            for i in range(n):
                try:
                    f(*args, **kwargs)
                    return
                except AssertionError:
                    if i == n - 1:
                        raise

        wrapper.__name__ = getattr(f, '__name__', 'wrapper')
        wrapper.__doc__ = f.__doc__
        return wrapper

    return decorate


@contextmanager
def environment(*args):
    """Set environment variables for a ``with`` block, then restore them.

    ``environment('NAME', 'value')`` or ``environment({'A': '1', 'B':
    None})`` (None unsets).  The old values come back even if the block
    raises.
    """
    if len(args) == 1 and isinstance(args[0], dict):
        env_vars = args[0]
    else:
        assert len(args) == 2, (
            'Expecting one dict arg or two args: env var name and value'
        )
        env_vars = {args[0]: args[1]}
    snapshot = {name: os.environ.get(name) for name in env_vars}

    def apply(values):
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    apply(env_vars)
    try:
        yield
    finally:
        apply(snapshot)


@contextmanager
def discard_stderr():
    """Silence everything written to standard error inside a ``with``
    block: Python's ``sys.stderr`` and C libraries writing to descriptor
    2 alike."""
    fds = {2}
    try:
        fds.add(sys.stderr.fileno())
    except (AttributeError, OSError, ValueError):
        pass  # sys.stderr without a descriptor (Jupyter): fd 2 only

    def flush():
        try:
            sys.stderr.flush()
        except (AttributeError, OSError, ValueError):
            pass

    flush()
    saved = {fd: os.dup(fd) for fd in sorted(fds)}
    with open(os.devnull, 'w') as bit_bucket:
        try:
            for fd in saved:
                os.dup2(bit_bucket.fileno(), fd)
            yield
        finally:
            flush()
            for fd, old in saved.items():
                os.dup2(old, fd)
                os.close(old)


def get_mnist(path=None):
    """MNIST as NumPy arrays: ``train_data`` (60000, 1, 28, 28) float32 in
    [0, 1], ``train_label`` (60000,), ``test_data``, ``test_label``.
    Files are found like ``gluon.data.vision.MNIST``'s (``path``,
    ``$DLBOOK_DATA/mnist``, the user cache) before any download."""
    from .test_utils_data import get_mnist as _get_mnist

    return _get_mnist() if path is None else _get_mnist(path=path)
