"""Augmenters: the effect of each, dumps() as MXNet, reproducibility under
mx.random.seed, and CreateAugmenter's list compared with MXNet's code."""

import json

import numpy as np
import pytest

import dlbook as mx
from dlbook.base import MXNetError
from dlbook.random import numpy_rng

LUMA = np.array([0.299, 0.587, 0.114])


def _float_image(h=6, w=8, seed=0):
    return np.random.RandomState(seed).uniform(0, 255, (h, w, 3))


def _draw(seed, method, *args, **kwargs):
    """What ``numpy_rng().method(*args)`` returns right after seeding: the
    number an augmenter will draw."""
    mx.random.seed(seed)
    return getattr(numpy_rng(), method)(*args, **kwargs)


# -- dumps --------------------------------------------------------------------


def test_dumps_is_mxnet_json():
    assert (
        mx.image.HorizontalFlipAug(0.5).dumps()
        == '["horizontalflipaug", {"p": 0.5}]'
    )
    assert mx.image.CastAug().dumps() == '["castaug", {"type": "float32"}]'
    assert json.loads(mx.image.ResizeAug(256).dumps()) == [
        'resizeaug',
        {'size': 256, 'interp': 2},
    ]
    assert json.loads(
        mx.image.RandomSizedCropAug((224, 224), 0.08, (0.75, 4 / 3)).dumps()
    ) == [
        'randomsizedcropaug',
        {
            'size': [224, 224],
            'area': 0.08,
            'ratio': [0.75, 4 / 3],
            'interp': 2,
        },
    ]
    norm = mx.image.ColorNormalizeAug(
        mx.nd.array([1, 2, 3]), np.array([4.0, 5.0, 6.0])
    )
    assert json.loads(norm.dumps()) == [
        'colornormalizeaug',
        {'mean': [1, 2, 3], 'std': [4, 5, 6]},
    ]
    assert json.loads(mx.image.ColorNormalizeAug(None, None).dumps()) == [
        'colornormalizeaug',
        {'mean': None, 'std': None},
    ]


def test_container_dumps_are_lists_of_strings():
    seq = mx.image.SequentialAug(
        [mx.image.CastAug(), mx.image.HorizontalFlipAug(1)]
    )
    assert seq.dumps() == [
        'sequentialaug',
        [
            '["castaug", {"type": "float32"}]',
            '["horizontalflipaug", {"p": 1}]',
        ],
    ]
    jitter = mx.image.ColorJitterAug(0.1, 0, 0.3)
    assert jitter.dumps() == [
        'colorjitteraug',
        [
            '["brightnessjitteraug", {"brightness": 0.1}]',
            '["saturationjitteraug", {"saturation": 0.3}]',
        ],
    ]


def test_base_class_needs_call():
    with pytest.raises(NotImplementedError):
        mx.image.Augmenter(a=1)(mx.nd.zeros((2, 2, 3)))


# -- geometry -----------------------------------------------------------------


def test_geometric_augmenters_shapes():
    img = mx.nd.array(_float_image(12, 20), dtype='uint8')
    assert mx.image.ResizeAug(6)(img).shape == (6, 10, 3)
    assert mx.image.ForceResizeAug((7, 5))(img).shape == (5, 7, 3)
    assert mx.image.RandomCropAug((4, 3))(img).shape == (3, 4, 3)
    assert mx.image.RandomSizedCropAug((9, 9), 0.3, (0.75, 1.33))(
        img
    ).shape == (9, 9, 3)
    center = mx.image.CenterCropAug((4, 3))(img)
    np.testing.assert_array_equal(
        center.asnumpy(), mx.image.center_crop(img, (4, 3))[0].asnumpy()
    )


