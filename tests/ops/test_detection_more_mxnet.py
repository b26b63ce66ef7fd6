"""MXNet's further contrib detection operators against values printed by
MXNet 1.9.1 (recorded here; MXNet is not imported): ``box_encode``,
``box_decode``, ``bipartite_matching``, ``Proposal``, ``MultiProposal``,
``PSROIPooling``, ``DeformablePSROIPooling``, ``DeformableConvolution`` and
``ModulatedDeformableConvolution``; their symbol forms run by an
executor; and their error messages.

Gradient records hold the input gradients for the head gradient ``1, 2,
..., y.size`` in ``y``'s shape.
"""

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, nd
from dlbook.base import DLBookError

# fmt: off
PROPOSALS = {"single": {"rois": [[0.0, 6.32551, 0.63895, 33.28815, 39.0], [0.0, 8.91927, 0.0, 55.0, 23.38613], [0.0, 25.27975, 7.67635, 43.62252, 39.0], [0.0, 3.40415, 13.62275, 55.0, 37.23973], [0.0, 29.52468, 0.0, 48.60894, 15.18549], [0.0, 0.0, 0.0, 25.83094, 15.15538], [0.0, 23.63625, 0.0, 50.06942, 27.47245], [0.0, 0.0, 0.92142, 53.29701, 34.22425]], "scores": [[0.98837], [0.94375], [0.82099], [0.69763], [0.65633], [0.6121], [0.5702], [0.43703]]}, "multi": {"rois": [[0.0, 1.61629, 15.29502, 9.41083, 23.0], [0.0, 0.1408, 13.99562, 16.72739, 23.0], [0.0, 10.36888, 10.42365, 19.0, 19.27745], [0.0, 5.39528, 0.0, 19.0, 10.23664], [0.0, 0.0, 0.99649, 11.42616, 10.25219], [0.0, 3.41208, 1.11633, 14.43096, 15.93166], [1.0, 9.78708, 12.80495, 23.0, 17.0], [1.0, 16.64252, 8.68308, 23.0, 16.81569], [1.0, 0.0, 0.19203, 5.48242, 16.59757], [1.0, 11.21776, 2.79453, 19.59496, 17.0], [1.0, 7.73301, 8.5007, 17.65546, 17.0], [1.0, 3.27475, 0.0, 9.83928, 6.45954]], "scores": [[0.87639], [0.69188], [0.42111], [0.16983], [0.14039], [0.09835], [0.94459], [0.69976], [0.66379], [0.58931], [0.51489], [0.49157]]}}
DEFAULT_ROWS = [[0.0, 6.32551, 0.63895, 33.28815, 39.0], [0.0, 8.91927, 0.0, 55.0, 23.38613], [0.0, 25.27975, 7.67635, 43.62252, 39.0], [0.0, 3.40415, 13.62275, 55.0, 37.23973]]
DEFORM = {"inputs": [[[[[0.1, 0.42, -0.42, 0.02], [0.79, 0.79, -0.75, -0.59], [-0.9, -0.12, -0.94, -0.09], [0.3, -0.44, 0.35, 0.18]], [[-0.95, 0.12, -0.48, -0.17], [-0.43, 0.39, -0.12, -0.69], [0.09, 0.56, -0.39, -0.56], [-0.22, 0.87, 0.95, 0.34]]]], [[[[1.21, 1.04], [-0.37, -1.22]], [[0.46, 0.17], [-0.42, -0.82]], [[-0.28, -0.09], [-0.69, -0.62]], [[-0.13, 1.08], [0.26, -0.65]], [[-0.67, -0.14], [-0.88, -0.9]], [[0.04, -1.24], [-0.05, -0.41]], [[0.62, 0.74], [0.57, 0.57]], [[-0.38, 0.5], [-0.48, 0.22]], [[-0.52, -0.16], [-1.32, -0.77]], [[1.41, -0.81], [0.57, 0.45]], [[0.67, -0.07], [0.29, -1.3]], [[-1.28, -0.9], [-1.04, -1.2]], [[-1.11, 0.16], [-0.94, 1.36]], [[0.54, 0.12], [0.62, -0.71]], [[1.28, 1.02], [0.68, -0.06]], [[1.03, 0.73], [0.48, 1.24]], [[0.4, -0.4], [0.16, -0.91]], [[-0.92, 0.68], [0.85, 1.42]]]], [[[[0.7, 0.09, -0.82], [-0.02, 0.86, 0.58], [-0.03, -0.09, -0.56]], [[-0.65, -0.85, 0.78], [0.28, -0.71, -0.17], [-0.9, -0.58, 0.46]]], [[[0.3, -0.04, -0.45], [0.3, 0.91, -0.13], [-0.86, -0.88, -0.83]], [[0.92, 0.08, 0.67], [-0.66, -0.48, 0.38], [0.79, -0.32, -0.87]]]], [0.5, -0.25]], "mask": [[[[0.86, 0.29], [0.74, 0.16]], [[0.69, 0.84], [0.73, 0.36]], [[0.73, 0.14], [0.31, 0.42]], [[0.88, 0.15], [0.88, 0.8]], [[0.97, 0.37], [0.2, 0.24]], [[0.83, 0.97], [0.7, 0.48]], [[0.29, 0.83], [0.87, 0.09]], [[0.22, 0.83], [0.85, 0.31]], [[0.28, 0.43], [0.54, 0.1]]]], "y": [[[[0.54048, -0.3638], [-0.57769, -0.0484]], [[-1.78964, 1.34319], [-0.27965, -1.52058]]]], "grads": [[[[[-0.2191, 1.74582, -3.38011, -2.49721], [-0.84065, 9.13579, 11.55577, 1.96859], [-1.92257, -7.7394, 1.49626, -2.99448], [-0.12968, -4.7766, -9.99942, -17.443]], [[0.15433, -2.80899, 6.65265, 3.85341], [3.09359, 0.93616, -2.71022, -3.96593], [1.84441, 1.84369, -2.35823, -3.56418], [0.08946, -4.23287, -6.1528, -10.9045]]]], [[[[-1.51059, -2.11858], [0.0, 0.0]], [[3.30904, -7.06231], [0.0, 0.0]], [[0.0, 0.0], [-0.58575, -0.82714]], [[0.0, 0.0], [1.14905, 1.51737]], [[0.0, 0.0], [4.15412, 2.05696]], [[0.0, 0.0], [1.04156, -0.952]], [[0.0, -0.798], [0.0, -2.15291]], [[0.0, 1.06837], [0.0, 1.73633]], [[-2.40388, 0.46713], [-2.02349, 1.89296]], [[2.00286, -7.99812], [-8.82019, 6.6095]], [[0.54263, 0.39164], [0.39804, 0.56392]], [[0.97633, -0.91805], [1.67861, -2.96972]], [[-1.06523, 1.93668], [-1.36338, 0.0]], [[2.43246, 0.62724], [-2.77319, 0.0]], [[-0.0, 0.0], [0.0, -6.39]], [[2.0931, 2.807], [-5.3981, 0.0]], [[-0.62588, -3.609], [-0.0, 0.0]], [[2.92178, 0.0], [4.1464, 0.0]]]], [[[[1.50384, 1.47364, -2.07988], [-1.89762, -2.37084, -3.60301], [-0.9471, 1.2695, -0.22558]], [[0.63681, 0.26314, -2.4741], [2.82345, -1.4583, 1.3372], [2.15879, 5.8103, 0.71146]]], [[[5.53242, 3.20716, -4.57316], [-4.56925, -5.26056, -8.74836], [-0.5732, 3.9647, -1.6119]], [[1.9556, 0.58124, -5.35554], [5.8429, -3.48565, 3.92612], [5.64555, 16.3335, 2.5533]]]], [10.0, 26.0]]}
MODULATED = [[[[0.66583, -0.29421], [0.23991, 0.48826]], [[-0.65606, 0.27221], [-0.03607, -0.94526]]]]
PSROI = {"y": [[[[0.4, 3.55], [7.0, 10.15]], [[12.4, 15.55], [19.0, 22.15]]], [[[24.7, 27.95], [31.9, 35.15]], [[36.7, 39.95], [43.9, 47.15001]]], [[[1.4, 4.4], [7.4, 10.4]], [[13.4, 16.4], [19.4, 22.4]]], [[[25.65, 28.9], [32.55, 35.8]], [[37.65, 40.9], [44.55, 47.8]]]], "grad": [[[[0.16667, 0.16667, 0.16667, 0.0, 0.0, 0.0], [0.16667, 0.16667, 0.16667, 0.0, 0.0, 0.0], [0.0, 0.0, 17.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 18.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.5, 0.0, 0.0, 0.0], [0.5, 0.5, 19.5, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 21.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]], [[0.83333, 0.83333, 0.83333, 0.0, 0.0, 0.0], [0.83333, 0.83333, 0.83333, 0.0, 0.0, 0.0], [0.0, 0.0, 21.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 1.5, 1.5, 0.0, 0.0], [0.0, 0.0, 1.5, 1.5, 0.0, 0.0], [0.0, 0.0, 22.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.16667, 1.16667, 1.16667, 0.0, 0.0, 0.0], [1.16667, 1.16667, 24.16667, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, 2.0, 0.0, 0.0], [0.0, 0.0, 26.0, 2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 0.0, 0.0, 0.0], [2.5625, 2.5625, 2.5625, 1.5625, 0.0, 0.0], [2.5625, 2.5625, 2.5625, 1.5625, 0.0, 0.0], [1.5625, 1.5625, 1.5625, 1.5625, 0.0, 0.0], [1.5625, 1.5625, 1.5625, 1.5625, 0.0, 0.0]], [[0.0, 0.0, 0.83333, 0.83333, 0.83333, 0.83333], [0.0, 0.0, 0.83333, 3.0, 3.0, 3.0], [0.0, 0.0, 0.83333, 3.0, 3.0, 3.0], [0.0, 0.0, 0.0, 2.16667, 2.16667, 2.16667], [0.0, 0.0, 0.0, 2.16667, 2.16667, 2.16667]], [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.22222, 1.22222, 1.22222, 0.0, 0.0, 0.0], [1.22222, 1.22222, 1.22222, 0.0, 0.0, 0.0], [7.97222, 7.97222, 7.97222, 6.75, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 1.0, 10.33333, 10.33333, 10.33333]], [[1.44444, 1.44444, 1.44444, 0.0, 0.0, 0.0], [3.25694, 3.25694, 3.25694, 1.8125, 0.0, 0.0], [3.25694, 3.25694, 3.25694, 1.8125, 0.0, 0.0], [1.8125, 1.8125, 1.8125, 1.8125, 0.0, 0.0], [1.8125, 1.8125, 1.8125, 1.8125, 0.0, 0.0]], [[0.0, 0.0, 1.16667, 1.16667, 1.16667, 1.16667], [0.0, 0.0, 1.16667, 3.66667, 3.66667, 3.66667], [0.0, 0.0, 1.16667, 3.66667, 3.66667, 3.66667], [0.0, 0.0, 0.0, 2.5, 2.5, 2.5], [0.0, 0.0, 0.0, 2.5, 2.5, 2.5]], [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.66667, 1.66667, 1.66667, 0.0, 0.0, 0.0], [1.66667, 1.66667, 1.66667, 0.0, 0.0, 0.0], [9.41667, 9.41667, 9.41667, 7.75, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.33333, 1.33333, 1.33333, 1.33333], [0.0, 0.0, 1.33333, 1.33333, 1.33333, 1.33333], [0.0, 0.0, 1.33333, 12.0, 12.0, 12.0]]]]}
DEFORM_PSROI = {"y": [[[[0.18248, 2.37785], [4.94284, 7.15345]], [[8.18248, 10.37784], [12.94284, 15.15345]]], [[[0.62536, 2.9546], [5.45004, 7.76868]], [[8.62536, 10.9546], [13.45004, 15.76868]]]], "grads": [[[[[1.59382, 0.27123, 0.0, 0.0, 0.0], [4.47227, 0.33268, 0.0, 0.0, 0.0], [3.15151, 0.17849, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]], [[0.0, 0.23407, 1.10923, 0.5236, 0.517], [0.0, 0.11273, 2.42505, 0.61232, 2.5], [0.0, 0.0, 1.66572, 0.31728, 1.983], [0.0, 0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0, 0.0], [0.54314, 0.29686, 0.0, 0.0, 0.0], [2.44864, 1.11156, 0.0, 0.0, 0.0], [7.01762, 2.58218, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.12482, 0.5201, 0.39528, 0.0], [0.0, 0.3, 1.62584, 1.17416, 0.6], [0.0, 0.05518, 3.61246, 2.19216, 5.4]], [[4.03209, 1.13316, 0.0, 0.0, 0.0], [7.21893, 0.80582, 0.0, 0.0, 0.0], [4.55218, 0.25782, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]], [[0.0, 0.70222, 2.63284, 1.43844, 0.7238], [0.0, 0.33818, 3.91515, 1.19697, 3.5], [0.0, 0.0, 2.33201, 0.44419, 2.7762], [0.0, 0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0, 0.0], [1.26734, 0.69266, 0.0, 0.0, 0.0], [4.51469, 2.15831, 0.0, 0.0, 0.0], [9.74818, 3.61882, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.24965, 1.0402, 0.79055, 0.0], [0.0, 0.6, 3.00112, 2.19888, 0.8], [0.0, 0.11035, 4.96988, 3.03937, 7.2]]]], [[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]], [[[[0.12, 0.32], [0.2, 0.48]], [[0.45, 0.6], [1.5, 1.8]]], [[[1.76, 0.96001], [2.08, 1.12001]], [[4.4, 4.8], [5.2, 5.6]]]]]}
# fmt: on


