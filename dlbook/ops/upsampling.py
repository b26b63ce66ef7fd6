"""Operator: UpSampling, nearest-neighbour or bilinear, as in MXNet 1.x
(src/operator/nn/upsampling-inl.h, src/operator/nn/upsampling.cc).

Nearest neighbour copies every pixel into an ``s x s`` block::

    x = [[1, 2],        UpSampling(x, scale=2,       [[1, 1, 2, 2],
         [3, 4]]        sample_type='nearest')   =    [1, 1, 2, 2],
                                                      [3, 3, 4, 4],
                                                      [3, 3, 4, 4]]

so each input pixel's gradient is the sum of the ``s x s`` output
gradients it was copied to.  Several inputs of different sizes can be
brought to the size of the first one times ``scale`` and then concatenated
along the channels or summed (``multi_input_mode``), as in feature-pyramid
networks.

Bilinear upsampling is a transposed convolution (``Deconvolution``) with
one ``k x k`` kernel per channel, usually initialized with
``init.Bilinear`` (MXNet does the same, and names the kernel ``weight``).
"""

import math

from ..base import DLBookError
from .deconvolution import Deconvolution
from .op import Op, register


def upsample_nearest(xp, x, scale_h, scale_w):
    """Repeat each pixel of NCHW ``x`` into a ``scale_h x scale_w`` block."""
    n, c, h, w = x.shape
    blocks = xp.broadcast_to(
        x[:, :, :, None, :, None], (n, c, h, scale_h, w, scale_w)
    )
    return blocks.reshape(n, c, h * scale_h, w * scale_w)


def sum_blocks(dy, scale_h, scale_w):
    """Gradient of :func:`upsample_nearest`: sum each block of ``dy``."""
    n, c, hh, ww = dy.shape
    h, w = hh // scale_h, ww // scale_w
    return dy.reshape(n, c, h, scale_h, w, scale_w).sum(axis=(3, 5))