def test_horizontal_flip():
    img = mx.nd.array(_float_image())
    flipped = mx.image.HorizontalFlipAug(1)(img)
    np.testing.assert_array_equal(flipped.asnumpy(), img.asnumpy()[:, ::-1])
    assert mx.image.HorizontalFlipAug(0)(img) is img
    mx.random.seed(3)
    flips = [
        mx.image.HorizontalFlipAug(0.5)(img) is not img for _ in range(40)
    ]
    assert 5 < sum(flips) < 35
    mx.random.seed(3)
    assert [
        mx.image.HorizontalFlipAug(0.5)(img) is not img for _ in range(40)
    ] == flips


def test_cast():
    img = mx.nd.zeros((2, 2, 3), dtype='uint8')
    assert mx.image.CastAug()(img).dtype == np.float32
    assert mx.image.CastAug('float64')(img).dtype == np.float64


# -- colour -------------------------------------------------------------------


def test_brightness_in_place_with_seeded_factor():
    src = _float_image()
    alpha = 1 + _draw(4, 'uniform', -0.3, 0.3)
    img = mx.nd.array(src)
    mx.random.seed(4)
    out = mx.image.BrightnessJitterAug(0.3)(img)
    assert out is img  # in place
    np.testing.assert_allclose(out.asnumpy(), src * alpha, rtol=1e-5)


def test_brightness_saturates_integer_images():
    img = mx.nd.full((2, 2, 3), 250, dtype='uint8')
    mx.random.seed(0)
    out = mx.image.BrightnessJitterAug(0.5)(img)
    assert out.dtype == np.uint8
    alpha = 1 + _draw(0, 'uniform', -0.5, 0.5)
    assert (out.asnumpy() == min(255, round(250 * alpha))).all()


def test_contrast_blends_with_mean_luma():
    src = _float_image()
    alpha = 1 + _draw(6, 'uniform', -0.5, 0.5)
    mx.random.seed(6)
    out = mx.image.ContrastJitterAug(0.5)(mx.nd.array(src))
    expected = src * alpha + (1 - alpha) * (src @ LUMA).mean()
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-4)


def test_saturation_blends_with_pixel_luma():
    src = _float_image()
    alpha = 1 + _draw(8, 'uniform', -0.5, 0.5)
    mx.random.seed(8)
    out = mx.image.SaturationJitterAug(0.5)(mx.nd.array(src))
    expected = src * alpha + (1 - alpha) * (src @ LUMA)[:, :, None]
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-4)


def test_hue_rotation_matrix():
    src = _float_image()
    alpha = _draw(9, 'uniform', -0.4, 0.4)
    img = mx.nd.array(src)
    mx.random.seed(9)
    out = mx.image.HueJitterAug(0.4)(img)
    assert out is not img
    u, w = np.cos(alpha * np.pi), np.sin(alpha * np.pi)
    aug = mx.image.HueJitterAug(0.4)
    bt = np.array([[1, 0, 0], [0, u, -w], [0, w, u]])
    t = (aug.ityiq @ bt @ aug.tyiq).T
    np.testing.assert_allclose(out.asnumpy(), src @ t, rtol=1e-4, atol=1e-3)
    # hue 0: the YIQ round trip is (nearly) the identity
    out = mx.image.HueJitterAug(0)(mx.nd.array(src))
    np.testing.assert_allclose(out.asnumpy(), src, atol=1.0)


def test_lighting_adds_pca_noise():
    eigval = np.array([55.46, 4.794, 1.148])
    eigvec = np.array(
        [
            [-0.5675, 0.7192, 0.4009],
            [-0.5808, -0.0045, -0.8140],
            [-0.5836, -0.6948, 0.4203],
        ]
    )
    alpha = _draw(10, 'normal', 0, 0.1, size=(3,))
    src = _float_image()
    img = mx.nd.array(src)
    mx.random.seed(10)
    out = mx.image.LightingAug(0.1, eigval, eigvec)(img)
    assert out is img
    np.testing.assert_allclose(
        out.asnumpy(), src + np.dot(eigvec * alpha, eigval), rtol=1e-5
    )


