"""Fusing the steps of a compiled graph: fewer, bigger steps.

A hybridized block runs its graph step by step (``program.py``); for a
small network most of a step's time is Python around a little NumPy
work, so running two operators as one step pays.  :func:`fuse` rewrites
a program's flat step list (``GraphProgram._plan``), replacing five
patterns by one *fused operator* each:

* **dense + activation** - ``FullyConnected`` whose output only feeds a
  ``relu``, ``sigmoid`` or ``tanh`` (``Activation`` or the plain
  operator): the activation is applied in place to the layer's output
  (``np.maximum(y, 0, out=y)``), and backward multiplies by the
  activation's derivative before the layer's own backward.  A dense
  layer without an activation becomes the same step with none: either
  way its shape checks run once per input shape, not on every call;
* **softmax cross-entropy** - ``log_softmax`` → ``pick`` (→ ``* s``)
  (→ ``mean`` over all axes but the batch axis), what
  ``gluon.loss.SoftmaxCrossEntropyLoss`` traces: backward is
  ``-(s * dy) * softmax`` plus ``s * dy`` at the picked class, without the
  zeros-and-scatter of ``pick``'s backward;
* **relu + max pooling** - ``relu`` whose output only feeds a max
  ``Pooling`` (a CNN's convolution, activation, pooling): pooled first,
  then the relu on the pooled array, a quarter of the size for 2x2
  windows (see :class:`ReluMaxPool` for why the numbers are the same);
* **convolution + activation** - ``Convolution`` whose output only
  feeds a ``relu``, ``sigmoid`` or ``tanh`` (not a relu followed by max
  pooling, the pattern above): the activation is applied in place to each
  block of images of the output as the convolution writes it, while the
  block is in cache (d2l's sigmoid LeNet, VGG's and NiN's blocks);
* **BatchNorm + relu** - ``BatchNorm`` whose output only feeds a
  ``relu`` (a ResNet's convolution, BatchNorm, activation): the relu is
  applied as the normalized output is written (in the same kernel on a
  GPU), and backward multiplies by its derivative before BatchNorm's own.

Each fused operator computes **the same numbers** as the operators it
replaces, operation for operation (the tests compare them for equality),
and defers to them where a case falls outside its pattern (a softmax axis
other than the last).  Fusion is part of the fast path: with
``dlbook.ops.fastpath.use(False)`` (or ``DLBOOK_FAST_OPS=0``) the graph
runs operator by operator, the reference.

Only steps whose intermediate result nobody else reads are fused: an
intermediate that is a graph output, or read by a second step, keeps
its own step.
"""

from ..ops import REGISTRY
from ..ops.activation import stable_log_softmax
from ..ops.batch_norm import BatchNorm
from ..ops.convolution import Convolution
from ..ops.index import _as_int, _fix_indices
from ..ops.nn import FullyConnected
from ..ops.op import Op, cast_scalar
from ..ops.pool import Pooling
from ..ops.unary import RELU_GRAD, SIGMOID_GRAD, TANH_GRAD, sigmoid

__all__ = ['fuse', 'FUSED']

_new = object.__new__

#: activations applied in place after a dense layer, by operator name or
#: ``Activation``'s ``act_type``
_ACTIVATIONS = ('relu', 'sigmoid', 'tanh')
#: ``dh = kernel(xp, dy, y)`` of each: ``dy * (y > 0)``, ``dy * (y * (1 -
#: y))``, ``dy * (1 - y * y)``
_GRADIENT_KERNELS = {
    'relu': RELU_GRAD,
    'sigmoid': SIGMOID_GRAD,
    'tanh': TANH_GRAD,
}
#: the activation operators, whose in-place forward and gradient from the
#: output a fused convolution calls (:class:`ConvActivation`)
_ACTIVATION_OPS = {name: REGISTRY[name]() for name in _ACTIVATIONS}


