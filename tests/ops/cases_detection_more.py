"""Rows for MXNet's further contrib detection operators:
``box_encode``, ``box_decode``, ``bipartite_matching``
(``dlbook/ops/box_coding.py``), ``Proposal`` and ``MultiProposal``
(``proposal.py``), ``PSROIPooling`` and ``DeformablePSROIPooling``
(``psroi_pooling.py``),
``DeformableConvolution`` and ``ModulatedDeformableConvolution``
(``deformable.py``).

The references are plain loops written from MXNet 1.9.1's C++ kernels;
MXNet's own printed values are checked in ``test_detection_more_mxnet.py``
(the proposal rows read them from there).  Deformable convolutions are
differentiated in their sampling positions, so their offsets keep every
read a safe distance from pixel boundaries.
"""

import math

import numpy as np

from tests.ops.cases import Case

# -- box coding ----------------------------------------------------------------


def _corner_boxes(rng, shape):
    lo = rng.uniform(0, 0.6, size=shape + (2,))
    return np.concatenate([lo, lo + rng.uniform(0.1, 0.4, shape + (2,))], -1)


def _encode_inputs(rng, dtype):
    samples = rng.choice([-1.0, 0.0, 1.0], size=(2, 5))
    matches = rng.randint(0, 3, size=(2, 5)).astype(float)
    anchors = _corner_boxes(rng, (2, 5))
    refs = _corner_boxes(rng, (2, 3))
    means = np.array([0.1, -0.1, 0.0, 0.2])
    stds = np.array([0.1, 0.1, 0.2, 0.2])
    arrays = [samples, matches, anchors, refs, means, stds]
    return [a.astype(dtype) for a in arrays]


def _centre(box):
    w, h = box[2] - box[0], box[3] - box[1]
    return box[0] + w / 2, box[1] + h / 2, w, h


def _encode_ref(samples, matches, anchors, refs, means, stds):
    targets = np.zeros(anchors.shape)
    masks = np.zeros(anchors.shape)
    for b, n in np.ndindex(samples.shape):
        if samples[b, n] <= 0.5:
            continue
        gx, gy, gw, gh = _centre(refs[b, int(matches[b, n])])
        ax, ay, aw, ah = _centre(anchors[b, n])
        t = [(gx - ax) / aw, (gy - ay) / ah, np.log(gw / aw), np.log(gh / ah)]
        targets[b, n] = (np.array(t) - means) / stds
        masks[b, n] = 1
    return targets, masks


def _decode_inputs(rng, dtype):
    data = rng.uniform(-1, 1, size=(2, 4, 4))
    anchors = _corner_boxes(rng, (1, 4))
    return [data.astype(dtype), anchors.astype(dtype)]


def _decode_ref(data, anchors, stds=(0.1, 0.1, 0.2, 0.2), clip=0.1):
    out = np.zeros(data.shape)
    for b, n in np.ndindex(data.shape[:2]):
        ax, ay, aw, ah = _centre(anchors[0, n])
        d = data[b, n] * np.array(stds)
        x, y = d[0] * aw + ax, d[1] * ah + ay
        w = math.exp(min(d[2], clip)) * aw / 2
        h = math.exp(min(d[3], clip)) * ah / 2
        out[b, n] = [x - w, y - h, x + w, y + h]
    return out


def _matching_ref(data, threshold=0.3, topk=-1):
    rows = -np.ones(data.shape[:-1])
    cols = -np.ones(data.shape[:-2] + data.shape[-1:])
    for b in range(data.shape[0]):
        flat = data[b].ravel()
        count = 0
        for k in np.argsort(-flat, kind='stable'):
            r, c = divmod(int(k), data.shape[-1])
            if rows[b, r] != -1 or cols[b, c] != -1:
                continue
            if not flat[k] > threshold:
                break
            rows[b, r], cols[b, c] = c, r
            count += 1
            if 0 < topk < count:
                break
    return rows, cols


