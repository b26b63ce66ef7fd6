"""Read image files and decode image bytes into ``HWC`` ``uint8`` NDArrays.

``imread(filename)`` reads a JPEG or PNG file; ``imdecode(buf)`` decodes
the bytes of one (as found in a RecordIO ``.rec`` file, or read with
``open(name, 'rb').read()``).  Both return an NDArray of shape
``(height, width, 3)`` in **RGB** order (``flag=1``, the default) or
``(height, width, 1)`` greyscale (``flag=0``), on ``cpu(0)``, exactly as
MXNet's OpenCV-based functions do.  ``to_rgb=False`` gives OpenCV's
**BGR** order instead.

MXNet decodes with OpenCV; dlbook decodes with Pillow, imported only when
an image is actually decoded (``import dlbook`` never loads it).  Pixel
values of PNG images are identical; JPEG decoders may differ by a grey
level or two.  Greyscale conversion uses the ITU-R 601 weights
(0.299, 0.587, 0.114), as OpenCV does.
"""

__all__ = ['imread', 'imdecode']

import os

import numpy

from .._imaging import imread as _imread
from ..base import DLBookError
from ..context import cpu
from ..ndarray.ndarray import NDArray, from_raw


def _check_flag(flag, name):
    """MXNet's ``flag``: 1 colour, 0 greyscale; anything else is refused."""
    if isinstance(flag, bool):
        flag = int(flag)
    if flag not in (0, 1):
        raise DLBookError(
            f'{name}: flag must be 1 (colour, 3 channels) or '
            f'0 (greyscale, 1 channel), got {flag!r}'
        )
    return flag


def _finish(image, flag, to_rgb, out):
    """Order the channels, wrap as an NDArray on cpu(0), fill ``out``."""
    if flag and not to_rgb:
        image = numpy.ascontiguousarray(image[:, :, ::-1])  # RGB -> BGR
    if out is not None:
        if out.shape != image.shape:
            raise DLBookError(
                f'out has shape {out.shape} but the image has '
                f'shape {image.shape}'
            )
        out[:] = from_raw(image, cpu(0))
        return out
    return from_raw(image, cpu(0))


def imread(filename, flag=1, to_rgb=True, out=None):
    """Read an image file into an ``HWC`` ``uint8`` NDArray.

    Parameters
    ----------
    filename : str or os.PathLike
        A JPEG or PNG file (or a ``.npy`` file holding a ``uint8`` ``HW`` or
        ``HWC`` array, a dlbook extension).
    flag : {0, 1}, default 1
        1 for a 3-channel colour image, 0 for a 1-channel greyscale image.
    to_rgb : bool, default True
        True for RGB channel order (MXNet's default); False for BGR
        (OpenCV's ``cv2.imread`` order).
    out : NDArray, optional
        Write the image into this array (it must have the right shape).

    Returns
    -------
    NDArray
        ``(H, W, 3)`` or ``(H, W, 1)``, dtype ``uint8``, on ``cpu(0)``.

    Raises
    ------
    DLBookError
        If the file does not exist, cannot be decoded, or ``flag`` is not
        0 or 1 (``mx.base.MXNetError`` is the same class).

    Examples
    --------
    >>> img = mx.image.imread('cat.jpg')
    >>> img.shape, img.dtype
    ((480, 640, 3), dtype('uint8'))
    >>> mx.image.imread('cat.jpg', flag=0).shape
    (480, 640, 1)
    """
    flag = _check_flag(flag, 'imread')
    path = os.fspath(filename)
    if not os.path.isfile(path):
        raise DLBookError(
            f"imread: '{path}' couldn't open file: No such file or directory"
        )
    image = _imread.imread(path, flag)
    return _finish(image, flag, to_rgb, out)


def _as_bytes(buf):
    """The encoded bytes inside ``buf`` (bytes, bytearray, memoryview,
    a NumPy array or a uint8 NDArray, as MXNet accepts)."""
    if isinstance(buf, NDArray):
        if buf.dtype != numpy.uint8:
            raise DLBookError(
                f'imdecode: an NDArray buffer must be uint8, '
                f'got {numpy.dtype(buf.dtype).name}'
            )
        return buf.asnumpy().tobytes()
    if isinstance(buf, str):
        raise ValueError(
            'buf must be of type bytes, bytearray or '
            'numpy.ndarray, if you would like to input type '
            'str, please convert to bytes'
        )
    if isinstance(buf, numpy.ndarray):
        return buf.tobytes()
    if isinstance(buf, (bytes, bytearray, memoryview)):
        return bytes(buf)
    raise ValueError(
        f'buf must be of type bytes, bytearray or '
        f'numpy.ndarray, got {type(buf).__name__}'
    )


def imdecode(buf, flag=1, to_rgb=True, out=None):
    """Decode the bytes of a JPEG or PNG image into an ``HWC`` ``uint8``
    NDArray.

    Parameters
    ----------
    buf : bytes, bytearray, numpy.ndarray or NDArray
        The encoded image, e.g. ``open('cat.jpg', 'rb').read()`` or the
        payload of a RecordIO record (``mx.recordio.unpack(record)[1]``).
    flag : {0, 1}, default 1
        1 for a 3-channel colour image, 0 for a 1-channel greyscale image.
    to_rgb : bool, default True
        True for RGB channel order (MXNet's default); False for BGR.
    out : NDArray, optional
        Write the image into this array (it must have the right shape).

    Returns
    -------
    NDArray
        ``(H, W, 3)`` or ``(H, W, 1)``, dtype ``uint8``, on ``cpu(0)``.

    Raises
    ------
    ValueError
        If ``buf`` is a ``str`` (encode it to bytes first) or another type.
    DLBookError
        If the bytes are empty or not an image, or ``flag`` is not 0 or 1.

    Examples
    --------
    >>> with open('cat.jpg', 'rb') as f:
    ...     img = mx.image.imdecode(f.read())
    >>> img
    <NDArray 480x640x3 @cpu(0)>
    """
    flag = _check_flag(flag, 'imdecode')
    data = _as_bytes(buf)
    if not data:
        raise DLBookError(
            'imdecode: the buffer is empty (0 bytes); there is '
            'no image to decode'
        )
    image = _imread.imdecode(data, flag, source='the imdecode buffer')
    return _finish(image, flag, to_rgb, out)