class DenseActivation(FullyConnected):
    """``act(x @ weight.T + bias)`` as one step (``act`` in relu,
    sigmoid, tanh, or none); the layer's checks, product and gradients
    are ``FullyConnected``'s own, its shape checks run once per shape.

    relu:    y = max(h, 0) in place;   dh = dy * (y > 0)
    sigmoid: y = sigmoid(h);           dh = dy * (y * (1 - y))
    tanh:    y = tanh(h) in place;     dh = dy * (1 - y * y)

    These are the expressions of ``Relu``, ``Sigmoid`` and ``Tanh``
    (``ops/unary.py``), so the results are identical.
    """

    name = 'DenseActivation'
    act = None  # or 'relu', 'sigmoid', 'tanh'
    checked = None  # {(x shape, weight shape, bias shape): in_units}

    def forward(self, xp, x, weight, bias=None):
        # the shapes are checked once per shape (by the layer's own
        # check), not on every call
        key = (x.shape, weight.shape, None if bias is None else bias.shape)
        in_units = self.checked.get(key)
        if in_units is None:
            in_units = self.checked[key] = self.check(x, weight, bias)
        h = self.product(xp, x, weight, bias, in_units)
        act = self.act
        if act is None:
            return h
        if act == 'relu':
            y = xp.maximum(h, 0, out=h)  # h is this step's own new array
        elif act == 'tanh':
            y = xp.tanh(h, out=h)
        else:
            y = sigmoid(xp, h)
        self.y = y
        return y

    def backward(self, xp, dy):
        act = self.act
        if act is not None:
            # the activations' own gradient kernels (one launch on a GPU)
            dy = _GRADIENT_KERNELS[act](xp, dy, self.y)
        return FullyConnected.backward(self, xp, dy)


class SoftmaxCrossEntropy(Op):
    """``mean(s * pick(log_softmax(x), label))`` over all axes but 0 (the
    ``mean`` and ``* s`` optional), as one step.

    For 2-D ``x`` with the softmax on its last axis and ``pick`` keeping
    its axis (the loss's graph), with ``g = s * dy`` per row::

        y  = s * logp[i, label_i]            (mean over one element: itself)
        dx = -(exp(logp) * g)  and  dx[i, label_i] += g_i

    which is ``log_softmax``'s ``G - exp(logp) * G.sum(-1)`` for the
    one-entry-per-row ``G`` of ``pick``'s backward, with the same
    floating-point operations.  Any other shape runs the original
    operators one by one.
    """

    name = 'SoftmaxCrossEntropy'
    arguments = ('data', 'label')
    parts = ()  # (class, prototype attributes) of the replaced operators
    scalar = None  # s, or None without the ``* s`` step
    mean = False
    rows = None
    simple = False  # the attributes allow the fused computation
    mode = 'clip'  # pick's
    chain = None

    def forward(self, xp, x, label):
        self.chain = None
        if (
            not self.simple
            or x.ndim != 2
            or x.dtype.kind != 'f'
            or label.size != x.shape[0]
        ):
            return self._forward_chain(xp, x, label)
        logp = stable_log_softmax(xp, x, 1)
        lane = (x.shape[0], 1)
        idx = _fix_indices(
            xp,
            _as_int(xp, label).reshape(lane),
            x.shape[1],
            self.mode,
            'pick',
            x.shape,
        )
        rows = self.rows.get(lane[0])
        if rows is None:
            rows = self.rows[lane[0]] = xp.arange(lane[0]).reshape(lane)
        # take_along's row-wise fancy index, with the row numbers kept
        y = logp[rows, idx]
        s = None
        if self.scalar is not None:
            s = cast_scalar(xp, self.scalar, x.dtype)
            y = y * s
        self.saved = (logp, idx, s, x.dtype)
        return y.reshape(x.shape[0]) if self.mean else y

    def backward(self, xp, dy):
        if self.chain is not None:
            return self._backward_chain(xp, dy)
        logp, idx, s, dtype = self.saved
        g = dy.reshape(idx.shape)
        if s is not None:
            g = g * s
        dx = xp.exp(logp)
        dx *= g
        xp.negative(dx, out=dx)
        dx[self.rows[idx.shape[0]], idx] += g
        if dx.dtype != dtype:
            dx = dx.astype(dtype)
        return dx, None

    # the replaced operators, one after the other: the general case
    def _forward_chain(self, xp, x, label):
        ops = []
        for cls, attrs in self.parts:
            op = _new(cls)
            op.__dict__.update(attrs)
            op.is_train = self.is_train
            ops.append(op)
        y = ops[0].forward(xp, x)
        y = ops[1].forward(xp, y, label)
        for op in ops[2:]:
            y = op.forward(xp, y)
        self.chain = ops
        return y

    def _backward_chain(self, xp, dy):
        ops = self.chain
        for op in reversed(ops[2:]):
            dy = op.backward(xp, dy)
        dy = ops[1].backward(xp, dy)[0]
        return ops[0].backward(xp, dy), None


