"""Operator rows checked directly on the registry classes with NumPy as xp.

These run without any front end: they test each operator's own forward and
gradient rules.  ``test_op_table.py`` checks the same rows through ``nd``.
"""

import numpy as np
import pytest

from dlbook.ops import REGISTRY
from tests.ops.cases import (
    CASES,
    all_rows,
    count_arguments,
    make_inputs,
    numeric_vjp,
)

ROWS = list(all_rows())
IDS = [f'{name}-{i}' for name, i, _ in ROWS]


def run(name, case, arrays):
    """Forward once; return (op, tuple of outputs).  Inputs are copied so
    operators that update aux states in place cannot disturb the caller."""
    op = REGISTRY[name](**case.attrs)
    op.is_train = case.is_train
    op.rng = np.random.RandomState(0)
    out = op.forward(np, *[a.copy() for a in arrays])
    return op, (tuple(out) if isinstance(out, (tuple, list)) else (out,))


def as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


#: Operators on sparse storage: the case tables feed dense arrays, so
#: these are checked (forward and gradient) in tests/sparse instead.
TESTED_IN_SPARSE = {'cast_storage', '_sparse_retain'}


def test_every_op_has_a_case():
    covered = {REGISTRY[name] for name in CASES if name in REGISTRY}
    missing = sorted(
        {cls.name for cls in REGISTRY.values()}
        - {cls.name for cls in covered}
        - TESTED_IN_SPARSE
    )
    assert not missing, f'operators without a test row: {missing}'


def test_case_names_are_registered():
    unknown = sorted(set(CASES) - set(REGISTRY))
    assert not unknown, f'rows for unregistered operators: {unknown}'


@pytest.mark.parametrize('name,index,case', ROWS, ids=IDS)
def test_forward_matches_reference(name, index, case):
    arrays = make_inputs(case, 'float32')
    _, outs = run(name, case, arrays)
    if case.check is not None:
        case.check(outs, arrays)
        return
    expected = as_tuple(case.ref(*arrays))
    assert len(outs) == len(expected)
    for got, want in zip(outs, expected):
        want = np.asarray(want)
        assert got.shape == want.shape, (got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=case.rtol, atol=case.atol)


@pytest.mark.parametrize('name,index,case', ROWS, ids=IDS)
def test_dtype_is_preserved(name, index, case):
    for dtype in case.dtypes:
        arrays = make_inputs(case, dtype)
        _, outs = run(name, case, arrays)
        floating = [a for a in arrays if a.dtype.kind == 'f']
        if floating and outs[0].dtype.kind == 'f':
            assert outs[0].dtype == floating[0].dtype, (outs[0].dtype, dtype)


GRAD_ROWS = [
    (n, i, c)
    for n, i, c in ROWS
    if REGISTRY[n].differentiable and c.grad != ()
]


@pytest.mark.parametrize(
    'name,index,case', GRAD_ROWS, ids=[f'{n}-{i}' for n, i, _ in GRAD_ROWS]
)
def test_gradient_matches_central_differences(name, index, case):
    arrays = make_inputs(case, 'float64')
    n_args = count_arguments(name, case, arrays)
    check = (
        case.grad
        if case.grad is not None
        else tuple(
            i for i, a in enumerate(arrays[:n_args]) if a.dtype.kind == 'f'
        )
    )
    op, outs = run(name, case, arrays)
    rng = np.random.RandomState(1)
    cots = [rng.uniform(-1, 1, size=o.shape) for o in outs]
    analytic = as_tuple(op.backward(np, *cots))
    assert len(analytic) == len(arrays), (
        f'backward returned {len(analytic)} gradients for {len(arrays)} inputs'
    )

    def f(*xs):
        return run(name, case, list(xs))[1]

    numeric = numeric_vjp(f, [a.copy() for a in arrays], cots)
    for i in check:
        assert analytic[i] is not None, f'no gradient for input {i}'
        assert analytic[i].shape == arrays[i].shape
        np.testing.assert_allclose(
            analytic[i], numeric[i], rtol=1e-5, atol=1e-7, err_msg=f'input {i}'
        )
