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

The library comes from, in order: ``$DLBOOK_CUDNN_LIBRARY`` (a path), the
``nvidia-cudnn-cu12`` / ``-cu13`` wheel (``nvidia/cudnn/lib`` or
``nvidia/cu*/lib``), then the system's loader (``libcudnn.so.9``, ``.8``).
Nothing here is loaded until a convolution runs on a GPU, and
:func:`usable` is False on the CPU, with the fake GPUs of the tests, with
``DLBOOK_CUDNN=0``, and when the library is missing: the convolution then
runs as im2col + GEMM.

Before a dtype's first convolution a small one (with padding, stride and
dilation) runs through cuDNN and through :func:`reference_conv` (the
definition, written with ``xp``); a disagreement or any error turns cuDNN
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
import glob
import importlib.util
import os
import warnings

__all__ = [
    'CudnnError',
    'usable',
    'fell_back',
    'status',
    'forward',
    'backward_data',
    'backward_filter',
    'reference_conv',
    'definition_calls',
    'library_candidates',
    'choose_algorithm',
    'conv_geometry',
]

# -- cuDNN's enumerations (cudnn_graph.h / cudnn_cnn.h, stable since v7) ----
_SUCCESS = 0
_DATA_TYPES = {'float32': 0, 'float64': 1, 'float16': 2}
_FORMAT_NCHW = 0
_CROSS_CORRELATION = 1  # what deep learning calls a convolution
_DEFAULT_MATH = 0
_FMA_MATH = 3  # float32 without TensorFloat-32
_DETERMINISTIC = 1  # cudnnDeterminism_t


class CudnnError(RuntimeError):
    """A cuDNN call returned an error status (its name in the message)."""


class AlgoPerf(ctypes.Structure):
    """``cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t``: one
    candidate algorithm as cuDNN's heuristics rank it (the three structs
    share this layout)."""

    _fields_ = [
        ('algo', ctypes.c_int),
        ('status', ctypes.c_int),
        ('time', ctypes.c_float),
        ('memory', ctypes.c_size_t),
        ('determinism', ctypes.c_int),
        ('mathType', ctypes.c_int),
        ('reserved', ctypes.c_int * 3),
    ]


def library_candidates():
    """Where the cuDNN library is looked for, in order (paths or names
    for ``ctypes.CDLL``)."""
    found = []
    explicit = os.environ.get('DLBOOK_CUDNN_LIBRARY', '').strip()
    if explicit:
        found.append(explicit)
    spec = importlib.util.find_spec('nvidia')
    for root in getattr(spec, 'submodule_search_locations', None) or ():
        for pattern in ('cudnn/lib/libcudnn.so.*', 'cu*/lib/libcudnn.so.*'):
            found.extend(sorted(glob.glob(os.path.join(root, pattern))))
    import ctypes.util  # imports subprocess: only when looking

    by_loader = ctypes.util.find_library('cudnn')
    if by_loader:
        found.append(by_loader)
    found.extend(['libcudnn.so.9', 'libcudnn.so.8'])
    # the main library only (libcudnn.so.9, not libcudnn_ops.so.9), once
    seen, ordered = set(), []
    for name in found:
        base = os.path.basename(name)
        if base.startswith('libcudnn.') and name not in seen:
            seen.add(name)
            ordered.append(name)
    return ordered


