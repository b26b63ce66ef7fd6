"""The :class:`Optimizer` base class and the optimizer registry.

An optimizer turns a gradient into an in-place change of a weight.  The
base class holds what every rule shares, with the behaviour of
``apache/mxnet@1.9.1:python/mxnet/optimizer/optimizer.py``:

* the learning rate (``learning_rate``, or ``lr_scheduler(num_update)``)
  and weight decay ``wd``, scaled per parameter by ``lr_mult``/``wd_mult``
  (from ``param_dict`` in Gluon, ``set_lr_mult``/``set_wd_mult`` or the
  ``param_idx2name`` convention in the Module API);
* ``rescale_grad`` (``1 / batch_size`` from ``Trainer.step``) and
  ``clip_gradient``;
* the update counters: ``_index_update_count[index]`` is the step ``t`` of
  one weight and ``num_update`` the largest of them.

Subclasses create their state with :meth:`Optimizer.create_state` and
implement ``_update_one(index, weight, grad, state)`` (user subclasses may
override ``update`` directly, as in MXNet), which usually starts with
``lr, wd = self._begin_update(index)``.  The arithmetic itself lives in
small functions on raw arrays (``sgd.py``, ``adam.py``, ``adaptive.py``,
``large_batch.py``, with the gradient rescaling and clipping they share in
``_gradient.py``).
"""

import warnings

import numpy

from .. import ndarray as nd
from ..base import UsageError

__all__ = ['Optimizer', 'register', 'create']


