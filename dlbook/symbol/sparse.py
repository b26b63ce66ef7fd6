"""``mx.sym.sparse``: symbol functions for graphs with sparse arrays.

In MXNet a graph node does not carry a storage type: ``sym.sparse.dot``
makes the very ``dot`` node ``sym.dot`` makes, and the storage of every
array is decided when the graph is bound, from the arguments' storage
(``sym.var('data', stype='csr')``, ``stype_dict``, or the arrays given
to ``bind``).  This namespace therefore holds the ``sym`` functions of
MXNet's ``sym.sparse`` list, plus ``retain`` (the ``_sparse_retain``
operator) which exists only here.

>>> x = mx.sym.var('data', stype='csr')
>>> w = mx.sym.var('weight', stype='row_sparse')
>>> y = mx.sym.sparse.dot(x, w)          # the 'dot' operator
>>> y.tojson() == mx.sym.dot(x, w).tojson()
True

Bound to a CSR ``data``, the executor runs ``dot`` with MXNet's sparse
rules (``dlbook/symbol/program_sparse.py``): a dense output and a row_sparse
gradient for ``weight``.
"""

from ..ops import REGISTRY
from ..ops.sparse import SparseRetain
from .register import make_function

# MXNet 1.9.1's mx.sym.sparse names (those dlbook's sym has)
_NAMES = (
    'ElementWiseSum',
    'Embedding',
    'FullyConnected',
    'LinearRegressionOutput',
    'LogisticRegressionOutput',
    'MAERegressionOutput',
    'abs',
    'adagrad_update',
    'adam_update',
    'add_n',
    'arccos',
    'arccosh',
    'arcsin',
    'arcsinh',
    'arctan',
    'arctanh',
    'broadcast_add',
    'broadcast_div',
    'broadcast_minus',
    'broadcast_mul',
    'broadcast_plus',
    'broadcast_sub',
    'cast_storage',
    'cbrt',
    'ceil',
    'clip',
    'concat',
    'cos',
    'cosh',
    'degrees',
    'dot',
    'elemwise_add',
    'elemwise_div',
    'elemwise_mul',
    'elemwise_sub',
    'exp',
    'expm1',
    'fix',
    'floor',
    'ftrl_update',
    'gamma',
    'gammaln',
    'log',
    'log10',
    'log1p',
    'log2',
    'make_loss',
    'mean',
    'negative',
    'norm',
    'radians',
    'relu',
    'rint',
    'round',
    'rsqrt',
    'sgd_mom_update',
    'sgd_update',
    'sigmoid',
    'sign',
    'sin',
    'sinh',
    'slice',
    'sqrt',
    'square',
    'stop_gradient',
    'sum',
    'tan',
    'tanh',
    'trunc',
    'where',
    'zeros_like',
)

# the same functions ``sym.<name>`` is (made from the same registry)
globals().update(
    {
        name: make_function(REGISTRY[name], name)
        for name in _NAMES
        if name in REGISTRY
    }
)
__all__ = ['retain'] + sorted(n for n in _NAMES if n in REGISTRY)

retain = make_function(SparseRetain, 'retain')
retain.__doc__ = """The rows ``indices`` of a row_sparse ``data`` that it
stores; every other row becomes zero (MXNet's ``_sparse_retain``).

Parameters
----------
data : Symbol
    Bound to a RowSparseNDArray.
indices : Symbol
    The row numbers to keep.
"""
