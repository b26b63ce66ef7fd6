"""Channels-last layouts (NWC, NHWC, NDHWC) for windowed operators.

Convolution, Deconvolution and Pooling compute channels-first (NCHW: the
channel axis next to the batch axis).  With ``layout='NHWC'`` the data
(and a convolution's weight, ``(num_filter, *kernel, C)``) keep their
channels on the last axis, as MXNet stores them.  Here the operator
moves that axis to position 1, runs its channels-first rule, and moves
the axis of the result back:

    y_last = move_1_to_last(f(move_last_to_1(x_last)))
    dx_last = move_1_to_last(df(move_last_to_1(dy_last)))

``xp.moveaxis`` makes views, so nothing is copied until the operator
itself needs contiguous memory.
"""

__all__ = ['CHANNELS_LAST', 'is_channels_last', 'channels_last_aware']

#: the channels-last layout of each number of spatial dimensions
CHANNELS_LAST = {1: 'NWC', 2: 'NHWC', 3: 'NDHWC'}


def is_channels_last(layout):
    return layout in ('NWC', 'NHWC', 'NDHWC')


def _first(shape):
    shape = tuple(shape)
    return shape[:1] + shape[-1:] + shape[1:-1]


def _last(shape):
    shape = tuple(shape)
    return shape[:1] + shape[2:] + shape[1:2]


def channels_last_aware(moved):
    """Class decorator: run ``forward``/``backward``/``infer_shape``
    through the channels-first rules when ``attrs['layout']`` is
    channels-last.  ``moved`` are the input positions stored
    channels-last (data, and the weight of a convolution)."""

    def wrap(cls):
        forward, backward = cls.forward, cls.backward
        infer_shape = cls.infer_shape

        def forward_any(self, xp, *inputs):
            if not is_channels_last(self.attrs.get('layout')):
                return forward(self, xp, *inputs)
            inputs = [
                xp.moveaxis(x, -1, 1) if i in moved and x is not None else x
                for i, x in enumerate(inputs)
            ]
            return xp.moveaxis(forward(self, xp, *inputs), 1, -1)

        def backward_any(self, xp, dy):
            if not is_channels_last(self.attrs.get('layout')):
                return backward(self, xp, dy)
            grads = backward(self, xp, xp.moveaxis(dy, -1, 1))
            single = not isinstance(grads, (tuple, list))
            grads = [grads] if single else list(grads)
            grads = [
                xp.moveaxis(g, 1, -1) if i in moved and g is not None else g
                for i, g in enumerate(grads)
            ]
            return grads[0] if single else tuple(grads)

        def infer_shape_any(self, *shapes):
            if not is_channels_last(self.attrs.get('layout')):
                return infer_shape(self, *shapes)
            shapes = [
                _first(s) if i in moved and s is not None else s
                for i, s in enumerate(shapes)
            ]
            args, outs, aux = infer_shape(self, *shapes)
            args = [
                _last(s) if i in moved and s is not None else s
                for i, s in enumerate(args)
            ]
            outs = [None if s is None else _last(s) for s in outs]
            return args, outs, aux

        for name, function in (
            ('forward', forward_any),
            ('backward', backward_any),
            ('infer_shape', infer_shape_any),
        ):
            function.__name__ = name
            function.__doc__ = getattr(cls, name).__doc__
            setattr(cls, name, function)
        return cls

    return wrap
