"""A strict stand-in for CuPy, so GPU code paths run (and fail) without a GPU.

``DLBOOK_FAKE_GPUS=N`` makes ``gpu(0..N-1)`` devices served by this module
instead of CuPy (``DLBOOK_FAKE_CUPY=0`` keeps plain NumPy arrays there
instead).  It computes with NumPy but *behaves* like CuPy where a GPU
program can go wrong on a machine that has only ever run on a CPU:

* **Arrays are not NumPy arrays.**  ``fake_cupy.ndarray`` wraps a NumPy
  array and refuses implicit conversion to the host, with CuPy's own
  message: ``numpy.asarray(x)`` raises ``TypeError: Implicit conversion to
  a NumPy array is not allowed...``.  Mixing it with a NumPy array in one
  operation raises ``TypeError: Unsupported type <class
  'numpy.ndarray'>``, as CuPy does.  Explicit transfers work: ``x.get()``,
  ``cupy.asnumpy(x)``, ``cupy.asarray(host)``, ``x[idx] = host``, NumPy
  arrays as indices.
* **CuPy's stricter argument checks** where they differ from NumPy's:
  ``tensordot`` of a 0-d operand with ``axes=([], [])`` raises.
* **What CuPy converts, the fake converts**: ``float(x)``, ``int(x)``,
  ``bool(x)``, ``x.item()``, ``x.tolist()``, ``repr(x)``; reductions give
  0-d arrays, not NumPy scalars.  There is no ``__index__`` and no
  ``__contains__``, as in CuPy.
* **Only CuPy's names exist.**  ``xp.<name>`` of a name that NumPy has and
  CuPy lacks raises ``AttributeError`` (the list is ``cupy_names.py``,
  generated from an installed CuPy).
* **Every device-to-host transfer is counted** (:data:`SYNCS`), so a test
  can assert that a training step does not wait for the GPU once per
  batch.  Counted: ``get``/``asnumpy``, scalar conversions, ``item``,
  ``tolist``, printing, boolean-mask indexing, ``nonzero``/``unique``
  (whose output size CuPy must read back), and stream synchronisation.

* **Every call that computes on the device is counted** (:data:`CALLS`,
  :func:`count_calls`): a real GPU pays a kernel launch and CuPy's Python
  for each, so tests can bound the calls of an operator.  A fused
  kernel's twin counts as the one launch it is on a GPU
  (:func:`one_kernel`).

Device scopes (``cupy.cuda.Device(i)``) only track the current device;
streams and memory pools are no-ops; ``cupy.fuse`` is the identity;
``ElementwiseKernel`` and other CUDA C kernels raise
``NotImplementedError``.

``cupy.cuda.nccl`` is a fake NCCL for multi-process tests under
``mpiexec`` (``fake_nccl.py``).
"""

import contextlib
import functools
import types
from collections import Counter

import numpy

from . import cupy_names
from .fake_nccl import FakeNccl, MemoryPointer

__all__ = [
    'ndarray',
    'SYNCS',
    'count_syncs',
    'CALLS',
    'count_calls',
    'one_kernel',
    'make_module',
    'is_fake',
]

IMPLICIT_MSG = (
    'Implicit conversion to a NumPy array is not allowed. '
    'Please use `.get()` to construct a NumPy array explicitly.'
)

#: Device-to-host synchronisations so far, by kind (``'get'``, ``'float'``,
#: ``'bool'``, ``'item'``, ``'mask'``, ``'synchronize'``, ...).
SYNCS = Counter()


@contextlib.contextmanager
def _counted(counter):
    """Yield a Counter of what ``counter`` gains inside the block."""
    before = Counter(counter)
    result = Counter()
    try:
        yield result
    finally:
        result.update(counter - before)


def count_syncs():
    """Count the host syncs inside a ``with`` block.

    Yields a :class:`collections.Counter` filled in when the block ends::

        with count_syncs() as syncs:
            train_step()
        assert sum(syncs.values()) == 0, syncs
    """
    return _counted(SYNCS)


def _sync(kind):
    SYNCS[kind] += 1


#: Calls that compute on the device, by name (``'add'``, ``'matmul'``,
#: ``'sum'``, ...): functions, operators and array methods.  On a real
#: GPU each one costs a kernel launch and some microseconds of CuPy's
#: Python, which bounds small training steps; views and shape changes
#: that launch nothing (``reshape``, ``transpose``, indexing) are not
#: counted.
CALLS = Counter()

