"""What Convolution and Deconvolution share: attributes, shapes, checks.

Both operators take the same attributes (``kernel``, ``stride``,
``dilate``, ``pad``, ``num_filter``, ``num_group``, ``layout``,
``no_bias``) and check them the same way.  :class:`ConvBase` parses them
into tuples with MXNet's defaults (remembered by their values, since
every layer call makes a new operator), lists the arguments with or
without ``bias``, and checks the data and parameter shapes against the
attributes with messages that name them.  Beside it: the shape a bias
broadcasts in (:func:`bias_shape`), MXNet's unknown shapes
(:func:`_known`), and which gradients a backward is asked for
(:func:`needed`).
"""

from ..backend import cudnn
from ..base import DLBookError
from .op import Op
from .windows import (
    check_layout,
    parse_bool,
    parse_int,
    parse_tuple,
    spatial_tuple,
)

__all__ = ['ConvBase', 'bias_shape', 'needed']


def bias_shape(nd):
    """Bias ``(F,)`` broadcast over ``(N, F, *spatial)``."""
    return (1, -1) + (1,) * nd


def _known(shape):
    """A shape is known when given and free of zeros (MXNet: 0 = unknown)."""
    return shape is not None and all(d > 0 for d in shape)


#: The attributes :meth:`ConvBase._geometry` reads, and its results by
#: their values.
_GEOMETRY_ATTRIBUTES = (
    'kernel',
    'stride',
    'dilate',
    'pad',
    'num_filter',
    'num_group',
    'layout',
)
_GEOMETRIES = {}


