"""A single-process key-value store with MXNet 1.x's ``KVStore`` API.

Data-parallel training keeps one copy of each parameter per device; after
``backward`` every device holds the gradient of its own slice of the
batch.  The store makes the copies agree again:

* ``push(key, [g0, g1, ...])`` sums the arrays (wherever they live) into
  one merged value;
* without an optimizer the merged value *replaces* the stored one; with
  one (``set_optimizer``) the store runs ``updater(key, merged, stored)``
  on its stored weight instead;
* ``pull(key, out=[a0, a1, ...])`` copies the stored value into every
  ``out`` array, on its own device.

``'local'`` keeps its values on ``cpu(0)`` (MXNet aggregates on the CPU);
``'device'`` (and ``'nccl'``) keep them on the device of the value given
to ``init``.  See ``apache/mxnet@1.9.1:python/mxnet/kvstore/kvstore.py``.
"""

from .. import autograd
from .._atomic import atomic_write
from ..base import DLBookError
from ..context import cpu
from ..ndarray.ndarray import NDArray, from_raw

__all__ = ['KVStoreBase', 'KVStore', 'create']

# Store types by the name given to ``create``, as MXNet spells them.
_LOCAL_TYPES = {
    'local': 'local',
    'local_update_cpu': 'local',
    'local_allreduce_cpu': 'local',
    'device': 'device',
    'local_allreduce_device': 'device',
    'nccl': 'device',
}


class KVStoreBase:
    """Interface shared by key-value stores (``is_capable`` flags)."""

    #: Capability: the store can apply an optimizer to its values.
    OPTIMIZER = 'optimizer'

    def is_capable(self, capability):
        """Whether the store supports ``capability`` (``'optimizer'``)."""
        return capability == self.OPTIMIZER


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _pairs(key, value):
    """``[(key, [arrays])]`` for one key or a list of keys.

    One key takes an array or a list of arrays (one per device); a list
    of keys takes one array or one list of arrays per key.
    """
    if isinstance(key, (list, tuple)):
        values = _as_list(value)
        if len(values) != len(key):
            raise DLBookError(
                f'KVStore: got {len(key)} keys but '
                f'{len(values)} values; give one value (or '
                f'one list of values) per key'
            )
        return [(k, _as_list(v)) for k, v in zip(key, values)]
    return [(key, _as_list(value))]


def _check_key(key):
    if not isinstance(key, (int, str)):
        raise DLBookError(
            f'KVStore keys must be int or str, got '
            f'{type(key).__name__} {key!r}'
        )
    return key