class ReluMaxPool(Pooling):
    """``maxpool(relu(x))`` computed as ``relu(maxpool(x))``: the relu
    runs on the pooled array, not on the (larger) input.

    The two are equal because relu is monotone: the largest of the
    relu'd values is the relu of the largest value.  So are the
    gradients, ties included.  Max pooling sends ``dy`` to the first
    maximum of each window; relu's gradient is ``dy * (y > 0)``:

    * a window whose maximum ``m`` is positive: relu changes none of the
      elements equal to ``m`` and turns no other into ``m``, so both
      orders send ``dy`` to the same element, times 1;
    * a window whose maximum is at most 0: relu's gradient is 0 for
      every element either way.

    Backward multiplies ``dy`` by ``(y > 0)`` (relu's own gradient
    kernel), then runs the pooling's backward with the relu'd output in
    place of the pooled one, which differs only in windows whose
    gradient is now 0.  No such identity holds for sigmoid or tanh:
    float32 rounding can make two different inputs equal after them,
    which moves a tie.

    One window breaks the identity: a window of NaN only.  relu keeps
    NaN and max pooling passes over it, so relu then pooling gives the
    dtype's lowest value there, where pooling then relu would give 0.
    Such a window pools to the lowest value, as do only windows of -inf
    and NaN, and pooling compares keys for them (``pool.py``'s
    ``_max_keys``, ``self.keyed``): when it did, this call runs relu first
    and pools the relu'd input.  On a GPU, which always compares keys (a
    look at the output would wait for the device), relu always runs first.
    """

    name = 'ReluMaxPool'

    def forward(self, xp, data):
        y = Pooling.forward(self, xp, data)  # a new array: relu in place
        if self.keyed:
            y = Pooling.forward(self, xp, xp.maximum(data, 0))
            self.y = y
            return y
        self.y = xp.maximum(y, 0, out=y)
        return y

    def backward(self, xp, dy):
        return Pooling.backward(self, xp, RELU_GRAD(xp, dy, self.y))


class ConvActivation(Convolution):
    """``act(Convolution(x, w, b))`` as one step (``act`` in relu,
    sigmoid, tanh): the activation is the convolution's *epilogue*,
    applied in place to each block of images of the output as soon as
    its product and bias are written (``Convolution.epilogue``), while
    the block is still in cache, instead of a pass over the whole output
    afterwards into a second array of the same size.

    Backward multiplies ``dy`` by the activation's derivative, computed
    from the output (``dy * (y > 0)``, ``dy * y * (1 - y)``,
    ``dy * (1 - y * y)``: the activation operator's own backward), then
    runs the convolution's backward.  The same operations as the two
    operators, so the same numbers.  A relu followed by max pooling is
    left to :class:`ReluMaxPool` (a relu on the pooled array, a quarter
    of the size).
    """

    name = 'ConvActivation'
    act = None  # 'relu', 'sigmoid' or 'tanh'

    unfused = None  # the activation operator run after, for integers

    def forward(self, xp, data, weight, bias=None):
        # self.epilogue: the activation's apply_in_place (set by fuse),
        # for float outputs; an integer convolution keeps the two
        # operators' rules (its activation gives a new float array)
        if xp.result_type(data, weight).kind != 'f':
            self.epilogue = None
            self.unfused = type(_ACTIVATION_OPS[self.act])()
            h = Convolution.forward(self, xp, data, weight, bias)
            self.y = self.unfused.forward(xp, h)
            return self.y
        self.y = Convolution.forward(self, xp, data, weight, bias)
        return self.y

    def backward(self, xp, dy):
        if self.unfused is not None:
            dh = self.unfused.backward(xp, dy)
        else:
            dh = _ACTIVATION_OPS[self.act].grad_from_output(xp, self.y, dy)
        return Convolution.backward(self, xp, dh)


