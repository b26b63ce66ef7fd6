"""Rows for the ``nd.image`` operators (dlbook/ops/image.py): images
``HWC`` in [0, 255), tensors ``CHW``."""

import numpy as np

from tests.ops.cases import Case

IMAGE = [(4, 5, 3)]
TENSOR = [(3, 4, 5)]

# AlexNet's PCA of ImageNet RGB values, as MXNet's AdjustLighting
EIGVAL = np.array([55.46, 4.794, 1.148])
EIGVEC = np.array(
    [
        [-0.5675, 0.7192, 0.4009],
        [-0.5808, -0.0045, -0.8140],
        [-0.5836, -0.6948, 0.4203],
    ]
)


def same_shape_and_dtype(outs, inputs):
    (y,), (x,) = outs, inputs
    assert y.shape == x.shape and y.dtype == x.dtype
    assert np.isfinite(y).all()


def either_flip(axis):
    def check(outs, inputs):
        (y,), (x,) = outs, inputs
        assert np.array_equal(y, x) or np.array_equal(y, np.flip(x, axis))

    return check


def mean_shift(scale):
    """A colour change leaves the shape and moves values by ``scale`` at
    most, relative to the image's range."""

    def check(outs, inputs):
        same_shape_and_dtype(outs, inputs)
        (y,), (x,) = outs, inputs
        assert np.abs(y - x).max() <= scale * 255

    return check


CASES = {
    '_image_to_tensor': Case(
        IMAGE,
        low=0.0,
        high=255.0,
        ref=lambda x: np.moveaxis(x, -1, 0) / 255,
        grad=(),
        dtypes=('float32',),  # always float32, as MXNet
    ),
    '_image_normalize': [
        Case(
            TENSOR,
            attrs={'mean': (0.1, 0.2, 0.3), 'std': (1.0, 2.0, 4.0)},
            ref=lambda x: (
                (x - np.array([0.1, 0.2, 0.3])[:, None, None])
                / np.array([1.0, 2.0, 4.0])[:, None, None]
            ),
        ),
        Case(
            [(2, 3, 4, 5)],
            attrs={'mean': 0.5, 'std': 0.25},
            ref=lambda x: (x - 0.5) / 0.25,
        ),
    ],
    '_image_flip_left_right': Case(IMAGE, ref=lambda x: x[:, ::-1]),
    '_image_flip_top_bottom': Case([(2, 4, 5, 3)], ref=lambda x: x[:, ::-1]),
    '_image_crop': Case(
        IMAGE,
        attrs={'x': 1, 'y': 2, 'width': 3, 'height': 2},
        ref=lambda x: x[2:4, 1:4],
    ),
    '_image_resize': Case(
        [(4, 6, 3)],
        attrs={'size': (3, 2), 'interp': 0},  # nearest: every other pixel
        ref=lambda x: x[::2, ::2],
        grad=(),
    ),
    '_image_adjust_lighting': Case(
        IMAGE,
        low=0.0,
        high=255.0,
        attrs={'alpha': (0.1, 0.2, 0.3)},
        ref=lambda x: x + EIGVEC @ (np.array([0.1, 0.2, 0.3]) * EIGVAL),
        grad=(),
    ),
    '_image_random_brightness': Case(
        IMAGE,
        attrs={'min_factor': 2.0, 'max_factor': 2.0},
        ref=lambda x: 2 * x,
        grad=(),
    ),
    '_image_random_contrast': Case(
        IMAGE,
        low=0.0,
        high=1.0,
        attrs={'min_factor': 0.8, 'max_factor': 1.2},
        check=mean_shift(0.2 / 255),
        grad=(),
    ),
    '_image_random_saturation': Case(
        IMAGE,
        low=0.0,
        high=1.0,
        attrs={'min_factor': 0.8, 'max_factor': 1.2},
        check=mean_shift(0.2 / 255),
        grad=(),
    ),
    '_image_random_hue': Case(
        IMAGE,
        attrs={'min_factor': -0.1, 'max_factor': 0.1},
        check=same_shape_and_dtype,
        grad=(),
    ),
    '_image_random_color_jitter': Case(
        IMAGE,
        attrs={'brightness': 0.2, 'contrast': 0.2, 'saturation': 0.2},
        check=same_shape_and_dtype,
        grad=(),
    ),
    '_image_random_lighting': Case(
        IMAGE, low=0.0, high=255.0, check=same_shape_and_dtype, grad=()
    ),
    '_image_random_flip_left_right': Case(
        IMAGE, check=either_flip(1), grad=()
    ),
    '_image_random_flip_top_bottom': Case(
        IMAGE, check=either_flip(0), grad=()
    ),
}