class KVStore(KVStoreBase):
    """A single-process key-value store (create it with :func:`create`).

    Examples
    --------
    >>> kv = mx.kv.create('device')
    >>> kv.init(3, mx.nd.ones((2, 3)))
    >>> kv.push(3, [mx.nd.ones((2, 3), ctx=c) for c in (mx.cpu(0),
    ...                                                  mx.cpu(1))])
    >>> out = mx.nd.zeros((2, 3))
    >>> kv.pull(3, out=out)
    >>> out.asnumpy()[0]
    array([2., 2., 2.], dtype=float32)
    """

    def __init__(self, name='local'):
        self._type = name
        self._on_cpu = _LOCAL_TYPES[name] == 'local'
        self._store = {}
        self._updater = None
        self._optimizer = None
        self._compression = None

    def __repr__(self):
        return f'<KVStore {self._type}: {len(self._store)} keys>'

    # -- description ------------------------------------------------------
    @property
    def type(self):
        """The store type given to ``create`` (``'local'``, ``'device'``)."""
        return self._type

    @property
    def rank(self):
        """This worker's rank: always 0 in a single process."""
        return 0

    @property
    def num_workers(self):
        """Number of workers: always 1 in a single process."""
        return 1

    # -- keys and values ----------------------------------------------------
    def _stored(self, key):
        try:
            return self._store[key]
        except KeyError:
            raise DLBookError(
                f'KVStore: key {key!r} has not been '
                f'initialized; call kv.init({key!r}, value) '
                f'first'
            ) from None

    def init(self, key, value):
        """Initialize ``key`` (or each key of a list) with ``value``.

        Parameters
        ----------
        key : int, str or list of int or str
        value : NDArray or list of NDArray
            One value per key (for a key given a list, its first array).
        """
        for k, values in _pairs(key, value):
            _check_key(k)
            if k in self._store:
                raise DLBookError(f'KVStore: duplicate init of key {k!r}')
            first = values[0]
            ctx = cpu() if self._on_cpu else first.context
            with autograd.pause():
                self._store[k] = first.copyto(ctx)

    def push(self, key, value, priority=0):
        """Push values: the arrays of each key are summed, then stored
        (or handed to the optimizer's updater with the stored value).

        Parameters
        ----------
        key : int, str or list of int or str
        value : NDArray, list of NDArray, or list of lists (one per key)
        priority : int
            Accepted for compatibility; a single process needs no order.
        """
        for k, values in _pairs(key, value):
            self._push_one(k, values)

    def _push_one(self, key, values):
        stored = self._stored(key)
        if self._compression is not None:
            values = [self._compress(key, i, v) for i, v in enumerate(values)]
        if all(
            v.stype == 'row_sparse' for v in values if isinstance(v, NDArray)
        ):
            # row_sparse gradients stay row_sparse: a lazy update then
            # touches only their rows, as in MXNet
            merged = _sum_row_sparse(values, stored, key)
        else:
            merged = from_raw(_sum(values, stored, key), stored.context)
        if self._updater is None:
            if stored.stype == 'default' and merged.stype == 'default':
                stored._data = merged._data  # a fresh array: no copy
            else:
                with autograd.pause():
                    stored[:] = merged
        else:
            self._updater(key, merged, stored)

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy the stored value of each key into its ``out`` arrays.

        Parameters
        ----------
        key : int, str or list of int or str
        out : NDArray, list of NDArray, or list of lists (one per key)
            Arrays to write, each on its own device.
        priority : int
            Accepted for compatibility.
        ignore_sparse : bool
            Skip ``out`` arrays with sparse storage (as MXNet, which
            warns): pull their rows with :meth:`row_sparse_pull`.
        """
        if out is None:
            raise DLBookError('KVStore.pull: out must be given')
        for k, outs in _pairs(key, out):
            stored = self._stored(k)
            for target in outs:
                if ignore_sparse and target.stype != 'default':
                    continue
                _write(target, stored, k)

    def pushpull(self, key, value, out=None, priority=0):
        """``push`` then ``pull``; without ``out`` the result is written
        back into ``value``.  The all-reduce of data-parallel training."""
        outs = value if out is None else out
        for (k, values), (_, targets) in zip(
            _pairs(key, value), _pairs(key, outs)
        ):
            self._push_one(k, values)
            stored = self._stored(k)
            for target in targets:
                _write(target, stored, k)

    def broadcast(self, key, value, out, priority=0):
        """``init(key, value)`` then ``pull(key, out)``."""
        self.init(key, value)
        self.pull(key, out=out, priority=priority)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Copy only the rows ``row_ids`` of each key's stored value into
        ``out`` (RowSparseNDArrays holding exactly those rows).

        Parameters
        ----------
        key : int, str or list of them
        out : RowSparseNDArray or list of them (one per device)
        row_ids : NDArray or list of NDArray, one per ``out`` (or one for
            all of them): the row numbers to pull.
        """
        if out is None or row_ids is None:
            raise DLBookError(
                'KVStore.row_sparse_pull: out and row_ids must be given'
            )
        from ..ndarray.sparse_ndarray import pull_rows

        for (k, outs), (_, ids) in zip(_pairs(key, out), _pairs(key, row_ids)):
            dense = self._stored(k).tostype('default')
            if len(ids) == 1:
                ids = ids * len(outs)
            for target, rid in zip(outs, ids):
                rows = pull_rows(dense.as_in_context(target.context), rid)
                if target.stype == 'row_sparse':
                    target._raw = rows._raw
                else:
                    target[...] = rows.tostype('default')

    # -- optimizer on the store ----------------------------------------------
    def set_optimizer(self, optimizer):
        """Apply ``optimizer`` to the stored values on every ``push``.

        Parameters
        ----------
        optimizer : Optimizer
        """
        from .. import optimizer as opt

        self._optimizer = optimizer
        self._set_updater(opt.get_updater(optimizer))

    def _set_updater(self, updater):
        """Use ``updater(key, merged, stored)`` on every ``push``."""
        self._updater = updater

    def set_gradient_compression(self, compression_params):
        """Compress pushed gradients to 2 bits per element (``'device'``
        and ``dist_*`` stores), keeping what was not sent as a residual.

        Parameters
        ----------
        compression_params : dict
            ``{'type': '2bit', 'threshold': 0.5}``; ``threshold``
            defaults to 0.5.  See :mod:`dlbook.kvstore.compression`.
        """
        if 'device' not in self._type and 'dist' not in self._type:
            raise DLBookError(
                'Gradient compression is not supported for '
                'this type of kvstore'
            )
        from .compression import GradientCompression, parse_compression_params

        _, threshold = parse_compression_params(compression_params)
        self._compression = GradientCompression(threshold)

    def _compress(self, key, i, value):
        """Device ``i``'s pushed ``value`` after 2-bit quantization (its
        own residual), on its own device."""
        if not isinstance(value, NDArray):
            return value  # _sum reports the wrong type
        host = value.context.backend.to_numpy(value._data)
        sent = self._compression.quantize((key, i), host)
        ctx = value.context
        return from_raw(
            ctx.backend.asarray(sent, ctx.device_id, sent.dtype), ctx
        )

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Save the optimizer states of the store (dlbook's pickle-free
        format, see ``dlbook.optimizer.updater``)."""
        if self._updater is None:
            raise DLBookError(
                'KVStore.save_optimizer_states: no optimizer '
                'has been set with set_optimizer'
            )
        data = self._updater.get_states(dump_optimizer)
        with atomic_write(fname) as f:
            f.write(data)

    def load_optimizer_states(self, fname):
        """Load optimizer states written by :meth:`save_optimizer_states`."""
        if self._updater is None:
            raise DLBookError(
                'KVStore.load_optimizer_states: no optimizer '
                'has been set with set_optimizer'
            )
        with open(fname, 'rb') as f:
            self._updater.set_states(
                f.read(),
                f"optimizer states file '{fname}'",
                shapes={k: v.shape for k, v in self._store.items()},
            )
        self._optimizer = self._updater.optimizer

    def barrier(self):
        """Wait for all workers: nothing to wait for in one process."""

    _barrier = barrier


def check_value(value, stored, key):
    """Raise unless ``value`` is an NDArray of the shape ``key`` holds."""
    if not isinstance(value, NDArray):
        raise DLBookError(
            f'KVStore: values must be NDArrays, got '
            f'{type(value).__name__} for key {key!r}'
        )
    if value.shape != stored.shape:
        raise DLBookError(
            f'KVStore: value of shape {value.shape} pushed to key '
            f'{key!r}, which holds shape {stored.shape}'
        )


def _sum(values, stored, key):
    """A new raw array, on the stored value's device, holding the sum of
    ``values`` (added in list order, so every caller sums identically)."""
    ctx = stored.context
    total = None
    with autograd.pause():
        for v in values:
            check_value(v, stored, key)
            raw = v._data if v.context == ctx else v.copyto(ctx)._data
            if total is None:
                total = raw.astype(stored.dtype, copy=True)
            else:
                total += raw
    return total


def _sum_row_sparse(values, stored, key):
    """The sum of row_sparse ``values`` (a RowSparseNDArray on the
    stored value's device)."""
    ctx = stored.context
    total = None
    with autograd.pause():
        for v in values:
            if v.shape != stored.shape:
                raise DLBookError(
                    f'KVStore: value of shape {v.shape} pushed to key '
                    f'{key!r}, which holds shape {stored.shape}'
                )
            v = v.as_in_context(ctx).astype(stored.dtype, copy=False)
            total = v.copy() if total is None else total + v
    return total


def _write(target, stored, key):
    """Copy ``stored`` into ``target`` on ``target``'s device."""
    if target.shape != stored.shape:
        raise DLBookError(
            f'KVStore: cannot pull key {key!r} of shape '
            f'{stored.shape} into an array of shape '
            f'{target.shape}'
        )
    if target is stored:
        return
    if target.stype != 'default' or stored.stype != 'default':
        with autograd.pause():
            stored.copyto(target)
    elif target.context == stored.context:
        target._data[...] = stored._data
    else:
        with autograd.pause():
            stored.copyto(target)


def create(name='local'):
    """Create a key-value store.

    Parameters
    ----------
    name : str, default 'local'
        ``'local'`` (values kept on ``cpu(0)``), ``'device'`` or
        ``'nccl'`` (values kept on the device they come from).
        ``'dist_sync'``, ``'dist_device_sync'`` and ``'dist_async'``
        span several processes (started by ``mpiexec`` or
        ``python -m dlbook.launch``); they need ``mpi4py``
        (``pip install dlbook[dist]``).  See :mod:`dlbook.kvstore.dist`.

    Returns
    -------
    KVStore
    """
    if not isinstance(name, str):
        raise TypeError('name must be a string')
    name = name.lower()
    if name.startswith('dist'):
        return _DIST_FACTORY[0](name)
    if name in ('horovod', 'byteps'):
        raise DLBookError(
            f"KVStore type '{name}' is not provided by dlbook. Use "
            f"'dist_sync' (several processes or machines, over MPI), or "
            f"'local' / 'device' (one process, any number of devices)."
        )
    if name not in _LOCAL_TYPES:
        raise DLBookError(
            f"Unknown KVStore type '{name}'; choose one of "
            f"{', '.join(sorted(_LOCAL_TYPES))}"
        )
    return KVStore(name)


#: ``create`` hands ``dist_*`` names to this factory, which
#: ``dlbook.kvstore.dist`` installs when it is imported (it builds on the
#: classes here, so it sits above this module).
_DIST_FACTORY = [None]
