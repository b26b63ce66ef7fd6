"""Chapter 6 (model construction): custom blocks, layers and sharing."""

import warnings

import numpy as np

from .. import autograd, gluon
from ..gluon import nn
from .compare import as_nd, call, expect_close, matches, rng, to_numpy
from .registry import exercise
from .result import Failure

SUBCLASS = (
    'define a class that subclasses nn.Block, calls '
    'super().__init__(**kwargs) in __init__ and computes its output '
    'in forward(self, X).'
)


def _instantiate(student, *args, **kwargs):
    """Create the student's block; a Failure says why that went wrong."""
    if not isinstance(student, type):
        raise Failure(
            f'expected a class, got {type(student).__name__} {student!r:.60}',
            hint='pass the class itself, e.g. check(id, '
            'CenteredLayer), not an instance.',
        )
    if not issubclass(student, gluon.Block):
        raise Failure(f'{student.__name__} is not a Block.', SUBCLASS)
    shown = ', '.join(
        [repr(a) for a in args] + [f'{k}={v}' for k, v in kwargs.items()]
    )
    return call(
        lambda: student(*args, **kwargs),
        inputs={'arguments': f'{student.__name__}({shown})'},
        hint=SUBCLASS,
    )


def _initialize(block):
    """Initialize unless the student already did (no warning either way)."""
    with warnings.catch_warnings():
        warnings.filterwarnings('ignore', message='.*already initialized')
        block.initialize()


def _params(block):
    return list(block.collect_params().values())


def _role(param):
    """'weight' for 'mydense0_weight'."""
    return param.name.rsplit('_', 1)[-1]


@exercise(
    'ch06.centered_layer',
    hint='forward returns X - X.mean(): the mean of all elements.',
)
def _centered_layer(student):
    """CenteredLayer: a layer without parameters that returns X - X.mean()."""
    layer = _instantiate(student)
    if _params(layer):
        names = ', '.join(p.name for p in _params(layer))
        raise Failure(
            f'CenteredLayer should have no parameters, found {names}.'
        )
    layer.initialize()
    r = rng(601)
    cases = [
        np.array([1.0, 2.0, 3.0, 4.0, 5.0]),
        r.normal(2, 1, (3, 4)),
        r.uniform(0, 4, (2, 3, 5)),
    ]
    for X in cases:

        def diagnose(got, X=X):
            if X.ndim > 1 and matches(got, X - X.mean(axis=-1, keepdims=True)):
                return (
                    'you subtracted the mean of each row; subtract '
                    'the mean of all elements, X.mean().'
                )
            if X.ndim > 1 and matches(got, X - X.mean(axis=0)):
                return (
                    'you subtracted the mean of each column; subtract '
                    'the mean of all elements, X.mean().'
                )
            if matches(got, X.mean() - X):
                return 'the sign is flipped: X - X.mean().'
            if np.size(got) == 1:
                return 'return the centred array, not the mean itself.'
            return None

        got = call(layer, as_nd(X), inputs={'X': X})
        expect_close(got, X - X.mean(), {'X': X}, diagnose=diagnose)
    return 'correct: the output has mean zero and the layer no parameters.'


MY_DENSE = (
    "create the parameters in __init__ with self.weight = "
    "self.params.get('weight', shape=(in_units, units)) and "
    "self.bias = self.params.get('bias', shape=(units,)); in forward "
    "return nd.relu(nd.dot(X, self.weight.data()) + "
    "self.bias.data())."
)


@exercise('ch06.my_dense', hint=MY_DENSE)
def _my_dense(student):
    """MyDense(units, in_units): relu(X W + b) with W of shape (in, units)."""
    units, in_units = 3, 4
    layer = _instantiate(student, units, in_units=in_units)
    found = {_role(p): p for p in _params(layer)}
    if set(found) != {'weight', 'bias'}:
        names = ', '.join(sorted(p.name for p in _params(layer))) or 'none'
        raise Failure(
            f'MyDense should have exactly two parameters, named '
            f'...weight and ...bias; found {names}.',
            MY_DENSE,
        )
    weight, bias = found['weight'], found['bias']
    if tuple(bias.shape) != (units,):
        raise Failure(
            f'the bias has shape {bias.shape}, expected '
            f'({units},) for MyDense({units}, in_units={in_units}).',
            MY_DENSE,
        )
    if tuple(weight.shape) == (units, in_units):
        raise Failure(
            f'the weight has shape {weight.shape}: that is '
            f'nn.Dense\'s layout (units, in_units). This exercise '
            f'stores it as (in_units, units) = ({in_units}, '
            f'{units}) and computes nd.dot(X, W).',
            MY_DENSE,
        )
    if tuple(weight.shape) != (in_units, units):
        raise Failure(
            f'the weight has shape {weight.shape}, expected '
            f'({in_units}, {units}).',
            MY_DENSE,
        )
    layer.initialize()
    r = rng(602)
    W, b = r.normal(size=(in_units, units)), r.normal(size=(units,))
    weight.set_data(as_nd(W))
    bias.set_data(as_nd(b))
    X = r.normal(size=(5, in_units))
    linear = X @ W + b

    def diagnose(got):
        if matches(got, linear):
            return 'the ReLU is missing: nd.relu(...) of the linear part.'
        if matches(got, np.maximum(X @ W, 0)):
            return 'the bias is missing: relu(XW + b).'
        return None

    got = call(layer, as_nd(X), inputs={'X': X})
    expect_close(got, np.maximum(linear, 0), {'X': X}, diagnose=diagnose)
    return 'correct: relu(XW + b), and the parameters are registered.'


