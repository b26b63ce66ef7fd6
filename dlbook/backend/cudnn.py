"""Convolutions through NVIDIA's cuDNN on a GPU, called with ``ctypes``.

CuPy 14 dropped its cuDNN bindings, so on a GPU a convolution would be
im2col plus a cuBLAS matrix product: the windows copied out, nine times
the input for a 3x3 kernel, then a skinny GEMM.  cuDNN computes the same
three products (the output, the data gradient, the weight gradient) with
kernels that read the input in place and pick an algorithm per shape
(implicit GEMM, FFT, Winograd).  This module calls cuDNN's convolution
API (``cudnnConvolutionForward``, ``cudnnConvolutionBackwardData``,
``cudnnConvolutionBackwardFilter``, the API MXNet 1.9.1 and Chainer used)
on the device pointers of CuPy arrays.

Where the library comes from, and the signatures called, are in
``cudnn_library.py``.  Nothing is loaded until a convolution runs on a
GPU, and
:func:`usable` is False on the CPU, with the fake GPUs of the tests, with
``DLBOOK_CUDNN=0``, and when the library is missing: the convolution then
runs as im2col + GEMM.

Before a dtype's first convolution a small one (with padding, stride and
dilation) runs through cuDNN and through its definition
(``conv_definition.py``); a disagreement or any error turns cuDNN
off for that dtype with a warning that says why, so a broken install
costs speed, never correctness.  A later error (a shape some cuDNN build
does not support) raises :class:`CudnnError`, which the operators answer
by running that call as im2col + GEMM (:func:`fell_back` warns once).
:func:`status` says what happened.

Each geometry gets a plan once (descriptors, and per direction the
algorithm): the best-ranked *deterministic* algorithm of cuDNN's
heuristics whose workspace fits the operator's ``workspace`` limit, so
that re-running a cell prints the same numbers, as on the CPU.  Float32
convolutions use plain FMA arithmetic (``CUDNN_FMA_MATH``): no
TensorFloat-32, whose 10-bit mantissa would make GPU results differ from
the CPU's in the third digit.
"""

import ctypes
import os
import warnings

from . import cudnn_library
from .conv_definition import reference_conv
from .cudnn_library import (
    CROSS_CORRELATION,
    DATA_TYPES,
    DEFAULT_MATH,
    DETERMINISTIC,
    FMA_MATH,
    FORMAT_NCHW,
    SUCCESS,
    AlgoPerf,
    CudnnError,
)

__all__ = [
    'CudnnError',
    'usable',
    'fell_back',
    'status',
    'forward',
    'backward_data',
    'backward_filter',
    'choose_algorithm',
    'conv_geometry',
]

_CHECKED = {}  # dtype name -> None (passed) or the reason it failed
_HANDLES = {}  # device id -> cudnnHandle_t
_PLANS = {}  # geometry key -> _Plan


def _switched_on():
    return os.environ.get('DLBOOK_CUDNN', '1').strip().lower() not in (
        '0',
        'false',
        'no',
        'off',
    )


def _real_cupy(xp):
    """NumPy, and the fake CuPy of the tests, have no device pointers."""
    if getattr(xp, '__name__', '') != 'cupy':
        return False
    from .fake_cupy import is_fake

    return not is_fake(xp)


def usable(xp, dtype):
    """Whether convolutions of ``dtype`` on ``xp``'s arrays run through
    cuDNN: real CuPy, ``DLBOOK_CUDNN`` not 0, the library found, and the
    dtype's first check passed (run here, once)."""
    if not _real_cupy(xp) or not _switched_on():
        return False
    name = str(dtype)
    if name not in DATA_TYPES or cudnn_library.load() is None:
        return False
    if name not in _CHECKED:
        _CHECKED[name] = _self_check(xp, name)
        if _CHECKED[name] is not None:
            warnings.warn(
                f'dlbook: cuDNN convolutions are off for {name}: '
                f'{_CHECKED[name]}; im2col + GEMM runs instead',
                RuntimeWarning,
                stacklevel=3,
            )
    return _CHECKED[name] is None


_WARNED = set()


def fell_back(err):
    """Note that a convolution fell back to im2col + GEMM after cuDNN
    raised ``err`` (a shape it does not support, a workspace it cannot
    allocate): warns once per distinct message."""
    message = str(err)
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(
            f'dlbook: {message}; this convolution runs as im2col + GEMM',
            RuntimeWarning,
            stacklevel=3,
        )


