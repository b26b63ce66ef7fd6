"""Helpers for the mx.image tests: small images written with Pillow."""

import io

import numpy as np
import pytest


def encode(array, fmt='PNG', **options):
    """The bytes of ``array`` (HW or HWC uint8, RGB) saved by Pillow."""
    Image = pytest.importorskip('PIL.Image')
    out = io.BytesIO()
    Image.fromarray(array).save(out, format=fmt, **options)
    return out.getvalue()


def write(path, array, fmt='PNG'):
    """Save ``array`` to ``path`` with Pillow; return the path as str."""
    with open(path, 'wb') as f:
        f.write(encode(array, fmt))
    return str(path)


def solid(value, height=8, width=8):
    """An RGB image whose every pixel is ``(value, value + 1, value + 2)``,
    so it keeps its identity through crops and resizes."""
    image = np.empty((height, width, 3), dtype=np.uint8)
    image[...] = (value, value + 1, value + 2)
    return image


@pytest.fixture
def rgb_image():
    """A 6x10 RGB uint8 image with distinct pixel values."""
    rng = np.random.RandomState(7)
    return rng.randint(0, 256, (6, 10, 3)).astype(np.uint8)


@pytest.fixture
def image_folder(tmp_path):
    """16 solid 8x8 PNG images ``img00.png``... with pixel (10*i, ...) and
    label ``i % 5``; returns ``(folder, [(label, name), ...])``."""
    pytest.importorskip('PIL')
    items = []
    for i in range(16):
        name = f'img{i:02d}.png'
        write(tmp_path / name, solid(10 * i))
        items.append((i % 5, name))
    return tmp_path, items