# array methods and functions that only make views or read metadata
_NO_KERNEL = frozenset(
    {
        'reshape',
        'transpose',
        'swapaxes',
        'moveaxis',
        'view',
        'squeeze',
        'expand_dims',
        'broadcast_to',
        'as_strided',
        'ravel',
        'result_type',
        'get_array_module',
        'ndim',
        'shape',
        'rollaxis',
        'atleast_1d',
        'atleast_2d',
        'atleast_3d',
        'can_cast',
        'iscomplexobj',
        'isscalar',
    }
)


_PAUSED = [0]  # inside a fused kernel's twin: count the kernel once


def _count(name):
    if name not in _NO_KERNEL and not _PAUSED[0]:
        CALLS[name] += 1


@contextlib.contextmanager
def one_kernel(name):
    """Count what runs inside the block as the one kernel launch ``name``
    (a fused kernel's twin, which a real GPU runs as one kernel)."""
    _count(name)
    _PAUSED[0] += 1
    try:
        yield
    finally:
        _PAUSED[0] -= 1


def count_calls():
    """Count the device calls (:data:`CALLS`) inside a ``with`` block,
    as :func:`count_syncs` counts syncs."""
    return _counted(CALLS)


# creation functions that accept host data (a host-to-device copy)
_FROM_HOST = frozenset(
    {'array', 'asarray', 'asanyarray', 'ascontiguousarray', 'asfortranarray'}
)
# functions whose result size CuPy reads back from the device
_SYNCING = frozenset(
    {'nonzero', 'argwhere', 'flatnonzero', 'unique', 'compress', 'extract'}
)


def _unsupported(obj):
    return TypeError(f'Unsupported type {type(obj)}')


def _unwrap(obj, allow_host=False):
    """Raw NumPy data of fake arrays in ``obj`` (lists/tuples too); plain
    NumPy arrays are refused unless ``allow_host``."""
    if type(obj) is ndarray:
        return obj._a
    if isinstance(obj, numpy.ndarray):
        if allow_host:
            return obj
        raise _unsupported(obj)
    if type(obj) in (list, tuple):
        return type(obj)(_unwrap(o, allow_host) for o in obj)
    return obj


def _wrap(r):
    if isinstance(r, numpy.ndarray):
        return ndarray._from(r)
    if isinstance(r, numpy.generic):
        return ndarray._from(numpy.asarray(r))
    if isinstance(r, tuple):  # NumPy's named results (SVDResult,
        return tuple(_wrap(x) for x in r)  # ...): CuPy gives tuples
    if type(r) is list:
        return [_wrap(x) for x in r]
    return r


def _bind(fn, allow_host=False):
    """``fn`` taking and returning fake arrays."""
    name = getattr(fn, '__name__', '?')

    def call(*args, **kwargs):
        _count(name)
        return _call(fn, args, kwargs, allow_host)

    return call


def _call(fn, args, kwargs, allow_host=False):
    out = kwargs.get('out')
    args = _unwrap(args, allow_host)
    kwargs = {k: _unwrap(v, allow_host) for k, v in kwargs.items()}
    r = fn(*args, **kwargs)
    if out is not None and type(out) is ndarray and r is out._a:
        return out
    return _wrap(r)