class Optimizer:
    """The base class inherited by all optimizers.

    Parameters
    ----------
    rescale_grad : float, optional, default 1.0
        Multiply the gradient with ``rescale_grad`` before updating; the
        Trainer sets it to ``1 / batch_size``.
    param_idx2name : dict of int to str, optional
        Index to parameter name.  When given, the weight decay multiplier
        is 0 for names not ending in ``_weight`` or ``_gamma`` (the Module
        API's convention: no decay on biases).
    wd : float, optional, default 0.0
        The weight decay (L2 regularization) coefficient.
    clip_gradient : float, optional
        Clip the gradient into ``[-clip_gradient, clip_gradient]``.
    learning_rate : float, optional
        The initial learning rate; 0.01 when neither it nor
        ``lr_scheduler`` is given.  With a scheduler it overrides the
        scheduler's ``base_lr``.
    lr_scheduler : LRScheduler, optional
        Gives the learning rate as ``lr_scheduler(num_update)``.
    sym : Symbol, optional
        A symbol whose variables' ``__lr_mult__``/``__wd_mult__``
        attributes set the multipliers.
    begin_num_update : int, optional, default 0
        The initial number of updates.
    multi_precision : bool, optional, default False
        Keep a float32 master copy of float16 weights and update that.
    param_dict : dict of int to Parameter, optional
        Index to Gluon ``Parameter``; its ``lr_mult`` and ``wd_mult`` scale
        the learning rate and weight decay.

    Attributes
    ----------
    learning_rate : float
        The current learning rate.
    """

    #: Registered optimizer classes by lower-case name.
    opt_registry = {}

    #: With ``param_idx2name``, only names with these endings get weight
    #: decay (biases and BatchNorm's beta do not).
    decayed_suffixes = ('_weight', '_gamma')

    def __init__(
        self,
        rescale_grad=1.0,
        param_idx2name=None,
        wd=0.0,
        clip_gradient=None,
        learning_rate=None,
        lr_scheduler=None,
        sym=None,
        begin_num_update=0,
        multi_precision=False,
        param_dict=None,
    ):
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if self.lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if self.lr_scheduler is not None and learning_rate is not None:
            if self.lr_scheduler.base_lr != learning_rate:
                # MXNet prints (not warns) this message; kept verbatim.
                print(
                    UserWarning(
                        'learning rate from ``lr_scheduler`` has been '
                        'overwritten by ``learning_rate`` in optimizer.'
                    )
                )
                self.lr_scheduler.base_lr = learning_rate

        self.wd = wd
        self.lr_mult = {}
        self.wd_mult = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        # One table of counts per device (Updater._set_current_context).
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        # Only SGD hands lists of weights to update() (Updater aggregation).
        self.aggregate_num = 0

        if param_idx2name is None:
            param_idx2name = {}
        if not isinstance(param_idx2name, dict):
            raise UsageError(
                f'param_idx2name should be a dict of param indexes to '
                f'names, got {type(param_idx2name).__name__}: '
                f"{{0: 'fc1_weight', 1: 'fc1_bias'}}."
            )
        self.idx2name = param_idx2name.copy()
        self.sym_info = (
            (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        )
        self.param_dict = param_dict if param_dict else {}

        self.set_lr_mult({})
        self.set_wd_mult({})

    # -- registry ---------------------------------------------------------

    @staticmethod
    def register(klass):
        """Register an optimizer class under its lower-case class name.

        Examples
        --------
        >>> @mx.optimizer.Optimizer.register
        ... class MyOptimizer(mx.optimizer.Optimizer):
        ...     pass
        >>> optim = mx.optimizer.Optimizer.create_optimizer('MyOptimizer')
        """
        if not isinstance(klass, type):
            raise UsageError(
                f'Optimizer.register takes a class (a subclass of '
                f'Optimizer), got {type(klass).__name__} {klass!r}; use it '
                f'as the decorator @mx.optimizer.register.'
            )
        name = klass.__name__.lower()
        if name in Optimizer.opt_registry:
            old = Optimizer.opt_registry[name]
            warnings.warn(
                f'WARNING: New optimizer {klass.__module__}.'
                f'{klass.__name__} is overriding existing '
                f'optimizer {old.__module__}.{old.__name__}'
            )
        Optimizer.opt_registry[name] = klass
        return klass

    @staticmethod
    def create_optimizer(name, **kwargs):
        """Instantiate the optimizer registered as ``name`` (any case).

        Examples
        --------
        >>> sgd = mx.optimizer.Optimizer.create_optimizer('sgd')
        >>> adam = mx.optimizer.create('adam', learning_rate=.1)
        """
        if name.lower() in Optimizer.opt_registry:
            return Optimizer.opt_registry[name.lower()](**kwargs)
        raise ValueError(f'Cannot find optimizer {name}')

    # -- learning rate ----------------------------------------------------

    @property
    def learning_rate(self):
        """The current learning rate (the scheduler's, if there is one)."""
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        """Set a new learning rate; not allowed with an ``lr_scheduler``.

        Parameters
        ----------
        lr : float
            The new learning rate of the optimizer.
        """
        if self.lr_scheduler is not None:
            raise UserWarning(
                'LRScheduler of the optimizer has already been '
                'defined. Note that set_learning_rate can '
                'mutate the value of the learning rate of the '
                'optimizer only when the LRScheduler of the '
                'optimizer is undefined.'
            )
        self.lr = lr

    def set_lr_scale(self, args_lrscale):
        """[DEPRECATED] Sets lr scale. Use set_lr_mult instead."""
        raise DeprecationWarning

    def set_lr_mult(self, args_lr_mult):
        """Set a learning-rate multiplier per parameter.

        Parameters
        ----------
        args_lr_mult : dict of str or int to float
            Multiplier by parameter name (with ``sym`` or
            ``param_idx2name``) or by index.
        """
        self.lr_mult = {}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and '__lr_mult__' in attr[name]:
                    self.lr_mult[name] = float(attr[name]['__lr_mult__'])
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        """Set a weight-decay multiplier per parameter.

        With ``param_idx2name``, names not ending in one of
        ``decayed_suffixes`` (``_weight``, ``_gamma``) get multiplier 0
        unless set here.

        Parameters
        ----------
        args_wd_mult : dict of str or int to float
            Multiplier by parameter name or by index.
        """
        self.wd_mult = {
            n: 0.0
            for n in self.idx2name.values()
            if not n.endswith(self.decayed_suffixes)
        }
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and '__wd_mult__' in attr[name]:
                    self.wd_mult[name] = float(attr[name]['__wd_mult__'])
        self.wd_mult.update(args_wd_mult)

    # -- counters and per-parameter rates ---------------------------------

    def _set_current_context(self, device_id):
        """Use the update counts of device ``device_id`` from now on."""
        if device_id not in self._all_index_update_counts:
            self._all_index_update_counts[device_id] = {}
        self._index_update_count = self._all_index_update_counts[device_id]

    def _update_count(self, index):
        """Count one more update of ``index`` (an int or a list)."""
        counts = self._index_update_count
        for idx in index if isinstance(index, (list, tuple)) else (index,):
            count = counts[idx] = counts.get(idx, self.begin_num_update) + 1
            if count > self.num_update:
                self.num_update = count

    def _base_lr(self):
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def _lr_of(self, index, lr):
        if index in self.param_dict:
            return lr * self.param_dict[index].lr_mult
        if index in self.lr_mult:
            return lr * self.lr_mult[index]
        if index in self.idx2name:
            return lr * self.lr_mult.get(self.idx2name[index], 1.0)
        return lr

    def _wd_of(self, index):
        wd = self.wd
        if index in self.param_dict:
            return wd * self.param_dict[index].wd_mult
        if index in self.wd_mult:
            return wd * self.wd_mult[index]
        if index in self.idx2name:
            return wd * self.wd_mult.get(self.idx2name[index], 1.0)
        return wd

    def _get_lrs(self, indices):
        """Learning rates of ``indices``: scheduler or ``lr``, times
        ``lr_mult``."""
        lr = self._base_lr()
        return [self._lr_of(index, lr) for index in indices]

    def _get_lr(self, index):
        """Learning rate of one weight (a Python float)."""
        return float(self._lr_of(index, self._base_lr()))

    def _get_wds(self, indices):
        """Weight decays of ``indices``: ``wd`` times ``wd_mult``."""
        return [self._wd_of(index) for index in indices]

    def _get_wd(self, index):
        """Weight decay of one weight (a Python float)."""
        return float(self._wd_of(index))

    def _begin_update(self, index):
        """Count one more update of ``index`` and return its ``(lr, wd)``:
        the first lines of every ``_update_one``."""
        self._update_count(index)
        return self._get_lr(index), self._get_wd(index)

    # -- states and updates -----------------------------------------------

    def create_state(self, index, weight):
        """Create the auxiliary state (momentum ...) of one weight.

        Called once per weight; the result is handed back to ``update``.
        States are NDArrays on the weight's context.

        Parameters
        ----------
        index : int
            A unique index identifying the weight.
        weight : NDArray
            The weight.

        Returns
        -------
        state : any obj
            The state associated with the weight (None if there is none).
        """

    def create_state_multi_precision(self, index, weight):
        """Create the state, plus a float32 master copy of float16 weights
        when ``multi_precision`` is on: ``(weight32, state)``."""
        if self.multi_precision and weight.dtype == numpy.float16:
            weight_master_copy = weight.astype(numpy.float32)
            return (weight_master_copy,) + (
                self.create_state(index, weight_master_copy),
            )
        if weight.dtype == numpy.float16 and not self.multi_precision:
            warnings.warn(
                'Accumulating with float16 in optimizer can lead '
                'to poor accuracy or slow convergence. Consider '
                'using multi_precision=True option of the '
                'optimizer'
            )
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        """Update ``weight`` in place from ``grad`` and ``state``.

        ``index``, ``weight``, ``grad`` and ``state`` may also be lists of
        equal length (MXNet 1.6+ aggregated updates); each weight is then
        updated in turn.

        Parameters
        ----------
        index : int or list of int
            The unique index of the parameter, for learning-rate and
            weight-decay multipliers and the step count.
        weight : NDArray or list of NDArray
            The parameter to be updated.
        grad : NDArray or list of NDArray
            The gradient of the objective with respect to the parameter.
        state : any obj or list
            The state returned by ``create_state()``.
        """
        if isinstance(index, (list, tuple)):
            for one in zip(index, weight, grad, state):
                self._update_one(*one)
        else:
            self._update_one(index, weight, grad, state)

    def _update_one(self, index, weight, grad, state):
        """Update one weight; subclasses implement their rule here."""
        raise NotImplementedError()

    def update_multi_precision(self, index, weight, grad, state):
        """``update``, through the float32 master copy of a float16 weight
        when ``multi_precision`` is on."""
        if not self.multi_precision:
            self.update(index, weight, grad, state)
            return
        if isinstance(index, (list, tuple)):
            for one in zip(index, weight, grad, state):
                self.update_multi_precision(*one)
            return
        if weight.dtype == numpy.float16:
            weight_master_copy, original_state = state[0], state[1]
            grad32 = grad.astype(numpy.float32)
            self.update(index, weight_master_copy, grad32, original_state)
            # Cast back into the float16 array itself (shared by views).
            weight._data[...] = weight_master_copy._data
        else:
            self.update(index, weight, grad, state)

    # -- helpers for subclasses --------------------------------------------

    @staticmethod
    def _kernel_bound(bound):
        """A clipping bound as MXNet's fused kernels see it: None (no
        clipping) unless set to a number > 0.

        MXNet passes such bounds to its C++ update operators only if they
        are truthy and the operators ignore negative values.
        """
        return bound if bound and bound >= 0 else None

    def _kernel_clip(self):
        """``clip_gradient`` as MXNet's fused kernels see it: 0 and
        negative values mean "no clipping" for SGD, Adam, RMSProp ..."""
        return self._kernel_bound(self.clip_gradient)

    def _python_clip(self):
        """``clip_gradient`` as MXNet's Python-level rules see it (AdaGrad,
        AdaDelta, Adamax, Nadam ...): any value that is not None clips."""
        return self.clip_gradient

    @staticmethod
    def _zeros_like(weight, dtype=None):
        """A zero state array on ``weight``'s context."""
        return nd.zeros(
            weight.shape,
            ctx=weight.context,
            dtype=weight.dtype if dtype is None else dtype,
        )

    # -- pickling / copying keeps param_dict out, as MXNet does -------------

    def __getstate__(self):
        ret = self.__dict__.copy()
        ret.pop('param_dict', None)
        return ret

    def __setstate__(self, state):
        self.__dict__ = state
        # The Trainer sets param_dict again after loading.
        self.param_dict = {}


# Convenience wrappers, as in MXNet.
register = Optimizer.register
create = Optimizer.create_optimizer
