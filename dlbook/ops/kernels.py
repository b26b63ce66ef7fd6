"""Fused kernels: one CUDA kernel on a GPU, a NumPy twin elsewhere.

Written with ``xp``, a step such as SGD with momentum is several array
operations::

    mom *= momentum
    mom -= (lr * rescale_grad) * grad
    weight += mom

On NumPy that is cheap, but on a GPU each line is one kernel launch plus
some microseconds of CuPy's Python, and a small training step becomes a
queue of hundreds of tiny launches that the GPU finishes faster than
Python issues them.  MXNet has one hand-written kernel for each such
step (``sgd_mom_update``, ``adam_update``, its BatchNorm).

An :class:`Elementwise` (a :class:`Reduction` for sums, a
:class:`Grouped` for one step on several arrays at once) pairs the two
tiers, as Chainer did:

* a CUDA C body for ``cupy.ElementwiseKernel`` (``cupy.ReductionKernel``:
  a map, a reduce and a post-map expression), compiled once per dtype
  the first time a GPU runs it (CuPy caches it on disk);
* its **twin**, a Python function with the same arguments written with
  ``xp`` that computes the same values: what NumPy runs, what the strict
  fake CuPy of the tests runs, and what a GPU runs when the fast path is
  switched off (``dlbook.ops.fastpath``).

Tests compare the two: on a GPU (``tests/test_kernels.py``), and on any
machine by compiling each body as C++ in a harness that mimics CuPy's
(``tests/test_kernel_sources.py``), so a body uses only what C++'s
``<cmath>`` also has (``exp``, ``tanh``, ``sqrt``, ``fmin``, ...), no
CUDA intrinsics.  Should a CUDA toolkit still fail to compile a body,
the kernel warns once and runs its twin from then on.

Every kernel is registered in :data:`KERNELS` by name.
"""

import warnings

from ..backend import on_host
from ..backend.fake_cupy import is_fake, one_kernel
from . import fastpath, host_jit

__all__ = ['Elementwise', 'Reduction', 'KERNELS', 'compiled', 'as_t']

#: Every :class:`Elementwise` and :class:`Reduction`, by name.
KERNELS = {}


def compiled(xp):
    """Whether the kernels run compiled on ``xp``: real
    CuPy with the fast path on."""
    return (
        fastpath.enabled()
        and getattr(xp, '__name__', '') == 'cupy'
        and not is_fake(xp)
    )


def as_t(like, *values):
    """The numbers ``values`` as a kernel on ``like``'s dtype reads them:
    of its type ``T``, for a twin that computes with them.

    CuPy casts a kernel's scalar arguments to ``T`` before the body runs,
    so arithmetic between them rounds in ``T``; a twin given Python floats
    computes it in float64 and rounds once, at the end.  In float32 the
    two can differ far beyond the last bit where the arithmetic cancels:
    ``1 - 0.999`` is 0.001, ``1 - 0.999f`` is 0.00099998713 (1.3e-5
    apart), and an Adam step on float32 data moved by as much between the
    CPU and a GPU.  Only float32 is cast: Python floats are float64
    already, and no kernel runs on float16 data (its twin keeps the exact
    settings).  Values that are not Python numbers (a 0-d array read on
    the device, say) are returned as they are.  Returns one value per
    argument, to unpack: ``lr, wd = as_t(weight, lr, wd)``.

    A training loop passes the same settings step after step, so the
    casts are remembered by the settings (a dictionary lookup, where
    casting costs every weight's update about a microsecond).
    """
    if like.dtype.char != 'f':  # float32's type code
        return values
    try:
        cast = _AS_FLOAT32.get(values)
    except TypeError:  # an array among the values (a norm read on a GPU)
        cast = None
    if cast is None:
        t = like.dtype.type
        cast = tuple(t(v) if type(v) in _PYTHON_NUMBERS else v for v in values)
        if len(_AS_FLOAT32) < 1024 and all(
            type(v) in _PYTHON_NUMBERS for v in values
        ):
            _AS_FLOAT32[values] = cast
    return cast


_PYTHON_NUMBERS = (float, int, bool)
#: settings -> the same as float32 scalars (see :func:`as_t`)
_AS_FLOAT32 = {}


def _one_float_dtype(args):
    """Whether the array arguments share one float32/float64 dtype, the
    case the kernels are written for (their ``T``); other mixes (float16
    data with float32 statistics, say) run the twin.  ``args`` are the
    arguments declared with type ``T`` (:attr:`_Kernel.typed`)."""
    dtype = None
    for a in args:
        d = getattr(a, 'dtype', None)
        if d is None:
            continue
        if dtype is None:
            if d.kind != 'f' or d.itemsize < 4:
                return False
            dtype = d
        elif d != dtype:
            return False
    return dtype is not None