class ndarray:
    """A CuPy-like array holding NumPy data (see the module docstring)."""

    __slots__ = ('_a', '__weakref__')
    __array_priority__ = 100
    __hash__ = None

    def __init__(
        self, shape, dtype=float, memptr=None, strides=None, order='C'
    ):
        self._a = numpy.empty(shape, dtype=dtype, order=order)

    @classmethod
    def _from(cls, a):
        x = object.__new__(cls)
        x._a = a if type(a) is numpy.ndarray else a.view(numpy.ndarray)
        return x

    def __reduce__(self):
        return (_rebuild, (self._a,))

    # -- properties ------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)
    T = property(lambda self: ndarray._from(self._a.T))

    @property
    def device(self):
        return _Device(0)

    @property
    def data(self):
        """The array's memory (``x.data.ptr`` is its address), as CuPy's
        ``MemoryPointer``; the fake NCCL accepts only such pointers."""
        return MemoryPointer(self._a)

    def __getattr__(self, name):
        if name not in cupy_names.NDARRAY:
            raise AttributeError(
                f"'cupy.ndarray' object has no attribute '{name}'"
            )
        attr = getattr(self._a, name)
        if callable(attr):
            return _bind(attr)
        return _wrap(attr)

    # -- explicit transfers and conversions (each one a sync) -------------
    def get(self, stream=None, order='C', out=None, blocking=True):
        """Copy to the host: a NumPy array."""
        _sync('get')
        if out is not None:
            out[...] = self._a
            return out
        return self._a.copy()

    def set(self, arr, stream=None):
        """Copy a host array into this one."""
        self._a[...] = arr

    def item(self):
        _sync('item')
        if self._a.size != 1:
            raise ValueError(
                'can only convert an array of size 1 to a Python scalar'
            )
        return self._a.item()

    def tolist(self):
        _sync('tolist')
        return self._a.tolist()

    def tobytes(self, order='C'):
        _sync('tobytes')
        return self._a.tobytes(order)

    def __array__(self, dtype=None, copy=None):
        raise TypeError(IMPLICIT_MSG)

    def __float__(self):
        _sync('float')
        return float(self._a)

    def __int__(self):
        _sync('int')
        return int(self._a)

    def __complex__(self):
        _sync('complex')
        return complex(self._a)

    def __bool__(self):
        _sync('bool')
        return bool(self._a)

    def __repr__(self):
        _sync('repr')
        return repr(self._a)

    def __str__(self):
        _sync('repr')
        return str(self._a)

    def __format__(self, spec):
        _sync('format')
        return format(self._a if self._a.ndim else self._a[()], spec)

    # -- container protocol ---------------------------------------------
    def __len__(self):
        if not self._a.ndim:
            raise TypeError('len() of unsized object')
        return self._a.shape[0]

    def __iter__(self):
        if not self._a.ndim:
            raise TypeError('iteration over a 0-d array')
        return (self[i] for i in range(self._a.shape[0]))

    def __getitem__(self, key):
        key = _index(key)
        parts = key if type(key) is tuple else (key,)
        if any(isinstance(p, (numpy.ndarray, list)) for p in parts):
            _count('getitem')  # advanced indexing gathers: a kernel
        return _wrap(self._a[key])

    def __setitem__(self, key, value):
        key = _index(key)
        _count('setitem')
        self._a[key] = _unwrap(value, allow_host=True)

    # -- NumPy protocols: NumPy functions on fake arrays run "on device" ---
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if ufunc.__name__ not in cupy_names.MODULE:
            return NotImplemented
        return _call(getattr(ufunc, method), inputs, kwargs)

    def __array_function__(self, func, types_, args, kwargs):
        if func.__name__ not in cupy_names.MODULE:
            return NotImplemented
        return _call(func, args, kwargs)


def _rebuild(a):
    return ndarray._from(a)


def _index(key):
    """An index with fake arrays unwrapped; NumPy arrays and lists are
    allowed (CuPy copies them to the device).  A boolean mask is a sync:
    the result's size is read back."""
    parts = key if type(key) is tuple else (key,)
    for p in parts:
        if getattr(p, 'dtype', None) == numpy.bool_ and getattr(p, 'ndim', 0):
            _sync('mask')
    return _unwrap(key, allow_host=True)


def _binary(ufunc, reflected=False, inplace=False):
    def op(self, other):
        if isinstance(other, numpy.ndarray):
            raise _unsupported(other)
        if type(other) not in (
            ndarray,
            int,
            float,
            bool,
            complex,
        ) and not isinstance(other, numpy.generic):
            return NotImplemented
        a, b = self._a, _unwrap(other)
        _count(ufunc.__name__)
        if inplace:
            ufunc(a, b, out=a)
            return self
        return _wrap(ufunc(b, a) if reflected else ufunc(a, b))

    return op


for _name, _uf in [
    ('add', numpy.add),
    ('sub', numpy.subtract),
    ('mul', numpy.multiply),
    ('truediv', numpy.true_divide),
    ('floordiv', numpy.floor_divide),
    ('mod', numpy.remainder),
    ('pow', numpy.power),
    ('matmul', numpy.matmul),
    ('and', numpy.bitwise_and),
    ('or', numpy.bitwise_or),
    ('xor', numpy.bitwise_xor),
    ('lshift', numpy.left_shift),
    ('rshift', numpy.right_shift),
]:
    setattr(ndarray, f'__{_name}__', _binary(_uf))
    setattr(ndarray, f'__r{_name}__', _binary(_uf, reflected=True))
    if _name != 'matmul':  # CuPy has no __imatmul__
        setattr(ndarray, f'__i{_name}__', _binary(_uf, inplace=True))
for _name, _uf in [
    ('eq', numpy.equal),
    ('ne', numpy.not_equal),
    ('lt', numpy.less),
    ('le', numpy.less_equal),
    ('gt', numpy.greater),
    ('ge', numpy.greater_equal),
]:
    setattr(ndarray, f'__{_name}__', _binary(_uf))