def status():
    """A line for people: whether cuDNN is used, its version, or why not."""
    if not _switched_on():
        return 'cuDNN off (DLBOOK_CUDNN=0)'
    lib = cudnn_library.STATE['library']
    if lib is None:
        return cudnn_library.STATE['why_not'] or (
            'cuDNN not loaded: no convolution has run on a real GPU yet'
        )
    checks = ', '.join(
        f'{dtype}: {"ok" if why is None else why}'
        for dtype, why in sorted(_CHECKED.items())
    )
    return f'cuDNN {lib.version} from {lib.name}' + (
        f' ({checks})' if checks else ''
    )


# -- geometry -------------------------------------------------------------


def conv_geometry(x_shape, w_shape, y_shape, stride, pad, dilate):
    """Shapes and settings as cuDNN takes them: a 1-D convolution becomes
    a 2-D one with a height of 1 (cuDNN's N-d descriptors start at 4
    dimensions; the memory layout is the same).  Returns ``(x_shape,
    w_shape, y_shape, stride, pad, dilate)`` as tuples."""
    shapes = (tuple(x_shape), tuple(w_shape), tuple(y_shape))
    settings = (tuple(stride), tuple(pad), tuple(dilate))
    if len(x_shape) != 3:
        return shapes + settings
    return tuple(s[:2] + (1,) + s[2:] for s in shapes) + tuple(
        (first,) + setting for first, setting in zip((1, 0, 1), settings)
    )


def _ints(values):
    return (ctypes.c_int * len(values))(*values)


def _packed_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def choose_algorithm(results, workspace_of, limit_bytes):
    """The algorithm to run, from cuDNN's heuristics (``results``:
    AlgoPerf entries, best first): the first that works, is deterministic
    (the same bits on every run: a re-run cell prints the same numbers, as
    on the CPU) and whose workspace, as ``workspace_of(algo)`` says
    (cuDNN's ``...WorkspaceSize``), fits ``limit_bytes``; without such an
    algorithm the first that works and fits.  ``(algo, workspace_bytes)``,
    or None when none fits."""
    working = [perf for perf in results if perf.status == SUCCESS]
    for wanted in (DETERMINISTIC, None):
        for perf in working:
            if wanted is not None and perf.determinism != wanted:
                continue
            size = workspace_of(perf.algo)
            if size <= limit_bytes:
                return perf.algo, size
    return None


class _Descriptor:
    """A cuDNN descriptor, destroyed with its Python object."""

    def __init__(self, lib, kind):
        self.lib = lib
        self.kind = kind
        self.ptr = ctypes.c_void_p()
        lib.check(
            getattr(lib, f'cudnnCreate{kind}Descriptor')(
                ctypes.byref(self.ptr)
            ),
            f'create {kind} descriptor',
        )

    def __del__(self):
        try:
            getattr(self.lib, f'cudnnDestroy{self.kind}Descriptor')(self.ptr)
        except Exception:  # interpreter shutdown
            pass


