"""Comparisons of ``mx.test_utils``: MXNet's per-dtype tolerances and
``assert_almost_equal`` with its message naming the worst element.

They sit in their own module, below both ``dlbook.test_utils`` (which
re-exports them) and ``dlbook.test_utils_symbolic`` (whose graph checks
compare with them), so neither of those has to import the other.
"""

import numbers

import numpy as np
import numpy.testing as npt

from .ndarray.ndarray import NDArray

_INTS = (
    'bool',
    'int8',
    'uint8',
    'int16',
    'uint16',
    'int32',
    'uint32',
    'int64',
    'uint64',
)


def default_rtols():
    """MXNet's relative tolerance per dtype (float16 1e-2, float32 1e-4,
    float64 1e-5, integers 0)."""
    tols = {
        np.dtype(np.float16): 1e-2,
        np.dtype(np.float32): 1e-4,
        np.dtype(np.float64): 1e-5,
    }
    tols.update({np.dtype(t): 0 for t in _INTS})
    return tols


def default_atols():
    """MXNet's absolute tolerance per dtype (float16 1e-1, float32 1e-3,
    float64 1e-20, integers 0)."""
    tols = {
        np.dtype(np.float16): 1e-1,
        np.dtype(np.float32): 1e-3,
        np.dtype(np.float64): 1e-20,
    }
    tols.update({np.dtype(t): 0 for t in _INTS})
    return tols


def default_numeric_eps():
    """Finite-difference step per dtype (powers of two, as MXNet)."""
    return {
        np.dtype(np.float16): 1.0 / 2**6,
        np.dtype(np.float32): 1.0 / 2**9,
        np.dtype(np.float64): 1.0 / 2**14,
    }


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
    rtol = max(
        get_tolerance(x, rtol, default_rtols()),
        get_tolerance(y, rtol, default_rtols()),
    )
    atol = max(
        get_tolerance(x, atol, default_atols()),
        get_tolerance(y, atol, default_atols()),
    )
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
        raise AssertionError(
            npt.build_err_msg(
                [a, b],
                err_msg=f'a.shape = {a.shape} and b.shape = {b.shape} '
                f'are not equal',
            )
        )


def almost_equal(
    a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True
):
    """True if ``|a - b| <= atol + rtol * |b|`` everywhere (defaults:
    float64's 1e-5 and 1e-20, as MXNet)."""
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast:
        _check_shapes(a, b)
    return np.allclose(
        a, b, rtol=get_rtol(rtol), atol=get_atol(atol), equal_nan=equal_nan
    )


def _find_max_violation(a, b, rtol, atol):
    """Index and size of the worst violation of the tolerance."""
    with np.errstate(invalid='ignore'):
        absdiff = np.where(np.equal(a, b), 0, np.abs(a - b))
    violation = absdiff / (atol + rtol * np.abs(b) + 1e-20)
    idx = np.unravel_index(np.argmax(violation), violation.shape)
    return tuple(int(i) for i in idx), np.max(violation)


def _location(a, b, index, names, maximum=False):
    word = 'maximum ' if maximum else ''
    return (
        f'Location of {word}error: {index}, {names[0]}={a[index]:.8f}, '
        f'{names[1]}={b[index]:.8f}'
    )


def assert_almost_equal(
    a,
    b,
    rtol=None,
    atol=None,
    names=('a', 'b'),
    equal_nan=False,
    use_broadcast=True,
    mismatches=(10, 10),
):
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
        print(
            f'\n*** Maximum errors for vector of size {a.size}:  '
            f'rtol={rtol}, atol={atol}\n'
        )
        a_left, b_left = a.copy(), b.copy()
        i = 1
        while i <= a.size:
            if i <= mismatches[0]:
                print(
                    '%3d: Error %f  %s'
                    % (i, rel, _location(a, b, index, names))
                )
            a_left[index] = b_left[index] = 0
            if np.allclose(
                a_left, b_left, rtol=rtol, atol=atol, equal_nan=equal_nan
            ):
                break
            i += 1
            if i <= mismatches[1] or mismatches[1] <= 0:
                index, rel = _find_max_violation(a_left, b_left, rtol, atol)
            else:
                break
        degree = 'at least ' if 0 < mismatches[1] < i else ''
        msg = (
            'Error %f exceeds tolerance rtol=%e, atol=%e (mismatch '
            '%s%f%%).\n%s'
            % (
                worst_rel,
                rtol,
                atol,
                degree,
                100 * i / a.size,
                _location(a, b, worst, names, True),
            )
        )
    else:
        msg = 'Error %f exceeds tolerance rtol=%e, atol=%e.\n' % (
            rel,
            rtol,
            atol,
        )
    with np.printoptions(threshold=4, suppress=True):
        raise AssertionError(npt.build_err_msg([a, b], err_msg=msg))


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """``numpy.testing.assert_allclose`` on NDArrays or arrays."""
    npt.assert_allclose(
        _as_numpy(a), _as_numpy(b), rtol=rtol, atol=atol, equal_nan=equal_nan
    )


def assert_exception(f, exception_type, *args, **kwargs):
    """Assert that ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError(f'{f} did not raise {exception_type.__name__}')


def assert_almost_equal_with_err(
    a,
    b,
    rtol=None,
    atol=None,
    etol=None,
    names=('a', 'b'),
    equal_nan=False,
    mismatches=(10, 10),
):
    """Like :func:`assert_almost_equal`, but pass while at most a
    fraction ``etol`` of the elements is out of tolerance.

    Parameters
    ----------
    etol : float, optional
        The error rate allowed (default :func:`get_etol`: 0, every
        element must be close).

    For results that may differ in a few elements (a random mask, an
    ``argmax`` tie); the message on failure is ``assert_almost_equal``'s.
    """
    etol = get_etol(etol)
    if etol > 0:
        rtol, atol = get_tols(a, b, rtol, atol)
        equals = np.isclose(
            _as_numpy(a),
            _as_numpy(b),
            rtol=rtol,
            atol=atol,
            equal_nan=equal_nan,
        )
        if 1 - np.count_nonzero(equals) / equals.size <= etol:
            return
    assert_almost_equal(
        a,
        b,
        rtol=rtol,
        atol=atol,
        names=names,
        equal_nan=equal_nan,
        mismatches=mismatches,
    )


def assert_almost_equal_ignore_nan(
    a, b, rtol=None, atol=None, names=('a', 'b')
):
    """:func:`assert_almost_equal` where either array is NaN: those
    positions are set to 0 in both (copies) before comparing."""
    a = np.copy(_as_numpy(a))
    b = np.copy(_as_numpy(b))
    nan_mask = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan_mask] = 0
    b[nan_mask] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def same_array(array1, array2):
    """Whether two NDArrays of the same shape share memory: adds 1 to
    ``array1``, looks whether ``array2`` changed, then undoes it.  A view
    of another shape (``x[0:1]``, ``x.reshape(...)``) gives False, as in
    MXNet: the values are compared whole.

    Examples
    --------
    >>> x = mx.nd.zeros((2, 3))
    >>> same_array(x, x), same_array(x, x.copy()), same_array(x, x[0:1])
    (True, False, False)
    """
    array1[:] += 1
    if not same(array1.asnumpy(), array2.asnumpy()):
        array1[:] -= 1
        return False
    array1[:] -= 1
    return same(array1.asnumpy(), array2.asnumpy())


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """:func:`assert_almost_equal` on two (nested) tuples of arrays, such
    as optimizer states; nothing to check if either is None."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for s1, s2 in zip(t1, t2):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)
