"""The size of one core's L2 cache, for routines that work in blocks.

Blocked routines (the convolution fast path) copy a block of data and use
it at once, so it is read back from cache instead of memory; the block
must fit in the cache of the core that runs it.  Linux reports the size
in ``/sys/devices/system/cpu/cpu0/cache/index*/`` (``level`` 2,
``type`` Data or Unified, ``size`` like ``2048K``).  Elsewhere, or when
it cannot be read, :data:`DEFAULT_L2_BYTES` is assumed.
"""

import functools
import glob
import os

__all__ = ['l2_cache_bytes', 'DEFAULT_L2_BYTES']

#: Assumed when the size cannot be read: 1 MiB, common on current x86.
DEFAULT_L2_BYTES = 2**20

_UNITS = {'K': 2**10, 'M': 2**20, 'G': 2**30}


def _parse_size(text):
    """``'2048K'`` -> 2097152; None when it is not such a size."""
    text = text.strip().upper()
    scale = _UNITS.get(text[-1:], 1)
    digits = text[:-1] if text[-1:] in _UNITS else text
    return int(digits) * scale if digits.isdigit() else None


def _read_l2(root='/sys/devices/system/cpu/cpu0/cache'):
    for index in sorted(glob.glob(os.path.join(root, 'index*'))):
        try:
            with open(os.path.join(index, 'level')) as f:
                level = f.read().strip()
            with open(os.path.join(index, 'type')) as f:
                kind = f.read().strip()
            with open(os.path.join(index, 'size')) as f:
                size = _parse_size(f.read())
        except (OSError, ValueError):
            continue
        if level == '2' and kind in ('Data', 'Unified') and size:
            return size
    return None


@functools.cache
def l2_cache_bytes():
    """One core's L2 cache in bytes (read once, then remembered)."""
    return _read_l2() or DEFAULT_L2_BYTES
