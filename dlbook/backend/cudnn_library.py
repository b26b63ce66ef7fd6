"""Finding and loading NVIDIA's cuDNN library, and the signatures of the
functions dlbook calls in it (``ctypes``).

The library comes from, in order: ``$DLBOOK_CUDNN_LIBRARY`` (a path), the
``nvidia-cudnn-cu12`` / ``-cu13`` wheel (``nvidia/cudnn/lib`` or
``nvidia/cu*/lib``), then the system's loader (``libcudnn.so.9``, ``.8``).
:func:`load` tries them once per process; ``STATE['why_not']`` keeps the
reason when none loads.  What dlbook does with the library is in
``cudnn.py``.
"""

import ctypes
import glob
import importlib.util
import os

__all__ = ['CudnnError', 'AlgoPerf', 'Library', 'library_candidates', 'load']

# -- cuDNN's enumerations (cudnn_graph.h / cudnn_cnn.h, stable since v7) ----
SUCCESS = 0
DATA_TYPES = {'float32': 0, 'float64': 1, 'float16': 2}
FORMAT_NCHW = 0
CROSS_CORRELATION = 1  # what deep learning calls a convolution
DEFAULT_MATH = 0
FMA_MATH = 3  # float32 without TensorFloat-32
DETERMINISTIC = 1  # cudnnDeterminism_t


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


class Library:
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
        if status != SUCCESS:
            message = self.cudnnGetErrorString(status) or b'?'
            raise CudnnError(
                f'cuDNN {what} failed: {message.decode()} (status {status})'
            )


#: ``library``: the loaded :class:`Library`; ``why_not``: why none loaded
STATE = {'library': None, 'why_not': None}


def load():
    """The loaded library, or None (``STATE['why_not']`` says why)."""
    if STATE['library'] is not None or STATE['why_not'] is not None:
        return STATE['library']
    tried = []
    for name in library_candidates():
        try:
            STATE['library'] = Library(name)
            return STATE['library']
        except OSError as err:
            tried.append(f'{name}: {err}')
    STATE['why_not'] = (
        'no cuDNN library found (pip install nvidia-cudnn-cu12 or '
        '-cu13, or set DLBOOK_CUDNN_LIBRARY); tried ' + '; '.join(tried)
    )
    return None
