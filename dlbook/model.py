"""Checkpoints and the kvstore plumbing of the Module API (``mx.model``).

A *checkpoint* is two files, exactly as MXNet 1.x writes them
(``apache/mxnet@1.9.1:python/mxnet/model.py``):

* ``prefix-symbol.json``: the network (``Symbol.tojson``);
* ``prefix-0003.params``: the parameters after epoch 3, an ``nd.save``
  dict whose keys are ``'arg:<name>'`` for arguments (weights, biases)
  and ``'aux:<name>'`` for auxiliary states (BatchNorm's moving stats).

So a model trained with dlbook loads in MXNet and the other way round::

    mx.model.save_checkpoint('mlp', 3, net, arg_params, aux_params)
    net, arg_params, aux_params = mx.model.load_checkpoint('mlp', 3)

The private helpers at the bottom decide how ``Module.update`` combines
gradients from several devices (through a KVStore or not); MXNet keeps
them here too, shared with its old ``FeedForward`` model.
"""

import collections
import logging
import os

import numpy

from . import kvstore as kvs
from . import ndarray as nd
from . import symbol as sym
from .context import cpu

__all__ = [
    'BatchEndParam',
    'save_checkpoint',
    'load_params',
    'load_checkpoint',
]

#: What ``batch_end_callback`` functions receive after each batch:
#: the epoch, the batch number in the epoch, the training metric and the
#: ``locals()`` of the loop (MXNet's name for the tuple type is kept).
BatchEndParam = collections.namedtuple(
    'BatchEndParams', ['epoch', 'nbatch', 'eval_metric', 'locals']
)


def _params_file(prefix, epoch):
    """``'prefix-0003.params'``: four digits, as MXNet names them."""
    return '%s-%04d.params' % (prefix, epoch)


def save_checkpoint(
    prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True
):
    """Save a network and its parameters as a checkpoint.

    Parameters
    ----------
    prefix : str
        Prefix of the file names.
    epoch : int
        The epoch number, written with four digits.
    symbol : Symbol or None
        The network, written to ``prefix-symbol.json`` (skipped if None).
    arg_params : dict of str to NDArray
        Weights and biases, saved under ``'arg:<name>'``.
    aux_params : dict of str to NDArray
        Auxiliary states, saved under ``'aux:<name>'``.
    remove_amp_cast : bool, default True
        Accepted for compatibility (dlbook graphs have no AMP casts).

    Notes
    -----
    Arrays are copied to ``cpu(0)`` first, and each file is written
    atomically: an interrupted save never leaves a truncated file.

    Examples
    --------
    >>> mx.model.save_checkpoint('mlp', 3, net, args, auxs)  # doctest: +SKIP
    INFO:root:Saved checkpoint to "mlp-0003.params"
    """
    if symbol is not None:
        symbol.save('%s-symbol.json' % prefix, remove_amp_cast=remove_amp_cast)
    param_name = _params_file(prefix, epoch)
    nd.save(param_name, _join_params(arg_params, aux_params))
    logging.info('Saved checkpoint to "%s"', param_name)


def _join_params(arg_params, aux_params):
    """One ``nd.save`` dict of CPU copies, keys ``'arg:<name>'`` and
    ``'aux:<name>'``: the inverse of :func:`split_params`."""
    save_dict = {
        'arg:%s' % k: v.as_in_context(cpu()) for k, v in arg_params.items()
    }
    save_dict.update(
        {'aux:%s' % k: v.as_in_context(cpu()) for k, v in aux_params.items()}
    )
    return save_dict


def split_params(save_dict, fname):
    """Split an ``nd.load`` dict into ``(arg_params, aux_params)`` by the
    ``'arg:'``/``'aux:'`` key prefixes."""
    arg_params, aux_params = {}, {}
    for key, value in save_dict.items():
        kind, _, name = key.partition(':')
        if kind == 'arg':
            arg_params[name] = value
        elif kind == 'aux':
            aux_params[name] = value
        else:
            raise ValueError('Invalid param file ' + fname)
    return arg_params, aux_params


def load_params(prefix, epoch):
    """Load ``prefix-%04d.params``: ``(arg_params, aux_params)``.

    Parameters
    ----------
    prefix : str
    epoch : int

    Returns
    -------
    arg_params, aux_params : dict of str to NDArray
        On ``cpu(0)``, names without the ``arg:``/``aux:`` prefix.
    """
    fname = _params_file(prefix, epoch)
    save_dict = nd.load(fname)
    if not save_dict:
        logging.warning("Params file '%s' is empty", fname)
        return {}, {}
    return split_params(save_dict, fname)