class _Kernel:
    """What :class:`Elementwise` and :class:`Reduction` share: the
    registry entry, the choice between the compiled kernel and its twin,
    and the fall-back to the twin when a CUDA toolkit cannot compile the
    body."""

    def __init__(self, name, twin, params=''):
        if name in KERNELS:
            raise ValueError(f'kernel {name!r} is already registered')
        self.name = name
        self.twin = twin
        #: per positional argument, whether it is declared with type ``T``
        #: (the others have a fixed type, ``float64 u`` or ``int64 n``)
        self.typed = tuple(
            kind.split()[-1] == 'T' for kind, _ in _split_params(params)
        )
        self._built = {}  # id(xp) -> the CuPy kernel object
        self.failed = None  # the compiler's message if the body failed
        KERNELS[name] = self

    #: a compiled CPU loop of the same step (:class:`Elementwise`'s
    #: ``host``), or None
    host = None

    def _build(self, xp):
        """The CuPy kernel object (``cupy.ElementwiseKernel``, ...)."""
        raise NotImplementedError

    def __call__(self, xp, *args, **options):
        while args and args[-1] is None:  # outputs not given: allocated
            args = args[:-1]
        if on_host(xp):  # the CPU: the twin, or a compiled loop
            if self.host is not None and not options:
                result = self._run_host(xp, args)
                if result is not None:
                    return result
            return self.twin(xp, *args, **options)
        one_dtype = _one_float_dtype(
            [a for a, typed in zip(args, self.typed) if typed]
        )
        if not compiled(xp) or self.failed is not None or not one_dtype:
            if is_fake(xp) and one_dtype:
                # counted as the one launch a GPU makes (fake_cupy.CALLS)
                with one_kernel(self.name):
                    return self.twin(xp, *args, **options)
            return self.twin(xp, *args, **options)
        kernel = self._built.get(id(xp))
        if kernel is None:
            kernel = self._built[id(xp)] = self._build(xp)
        try:
            return kernel(*args, **options)  # compiled at the first call
        except Exception as err:
            # a CUDA toolkit that cannot compile the body (CuPy's
            # CompileException: nothing ran yet) falls back to the twin
            if type(err).__name__ != 'CompileException':
                raise
            self.failed = (str(err).strip().splitlines() or [''])[0]
            warnings.warn(
                f'dlbook: the GPU kernel {self.name} did not compile '
                f'({self.failed}); its array operations run instead',
                RuntimeWarning,
                stacklevel=2,
            )
            return self.twin(xp, *args, **options)


class Elementwise(_Kernel):
    """One elementwise step, compiled on a GPU, run by ``twin`` elsewhere.

    Parameters
    ----------
    name : str
        The kernel's name (also its CUDA function name).
    in_params, out_params : str
        CuPy's parameter lists, e.g. ``'T grad, T lr'`` and
        ``'T weight, T mom'``: the kernel runs when the arrays declared
        ``T`` share one float32 or float64 dtype, the twin otherwise; a
        parameter of a fixed type (``float64 u``, ``int32 h``) takes that
        type whatever ``T`` is.  Every argument is passed, outputs too
        (they are written in place); CuPy broadcasts the arrays against
        each other and casts Python scalars to their parameter's type.
    operation : str
        The CUDA C body, run once per element.
    twin : callable
        ``twin(xp, *args)``: the same computation with ``xp``, the same
        arguments in the same order, updating the same outputs in place.
    host : dlbook.ops.host_jit.Loop, optional
        The same step as a loop over flat arrays, ``host(*arguments,
        start, stop)`` (inputs, then outputs), compiled by Numba for
        NumPy's arrays (``dlbook/ops/host_loops.py``): run instead of the
        twin on the CPU when the compiled loops are on, the arrays are
        C-contiguous, of one shape and one float32/float64 dtype, of at
        least ``host_jit.MIN_ELEMENTS`` elements, and the other arguments
        Python numbers (passed as scalars of that dtype).

    Called with the inputs only (or with None for the outputs), the
    kernel allocates its outputs and returns them (one array, or a
    tuple); the twin is then called with the inputs only and returns new
    arrays the same way.
    """

    def __init__(
        self, name, in_params, out_params, operation, twin, host=None
    ):
        super().__init__(name, twin, f'{in_params}, {out_params}')
        self.in_params = in_params
        self.out_params = out_params
        self.operation = operation
        self.host = host
        self._counts = (
            len(_split_params(in_params)),
            len(_split_params(out_params)),
        )

    def _run_host(self, xp, args):
        """The compiled loop ``host`` on NumPy arrays, or None where its
        case does not hold: the first argument an array, every array of
        one shape and one float32/float64 dtype, C-contiguous (the loop
        reads them flat); every other argument a Python number, passed as
        a scalar of the arrays' dtype (what ``as_t`` gives the twins, so
        the loop's arithmetic rounds as theirs does)."""
        first = args[0]
        # small arrays (a small model's weights, every step) leave first
        if type(first) is not xp.ndarray or first.size < host_jit.MIN_ELEMENTS:
            return None
        n_in, n_out = self._counts
        arrays = [a for a in args if type(a) is xp.ndarray]
        for a in arrays:
            if a.shape != first.shape or not a.flags.c_contiguous:
                return None
        if not host_jit.applies(xp, *arrays):
            return None
        if len(args) != n_in and len(args) != n_in + n_out:
            return None
        scalar = first.dtype.type
        passed = []
        for a in args:
            if type(a) is xp.ndarray:
                passed.append(a.reshape(-1))
            elif type(a) is float or type(a) is int:
                passed.append(scalar(a))
            else:  # another kind of number: the twin's rules
                return None
        if len(args) == n_in:  # outputs not given: allocated here
            args += tuple(xp.empty_like(first) for _ in range(n_out))
            passed += [a.reshape(-1) for a in args[n_in:]]
        if not host_jit.ran(self.host, *passed, 0, first.size):
            return None
        outputs = args[n_in:]
        return outputs[0] if n_out == 1 else outputs

    def _build(self, xp):
        return xp.ElementwiseKernel(
            self.in_params, self.out_params, self.operation, self.name
        )

    def __repr__(self):
        return f'<Elementwise {self.name}({self.in_params}) -> ' + (
            f'({self.out_params})>'
        )