def test_color_normalize_aug_like_mxnet_test():
    rng = np.random.RandomState(1)
    mean, std = rng.rand(3) * 255, rng.rand(3) + 1
    src = rng.rand(20, 30, 3) * 255.0
    aug = mx.image.ColorNormalizeAug(mean=mx.nd.array(mean), std=std)
    out = aug(mx.nd.array(src))
    np.testing.assert_allclose(out.asnumpy(), (src - mean) / std, atol=1e-3)


def test_random_gray():
    src = _float_image()
    out = mx.image.RandomGrayAug(1)(mx.nd.array(src)).asnumpy()
    gray = src @ np.array([0.21, 0.72, 0.07])
    for c in range(3):
        np.testing.assert_allclose(out[:, :, c], gray, rtol=1e-5)
    img = mx.nd.array(src)
    assert mx.image.RandomGrayAug(0)(img) is img


def test_rgb_only_augmenters_refuse_other_channel_counts():
    grey = mx.nd.zeros((4, 4, 1))
    for aug in (
        mx.image.HueJitterAug(0.1),
        mx.image.RandomGrayAug(1),
        mx.image.LightingAug(0.1, np.ones(3), np.eye(3)),
    ):
        with pytest.raises(MXNetError, match='3 channels'):
            aug(grey)


def test_color_jitter_members_and_random_order():
    jitter = mx.image.ColorJitterAug(0.1, 0.2, 0.3)
    assert isinstance(jitter, mx.image.RandomOrderAug)
    names = sorted(type(t).__name__ for t in jitter.ts)
    assert names == [
        'BrightnessJitterAug',
        'ContrastJitterAug',
        'SaturationJitterAug',
    ]
    assert mx.image.ColorJitterAug(0, 0, 0).ts == []


class _Record(mx.image.Augmenter):
    """Appends its name to a shared log when called."""

    def __init__(self, name, log):
        super().__init__(name=name)
        self.name, self.log = name, log

    def __call__(self, src):
        self.log.append(self.name)
        return src


def test_random_order_draws_a_seeded_order_each_call():
    log = []
    order = mx.image.RandomOrderAug([_Record(n, log) for n in 'abc'])

    def orders(seed):
        del log[:]
        mx.random.seed(seed)
        for _ in range(10):
            order(mx.nd.zeros((1, 1, 3)))
        return [''.join(log[i : i + 3]) for i in range(0, 30, 3)]

    seen = orders(12)
    assert all(sorted(o) == ['a', 'b', 'c'] for o in seen)
    assert len(set(seen)) > 1
    assert orders(12) == seen
    assert [t.name for t in order.ts] == ['a', 'b', 'c']


def test_sequential_aug_applies_in_order():
    seq = mx.image.SequentialAug(
        [mx.image.CastAug(), mx.image.HorizontalFlipAug(1)]
    )
    img = mx.nd.array(_float_image(), dtype='uint8')
    out = seq(img)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.asnumpy(), img.asnumpy()[:, ::-1])


def test_full_pipeline_is_reproducible_under_seed():
    augs = mx.image.CreateAugmenter(
        (3, 16, 16),
        resize=20,
        rand_crop=True,
        rand_resize=True,
        rand_mirror=True,
        mean=True,
        std=True,
        brightness=0.2,
        contrast=0.2,
        saturation=0.2,
        hue=0.1,
        pca_noise=0.1,
        rand_gray=0.3,
        inter_method=10,
    )
    src = mx.nd.array(_float_image(24, 30), dtype='uint8')

    def run(seed):
        mx.random.seed(seed)
        out = src
        for aug in augs:
            out = aug(out)
        return out.asnumpy()

    first = run(1)
    assert first.shape == (16, 16, 3) and first.dtype == np.float32
    np.testing.assert_array_equal(run(1), first)
    assert not np.array_equal(run(2), first)
    assert src.dtype == np.uint8  # the input was not changed


# -- CreateAugmenter ----------------------------------------------------------


def _names(augs):
    return [type(a).__name__ for a in augs]


