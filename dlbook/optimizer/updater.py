"""The :class:`Updater`: one optimizer plus the states of its weights.

``updater(index, grad, weight)`` creates the state of ``index`` on first
use and calls ``optimizer.update_multi_precision``.  The Trainer keeps one
updater per device, so states never cross devices.

Saving states (``Trainer.save_states``, ``Module.save_optimizer_states``)
goes through :meth:`Updater.get_states`, which returns bytes.  MXNet
pickles ``(states, optimizer)``; unpickling runs arbitrary code, so dlbook
never loads pickles.  Its format is a NumPy ``.npz`` archive (a zip file,
read with ``allow_pickle=False``) holding:

* ``__header__``: a uint8 array with UTF-8 JSON ``{"format":
  "dlbook-updater-states", "version": 1, "states": ..., "optimizer": ...}``;
* ``a0``, ``a1``, ...: one array per NDArray in the states.

In the JSON tree, an NDArray is ``{"__nd__": i}`` (array ``ai``), a tuple
``{"__tuple__": [...]}``, a dict ``{"__dict__": [[key, value], ...]}``
(keys keep their type), an optimizer ``{"__optimizer__": name, "attrs":
{...}}`` and a learning-rate scheduler ``{"__lr_scheduler__": class name,
"attrs": {...}}``; numbers, strings, lists, booleans and None are plain
JSON.  Classes are only ever looked up among registered optimizers and
already imported :class:`~dlbook.lr_scheduler.LRScheduler` subclasses.
"""

import io
import json

import numpy

from .. import lr_scheduler as _lr_scheduler
from .. import ndarray as nd
from ..base import DLBookError
from ..ndarray.lazy_update import dense_view
from .optimizer import Optimizer

__all__ = ['Updater', 'get_updater']

_FORMAT = 'dlbook-updater-states'
_VERSION = 1


class Updater:
    """Updater for one device: keeps a state per weight index.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose rule updates the weights.
    """

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self.aggregate_updates = optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight):
        """Update ``weight`` (or a list of weights) from ``grad``."""
        if not isinstance(index, (list, tuple)):
            indices, grads, weights = [index], [grad], [weight]
        else:
            indices, grads, weights = list(index), grad, weight
        # a row_sparse weight is updated through a dense view of its rows
        weights = [dense_view(w) for w in weights]
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        synced = self.states_synced
        for i, idx in enumerate(indices):
            if synced.get(idx) is True:  # every step after the first
                continue
            if isinstance(idx, bytes):
                indices[i] = idx = idx.decode()
            if idx not in self.states:
                self.states[idx] = self.optimizer.create_state_multi_precision(
                    idx, weights[i]
                )
                self.states_synced[idx] = True
            elif not self.states_synced[idx]:
                self.states[idx] = self.sync_state_context(
                    self.states[idx], weights[i].context
                )
                self.states_synced[idx] = True
        if self.aggregate_updates and len(indices) > 1:
            self._aggregated_update(indices, weights, grads)
        else:
            for i, w, g in zip(indices, weights, grads):
                self.optimizer.update_multi_precision(i, w, g, self.states[i])

    def _aggregated_update(self, indices, weights, grads):
        """Hand weights to the optimizer in groups of ``aggregate_num``
        of one dtype, as MXNet does for SGD."""
        by_dtype = {}
        for i, w, g in zip(indices, weights, grads):
            by_dtype.setdefault(w.dtype, []).append((i, w, g))
        size = self.optimizer.aggregate_num
        for group in by_dtype.values():
            for start in range(0, len(group), size):
                idx, ws, gs = zip(*group[start : start + size])
                states = [self.states[i] for i in idx]
                self.optimizer.update_multi_precision(
                    list(idx), list(ws), list(gs), states
                )

    def sync_state_context(self, state, context):
        """Move ``state`` (NDArray, or nested tuples/lists) to ``context``."""
        if isinstance(state, nd.NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(s, context) for s in state]
            return tuple(synced) if isinstance(state, tuple) else synced
        return state

    def set_states(self, states, source='optimizer states', shapes=None):
        """Load states (and the optimizer, if saved) from
        :meth:`get_states` bytes.

        Parameters
        ----------
        states : bytes
        source : str
            What the bytes are, for error messages (``"file 'x.states'"``).
        shapes : dict, optional
            Weight index -> weight shape.  When given, every state must
            belong to a known index and match its weight's shape; nothing
            is changed otherwise.
        """
        loaded, optimizer = loads_states(states, source)
        if shapes is not None:
            check_states_fit(loaded, shapes, source)
        self.states = loaded
        if optimizer is not None:
            self.optimizer = optimizer
            self.aggregate_updates = optimizer.aggregate_num > 0
        self.states_synced = dict.fromkeys(self.states.keys(), False)

    def get_states(self, dump_optimizer=False):
        """Serialise the states to bytes (see the module docstring).

        Parameters
        ----------
        dump_optimizer : bool, default False
            Also save the optimizer itself: learning rate, schedule, step
            counts.
        """
        return dumps_states(
            self.states, self.optimizer if dump_optimizer else None
        )