for _name, _uf in [
    ('neg', numpy.negative),
    ('pos', numpy.positive),
    ('abs', numpy.absolute),
    ('invert', numpy.invert),
]:
    setattr(
        ndarray,
        f'__{_name}__',
        (lambda uf: lambda self: _count(uf.__name__) or _wrap(uf(self._a)))(
            _uf
        ),
    )
del _name, _uf


# -- functions ----------------------------------------------------------------
class _Ufunc:
    """A CuPy ufunc: ``__call__`` plus ``at``/``reduce``/``outer``/..."""

    def __init__(self, uf):
        self._uf = uf
        self.__name__ = self.name = uf.__name__
        self.nin, self.nout, self.nargs = uf.nin, uf.nout, uf.nargs

    def __call__(self, *args, **kwargs):
        _count(self.__name__)
        return _call(self._uf, args, kwargs)

    def __getattr__(self, name):
        if name not in cupy_names.UFUNC:
            raise AttributeError(
                f"'cupy.ufunc' object has no attribute '{name}'"
            )
        return _bind(getattr(self._uf, name))

    def __repr__(self):
        return f'<ufunc {self.__name__!r}>'


def _function(name, fn):
    if isinstance(fn, numpy.ufunc):
        return _Ufunc(fn)
    if name in _SYNCING:

        def counted(*args, **kwargs):
            _sync(name)
            return _call(fn, args, kwargs)

        return counted
    if name in _AS_IT_IS:
        return functools.wraps(fn)(
            _as_it_is(fn, contiguous=name == 'ascontiguousarray')
        )
    return functools.wraps(fn)(_bind(fn, allow_host=name in _FROM_HOST))


# conversions that return a device array of the right dtype as it is
_AS_IT_IS = frozenset({'asarray', 'asanyarray', 'ascontiguousarray'})


def _as_it_is(fn, contiguous):
    """CuPy's ``asarray(a)`` returns a device array of the right dtype as
    it is (``ascontiguousarray``: when it is C-contiguous too): no kernel,
    so not counted."""
    copy = _bind(fn, allow_host=True)

    def call(a, dtype=None, **kwargs):
        if (
            type(a) is ndarray
            and (a._a.flags.c_contiguous or not contiguous)
            and (dtype is None or numpy.dtype(dtype) == a._a.dtype)
            and not kwargs
        ):
            return a
        return copy(a, dtype=dtype, **kwargs)

    return call


class _Facade(types.ModuleType):
    """A module exposing NumPy's implementation of CuPy's names only."""

    def __init__(self, name, numpy_module, names, extra):
        super().__init__(name)
        self._np, self._names, self._extra = numpy_module, names, extra

    def __getattr__(self, name):
        if name in self._extra:
            value = self._extra[name]
        elif name.startswith('__') or name not in self._names:
            raise AttributeError(
                f"module '{self.__name__}' has no attribute '{name}'"
            )
        else:
            value = getattr(self._np, name, _MISSING)
            if value is _MISSING:
                raise AttributeError(
                    f"module '{self.__name__}' has no attribute '{name}' "
                    f"(it exists in CuPy but the fake CuPy does not "
                    f"emulate it)"
                )
            if isinstance(value, types.ModuleType):
                raise AttributeError(
                    f"module '{self.__name__}.{name}' is not emulated by "
                    f"the fake CuPy"
                )
            if callable(value) and not isinstance(value, type):
                value = _function(name, value)
        setattr(self, name, value)  # cache
        return value

    def __dir__(self):
        return sorted(set(self._names) | set(self._extra))


# -- cupy.cuda, memory pools, random, kernels ---------------------------------
_CURRENT_DEVICE = [0]  # a stack: the innermost ``with Device(i)``


