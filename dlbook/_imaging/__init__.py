"""Image decoding and pixel operations shared by ``mx.image``,
``mx.recordio`` and ``gluon.data.vision``.

They live here, below all three, so that each imports downward:
``imread`` (decoding files and buffers, through Pillow when present) and
``ops`` (resizing, cropping, colour jitter on NumPy/CuPy arrays).
"""
