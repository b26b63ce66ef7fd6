"""Labelled records: the ``IRHeader`` in front of a payload (``pack``,
``unpack``) and encoded images (``pack_img``, ``unpack_img``)."""

__all__ = ['IRHeader', 'pack', 'unpack', 'pack_img', 'unpack_img']

import io
import numbers
import struct
from collections import namedtuple

import numpy

from ..base import DLBookError

IRHeader = namedtuple('HEADER', ['flag', 'label', 'id', 'id2'])
IRHeader.__doc__ = """The header ``pack`` puts in front of a record.

Parameters
----------
flag : int
    Number of float32 labels stored after the header (``pack`` sets it:
    0 for a single number ``label``).
label : float or array of float
    The label(s).  ``unpack`` gives a float, or a float32 NumPy array
    when ``flag > 0``.
id : int
    Usually a unique id of the record (im2rec: the line number of its
    ``.lst`` file).
id2 : int
    Higher bits of the id; usually 0.
"""
_IR_FORMAT = '<IfQQ'
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s):
    """Put an :data:`IRHeader` in front of the bytes ``s``.

    Parameters
    ----------
    header : IRHeader or tuple
        ``(flag, label, id, id2)``.  ``label`` is a number, or a list or
        array of numbers stored as float32 after the header (``flag`` is
        then set to their count).
    s : bytes
        The payload, for example the bytes of a JPEG file.

    Returns
    -------
    bytes
        24 header bytes, the labels (if a list), then ``s``.

    Examples
    --------
    >>> s = mx.recordio.pack(mx.recordio.IRHeader(0, 4, 2574, 0), b'xyz')
    >>> len(s)
    27
    >>> mx.recordio.unpack(s)
    (HEADER(flag=0, label=4.0, id=2574, id2=0), b'xyz')
    """
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = numpy.asarray(header.label, dtype='<f4')
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + bytes(s)
    try:
        return struct.pack(_IR_FORMAT, *header) + bytes(s)
    except struct.error as err:
        raise DLBookError(
            f'cannot pack {header}: flag must be a uint32, '
            f'label a float, id and id2 uint64 ({err})'
        ) from None


def unpack(s):
    """Split a record made by :func:`pack` into its header and payload.

    Parameters
    ----------
    s : bytes
        A record, as ``MXRecordIO.read`` returns it.

    Returns
    -------
    header : IRHeader
        ``header.label`` is a float, or a float32 array of ``header.flag``
        labels.
    s : bytes
        The payload.
    """
    if len(s) < _IR_SIZE:
        raise DLBookError(
            f'a record of {len(s)} bytes is too short for the '
            f'{_IR_SIZE}-byte IRHeader that pack() writes'
        )
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if len(s) < 4 * header.flag:
            raise DLBookError(
                f'the IRHeader announces {header.flag} float32 '
                f'labels ({4 * header.flag} bytes) but only '
                f'{len(s)} bytes follow it'
            )
        header = header._replace(
            label=numpy.frombuffer(s, '<f4', header.flag).astype(numpy.float32)
        )
        s = s[header.flag * 4 :]
    return header, s


def _pillow(what):
    from .._imaging.imread import pillow

    return pillow(what, hint='')


def _as_image_array(img):
    if hasattr(img, 'asnumpy'):
        img = img.asnumpy()
    img = numpy.asarray(img)
    if img.dtype != numpy.uint8:
        raise DLBookError(f'pack_img needs a uint8 image, got {img.dtype}')
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[:, :, 0]
    if img.ndim != 2 and not (img.ndim == 3 and img.shape[2] in (3, 4)):
        raise DLBookError(
            f'pack_img needs an image of shape (H, W), '
            f'(H, W, 1), (H, W, 3) or (H, W, 4), got '
            f'{img.shape}'
        )
    return numpy.ascontiguousarray(img)