MY_SEQUENTIAL = (
    'in add, register the block as a child: '
    'self._children[block.name] = block (or '
    'self.register_child(block)); in forward, feed X through '
    'self._children.values() in order.'
)


@exercise('ch06.my_sequential', hint=MY_SEQUENTIAL)
def _my_sequential(student):
    """MySequential: add(block) registers children; forward runs them."""
    net = _instantiate(student)
    r = rng(603)
    layers, arrays = [], []
    for units, in_units in [(4, 3), (2, 4)]:
        layer = nn.Dense(units, in_units=in_units, activation='relu')
        layer.initialize()
        W, b = r.normal(size=(units, in_units)), r.normal(size=(units,))
        layer.weight.set_data(as_nd(W))
        layer.bias.set_data(as_nd(b))
        layers.append(layer)
        arrays.append((W, b))
        call(
            net.add,
            layer,
            inputs={'block': f'nn.Dense({units})'},
            hint=MY_SEQUENTIAL,
        )
    X = r.normal(size=(5, 3))
    H = np.maximum(X @ arrays[0][0].T + arrays[0][1], 0)
    expected = np.maximum(H @ arrays[1][0].T + arrays[1][1], 0)
    got = call(
        net,
        as_nd(X),
        inputs={'X': X},
        hint=lambda err: (
            'the blocks must run in the order they were added.'
            if 'shape' in str(err)
            else MY_SEQUENTIAL
        ),
    )

    def diagnose(got):
        if matches(got, H):
            return 'only the first block ran; forward must run them all.'
        if matches(got, X):
            return 'forward returned its input: run every block on X.'
        return None

    expect_close(got, expected, {'X': X}, diagnose=diagnose)
    owned = {p.name for p in _params(net)}
    wanted = {p.name for layer in layers for p in _params(layer)}
    if owned != wanted:
        raise Failure(
            'forward works, but collect_params() does not see the '
            'blocks you added, so initialize() would not '
            'initialize them and a Trainer would not train them '
            '(a plain Python list is invisible to Gluon).',
            MY_SEQUENTIAL,
        )
    return (
        'correct: the blocks run in order and their parameters are registered.'
    )


SHARED = (
    'create one layer, shared = nn.Dense(8, activation=\'relu\'), '
    'add it, then add nn.Dense(8, activation=\'relu\', '
    'params=shared.params).'
)


@exercise('ch06.shared_params', hint=SHARED)
def _shared_params(student):
    """build_net(): a Sequential whose 2nd and 3rd Dense layers share weights."""
    if not callable(student):
        raise Failure(
            f'expected a function, got {type(student).__name__}.',
            hint='pass the function itself: check(id, build_net).',
        )
    try:
        net = student()
    except Exception as err:  # the student's mistake, explained
        raise Failure(
            f'build_net() raised {type(err).__name__}:\n    {err}', SHARED
        ) from None
    if not isinstance(net, gluon.Block):
        raise Failure(
            f'build_net() returned a {type(net).__name__}, '
            f'expected an nn.Sequential.'
        )
    try:
        count = len(net)
    except TypeError:
        raise Failure('build_net() should return an nn.Sequential.') from None
    if count != 4:
        raise Failure(
            f'the network has {count} layers, expected 4 '
            f'(8, 8, 8 and 10 units).'
        )
    _initialize(net)
    X = as_nd(rng(604).uniform(size=(2, 20)))
    out = call(net, X, inputs={'X': X.asnumpy()})
    if to_numpy(out).shape != (2, 10):
        raise Failure(
            f'for an input of shape (2, 20) the output has shape '
            f'{to_numpy(out).shape}, expected (2, 10).'
        )
    first, second = net[1], net[2]
    if first.weight is second.weight and first.bias is second.bias:
        # one update must move both layers together
        trainer = gluon.Trainer(
            net.collect_params(), 'sgd', {'learning_rate': 0.1}
        )
        with autograd.record():
            loss = net(X).sum()
        loss.backward()
        trainer.step(2)
        return (
            'correct: layers 2 and 3 hold the same Parameter objects, '
            'so they stay equal during training.'
        )
    same_values = (
        np.array_equal(
            first.weight.data().asnumpy(), second.weight.data().asnumpy()
        )
        if first.weight.shape == second.weight.shape
        else False
    )
    if same_values:
        raise Failure(
            'layers 2 and 3 start with equal values but are '
            'separate Parameters: the first training step will '
            'make them differ.',
            SHARED,
        )
    if first.weight is not second.weight and any(
        net[i].weight is net[j].weight
        for i in range(4)
        for j in range(i + 1, 4)
    ):
        raise Failure(
            'two layers share parameters, but not the second '
            'and third (net[1] and net[2]).',
            SHARED,
        )
    raise Failure('net[1] and net[2] have separate parameters.', SHARED)