class _Plan:
    """Descriptors and chosen algorithms of one convolution geometry."""

    def __init__(self, lib, handle, dtype, geometry, groups, limit_bytes):
        self.describe(lib, dtype, geometry, groups)
        c = self.conv.ptr
        self.algos = {
            'Forward': self._choose(
                lib,
                handle,
                'Forward',
                (self.x.ptr, self.w.ptr, c, self.y.ptr),
                limit_bytes,
            ),
            'BackwardData': self._choose(
                lib,
                handle,
                'BackwardData',
                (self.w.ptr, self.y.ptr, c, self.x.ptr),
                limit_bytes,
            ),
            'BackwardFilter': self._choose(
                lib,
                handle,
                'BackwardFilter',
                (self.x.ptr, self.y.ptr, c, self.w.ptr),
                limit_bytes,
            ),
        }

    def describe(self, lib, dtype, geometry, groups):
        """The descriptors of x, w, y and the convolution (host-side
        settings only: no device is needed yet)."""
        x, w, y, stride, pad, dilate = geometry
        data_type = DATA_TYPES[dtype]
        self.scale_type = (
            ctypes.c_double if dtype == 'float64' else (ctypes.c_float)
        )
        self.x = self._tensor(lib, data_type, x)
        self.y = self._tensor(lib, data_type, y)
        self.w = _Descriptor(lib, 'Filter')
        lib.check(
            lib.cudnnSetFilterNdDescriptor(
                self.w.ptr, data_type, FORMAT_NCHW, len(w), _ints(w)
            ),
            'filter descriptor',
        )
        self.conv = _Descriptor(lib, 'Convolution')
        # float16 data accumulates in float32, as MXNet's default
        compute = DATA_TYPES['float32' if dtype == 'float16' else dtype]
        lib.check(
            lib.cudnnSetConvolutionNdDescriptor(
                self.conv.ptr,
                len(stride),
                _ints(pad),
                _ints(stride),
                _ints(dilate),
                CROSS_CORRELATION,
                compute,
            ),
            'convolution descriptor',
        )
        lib.check(
            lib.cudnnSetConvolutionGroupCount(self.conv.ptr, groups),
            'group count',
        )
        math = FMA_MATH if dtype == 'float32' else DEFAULT_MATH
        lib.check(
            lib.cudnnSetConvolutionMathType(self.conv.ptr, math), 'math type'
        )

    @staticmethod
    def _tensor(lib, data_type, shape):
        desc = _Descriptor(lib, 'Tensor')
        lib.check(
            lib.cudnnSetTensorNdDescriptor(
                desc.ptr,
                data_type,
                len(shape),
                _ints(shape),
                _ints(_packed_strides(shape)),
            ),
            f'tensor descriptor {shape}',
        )
        return desc

    @staticmethod
    def _choose(lib, handle, kind, descriptors, limit_bytes):
        count = 8
        results = (AlgoPerf * count)()
        returned = ctypes.c_int()
        lib.check(
            getattr(lib, f'cudnnGetConvolution{kind}Algorithm_v7')(
                handle,
                *descriptors,
                count,
                ctypes.byref(returned),
                results,
            ),
            f'{kind} algorithm heuristics',
        )

        def workspace_of(algo):
            size = ctypes.c_size_t()
            lib.check(
                getattr(lib, f'cudnnGetConvolution{kind}WorkspaceSize')(
                    handle, *descriptors, algo, ctypes.byref(size)
                ),
                f'{kind} workspace size',
            )
            return size.value

        chosen = choose_algorithm(
            results[: returned.value], workspace_of, limit_bytes
        )
        if chosen is None:
            raise CudnnError(
                f'cuDNN has no {kind} algorithm within the workspace '
                f'limit of {limit_bytes} bytes'
            )
        return chosen


def _handle(xp, lib, device):
    """The cuDNN handle of ``device`` (made once), set to CuPy's current
    stream."""
    handle = _HANDLES.get(device)
    if handle is None:
        handle = ctypes.c_void_p()
        lib.check(lib.cudnnCreate(ctypes.byref(handle)), 'cudnnCreate')
        _HANDLES[device] = handle
    # the current stream, so cuDNN's work is ordered with CuPy's
    lib.check(
        lib.cudnnSetStream(
            handle, ctypes.c_void_p(xp.cuda.get_current_stream().ptr)
        ),
        'cudnnSetStream',
    )
    return handle


