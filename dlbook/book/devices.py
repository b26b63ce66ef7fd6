"""Choosing a device: ``try_gpu`` and ``try_all_gpus``, as in d2l.

d2l's versions fall back to the CPU silently, and "why is it running on
the CPU?" is one of the most common questions about MXNet (the CPU build
was installed, CuPy is missing, the driver does not match CUDA...). These
say why, in one line, the first time they fall back; ``gpu_status()``
returns the same explanation at any time.
"""
from .. import backend
from ..context import cpu, gpu, num_gpus

# Reasons already printed in this process: a loop calling try_gpu() must
# not repeat the same line every time.
_reported = set()


def _no_gpu_reason():
    """Why no GPU at all can be used (a sentence, never None)."""
    reason = backend.gpu_unavailable_reason()
    return reason or 'no CUDA device was found'


def gpu_status():
    """Say in one line whether a GPU can be used, and if not, why.

    Returns
    -------
    str
        ``'2 GPUs available: gpu(0), gpu(1)'``, or ``'no GPU available:
        '`` followed by the reason: CuPy is not installed (and the package
        to install), CuPy found no CUDA device, or the CUDA/driver error.

    Examples
    --------
    >>> d2l.gpu_status()                                # doctest: +SKIP
    "no GPU available: CuPy is not installed (No module named 'cupy');
    install the GPU extra: pip install 'dlbook[gpu]'"
    """
    count = num_gpus()
    if count:
        names = ', '.join(str(gpu(i)) for i in range(count))
        plural = 'GPU' if count == 1 else 'GPUs'
        return f'{count} {plural} available: {names}'
    return f'no GPU available: {_no_gpu_reason()}'


def _report_once(message):
    if message not in _reported:
        _reported.add(message)
        print(message, flush=True)


def try_gpu(i=0):
    """Return ``gpu(i)`` if it exists, otherwise ``cpu()``.

    The first time it falls back to the CPU for a given reason it prints
    one line saying why (``gpu_status()`` gives the same text).

    Parameters
    ----------
    i : int, optional
        Index of the wanted GPU.

    Returns
    -------
    Context

    Examples
    --------
    >>> device = d2l.try_gpu()          # gpu(0) on a machine with a GPU
    """
    count = num_gpus()
    if count >= i + 1:
        return gpu(i)
    if count:
        plural = 'GPU' if count == 1 else 'GPUs'
        reason = f'only {count} {plural} found'
    else:
        reason = _no_gpu_reason()
    _report_once(f'try_gpu: using cpu(0) instead of gpu({i}): {reason}')
    return cpu()


def try_all_gpus():
    """Return every GPU, or ``[cpu()]`` when there is none.

    Without a GPU it prints one line saying why (once per reason).

    Returns
    -------
    list of Context

    Examples
    --------
    >>> devices = d2l.try_all_gpus()    # [gpu(0), gpu(1)] or [cpu(0)]
    """
    count = num_gpus()
    if count:
        return [gpu(i) for i in range(count)]
    _report_once(f'try_all_gpus: using [cpu(0)], no GPU available: '
                 f'{_no_gpu_reason()}')
    return [cpu()]
