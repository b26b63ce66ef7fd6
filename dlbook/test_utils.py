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

import numbers
import os
import sys
from contextlib import contextmanager

import numpy as np
import numpy.random as rnd
import numpy.testing as npt

from .context import Context, current_context, num_gpus
from .ndarray.ndarray import NDArray

__all__ = ['default_context', 'set_default_context', 'default_dtype',
           'list_gpus', 'default_rtols', 'default_atols',
           'default_numeric_eps', 'effective_dtype', 'get_tolerance',
           'get_tols', 'get_rtol', 'get_atol', 'get_etol',
           'assert_almost_equal', 'almost_equal', 'same', 'assert_exception',
           'assert_allclose', 'random_arrays', 'random_uniform_arrays',
           'random_sample', 'rand_ndarray', 'rand_shape_2d', 'rand_shape_3d',
           'rand_shape_nd', 'np_reduce', 'retry', 'environment',
           'discard_stderr', 'get_mnist', 'numeric_grad',
           'check_numeric_gradient', 'check_symbolic_forward',
           'check_symbolic_backward', 'check_consistency', 'simple_forward',
           'rand_sparse_ndarray', 'shuffle_csr_column_indices',
           'assign_each', 'assign_each2',
           'verify_generator', 'chi_square_check',
           'gen_buckets_probs_with_ppf', 'mean_check', 'var_check']


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


_INTS = ('bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32',
         'int64', 'uint64')


def default_rtols():
    """MXNet's relative tolerance per dtype (float16 1e-2, float32 1e-4,
    float64 1e-5, integers 0)."""
    tols = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4,
            np.dtype(np.float64): 1e-5}
    tols.update({np.dtype(t): 0 for t in _INTS})
    return tols


def default_atols():
    """MXNet's absolute tolerance per dtype (float16 1e-1, float32 1e-3,
    float64 1e-20, integers 0)."""
    tols = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3,
            np.dtype(np.float64): 1e-20}
    tols.update({np.dtype(t): 0 for t in _INTS})
    return tols


def default_numeric_eps():
    """Finite-difference step per dtype (powers of two, as MXNet)."""
    return {np.dtype(np.float16): 1.0 / 2 ** 6,
            np.dtype(np.float32): 1.0 / 2 ** 9,
            np.dtype(np.float64): 1.0 / 2 ** 14}


def effective_dtype(dat):
    """The dtype that decides ``dat``'s comparison tolerance.

    MXNet returns float16 for float32 data on Ampere GPUs with TF32 on;
    dlbook's CuPy matrix products keep full float32, so this is simply
    ``dat``'s dtype.
    """
    return np.dtype(dat.dtype)


def get_tolerance(dat, tol, default_tol):
    """``tol`` if it is a number, else its (or the default) entry for
    ``dat``'s dtype."""
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat)
    tol = {} if tol is None else tol
    return tol.get(dtype, default_tol[dtype])


def get_tols(x, y, rtol, atol):
    """``(rtol, atol)`` for comparing ``x`` and ``y``: the given ones, or
    the looser default of their two dtypes."""
    if isinstance(x, numbers.Number):
        x = np.array(x)
    if isinstance(y, numbers.Number):
        y = np.array(y)
    rtol = max(get_tolerance(x, rtol, default_rtols()),
               get_tolerance(y, rtol, default_rtols()))
    atol = max(get_tolerance(x, atol, default_atols()),
               get_tolerance(y, atol, default_atols()))
    return rtol, atol


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """``rtol``, or the default for ``dtype`` (float64: 1e-5)."""
    return default_rtols()[dtype] if rtol is None else rtol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """``atol``, or the default for ``dtype`` (float64: 1e-20)."""
    return default_atols()[dtype] if atol is None else atol


def get_etol(etol=None):
    """The tolerated fraction of mismatching elements (default 0)."""
    return 0 if etol is None else etol


# -- comparisons -------------------------------------------------------------------

def _as_numpy(a):
    if isinstance(a, NDArray):
        return a.asnumpy()
    return np.asarray(a)


def same(a, b):
    """True if ``a`` and ``b`` have the same shape and values."""
    return np.array_equal(_as_numpy(a), _as_numpy(b))


def _check_shapes(a, b):
    if a.shape != b.shape:
        raise AssertionError(npt.build_err_msg(
            [a, b], err_msg=f'a.shape = {a.shape} and b.shape = {b.shape} '
                            f'are not equal'))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False,
                 use_broadcast=True):
    """True if ``|a - b| <= atol + rtol * |b|`` everywhere (defaults:
    float64's 1e-5 and 1e-20, as MXNet)."""
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast:
        _check_shapes(a, b)
    return np.allclose(a, b, rtol=get_rtol(rtol), atol=get_atol(atol),
                       equal_nan=equal_nan)


def _find_max_violation(a, b, rtol, atol):
    """Index and size of the worst violation of the tolerance."""
    with np.errstate(invalid='ignore'):
        absdiff = np.where(np.equal(a, b), 0, np.abs(a - b))
    violation = absdiff / (atol + rtol * np.abs(b) + 1e-20)
    idx = np.unravel_index(np.argmax(violation), violation.shape)
    return tuple(int(i) for i in idx), np.max(violation)


def _location(a, b, index, names, maximum=False):
    word = 'maximum ' if maximum else ''
    return (f'Location of {word}error: {index}, {names[0]}={a[index]:.8f}, '
            f'{names[1]}={b[index]:.8f}')


