"""Detection operators against MXNet 1.9.1 (d2l's object-detection
chapters call ``npx.multibox_prior`` and ``npx.roi_pooling``)."""

import numpy
import pytest

from dlbook import autograd, nd, np, npx


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def close(x, expected):
    numpy.testing.assert_allclose(
        numpy.asarray(x), expected, rtol=1e-5, atol=1e-6
    )


def test_multibox_prior():
    boxes = npx.multibox_prior(
        np.zeros((1, 3, 2, 3)), sizes=[0.75, 0.5], ratios=[1, 2, 0.5]
    )
    assert boxes.shape == (1, 24, 4) and boxes.dtype == numpy.float32
    # MXNet 1.9.1 gives (first 24 numbers)
    close(
        boxes.reshape(-1)[:24].asnumpy(),
        [
            -0.0833333283662796,
            -0.125,
            0.4166666865348816,
            0.625,
            0.0,
            0.0,
            0.3333333432674408,
            0.5,
            -0.1868867129087448,
            -0.015165060758590698,
            0.5202200412750244,
            0.5151650905609131,
            -0.010110020637512207,
            -0.2803301215171814,
            0.343443363904953,
            0.7803301215171814,
            0.25,
            -0.125,
            0.75,
            0.625,
            0.3333333134651184,
            0.0,
            0.6666666865348816,
            0.5,
        ],
    )
    clipped = npx.multibox_prior(
        np.zeros((1, 3, 2, 3)),
        sizes=[0.5],
        ratios=[1],
        steps=(0.4, 0.3),
        offsets=(0.2, 0.7),
        clip=True,
    )
    close(
        clipped.reshape(-1).asnumpy(),
        [
            0.04333333671092987,
            0.0,
            0.3766666650772095,
            0.33000001311302185,
            0.34333336353302,
            0.0,
            0.6766667366027832,
            0.33000001311302185,
            0.643333375453949,
            0.0,
            0.9766667485237122,
            0.33000001311302185,
            0.04333333671092987,
            0.23000001907348633,
            0.3766666650772095,
            0.7300000190734863,
            0.34333336353302,
            0.23000001907348633,
            0.6766667366027832,
            0.7300000190734863,
            0.643333375453949,
            0.23000001907348633,
            0.9766667485237122,
            0.7300000190734863,
        ],
    )
    legacy = nd.contrib.MultiBoxPrior(
        nd.zeros((1, 3, 2, 3)), sizes=(0.75, 0.5), ratios=(1, 2, 0.5)
    )
    close(legacy.asnumpy(), boxes.asnumpy())


def test_box_iou_and_nms():
    npx.reset_np()
    a = nd.array(
        [[0.0, 0.0, 1.0, 1.0], [0.5, 0.5, 1.5, 1.5], [2.0, 2.0, 3.0, 3.0]]
    )
    b = nd.array([[0.0, 0.0, 0.5, 0.5], [0.25, 0.25, 1.25, 1.25]])
    # MXNet 1.9.1 gives
    close(
        nd.contrib.box_iou(a, b).asnumpy(),
        [[0.25, 0.3913043439388275], [0.0, 0.3913043439388275], [0.0, 0.0]],
    )
    close(
        nd.contrib.box_iou(a, b, format='center').asnumpy(),
        [
            [0.25, 0.426086962223053],
            [0.1111111119389534, 0.4969325065612793],
            [0.0, 0.013493252918124199],
        ],
    )
    data = nd.array(
        [
            [
                [0, 0.9, 0, 0, 1, 1],
                [0, 0.8, 0.1, 0.1, 1.1, 1.1],
                [1, 0.7, 0, 0, 1, 1],
                [0, 0.6, 2, 2, 3, 3],
                [-1, 0.95, 0, 0, 1, 1],
            ]
        ]
    )
    empty = [-1.0] * 6
    close(
        nd.contrib.box_nms(
            data, overlap_thresh=0.5, coord_start=2, score_index=1, id_index=0
        ).asnumpy(),
        [
            [
                [0.0, 0.9, 0.0, 0.0, 1.0, 1.0],
                [1.0, 0.7, 0.0, 0.0, 1.0, 1.0],
                [0.0, 0.6, 2.0, 2.0, 3.0, 3.0],
                empty,
                empty,
            ]
        ],
    )
    close(
        nd.contrib.box_nms(
            data,
            overlap_thresh=0.5,
            coord_start=2,
            score_index=1,
            id_index=0,
            force_suppress=True,
        ).asnumpy(),
        [
            [
                [0.0, 0.9, 0.0, 0.0, 1.0, 1.0],
                [0.0, 0.6, 2.0, 2.0, 3.0, 3.0],
                empty,
                empty,
                empty,
            ]
        ],
    )


def test_roi_pooling_forward_and_gradient():
    x = np.arange(32.0).reshape(1, 2, 4, 4)
    rois = np.array([[0, 0, 0, 3, 3], [0, 1, 1, 2.6, 3.4]])
    x.attach_grad()
    with autograd.record():
        y = npx.roi_pooling(x, rois, pooled_size=(2, 2), spatial_scale=1.0)
    y.backward()
    assert y.shape == (2, 2, 2, 2)
    # MXNet 1.9.1 gives
    close(
        y.reshape(-1).asnumpy(),
        [
            5.0,
            7.0,
            13.0,
            15.0,
            21.0,
            23.0,
            29.0,
            31.0,
            10.0,
            11.0,
            14.0,
            15.0,
            26.0,
            27.0,
            30.0,
            31.0,
        ],
    )
    close(
        x.grad.reshape(-1).asnumpy(),
        [0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 2] * 2,
    )
    with autograd.record():
        y = npx.roi_pooling(x, rois * 2, pooled_size=(3, 2), spatial_scale=0.5)
    y.backward()
    close(
        y.reshape(-1).asnumpy(),
        [
            5.0,
            7.0,
            9.0,
            11.0,
            13.0,
            15.0,
            21.0,
            23.0,
            25.0,
            27.0,
            29.0,
            31.0,
            6.0,
            7.0,
            10.0,
            11.0,
            14.0,
            15.0,
            22.0,
            23.0,
            26.0,
            27.0,
            30.0,
            31.0,
        ],
    )
    close(
        x.grad.reshape(-1).asnumpy(),
        [0, 0, 0, 0, 0, 1, 1, 2, 0, 1, 1, 2, 0, 1, 1, 2] * 2,
    )
    legacy = nd.ROIPooling(
        x.as_nd_ndarray(),
        rois.as_nd_ndarray(),
        pooled_size=(2, 2),
        spatial_scale=1.0,
    )
    assert legacy.shape == (2, 2, 2, 2)