class _Device:
    """``cupy.cuda.Device(i)``: a re-entrant scope that only records which
    device is current (the fake NCCL binds a communicator to it)."""

    def __init__(self, device=None):
        self.id = _CURRENT_DEVICE[-1] if device is None else int(device)

    def __enter__(self):
        _CURRENT_DEVICE.append(self.id)
        return self

    def __exit__(self, *exc):
        _CURRENT_DEVICE.pop()
        return False

    def use(self):
        _CURRENT_DEVICE[-1] = self.id

    @property
    def pci_bus_id(self):
        """A made-up PCI bus id, one per device number."""
        return f'0000:{self.id + 1:02X}:00.0'

    def synchronize(self):
        _sync('synchronize')

    def __eq__(self, other):
        return isinstance(other, _Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f'<CUDA Device {self.id}>'


class _Stream:
    """A stream; ``ptr`` is 0 for the default (null) stream, as in CuPy."""

    null = None
    _made = [0]

    def __init__(self, null=False, non_blocking=False, ptds=False):
        if null:
            self.ptr = 0
        else:
            self._made[0] += 1
            self.ptr = 0x5000 + self._made[0]

    def synchronize(self):
        _sync('synchronize')

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _MemoryPool:
    def free_all_blocks(self, stream=None):
        pass

    def used_bytes(self):
        return 0

    def total_bytes(self):
        return 0

    def n_free_blocks(self):
        return 0


class CUDARuntimeError(RuntimeError):
    pass


class _RandomState:
    """``cupy.random.RandomState``: NumPy's generator, results on 'device'."""

    def __init__(self, seed=None):
        self._rs = numpy.random.RandomState(seed)

    def __getattr__(self, name):
        if name not in cupy_names.RANDOM_STATE:
            raise AttributeError(
                f"'RandomState' object has no attribute '{name}'"
            )
        return _bind(getattr(self._rs, name))


def _fuse(*args, **kwargs):
    """``cupy.fuse``: the identity decorator here."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda f: f


def _tensordot(a, b, axes=2):
    """``cupy.tensordot``, which refuses a 0-d operand unless ``axes`` is 0
    or ``((), ())`` (NumPy accepts ``([], [])`` too)."""
    if (numpy.ndim(a) == 0 or numpy.ndim(b) == 0) and (
        axes != 0 and axes != ((), ())
    ):
        raise ValueError('An input is zero-dim while axes has dimensions')
    return _call(numpy.tensordot, (a, b), {'axes': axes})


class _NoCudaKernel:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            'the fake CuPy cannot compile CUDA C kernels: give each custom '
            'kernel an xp reference path and run that one under the fake'
        )


def _asnumpy(a, stream=None, order='C', out=None, blocking=True):
    if type(a) is ndarray:
        return a.get(out=out)
    return numpy.asarray(a, order=order)


def _get_array_module(*args):
    return _MODULES[0] if any(type(a) is ndarray for a in args) else numpy


_MODULES = []
_MISSING = object()


def is_fake(xp):
    """Whether ``xp`` is a fake CuPy module."""
    return isinstance(xp, _Facade) and xp.__name__ == 'cupy'


def make_module(device_count=1):
    """A fresh fake ``cupy`` module with ``device_count`` devices."""
    stream = _Stream(null=True)
    pool = _MemoryPool()
    runtime = types.SimpleNamespace(
        getDeviceCount=lambda: device_count,
        memGetInfo=lambda: (16 * 2**30, 16 * 2**30),
        CUDARuntimeError=CUDARuntimeError,
        runtimeGetVersion=lambda: 13000,
        driverGetVersion=lambda: 13000,
    )
    cuda = types.SimpleNamespace(
        Device=_Device,
        runtime=runtime,
        is_available=lambda: True,
        get_current_stream=lambda device=None: stream,
        Stream=_Stream,
        MemoryPool=_MemoryPool,
        nccl=FakeNccl(lambda: _CURRENT_DEVICE[-1]),
    )
    random = _Facade(
        'cupy.random',
        numpy.random,
        cupy_names.RANDOM,
        {'RandomState': _RandomState},
    )
    linalg = _Facade('cupy.linalg', numpy.linalg, cupy_names.LINALG, {})
    fft = _Facade('cupy.fft', numpy.fft, cupy_names.FFT, {})
    stride_tricks = _Facade(
        'cupy.lib.stride_tricks',
        numpy.lib.stride_tricks,
        cupy_names.STRIDE_TRICKS,
        {},
    )
    lib = types.SimpleNamespace(stride_tricks=stride_tricks)
    extra = {
        'ndarray': ndarray,
        'cuda': cuda,
        'random': random,
        'linalg': linalg,
        'fft': fft,
        'lib': lib,
        'asnumpy': _asnumpy,
        'get_array_module': _get_array_module,
        'fuse': _fuse,
        'tensordot': _tensordot,
        'ElementwiseKernel': _NoCudaKernel,
        'ReductionKernel': _NoCudaKernel,
        'RawKernel': _NoCudaKernel,
        'get_default_memory_pool': lambda: pool,
        'get_default_pinned_memory_pool': lambda: pool,
        '__version__': cupy_names.VERSION + '+fake',
    }
    module = _Facade('cupy', numpy, cupy_names.MODULE, extra)
    _MODULES[:] = [module]
    return module