def assert_almost_equal(a, b, rtol=None, atol=None, names=('a', 'b'),
                        equal_nan=False, use_broadcast=True,
                        mismatches=(10, 10)):
    """Raise AssertionError unless ``|a - b| <= atol + rtol * |b|``.

    Parameters
    ----------
    a, b : NDArray, numpy.ndarray or number
    rtol, atol : float or dict of dtype -> float, optional
        Default: the looser of the two dtypes' MXNet defaults (float32:
        1e-4 and 1e-3).
    names : (str, str)
        How the message names ``a`` and ``b``.
    equal_nan : bool
        Whether NaN equals NaN.
    use_broadcast : bool
        False: the shapes must be equal.
    mismatches : (int, int)
        How many mismatching elements to print, and to count.

    The message, as MXNet's, gives the worst error relative to the
    tolerance and where it is (``Location of maximum error: (1, 0),
    a=3.00000000, b=3.50000000``); the worst few elements are printed.
    """
    if not use_broadcast:
        _check_shapes(_as_numpy(a), _as_numpy(b))
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _as_numpy(a), _as_numpy(b)
    if a.dtype == np.bool_ and b.dtype == np.bool_:
        np.testing.assert_equal(a, b)
        return
    if np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    a, b = np.broadcast_arrays(a, b)
    index, rel = _find_max_violation(a, b, rtol, atol)
    if index != ():
        worst, worst_rel = index, rel
        print(f'\n*** Maximum errors for vector of size {a.size}:  '
              f'rtol={rtol}, atol={atol}\n')
        a_left, b_left = a.copy(), b.copy()
        i = 1
        while i <= a.size:
            if i <= mismatches[0]:
                print('%3d: Error %f  %s' % (i, rel,
                                             _location(a, b, index, names)))
            a_left[index] = b_left[index] = 0
            if np.allclose(a_left, b_left, rtol=rtol, atol=atol,
                           equal_nan=equal_nan):
                break
            i += 1
            if i <= mismatches[1] or mismatches[1] <= 0:
                index, rel = _find_max_violation(a_left, b_left, rtol, atol)
            else:
                break
        degree = 'at least ' if 0 < mismatches[1] < i else ''
        msg = ('Error %f exceeds tolerance rtol=%e, atol=%e (mismatch '
               '%s%f%%).\n%s' % (worst_rel, rtol, atol, degree,
                                  100 * i / a.size,
                                  _location(a, b, worst, names, True)))
    else:
        msg = 'Error %f exceeds tolerance rtol=%e, atol=%e.\n' % (
            rel, rtol, atol)
    with np.printoptions(threshold=4, suppress=True):
        raise AssertionError(npt.build_err_msg([a, b], err_msg=msg))


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """``numpy.testing.assert_allclose`` on NDArrays or arrays."""
    npt.assert_allclose(_as_numpy(a), _as_numpy(b), rtol=rtol, atol=atol,
                        equal_nan=equal_nan)


def assert_exception(f, exception_type, *args, **kwargs):
    """Assert that ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError(f'{f} did not raise {exception_type.__name__}')


# -- random inputs -------------------------------------------------------------------

def random_arrays(*shapes):
    """Standard normal float32 NumPy arrays, one per shape (one array
    when one shape is given; ``()`` gives a 0-d array)."""
    arrays = [np.array(np.random.randn(), dtype=default_dtype())
              if len(s) == 0 else
              np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes, low=0.0, high=1.0, dtype=None):
    """Uniform NumPy arrays in [low, high), one per shape (always a
    list)."""
    dtype = dtype or default_dtype()
    return [np.random.uniform(low, high, size=s).astype(dtype)
            for s in shapes]


def random_sample(population, k):
    """``k`` elements of the list ``population`` in random order."""
    assert 0 <= k <= len(population)
    population = population[:]
    np.random.shuffle(population)
    return population[0:k]


def rand_ndarray(shape, stype='default', density=None, dtype=None,
                 modifier_func=None, shuffle_csr_indices=False,
                 distribution=None, ctx=None):
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
            shape, stype, density=density, modifier_func=modifier_func,
            dtype=dtype, shuffle_csr_indices=shuffle_csr_indices,
            distribution=distribution, ctx=ctx)
        return arr
    from . import ndarray as nd
    return nd.array(random_arrays(shape), dtype=dtype,
                    ctx=ctx or default_context())


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    """A random 2-d shape with sizes in 1..dim (0..dim if allowed)."""
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    """A random 3-d shape with sizes in 1..dim (0..dim if allowed)."""
    low = 0 if allow_zero_size else 1
    return (rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1),
            rnd.randint(low, dim2 + 1))


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
        assert len(args) == 2, ('Expecting one dict arg or two args: env var '
                                'name and value')
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
        pass      # sys.stderr without a descriptor (Jupyter): fd 2 only

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


from .test_utils_symbolic import (numeric_grad, check_numeric_gradient,  # noqa
                                  check_symbolic_forward,
                                  check_symbolic_backward,
                                  check_consistency, simple_forward)
from .test_utils_sparse import (rand_sparse_ndarray,  # noqa: E402,F401
                                shuffle_csr_column_indices, assign_each,
                                assign_each2)
from .test_utils_stats import (verify_generator, chi_square_check,  # noqa
                               gen_buckets_probs_with_ppf, mean_check,
                               var_check)
