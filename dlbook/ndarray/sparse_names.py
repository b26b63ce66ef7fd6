"""The operators MXNet 1.9.1 re-exports in ``nd.sparse``, with MXNet's
output storage types for csr and row_sparse inputs.

* Unary functions with ``f(0) == 0`` (``abs``, ``sqrt``, ``relu``,
  ``sin``, ``zeros_like``, ...) and ``clip`` with ``a_min <= 0 <= a_max``
  keep the storage: they are applied to the stored values only.
* The others (``exp``, ``log``, ``cos``, ``sigmoid``, ``rsqrt``, ...),
  ``sum``, ``mean``, ``norm``, ``where``, the ``broadcast_*`` operators
  other than ``broadcast_mul``/``broadcast_div`` on csr, ``Embedding``,
  ``FullyConnected`` and the regression outputs compute **densely**, as
  MXNet's storage fallback does: the sparse inputs are expanded and the
  result is a dense NDArray.
* ``elemwise_sub`` keeps the storage both operands share;
  ``elemwise_mul`` keeps it for csr*csr, rsp*rsp, and a sparse operand
  times a dense one; ``elemwise_div`` is dense; ``add_n`` of row_sparse
  arrays only is row_sparse; ``concat`` of csr along ``dim=0`` is csr;
  ``broadcast_mul``/``broadcast_div`` of a csr by a dense array are csr.

Gradients (under ``autograd.record()``) are those of the dense operator.
"""

from ..ops import REGISTRY
from ..ops import sparse as ops
from .register import function_for
from .sparse_ndarray import BaseSparseNDArray, invoke_sparse

KEEP_UNARY = (
    'abs arcsin arcsinh arctan arctanh cbrt ceil degrees expm1 fix floor '
    'log1p negative radians relu rint round sign sin sinh sqrt square tan '
    'tanh trunc stop_gradient make_loss zeros_like'
).split()
DENSE = (
    'arccos arccosh cos cosh exp gamma gammaln log log10 log2 rsqrt sigmoid '
    'sum mean norm where broadcast_add broadcast_sub broadcast_plus '
    'broadcast_minus elemwise_div Embedding FullyConnected '
    'LinearRegressionOutput LogisticRegressionOutput MAERegressionOutput'
).split()


class _Keeping(ops._SparseOp):
    """A registered dense operator whose result keeps sparse storage; the
    sparse value comes from ``how(self, xp, *raws)``, the gradient from
    the dense operator."""

    def __init__(self, name, how, **attrs):
        self.name, self.how, self.inner = name, how, attrs

    def dense_op(self):
        return REGISTRY[self.name](**self.inner)

    def forward(self, xp, *raws):
        self.saved = raws
        return self.how(self, xp, *raws)

    def backward(self, xp, *dys):
        op = self.dense_op()
        op.forward(xp, *[ops.todense(xp, r) for r in self.saved])
        return op.backward(xp, *[ops.todense(xp, d) for d in dys])


def _on_values(self, xp, x):
    """The dense operator on the stored values, structure kept."""
    values = self.dense_op().forward(xp, x.data)
    if ops.is_row_sparse(x):
        return ops.RowSparse(xp, values, x.indices, x.shape)
    out = x.copy()
    out.data = values
    return out


def _sparse(x):
    return isinstance(x, BaseSparseNDArray)


def _dense_doc(name):
    def function(*args, **kwargs):
        return function_for(name)(*args, **kwargs)

    function.__name__ = name
    function.__doc__ = (
        f'``nd.{name}``; sparse inputs are expanded and the result is '
        f"dense, as MXNet's storage fallback computes it."
    )
    return function


def _keep_unary(name):
    def function(data, *args, out=None, **kwargs):
        if not _sparse(data) or args or out is not None:
            return function_for(name)(data, *args, out=out, **kwargs)
        return invoke_sparse(_Keeping(name, _on_values, **kwargs), [data])

    function.__name__ = name
    function.__doc__ = (
        f'``nd.{name}`` applied to the stored values of a csr or '
        f'row_sparse array: the result keeps the storage (f(0) = 0).'
    )
    return function


def clip(data, a_min, a_max, out=None):
    """``nd.clip``; a sparse ``data`` keeps its storage, which needs
    ``a_min <= 0 <= a_max`` (MXNet refuses other bounds too)."""
    if not _sparse(data) or out is not None:
        return function_for('clip')(data, a_min, a_max, out=out)
    if not a_min <= 0 <= a_max:
        from ..base import DLBookError

        raise DLBookError(
            'clip: a sparse input needs a_min <= 0 <= a_max, got '
            f'({a_min}, {a_max}); convert it with tostype("default")'
        )
    op = _Keeping('clip', _on_values, a_min=a_min, a_max=a_max)
    return invoke_sparse(op, [data])