def pack_img(header, img, quality=95, img_fmt='.jpg'):
    """Encode an image and :func:`pack` it with ``header``.

    Parameters
    ----------
    header : IRHeader
    img : numpy.ndarray or NDArray
        ``uint8``, ``(H, W)`` or ``(H, W, 1)`` greyscale, ``(H, W, 3)``
        **BGR** or ``(H, W, 4)`` BGRA (PNG only): OpenCV's order, as
        ``cv2.imread`` returns it and MXNet's ``pack_img`` expects.  An
        RGB array (``mx.image.imread``, Pillow) needs ``img[:, :, ::-1]``.
    quality : int, default 95
        JPEG quality (1-100), or PNG compression level (0-9; larger
        values mean 9), as in MXNet.
    img_fmt : str, default '.jpg'
        ``'.jpg'``/``'.jpeg'`` or ``'.png'`` (lossless); other extensions
        Pillow can write also work.

    Returns
    -------
    bytes

    Notes
    -----
    Needs Pillow.  JPEG is lossy: the image read back differs slightly.
    """
    Image = _pillow('pack_img')
    array = _swap_red_blue(_as_image_array(img))  # BGR -> RGB for Pillow
    fmt = img_fmt.lower()
    fmt = fmt if fmt.startswith('.') else '.' + fmt
    if fmt in ('.jpg', '.jpeg'):
        options = {'format': 'JPEG', 'quality': int(quality)}
    elif fmt == '.png':
        options = {
            'format': 'PNG',
            'compress_level': min(max(int(quality), 0), 9),
        }
    else:
        name = Image.registered_extensions().get(fmt)
        if name is None:
            raise DLBookError(
                f'pack_img: unknown image format {img_fmt!r}; '
                f'use ".jpg" or ".png"'
            )
        options = {'format': name}
    out = io.BytesIO()
    try:
        Image.fromarray(array).save(out, **options)
    except (OSError, ValueError, KeyError) as err:
        raise DLBookError(
            f'pack_img: cannot encode an image of shape '
            f'{array.shape} as {options["format"]}: '
            f'{err}'
        ) from err
    return pack(header, out.getvalue())


# How iscolor=-1 ("as stored") maps Pillow modes to arrays.
_KEEP_MODES = ('L', 'RGB', 'RGBA', 'I', 'F', 'I;16', 'I;16L', 'I;16B')


def unpack_img(s, iscolor=-1):
    """Split a record made by :func:`pack_img` into its header and the
    decoded image.

    Parameters
    ----------
    s : bytes
        A record, as ``MXRecordIO.read`` returns it.
    iscolor : int, default -1
        As OpenCV's ``imdecode`` flag: ``1`` colour ``(H, W, 3)``; ``0``
        greyscale ``(H, W)``; ``-1`` as stored (``(H, W)`` for a
        greyscale image, ``(H, W, 4)`` with transparency).

    Returns
    -------
    header : IRHeader
    img : numpy.ndarray
        ``uint8`` (16-bit PNGs stay 16-bit with ``-1``), colour channels
        in OpenCV's **BGR** order, as MXNet returns them.

    Notes
    -----
    Needs Pillow.  Undecodable bytes raise :class:`DLBookError` (MXNet
    returns None for the image).
    """
    Image = _pillow('unpack_img')
    header, payload = unpack(s)
    try:
        with Image.open(io.BytesIO(payload)) as pil:
            pil.load()
            if iscolor > 0:
                pil = pil.convert('RGB')
            elif iscolor == 0:
                pil = pil.convert('L')
            elif pil.mode not in _KEEP_MODES:
                alpha = (
                    pil.mode in ('LA', 'La', 'PA', 'RGBa')
                    or 'transparency' in pil.info
                )
                pil = pil.convert(
                    'RGBA' if alpha else 'L' if pil.mode == '1' else 'RGB'
                )
            img = numpy.array(pil)
    except OSError as err:
        raise DLBookError(
            f'unpack_img: cannot decode the image of the '
            f'record with header {header}: {err}'
        ) from err
    return header, _swap_red_blue(img)


def _swap_red_blue(img):
    """RGB(A) <-> BGR(A): reverse the first three channels of a colour
    image (Pillow speaks RGB, OpenCV and MXNet's recordio BGR)."""
    if img.ndim != 3 or img.shape[2] < 3:
        return img
    order = [2, 1, 0] + list(range(3, img.shape[2]))
    return numpy.ascontiguousarray(img[:, :, order])
