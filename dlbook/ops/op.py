"""The ``Op`` base class, the registry and small helpers every operator
family uses (broadcasting gradients back, axis normalisation).

Families import from here, and ``ops/__init__.py`` imports the families,
so the registry fills without an import circle.
"""

__all__ = [
    'Op',
    'register',
    'REGISTRY',
    'unbroadcast',
    'keep_dtype',
    'normalize_axis',
    'normalize_axes',
    'reduced_shape',
    'sum_axes',
]

import math

from ..backend import on_host
from ..base import DLBookError

#: Every operator class by every name it answers to (``'broadcast_add'``,
#: ``'_plus'``, ...).  Front ends generate ``nd.*`` and ``sym.*`` from it.
REGISTRY = {}


def register(*names):
    """Class decorator: record an :class:`Op` subclass under ``names``.

    The first name is the canonical one (``cls.name``), the one written into
    saved symbol JSON; the others are aliases.
    """

    def wrap(cls):
        cls.name = names[0]
        cls.aliases = names
        for name in names:
            if name in REGISTRY and REGISTRY[name] is not cls:
                raise DLBookError(
                    f'operator name {name!r} registered twice '
                    f'({REGISTRY[name].__name__} and '
                    f'{cls.__name__})'
                )
            REGISTRY[name] = cls
        return cls

    return wrap


