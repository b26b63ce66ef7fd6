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
"""

import os
import sys
from contextlib import contextmanager

import numpy as np
import numpy.random as rnd

from .context import Context, current_context, num_gpus
from .test_utils_compare import (  # noqa: F401  (mx.test_utils names)
    almost_equal,
    assert_allclose,
    assert_almost_equal,
    assert_exception,
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
    check_numeric_gradient,
    check_symbolic_backward,
    check_symbolic_forward,
    numeric_grad,
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
    from . import ndarray as nd

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