class Reduction(_Kernel):
    """A reduction over some axes, compiled on a GPU, run by ``twin``
    elsewhere: ``out = post_map(reduce(map(inputs)))``.

    A sum of products, say, is two array operations (the product, then
    its sum, through a temporary as large as the inputs); as one
    reduction kernel it reads each input once and writes only the
    result.

    Parameters
    ----------
    name, in_params : str
        As for :class:`Elementwise`; array inputs are broadcast against
        each other (a ``(1, C, 1, 1)`` mean against ``(N, C, H, W)``
        data), scalars are cast to ``T``.
    out_params : str
        One output, e.g. ``'T var'``, with the reduced axes removed.
    map_expr : str
        The value each input element contributes, e.g.
        ``'(x - mean) * (x - mean)'``.
    reduce_expr : str
        How two partial results ``a`` and ``b`` combine, e.g.
        ``'a + b'``.
    post_map_expr : str
        Assigns the output from the reduced value ``a``, e.g.
        ``'var = a / n'`` (scalar inputs can be read here).
    identity : str
        The start of each reduction, e.g. ``'0'``.
    twin : callable
        ``twin(xp, *inputs, axis=axes)``: the same result with ``xp``.

    Called as ``kernel(xp, *inputs, axis=axes)`` (a tuple of axes); the
    result is a new array, as CuPy's ``cupy.ReductionKernel`` returns.
    """

    def __init__(
        self,
        name,
        in_params,
        out_params,
        map_expr,
        reduce_expr,
        post_map_expr,
        identity,
        twin,
    ):
        super().__init__(name, twin, in_params)
        self.in_params = in_params
        self.out_params = out_params
        self.map_expr = map_expr
        self.reduce_expr = reduce_expr
        self.post_map_expr = post_map_expr
        self.identity = identity

    def _build(self, xp):
        return xp.ReductionKernel(
            self.in_params,
            self.out_params,
            self.map_expr,
            self.reduce_expr,
            self.post_map_expr,
            self.identity,
            self.name,
        )

    def __repr__(self):
        return f'<Reduction {self.name}({self.in_params}) -> ' + (
            f'({self.out_params})>'
        )


def _split_params(spec):
    """``'raw T a, T b'`` -> ``[('raw T', 'a'), ('T', 'b')]``."""
    out = []
    for part in spec.split(','):
        if part.strip():
            *kind, name = part.split()
            out.append((' '.join(kind), name))
    return out