class BatchNormRelu(BatchNorm):
    """``relu(BatchNorm(x, ...))`` as one step: the relu applied while
    the output is written (BatchNorm's ``relu`` flag);
    ``dh = dy * (y > 0)`` (relu's own gradient kernel) before BatchNorm's
    backward.  The same operations as the two operators, in the same
    order."""

    name = 'BatchNormRelu'
    relu = True

    def forward(self, xp, *inputs):
        self.y = BatchNorm.forward(self, xp, *inputs)
        return self.y

    def backward(self, xp, dy):
        return BatchNorm.backward(self, xp, RELU_GRAD(xp, dy, self.y))


#: The fused operators (the classes :func:`fuse` puts in a plan).
FUSED = (
    DenseActivation,
    SoftmaxCrossEntropy,
    ReluMaxPool,
    BatchNormRelu,
    ConvActivation,
)


def _activation(step):
    """The activation name a step computes (None if not one we fuse)."""
    op = step.node.op
    if op == 'Activation':
        act = step.proto.attrs.get('act_type')
        return act if act in _ACTIVATIONS else None
    return op if op in _ACTIVATIONS else None


def fuse(steps, entry, protected):
    """The fused version of a flat plan.

    Parameters
    ----------
    steps : list of _Step
        The program's steps, in order.
    entry : callable
        ``entry(step)`` is the plan tuple of one unfused step.
    protected : set of int
        Slots that must keep their values (graph outputs, variables).

    Returns
    -------
    (plan, origin) : the list of plan tuples, and for each the step its
    error messages name.
    """
    readers = {}
    for k, step in enumerate(steps):
        for s in step.in_slots:
            readers.setdefault(s, []).append(k)

    def only_reader(step):
        """The index of the one step reading ``step``'s output, if the
        output is not needed elsewhere."""
        if not step.single:
            return None
        slot = step.out_slots[0]
        found = readers.get(slot, ())
        if slot in protected or len(found) != 1:
            return None
        return found[0]

    plan, origin = [], []
    k = 0
    n = len(steps)
    while k < n:
        step = steps[k]
        fused = None
        if step.node.op == 'FullyConnected':
            fused = _dense_activation(steps, k, only_reader)
        elif step.node.op == 'log_softmax':
            fused = _softmax_ce(steps, k, only_reader)
        elif _activation(step) == 'relu':
            fused = _relu_max_pool(steps, k, only_reader)
        elif step.node.op == 'BatchNorm':
            fused = _batch_norm_relu(steps, k, only_reader)
        elif step.node.op == 'Convolution':
            fused = _conv_activation(steps, k, only_reader)
        if fused is None:
            plan.append(entry(step))
            origin.append(step)
            k += 1
            continue
        op, used, ins = fused
        last = steps[used[-1]]
        release = []
        for j in used:
            release.extend(steps[j].release)
        plan.append(
            (
                type(op),
                op.__dict__,
                tuple(ins),
                last.out_slots[0],
                tuple(last.out_slots),
                tuple(release),
                False,
            )
        )
        origin.append(step)
        # the fused steps are consecutive (checked when matching)
        k = used[-1] + 1
    return plan, origin