@register('UpSampling')
class UpSampling(Op):
    """Upsample NCHW images by an integer ``scale``.

    nearest:  y[n, c, i, j] = x[n, c, i // s, j // s];
              dx[n, c, i, j] = sum of dy over the s x s block of (i, j).
              With several inputs, input t (h_t x w_t) is scaled to the
              output size (h_0 s) x (w_0 s) by s_t = h_0 s / h_t; the
              results are concatenated along channels
              (``multi_input_mode='concat'``) or added (``'sum'``), and
              each input receives its slice (or all) of dy, block-summed.
    bilinear: y = Deconvolution(data, weight, kernel=2s - s % 2, stride=s,
              pad=ceil((s - 1) / 2), num_group=num_filter=C, no_bias);
              weight has shape (C, 1, k, k);   gradients as Deconvolution.
    """

    skips_unneeded_grads = True

    variadic = True
    defaults = {
        'scale': None,
        'num_filter': 0,
        'sample_type': None,
        'multi_input_mode': 'concat',
        'num_args': None,
        'workspace': 512,
    }
    # as MXNet, the bilinear kernel of a symbol gets a bilinear initializer
    input_inits = {'weight': '["bilinear", {}]'}

    def __init__(self, **attrs):
        super().__init__(**attrs)
        sample_type = self.attrs['sample_type']
        if sample_type not in ('nearest', 'bilinear'):
            raise DLBookError(
                f"UpSampling: sample_type must be 'nearest' or "
                f"'bilinear', got {sample_type!r}"
            )
        if self.attrs['multi_input_mode'] not in ('concat', 'sum'):
            raise DLBookError(
                f"UpSampling: multi_input_mode must be "
                f"'concat' or 'sum', got "
                f"{self.attrs['multi_input_mode']!r}"
            )
        if self.attrs['scale'] is None or int(self.attrs['scale']) < 1:
            raise DLBookError(
                f'UpSampling: scale must be a positive '
                f'integer, got {self.attrs["scale"]!r}'
            )
        self.bilinear = sample_type == 'bilinear'

    def list_arguments(self):
        if self.bilinear:
            return ('data', 'weight')
        return super().list_arguments()

    # -- shapes ------------------------------------------------------------
    def _nearest_plan(self, shapes):
        """Output shape and per-input (scale_h, scale_w) of nearest mode."""
        for shape in shapes:
            if len(shape) != 4:
                raise DLBookError(
                    f'UpSampling: input data should be 4-D '
                    f'(batch, channel, y, x), got {shape}'
                )
        s = int(self.attrs['scale'])
        n, _, h, w = shapes[0]
        out_h, out_w = h * s, w * s
        scales, channels = [], []
        for shape in shapes:
            if out_h % shape[2] or out_w % shape[3]:
                raise DLBookError(
                    f'UpSampling: input of size {shape[2]}x{shape[3]} does '
                    f'not divide the output size {out_h}x{out_w} (the first '
                    f'input {h}x{w} times scale={s})'
                )
            scales.append((out_h // shape[2], out_w // shape[3]))
            channels.append(shape[1])
        if self.attrs['multi_input_mode'] == 'sum':
            if len(set(channels)) != 1:
                raise DLBookError(
                    f'UpSampling: number of channels must be '
                    f'the same when multi_input_mode=sum, '
                    f'got {channels}'
                )
            out_c = channels[0]
        else:
            out_c = sum(channels)
        return (n, out_c, out_h, out_w), scales

    def _bilinear_geometry(self):
        """MXNet's kernel, stride and padding for a scale ``s``: the output
        is ``(H - 1) s - 2 pad + k = H s`` for every s."""
        s = int(self.attrs['scale'])
        return 2 * s - s % 2, s, math.ceil((s - 1) / 2)

    def _deconvolution(self, data_shape):
        """The Deconvolution that bilinear mode runs."""
        if len(data_shape) != 4:
            raise DLBookError(
                f'UpSampling: input data should be 4-D '
                f'(batch, channel, y, x), got {data_shape}'
            )
        channels = data_shape[1]
        if int(self.attrs['num_filter']) != channels:
            raise DLBookError(
                f"UpSampling(sample_type='bilinear'): num_filter must equal "
                f"the number of input channels, {channels}; got "
                f"num_filter={self.attrs['num_filter']}"
            )
        k, s, pad = self._bilinear_geometry()
        return Deconvolution(
            kernel=(k, k),
            stride=(s, s),
            pad=(pad, pad),
            num_filter=channels,
            num_group=channels,
            no_bias=True,
            workspace=self.attrs['workspace'],
        )

    def infer_shape(self, *in_shapes):
        shapes = list(in_shapes)
        if self.bilinear:
            shapes += [None] * (2 - len(shapes))
            data = shapes[0]
            if data is None:
                return shapes, [None], []
            self._deconvolution(tuple(data))  # checks the shape
            k, s, _ = self._bilinear_geometry()
            out = (data[0], data[1], data[2] * s, data[3] * s)
            return [tuple(data), (data[1], 1, k, k)], [out], []
        if any(shape is None for shape in shapes):
            return shapes, [None], []
        out, _ = self._nearest_plan([tuple(s) for s in shapes])
        return shapes, [out], []

    # -- computation -------------------------------------------------------
    def forward(self, xp, *inputs):
        if self.bilinear:
            if len(inputs) != 2:
                raise DLBookError(
                    f"UpSampling(sample_type='bilinear') takes 2 inputs, "
                    f"data and weight; got {len(inputs)}"
                )
            data, weight = inputs
            self.deconv = self._deconvolution(data.shape)
            return self.deconv.forward(xp, data, weight)
        _, scales = self._nearest_plan([x.shape for x in inputs])
        parts = [
            upsample_nearest(xp, x, sh, sw)
            for x, (sh, sw) in zip(inputs, scales)
        ]
        self.saved = ([x.shape[1] for x in inputs], scales)
        if len(parts) == 1:
            return parts[0]
        if self.attrs['multi_input_mode'] == 'sum':
            y = parts[0].copy()
            for part in parts[1:]:
                y += part
            return y
        return xp.concatenate(parts, axis=1)

    def backward(self, xp, dy):
        if self.bilinear:
            self.deconv.needs_input_grad = self.needs_input_grad
            return self.deconv.backward(xp, dy)
        channels, scales = self.saved
        if self.attrs['multi_input_mode'] == 'sum' or len(channels) == 1:
            grads = [sum_blocks(dy, sh, sw) for sh, sw in scales]
        else:
            grads, start = [], 0
            for c, (sh, sw) in zip(channels, scales):
                grads.append(sum_blocks(dy[:, start : start + c], sh, sw))
                start += c
        return tuple(grads) if len(grads) > 1 else grads[0]