def load_checkpoint(prefix, epoch):
    """Load a checkpoint saved by :func:`save_checkpoint` (or by MXNet).

    Parameters
    ----------
    prefix : str
    epoch : int

    Returns
    -------
    symbol : Symbol
        The network from ``prefix-symbol.json``.
    arg_params : dict of str to NDArray
    aux_params : dict of str to NDArray

    Examples
    --------
    >>> net, args, auxs = mx.model.load_checkpoint('mlp', 3)
    ... # doctest: +SKIP
    >>> mod = mx.mod.Module(net)                           # doctest: +SKIP
    """
    symbol = sym.load('%s-symbol.json' % prefix)
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params


# -- how Module.update shares gradients between devices ----------------------


def _create_kvstore(kvstore, num_device, arg_params):
    """The store to use and whether the store itself runs the optimizer.

    One device needs no store: its updater works in place.  With several
    devices a ``'local'`` store sums their gradients; by default it also
    runs the optimizer on its own copy of the weights
    (``update_on_kvstore``; ``MXNET_UPDATE_ON_KVSTORE=0`` turns that off,
    as do weights larger than 16M elements, as in MXNet).

    Returns
    -------
    (KVStore or None, bool)
    """
    update_on_kvstore = bool(int(os.getenv('MXNET_UPDATE_ON_KVSTORE', '1')))
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        if num_device == 1 and 'dist' not in kvstore:
            kv = None
        else:
            kv = kvs.create(kvstore)
            if kvstore == 'local' and arg_params:
                max_size = max(
                    int(numpy.prod(p.shape)) for p in arg_params.values()
                )
                if max_size > 1024 * 1024 * 16:
                    update_on_kvstore = False
    else:
        raise TypeError('kvstore must be KVStore, str or None')
    if kv is None:
        update_on_kvstore = False
    else:
        update_on_kvstore &= kv.is_capable(kvs.KVStoreBase.OPTIMIZER)
    return kv, update_on_kvstore


def _initialize_kvstore(
    kvstore, param_arrays, arg_params, param_names, update_on_kvstore
):
    """Give the store every parameter; when it runs the optimizer, copy
    its weights back to the devices so they all start identical."""
    for idx, param_on_devs in enumerate(param_arrays):
        name = param_names[idx]
        kvstore.init(name, arg_params[name])
        if update_on_kvstore and arg_params[name].stype == 'default':
            kvstore.pull(name, param_on_devs, priority=-idx)


def _update_params_on_kvstore(param_arrays, grad_arrays, kvstore, param_names):
    """Push each gradient (summed over devices), let the store update its
    weight, pull the new weight to every device."""
    for index, (arg_list, grad_list) in enumerate(
        zip(param_arrays, grad_arrays)
    ):
        if grad_list[0] is None:  # a fixed parameter
            continue
        if grad_list[0].stype == 'default' and arg_list[0].stype == 'default':
            kvstore.pushpull(
                param_names[index], grad_list, out=arg_list, priority=-index
            )
        else:
            # a row_sparse weight is not pulled (MXNet ignores it): the
            # program pulls the rows it needs with row_sparse_pull
            kvstore.push(param_names[index], grad_list, priority=-index)
            kvstore.pull(param_names[index], out=arg_list, priority=-index)


def _update_params(
    param_arrays,
    grad_arrays,
    updater,
    num_device,
    kvstore=None,
    param_names=None,
):
    """Sum the gradients through ``kvstore`` (if any), then update every
    device's copy with ``updater``.

    Each device's copy of parameter ``i`` gets its own optimizer index
    ``i * num_device + k``, so momentum and the like are kept per device
    (MXNet's trick; the replicas see identical gradients and stay equal).
    """
    updates = [[] for _ in range(num_device)]
    for index, (arg_list, grad_list) in enumerate(
        zip(param_arrays, grad_arrays)
    ):
        if grad_list[0] is None:
            continue
        if kvstore:
            # Without ``out`` the sum is written back into the gradients.
            if (
                grad_list[0].stype == 'default'
                and arg_list[0].stype == 'default'
            ):
                kvstore.pushpull(
                    param_names[index], grad_list, priority=-index
                )
            else:
                kvstore.push(param_names[index], grad_list, priority=-index)
                kvstore.pull(
                    param_names[index], out=grad_list, priority=-index
                )
        for k, (w, g) in enumerate(zip(arg_list, grad_list)):
            updates[k].append((index * num_device + k, g, w))
    for dev_updates in updates:
        if dev_updates:
            indices, grads, weights = zip(*dev_updates)
            updater(list(indices), list(grads), list(weights))
