"""Lazy updates: apply a dense update rule to the rows a row-sparse
gradient holds, and leave every other row (and its state) untouched.

MXNet's ``sgd_update``/``adam_update`` with ``lazy_update=True`` and a
row_sparse gradient do exactly this (apache/mxnet@1.9.1:
src/operator/optimizer_op-inl.h, ``SGDUpdateRspImpl``,
``AdamUpdateRspImpl``): weight decay and momentum decay touch only those
rows.  The update rules are element-wise, so running the dense kernel on
the gathered rows and scattering them back gives the same numbers.
"""

from .invoke import DENSE_CLASSES

__all__ = ['rows_for_update', 'dense_view']


def _dense_values(weight):
    """The array holding every value of ``weight``, updatable in place.

    A row_sparse weight (a Module parameter declared ``stype=
    'row_sparse'``) is first made to store all of its rows, so its
    ``data`` is that array.  (MXNet requires such a weight to store every
    row already; starting from a partial one here just fills the rest
    with zeros.)
    """
    if weight.stype != 'row_sparse':
        return weight._data
    from ..ops.sparse import RowSparse

    raw = weight._raw
    if len(raw.indices) != raw.shape[0]:
        xp = raw.xp
        weight._raw = raw = RowSparse(
            xp,
            raw.todense(),
            xp.arange(raw.shape[0], dtype='int64'),
            raw.shape,
        )
    return raw.data


def _raw_states(state):
    if state is None:
        return []
    if isinstance(state, (tuple, list)):
        return [s for s in state if s is not None]
    return [state]


def dense_view(weight):
    """``weight`` itself, or for a row_sparse weight a dense NDArray
    sharing its (then complete) storage: every optimizer can update it in
    place."""
    if type(weight) in DENSE_CLASSES or weight.stype != 'row_sparse':
        return weight  # (a type test first: quicker than the property)
    from .ndarray import from_raw

    return from_raw(_dense_values(weight), weight.context)


def rows_for_update(weight, grad, state, lazy):
    """``(w, g, states, commit)``: raw arrays to update in place.

    For a dense gradient (or ``lazy=False``) these are the arrays
    themselves and ``commit`` is None.  For a row-sparse gradient they are
    copies of the gradient's rows; call ``commit()`` afterwards to write
    them back.
    """
    states = _raw_states(state)
    full_w = _dense_values(weight)
    if not lazy or grad.stype != 'row_sparse':
        return full_w, grad._data, [s._data for s in states], None
    raw = grad._raw
    rows = raw.indices
    full_s = [s._data for s in states]
    w = full_w[rows]
    s = [a[rows] for a in full_s]

    def commit():
        full_w[rows] = w
        for a, part in zip(full_s, s):
            a[rows] = part

    return w, raw.data, s, commit
