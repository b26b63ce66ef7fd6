"""Read an image file (or decode image bytes) into an ``HWC`` ``uint8``
NumPy array.

PNG and JPEG are decoded by Pillow when it is installed (dlbook does not
depend on it, and imports it only when an image has to be decoded);
``.npy`` files (``numpy.save`` of an ``HW`` or ``HWC`` ``uint8`` array)
need nothing extra.  Colour images come back as RGB, as MXNet's
``image.imread`` and ``image.imdecode`` return them.
"""

__all__ = ['imread', 'imdecode', 'pillow', 'IMAGE_EXTENSIONS']

import io
import math
import os
import tokenize

import numpy

from ..base import DLBookError

IMAGE_EXTENSIONS = ('.jpg', '.jpeg', '.png', '.npy')


def _to_flag(image, flag, path):
    """Make ``image`` (HW or HWC) have 3 channels (flag 1) or 1 (flag 0)."""
    if image.ndim == 2:
        image = image[:, :, None]
    if image.ndim != 3 or image.shape[2] not in (1, 3, 4):
        raise DLBookError(
            f'{path}: expected an image of shape (H, W) or '
            f'(H, W, C), got {image.shape}'
        )
    image = image[:, :, :3]
    if flag:
        if image.shape[2] == 1:
            image = numpy.repeat(image, 3, axis=2)
        return image
    if image.shape[2] == 3:
        weights = numpy.array([0.299, 0.587, 0.114])
        image = numpy.rint(image @ weights)[:, :, None].astype(numpy.uint8)
    return image


def _npy_data_size(path):
    """Bytes of data the ``.npy`` header of ``path`` declares, and the
    bytes the file holds after the header (read before any allocation)."""
    fmt = numpy.lib.format
    with open(path, 'rb') as f:
        version = fmt.read_magic(f)
        # the header's own length comes first: check it against the file
        # before NumPy reads (and allocates) that many bytes
        start = f.tell()
        width = 2 if version == (1, 0) else 4
        length = int.from_bytes(f.read(width), 'little')
        if length > os.fstat(f.fileno()).st_size:
            raise ValueError(
                f'its header claims {length} bytes, more than the whole file'
            )
        f.seek(start)
        read_header = (
            fmt.read_array_header_1_0
            if version == (1, 0)
            else fmt.read_array_header_2_0
        )
        shape, _, dtype = read_header(f)
        start = f.tell()
        f.seek(0, os.SEEK_END)
        if dtype.hasobject:
            raise ValueError(
                'Object arrays cannot be loaded when allow_pickle=False'
            )
        return math.prod(shape) * dtype.itemsize, f.tell() - start


def _read_npy(path):
    try:
        declared, held = _npy_data_size(path)
        if declared != held:
            raise ValueError(
                f'its header declares {declared} bytes of '
                f'data, the file holds {held}'
            )
        image = numpy.load(path, allow_pickle=False)
    except (
        ValueError,
        EOFError,
        OSError,
        SyntaxError,
        tokenize.TokenError,
        RecursionError,
    ) as err:
        if isinstance(err, FileNotFoundError):
            raise
        why = (
            'it holds Python objects (dlbook never unpickles files); '
            'save a uint8 array'
            if 'allow_pickle' in str(err)
            else f'the file is not a valid .npy array ({err})'
        )
        raise DLBookError(f'cannot read image {path}: {why}') from None
    if not isinstance(image, numpy.ndarray):
        raise DLBookError(
            f'cannot read image {path}: expected one array, '
            f'found {type(image).__name__}'
        )
    if image.dtype != numpy.uint8:
        raise DLBookError(
            f'{path}: .npy images must be uint8, got {image.dtype}'
        )
    return image


def pillow(what, hint=' (or store the images as uint8 .npy files)'):
    """``PIL.Image``, imported now.

    ``what`` ("reading x.png") names the job in the error raised when
    Pillow is not installed; ``hint`` ends that message."""
    try:
        from PIL import Image
    except ImportError:
        raise DLBookError(
            f'{what} needs Pillow, which is not installed: '
            f'pip install Pillow{hint}'
        ) from None
    return Image


def _read_pillow(path, flag):
    Image = pillow(f'reading {path}')
    try:
        with open(path, 'rb') as f:
            # Pillow then reads from memory: a damaged chunk length can
            # only ask for bytes the file really has
            data = f.read()
        with Image.open(io.BytesIO(data)) as img:
            return numpy.asarray(img.convert('RGB' if flag else 'L'))
    except FileNotFoundError:
        raise
    except (
        OSError,
        ValueError,
        SyntaxError,
        EOFError,
        Image.DecompressionBombError,
    ) as err:
        raise DLBookError(f'cannot decode image {path}: {err}') from err


def imread(path, flag=1):
    """Read ``path`` as an ``(H, W, 3)`` (``flag=1``) or ``(H, W, 1)``
    (``flag=0``, greyscale) ``uint8`` array."""
    if os.path.splitext(path)[1].lower() == '.npy':
        image = _read_npy(path)
    else:
        image = _read_pillow(path, flag)
    return numpy.ascontiguousarray(_to_flag(image, flag, path))


def imdecode(buf, flag=1, source='image bytes'):
    """Decode the bytes of a JPEG or PNG file (MXNet's ``image.imdecode``)
    into an ``(H, W, 3)`` RGB (``flag=1``) or ``(H, W, 1)`` greyscale
    (``flag=0``) ``uint8`` array.  ``source`` names the bytes in errors."""
    Image = pillow(f'decoding {source}', hint='')
    try:
        with Image.open(io.BytesIO(buf)) as img:
            image = numpy.asarray(img.convert('RGB' if flag else 'L'))
    except (
        OSError,
        ValueError,
        SyntaxError,
        EOFError,
        Image.DecompressionBombError,
    ) as err:
        raise DLBookError(
            f'cannot decode {source} as an image: {err}'
        ) from err
    return numpy.ascontiguousarray(_to_flag(image, flag, source))
