"""``npx`` detection operators (d2l's object-detection chapters)."""

from ..numpy._core import call, as_array

__all__ = ['multibox_prior', 'roi_pooling', 'box_iou', 'box_nms',
           'multibox_target', 'multibox_detection']


def multibox_prior(data, sizes=(1.0,), ratios=(1.0,), clip=False,
                   steps=(-1.0, -1.0), offsets=(0.5, 0.5)):
    """SSD anchor boxes for the feature map ``data`` (N, C, H, W):
    shape (1, H*W*(len(sizes)+len(ratios)-1), 4), corners in [0, 1]."""
    return call('_contrib_MultiBoxPrior', as_array(data),
                sizes=tuple(sizes), ratios=tuple(ratios), clip=clip,
                steps=tuple(steps), offsets=tuple(offsets))


def roi_pooling(data, rois, pooled_size, spatial_scale):
    """Max-pool each region of interest (batch index, x1, y1, x2, y2)
    into a ``pooled_size`` grid: shape (R, C, ph, pw)."""
    return call('ROIPooling', as_array(data), as_array(rois),
                pooled_size=tuple(pooled_size), spatial_scale=spatial_scale)


def box_iou(lhs, rhs, format='corner'):  # noqa: A002
    """Intersection over union of every pair of boxes."""
    return call('_contrib_box_iou', as_array(lhs), as_array(rhs),
                format=format)


def box_nms(data, overlap_thresh=0.5, valid_thresh=0.0, topk=-1,
            coord_start=2, score_index=1, id_index=-1, background_id=-1,
            force_suppress=False, in_format='corner', out_format='corner'):
    """Greedy non-maximum suppression (kept rows first, the rest -1)."""
    return call('_contrib_box_nms', as_array(data),
                overlap_thresh=overlap_thresh, valid_thresh=valid_thresh,
                topk=topk, coord_start=coord_start, score_index=score_index,
                id_index=id_index, background_id=background_id,
                force_suppress=force_suppress, in_format=in_format,
                out_format=out_format)


def multibox_target(*args, **kwargs):
    """Not implemented yet in dlbook."""
    raise NotImplementedError('npx.multibox_target is not implemented in '
                              'dlbook yet')


def multibox_detection(*args, **kwargs):
    """Not implemented yet in dlbook."""
    raise NotImplementedError('npx.multibox_detection is not implemented '
                              'in dlbook yet')