class Grouped(Elementwise):
    """One elementwise step applied to several arrays of different sizes
    in one launch: ``slots`` arrays (four, MXNet's default aggregation of
    ``multi_sgd_update``) per kernel, where a loop over the arrays makes
    one launch each.

    Parameters
    ----------
    name : str
        The kernel's name.
    slot_in, slot_out : str
        One array's parameters, e.g. ``'raw T grad, T lr'`` and
        ``'raw T weight'``: ``raw`` arrays (read as flat C-contiguous
        rows) and scalars, repeated for every slot with the slot's number
        appended (``grad0``, ``lr0``, ``grad1``, ...).
    shared_in : str
        Parameters common to all slots, e.g. ``'T momentum'``.
    statement : str
        CUDA C for one element of one slot, on the names of ``slot_in``,
        ``slot_out`` and ``shared_in`` (an array name is that element;
        outputs are assigned).
    twin : callable
        ``twin(xp, *one_slot_inputs, *shared, *one_slot_outputs)``: the
        same step on one array with ``xp``, outputs updated in place.

    The kernel's index space is the slots' elements one after the other:
    element ``i`` belongs to the first slot whose running total of sizes
    (``n0``, ``n0 + n1``, ...) exceeds it.  For a copy,
    ``Grouped('copy', 'raw T src', 'raw T dst', '', 'dst = src;', twin)``,
    the generated body reads::

        auto one = [&](const T src, T &dst) { dst = src; };
        long long j = i;
        if ((j -= 0) < n0) one(src0[j], dst0[j]);
        else if ((j -= n0) < n1) one(src1[j], dst1[j]);
        ...

    Call :meth:`apply`.
    """

    def __init__(
        self, name, slot_in, slot_out, shared_in, statement, twin, slots=4
    ):
        self.slots = slots
        self.slot_in = _split_params(slot_in)
        self.slot_out = _split_params(slot_out)
        self.shared_in = _split_params(shared_in)
        self.one_twin = twin
        ins = [
            f'{kind} {n}{k}' for k in range(slots) for kind, n in self.slot_in
        ] + [f'int64 n{k}' for k in range(slots)]
        ins += [f'{kind} {n}' for kind, n in self.shared_in]
        outs = [
            f'{kind} {n}{k}' for k in range(slots) for kind, n in self.slot_out
        ]

        def declared(kind, name, output):
            base = kind.replace('raw ', '')
            return f'{base} &{name}' if output else f'const {base} {name}'

        params = [declared(kind, n, False) for kind, n in self.slot_in]
        params += [declared(kind, n, True) for kind, n in self.slot_out]

        def arguments(k):
            return ', '.join(
                f'{n}{k}[j]' if kind.startswith('raw') else f'{n}{k}'
                for kind, n in self.slot_in + self.slot_out
            )

        calls = '\n    else '.join(
            f'if ((j -= {f"n{k - 1}" if k else "0"}) < n{k}) '
            f'one({arguments(k)});'
            for k in range(slots)
        )
        body = (
            f'auto one = [&]({", ".join(params)}) {{\n{statement}\n}};\n'
            f'    long long j = i;\n    {calls}\n'
        )
        super().__init__(
            name, ', '.join(ins), ', '.join(outs), body, self._twin
        )

    def _twin(self, xp, *args, size=None):
        """The kernel in array operations: the one-array twin for every
        slot that holds elements."""
        n_in, n_out = len(self.slot_in), len(self.slot_out)
        slots = self.slots
        counts = args[slots * n_in : slots * (n_in + 1)]
        shared = args[
            slots * (n_in + 1) : slots * (n_in + 1) + len(self.shared_in)
        ]
        outs = args[slots * (n_in + 1) + len(self.shared_in) :]
        for k in range(slots):
            if counts[k]:
                self.one_twin(
                    xp,
                    *args[k * n_in : (k + 1) * n_in],
                    *shared,
                    *outs[k * n_out : (k + 1) * n_out],
                )

    def apply(self, xp, items, *shared):
        """Run the step on every item, :attr:`slots` per launch.

        ``items`` are ``(inputs, outputs)`` pairs, one per array, in the
        order of ``slot_in`` and ``slot_out``; their arrays must be
        C-contiguous (read as flat rows), one array size per item.
        """
        raw_in = [kind.startswith('raw') for kind, _ in self.slot_in]
        for start in range(0, len(items), self.slots):
            group = [
                (
                    [a.reshape(-1) if r else a for a, r in zip(ins, raw_in)],
                    [a.reshape(-1) for a in outs],
                )
                for ins, outs in items[start : start + self.slots]
            ]
            sizes = [outs[0].size for _, outs in group]
            if not any(sizes):
                continue  # nothing to launch
            first_in, first_out = group[0]
            while len(group) < self.slots:  # empty slots: no elements
                group.append(
                    (
                        [a[:0] if r else 0 for a, r in zip(first_in, raw_in)],
                        [a[:0] for a in first_out],
                    )
                )
                sizes.append(0)
            self(
                xp,
                *[a for ins, _ in group for a in ins],
                *sizes,
                *shared,
                *[a for _, outs in group for a in outs],
                size=sum(sizes),
            )
