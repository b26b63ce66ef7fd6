"""The operator case table: one row (or a list of rows) per operator.

Each family of operators keeps its rows in ``cases_<family>.py`` as a dict
``CASES = {'op_name': Case(...)}``; this module merges them.  The tests in
``test_op_table.py`` derive every check from a row:

1. forward against the NumPy reference ``ref`` (float32);
2. backward against float64 central differences of ``sum(f(x) * cot)``
   with a random cotangent ``cot`` (catches transposed or mis-broadcast
   gradients that ``.sum()`` would hide);
3. dtype preservation for float32 and float64;
4. the ``nd`` front end and the autograd tape against the same numbers.

A registered operator without a row fails ``test_every_op_has_a_case``.
"""

import importlib
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np


@dataclass
class Case:
    """One test row for an operator.

    shapes : input shapes, in the operator's input order.
    attrs : operator attributes (``{'axis': 1}``).
    ref : NumPy reference, ``ref(*inputs) -> array or tuple of arrays``.
    low, high : inputs are drawn uniformly from ``[low, high)``.
    avoid : values inputs keep at least ``margin`` away from (kinks of
        ``relu``/``abs``, discontinuities of ``floor``).
    make_inputs : ``make_inputs(rng, dtype) -> list of arrays``; replaces the
        uniform draw (integer indices, labels, positive-definite inputs).
    grad : indices of the inputs whose gradient is checked; ``None`` means
        all floating inputs; ``()`` means no gradient check.
    dtypes : float dtypes for the dtype-preservation check.
    is_train : run the operator in training mode.
    rtol, atol : forward tolerances in float32.
    check : custom check ``check(outputs, inputs)`` for operators without a
        deterministic reference (random sampling); replaces ``ref``.
    """

    shapes: list
    attrs: dict = field(default_factory=dict)
    ref: Optional[Callable] = None
    low: float = -1.0
    high: float = 1.0
    avoid: tuple = ()
    margin: float = 0.05
    make_inputs: Optional[Callable] = None
    grad: Optional[tuple] = None
    dtypes: tuple = ('float32', 'float64')
    is_train: bool = False
    rtol: float = 1e-5
    atol: float = 1e-6
    check: Optional[Callable] = None


FAMILIES = (
    'creation',
    'device',
    'elemwise',
    'reduce',
    'shape',
    'index',
    'linalg',
    'nn',
    'activation',
    'norm',
    'conv',
    'pool',
    'upsampling',
    'random',
    'loss_output',
    'ctc',
    'rnn',
    'numpy',
    'numpy_graph',
    'numpy_more',
    'numpy_last',
    'detection',
    'image',
    'custom',
    'contrib',
    'legacy',
    'spatial',
    'detection_more',
    'updates',
)


def _load():
    merged = {}
    for family in FAMILIES:
        try:
            module = importlib.import_module(f'tests.ops.cases_{family}')
        except ModuleNotFoundError as err:
            if err.name != f'tests.ops.cases_{family}':
                raise
            continue
        for name, rows in module.CASES.items():
            if name in merged:
                raise AssertionError(
                    f'operator {name!r} has rows in two case files'
                )
            merged[name] = rows if isinstance(rows, list) else [rows]
    return merged


CASES = _load()


def all_rows():
    """Yield ``(op_name, index, case)`` for every row."""
    for name, rows in sorted(CASES.items()):
        for i, case in enumerate(rows):
            yield name, i, case


def make_inputs(case, dtype, seed=0):
    """Draw the inputs of one row as NumPy arrays of ``dtype``."""
    rng = np.random.RandomState(seed)
    if case.make_inputs is not None:
        return [np.array(a) for a in case.make_inputs(rng, dtype)]
    arrays = []
    for shape in case.shapes:
        a = rng.uniform(case.low, case.high, size=shape)
        for v in case.avoid:
            close = np.abs(a - v) < case.margin
            a[close] = v + np.where(a[close] >= v, 1, -1) * 2 * case.margin
        arrays.append(a.astype(dtype))
    return arrays


def numeric_vjp(f, arrays, cots, eps=1e-6):
    """Central differences of ``sum(f(*arrays)[k] * cots[k])``, float64.

    ``f`` returns a tuple of outputs; ``arrays`` are modified in place while
    probing and restored afterwards.
    """

    def objective():
        return sum(
            np.sum(np.asarray(o, dtype=np.float64) * c)
            for o, c in zip(f(*arrays), cots)
        )

    grads = []
    for a in arrays:
        g = np.zeros(a.shape, dtype=np.float64)
        for i in np.ndindex(a.shape):
            keep = a[i]
            a[i] = keep + eps
            up = objective()
            a[i] = keep - eps
            down = objective()
            a[i] = keep
            g[i] = (up - down) / (2 * eps)
        grads.append(g)
    return grads


def count_arguments(name, case, arrays):
    """Number of leading inputs that are arguments (the rest are aux
    states); a variadic operator takes all of them."""
    from dlbook.ops import REGISTRY

    op = REGISTRY[name](**case.attrs)
    return len(arrays) if op.variadic else len(op.list_arguments())
