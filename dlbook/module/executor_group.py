"""Data parallelism for the Module API: one executor per device.

A :class:`DataParallelExecutorGroup` binds the same symbol once per
context.  Each batch is cut along its batch axis into one slice per
device (sizes proportional to ``work_load_list``); every executor runs
forward and backward on its slice, with its own copy of the parameters.
``Module.update`` then sums the gradients over the devices and applies
the same update everywhere, so the copies stay identical (see
``dlbook.model._update_params``).

The behaviour follows
``apache/mxnet@1.9.1:python/mxnet/module/executor_group.py``.
"""

from collections import OrderedDict

from .. import ndarray as nd
from ..context import cpu
from ..io import DataDesc
from ..model import _split_input_slice  # shared with FeedForward
from .base_module import ModuleUsageError

__all__ = ['DataParallelExecutorGroup']


def _load_general(sources, targets, axes):
    """Copy each source array, sliced per device, into its targets.

    ``targets[i]`` is a list of ``(slice, array)`` pairs, one per device;
    a source given as a list (pre-sliced batches) has one array per
    device.
    """
    for src, dsts, axis in zip(sources, targets, axes):
        if isinstance(src, (list, tuple)):
            for part, (_, dst) in zip(src, dsts):
                dst[:] = part
            continue
        for islice, dst in dsts:
            if axis < 0 or (
                islice.start == 0 and src.shape[axis] == islice.stop
            ):
                dst[:] = src  # the whole batch
            elif axis == 0:
                dst[:] = src[islice.start : islice.stop]
            else:
                dst[:] = nd.slice_axis(
                    src, axis=axis, begin=islice.start, end=islice.stop
                )


def _merge_multi_context(outputs, axes):
    """Concatenate each output's per-device parts along the batch axis
    (on the first part's device); outputs without a batch axis are the
    same everywhere, so the first part is returned."""
    merged = []
    for parts, axis in zip(outputs, axes):
        if axis < 0 or len(parts) == 1:
            merged.append(parts[0])
        else:
            ctx = parts[0].context
            merged.append(
                nd.concat(*[p.as_in_context(ctx) for p in parts], dim=axis)
            )
    return merged