class ConvBase(Op):
    """Attribute parsing, argument lists and checks shared by both ops."""

    skips_unneeded_grads = True  # the data gradient of a first layer

    same_dtype = True

    def list_arguments(self):
        if parse_bool(self.attrs['no_bias']):
            return ('data', 'weight')
        return ('data', 'weight', 'bias')

    def _geometry(self):
        """Parse the attributes into tuples, with MXNet's defaults.

        Empty ``stride``/``dilate``/``pad`` mean 1/1/0 on every axis.
        Every layer call makes a new operator with the same attributes,
        so the parsed result is remembered by the attribute values.
        """
        key = (self.name,) + tuple(
            self.attrs[name] for name in _GEOMETRY_ATTRIBUTES
        )
        try:
            geometry = _GEOMETRIES.get(key)
        except TypeError:  # an unhashable attribute value (a list)
            return self._parse_geometry()
        if geometry is None:
            geometry = self._parse_geometry()  # raises on bad attributes
            if len(_GEOMETRIES) < 4096:
                _GEOMETRIES[key] = geometry
        return geometry

    def _parse_geometry(self):
        name = self.name
        kernel = parse_tuple(self.attrs['kernel'], 'kernel', name)
        if not kernel:
            raise DLBookError(
                f'{name}: the attribute kernel is required, e.g. kernel=(3, 3)'
            )
        nd = len(kernel)
        if nd not in (1, 2, 3):
            raise DLBookError(
                f'{name}: kernel={kernel} must have 1, 2 or '
                f'3 entries (1-D, 2-D or 3-D convolution)'
            )
        stride = spatial_tuple(self.attrs['stride'], nd, 1, 'stride', name)
        dilate = spatial_tuple(self.attrs['dilate'], nd, 1, 'dilate', name)
        pad = spatial_tuple(self.attrs['pad'], nd, 0, 'pad', name)
        if self.attrs['num_filter'] is None:
            raise DLBookError(
                f'{name}: the attribute num_filter is '
                f'required (number of output channels)'
            )
        num_filter = parse_int(self.attrs['num_filter'], 'num_filter', name)
        groups = parse_int(self.attrs['num_group'], 'num_group', name)
        for label, values in (
            ('kernel', kernel),
            ('stride', stride),
            ('dilate', dilate),
        ):
            if min(values) < 1:
                raise DLBookError(f'{name}: {label}={values} must be positive')
        if min(pad) < 0:
            raise DLBookError(f'{name}: pad={pad} must be non-negative')
        if num_filter < 1 or groups < 1 or num_filter % groups:
            raise DLBookError(
                f'{name}: num_filter={num_filter} must be a '
                f'positive multiple of num_group={groups}'
            )
        check_layout(self.attrs['layout'], nd, name)
        return kernel, stride, dilate, pad, num_filter, groups

    def _check_data(self, shape, kernel, groups):
        """Rank and channel checks on the data shape."""
        nd = len(kernel)
        if len(shape) != nd + 2:
            axes = {1: '(N, C, W)', 2: '(N, C, H, W)', 3: '(N, C, D, H, W)'}
            raise DLBookError(
                f'{self.name}: data must be {nd + 2}-D {axes[nd]} for the '
                f'{nd}-D kernel={kernel}; got data shape {tuple(shape)}'
            )
        if shape[1] and shape[1] % groups:
            raise DLBookError(
                f'{self.name}: data shape {tuple(shape)} has {shape[1]} '
                f'channels, not divisible by num_group={groups}'
            )

    def infer_shape(self, *in_shapes):
        """Fill ``weight`` and ``bias`` shapes and the output shape from the
        data shape (Gluon deferred initialisation, ``sym.infer_shape``);
        ``_shapes`` of each operator gives them."""
        shapes = list(in_shapes) + [None] * (
            len(self.list_inputs()) - len(in_shapes)
        )
        data = shapes[0]
        if data is None:
            return shapes, [None], []
        data = shapes[0] = tuple(data)
        weight, bias, out = self._shapes(data)[:3]
        if data[1]:
            self._check_param(
                'weight',
                shapes[1] if _known(shapes[1]) else None,
                weight,
                data,
            )
            shapes[1] = weight
        if len(shapes) > 2:
            self._check_param(
                'bias', shapes[2] if _known(shapes[2]) else None, bias, data
            )
            shapes[2] = bias
        return shapes, [out], []

    def _cudnn_settings(self, xp, dtype, pad):
        """``(stride, pad, dilate, groups, workspace)`` as the calls of
        ``dlbook/backend/cudnn.py`` take them, or None where this operator
        does not run on cuDNN: ``cudnn_off`` (MXNet's attribute), or cuDNN
        not usable for ``dtype`` on ``xp``."""
        if parse_bool(self.attrs['cudnn_off']) or not cudnn.usable(xp, dtype):
            return None
        _, stride, dilate, _, _, groups = self._geometry()
        workspace = parse_int(self.attrs['workspace'], 'workspace', self.name)
        return (stride, tuple(pad), dilate, groups, workspace)

    def _checked_shapes(self, data, weight, bias):
        """``_shapes`` of the data, after checking the weight's and the
        bias's shapes against it (the first lines of ``forward``)."""
        shapes = self._shapes(data.shape)
        self._check_param('weight', weight.shape, shapes[0], data.shape)
        if bias is not None:
            self._check_param('bias', bias.shape, shapes[1], data.shape)
        return shapes

    def _check_param(self, label, got, want, data_shape):
        if got is not None and tuple(got) != tuple(want):
            raise DLBookError(
                f'{self.name}: {label} shape {tuple(got)} does not match '
                f'data shape {tuple(data_shape)} and the attributes '
                f'{self._attr_text()}; expected {tuple(want)}'
            )

    def _attr_text(self):
        keys = ('kernel', 'stride', 'dilate', 'pad', 'num_filter', 'num_group')
        return ', '.join(f'{k}={self.attrs[k]}' for k in keys)


def needed(op):
    """Whether the data and weight gradients are wanted.

    A front end may set ``op.needs_input_grad`` (one bool per input, as in
    PyTorch) before ``backward``; the data gradient of a first layer,
    whose input is the images, is then skipped.  Unset means all.
    """
    needs = getattr(op, 'needs_input_grad', None)
    if needs is None:
        return True, True
    return bool(needs[0]), bool(needs[1])