def proposal_inputs(key):
    """The recorded proposal rows' inputs (cls_prob, bbox_pred, im_info)."""
    if key == 'single':
        rng = np.random.RandomState(0)
        cls = rng.rand(1, 6, 3, 4)
        bbox = rng.randn(1, 12, 3, 4) * 0.2
        info = np.array([[40, 56, 1.0]])
    else:
        rng = np.random.RandomState(1)
        cls = rng.rand(2, 4, 3, 3)
        bbox = rng.randn(2, 8, 3, 3) * 0.3
        info = np.array([[24, 20, 1.0], [18, 24, 0.5]])
    return [a.astype(np.float32) for a in (cls, bbox, info)]


def close(got, want, atol=2e-5):
    np.testing.assert_allclose(
        np.asarray(got), np.asarray(want), rtol=1e-5, atol=atol
    )


# -- box coding -----------------------------------------------------------------

ANCHORS = [[[0.1, 0.1, 0.5, 0.6], [0.2, 0.3, 0.4, 0.9], [0, 0, 1, 1],
            [0.3, 0.2, 0.6, 0.5], [0.5, 0.5, 0.9, 0.8]]]  # fmt: skip
REFS = [[[0.15, 0.1, 0.45, 0.7], [0.2, 0.25, 0.6, 0.75]]]