class DataParallelExecutorGroup:
    """Executors of one symbol on several devices, fed batch slices.

    Parameters
    ----------
    symbol : Symbol
    contexts : list of Context
    workload : list of number
        Relative share of each batch given to each context.
    data_shapes, label_shapes : list of DataDesc
        Whole-batch shapes; ``label_shapes`` may be None.
    param_names : list of str
        The arguments that are parameters (not data, labels or states).
    for_training : bool
        Allocate gradients and allow ``backward``.
    inputs_need_grad : bool
        Also compute gradients of the data inputs.
    shared_group : DataParallelExecutorGroup, optional
        Share parameter arrays with this group (bucketing).
    fixed_param_names : list of str, optional
        Parameters that get no gradient (``grad_req='null'``).
    grad_req : str or dict or list, default 'write'
    state_names : list of str, optional
        Arguments that are states (inputs kept between batches, no grad).
    group2ctxs : dict or list of dict, optional
        ``ctx_group`` placement, one dict per context or one for all.
    """

    def __init__(
        self,
        symbol,
        contexts,
        workload,
        data_shapes,
        label_shapes,
        param_names,
        for_training,
        inputs_need_grad,
        shared_group=None,
        logger=None,
        fixed_param_names=None,
        grad_req='write',
        state_names=None,
        group2ctxs=None,
    ):
        self.symbol = symbol
        self.contexts = contexts
        self.workload = workload
        self.group2ctxs = _group2ctxs_per_device(group2ctxs, len(contexts))
        self.param_names = param_names
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.logger = logger
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])
        self.shared_group = shared_group
        self.execs = []
        self._default_execs = None
        self.data_names = [x.name for x in data_shapes]
        self.grad_req = self._grad_reqs(grad_req)
        self.output_names = symbol.list_outputs()
        self.output_layouts = [
            DataDesc.get_batch_axis(symbol[name].attr('__layout__'))
            for name in self.output_names
        ]
        self.bind_exec(data_shapes, label_shapes, shared_group)

    def _grad_reqs(self, grad_req):
        """``{argument: req}``: parameters learn (unless fixed), data only
        with ``inputs_need_grad``, labels and states never."""
        if not self.for_training:
            return {k: 'null' for k in self.arg_names}
        if isinstance(grad_req, (list, tuple)):
            if len(grad_req) != len(self.arg_names):
                raise ModuleUsageError(
                    f'grad_req has {len(grad_req)} entries but the symbol '
                    f'has {len(self.arg_names)} arguments '
                    f'{self.arg_names}'
                )
            return dict(zip(self.arg_names, grad_req))
        # A dict overrides the defaults that 'write' would give.
        default = grad_req if isinstance(grad_req, str) else 'write'
        reqs = {}
        for k in self.arg_names:
            if k in self.param_names:
                reqs[k] = 'null' if k in self.fixed_param_names else default
            elif k in self.data_names:
                reqs[k] = default if self.inputs_need_grad else 'null'
            else:
                reqs[k] = 'null'
        if isinstance(grad_req, dict):
            reqs.update(grad_req)
        return reqs

    # -- binding --------------------------------------------------------------
    def decide_slices(self, data_shapes):
        """Check that all inputs share one batch size; set it and its
        per-device slices (``self.batch_size``, ``self.slices``).

        Returns the batch axis of each input (-1: no batch axis).
        """
        major_axis = [DataDesc.get_batch_axis(x.layout) for x in data_shapes]
        for desc, axis in zip(data_shapes, major_axis):
            if axis == -1:
                continue
            batch_size = desc.shape[axis]
            if self.batch_size is not None:
                if batch_size != self.batch_size:
                    raise ModuleUsageError(
                        f'all data must have the same batch size: '
                        f'batch_size = {self.batch_size}, but {desc.name} '
                        f'has shape {desc.shape}'
                    )
            else:
                self.batch_size = batch_size
                self.slices = _split_input_slice(batch_size, self.workload)
        return major_axis

    def _sliced_shape(self, shapes, i, major_axis):
        """The shapes one device sees: batch axis = its slice length."""
        sliced = []
        for desc, axis in zip(shapes, major_axis):
            shape = list(desc.shape)
            if axis >= 0:
                shape[axis] = self.slices[i].stop - self.slices[i].start
            sliced.append(
                DataDesc(desc.name, tuple(shape), desc.dtype, desc.layout)
            )
        return sliced

    def bind_exec(
        self, data_shapes, label_shapes, shared_group=None, reshape=False
    ):
        """Bind (or, with ``reshape``, reshape) one executor per device."""
        self.batch_size = None
        self.data_layouts = self.decide_slices(data_shapes)
        self.label_layouts = (
            self.decide_slices(label_shapes)
            if label_shapes is not None
            else None
        )
        for i in range(len(self.contexts)):
            data_i = self._sliced_shape(data_shapes, i, self.data_layouts)
            label_i = (
                self._sliced_shape(label_shapes, i, self.label_layouts)
                if label_shapes is not None
                else None
            )
            if reshape:
                shapes = {d.name: d.shape for d in data_i + (label_i or [])}
                self.execs[i] = self._default_execs[i].reshape(
                    allow_up_sizing=True, **shapes
                )
            else:
                self.execs.append(
                    self._bind_ith_exec(i, data_i, label_i, shared_group)
                )
        self.data_shapes = data_shapes
        self.label_shapes = label_shapes
        self.data_names = [x.name for x in data_shapes]
        self.label_names = (
            [x.name for x in label_shapes] if label_shapes is not None else []
        )
        self._collect_arrays()

    def _bind_ith_exec(self, i, data_shapes, label_shapes, shared_group):
        shared_exec = None if shared_group is None else shared_group.execs[i]
        descs = list(data_shapes) + list(label_shapes or [])
        shapes = {d.name: d.shape for d in descs}
        types = {d.name: d.dtype for d in descs}
        exe = self.symbol.simple_bind(
            self.contexts[i],
            grad_req=self.grad_req,
            type_dict=types,
            shared_arg_names=self.param_names,
            shared_exec=shared_exec,
            group2ctx=self.group2ctxs[i],
            **shapes,
        )
        if shared_exec is None or not exe.aux_arrays:
            return exe
        # simple_bind shares the arguments of ``shared_exec`` but not its
        # auxiliary states; rebind so BatchNorm statistics are shared
        # between buckets too.
        shared_aux = shared_exec.aux_dict
        aux = [
            shared_aux[n]
            if n in shared_aux and shared_aux[n].shape == a.shape
            else a
            for n, a in zip(self.aux_names, exe.aux_arrays)
        ]
        return self.symbol.bind(
            self.contexts[i],
            exe.arg_arrays,
            args_grad=exe.grad_arrays,
            grad_req=self.grad_req,
            aux_states=aux,
            group2ctx=self.group2ctxs[i],
        )

    def reshape(self, data_shapes, label_shapes):
        """Rebind for new input shapes, keeping the parameter arrays."""
        if (
            data_shapes == self.data_shapes
            and label_shapes == self.label_shapes
        ):
            return
        if self._default_execs is None:
            self._default_execs = list(self.execs)
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    def _collect_arrays(self):
        """Per-name lists of the executors' arrays (one per device)."""
        execs = self.execs
        self.data_arrays = [
            [(self.slices[i], e.arg_dict[name]) for i, e in enumerate(execs)]
            for name in self.data_names
        ]
        self.state_arrays = [
            [e.arg_dict[name] for e in execs] for name in self.state_names
        ]
        if self.label_shapes is not None:
            self.label_arrays = [
                [
                    (self.slices[i], e.arg_dict[name])
                    for i, e in enumerate(execs)
                ]
                for name in self.label_names
            ]
        else:
            self.label_arrays = None
        self.param_arrays = [
            [e.arg_dict[name] for e in execs]
            for name in self.arg_names
            if name in self.param_names
        ]
        if self.for_training:
            self.grad_arrays = [
                [e.grad_dict.get(name) for e in execs]
                for name in self.arg_names
                if name in self.param_names
            ]
        else:
            self.grad_arrays = None
        if self.inputs_need_grad:
            self.input_grad_arrays = [
                [e.grad_dict.get(name) for e in execs]
                for name in self.data_names
                if name in self.arg_names
            ]
        else:
            self.input_grad_arrays = None
        self.aux_arrays = [
            [e.aux_dict[name] for e in execs] for name in self.aux_names
        ]

    # -- parameters -----------------------------------------------------------
    def set_params(self, arg_params, aux_params, allow_extra=False):
        """Copy the given parameters into every device's executor."""
        for exe in self.execs:
            exe.copy_params_from(
                arg_params, aux_params, allow_extra_params=allow_extra
            )

    def get_params(self, arg_params, aux_params):
        """Write the mean of the devices' copies into the (CPU) dicts.

        The copies are equal after ``update``; auxiliary states such as
        BatchNorm's moving mean differ per device (each saw its own
        slice), and averaging them is MXNet's way to merge them.
        """
        for names, blocks, out in (
            (self.param_names, self.param_arrays, arg_params),
            (self.aux_names, self.aux_arrays, aux_params),
        ):
            for name, block in zip(names, blocks):
                total = block[0].copyto(cpu())
                for w in block[1:]:
                    total += w.copyto(cpu())
                mean = total / len(block)
                out[name][:] = mean.astype(out[name].dtype)

    # -- running --------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Load the batch (sliced per device) and run every executor."""
        if isinstance(data_batch, list):
            data = [
                [b.data[i] for b in data_batch]
                for i in range(len(self.data_arrays))
            ]
            labels = (
                [
                    [b.label[i] for b in data_batch]
                    for i in range(len(self.label_arrays or []))
                ]
                if data_batch[0].label
                else None
            )
        else:
            data, labels = data_batch.data, data_batch.label
        _load_general(data, self.data_arrays, self.data_layouts)
        if is_train is None:
            is_train = self.for_training
        if self.label_arrays is not None and labels:
            _load_general(labels, self.label_arrays, self.label_layouts)
        for exe in self.execs:
            exe.forward(is_train=is_train)

    def backward(self, out_grads=None):
        """Run backward on every executor, each with its slice of
        ``out_grads`` (default: ones, ignored by loss outputs)."""
        if not self.for_training:
            raise ModuleUsageError(
                'backward(): the module was bound with '
                'for_training=False; re-bind with '
                'for_training=True to run backward'
            )
        if out_grads is None:
            out_grads = []
        elif isinstance(out_grads, nd.NDArray):
            out_grads = [out_grads]
        for i, (exe, islice) in enumerate(zip(self.execs, self.slices)):
            sliced = []
            for grad, axis in zip(out_grads, self.output_layouts):
                if axis >= 0:
                    part = nd.slice_axis(
                        grad, axis=axis, begin=islice.start, end=islice.stop
                    )
                    sliced.append(part.as_in_context(self.contexts[i]))
                else:
                    sliced.append(grad.copyto(self.contexts[i]))
            exe.backward(out_grads=sliced or None)

    def get_outputs(self, merge_multi_context=True, begin=0, end=None):
        """Outputs of the last forward: merged over devices, or one list
        per output with one array per device."""
        if end is None:
            end = len(self.output_names)
        outputs = [
            [exe.outputs[i] for exe in self.execs] for i in range(begin, end)
        ]
        if merge_multi_context:
            outputs = _merge_multi_context(
                outputs, self.output_layouts[begin:end]
            )
        return outputs

    def get_input_grads(self, merge_multi_context=True):
        """Gradients of the data inputs (``inputs_need_grad=True``)."""
        if not self.inputs_need_grad:
            raise ModuleUsageError(
                'get_input_grads(): bind with inputs_need_grad=True first'
            )
        if merge_multi_context:
            return _merge_multi_context(
                self.input_grad_arrays, self.data_layouts
            )
        return self.input_grad_arrays

    def get_states(self, merge_multi_context=True):
        """The state arrays (``state_names``), merged or per device."""
        if merge_multi_context:
            raise ModuleUsageError(
                'merge_multi_context=True is not supported for get_states yet.'
            )
        return self.state_arrays

    def set_states(self, states=None, value=None):
        """Set the states from per-device arrays, or all to ``value``."""
        if states is not None:
            if value is not None:
                raise ModuleUsageError(
                    'set_states(): Only one of states & '
                    'value can be specified.'
                )
            for srcs, dsts in zip(states, self.state_arrays):
                for src, dst in zip(srcs, dsts):
                    dst[:] = src
        else:
            if value is None:
                raise ModuleUsageError(
                    'set_states(): At least one of '
                    'states & value must be specified.'
                )
            for dsts in self.state_arrays:
                for dst in dsts:
                    dst[:] = value

    def get_output_shapes(self):
        """``[(output name, whole-batch shape)]``."""
        shapes = {d.name: d.shape for d in self.data_shapes}
        shapes.update({d.name: d.shape for d in self.label_shapes or []})
        _, out_shapes, _ = self.symbol.infer_shape(**shapes)
        return [
            (name, tuple(shape))
            for name, shape in zip(self.output_names, out_shapes)
        ]

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` device by device with the matching
        label slices and outputs."""
        for i, (exe, islice) in enumerate(zip(self.execs, self.slices)):
            if pre_sliced:
                labels_slice = labels[i]
            else:
                labels_slice = []
                for label, axis in zip(
                    labels, self.label_layouts or [0] * len(labels)
                ):
                    if axis == 0:
                        labels_slice.append(label[islice])
                    elif axis > 0:
                        labels_slice.append(
                            nd.slice_axis(
                                label,
                                axis=axis,
                                begin=islice.start,
                                end=islice.stop,
                            )
                        )
                    else:
                        labels_slice.append(label)
            labels_ = OrderedDict(zip(self.label_names, labels_slice))
            preds = OrderedDict(zip(self.output_names, exe.outputs))
            eval_metric.update_dict(labels_, preds)

    def install_monitor(self, mon):
        """Install a monitor (``mon.install(executor)``) on each device."""
        for exe in self.execs:
            mon.install(exe)


def _group2ctxs_per_device(group2ctxs, num_device):
    """One ``ctx_group -> Context`` dict (or None) per device."""
    if group2ctxs is None:
        return [None] * num_device
    if isinstance(group2ctxs, dict):
        return [group2ctxs] * num_device
    group2ctxs = list(group2ctxs)
    if len(group2ctxs) != num_device:
        raise ValueError(
            f'group2ctxs has {len(group2ctxs)} entries for '
            f'{num_device} contexts; give one dict per context'
        )
    return group2ctxs