class _Library:
    """The loaded library with the signatures this module calls."""

    _SIGNATURES = {
        'cudnnGetVersion': ([], ctypes.c_size_t),
        'cudnnGetErrorString': ([ctypes.c_int], ctypes.c_char_p),
        'cudnnCreate': ([ctypes.c_void_p], ctypes.c_int),
        'cudnnSetStream': ([ctypes.c_void_p, ctypes.c_void_p], ctypes.c_int),
        'cudnnCreateTensorDescriptor': ([ctypes.c_void_p], ctypes.c_int),
        'cudnnDestroyTensorDescriptor': ([ctypes.c_void_p], ctypes.c_int),
        'cudnnSetTensorNdDescriptor': (
            [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
            + [ctypes.POINTER(ctypes.c_int)] * 2,
            ctypes.c_int,
        ),
        'cudnnCreateFilterDescriptor': ([ctypes.c_void_p], ctypes.c_int),
        'cudnnDestroyFilterDescriptor': ([ctypes.c_void_p], ctypes.c_int),
        'cudnnSetFilterNdDescriptor': (
            [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]
            + [ctypes.POINTER(ctypes.c_int)],
            ctypes.c_int,
        ),
        'cudnnCreateConvolutionDescriptor': ([ctypes.c_void_p], ctypes.c_int),
        'cudnnDestroyConvolutionDescriptor': ([ctypes.c_void_p], ctypes.c_int),
        'cudnnSetConvolutionNdDescriptor': (
            [ctypes.c_void_p, ctypes.c_int]
            + [ctypes.POINTER(ctypes.c_int)] * 3
            + [ctypes.c_int, ctypes.c_int],
            ctypes.c_int,
        ),
        'cudnnSetConvolutionGroupCount': (
            [ctypes.c_void_p, ctypes.c_int],
            ctypes.c_int,
        ),
        'cudnnSetConvolutionMathType': (
            [ctypes.c_void_p, ctypes.c_int],
            ctypes.c_int,
        ),
    }
    # (handle, three descriptors in the call's order, conv descriptor...)
    for _kind in ('Forward', 'BackwardData', 'BackwardFilter'):
        _SIGNATURES[f'cudnnGetConvolution{_kind}Algorithm_v7'] = (
            [ctypes.c_void_p] * 5
            + [ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
            + [ctypes.POINTER(AlgoPerf)],
            ctypes.c_int,
        )
        _SIGNATURES[f'cudnnGetConvolution{_kind}WorkspaceSize'] = (
            [ctypes.c_void_p] * 5
            + [ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)],
            ctypes.c_int,
        )
        # handle, alpha, (desc, ptr) x2, conv, algo, workspace, size,
        # beta, desc, out
        _SIGNATURES[f'cudnnConvolution{_kind}'] = (
            [ctypes.c_void_p] * 7
            + [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
            + [ctypes.c_void_p] * 3,
            ctypes.c_int,
        )
    del _kind

    def __init__(self, name):
        # RTLD_GLOBAL: cuDNN 9's main library loads its sub-libraries
        # (libcudnn_cnn.so.9 ...), which resolve symbols against it
        self.cdll = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        self.name = name
        for function, (args, result) in self._SIGNATURES.items():
            try:
                f = getattr(self.cdll, function)
            except AttributeError:
                raise OSError(
                    f'{name} (cuDNN {self.cdll.cudnnGetVersion()}) has no '
                    f'{function}'
                ) from None
            f.argtypes = args
            f.restype = result
            setattr(self, function, f)
        self.version = self.cudnnGetVersion()

    def check(self, status, what):
        if status != _SUCCESS:
            message = self.cudnnGetErrorString(status) or b'?'
            raise CudnnError(
                f'cuDNN {what} failed: {message.decode()} (status {status})'
            )


_STATE = {'library': None, 'why_not': None}
_CHECKED = {}  # dtype name -> None (passed) or the reason it failed
_HANDLES = {}  # device id -> cudnnHandle_t
_PLANS = {}  # geometry key -> _Plan


def _library():
    """The loaded library, or None (``_STATE['why_not']`` says why)."""
    if _STATE['library'] is not None or _STATE['why_not'] is not None:
        return _STATE['library']
    tried = []
    for name in library_candidates():
        try:
            _STATE['library'] = _Library(name)
            return _STATE['library']
        except OSError as err:
            tried.append(f'{name}: {err}')
    _STATE['why_not'] = (
        'no cuDNN library found (pip install nvidia-cudnn-cu12 or '
        '-cu13, or set DLBOOK_CUDNN_LIBRARY); tried ' + '; '.join(tried)
    )
    return None


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
    if name not in _DATA_TYPES or _library() is None:
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
    lib = _STATE['library']
    if lib is None:
        return _STATE['why_not'] or (
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
    working = [perf for perf in results if perf.status == _SUCCESS]
    for wanted in (_DETERMINISTIC, None):
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
        data_type = _DATA_TYPES[dtype]
        self.scale_type = (
            ctypes.c_double if dtype == 'float64' else (ctypes.c_float)
        )
        self.x = self._tensor(lib, data_type, x)
        self.y = self._tensor(lib, data_type, y)
        self.w = _Descriptor(lib, 'Filter')
        lib.check(
            lib.cudnnSetFilterNdDescriptor(
                self.w.ptr, data_type, _FORMAT_NCHW, len(w), _ints(w)
            ),
            'filter descriptor',
        )
        self.conv = _Descriptor(lib, 'Convolution')
        # float16 data accumulates in float32, as MXNet's default
        compute = _DATA_TYPES['float32' if dtype == 'float16' else dtype]
        lib.check(
            lib.cudnnSetConvolutionNdDescriptor(
                self.conv.ptr,
                len(stride),
                _ints(pad),
                _ints(stride),
                _ints(dilate),
                _CROSS_CORRELATION,
                compute,
            ),
            'convolution descriptor',
        )
        lib.check(
            lib.cudnnSetConvolutionGroupCount(self.conv.ptr, groups),
            'group count',
        )
        math = _FMA_MATH if dtype == 'float32' else _DEFAULT_MATH
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


def _handle(xp, lib):
    device = xp.cuda.Device().id
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


def _plan(xp, lib, handle, dtype, geometry, groups, workspace_mb):
    key = (xp.cuda.Device().id, dtype, geometry, groups, workspace_mb)
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
    lib = _library()
    handle = _handle(xp, lib)
    first = xp.ascontiguousarray(first)
    second = xp.ascontiguousarray(second)
    out = xp.empty(out_shape, dtype=first.dtype)
    plan = _plan(
        xp, lib, handle, str(out.dtype), geometry, groups, workspace_mb
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


def _windows(x_pad, tap, stride, dilate, out_size):
    """The strided view of ``x_pad`` that kernel position ``tap`` reads at
    every output position."""
    return x_pad[
        (slice(None), slice(None))
        + tuple(
            slice(t * d, t * d + (o - 1) * s + 1, s)
            for t, s, d, o in zip(tap, stride, dilate, out_size)
        )
    ]


def reference_conv(xp, x, w, dy, stride, pad, dilate, groups=1):
    """The definition, one kernel position at a time:

    ``y[n, f, o] = sum_{c,k} w[f, c, k] * x_pad[n, c, o*s + k*d]``,
    ``dx_pad[n, c, o*s + k*d] += sum_f dy[n, f, o] * w[f, c, k]``,
    ``dw[f, c, k] = sum_{n,o} dy[n, f, o] * x_pad[n, c, o*s + k*d]``,

    with ``groups``, each group of channels on its own.  Returns ``(y,
    dx, dw)``; ``dy`` has ``y``'s shape.
    """
    if groups > 1:
        cg, fg = x.shape[1] // groups, w.shape[0] // groups
        parts = [
            reference_conv(
                xp,
                x[:, g * cg : (g + 1) * cg],
                w[g * fg : (g + 1) * fg],
                dy[:, g * fg : (g + 1) * fg],
                stride,
                pad,
                dilate,
            )
            for g in range(groups)
        ]
        y, dx, dw = zip(*parts)
        return (
            xp.concatenate(y, axis=1),
            xp.concatenate(dx, axis=1),
            xp.concatenate(dw, axis=0),
        )
    kernel = w.shape[2:]
    x_pad = xp.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    out_size = dy.shape[2:]
    y = xp.zeros(dy.shape, dtype=x.dtype)
    dx_pad = xp.zeros(x_pad.shape, dtype=x.dtype)
    dw = xp.zeros(w.shape, dtype=x.dtype)
    spatial = tuple(range(2, 2 + len(kernel)))
    for tap in _taps(kernel):
        view = _windows(x_pad, tap, stride, dilate, out_size)
        w_tap = w[(slice(None), slice(None)) + tap]  # (F, C)
        y += xp.moveaxis(xp.tensordot(view, w_tap, axes=([1], [1])), -1, 1)
        target = _windows(dx_pad, tap, stride, dilate, out_size)
        target += xp.moveaxis(xp.tensordot(dy, w_tap, axes=([1], [0])), -1, 1)
        dw[(slice(None), slice(None)) + tap] = xp.tensordot(
            dy, view, axes=([0] + list(spatial), [0] + list(spatial))
        )
    crop = tuple(slice(p, p + n) for p, n in zip(pad, x.shape[2:]))
    return y, dx_pad[(slice(None), slice(None)) + crop], dw


def definition_calls(around=None):
    """``forward``, ``backward_data`` and ``backward_filter`` computed by
    :func:`reference_conv`, with this module's signatures: what the
    operators see of cuDNN, on machines without it (the tests of the
    operators' cuDNN path; ``benchmarks/bench_gpu_calls.py``, which counts
    a step's device calls as if cuDNN ran its convolutions).

    As the real calls, each makes its inputs contiguous and allocates
    its output with ``xp``; the computation itself runs inside
    ``around(kind)`` (a context manager) when given.
    """
    from contextlib import nullcontext

    def call(kind, which):
        def run(xp, a, b, shape, stride, pad, dilate, groups, mb=1024):
            a, b = xp.ascontiguousarray(a), xp.ascontiguousarray(b)
            out = xp.empty(shape, dtype=a.dtype)
            with around(kind) if around else nullcontext():
                zeros = xp.zeros(shape, dtype=a.dtype)
                # the array not given is zeros of its shape (the forward's
                # dy only gives the output's shape)
                x, w, dy = {
                    'Forward': (a, b, zeros),
                    'BackwardData': (zeros, b, a),
                    'BackwardFilter': (a, zeros, b),
                }[kind]
                got = reference_conv(xp, x, w, dy, stride, pad, dilate, groups)
                out[...] = got[which]
            return out

        return run

    return (
        call('Forward', 0),
        call('BackwardData', 1),
        call('BackwardFilter', 2),
    )


def _taps(kernel):
    taps = [()]
    for k in kernel:
        taps = [t + (i,) for t in taps for i in range(k)]
    return taps


def _self_check(xp, dtype):
    """None when cuDNN's three products agree with :func:`reference_conv`
    on a small convolution of ``dtype``, else the reason they do not."""
    shapes = ((2, 3, 7, 6), (4, 3, 3, 2))  # uneven sizes catch a transpose
    stride, pad, dilate = (2, 1), (1, 1), (1, 2)
    rng = xp.random.RandomState(0)
    x = rng.standard_normal(shapes[0]).astype(dtype)
    w = rng.standard_normal(shapes[1]).astype(dtype)
    out = tuple(
        (n + 2 * p - d * (k - 1) - 1) // s + 1
        for n, k, s, p, d in zip(
            shapes[0][2:], shapes[1][2:], stride, pad, dilate
        )
    )
    dy = rng.standard_normal((2, 4) + out).astype(dtype)
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
