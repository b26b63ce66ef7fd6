"""Every operator row checked through the ``nd`` front end and the tape.

For each row of ``cases.py``: the generated ``nd.<op>`` function matches
the NumPy reference on every context, dtypes are preserved, and the
gradient recorded by ``autograd`` matches float64 central differences
(with a random cotangent).
"""

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, nd
from dlbook.ops import REGISTRY
from tests.ops.cases import all_rows, count_arguments, make_inputs, numeric_vjp

ROWS = list(all_rows())
IDS = [f'{name}-{i}' for name, i, _ in ROWS]
RESERVED = {'ctx', 'out', 'name'}


def call(name, case, arrays, ctx, record_grads=()):
    """Run ``nd.<name>`` on ``arrays`` (NumPy) placed on ``ctx``.

    Returns (inputs as NDArrays, tuple of output NDArrays).  Inputs listed
    in ``record_grads`` get ``attach_grad`` and the call is recorded.
    """
    inputs = [nd.array(a, ctx=ctx, dtype=a.dtype) for a in arrays]
    for i in record_grads:
        inputs[i].attach_grad()
    mx.random.seed(0)  # sampling ops draw the same mask
    attrs = dict(case.attrs)
    if 'src_ctx' in attrs:  # _copyto: copy from the device under test
        attrs['src_ctx'] = ctx
    scope = (
        autograd.record(train_mode=case.is_train)
        if record_grads
        else (
            autograd.train_mode() if case.is_train else autograd.predict_mode()
        )
    )
    with scope:
        if RESERVED & set(attrs) or not hasattr(nd, name):
            out = nd.invoke(REGISTRY[name](**attrs), inputs, ctx=ctx)
        else:
            out = getattr(nd, name)(*inputs, **attrs)
    return inputs, (tuple(out) if isinstance(out, (list, tuple)) else (out,))


@pytest.mark.parametrize('name,index,case', ROWS, ids=IDS)
def test_nd_forward_matches_reference(name, index, case, ctx):
    arrays = make_inputs(case, 'float32')
    _, outs = call(name, case, arrays, ctx)
    moves = REGISTRY[name](**case.attrs).out_context
    for o in outs:
        assert o.context == (ctx if moves is None else moves(ctx))
    got = tuple(o.asnumpy() for o in outs)
    if case.check is not None:
        case.check(got, arrays)
        return
    want = case.ref(*arrays)
    want = tuple(want) if isinstance(want, (list, tuple)) else (want,)
    for g, w in zip(got, want):
        w = np.asarray(w)
        assert g.shape == w.shape
        np.testing.assert_allclose(
            g, w, rtol=case.rtol * 10, atol=case.atol * 10
        )


@pytest.mark.parametrize('name,index,case', ROWS, ids=IDS)
def test_nd_dtype_is_preserved(name, index, case, ctx):
    for dtype in case.dtypes:
        arrays = make_inputs(case, dtype)
        _, outs = call(name, case, arrays, ctx)
        if (
            any(a.dtype.kind == 'f' for a in arrays)
            and outs[0].dtype.kind == 'f'
        ):
            assert outs[0].dtype == np.dtype(dtype)


GRAD_ROWS = [
    (n, i, c)
    for n, i, c in ROWS
    if REGISTRY[n].differentiable and c.grad != ()
]


@pytest.mark.parametrize(
    'name,index,case', GRAD_ROWS, ids=[f'{n}-{i}' for n, i, _ in GRAD_ROWS]
)
def test_tape_gradient_matches_central_differences(name, index, case, ctx):
    arrays = make_inputs(case, 'float64')
    n_args = count_arguments(name, case, arrays)
    check = (
        case.grad
        if case.grad is not None
        else tuple(
            i for i, a in enumerate(arrays[:n_args]) if a.dtype.kind == 'f'
        )
    )
    inputs, outs = call(name, case, arrays, ctx, record_grads=check)
    rng = np.random.RandomState(1)
    cots = [rng.uniform(-1, 1, size=o.shape) for o in outs]
    autograd.backward(
        list(outs),
        [
            nd.array(c, ctx=o.context, dtype='float64')
            for c, o in zip(cots, outs)
        ],
    )

    def f(*xs):
        return tuple(o.asnumpy() for o in call(name, case, list(xs), ctx)[1])

    numeric = numeric_vjp(f, [a.copy() for a in arrays], cots)
    for i in check:
        np.testing.assert_allclose(
            inputs[i].grad.asnumpy(),
            numeric[i],
            rtol=1e-5,
            atol=1e-7,
            err_msg=f'input {i}',
        )