def test_box_encode_matches_mxnet():
    targets, masks = nd.contrib.box_encode(
        nd.array([[1, -1, 0, 1, 1]]),
        nd.array([[1, 0, 0, 0, 1]]),
        nd.array(ANCHORS),
        nd.array(REFS),
        nd.array([0.1, 0.0, -0.1, 0.2]),
        nd.array([0.1, 0.2, 0.3, 0.4]),
    )
    close(
        targets.asnumpy(),
        [[[1.5, 1.5, 0.33333, -0.5], [0, 0, 0, 0], [0, 0, 0, 0],
          [-6.0, 0.83333, 0.33333, 1.23287], [-8.5, -2.5, 0.33333, 0.77706]]],
    )  # fmt: skip
    close(masks.asnumpy(), [[[1] * 4, [0] * 4, [0] * 4, [1] * 4, [1] * 4]])
    assert targets.dtype == masks.dtype == np.float32


def test_box_encode_and_decode_give_zero_gradients():
    # MXNet's backward writes zeros: the ops are not recorded
    anchors, data = nd.array(ANCHORS), nd.array(np.ones((1, 5, 4)) / 10)
    anchors.attach_grad()
    data.attach_grad()
    with autograd.record():
        out = nd.contrib.box_decode(data, anchors, format='corner')
        loss = out * 2 + data
    loss.backward()
    close(anchors.grad.asnumpy(), np.zeros((1, 5, 4)))
    close(data.grad.asnumpy(), np.ones((1, 5, 4)))


