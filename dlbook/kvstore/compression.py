"""2-bit gradient compression with error feedback, as MXNet 1.9.1 does it.

``kv.set_gradient_compression({'type': '2bit', 'threshold': t})`` makes a
store send, for every element of a pushed gradient, one of three values:
``+t``, ``-t`` or ``0``.  What was not sent is kept as a *residual* and
added to the next gradient of the same key (error feedback), so nothing
is lost, only delayed::

    residual += grad
    sent = +t where residual >= t, -t where residual <= -t, else 0
    residual -= sent

Sixteen 2-bit codes fit in one 32-bit word, so a worker sends 1/16 of the
bytes of a float32 gradient.  The codes are MXNet's
(``src/kvstore/gradient_compression-inl.h``): ``11`` for ``+t``, ``10``
for ``-t``, ``00`` for 0, four codes per byte, the first element in the
two highest bits.

Where compression happens (as in MXNet):

* ``'device'`` store: each device's gradient is compressed with its own
  residual, then the decompressed values are summed;
* ``dist_*`` stores: a worker first sums its devices' gradients
  (uncompressed), then compresses that sum once with the worker's
  residual; the workers' decompressed values are summed.  Pulls are never
  compressed.

MXNet 1.9.1 knows only ``'2bit'``: ``'1bit'`` came later (MXNet 2.0) and
1.9.1 rejects it, as dlbook does.
"""

import numpy

from ..base import DLBookError

__all__ = ['GradientCompression', 'parse_compression_params']

_TYPES = ('2bit',)


def parse_compression_params(compression_params):
    """Check ``compression_params`` and return ``(type, threshold)``.

    The errors are MXNet 1.9.1's: ``type`` is required, ``'2bit'`` is the
    only type, and the threshold (default 0.5) must be positive.  Other
    keys are ignored, as in MXNet.
    """
    if not isinstance(compression_params, dict):
        raise TypeError(
            f'compression_params must be a dict, got '
            f'{type(compression_params).__name__}'
        )
    if 'type' not in compression_params:
        raise DLBookError('Required parameter type of string is not presented')
    ctype = str(compression_params['type'])
    if ctype not in _TYPES:
        raise DLBookError(f'Unknown type for gradient compression {ctype}')
    threshold = float(compression_params.get('threshold', 0.5))
    if not threshold > 0:
        raise DLBookError(
            f'Check failed: params.threshold > 0 '
            f'({threshold:g} vs. 0) : threshold must be '
            f'greater than 0'
        )
    return ctype, threshold


class GradientCompression:
    """2-bit quantization with one residual per (key, sender).

    Parameters
    ----------
    threshold : float
        The magnitude ``t`` sent for an element whose residual reached it.

    Examples
    --------
    >>> gc = GradientCompression(0.5)
    >>> gc.quantize('w', np.array([0.3, 0.7, -0.9, 1.6], np.float32))
    array([ 0. ,  0.5, -0.5,  0.5], dtype=float32)
    """

    def __init__(self, threshold=0.5):
        self.type = '2bit'
        self.threshold = float(threshold)
        self._residual = {}

    def quantize(self, slot, grad):
        """Add ``grad`` (a host array) to the residual of ``slot`` and
        return the values sent (``+t``, ``-t`` or 0, same dtype)."""
        residual = self._residual.get(slot)
        if residual is None or residual.shape != grad.shape:
            residual = numpy.zeros(grad.shape, grad.dtype)
            self._residual[slot] = residual
        residual += grad
        t = residual.dtype.type(self.threshold)
        sent = numpy.where(
            residual >= t,
            t,
            numpy.where(residual <= -t, -t, residual.dtype.type(0)),
        )
        residual -= sent
        return sent

    # -- the wire format: 16 codes per 32-bit word ---------------------------
    @staticmethod
    def pack(sent):
        """The 2-bit codes of ``sent`` (values +t, -t, 0) as uint32 words,
        ``ceil(n / 16)`` of them, laid out as MXNet lays them out."""
        flat = numpy.ravel(sent)
        codes = numpy.zeros(-(-flat.size // 16) * 16, numpy.uint8)
        codes[: flat.size][flat > 0] = 0b11
        codes[: flat.size][flat < 0] = 0b10
        quads = codes.reshape(-1, 4)
        packed = (
            (quads[:, 0] << 6)
            | (quads[:, 1] << 4)
            | (quads[:, 2] << 2)
            | quads[:, 3]
        )
        return packed.astype(numpy.uint8).view(numpy.uint32)

    def unpack(self, words, shape, dtype):
        """The values (+t, -t or 0) coded in ``words``."""
        size = int(numpy.prod(shape, dtype=numpy.int64))
        packed = numpy.ascontiguousarray(words).view(numpy.uint8)
        codes = numpy.stack(
            [(packed >> s) & 0b11 for s in (6, 4, 2, 0)], axis=1
        ).ravel()[:size]
        t = numpy.dtype(dtype).type(self.threshold)
        out = numpy.zeros(size, dtype)
        out[codes == 0b11] = t
        out[codes == 0b10] = -t
        return out.reshape(shape)