class Op:
    """One operation; a fresh instance per call (eager) or per graph node.

    Class attributes describe the operator's interface:

    arguments : tuple of str
        Names of the array inputs, in order (``('lhs', 'rhs')``).  They
        become keyword names of ``nd.<op>`` and, in a symbol graph, the
        automatic variable names ``<node>_<argument>`` (``fc1_weight``).
    learned_inputs : tuple of str
        Arguments that are learned parameters, not data (``('weight',
        'bias')`` for FullyConnected): ``mx.viz.print_summary`` counts
        their elements as the layer's parameters.
    aux_states : tuple of str
        Extra array inputs that are state, not arguments
        (``('moving_mean', 'moving_var')`` for BatchNorm).  They follow the
        arguments, receive no gradient and may be updated in place.
    variadic : bool
        Inputs are ``*data`` (``concat``, ``stack``, ``add_n``).
    defaults : dict
        Every attribute the operator accepts with its default, in MXNet's
        positional order: ``nd.clip(x, 0, 1)`` fills ``a_min``, ``a_max``.
    differentiable : bool
        False for operators with no gradient (``argmax``, comparisons,
        random sampling); the tape does not record them.
    needs_rng : bool
        The front end sets ``self.rng`` (a ``RandomState`` of the device)
        before ``forward``.
    same_dtype : bool
        All array inputs must share one dtype (MXNet does not promote).
    input_inits : dict
        Initializer (as ``mx.init`` JSON) of inputs that a symbol graph
        creates as automatic variables, stored as their ``__init__``
        attribute: UpSampling's bilinear ``weight`` starts as
        ``init.Bilinear``, as in MXNet.
    bare : bool
        Set for each subclass: whether it keeps ``Op.__init__``, so that
        an instance without attributes is ``object.__new__(cls)`` (its
        ``attrs`` then the class's ``defaults``), which the front ends
        make for calls such as ``x + y`` and ``nd.relu(x)``.

    ``self.attrs`` (defaults merged with the call's attributes) is
    read-only.  Per call, the front end sets ``self.is_train`` (Dropout,
    BatchNorm) and calls ``forward(xp, *inputs)``; when a gradient is
    needed it later calls ``backward(xp, *dys)`` with one output gradient
    per output.  Per-call state lives on the instance (``self.saved``),
    never in globals.
    """

    name = None
    aliases = ()
    arguments = ('data',)
    learned_inputs = ()
    aux_states = ()
    variadic = False
    defaults = {}
    attrs = defaults  # each subclass's own defaults (``__init_subclass__``)
    bare = True
    differentiable = True
    needs_rng = False
    same_dtype = False
    input_inits = {}
    num_outputs = 1
    # Per-call state before the front end sets it: class-level defaults, so
    # that creating an operator (once per eager call) stores only attrs.
    saved = ()
    is_train = False
    #: False for operators that never read ``is_train`` (arithmetic): the
    #: front end then leaves it unset, and an ``a + b`` whose operator
    #: stores nothing else creates no instance dictionary at all.
    reads_train_mode = True
    rng = None
    #: None: the outputs live on the inputs' context.  An operator that
    #: moves data (``_copyto``) defines ``out_context(self, ctx)``
    #: returning its outputs' context (the front end tests for None
    #: first, which is quicker than calling a method on every operation).
    out_context = None
    #: Which input gradients are wanted (one bool per input, as in
    #: PyTorch), or None for all.  The tape sets it before ``backward``
    #: only for operators whose ``skips_unneeded_grads`` is True, those
    #: whose backward reads it to skip work (the data gradient of a
    #: first layer); filling it for every node would cost each recorded
    #: operation a tuple.
    needs_input_grad = None
    skips_unneeded_grads = False
    #: True for an operator whose backward can give a RowSparse gradient
    #: (``Embedding(sparse_grad=True)``) when its front end accepts one:
    #: the tape then sets ``row_sparse_grad``.
    offers_row_sparse = False

    @classmethod
    def plain(cls):
        """A function computing this operator's value alone, for calls that
        nothing will differentiate (the eager front end's operators outside
        ``autograd.record()``, :func:`~dlbook.ndarray.invoke.invoke_plain`):
        ``f(xp, a, b)`` for two arrays or an array and a number.  None
        here; the families whose ``forward`` is the value plus what
        ``backward`` keeps (binary, comparison and scalar operators) give
        theirs beside that ``forward``."""
        return None

    def graph_grads(self, F, inputs, dys):
        """The input gradients written with the operators of ``F`` (the
        ``nd`` module) on NDArrays, so that they are recorded in turn:
        what ``autograd.grad(..., create_graph=True)`` runs for
        higher-order gradients.  ``inputs`` are the NDArrays the operator
        ran on, ``dys`` one NDArray per output; returns one gradient (or
        None) per input.  Operators with first-order gradients only
        raise (``autograd.grad`` lists those that have a rule); where they
        can, the rule is written once for both orders, with ``xp``
        standing for NumPy, CuPy or ``F``."""
        raise DLBookError(
            f"operator '{self.name}' has no higher-order gradient in "
            f'dlbook (autograd.grad(..., create_graph=True) needs one '
            f'for every operator between the heads and the variables)'
        )

    def output_again(self, F, *inputs):
        """This operator's output recomputed with ``F`` from the NDArrays
        ``inputs`` (recorded, unlike the values kept for ``backward``)."""
        return getattr(F, self.name)(*inputs, **self.attrs)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # An instance made without attributes reads the class defaults as
        # its ``attrs`` (they are read-only, so one dict serves them all).
        if 'attrs' not in cls.__dict__:
            cls.attrs = cls.defaults
        # Whether ``object.__new__(cls)`` makes the same instance as
        # ``cls()``: what the front ends use for calls without attributes
        # (a third of the time of calling ``__init__``).
        cls.bare = cls.__init__ is Op.__init__

    def __init__(self, **attrs):
        if not attrs:
            return  # the class's ``attrs``: its defaults
        defaults = self.defaults
        merged = defaults.copy()
        merged.update(attrs)
        # more keys than the defaults means an unknown argument (one length
        # test: quicker than comparing the two key sets on every call)
        if len(merged) != len(defaults):
            unknown = sorted(set(attrs) - set(defaults))
            accepted = ', '.join(defaults) or 'no attributes'
            raise DLBookError(
                f'operator {self.name!r} got unexpected argument(s) '
                f'{unknown}; it accepts: {accepted}'
            )
        self.attrs = merged

    # -- interface used by front ends -------------------------------------
    def list_arguments(self):
        """Names of the array arguments this instance takes (attrs-aware).

        Overridden by operators whose inputs depend on attributes, such as
        ``FullyConnected(no_bias=True)`` which drops ``bias``.
        """
        if self.variadic:
            count = self.attrs.get('num_args') or 0
            return tuple(f'arg{i}' for i in range(count))
        return self.arguments

    def list_inputs(self):
        """Arguments followed by auxiliary states, the order of ``forward``."""
        return tuple(self.list_arguments()) + tuple(self.aux_states)

    def list_outputs(self):
        """Output names: ``('output',)`` or ``('output0', 'output1', ...)``."""
        if self.num_outputs == 1:
            return ('output',)
        return tuple(f'output{i}' for i in range(self.num_outputs))

    def forward(self, xp, *inputs):
        """Compute the outputs from raw arrays; save what backward needs."""
        raise NotImplementedError(f'operator {self.name!r} has no forward')

    def backward(self, xp, *dys):
        """Return one input gradient per input (None where there is none)."""
        raise DLBookError(f'operator {self.name!r} has no gradient rule')

    def __repr__(self):
        attrs = ', '.join(f'{k}={v!r}' for k, v in self.attrs.items())
        return f'{type(self).__name__}({attrs})'