DELTAS = [[[0.1, -0.2, 0.3, 0.4], [0.5, 0.2, -0.3, 2.0], [0, 0, 0, 0]]]
DECODE_ANCHORS = [[[0.1, 0.1, 0.5, 0.6], [0.2, 0.3, 0.4, 0.9],
                   [0.5, 0.5, 0.3, 0.2]]]  # fmt: skip


@pytest.mark.parametrize(
    'attrs,want',
    [
        ({}, [[-0.18746, -0.46755, 0.48746, 0.42755],
              [0.25184, -2.84508, 0.54816, 3.80508], [0.35, 0.4, 0.65, 0.6]]),
        ({'format': 'corner'},
         [[0.07003, -0.12296, 0.60997, 0.62296],
          [0.32592, -1.49672, 0.47408, 2.93672], [0.5, 0.5, 0.3, 0.2]]),
        ({'std0': 0.1, 'std1': 0.2, 'std2': 0.3, 'std3': 0.4, 'clip': 0.5,
          'format': 'corner'},
         [[0.08517, 0.03662, 0.52283, 0.62338],
          [0.21861, 0.12938, 0.40139, 1.11862], [0.5, 0.5, 0.3, 0.2]]),
        ({'clip': 0.5}, [[-0.18746, -0.46755, 0.48746, 0.42755],
                         [0.25184, -0.26192, 0.54816, 1.22192],
                         [0.35, 0.4, 0.65, 0.6]]),
    ],
)  # fmt: skip
def test_box_decode_matches_mxnet(attrs, want):
    out = nd.contrib.box_decode(
        nd.array(DELTAS), nd.array(DECODE_ANCHORS), **attrs
    )
    close(out.asnumpy()[0], want)
    assert out.dtype == np.float32
    twice = nd.contrib.box_decode(
        nd.array(DELTAS * 2, dtype='float64'),
        nd.array(DECODE_ANCHORS, dtype='float64'),
        **attrs,
    )
    assert twice.shape == (2, 3, 4) and twice.dtype == np.float64