@pytest.mark.parametrize(
    'kwargs, expected',
    [
        # Each row follows MXNet 1.x's CreateAugmenter line by line.
        ({}, ['CenterCropAug', 'CastAug']),
        ({'resize': 256}, ['ResizeAug', 'CenterCropAug', 'CastAug']),
        ({'rand_crop': True}, ['RandomCropAug', 'CastAug']),
        (
            {'rand_crop': True, 'rand_resize': True},
            ['RandomSizedCropAug', 'CastAug'],
        ),
        (
            {'rand_mirror': True},
            ['CenterCropAug', 'HorizontalFlipAug', 'CastAug'],
        ),
        ({'brightness': 0.1}, ['CenterCropAug', 'CastAug', 'ColorJitterAug']),
        (
            {'saturation': 0.1, 'hue': 0.1},
            ['CenterCropAug', 'CastAug', 'ColorJitterAug', 'HueJitterAug'],
        ),
        (
            {'pca_noise': 0.1, 'rand_gray': 0.2},
            ['CenterCropAug', 'CastAug', 'LightingAug', 'RandomGrayAug'],
        ),
        ({'mean': True}, ['CenterCropAug', 'CastAug', 'ColorNormalizeAug']),
        (
            {'std': np.array([1.0, 2.0, 3.0])},
            ['CenterCropAug', 'CastAug', 'ColorNormalizeAug'],
        ),
        (
            {
                'resize': 300,
                'rand_crop': True,
                'rand_resize': True,
                'rand_mirror': True,
                'mean': True,
                'std': True,
                'brightness': 0.125,
                'contrast': 0.125,
                'saturation': 0.125,
                'hue': 0.1,
                'pca_noise': 0.05,
                'rand_gray': 0.05,
                'inter_method': 10,
            },
            [
                'ResizeAug',
                'RandomSizedCropAug',
                'HorizontalFlipAug',
                'CastAug',
                'ColorJitterAug',
                'HueJitterAug',
                'LightingAug',
                'RandomGrayAug',
                'ColorNormalizeAug',
            ],
        ),
        (
            {'pca_noise': -1, 'rand_gray': 0, 'resize': 0},
            ['CenterCropAug', 'CastAug'],
        ),
    ],
)
def test_create_augmenter_composition(kwargs, expected):
    assert (
        _names(mx.image.CreateAugmenter((3, 224, 200), **kwargs)) == expected
    )


def test_create_augmenter_settings():
    augs = mx.image.CreateAugmenter(
        (3, 224, 200),
        resize=256,
        rand_crop=True,
        rand_resize=True,
        rand_mirror=True,
        mean=True,
        std=True,
        brightness=0.1,
        contrast=0.2,
        pca_noise=0.05,
        inter_method=1,
    )
    resize, crop, flip, cast, jitter, light, norm = augs
    assert (resize.size, resize.interp) == (256, 1)
    assert crop.size == (200, 224)  # (width, height)
    assert (crop.area, crop.ratio, crop.interp) == (0.08, (0.75, 4 / 3), 1)
    assert flip.p == 0.5 and cast.typ == 'float32'
    assert _names(jitter.ts) == ['BrightnessJitterAug', 'ContrastJitterAug']
    assert light.alphastd == 0.05
    np.testing.assert_allclose(light.eigval, [55.46, 4.794, 1.148])
    np.testing.assert_allclose(
        norm.mean.asnumpy(), [123.68, 116.28, 103.53], rtol=1e-6
    )
    np.testing.assert_allclose(
        norm.std.asnumpy(), [58.395, 57.12, 57.375], rtol=1e-6
    )
    center = mx.image.CreateAugmenter((3, 32, 48))[0]
    assert (center.size, center.interp) == ((48, 32), 2)


def test_create_augmenter_errors():
    with pytest.raises(ValueError, match='rand_crop'):
        mx.image.CreateAugmenter((3, 8, 8), rand_resize=True)
    with pytest.raises(ValueError, match='1 or 3 values'):
        mx.image.CreateAugmenter((3, 8, 8), mean=np.array([1.0, 2.0]))