# -- helpers shared by operator families -----------------------------------


def unbroadcast(xp, grad, shape):
    """Sum ``grad`` back down to ``shape``, undoing NumPy broadcasting.

    If ``a`` of shape ``(1, 4)`` was broadcast against ``(3, 4)``, the
    gradient for ``a`` is the sum of the ``(3, 4)`` gradient over axis 0.
    """
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    axes = tuple(
        i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1
    )
    if axes:
        grad = sum_axes(xp, grad, axes)
    return grad.reshape(shape)


def sum_axes(xp, x, axes):
    """``x.sum(axis=axes, keepdims=True)``; on the CPU, when ``axes`` are
    all the axes around one run of kept ones (per-channel sums of an
    ``(N, C, H, W)`` array), as a matrix-vector product with ones: BLAS
    reads the array once, 4-7x faster than NumPy's ``sum`` over axes 0,
    2 and 3 (the order of the additions differs: the last bit may)."""
    around = None
    if 0 < len(axes) < x.ndim and on_host(xp):  # some axes kept
        around = _kept_block(x, axes)
    if around is None:
        return x.sum(axis=axes, keepdims=True)
    return _sum_around(xp, x, *around).reshape(reduced_shape(x.shape, axes))


def _kept_block(x, axes):
    """``(before, kept, after)`` sizes when ``axes`` are every axis before
    and after one run of kept axes (``(N, C, H, W)`` summed to ``(1, C,
    1, 1)``) of a float32/float64 array (BLAS's types; an array not in
    C order is copied by the reshape, still quicker than a strided sum);
    else None."""
    if x.dtype.kind != 'f' or x.itemsize < 4:
        return None
    kept = [i for i in range(x.ndim) if i not in axes]
    if not kept or kept != list(range(kept[0], kept[-1] + 1)):
        return None
    sizes = x.shape
    return (
        math.prod(sizes[: kept[0]]),
        math.prod(sizes[kept[0] : kept[-1] + 1]),
        math.prod(sizes[kept[-1] + 1 :]),
    )


def _sum_around(xp, x, before, kept, after):
    """The sums over the ``before`` and ``after`` blocks of ``x`` viewed as
    ``(before, kept, after)``: the inner sum a matrix-vector product with
    ones, the outer one over a contiguous leading axis."""
    rows = x.reshape(before * kept, after)
    if after > 1:
        rows = xp.matmul(rows, xp.ones(after, dtype=x.dtype))
    return rows.reshape(before, kept).sum(axis=0)


def keep_dtype(y, dtype):
    """Return ``y`` converted to ``dtype`` (no copy when it already is).

    NumPy turns ``int32 / int32`` or ``sqrt(int32)`` into float64; MXNet
    keeps the input dtype, so results are converted back.
    """
    return y if y.dtype == dtype else y.astype(dtype)


def cast_scalar(xp, value, dtype):
    """``value`` as a scalar of ``dtype``, converted as C (and MXNet) do.

    MXNet casts the number in ``x + 300`` to the array's dtype, so for a
    ``uint8`` array it adds ``300 mod 256 = 44``.  NumPy 2 refuses to make a
    ``uint8`` from the Python int 300 (``OverflowError``, NEP 50); an array
    cast wraps around as C does, and gives the same value on every NumPy.
    """
    try:
        return dtype.type(value)
    except OverflowError:
        return xp.asarray(value).astype(dtype)[()]


def normalize_axis(axis, ndim, op_name='operator'):
    """Map a possibly negative ``axis`` into ``range(ndim)`` or raise."""
    if not -ndim <= axis < max(ndim, 1):
        raise DLBookError(
            f'{op_name}: axis {axis} is out of range for an '
            f'array with {ndim} dimension(s)'
        )
    return axis % max(ndim, 1)


def normalize_axes(axis, ndim, exclude=False, op_name='operator'):
    """Turn MXNet's ``axis`` argument into a sorted tuple of axes.

    ``axis=None`` (or ``()``) means every axis; ``exclude=True`` means every
    axis *except* the given ones, as in ``nd.sum(x, axis=1, exclude=True)``.
    """
    if axis is None or axis == ():
        axes = tuple(range(ndim))
        return () if exclude else axes
    if isinstance(axis, int):
        axis = (axis,)
    axes = tuple(sorted({normalize_axis(a, ndim, op_name) for a in axis}))
    if exclude:
        axes = tuple(a for a in range(ndim) if a not in axes)
    return axes


def reduced_shape(shape, axes):
    """Shape of a reduction over ``axes`` with ``keepdims=True``."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))
