"""``Block.summary(x)``: a table of layers, output shapes and parameters.

Forward hooks on every block except (Hybrid)Sequential containers record
the output shape of each layer during one pass; each block's own
parameters (``block.params``) are counted, and a parameter met again is
counted as shared, exactly as MXNet 1.9.1's ``Block.summary`` does
(column layout ``'{:>20}  {:>42} {:>15}'``).
"""

from collections import OrderedDict

from ..ndarray.control_flow import regroup
from ..ndarray.ndarray import NDArray

__all__ = ['print_summary']

_LINE_FORMAT = '{:>20}  {:>42} {:>15}'


def _shape_str(args):
    """MXNet's ``_get_shape_str``: shapes of (nested) outputs; a list
    prints without its outer brackets."""

    def flatten(args):
        if not isinstance(args, (list, tuple)):
            return [args], 0
        flat, fmts = [], []
        for item in args:
            arg, fmt = flatten(item)
            flat.extend(arg)
            fmts.append(fmt)
        return flat, fmts

    flat_args, fmts = flatten(args)
    shapes = [x.shape if isinstance(x, NDArray) else x for x in flat_args]
    grouped = regroup(shapes, fmts)[0]
    if isinstance(grouped, list):
        text = str(grouped)[1:-1]
    else:
        text = str(grouped)
    return text.replace('L', '')


def print_summary(block, *inputs):
    """Print MXNet's summary table for ``block`` run on ``inputs``."""
    summary = OrderedDict()
    seen = set()
    hooks = []

    def hook(layer, _, outputs):
        key = f'{type(layer).__name__}-{len(summary)}'
        entry = {
            'output_shape': _shape_str(outputs),
            'trainable': 0,
            'shared': 0,
        }
        n_params = 0
        for param in layer.params.values():
            size = param.data().size
            n_params += size
            if param.grad_req != 'null':
                entry['trainable'] += size
            if id(param) in seen:
                entry['shared'] += size
            else:
                seen.add(id(param))
        entry['n_params'] = n_params
        summary[key] = entry

    def register(layer):
        # (only HybridBlocks have ``_active``: whether they are hybridized)
        assert not getattr(layer, '_active', False), (
            f'"{layer.name}" must not be hybridized to print summary.'
        )
        # (Hybrid)Sequential containers are summarised by their children
        if not getattr(layer, 'summarized_by_children', False):
            hooks.append(layer.register_forward_hook(hook))

    summary['Input'] = {
        'output_shape': _shape_str(inputs),
        'n_params': 0,
        'trainable': 0,
        'shared': 0,
    }
    try:
        block.apply(register)
        block(*inputs)
        print('-' * 80)
        print(_LINE_FORMAT.format('Layer (type)', 'Output Shape', 'Param #'))
        print('=' * 80)
        total = trainable = shared = 0
        for name, entry in summary.items():
            print(
                _LINE_FORMAT.format(
                    name, str(entry['output_shape']), entry['n_params']
                )
            )
            total += entry['n_params']
            trainable += entry['trainable']
            shared += entry['shared']
        print('=' * 80)
        print('Parameters in forward computation graph, duplicate included')
        print('   Total params: ' + str(total))
        print('   Trainable params: ' + str(trainable))
        print('   Non-trainable params: ' + str(total - trainable))
        print('Shared params in forward computation graph: ' + str(shared))
        print('Unique parameters in model: ' + str(total - shared))
        print('-' * 80)
    finally:
        for handle in hooks:
            handle.detach()