SCORES = [[[0.5, 0.6], [0.1, 0.2], [0.3, 0.4]]]


@pytest.mark.parametrize(
    'attrs,rows,cols',
    [
        ({'threshold': 1e-12}, [1, -1, 0], [2, 0]),
        ({'threshold': 0.35}, [1, -1, -1], [-1, 0]),
        ({'threshold': 0.45, 'is_ascend': True}, [-1, 0, 1], [1, 2]),
        ({'threshold': 1e-12, 'is_ascend': True}, [-1, -1, -1], [-1, -1]),
    ],
)
def test_bipartite_matching_matches_mxnet(attrs, rows, cols):
    r, c = nd.contrib.bipartite_matching(nd.array(SCORES), **attrs)
    close(r.asnumpy(), [rows])
    close(c.asnumpy(), [cols])
    assert r.dtype == c.dtype == np.float32


def test_bipartite_matching_topk_stops_after_topk_plus_one():
    x = nd.array([[[0.9, 0.1, 0.2], [0.3, 0.8, 0.1], [0.2, 0.1, 0.7]]])
    for topk, want in ((1, [0, 1, -1]), (2, [0, 1, 2]), (0, [0, 1, 2])):
        r, c = nd.contrib.bipartite_matching(x, threshold=0.05, topk=topk)
        close(r.asnumpy(), [want])
        close(c.asnumpy(), [want])
    # a 2-D matrix; equal scores match in row-major order
    r, c = nd.contrib.bipartite_matching(
        nd.array([[0.5, 0.6, 0.9], [0.1, 0.9, 0.2]]), threshold=0.0
    )
    close(r.asnumpy(), [2, 1])
    close(c.asnumpy(), [-1, 1, 0])
    r, c = nd.contrib.bipartite_matching(nd.ones((1, 2, 2)), threshold=0.0)
    close(r.asnumpy(), [[0, 1]])


# -- proposals ------------------------------------------------------------------


def test_proposal_matches_mxnet():
    cls, bbox, info = (nd.array(a) for a in proposal_inputs('single'))
    rois, scores = nd.contrib.Proposal(
        cls, bbox, info, scales=(2,), ratios=(0.5, 1, 2), feature_stride=16,
        rpn_pre_nms_top_n=20, rpn_post_nms_top_n=8, threshold=0.7,
        rpn_min_size=4, output_score=True,
    )  # fmt: skip
    close(rois.asnumpy(), PROPOSALS['single']['rois'], atol=2e-4)
    close(scores.asnumpy(), PROPOSALS['single']['scores'])
    # the defaults: one output of rpn_post_nms_top_n=300 rows, the kept
    # boxes repeated cyclically
    out = nd.contrib.Proposal(cls, bbox, info, scales=(2,))
    assert not isinstance(out, (list, tuple)) and out.shape == (300, 5)
    close(out.asnumpy()[:4], DEFAULT_ROWS, atol=2e-4)
    rows = out.asnumpy()
    kept = len(np.unique(rows, axis=0))
    assert kept == 28
    close(rows[kept : 2 * kept], rows[:kept])


