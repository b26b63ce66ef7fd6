"""``nd`` == ``sym``: every operator row run through a bound graph.

For each row of ``cases.py`` that has inputs, the operator is built with
``sym.<name>`` on variables, bound with ``simple_bind`` and run forward
(and backward with a random cotangent); outputs, updated auxiliary
states and input gradients must equal the eager ``nd`` results and the
gradients the autograd tape records.  Both sides run the same operator
class, so the tolerances are tight.
"""

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, nd, sym
from dlbook.ops import REGISTRY
from tests.ops.cases import all_rows, count_arguments, make_inputs
from tests.ops.test_op_table import call

# Operators without inputs (creation, sampling from nothing) have no
# variables to bind; operators whose output shape depends on the values
# (``_npi_nonzero``, ``_npi_unique``) cannot have their shapes inferred.
ROWS = [
    (n, i, c)
    for n, i, c in all_rows()
    if (c.shapes or c.make_inputs is not None)
    and not getattr(REGISTRY[n], 'dynamic_shape', False)
]
IDS = [f'{name}-{i}' for name, i, _ in ROWS]


def _attrs(case, ctx):
    attrs = dict(case.attrs)
    if 'src_ctx' in attrs:  # _copyto: copy from the device under test
        attrs['src_ctx'] = ctx
    return attrs


def build(name, case, arrays, ctx):
    """The row's operator as a symbol on variables ``x0``, ``x1``...;
    returns (symbol, variable names)."""
    names = [f'x{i}' for i in range(len(arrays))]
    variables = [sym.var(n) for n in names]
    out = getattr(sym, name)(*variables, name='op', **_attrs(case, ctx))
    return out, names


def bind(name, case, arrays, ctx, grad_inputs=()):
    out, names = build(name, case, arrays, ctx)
    shapes = dict(zip(names, (a.shape for a in arrays)))
    types = dict(zip(names, (a.dtype for a in arrays)))
    reqs = {
        n: ('write' if i in grad_inputs else 'null')
        for i, n in enumerate(names)
    }
    exe = out.simple_bind(ctx, grad_req=reqs, type_dict=types, **shapes)
    args = exe.arg_dict
    aux = exe.aux_dict
    for n, a in zip(names, arrays):
        target = args[n] if n in args else aux[n]
        assert target.shape == a.shape and target.dtype == a.dtype, n
        target[:] = nd.array(a, ctx=target.context, dtype=a.dtype)
    return exe, names


def test_every_row_with_inputs_is_checked():
    # the guard against silently skipping everything
    assert len(ROWS) > 300
    assert {
        'FullyConnected',
        'Convolution',
        'BatchNorm',
        'Concat',
        'SoftmaxOutput',
    } <= {n for n, _, _ in ROWS}


@pytest.mark.parametrize('name,index,case', ROWS, ids=IDS)
def test_sym_forward_matches_nd(name, index, case, ctx):
    arrays = make_inputs(case, 'float32')
    exe, names = bind(name, case, arrays, ctx)
    eager_inputs, want = call(name, case, [a.copy() for a in arrays], ctx)
    mx.random.seed(0)  # sampling ops draw the same numbers
    got = exe.forward(is_train=case.is_train)
    assert len(got) == len(want)
    assert exe.outputs is got
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        assert g.context == w.context
        np.testing.assert_allclose(
            g.asnumpy(), w.asnumpy(), rtol=1e-6, atol=1e-7
        )
    # auxiliary states (BatchNorm's moving statistics) are updated alike
    n_args = count_arguments(name, case, arrays)
    for n, x in zip(names[n_args:], eager_inputs[n_args:]):
        np.testing.assert_allclose(
            exe.aux_dict[n].asnumpy(),
            x.asnumpy(),
            rtol=1e-6,
            atol=1e-7,
            err_msg=n,
        )


def _checked_inputs(name, case, arrays):
    if case.grad:
        return tuple(case.grad)
    n_args = count_arguments(name, case, arrays)
    return tuple(
        i for i, a in enumerate(arrays[:n_args]) if a.dtype.kind == 'f'
    )


GRAD_ROWS = [
    (n, i, c)
    for n, i, c in ROWS
    if REGISTRY[n].differentiable and (c.grad is None or len(c.grad))
]


@pytest.mark.parametrize(
    'name,index,case', GRAD_ROWS, ids=[f'{n}-{i}' for n, i, _ in GRAD_ROWS]
)
def test_sym_backward_matches_tape(name, index, case, ctx):
    dtype = 'float64' if 'float64' in case.dtypes else 'float32'
    arrays = make_inputs(case, dtype)
    check = _checked_inputs(name, case, arrays)
    if not check:
        pytest.skip('no floating input to differentiate')
    exe, names = bind(name, case, arrays, ctx, grad_inputs=check)
    inputs, outs = call(
        name, case, [a.copy() for a in arrays], ctx, record_grads=check
    )
    rng = np.random.RandomState(1)
    cots = [
        nd.array(
            rng.uniform(-1, 1, size=o.shape), ctx=o.context, dtype=o.dtype
        )
        for o in outs
    ]
    autograd.backward(list(outs), cots)
    mx.random.seed(0)
    exe.forward(is_train=case.is_train)
    exe.backward(cots)
    tol = (
        {'rtol': 1e-6, 'atol': 1e-7}
        if dtype == 'float32'
        else {'rtol': 1e-12, 'atol': 1e-12}
    )
    for i in check:
        got = exe.grad_dict[names[i]]
        assert got.context == inputs[i].context
        np.testing.assert_allclose(
            got.asnumpy(),
            inputs[i].grad.asnumpy(),
            err_msg=f'input {i}',
            **tol,
        )
    for n in names:
        if names.index(n) not in check:
            assert n not in exe.grad_dict


@pytest.mark.parametrize(
    'name,index,case',
    [
        r
        for r in ROWS
        if REGISTRY[r[0]].differentiable
        and r[0]
        in (
            'SoftmaxOutput',
            'LinearRegressionOutput',
            'LogisticRegressionOutput',
            'MAERegressionOutput',
            'MakeLoss',
        )
    ],
    ids=lambda v: str(v)[:30],
)
def test_loss_outputs_ignore_head_gradient_like_the_tape(
    name, index, case, ctx
):
    """Loss-output rows have ``grad=()`` in the table (their backward is
    not a vjp); the graph and the tape must still agree."""
    arrays = make_inputs(case, 'float64')
    exe, _ = bind(name, case, arrays, ctx, grad_inputs=(0,))
    inputs, outs = call(
        name, case, [a.copy() for a in arrays], ctx, record_grads=(0,)
    )
    autograd.backward(list(outs))
    exe.forward(is_train=True)
    exe.backward()
    np.testing.assert_allclose(
        exe.grad_dict['x0'].asnumpy(),
        inputs[0].grad.asnumpy(),
        rtol=1e-12,
        atol=1e-12,
    )