def _binary(self, xp, a, b):
    sub = self.name == 'elemwise_sub'
    if ops.is_csr(a) and ops.is_csr(b):
        out = (a - b) if sub else a.multiply(b)
        out = self.sp.csr_matrix(out)
        out.sort_indices()
        return out
    if ops.is_row_sparse(a) and ops.is_row_sparse(b):
        if sub:
            neg = ops.RowSparse(xp, -b.data, b.indices, b.shape)
            return a + neg
        rows = xp.intersect1d(a.indices, b.indices)
        da = a.data[xp.searchsorted(a.indices, rows)]
        db = b.data[xp.searchsorted(b.indices, rows)]
        return ops.RowSparse(xp, da * db, rows.astype('int64'), a.shape)
    if self.name == 'elemwise_mul':
        sparse, dense = (
            (a, b) if not hasattr(a, 'ndim') or ops.is_csr(a) else (b, a)
        )
        if ops.is_row_sparse(sparse):
            data = sparse.data * dense[sparse.indices]
            return ops.RowSparse(xp, data, sparse.indices, sparse.shape)
        return _csr_scaled(self, xp, sparse, dense, False)
    return ops.todense(xp, a) - ops.todense(xp, b)


def _csr_scaled(self, xp, csr, dense, divide):
    """The stored values of ``csr`` times (or over) ``dense`` broadcast to
    its shape, structure kept."""
    full = xp.broadcast_to(dense, csr.shape)
    rows = xp.repeat(xp.arange(csr.shape[0]), xp.diff(csr.indptr))
    other = full[rows, csr.indices]
    out = csr.copy()
    out.data = csr.data / other if divide else csr.data * other
    return out


def _keeps(a, b, name):
    if name == 'elemwise_sub':
        return _sparse(a) and a.stype == b.stype
    if _sparse(a) and _sparse(b):
        return a.stype == b.stype
    return _sparse(a) or _sparse(b)


def _make_binary(name, public):
    def function(lhs, rhs, out=None):
        if out is None and _keeps(lhs, rhs, name):
            return invoke_sparse(_Keeping(name, _binary), [lhs, rhs])
        return function_for(name)(lhs, rhs, out=out)

    function.__name__ = public
    function.__doc__ = (
        f'``nd.{name}`` with MXNet\'s sparse storage rules (see the '
        f'module); other storage combinations compute densely.'
    )
    return function


elemwise_sub = _make_binary('elemwise_sub', 'elemwise_sub')
elemwise_mul = _make_binary('elemwise_mul', 'elemwise_mul')


def _make_broadcast(name):
    divide = name == 'broadcast_div'

    def function(lhs, rhs, out=None):
        if (
            out is None
            and getattr(lhs, 'stype', None) == 'csr'
            and not _sparse(rhs)
        ):
            how = lambda self, xp, a, b: _csr_scaled(self, xp, a, b, divide)
            return invoke_sparse(_Keeping(name, how), [lhs, rhs])
        return function_for(name)(lhs, rhs, out=out)

    function.__name__ = name
    function.__doc__ = (
        f'``nd.{name}``; a csr ``lhs`` with a dense ``rhs`` stays csr '
        f'(only its stored values change), anything else is dense.'
    )
    return function


broadcast_mul = _make_broadcast('broadcast_mul')
broadcast_div = _make_broadcast('broadcast_div')


def add_n(*args, out=None):
    """``nd.add_n``: row_sparse when every input is, dense otherwise (even
    for csr inputs, as MXNet)."""
    if (
        out is None
        and args
        and all(getattr(x, 'stype', None) == 'row_sparse' for x in args)
    ):
        total = args[0]
        for x in args[1:]:
            total = invoke_sparse(ops.SparseAdd(), [total, x])
        return total if len(args) > 1 else total.copy()
    return function_for('add_n')(*args, out=out)


ElementWiseSum = add_n


def concat(*data, dim=1, out=None):
    """``nd.concat``; csr inputs joined along ``dim=0`` stay csr."""
    if (
        out is None
        and dim == 0
        and data
        and all(getattr(x, 'stype', None) == 'csr' for x in data)
    ):

        def stack(self, xp, *raws):
            return self.sp.vstack(raws, format='csr')

        return invoke_sparse(
            _Keeping('concat', stack, dim=0, num_args=len(data)), list(data)
        )
    return function_for('concat')(*data, dim=dim, out=out)


NAMES = {name: _keep_unary(name) for name in KEEP_UNARY}
NAMES.update({name: _dense_doc(name) for name in DENSE})
NAMES.update(
    clip=clip,
    elemwise_sub=elemwise_sub,
    elemwise_mul=elemwise_mul,
    broadcast_mul=broadcast_mul,
    broadcast_div=broadcast_div,
    add_n=add_n,
    ElementWiseSum=ElementWiseSum,
    concat=concat,
)
NAMES['subtract'] = elemwise_sub
NAMES['multiply'] = elemwise_mul
NAMES['divide'] = NAMES['elemwise_div']