def test_multi_proposal_matches_mxnet():
    arrays = [nd.array(a) for a in proposal_inputs('multi')]
    rois, scores = nd.contrib.MultiProposal(
        *arrays, scales=(1, 2), ratios=(1,), feature_stride=8,
        rpn_pre_nms_top_n=-1, rpn_post_nms_top_n=6, threshold=0.5,
        rpn_min_size=8, output_score=True,
    )  # fmt: skip
    assert rois.shape == (12, 5) and scores.shape == (12, 1)
    close(rois.asnumpy(), PROPOSALS['multi']['rois'], atol=2e-4)
    close(scores.asnumpy(), PROPOSALS['multi']['scores'])
    close(rois.asnumpy()[:, 0], [0] * 6 + [1] * 6)


def test_proposal_symbol():
    cls, bbox, info = (mx.sym.var(k) for k in ('cls', 'bbox', 'info'))
    out = mx.sym.contrib.MultiProposal(
        cls, bbox, info, scales=(2,), ratios=(0.5, 1, 2),
        rpn_post_nms_top_n=8, output_score=True,
    )  # fmt: skip
    assert out.list_outputs()[1].endswith('score')
    _, shapes, _ = out.infer_shape(cls=(2, 6, 3, 4))
    assert shapes == [(16, 5), (16, 1)]
    arrays = proposal_inputs('single')
    exe = out.bind(
        mx.cpu(),
        {'cls': nd.array(arrays[0]), 'bbox': nd.array(arrays[1]),
         'info': nd.array(arrays[2])},
    )  # fmt: skip
    rois = exe.forward()[0].asnumpy()
    eager = nd.contrib.Proposal(
        *[nd.array(a) for a in arrays], scales=(2,), ratios=(0.5, 1, 2),
        rpn_post_nms_top_n=8,
    )  # fmt: skip
    close(rois, eager.asnumpy())


# -- PSROIPooling ---------------------------------------------------------------

PS_ROIS = [[0, 2.4, 1.5, 14.6, 9.2], [1, 0, 0, 22, 18],
           [0, 10, 10, 10.4, 10.4], [1, -6, 4, 30, 30]]  # fmt: skip


def record(f, *inputs, ones=False):
    """``f`` of ``inputs`` and the inputs' gradients for the head
    ``1, 2, ..., y.size`` (all ones with ``ones``)."""
    arrays = [nd.array(a) for a in inputs]
    for a in arrays:
        a.attach_grad()
    with autograd.record():
        y = f(*arrays)
    head = np.ones(y.shape) if ones else np.arange(1, y.size + 1)
    y.backward(nd.array(head.reshape(y.shape)))
    return y, arrays


def test_psroi_pooling_matches_mxnet():
    data = np.arange(2 * 8 * 5 * 6).reshape(2, 8, 5, 6) / 10.0
    y, (x, rois) = record(
        lambda d, r: nd.contrib.PSROIPooling(
            d, r, spatial_scale=0.25, output_dim=2, pooled_size=2
        ),
        data,
        PS_ROIS,
    )
    close(y.asnumpy(), PSROI['y'])
    close(x.grad.asnumpy(), PSROI['grad'])
    close(rois.grad.asnumpy(), np.zeros((4, 5)))
    sym = mx.sym.contrib.PSROIPooling(
        mx.sym.var('data'), mx.sym.var('rois'), spatial_scale=0.25,
        output_dim=2, pooled_size=3, group_size=2,
    )  # fmt: skip
    assert sym.infer_shape(data=(1, 8, 6, 6), rois=(5, 5))[1] == [(5, 2, 3, 3)]