def _matching_inputs(rng, dtype):
    # distinct scores: no ties to order
    return [rng.permutation(24).reshape(2, 3, 4).astype(dtype) / 24]


# -- proposals -------------------------------------------------------------------


def _proposal_inputs(key):
    def make(rng, dtype):
        from tests.ops import test_detection_more_mxnet as rec

        return [np.asarray(a, dtype=dtype) for a in rec.proposal_inputs(key)]

    return make


def _proposal_check(key):
    def check(outs, ins):
        from tests.ops import test_detection_more_mxnet as rec

        want = rec.PROPOSALS[key]
        np.testing.assert_allclose(outs[0], want['rois'], atol=2e-4)
        np.testing.assert_allclose(outs[1], want['scores'], atol=1e-5)

    return check


# -- PSROIPooling ------------------------------------------------------------------


def _psroi_inputs(rng, dtype):
    data = rng.uniform(-1, 1, size=(2, 8, 5, 6))
    rois = np.array(
        [[0, 2.4, 1.5, 14.6, 9.2], [1, 0, 0, 22, 18], [1, -6, 4, 30, 30]]
    )
    return [data.astype(dtype), rois.astype(dtype)]


def _psroi_ref(data, rois, scale=0.5, dim=2, pooled=2, group=2):
    _, _, height, width = data.shape
    out = np.zeros((len(rois), dim, pooled, pooled))
    for r, (b, *box) in enumerate(rois):
        x1, y1, x2, y2 = (math.floor(abs(v) + 0.5) * np.sign(v) for v in box)
        x1, y1, x2, y2 = (
            x1 * scale,
            y1 * scale,
            (x2 + 1) * scale,
            (y2 + 1) * scale,
        )
        bh, bw = max(y2 - y1, 0.1) / pooled, max(x2 - x1, 0.1) / pooled
        for c, i, j in np.ndindex(dim, pooled, pooled):
            h0 = min(max(math.floor(i * bh + y1), 0), height)
            h1 = min(max(math.ceil((i + 1) * bh + y1), 0), height)
            w0 = min(max(math.floor(j * bw + x1), 0), width)
            w1 = min(max(math.ceil((j + 1) * bw + x1), 0), width)
            gi, gj = i * group // pooled, j * group // pooled
            channel = (c * group + gi) * group + gj
            if h1 > h0 and w1 > w0:
                out[r, c, i, j] = data[int(b), channel, h0:h1, w0:w1].mean()
    return out


def _deform_psroi_inputs(rng, dtype):
    data, rois = _psroi_inputs(rng, dtype)
    trans = rng.uniform(-1, 1, size=(3, 2, 2, 2))
    return [data, rois, trans.astype(dtype)]


def _deform_psroi_ref(data, rois, trans, std=0.1, samples=2, pooled=2):
    _, _, height, width = data.shape
    out = np.zeros((len(rois), 2, pooled, pooled))
    for r, (b, *box) in enumerate(rois):
        x1, y1, x2, y2 = (math.floor(abs(v) + 0.5) * np.sign(v) for v in box)
        x1, y1 = x1 * 0.5 - 0.5, y1 * 0.5 - 0.5
        rw = max((x2 + 1) * 0.5 - 0.5 - x1, 0.1)
        rh = max((y2 + 1) * 0.5 - 0.5 - y1, 0.1)
        for c, i, j in np.ndindex(2, pooled, pooled):
            w0 = j * rw / pooled + x1 + trans[r, 0, i, j] * std * rw
            h0 = i * rh / pooled + y1 + trans[r, 1, i, j] * std * rh
            total, count = 0.0, 0
            for si, sj in np.ndindex(samples, samples):
                h = h0 + si * rh / pooled / samples
                w = w0 + sj * rw / pooled / samples
                if not (
                    -0.5 <= h <= height - 0.5 and -0.5 <= w <= width - 0.5
                ):
                    continue
                h = min(max(h, 0), height - 1)
                w = min(max(w, 0), width - 1)
                img = data[int(b), (c * 2 + i) * 2 + j]
                total += _bilinear(img, h, w, clamp=False)
                count += 1
            out[r, c, i, j] = total / max(count, 1)
    return out


