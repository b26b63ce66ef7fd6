"""Chapter 12 (symbols and hybridize): graphs, executors, HybridBlocks."""

import json
import os
import tempfile

import numpy as np

from .. import gluon, nd, sym
from ..context import cpu
from ..symbol import Symbol
from .compare import call, expect_close, matches, rng
from .registry import exercise
from .result import Failure


def _need_symbol(obj, what='a Symbol'):
    if not isinstance(obj, Symbol):
        raise Failure(
            f'expected {what}, got {type(obj).__name__}.',
            hint='build it from mx.sym.var(\'data\') with mx.sym '
            'operators; pass the symbol itself.',
        )


def _operators(symbol):
    """``[(op, name, attrs), ...]`` of the graph's operator nodes."""
    nodes = json.loads(symbol.tojson())['nodes']
    return [
        (n['op'], n['name'], n.get('attrs', n.get('param', {})))
        for n in nodes
        if n['op'] != 'null'
    ]


# -- the worked example -------------------------------------------------------

MLP_ARGS = {
    'data': (2, 20),
    'fc1_weight': (64, 20),
    'fc1_bias': (64,),
    'fc2_weight': (10, 64),
    'fc2_bias': (10,),
    'softmax_label': (2,),
}


@exercise(
    'ch12.mlp_symbol',
    hint="data -> FullyConnected(num_hidden=64, name='fc1') -> "
    "Activation(act_type='relu') -> FullyConnected("
    "num_hidden=10, name='fc2') -> SoftmaxOutput(name="
    "'softmax').",
)
def _mlp_symbol(student):
    """An MLP symbol: 64 ReLU hidden units, 10 softmax outputs."""
    _need_symbol(student)
    args = student.list_arguments()
    if 'data' not in args:
        raise Failure(
            f'the symbol has no input called data (its arguments are {args}).',
            hint="start from mx.sym.var('data').",
        )
    try:
        arg_shapes, out_shapes, _ = student.infer_shape(data=(2, 20))
    except Exception as err:  # noqa: BLE001 - explain it
        raise Failure(
            f'shape inference failed for data of shape (2, 20): {err}'
        ) from None
    shapes = dict(zip(args, arg_shapes))
    if shapes != MLP_ARGS:
        missing = sorted(set(MLP_ARGS) - set(shapes))
        extra = sorted(set(shapes) - set(MLP_ARGS))
        wrong = sorted(
            name
            for name in set(MLP_ARGS) & set(shapes)
            if tuple(shapes[name]) != MLP_ARGS[name]
        )
        parts = []
        if missing:
            parts.append(f'missing {missing}')
        if extra:
            parts.append(f'unexpected {extra}')
        for name in wrong:
            parts.append(
                f'{name} has shape {tuple(shapes[name])}, expected '
                f'{MLP_ARGS[name]}'
            )
        raise Failure('the arguments differ: ' + '; '.join(parts) + '.')
    ops = [op for op, _, _ in _operators(student)]
    activations = [
        attrs.get('act_type')
        for op, _, attrs in _operators(student)
        if op == 'Activation'
    ]
    if 'relu' not in activations and 'relu' not in ops:
        raise Failure(
            f'no ReLU between the layers (operators: {ops}).',
            hint="add mx.sym.Activation(..., act_type='relu').",
        )
    if [tuple(s) for s in out_shapes] != [(2, 10)]:
        raise Failure(
            f'the output shapes are {out_shapes}, expected [(2, 10)].'
        )
    if ops[-1] != 'SoftmaxOutput':
        raise Failure(
            f'the last operator is {ops[-1]}, expected SoftmaxOutput.'
        )
    return (
        'correct: 20 -> 64 (ReLU) -> 10 (softmax), with '
        f'{64 * 20 + 64 + 10 * 64 + 10} parameters.'
    )


# -- counting parameters ------------------------------------------------------


def _test_symbols():
    data = sym.var('data')
    mlp = sym.FullyConnected(data, num_hidden=32, name='fc1')
    mlp = sym.Activation(mlp, act_type='relu')
    mlp = sym.FullyConnected(mlp, num_hidden=5, name='fc2')
    mlp = sym.SoftmaxOutput(mlp, name='softmax')
    conv = sym.Convolution(data, kernel=(3, 3), num_filter=4, name='conv1')
    conv = sym.Activation(conv, act_type='relu')
    conv = sym.FullyConnected(conv, num_hidden=3, name='fc')
    return [
        (mlp, (4, 12), 12 * 32 + 32 + 32 * 5 + 5),
        (conv, (2, 1, 6, 6), 4 * 9 + 4 + 4 * 16 * 3 + 3),
    ]