def test_deformable_psroi_pooling_matches_mxnet():
    data = np.arange(1 * 8 * 4 * 5).reshape(1, 8, 4, 5) / 10.0
    rois = [[0, 1.4, 0.5, 7.6, 6.2], [0, -3, 2, 12, 9]]
    trans = np.round(np.linspace(-1, 1, 16).reshape(2, 2, 2, 2), 3)
    y, arrays = record(
        lambda *a: nd.contrib.DeformablePSROIPooling(
            *a, spatial_scale=0.5, output_dim=2, group_size=2,
            pooled_size=2, sample_per_part=2, trans_std=0.1,
        ),
        data,
        rois,
        trans,
    )  # fmt: skip
    close(y.asnumpy(), DEFORM_PSROI['y'])
    for got, want in zip(arrays, DEFORM_PSROI['grads']):
        close(got.grad.asnumpy(), want)
    sym = mx.sym.contrib.DeformablePSROIPooling(
        mx.sym.var('data'), mx.sym.var('rois'), spatial_scale=0.5,
        output_dim=2, group_size=2, pooled_size=3, no_trans=True,
    )  # fmt: skip
    assert sym.list_arguments() == ['data', 'rois']
    assert sym.infer_shape(data=(1, 8, 6, 6), rois=(5, 5))[1] == [(5, 2, 3, 3)]


# -- deformable convolutions ------------------------------------------------------


def test_deformable_convolution_matches_mxnet():
    y, arrays = record(
        lambda *a: nd.contrib.DeformableConvolution(
            *a, kernel=(3, 3), num_filter=2
        ),
        *DEFORM['inputs'],
    )
    close(y.asnumpy(), DEFORM['y'], atol=1e-4)
    for got, want in zip(arrays, DEFORM['grads']):
        close(got.grad.asnumpy(), want, atol=1e-4)
    x, off, w, b = (nd.array(a) for a in DEFORM['inputs'])
    m = nd.contrib.ModulatedDeformableConvolution(
        x, off, nd.array(DEFORM['mask']), w, b, kernel=(3, 3), num_filter=2
    )
    close(m.asnumpy(), MODULATED, atol=1e-4)


def test_deformable_convolution_edges_match_mxnet():
    """DCNv1 (MXNet's CPU kernel): reads at h < 0 are 0, reads past the
    last row read the last row (zero dh gradient); DCNv2 pads with 0."""
    data = np.arange(1, 10).reshape(1, 1, 3, 3)
    offset = np.zeros((1, 2, 3, 3))
    offset[0, 0, 2, 0] = 0.5  # h = 2.5
    offset[0, 1, :, 2] = -0.5  # w = 1.5
    offset[0, 0, 0, 0], offset[0, 1, 0, 0] = -0.5, -1.2  # outside
    offset[0, 0, 0, 1] = -0.5  # h = -0.5
    y, (x, off) = record(
        lambda d, o: nd.contrib.DeformableConvolution(
            d, o, nd.ones((1, 1, 1, 1)), kernel=(1, 1), num_filter=1,
            no_bias=True,
        ),
        data,
        offset,
        ones=True,
    )  # fmt: skip
    close(y.asnumpy()[0, 0], [[0, 0, 2.5], [4, 5, 5.5], [7, 8, 8.5]])
    close(
        x.grad.asnumpy()[0, 0], [[0, 0.5, 0.5], [1, 1.5, 0.5], [1, 1.5, 0.5]]
    )
    close(
        off.grad.asnumpy()[0],
        [[[0, 0, 3], [3, 3, 3], [0, 0, 0]], [[0, 0, 1], [1, 1, 1], [1, 1, 1]]],
    )
    m = nd.contrib.ModulatedDeformableConvolution(
        nd.array(data), nd.array(offset), nd.ones((1, 1, 3, 3)) / 2,
        nd.ones((1, 1, 1, 1)), kernel=(1, 1), num_filter=1, no_bias=True,
    )  # fmt: skip
    close(m.asnumpy()[0, 0], [[0, 0.5, 1.25], [2, 2.5, 2.75], [1.75, 4, 4.25]])


