"""The operators layer-wise and mixed-precision training compute around an
update: ``nd.multi_sum_sq``, ``nd.multi_lars``, ``nd.all_finite`` and
``nd.multi_all_finite``.

LARS, with its rates kept on the device from start to end::

    sums = nd.multi_sum_sq(w0, w1, num_arrays=2)      # ||w||^2 per layer
    grad_sums = nd.multi_sum_sq(g0, g1, num_arrays=2)
    rates = nd.multi_lars(lrs, sums, grad_sums, wds, eta=0.001, eps=0)
    nd.preloaded_multi_sgd_update(w0, g0, w1, g1, rates, wds,
                                  num_weights=2, out=[w0, w1])

and loss scaling, which skips a step whose float16 gradients overflowed::

    if nd.multi_all_finite(g0, g1, num_arrays=2).asscalar():
        ...   # step; otherwise lower the scale

Every result is a float32 NDArray.  The formulas are in
``dlbook/ops/update_rules/norms.py``.
"""

import numpy

from ..base import DLBookError
from ..ops.update_rules import norms
from .ndarray import NDArray, from_raw
from .updates import _deliver, _required

__all__ = ['multi_sum_sq', 'multi_lars', 'all_finite', 'multi_all_finite']


def _arrays(name, data, num_arrays):
    """``data``: ``num_arrays`` NDArrays of one float dtype on one
    context."""
    if len(data) != num_arrays:
        raise DLBookError(
            f'{name}: num_arrays={num_arrays}, got {len(data)} arrays'
        )
    for i, x in enumerate(data):
        if not isinstance(x, NDArray):
            raise DLBookError(
                f'{name}: array {i} must be an NDArray, got {type(x).__name__}'
            )
        if numpy.dtype(x.dtype).kind != 'f':
            raise DLBookError(
                f'{name}: array {i} is {numpy.dtype(x.dtype).name}; only '
                f'floating-point arrays are taken'
            )
        if x.dtype != data[0].dtype or x.context != data[0].context:
            raise DLBookError(
                f'{name}: array {i} is {numpy.dtype(x.dtype).name} on '
                f'{x.context}, array 0 {numpy.dtype(data[0].dtype).name} on '
                f'{data[0].context}; all must share one dtype and context'
            )


def multi_sum_sq(*data, num_arrays=None, out=None, name=None):
    """The sum of squares of each array, ``sum(x**2)``, as a float32
    array of shape ``(num_arrays,)``: the squared L2 norms LARS needs.

    ``num_arrays`` (required, as in MXNet) says how many arrays follow;
    they share one float dtype (float16 is summed in float32).
    """
    _required('multi_sum_sq', num_arrays=num_arrays)
    _arrays('multi_sum_sq', data, num_arrays)
    if not data:
        raise DLBookError('multi_sum_sq: no arrays')
    xp = data[0].context.backend.xp
    sums = [norms.sum_of_squares(xp, x._data) for x in data]
    result = xp.stack(sums).astype(numpy.float32, copy=False)
    return _deliver(from_raw(result, data[0].context), out)


def multi_lars(
    lrs,
    weights_sum_sq,
    grads_sum_sq,
    wds,
    eta=None,
    eps=None,
    rescale_grad=1.0,
    out=None,
    name=None,
):
    """LARS's learning rate for each layer, element by element::

        rate = lr * eta * ||w|| / (||g|| * rescale_grad + wd * ||w|| + eps)

    with ``||w|| = sqrt(weights_sum_sq)``, ``||g|| = sqrt(grads_sum_sq)``
    (:func:`multi_sum_sq`'s results), where both are above 0; ``rate =
    lr`` elsewhere.  The four arrays are float32, of one shape, which the
    result has too.  ``eta`` and ``eps`` are required, as in MXNet.
    """
    _required('multi_lars', eta=eta, eps=eps)
    arrays = {
        'lrs': lrs,
        'weights_sum_sq': weights_sum_sq,
        'grads_sum_sq': grads_sum_sq,
        'wds': wds,
    }
    for key, x in arrays.items():
        if not isinstance(x, NDArray):
            raise DLBookError(
                f'multi_lars: {key} must be an NDArray, got {type(x).__name__}'
            )
        if x.dtype != numpy.float32:
            raise DLBookError(
                f'multi_lars: {key} is {numpy.dtype(x.dtype).name}; '
                f'multi_lars takes float32 only'
            )
        if x.shape != lrs.shape or x.context != lrs.context:
            raise DLBookError(
                f'multi_lars: {key} has shape {x.shape} on {x.context}, '
                f'lrs {lrs.shape} on {lrs.context}'
            )
    rates = norms.lars_rates(
        lrs.context.backend.xp,
        *(x._data for x in arrays.values()),
        eta,
        eps,
        rescale_grad,
    )
    return _deliver(from_raw(rates, lrs.context), out)


def _finite(name, data, init_output, out):
    """1.0 (float32, shape ``(1,)``) if every element of ``data`` is
    finite, else 0.0.  With ``init_output=False`` the result starts from
    ``out``'s value instead of 1: a check over several calls."""
    ctx = data[0].context
    xp = ctx.backend.xp
    finite = norms.all_finite(xp, [x._data for x in data])
    if init_output or out is None:
        result = finite.astype(numpy.float32).reshape(1)
    else:
        if not isinstance(out, NDArray) or out.size != 1:
            raise DLBookError(f'{name}: out must be a one-element NDArray')
        result = xp.where(finite, out._data, 0).astype(numpy.float32)
        result = result.reshape(out.shape)
    return _deliver(from_raw(result, ctx), out)


def all_finite(data, init_output=True, out=None, name=None):
    """Whether every element of ``data`` is finite (no NaN, no infinity):
    ``[1.]`` or ``[0.]`` as a float32 array of shape ``(1,)``, computed on
    the device.

    With ``init_output=False`` a finite ``data`` leaves ``out`` as it was
    and any other sets it to 0, so one ``out`` can gather the checks of
    several calls (as MXNet; without ``out`` the check starts from 1).
    """
    _arrays('all_finite', [data], 1)
    return _finite('all_finite', [data], init_output, out)


def multi_all_finite(
    *data, num_arrays=1, init_output=True, out=None, name=None
):
    """:func:`all_finite` over ``num_arrays`` arrays (of one dtype): 1 only
    if every element of every array is finite."""
    _arrays('multi_all_finite', data, num_arrays)
    if not data:
        raise DLBookError('multi_all_finite: no arrays')
    return _finite('multi_all_finite', data, init_output, out)
