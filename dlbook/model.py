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

The private helpers in the middle decide how ``Module.update`` combines
gradients from several devices (through a KVStore or not); MXNet keeps
them here, shared with its old :class:`FeedForward` model, which ends the
file: the pre-Module API (``model = mx.model.FeedForward(net,
num_epoch=10); model.fit(X, y)``), still found in old tutorials.
"""

import collections
import logging
import os
import time
import warnings

import numpy

from . import io, metric
from . import kvstore as kvs
from . import ndarray as nd
from . import optimizer as opt
from . import symbol as sym
from .context import Context, cpu
from .initializer import Uniform
from .optimizer import get_updater

try:  # FeedForward is a scikit-learn estimator when sklearn is installed
    from sklearn.base import BaseEstimator as BASE_ESTIMATOR

    SKLEARN_INSTALLED = True
except ImportError:
    BASE_ESTIMATOR = object
    SKLEARN_INSTALLED = False

__all__ = [
    'BASE_ESTIMATOR',
    'FeedForward',
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


# -- FeedForward: the model API before Module --------------------------------


def _multiple_callbacks(callbacks, *args, **kwargs):
    """Call ``callbacks`` (one function, a list of them, or None)."""
    if isinstance(callbacks, list):
        for callback in callbacks:
            callback(*args, **kwargs)
    elif callbacks:
        callbacks(*args, **kwargs)


def _log_validation_metrics(param):
    """FeedForward's default ``eval_end_callback``: logs
    ``Epoch[n] Validation-name=value`` like
    ``mx.callback.LogValidationMetricsCallback()`` (that module imports
    this one, so the class cannot be used here)."""
    if not param.eval_metric:
        return
    for name, value in param.eval_metric.get_name_value():
        logging.info('Epoch[%d] Validation-%s=%f', param.epoch, name, value)


def _check_arguments(symbol):
    """Raise ValueError if ``symbol`` has two arguments (or two auxiliary
    states) of the same name: FeedForward addresses them by name."""
    arg_names = symbol.list_arguments()
    seen = set()
    for name in arg_names:
        if name in seen:
            raise ValueError(
                f'Find duplicated argument name "{name}", please make the '
                f'weight name non-duplicated(using name arguments), '
                f'arguments are {arg_names}'
            )
        seen.add(name)
    aux_names = symbol.list_auxiliary_states()
    seen = set()
    for name in aux_names:
        if name in seen:
            raise ValueError(
                f'Find duplicated auxiliary param name "{name}", please '
                f'make the weight name non-duplicated(using name '
                f'arguments), arguments are {arg_names}, auxiliary params '
                f'are {aux_names}'
            )
        seen.add(name)


def _split_input_slice(batch_size, work_load_list):
    """Cut ``range(batch_size)`` into one slice per device, sized in
    proportion to ``work_load_list``.

    Examples
    --------
    >>> _split_input_slice(10, [1, 1])
    [slice(0, 5, None), slice(5, 10, None)]
    >>> _split_input_slice(10, [1, 3])
    [slice(0, 2, None), slice(2, 10, None)]
    """
    total = sum(work_load_list)
    sizes = [round(load * batch_size / total) for load in work_load_list]
    # Rounding may lose examples; the last device takes the rest.
    if sum(sizes) < batch_size:
        sizes[-1] += batch_size - sum(sizes)
    slices, end = [], 0
    for size in sizes:
        begin = int(min(end, batch_size))
        end = int(min(begin + size, batch_size))
        if begin >= end:
            raise ValueError('Too many slices. Some splits are empty.')
        slices.append(slice(begin, end))
    return slices


class _DeviceExecutors:
    """One executor per device, each bound to its slice of the batch:
    what FeedForward trains with (MXNet's ``DataParallelExecutorManager``).

    ``param_arrays``/``grad_arrays``/``aux_arrays`` hold, for each name,
    the list of the devices' copies: the layout :func:`_update_params`
    expects.
    """

    def __init__(self, symbol, ctx, input_descs, param_names, work_load_list):
        batch_size = input_descs[0].shape[0]
        self.slices = _split_input_slice(
            batch_size, work_load_list or [1] * len(ctx)
        )
        self.input_names = [d.name for d in input_descs]
        grad_req = {
            name: 'write' if name in param_names else 'null'
            for name in symbol.list_arguments()
        }
        type_dict = {d.name: d.dtype for d in input_descs}
        self.execs = []
        for dev, slc in zip(ctx, self.slices):
            shapes = {
                d.name: (slc.stop - slc.start,) + tuple(d.shape[1:])
                for d in input_descs
            }
            self.execs.append(
                symbol.simple_bind(
                    dev, grad_req=grad_req, type_dict=type_dict, **shapes
                )
            )
        self.param_names = param_names
        self.aux_names = symbol.list_auxiliary_states()
        self.param_arrays = [
            [e.arg_dict[name] for e in self.execs] for name in param_names
        ]
        self.grad_arrays = [
            [e.grad_dict[name] for e in self.execs] for name in param_names
        ]
        self.aux_arrays = [
            [e.aux_dict[name] for e in self.execs] for name in self.aux_names
        ]

    def set_params(self, arg_params, aux_params):
        for e in self.execs:
            e.copy_params_from(arg_params, aux_params)

    def copy_to(self, arg_params, aux_params):
        """Write the devices' average of each parameter into the dicts."""
        for names, blocks, target in (
            (self.param_names, self.param_arrays, arg_params),
            (self.aux_names, self.aux_arrays, aux_params),
        ):
            for name, block in zip(names, blocks):
                mean = sum(w.copyto(cpu()) for w in block) / len(block)
                mean.astype(target[name].dtype).copyto(target[name])

    def load_data_batch(self, batch):
        expected = self.slices[-1].stop
        for name, array in zip(self.input_names, batch.data + batch.label):
            if array.shape[0] != expected:
                raise ValueError(
                    f'Batch size miss match. Expected {expected}, got '
                    f'{array.shape[0]}'
                )
            for e, slc in zip(self.execs, self.slices):
                array[slc.start : slc.stop].copyto(e.arg_dict[name])

    def forward(self, is_train):
        for e in self.execs:
            e.forward(is_train=is_train)

    def backward(self):
        for e in self.execs:
            e.backward()

    def update_metric(self, eval_metric, labels):
        for e, slc in zip(self.execs, self.slices):
            eval_metric.update(
                [label[slc.start : slc.stop] for label in labels], e.outputs
            )

    def install_monitor(self, monitor):
        for e in self.execs:
            monitor.install(e)


class FeedForward(BASE_ESTIMATOR):
    """A feed-forward network trained with ``fit(X, y)``: MXNet's model
    API before :class:`~dlbook.module.Module` (deprecated there too, and
    it warns so), kept for old code and tutorials.

    It holds the parameters as plain dicts (``arg_params``,
    ``aux_params``) and trains data-parallel over ``ctx``; ``predict`` and
    ``score`` run on ``ctx[0]`` only.  Unlike ``Module.fit`` it logs no
    ``Train-`` metric, and after each pass it logs ``Epoch[n] Resetting
    Data Iterator``.  Semantics: ``apache/mxnet@1.9.1:python/mxnet/model.py``.

    Parameters
    ----------
    symbol : Symbol
        The network, ending in a loss output (``SoftmaxOutput``).
    ctx : Context or list of Context, default ``[cpu()]``
    num_epoch : int, optional
        Train until this epoch (needed by ``fit``).
    epoch_size : int, optional
        Batches per epoch (default: one pass over the data; more passes
        are made to fill a larger epoch).
    optimizer : str or Optimizer, default 'sgd'
        A name is created with ``rescale_grad=1/batch_size`` and the
        extra ``kwargs`` (``learning_rate=0.1``, ``momentum``...).
    initializer : Initializer, default ``Uniform(0.01)``
        For the parameters not given in ``arg_params``/``aux_params``.
    numpy_batch_size : int, default 128
        The batch size when ``X`` is an array.
    arg_params, aux_params : dict of str to NDArray, optional
        Starting values (a checkpoint's).
    allow_extra_params : bool, default False
        Drop names of ``arg_params``/``aux_params`` the symbol lacks.
    begin_epoch : int, default 0
    **kwargs
        Passed to the optimizer.

    Examples
    --------
    >>> model = mx.model.FeedForward(net, num_epoch=10,    # doctest: +SKIP
    ...                              numpy_batch_size=32, learning_rate=0.1)
    >>> model.fit(X_train, y_train, eval_data=(X_val, y_val))
    >>> prob = model.predict(X_val)       # numpy.ndarray
    """

    def __init__(
        self,
        symbol,
        ctx=None,
        num_epoch=None,
        epoch_size=None,
        optimizer='sgd',
        initializer=Uniform(0.01),
        numpy_batch_size=128,
        arg_params=None,
        aux_params=None,
        allow_extra_params=False,
        begin_epoch=0,
        **kwargs,
    ):
        warnings.warn(
            '\033[91mmxnet.model.FeedForward has been deprecated. '
            'Please use mxnet.mod.Module instead.\033[0m',
            DeprecationWarning,
            stacklevel=2,
        )
        if not isinstance(symbol, sym.Symbol):
            raise TypeError(
                'FeedForward needs a Symbol (a sym_gen function for '
                'bucketing is not supported: use mx.mod.BucketingModule)'
            )
        self.symbol = symbol
        self.arg_params = arg_params
        self.aux_params = aux_params
        self.allow_extra_params = allow_extra_params
        self.argument_checked = False
        self._check_arguments()
        if ctx is None:
            ctx = [cpu()]
        elif isinstance(ctx, Context):
            ctx = [ctx]
        self.ctx = ctx
        self.num_epoch = num_epoch
        self.epoch_size = epoch_size
        self.kwargs = kwargs.copy()
        self.optimizer = optimizer
        self.initializer = initializer
        self.numpy_batch_size = numpy_batch_size
        self._pred_exec = None
        self.begin_epoch = begin_epoch

    def _check_arguments(self):
        """Check the symbol's names once; with ``allow_extra_params``,
        drop the given parameters the symbol does not have."""
        if self.argument_checked:
            return
        self.argument_checked = True
        _check_arguments(self.symbol)
        if self.allow_extra_params:
            if self.arg_params:
                names = set(self.symbol.list_arguments())
                self.arg_params = {
                    k: v for k, v in self.arg_params.items() if k in names
                }
            if self.aux_params:
                names = set(self.symbol.list_auxiliary_states())
                self.aux_params = {
                    k: v for k, v in self.aux_params.items() if k in names
                }

    @staticmethod
    def _is_data_arg(name):
        """Whether an argument name is an input (ends in data or label)."""
        return name.endswith('data') or name.endswith('label')

    def _init_params(self, inputs, overwrite=False):
        """Allocate every parameter from the input shapes; copy the given
        values, initialize the others.  Returns ``(arg_names,
        param_names, aux_names)``."""
        inputs = [
            x if isinstance(x, io.DataDesc) else io.DataDesc(*x)
            for x in inputs
        ]
        input_shapes = {x.name: x.shape for x in inputs}
        arg_shapes, _, aux_shapes = self.symbol.infer_shape(**input_shapes)
        arg_dtypes, _, aux_dtypes = self.symbol.infer_type(
            **{x.name: x.dtype for x in inputs}
        )
        arg_names = self.symbol.list_arguments()
        param_names = [k for k in arg_names if k not in input_shapes]
        aux_names = self.symbol.list_auxiliary_states()
        arg_params = {
            k: nd.zeros(shape=s, dtype=t)
            for k, s, t in zip(arg_names, arg_shapes, arg_dtypes)
            if k in param_names
        }
        aux_params = {
            k: nd.zeros(shape=s, dtype=t)
            for k, s, t in zip(aux_names, aux_shapes, aux_dtypes)
        }
        for given, new in (
            (self.arg_params, arg_params),
            (self.aux_params, aux_params),
        ):
            for k, v in new.items():
                if given and k in given and not overwrite:
                    v[:] = given[k][:]
                else:
                    self.initializer(k, v)
        self.arg_params = arg_params
        self.aux_params = aux_params
        return arg_names, param_names, aux_names

    def __getstate__(self):
        this = self.__dict__.copy()
        this['_pred_exec'] = None  # executors do not pickle
        return this

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _init_predictor(self, input_shapes, type_dict=None):
        """Bind (or reuse) the prediction executor on ``ctx[0]``."""
        shapes = {name: v.shape for name, v in self.arg_params.items()}
        shapes.update(dict(input_shapes))
        if self._pred_exec is not None:
            arg_shapes, _, _ = self.symbol.infer_shape(**shapes)
            if arg_shapes == [x.shape for x in self._pred_exec.arg_arrays]:
                return
        pred_exec = self.symbol.simple_bind(
            self.ctx[0], grad_req='null', type_dict=type_dict, **shapes
        )
        pred_exec.copy_params_from(self.arg_params, self.aux_params)
        self._pred_exec = pred_exec

    def _init_iter(self, X, y, is_train):
        """``X`` as a DataIter: arrays become an ``NDArrayIter`` of
        ``numpy_batch_size`` (shuffled, ``'roll_over'`` for training)."""
        if isinstance(X, (numpy.ndarray, nd.NDArray)):
            if y is None:
                if is_train:
                    raise ValueError(
                        'y must be specified when X is numpy.ndarray'
                    )
                y = numpy.zeros(X.shape[0])
            if not isinstance(y, (numpy.ndarray, nd.NDArray)):
                raise TypeError('y must be ndarray when X is numpy.ndarray')
            if X.shape[0] != y.shape[0]:
                raise ValueError(
                    'The numbers of data points and labels not equal'
                )
            if y.ndim == 2 and y.shape[1] == 1:
                y = y.flatten()
            if y.ndim != 1:
                raise ValueError(
                    'Label must be 1D or 2D (with 2nd dimension being 1)'
                )
            batch_size = min(X.shape[0], self.numpy_batch_size)
            if is_train:
                return io.NDArrayIter(
                    X,
                    y,
                    batch_size,
                    shuffle=True,
                    last_batch_handle='roll_over',
                )
            return io.NDArrayIter(X, y, batch_size, shuffle=False)
        if not isinstance(X, io.DataIter):
            raise TypeError('X must be DataIter, NDArray or numpy.ndarray')
        return X

    def _init_eval_iter(self, eval_data):
        """``eval_data`` as a DataIter (it may be an ``(X, y)`` pair)."""
        if eval_data is None:
            return None
        if isinstance(eval_data, (tuple, list)) and len(eval_data) == 2:
            data, label = eval_data
            if data is None:
                raise ValueError('Eval data is NONE')
            if label is None and isinstance(data, io.DataIter):
                return data
            if isinstance(data, list):
                data = numpy.array(data)
            if isinstance(label, list):
                label = numpy.array(label)
            return self._init_iter(data, label, is_train=True)
        if not isinstance(eval_data, io.DataIter):
            raise TypeError(
                'Eval data must be DataIter, or NDArray/numpy.ndarray/list '
                'pair (i.e. tuple/list of length 2)'
            )
        return eval_data

    def _bind_predictor_for(self, X):
        """Bind the predictor for ``X.provide_data``; the data arrays."""
        type_dict = {k: v.dtype for k, v in self.arg_params.items()}
        for x in X.provide_data:
            if isinstance(x, io.DataDesc):
                type_dict[x.name] = x.dtype
            else:
                type_dict[x[0]] = numpy.float32
        self._init_predictor(X.provide_data, type_dict)
        return [self._pred_exec.arg_dict[x[0]] for x in X.provide_data]

    def predict(self, X, num_batch=None, return_data=False, reset=True):
        """Predict on ``ctx[0]``.

        Parameters
        ----------
        X : DataIter or numpy.ndarray or NDArray
        num_batch : int, optional
            Stop after this many batches.
        return_data : bool, default False
            Also return the data and labels seen (padding removed).
        reset : bool, default True

        Returns
        -------
        numpy.ndarray (a list of them for several outputs)
            The outputs without the last batch's padding; with
            ``return_data``, ``(outputs, data, label)``.
        """
        X = self._init_iter(X, None, is_train=False)
        if reset:
            X.reset()
        data_arrays = self._bind_predictor_for(X)
        output_list = [[] for _ in self.symbol.list_outputs()]
        data_list = [[] for _ in X.provide_data]
        label_list = [[] for _ in X.provide_label]
        for i, batch in enumerate(X):
            for src, dst in zip(batch.data, data_arrays):
                src.copyto(dst)
            self._pred_exec.forward(is_train=False)
            real_size = X.batch_size - batch.pad
            for o_list, o_nd in zip(output_list, self._pred_exec.outputs):
                o_list.append(o_nd[0:real_size].asnumpy())
            if return_data:
                for j, x in enumerate(batch.data):
                    data_list[j].append(x[0:real_size].asnumpy())
                for j, x in enumerate(batch.label):
                    label_list[j].append(x[0:real_size].asnumpy())
            if num_batch is not None and i + 1 == num_batch:
                break
        outputs = [numpy.concatenate(x) for x in output_list]
        if len(outputs) == 1:
            outputs = outputs[0]
        if not return_data:
            return outputs
        data = [numpy.concatenate(x) for x in data_list]
        label = [numpy.concatenate(x) for x in label_list]
        return (
            outputs,
            data[0] if len(data) == 1 else data,
            label[0] if len(label) == 1 else label,
        )

    def score(
        self,
        X,
        eval_metric='acc',
        num_batch=None,
        batch_end_callback=None,
        reset=True,
    ):
        """Evaluate ``eval_metric`` on ``X`` (on ``ctx[0]``).

        Returns
        -------
        float (a list for a composite metric)
            ``eval_metric.get()[1]``: the value only, not ``(name,
            value)`` pairs as ``Module.score`` returns.  Padding is *not*
            removed: a padded last batch counts its repeated examples.
        """
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        X = self._init_iter(X, None, is_train=False)
        if reset:
            X.reset()
        data_arrays = self._bind_predictor_for(X)
        for i, batch in enumerate(X):
            if num_batch is not None and i == num_batch:
                break
            for src, dst in zip(batch.data, data_arrays):
                src.copyto(dst)
            self._pred_exec.forward(is_train=False)
            eval_metric.update(batch.label, self._pred_exec.outputs)
            if batch_end_callback is not None:
                _multiple_callbacks(
                    batch_end_callback,
                    BatchEndParam(
                        epoch=0,
                        nbatch=i,
                        eval_metric=eval_metric,
                        locals=locals(),
                    ),
                )
        return eval_metric.get()[1]

    def fit(
        self,
        X,
        y=None,
        eval_data=None,
        eval_metric='acc',
        epoch_end_callback=None,
        batch_end_callback=None,
        kvstore='local',
        logger=None,
        work_load_list=None,
        monitor=None,
        eval_end_callback=_log_validation_metrics,
        eval_batch_end_callback=None,
    ):
        """Train from ``begin_epoch`` to ``num_epoch``.

        Parameters
        ----------
        X : DataIter or numpy.ndarray or NDArray
            Training data; arrays need ``y`` and are batched by
            ``numpy_batch_size``, shuffled.
        y : numpy.ndarray or NDArray, optional
            Labels, 1-D (or 2-D with one column).
        eval_data : DataIter or (X, y) pair, optional
            Scored after each epoch; ``eval_end_callback`` logs
            ``Epoch[n] Validation-accuracy=...``.
        eval_metric : str or EvalMetric, default 'acc'
        epoch_end_callback : function or list
            ``callback(epoch, symbol, arg_params, aux_params)``, e.g.
            ``mx.callback.do_checkpoint(prefix)``.
        batch_end_callback : function or list
            Called with a ``BatchEndParam`` whose ``nbatch`` counts from
            1 (``Module.fit`` counts from 0).
        kvstore : str or KVStore, default 'local'
        logger : logging.Logger, optional
        work_load_list : list of number, optional
            Share of each batch per device.
        monitor : Monitor, optional
        eval_end_callback, eval_batch_end_callback : function or list
        """
        if logger is None:
            logger = logging
        data = self._init_iter(X, y, is_train=True)
        eval_data = self._init_eval_iter(eval_data)
        self.kwargs['sym'] = self.symbol
        arg_names, param_names, aux_names = self._init_params(
            data.provide_data + data.provide_label
        )
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        kv, update_on_kvstore = _create_kvstore(
            kvstore, len(self.ctx), self.arg_params
        )
        param_idx2name = {}
        if update_on_kvstore:
            param_idx2name.update(enumerate(param_names))
        else:
            for i, name in enumerate(param_names):
                for k in range(len(self.ctx)):
                    param_idx2name[i * len(self.ctx) + k] = name
        self.kwargs['param_idx2name'] = param_idx2name
        if isinstance(self.optimizer, str):
            batch_size = data.batch_size
            if kv and 'dist' in kv.type and '_async' not in kv.type:
                batch_size *= kv.num_workers
            optimizer = opt.create(
                self.optimizer, rescale_grad=(1.0 / batch_size), **self.kwargs
            )
        else:
            optimizer = self.optimizer
            if not optimizer.idx2name:
                optimizer.idx2name = param_idx2name.copy()
        logger.info('Start training with %s', str(self.ctx))
        executors = _DeviceExecutors(
            self.symbol,
            self.ctx,
            [
                x if isinstance(x, io.DataDesc) else io.DataDesc(*x)
                for x in data.provide_data + data.provide_label
            ],
            param_names,
            work_load_list,
        )
        self._train(
            executors,
            optimizer,
            kv,
            update_on_kvstore,
            data,
            eval_data,
            eval_metric,
            epoch_end_callback,
            batch_end_callback,
            logger,
            monitor,
            eval_end_callback,
            eval_batch_end_callback,
        )

    def _train(
        self,
        executors,
        optimizer,
        kv,
        update_on_kvstore,
        train_data,
        eval_data,
        eval_metric,
        epoch_end_callback,
        batch_end_callback,
        logger,
        monitor,
        eval_end_callback,
        eval_batch_end_callback,
    ):
        """The training loop (MXNet's ``_train_multi_device``); updates
        ``self.arg_params``/``self.aux_params`` in place."""
        if monitor:
            executors.install_monitor(monitor)
        executors.set_params(self.arg_params, self.aux_params)
        if update_on_kvstore:
            kv.set_optimizer(optimizer)
        else:
            updater = get_updater(optimizer)
        if kv:
            _initialize_kvstore(
                kv,
                executors.param_arrays,
                self.arg_params,
                executors.param_names,
                update_on_kvstore,
            )
        train_data.reset()
        for epoch in range(self.begin_epoch, self.num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            while True:
                do_reset = True
                for data_batch in train_data:
                    executors.load_data_batch(data_batch)
                    if monitor is not None:
                        monitor.tic()
                    executors.forward(is_train=True)
                    executors.backward()
                    if update_on_kvstore:
                        _update_params_on_kvstore(
                            executors.param_arrays,
                            executors.grad_arrays,
                            kv,
                            executors.param_names,
                        )
                    else:
                        _update_params(
                            executors.param_arrays,
                            executors.grad_arrays,
                            updater=updater,
                            num_device=len(self.ctx),
                            kvstore=kv,
                            param_names=executors.param_names,
                        )
                    if monitor is not None:
                        monitor.toc_print()
                    executors.update_metric(eval_metric, data_batch.label)
                    nbatch += 1
                    if batch_end_callback is not None:
                        _multiple_callbacks(
                            batch_end_callback,
                            BatchEndParam(
                                epoch=epoch,
                                nbatch=nbatch,
                                eval_metric=eval_metric,
                                locals=locals(),
                            ),
                        )
                    if (
                        self.epoch_size is not None
                        and nbatch >= self.epoch_size
                    ):
                        do_reset = False
                        break
                if do_reset:
                    logger.info('Epoch[%d] Resetting Data Iterator', epoch)
                    train_data.reset()
                if self.epoch_size is None or nbatch >= self.epoch_size:
                    break
            logger.info('Epoch[%d] Time cost=%.3f', epoch, time.time() - tic)
            if epoch_end_callback or epoch + 1 == self.num_epoch:
                executors.copy_to(self.arg_params, self.aux_params)
            _multiple_callbacks(
                epoch_end_callback,
                epoch,
                self.symbol,
                self.arg_params,
                self.aux_params,
            )
            if eval_data:
                self._evaluate(
                    executors,
                    eval_data,
                    eval_metric,
                    epoch,
                    eval_end_callback,
                    eval_batch_end_callback,
                )

    @staticmethod
    def _evaluate(
        executors,
        eval_data,
        eval_metric,
        epoch,
        eval_end_callback,
        eval_batch_end_callback,
    ):
        """Score ``eval_data`` with the training executors (padding is
        counted) and call the evaluation callbacks."""
        eval_metric.reset()
        eval_data.reset()
        total_num_batch = 0
        for i, eval_batch in enumerate(eval_data):
            executors.load_data_batch(eval_batch)
            executors.forward(is_train=False)
            executors.update_metric(eval_metric, eval_batch.label)
            if eval_batch_end_callback is not None:
                _multiple_callbacks(
                    eval_batch_end_callback,
                    BatchEndParam(
                        epoch=epoch,
                        nbatch=i,
                        eval_metric=eval_metric,
                        locals=locals(),
                    ),
                )
            total_num_batch += 1
        if eval_end_callback is not None:
            _multiple_callbacks(
                eval_end_callback,
                BatchEndParam(
                    epoch=epoch,
                    nbatch=total_num_batch,
                    eval_metric=eval_metric,
                    locals=locals(),
                ),
            )
        eval_data.reset()

    def save(self, prefix, epoch=None, remove_amp_cast=True):
        """Save a checkpoint (``prefix-symbol.json``,
        ``prefix-%04d.params``); ``epoch`` defaults to ``num_epoch``."""
        if epoch is None:
            epoch = self.num_epoch
        if epoch is None:
            raise ValueError('save(): give epoch (num_epoch is not set)')
        save_checkpoint(
            prefix,
            epoch,
            self.symbol,
            self.arg_params,
            self.aux_params,
            remove_amp_cast=remove_amp_cast,
        )

    @staticmethod
    def load(prefix, epoch, ctx=None, **kwargs):
        """A FeedForward from a checkpoint, ``begin_epoch=epoch`` (so
        ``fit`` resumes); ``kwargs`` go to :class:`FeedForward`."""
        symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
        return FeedForward(
            symbol,
            ctx=ctx,
            arg_params=arg_params,
            aux_params=aux_params,
            begin_epoch=epoch,
            **kwargs,
        )

    @staticmethod
    def create(
        symbol,
        X,
        y=None,
        ctx=None,
        num_epoch=None,
        epoch_size=None,
        optimizer='sgd',
        initializer=Uniform(0.01),
        eval_data=None,
        eval_metric='acc',
        epoch_end_callback=None,
        batch_end_callback=None,
        kvstore='local',
        logger=None,
        work_load_list=None,
        eval_end_callback=_log_validation_metrics,
        eval_batch_end_callback=None,
        **kwargs,
    ):
        """Create a FeedForward and ``fit`` it in one call (the
        functional style); returns the trained model."""
        model = FeedForward(
            symbol,
            ctx=ctx,
            num_epoch=num_epoch,
            epoch_size=epoch_size,
            optimizer=optimizer,
            initializer=initializer,
            **kwargs,
        )
        model.fit(
            X,
            y,
            eval_data=eval_data,
            eval_metric=eval_metric,
            epoch_end_callback=epoch_end_callback,
            batch_end_callback=batch_end_callback,
            kvstore=kvstore,
            logger=logger,
            work_load_list=work_load_list,
            eval_end_callback=eval_end_callback,
            eval_batch_end_callback=eval_batch_end_callback,
        )
        return model