@exercise(
    'ch12.count_params',
    hint='arg_shapes, _, _ = symbol.infer_shape(data=data_shape); '
    'sum the products of the shapes of every argument whose '
    "name is not 'data' and does not end in '_label'.",
)
def _count_params(student):
    """count_params(symbol, data_shape): the number of parameters."""
    for symbol, shape, expected in _test_symbols():
        got = call(student, symbol, shape, inputs={'data_shape': shape})
        try:
            got = int(got)
        except (TypeError, ValueError):
            raise Failure(
                f'count_params returned {got!r:.60}; expected an integer.'
            ) from None
        if got != expected:
            hint = None
            data_size = int(np.prod(shape))
            if got == expected + data_size:
                hint = 'you counted the data as a parameter.'
            elif got > expected and got - expected == shape[0]:
                hint = 'you counted the label as a parameter.'
            raise Failure(
                f'for data of shape {shape} the answer is '
                f'{expected}, got {got}.',
                hint,
            )
    return 'correct: the totals match print_summary.'


# -- an executor --------------------------------------------------------------


@exercise(
    'ch12.executor_grad',
    hint="x_var = mx.sym.var('x'); y = mx.sym.sum(2 * mx.sym.sin("
    "x_var)); ex = y.simple_bind(mx.cpu(), x=x.shape); "
    "ex.arg_dict['x'][:] = x; ex.forward(is_train=True); "
    "ex.backward(); return ex.grad_dict['x'].",
)
def _executor_grad(student):
    """symbolic_grad(x): d/dx of sum(2 sin x), with an executor."""
    for x in [np.linspace(-3, 3, 7), rng(1201).normal(size=(2, 3))]:

        def diagnose(got, x=x):
            if matches(got, 2 * np.sin(x)):
                return 'that is y itself, elementwise; return the gradient.'
            if matches(got, np.cos(x)):
                return 'the factor 2 is missing: y = sum(2 sin x).'
            if matches(got, np.zeros_like(x)):
                return (
                    'all zeros: did you copy x into ex.arg_dict and '
                    'call forward(is_train=True) and backward()?'
                )
            return None

        got = call(student, nd.array(x), inputs={'x': x})
        expect_close(
            got,
            2 * np.cos(x),
            {'x': x},
            what='the gradient',
            diagnose=diagnose,
        )
    return 'correct: the executor computed 2 cos(x).'


# -- a HybridBlock ------------------------------------------------------------


def _expect(got, expected, x, when):
    try:
        expect_close(got, expected, {'x': x.asnumpy()}, what='the output')
    except Failure as failure:
        raise Failure(f'{when}: {failure.message}', failure.hint) from None


@exercise(
    'ch12.hybrid_block',
    hint='in __init__: super().__init__(**kwargs); self.dense = '
    'nn.Dense(units); in hybrid_forward: return '
    'F.relu(x + self.dense(x)) (F, not nd).',
)
def _hybrid_block(student):
    """Residual(units): relu(x + Dense(units)(x)) as a HybridBlock."""
    if not isinstance(student, type) or not issubclass(
        student, gluon.HybridBlock
    ):
        raise Failure(
            f'expected a HybridBlock class, got {student!r:.60}.',
            hint='pass the class itself: check(id, Residual).',
        )
    net = call(student, 8, inputs={'units': 8})
    net.initialize()
    x = nd.array(rng(1202).normal(size=(3, 8)))
    try:
        eager = net(x)
    except Exception as err:  # noqa: BLE001 - explain it
        raise Failure(
            f'calling Residual(8) on an input of shape (3, 8) '
            f'raised {type(err).__name__}: {err}'
        ) from None
    params = {
        name: p.data().asnumpy() for name, p in net.collect_params().items()
    }
    weights = [v for v in params.values() if v.ndim == 2]
    if len(weights) != 1 or weights[0].shape != (8, 8):
        raise Failure(
            f'expected one Dense(8) layer, found parameters '
            f'{ {k: v.shape for k, v in params.items()} }.'
        )
    bias = [v for v in params.values() if v.ndim == 1]
    b = bias[0] if bias else 0
    expected = np.maximum(x.asnumpy() + x.asnumpy() @ weights[0].T + b, 0)
    _expect(eager, expected, x, 'before hybridize()')
    net.hybridize()
    try:
        hybrid = net(x)
    except Exception as err:  # noqa: BLE001 - explain it
        raise Failure(
            f'after hybridize(), the call raised {type(err).__name__}: {err}',
            hint='inside hybrid_forward use F.relu and other F '
            'operators, never nd or .asnumpy().',
        ) from None
    _expect(hybrid, expected, x, 'after hybridize()')
    with tempfile.TemporaryDirectory() as folder:
        prefix = os.path.join(folder, 'residual')
        net.export(prefix)
        loaded = gluon.SymbolBlock.imports(
            prefix + '-symbol.json',
            ['data'],
            prefix + '-0000.params',
            ctx=cpu(),
        )
        _expect(loaded(x), expected, x, 'after export and SymbolBlock.imports')
    return (
        'correct: the same output eagerly, hybridized and after '
        'export + SymbolBlock.imports.'
    )