def test_deformable_convolution_symbol_and_gluon_style_arguments():
    data, offset = mx.sym.var('data'), mx.sym.var('offset')
    conv = mx.sym.contrib.DeformableConvolution(
        data, offset, kernel=(3, 3), num_filter=4, pad=(1, 1), name='dc'
    )
    assert conv.list_arguments() == ['data', 'offset', 'dc_weight', 'dc_bias']
    args, outs, _ = conv.infer_shape(data=(2, 6, 5, 5))
    assert args == [(2, 6, 5, 5), (2, 18, 5, 5), (4, 6, 3, 3), (4,)]
    assert outs == [(2, 4, 5, 5)]
    mod = mx.sym.contrib.ModulatedDeformableConvolution(
        data, offset, mx.sym.var('mask'), kernel=(3, 3), num_filter=4,
        no_bias=True, num_deformable_group=2, name='m',
    )  # fmt: skip
    assert mod.list_arguments() == ['data', 'offset', 'mask', 'm_weight']
    args, outs, _ = mod.infer_shape(data=(1, 6, 5, 5))
    assert args[1:] == [(1, 36, 3, 3), (1, 18, 3, 3), (4, 6, 3, 3)]
    # the executor runs it with gradients to every argument
    x, off, w, b = DEFORM['inputs']
    dc = mx.sym.contrib.DeformableConvolution(
        data, offset, kernel=(3, 3), num_filter=2, name='dc'
    )
    values = {'data': x, 'offset': off, 'dc_weight': w, 'dc_bias': b}
    args = {k: nd.array(v) for k, v in values.items()}
    grads = {k: nd.zeros(np.shape(v)) for k, v in values.items()}
    exe = dc.bind(mx.cpu(), args, args_grad=grads)
    y = exe.forward(is_train=True)[0]
    exe.backward(nd.array(np.arange(1, y.size + 1).reshape(y.shape)))
    close(y.asnumpy(), DEFORM['y'], atol=1e-4)
    for key, want in zip(values, DEFORM['grads']):
        close(grads[key].asnumpy(), want, atol=1e-4)


# -- errors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    'call,message',
    [
        (
            lambda: nd.contrib.bipartite_matching(nd.ones((1, 2, 2))),
            'threshold argument is required',
        ),
        (
            lambda: nd.contrib.box_decode(
                nd.ones((1, 3, 4)), nd.ones((1, 2, 4))
            ),
            r'anchors \(1, N, 4\)',
        ),
        (
            lambda: nd.contrib.box_decode(
                nd.ones((1, 3, 4)), nd.ones((1, 3, 4)), format='xywh'
            ),
            "'center' or 'corner'",
        ),
        (
            lambda: nd.contrib.box_encode(*(nd.ones((1, 3)),) * 6),
            'box_encode: want samples',
        ),
        (
            lambda: nd.contrib.Proposal(
                *[nd.array(np.concatenate([a, a])) for a in
                  proposal_inputs('single')], scales=(2,),
            ),
            'batch 1',
        ),
        (
            lambda: nd.contrib.Proposal(
                *[nd.array(a) for a in proposal_inputs('single')]
            ),
            r'cls_prob must be \(batch, 2 \* 12 anchors',
        ),
        (
            lambda: nd.contrib.PSROIPooling(
                nd.ones((1, 7, 4, 4)), nd.ones((1, 5)), spatial_scale=1,
                output_dim=2, pooled_size=2,
            ),
            'output_dim \\* group_size\\^2 = 8 channels',
        ),
        (
            lambda: nd.contrib.PSROIPooling(
                nd.ones((1, 8, 4, 4)), nd.ones((1, 5)), spatial_scale=1,
                pooled_size=2,
            ),
            'output_dim argument is required',
        ),
        (
            lambda: nd.contrib.DeformableConvolution(
                nd.ones((1, 2, 4, 4)), nd.ones((1, 18, 3, 3)),
                nd.ones((2, 2, 3, 3)), nd.ones(2), kernel=(3, 3),
                num_filter=2,
            ),
            r'offset must have shape \(1, 18, 2, 2\)',
        ),
        (
            lambda: nd.contrib.DeformableConvolution(
                nd.ones((1, 2, 4, 4, 4)), nd.ones((1, 2, 4, 4)),
                nd.ones((2, 2, 3, 3, 3)), kernel=(3, 3, 3), num_filter=2,
                no_bias=True,
            ),
            'only 2-D kernels',
        ),
        (
            lambda: nd.contrib.ModulatedDeformableConvolution(
                nd.ones((1, 4, 4, 4)), nd.ones((1, 16, 3, 3)),
                nd.ones((1, 8, 3, 3)), nd.ones((2, 4, 2, 2)), kernel=(2, 2),
                num_filter=2, num_deformable_group=4, no_bias=True,
            ),
            'num_filter \\(2\\) must be a multiple of num_deformable_group',
        ),
    ],
)  # fmt: skip
def test_bad_input_raises(call, message):
    with pytest.raises(DLBookError, match=message):
        call()
