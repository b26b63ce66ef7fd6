"""``Block.summary(x)``: a table of layers, output shapes and parameters.

Forward hooks on every block record the output shape of each layer during
one pass (without recording gradients); parameters are counted per layer,
and shared parameters are counted once in the "unique" total, as MXNet
does.
"""

from collections import OrderedDict

from .. import autograd
from ..ndarray.ndarray import NDArray

__all__ = ['print_summary']


def _shape_of(x):
    if isinstance(x, NDArray):
        return x.shape
    if isinstance(x, (list, tuple)):
        return [_shape_of(o) for o in x]
    return None


def print_summary(block, *inputs):
    """Print MXNet's summary table for ``block`` run on ``inputs``."""
    rows = OrderedDict()
    seen_params = set()
    counts = {'total': 0, 'trainable': 0, 'shared': 0}
    hooks = []

    def hook(layer, _, out):
        class_name = type(layer).__name__
        key = f'{class_name}-{len(rows) + 1}'
        n_params = 0
        for param in layer._reg_params.values():
            size = 1
            for n in param.shape or ():
                size *= n
            n_params += size
            counts['total'] += size
            if param.grad_req != 'null':
                counts['trainable'] += size
            if id(param) in seen_params:
                counts['shared'] += size
            seen_params.add(id(param))
        rows[key] = (_shape_of(out), n_params)

    def register(layer):
        if layer is not block or not layer._children:
            hooks.append(layer.register_forward_hook(hook))

    block.apply(register)
    try:
        with autograd.pause():
            block(*inputs)
    finally:
        for handle in hooks:
            handle.detach()

    line = '-' * 80
    print(line)
    print(f'{"Layer (type)":>20}{"Output Shape":>42}{"Param #":>15}')
    print('=' * 80)
    print(f'{"Input":>20}{str(_shape_of(inputs[0])):>42}{0:>15}')
    for key, (shape, n_params) in rows.items():
        print(f'{key:>20}{str(shape):>42}{n_params:>15}')
    print('=' * 80)
    unique = sum(_size(p) for p in block.collect_params().values())
    non_trainable = counts['total'] - counts['trainable']
    print('Parameters in forward computation graph, duplicate included')
    print(f'   Total params: {counts["total"]}')
    print(f'   Trainable params: {counts["trainable"]}')
    print(f'   Non-trainable params: {non_trainable}')
    print(f'Shared params in forward computation graph: {counts["shared"]}')
    print(f'Unique parameters in model: {unique}')
    print(line)


def _size(param):
    size = 1
    for n in param.shape or ():
        size *= n
    return size