def _plan(lib, handle, device, dtype, geometry, groups, workspace_mb):
    """The :class:`_Plan` of this geometry on ``device`` (made once)."""
    key = (device, dtype, geometry, groups, workspace_mb)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _Plan(
            lib, handle, dtype, geometry, groups, workspace_mb * 2**20
        )
        if len(_PLANS) > 1024:  # a model's few dozen geometries, bounded
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def _run(xp, kind, first, second, out_shape, geometry, groups, workspace_mb):
    """One cuDNN call: ``first`` and ``second`` are its two inputs in
    cuDNN's order (x, w / w, dy / x, dy); returns the new output array."""
    lib = cudnn_library.load()
    device = xp.cuda.Device().id
    handle = _handle(xp, lib, device)
    first = xp.ascontiguousarray(first)
    second = xp.ascontiguousarray(second)
    out = xp.empty(out_shape, dtype=first.dtype)
    plan = _plan(
        lib, handle, device, str(out.dtype), geometry, groups, workspace_mb
    )
    descriptors = {
        'Forward': (plan.x, plan.w, plan.y),
        'BackwardData': (plan.w, plan.y, plan.x),
        'BackwardFilter': (plan.x, plan.y, plan.w),
    }[kind]
    algo, size = plan.algos[kind]
    # a workspace only for an algorithm that needs one (an allocation is
    # a device call too)
    workspace = xp.empty(size, dtype=xp.uint8) if size else None
    alpha, beta = plan.scale_type(1.0), plan.scale_type(0.0)
    lib.check(
        getattr(lib, f'cudnnConvolution{kind}')(
            handle,
            ctypes.byref(alpha),
            descriptors[0].ptr,
            ctypes.c_void_p(first.data.ptr),
            descriptors[1].ptr,
            ctypes.c_void_p(second.data.ptr),
            plan.conv.ptr,
            algo,
            ctypes.c_void_p(workspace.data.ptr if size else None),
            size,
            ctypes.byref(beta),
            descriptors[2].ptr,
            ctypes.c_void_p(out.data.ptr),
        ),
        f'convolution {kind}',
    )
    return out


def forward(
    xp, x, w, out_shape, stride, pad, dilate, groups, workspace_mb=1024
):
    """``y = conv(x, w)`` (no bias), cross-correlation as in MXNet.

    ``x`` is (N, C, *S), ``w`` (F, C/groups, *K), 1-D, 2-D or 3-D;
    ``y`` (N, F, *out_shape[2:]).
    """
    geometry = conv_geometry(x.shape, w.shape, out_shape, stride, pad, dilate)
    return _run(xp, 'Forward', x, w, out_shape, geometry, groups, workspace_mb)


def backward_data(
    xp, dy, w, x_shape, stride, pad, dilate, groups, workspace_mb=1024
):
    """``dx`` of shape ``x_shape``: each input element receives ``dy``
    times the weights of the windows that read it."""
    geometry = conv_geometry(x_shape, w.shape, dy.shape, stride, pad, dilate)
    return _run(
        xp, 'BackwardData', w, dy, x_shape, geometry, groups, workspace_mb
    )


def backward_filter(
    xp, x, dy, w_shape, stride, pad, dilate, groups, workspace_mb=1024
):
    """``dw`` of shape ``w_shape``: ``dw[f, c, k] = sum_{n,o} dy[n, f, o]
    * x_pad[n, c, o*s + k*d]``."""
    geometry = conv_geometry(x.shape, w_shape, dy.shape, stride, pad, dilate)
    return _run(
        xp, 'BackwardFilter', x, dy, w_shape, geometry, groups, workspace_mb
    )


# -- the check before first use ---------------------------------------------


def _self_check(xp, dtype):
    """None when cuDNN's three products agree with :func:`reference_conv`
    on a small convolution of ``dtype``, else the reason they do not."""
    # uneven sizes catch a transpose; the output is 4x6:
    # (7 + 2*1 - 1*(3-1) - 1) // 2 + 1 = 4, (6 + 2*1 - 2*(2-1) - 1) // 1 + 1 = 6
    x_shape, w_shape, y_shape = (2, 3, 7, 6), (4, 3, 3, 2), (2, 4, 4, 6)
    stride, pad, dilate = (2, 1), (1, 1), (1, 2)
    rng = xp.random.RandomState(0)
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    dy = rng.standard_normal(y_shape).astype(dtype)
    try:
        want = reference_conv(xp, x, w, dy, stride, pad, dilate)
        got = (
            forward(xp, x, w, dy.shape, stride, pad, dilate, 1),
            backward_data(xp, dy, w, x.shape, stride, pad, dilate, 1),
            backward_filter(xp, x, dy, w.shape, stride, pad, dilate, 1),
        )
    except Exception as err:  # a missing symbol, a failed call
        return f'{type(err).__name__}: {err}'
    tolerance = 1e-2 if dtype == 'float16' else 1e-4
    for name, a, b in zip(
        ('forward', 'data gradient', 'weight gradient'), got, want
    ):
        error = float(xp.abs(a.astype('float64') - b).max())
        scale = float(xp.abs(b).max()) + 1.0
        if not error <= tolerance * scale:  # also catches NaN
            return (
                f'its {name} differs from the definition by {error:.3g} '
                f'on a small test convolution'
            )
    return None