def get_updater(optimizer):
    """Return an :class:`Updater` for ``optimizer``.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer.

    Returns
    -------
    updater : Updater
        Callable as ``updater(index, grad, weight)``.
    """
    return Updater(optimizer)


# -- serialisation ----------------------------------------------------------


def dumps_states(states, optimizer=None):
    """``states`` (index -> state) and optionally the optimizer as bytes."""
    arrays = []
    header = {
        'format': _FORMAT,
        'version': _VERSION,
        'states': _encode(states, arrays),
        'optimizer': (
            None if optimizer is None else _encode_optimizer(optimizer, arrays)
        ),
    }
    text = json.dumps(header).encode('utf-8')
    entries = {f'a{i}': a for i, a in enumerate(arrays)}
    entries['__header__'] = numpy.frombuffer(text, dtype=numpy.uint8)
    buf = io.BytesIO()
    numpy.savez(buf, **entries)
    return buf.getvalue()


def loads_states(data, source='optimizer states'):
    """Inverse of :func:`dumps_states`: ``(states, optimizer or None)``.

    ``source`` names the data in error messages (``"file 'x.states'"``).
    Any damage (truncation, a wrong entry) raises one
    :class:`~dlbook.base.DLBookError`.
    """
    if isinstance(data, str):
        data = data.encode('latin-1')
    try:
        archive = numpy.load(io.BytesIO(bytes(data)), allow_pickle=False)
        header = json.loads(bytes(archive['__header__']).decode('utf-8'))
    except Exception as err:
        raise DLBookError(
            f'cannot read {source}: this is not a dlbook states '
            'file (dlbook never unpickles MXNet .states files, for safety; '
            f're-save them with dlbook). Cause: {type(err).__name__}: {err}'
        ) from None
    if not isinstance(header, dict) or header.get('format') != _FORMAT:
        found = header.get('format') if isinstance(header, dict) else header
        raise DLBookError(f'cannot read {source}: unknown format {found!r}')
    try:
        arrays = {k: archive[k] for k in archive.files if k != '__header__'}
        states = _decode(header['states'], arrays)
        optimizer = header.get('optimizer')
        if optimizer is not None:
            optimizer = _decode(optimizer, arrays)
    except DLBookError as err:
        raise DLBookError(f'cannot read {source}: {err}') from None
    except Exception as err:  # a damaged archive or JSON tree
        raise DLBookError(
            f'cannot read {source}: the file is damaged '
            f'({type(err).__name__}: {err})'
        ) from None
    if not isinstance(states, dict):
        raise DLBookError(
            f'cannot read {source}: the states are a '
            f'{type(states).__name__}, not a dict'
        )
    if optimizer is not None and not isinstance(optimizer, Optimizer):
        raise DLBookError(
            f'cannot read {source}: the saved optimizer is a '
            f'{type(optimizer).__name__}'
        )
    return states, optimizer


def check_states_fit(states, shapes, source='optimizer states', names=None):
    """Raise unless every state belongs to a weight index in ``shapes``
    and each of its arrays has that weight's shape (unknown dimensions,
    0, match anything).  ``names`` (index -> parameter name) makes the
    message name the parameter."""
    for index, state in states.items():
        if index not in shapes:
            raise DLBookError(
                f'cannot load {source}: it holds a state for weight index '
                f'{index!r}, but the weights have indices '
                f'{sorted(shapes, key=str)}; was it saved for another '
                f'network?'
            )
        want = tuple(shapes[index])
        for arr in _state_arrays(state):
            if len(arr.shape) != len(want) or any(
                w not in (0, a) for a, w in zip(arr.shape, want)
            ):
                name = (
                    f" ('{names[index]}')" if names and index in names else ''
                )
                raise DLBookError(
                    f'cannot load {source}: the state of weight index '
                    f'{index!r}{name} has shape {arr.shape} but the weight '
                    f'has shape {want}; was it saved for another network?'
                )