# -- deformable convolutions ---------------------------------------------------------


def _bilinear(img, h, w, clamp):
    """``img`` (H, W) read at (h, w): DCNv1 (``clamp``) or DCNv2 rules."""
    height, width = img.shape
    if clamp:
        if not (0 <= h < height and 0 <= w < width):
            return 0.0
        h = min(h, height - 1)
        w = min(w, width - 1)
    elif not (-1 < h < height and -1 < w < width):
        return 0.0
    h0, w0 = math.floor(h), math.floor(w)
    total = 0.0
    for hh, wy in ((h0, 1 - (h - h0)), (h0 + 1, h - h0)):
        for ww, wx in ((w0, 1 - (w - w0)), (w0 + 1, w - w0)):
            if 0 <= hh < height and 0 <= ww < width and wy * wx:
                total += wy * wx * img[hh, ww]
    return total


def _deform_ref(
    data, offset, *rest, kernel, stride, pad, dilate, groups, dgroups,
    mask=None,
):  # fmt: skip
    weight, bias = rest[0], (rest[1] if len(rest) > 1 else None)
    n_, c_, _, _ = data.shape
    f_, _, kh, kw = weight.shape
    _, _, ho, wo = offset.shape
    out = np.zeros((n_, f_, ho, wo))
    cg, fg, cd = c_ // groups, f_ // groups, c_ // dgroups
    for n, y, x in np.ndindex(n_, ho, wo):
        cols = np.zeros((c_, kh * kw))
        for c, i, j in np.ndindex(c_, kh, kw):
            d, k = c // cd, i * kw + j
            h = y * stride[0] - pad[0] + i * dilate[0]
            w = x * stride[1] - pad[1] + j * dilate[1]
            h += offset[n, 2 * (d * kh * kw + k), y, x]
            w += offset[n, 2 * (d * kh * kw + k) + 1, y, x]
            v = _bilinear(data[n, c], h, w, clamp=mask is None)
            if mask is not None:
                v *= mask[n, d * kh * kw + k, y, x]
            cols[c, k] = v
        for f in range(f_):
            g = f // fg
            out[n, f, y, x] = np.sum(
                weight[f].reshape(cg, -1) * cols[g * cg : (g + 1) * cg]
            )
            if bias is not None:
                out[n, f, y, x] += bias[f]
    return out


