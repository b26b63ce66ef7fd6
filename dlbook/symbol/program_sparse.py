"""Running a symbol graph whose arrays may be sparse.

MXNet decides every array's storage when a graph is bound ("storage type
inference") and runs each node with the kernel for those storages; a node
with no sparse kernel gets dense copies of its sparse inputs ("storage
fallback").  dlbook does the same at run time, node by node:

* ``dot``, ``elemwise_add``, ``_mul_scalar`` and ``slice`` with a sparse
  input run their sparse twins from ``dlbook.ops.sparse`` (``dot(csr,
  weight)`` gives a dense output and a row_sparse weight gradient);
* ``cast_storage`` and ``_sparse_retain`` always run sparse;
* every other operator sees dense values, and gets dense gradients.

:func:`forward` replaces ``GraphProgram.forward`` for such graphs (one
device, no ``group2ctx``); the tape it returns is read by the ordinary
``GraphProgram.backward``.  :func:`storage_types` is the bind-time
inference ``simple_bind`` uses to choose argument and gradient storage.
"""

from ..base import DLBookError
from ..ops import sparse as sp_ops

__all__ = ['forward', 'is_sparse', 'storage_types', 'SPARSE_TWINS']

# operator name -> the class that runs it when an input is sparse
SPARSE_TWINS = {
    'dot': sp_ops.SparseDot,
    'elemwise_add': sp_ops.SparseAdd,
    '_mul_scalar': sp_ops.SparseScalarMul,
    'slice': sp_ops.SparseSlice,
}
# operators that run their sparse form whatever their inputs
ALWAYS_SPARSE = ('cast_storage', '_sparse_retain')


def is_sparse(raw):
    """Whether a raw value is CSR or row-sparse storage."""
    return sp_ops.is_csr(raw) or sp_ops.is_row_sparse(raw)


class _DenseFallback:
    """A dense operator run on dense copies of sparse values: its
    backward gets dense output gradients too.  Everything else is the
    wrapped operator's (attributes are read and set on it)."""

    def __init__(self, op):
        object.__setattr__(self, 'op', op)

    def __getattr__(self, key):
        return getattr(self.op, key)

    def __setattr__(self, key, value):
        setattr(self.op, key, value)

    def backward(self, xp, *dys):
        return self.op.backward(xp, *[sp_ops.todense(xp, d) for d in dys])


def _sparse_op(step, raws):
    """The operator instance for ``step`` given its raw inputs."""
    name = step.node.op
    if name in ALWAYS_SPARSE:
        op = step.cls(**step.node.attrs)
    elif (
        name in SPARSE_TWINS
        and any(is_sparse(r) for r in raws)
        and (name != 'slice' or sp_ops.is_csr(raws[0]))
    ):
        op = SPARSE_TWINS[name](**_twin_attrs(name, step.node.attrs))
    else:
        return None
    op.sp = step.ctx.backend.sparse
    return op


def _twin_attrs(name, attrs):
    if name == 'slice':
        return {
            'begin': tuple(attrs.get('begin', ())),
            'end': tuple(attrs.get('end', ())),
        }
    if name == '_mul_scalar':
        return {'scalar': attrs.get('scalar', 1.0)}
    return dict(attrs)


def forward(program, inputs, is_train, rng=None, keep=None):
    """``GraphProgram.forward`` for graphs with sparse arrays.

    ``inputs`` are ``(raw, Context)`` pairs whose raws may be SciPy/CuPy
    CSR matrices or :class:`~dlbook.ops.sparse.RowSparse` values.  Returns
    ``(outputs, tape)`` like ``GraphProgram.forward``.
    """
    if keep is None:
        keep = is_train
    ctx = program.local_ctx
    if ctx is None or any(c is not ctx for _, c in inputs):
        raise DLBookError(
            'sparse arrays in a graph run on one device only '
            '(no group2ctx); bind every argument on the '
            'executor\'s context'
        )
    values = [None] * program.num_slots
    for slot, (raw, _) in zip(program.var_slots, inputs):
        values[slot] = raw
    tape = [] if keep else None
    xp = ctx.xp
    for step in program.steps:
        raws = [values[s] for s in step.in_slots]
        op = _sparse_op(step, raws)
        if op is None:
            op = step.make_op(is_train)
            if step.needs_rng:
                op.rng = rng or ctx.backend.rng(ctx.device_id)
            if any(is_sparse(r) for r in raws):
                raws = [sp_ops.todense(xp, r) for r in raws]
            run = op
            op = _DenseFallback(op)
        else:
            op.is_train = is_train
            run = op
        try:
            if step.switch is None:
                out = run.forward(xp, *raws)
            else:
                with step.switch:
                    out = run.forward(xp, *raws)
        except (ValueError, TypeError, IndexError) as err:
            raise step.failure(err, raws) from err
        program.store_step_outputs(step, op, out, values, tape)
    return [(values[s], ctx) for s in program.out_slots], tape


# ------------------------------------------------------ bind-time inference


def _node_stype(node, index, arg_stype):
    """Storage of output ``index`` of ``node`` (forward inference, enough
    to decide gradient storage)."""
    if node.is_variable:
        return arg_stype.get(node.name, 'default')
    if node.op == 'cast_storage':
        return node.attrs.get('stype', 'default')
    if node.op == '_sparse_retain':
        return 'row_sparse'
    if node.op == 'slice':
        child, i = node.inputs[0]
        return _node_stype(child, i, arg_stype)
    return 'default'


def storage_types(symbol, arg_stype):
    """``{argument: gradient storage}`` as MXNet infers it at bind time.

    A gradient is row_sparse when every use of the argument is the
    ``rhs`` of ``dot(csr, rhs)`` (no transposes) or the weight of an
    ``Embedding(sparse_grad=True)``; otherwise it is dense.

    Parameters
    ----------
    symbol : Symbol
    arg_stype : dict
        ``{argument: storage}`` of the bound arguments.
    """
    uses = {}
    for node in symbol._nodes():
        if node.is_variable:
            continue
        for position, (child, _) in enumerate(node.inputs):
            if child.is_variable:
                uses.setdefault(child.name, []).append((node, position))
    grads = {}
    for name in symbol.list_arguments():
        found = uses.get(name, [])
        sparse = bool(found) and all(
            _sparse_grad_use(node, pos, arg_stype) for node, pos in found
        )
        grads[name] = 'row_sparse' if sparse else 'default'
    return grads


def _sparse_grad_use(node, position, arg_stype):
    attrs = node.attrs
    if node.op == 'Embedding':
        return position == 1 and bool(attrs.get('sparse_grad', False))
    if node.op == 'dot':
        lhs, i = node.inputs[0]
        return (
            position == 1
            and not attrs.get('transpose_a', False)
            and not attrs.get('transpose_b', False)
            and _node_stype(lhs, i, arg_stype) == 'csr'
        )
    return False
