"""Keep freed host memory for reuse (glibc ``malloc`` tuning).

A training step allocates and frees the same large arrays every time:
im2col matrices, activations, gradients, each several megabytes.  By
default glibc serves blocks above a (dynamic) threshold with a fresh
``mmap`` and hands them back to the operating system on ``free``; above
another threshold it also trims the top of the heap.  The next step's
array of the same size then starts as untouched pages, and the first write
to every 4 KiB page traps into the kernel, which zeroes it.  This
page-fault traffic makes chapter 9's ResNet step (batch 256) take 88 ms
instead of 58 ms (``benchmarks/bench_training.py`` times it both ways);
it once took half of a LeNet step, before the convolutions reused their
buffers.

Deep-learning frameworks avoid this with caching allocators (PyTorch's
CUDA allocator, MXNet's storage pool).  NumPy allocates through
``malloc``, so dlbook asks glibc to behave like one:

* ``M_MMAP_MAX`` = 0: every block comes from the heap, whose freed memory
  is reused without new page faults (a 3x3 convolution on a batch of 128
  already builds a 38 MB im2col matrix, above any ``mmap`` threshold
  glibc accepts);
* ``M_TRIM_THRESHOLD`` = 512 MiB: up to that much free memory at the top
  of the heap is kept rather than returned to the system.

The cost is a larger resident size: memory freed by a step stays with the
process for the next step, as in a framework's caching allocator.  Set
``DLBOOK_HOST_MALLOC=system`` before importing dlbook to keep the C
library's defaults.  Other C libraries (macOS, Windows, musl) are left
alone.
"""

import ctypes
import os

__all__ = ['tune_malloc', 'TRIM_THRESHOLD']

# mallopt parameter numbers from glibc's <malloc.h>
_M_TRIM_THRESHOLD = -1
_M_MMAP_MAX = -4

TRIM_THRESHOLD = 512 * 2**20

_tuned = None


def _is_glibc():
    try:
        return os.confstr('CS_GNU_LIBC_VERSION').startswith('glibc')
    except (AttributeError, ValueError, OSError):  # not a GNU system
        return False


def tune_malloc():
    """Apply the settings above once per process.

    Returns
    -------
    bool
        Whether glibc accepted them (False on other C libraries, or when
        ``DLBOOK_HOST_MALLOC=system``).
    """
    global _tuned
    if _tuned is not None:
        return _tuned
    _tuned = False
    if os.environ.get('DLBOOK_HOST_MALLOC', '').lower() == 'system':
        return _tuned
    if not _is_glibc():
        return _tuned
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return _tuned
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # mallopt returns 1 on success, 0 when a value is out of range.
    _tuned = bool(
        mallopt(_M_MMAP_MAX, 0) and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
    return _tuned