def _deform_inputs(kernel, stride, pad, dilate, groups, dgroups, modulated):
    def make(rng, dtype):
        n_, c_, h, w, f_ = 1, 4, 5, 5, 4
        kh, kw = kernel
        ho = (h + 2 * pad[0] - dilate[0] * (kh - 1) - 1) // stride[0] + 1
        wo = (w + 2 * pad[1] - dilate[1] * (kw - 1) - 1) // stride[1] + 1
        taps = dgroups * kh * kw
        data = rng.uniform(-1, 1, size=(n_, c_, h, w))
        # integer shifts plus fractions in [0.15, 0.85]: no read within
        # 0.15 of a pixel boundary, where the bilinear gradient jumps
        whole = rng.randint(-2, 2, size=(n_, 2 * taps, ho, wo))
        offset = whole + rng.uniform(0.15, 0.85, size=whole.shape)
        weight = rng.uniform(-1, 1, size=(f_, c_ // groups, kh, kw))
        bias = rng.uniform(-1, 1, size=(f_,))
        arrays = [data, offset]
        if modulated:
            arrays.append(rng.uniform(0, 1, size=(n_, taps, ho, wo)))
        arrays += [weight, bias]
        return [a.astype(dtype) for a in arrays]

    return make


def _deform_case(modulated, **kw):
    kernel = kw.get('kernel', (3, 3))
    stride, pad = kw.get('stride', (1, 1)), kw.get('pad', (0, 0))
    dilate = kw.get('dilate', (1, 1))
    groups, dgroups = kw.get('num_group', 1), kw.get('num_deformable_group', 1)
    geometry = {
        'kernel': kernel, 'stride': stride, 'pad': pad, 'dilate': dilate,
        'groups': groups, 'dgroups': dgroups,
    }  # fmt: skip

    def ref(*arrays):
        if modulated:
            data, offset, mask, *rest = arrays
            return _deform_ref(data, offset, *rest, mask=mask, **geometry)
        return _deform_ref(*arrays, **geometry)

    attrs = dict(kw, kernel=kernel, num_filter=4)
    return Case(
        [],
        attrs=attrs,
        make_inputs=_deform_inputs(
            kernel, stride, pad, dilate, groups, dgroups, modulated
        ),
        ref=ref,
        rtol=1e-4,
        atol=1e-5,
    )


CASES = {
    '_contrib_box_encode': Case(
        [], make_inputs=_encode_inputs, ref=_encode_ref, grad=(), atol=1e-5
    ),
    '_contrib_box_decode': Case(
        [],
        attrs={
            'std0': 0.1,
            'std1': 0.1,
            'std2': 0.2,
            'std3': 0.2,
            'clip': 0.1,
            'format': 'corner',
        },  # fmt: skip
        make_inputs=_decode_inputs,
        ref=_decode_ref,
        grad=(),
    ),
    '_contrib_bipartite_matching': [
        Case(
            [],
            attrs={'threshold': 0.3},
            make_inputs=_matching_inputs,
            ref=_matching_ref,
            grad=(),
        ),
        Case(
            [],
            attrs={'threshold': 0.1, 'topk': 1},
            make_inputs=_matching_inputs,
            ref=lambda d: _matching_ref(d, 0.1, 1),
            grad=(),
        ),
    ],
    '_contrib_Proposal': Case(
        [],
        attrs=dict(
            scales=(2,),
            ratios=(0.5, 1, 2),
            feature_stride=16,
            rpn_pre_nms_top_n=20,
            rpn_post_nms_top_n=8,
            threshold=0.7,
            rpn_min_size=4,
            output_score=True,
        ),  # fmt: skip
        make_inputs=_proposal_inputs('single'),
        check=_proposal_check('single'),
        grad=(),
    ),
    '_contrib_MultiProposal': Case(
        [],
        attrs=dict(
            scales=(1, 2),
            ratios=(1,),
            feature_stride=8,
            rpn_pre_nms_top_n=-1,
            rpn_post_nms_top_n=6,
            threshold=0.5,
            rpn_min_size=8,
            output_score=True,
        ),  # fmt: skip
        make_inputs=_proposal_inputs('multi'),
        check=_proposal_check('multi'),
        grad=(),
    ),
    '_contrib_PSROIPooling': Case(
        [],
        attrs={'spatial_scale': 0.5, 'output_dim': 2, 'pooled_size': 2},
        make_inputs=_psroi_inputs,
        ref=_psroi_ref,
        grad=(0,),
    ),
    '_contrib_DeformablePSROIPooling': Case(
        [],
        attrs={
            'spatial_scale': 0.5,
            'output_dim': 2,
            'group_size': 2,
            'pooled_size': 2,
            'sample_per_part': 2,
            'trans_std': 0.1,
        },  # fmt: skip
        make_inputs=_deform_psroi_inputs,
        ref=_deform_psroi_ref,
        grad=(0, 2),
        rtol=1e-4,
        atol=1e-5,
    ),
    '_contrib_DeformableConvolution': [
        _deform_case(False, pad=(1, 1)),
        _deform_case(
            False,
            kernel=(2, 3),
            stride=(2, 1),
            dilate=(1, 2),
            pad=(1, 0),
            num_group=2,
            num_deformable_group=2,
        ),
    ],
    '_contrib_ModulatedDeformableConvolution': [
        _deform_case(True, pad=(1, 1)),
        _deform_case(True, kernel=(2, 2), num_group=2, num_deformable_group=2),
    ],
}