def _dense_activation(steps, k, only_reader):
    op = _new(DenseActivation)
    op.__dict__.update(steps[k].proto.__dict__)
    op.checked = {}
    nxt = only_reader(steps[k])
    if nxt == k + 1 and _activation(steps[nxt]) is not None:
        op.act = _activation(steps[nxt])
        return op, [k, nxt], steps[k].in_slots
    return op, [k], steps[k].in_slots


def _relu_max_pool(steps, k, only_reader):
    pool_k = only_reader(steps[k])
    if pool_k != k + 1 or steps[pool_k].node.op != 'Pooling':
        return None
    pool = steps[pool_k]
    if type(pool.proto) is not Pooling or pool.proto._options()[0] != 'max':
        return None
    op = _new(ReluMaxPool)
    op.__dict__.update(pool.proto.__dict__)
    return op, [k, pool_k], steps[k].in_slots


def _conv_activation(steps, k, only_reader):
    step = steps[k]
    if type(step.proto) is not Convolution:
        return None
    nxt = only_reader(step)
    if nxt != k + 1:
        return None
    act = _activation(steps[nxt])
    if act is None or (
        act == 'relu' and _relu_max_pool(steps, nxt, only_reader) is not None
    ):
        return None
    op = _new(ConvActivation)
    op.__dict__.update(step.proto.__dict__)
    op.act = act
    op.epilogue = _ACTIVATION_OPS[act].apply_in_place
    return op, [k, nxt], step.in_slots


def _batch_norm_relu(steps, k, only_reader):
    step = steps[k]
    if type(step.proto) is not BatchNorm or step.proto.num_outputs != 1:
        return None
    nxt = only_reader(step)
    if nxt != k + 1 or _activation(steps[nxt]) != 'relu':
        return None
    op = _new(BatchNormRelu)
    op.__dict__.update(step.proto.__dict__)
    return op, [k, nxt], step.in_slots


def _softmax_ce(steps, k, only_reader):
    soft = steps[k]
    pick_k = only_reader(soft)
    if pick_k != k + 1 or steps[pick_k].node.op != 'pick':
        return None
    pick = steps[pick_k]
    if pick.in_slots[0] != soft.out_slots[0] or len(pick.in_slots) != 2:
        return None
    used = [k, pick_k]
    parts = [(soft.cls, soft.proto.__dict__), (pick.cls, pick.proto.__dict__)]
    scalar, mean = None, False
    nxt = only_reader(pick)
    if nxt == used[-1] + 1 and steps[nxt].node.op == '_mul_scalar':
        step = steps[nxt]
        scalar = step.proto.attrs['scalar']
        used.append(nxt)
        parts.append((step.cls, step.proto.__dict__))
        nxt = only_reader(step)
    if nxt == used[-1] + 1 and steps[nxt].node.op == 'mean':
        attrs = steps[nxt].proto.attrs
        axis = attrs['axis']
        if (
            attrs['exclude']
            and axis in (0, (0,), [0])
            and not attrs['keepdims']
            and type(steps[nxt].proto) is REGISTRY['mean']
        ):
            step = steps[nxt]
            mean = True
            used.append(nxt)
            parts.append((step.cls, step.proto.__dict__))
    soft_attrs = soft.proto.attrs
    pick_attrs = pick.proto.attrs
    # the softmax and pick on the last of 2 axes (checked when running),
    # without temperature, dtype or length
    simple = (
        soft_attrs['axis'] in (-1, 1)
        and soft_attrs['temperature'] in (None, 1, 1.0)
        and soft_attrs['dtype'] is None
        and not soft_attrs['use_length']
        and pick_attrs['axis'] in (-1, 1)
        and pick_attrs['keepdims']
    )
    op = _new(SoftmaxCrossEntropy)
    op.__dict__.update(
        {
            'parts': tuple(parts),
            'scalar': scalar,
            'mean': mean,
            'attrs': {},
            'rows': {},  # batch size -> arange(batch) as a column
            'simple': simple,
            'mode': pick_attrs['mode'],
        }
    )
    return op, used, [soft.in_slots[0], pick.in_slots[1]]