def _state_arrays(state):
    if isinstance(state, nd.NDArray):
        yield state
    elif isinstance(state, (tuple, list)):
        for s in state:
            yield from _state_arrays(s)


def _encode(obj, arrays):
    """A JSON-able tree for ``obj``; arrays are appended to ``arrays``."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, nd.NDArray):
        arrays.append(obj.asnumpy())
        return {'__nd__': len(arrays) - 1}
    if isinstance(obj, numpy.generic):
        return obj.item()
    if isinstance(obj, tuple):
        return {'__tuple__': [_encode(x, arrays) for x in obj]}
    if isinstance(obj, list):
        return [_encode(x, arrays) for x in obj]
    if isinstance(obj, dict):
        return {
            '__dict__': [
                [_encode(k, arrays), _encode(v, arrays)]
                for k, v in obj.items()
            ]
        }
    if isinstance(obj, Optimizer):
        return _encode_optimizer(obj, arrays)
    if isinstance(obj, _lr_scheduler.LRScheduler):
        return {
            '__lr_scheduler__': type(obj).__name__,
            'attrs': _encode(vars(obj), arrays),
        }
    raise DLBookError(
        f'cannot save optimizer state of type '
        f'{type(obj).__name__}: states may hold NDArrays, '
        f'numbers, strings, None, and tuples/lists/dicts of '
        f'them'
    )


def _encode_optimizer(optimizer, arrays):
    name = type(optimizer).__name__.lower()
    if Optimizer.opt_registry.get(name) is not type(optimizer):
        raise DLBookError(
            f'cannot save optimizer {type(optimizer).__name__}'
            f': register it with @mx.optimizer.register first'
        )
    attrs = {
        k: v
        for k, v in vars(optimizer).items()
        if k not in ('param_dict', '_index_update_count')
    }
    return {'__optimizer__': name, 'attrs': _encode(attrs, arrays)}


def _decode(tree, arrays):
    if isinstance(tree, list):
        return [_decode(x, arrays) for x in tree]
    if not isinstance(tree, dict):
        return tree
    if '__nd__' in tree:
        data = arrays[f'a{tree["__nd__"]}']
        return nd.array(data, dtype=data.dtype)
    if '__tuple__' in tree:
        return tuple(_decode(x, arrays) for x in tree['__tuple__'])
    if '__dict__' in tree:
        return {
            _hashable(_decode(k, arrays)): _decode(v, arrays)
            for k, v in tree['__dict__']
        }
    if '__optimizer__' in tree:
        return _decode_optimizer(tree, arrays)
    if '__lr_scheduler__' in tree:
        klass = _scheduler_class(tree['__lr_scheduler__'])
        obj = klass.__new__(klass)
        obj.__dict__.update(_decode(tree['attrs'], arrays))
        return obj
    raise DLBookError(
        f'cannot read optimizer states: unexpected entry {sorted(tree)}'
    )


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key


def _decode_optimizer(tree, arrays):
    klass = Optimizer.opt_registry.get(tree['__optimizer__'])
    if klass is None:
        raise DLBookError(
            f'cannot load optimizer {tree["__optimizer__"]!r}:'
            f' no optimizer is registered under that name'
        )
    obj = klass.__new__(klass)
    obj.__dict__.update(_decode(tree['attrs'], arrays))
    obj.param_dict = {}
    counts = obj._all_index_update_counts
    obj._index_update_count = counts.setdefault(0, {})
    return obj


def _scheduler_class(name):
    """The imported LRScheduler subclass called ``name``."""
    todo = [_lr_scheduler.LRScheduler]
    while todo:
        klass = todo.pop()
        if klass.__name__ == name:
            return klass
        todo.extend(klass.__subclasses__())
    raise DLBookError(
        f'cannot load learning-rate scheduler {name!r}: '
        f'import the module that defines it first'
    )
