"""Checkers of chapter 6: references pass, typical mistakes explained."""

import pytest

from dlbook import nd
from dlbook.exercises.checker import run_check
from dlbook.gluon import nn

from .failing import fails as _fails

# -- ch06.centered_layer -----------------------------------------------------


class CenteredLayer(nn.Block):
    def forward(self, X):
        return X - X.mean()


def test_centered_layer_reference_passes():
    result = run_check('ch06.centered_layer', CenteredLayer)
    assert result.passed, result.report()


def test_centered_layer_per_row_mean_is_explained():
    class RowCentered(nn.Block):
        def forward(self, X):
            return X - X.mean(axis=-1, keepdims=True)

    _fails('ch06.centered_layer', RowCentered, 'mean of each row')


def test_centered_layer_instance_instead_of_class():
    _fails(
        'ch06.centered_layer',
        CenteredLayer(),
        'expected a class',
        'not an instance',
    )


def test_centered_layer_not_a_block():
    class Plain:
        def forward(self, X):
            return X - X.mean()

    _fails('ch06.centered_layer', Plain, 'is not a Block', 'nn.Block')


def test_centered_layer_with_parameters_fails():
    class WithParams(nn.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.scale = self.params.get('scale', shape=(1,))

        def forward(self, X):
            return X - X.mean()

    _fails('ch06.centered_layer', WithParams, 'no parameters')


# -- ch06.my_dense -----------------------------------------------------------


class MyDense(nn.Block):
    def __init__(self, units, in_units, **kwargs):
        super().__init__(**kwargs)
        self.weight = self.params.get('weight', shape=(in_units, units))
        self.bias = self.params.get('bias', shape=(units,))

    def forward(self, X):
        return nd.relu(nd.dot(X, self.weight.data()) + self.bias.data())


def test_my_dense_reference_passes():
    result = run_check('ch06.my_dense', MyDense)
    assert result.passed, result.report()


def test_my_dense_without_relu():
    class Linear(MyDense):
        def forward(self, X):
            return nd.dot(X, self.weight.data()) + self.bias.data()

    _fails('ch06.my_dense', Linear, 'ReLU is missing')


def test_my_dense_with_nn_dense_layout():
    class Transposed(nn.Block):
        def __init__(self, units, in_units, **kwargs):
            super().__init__(**kwargs)
            self.weight = self.params.get('weight', shape=(units, in_units))
            self.bias = self.params.get('bias', shape=(units,))

        def forward(self, X):
            return nd.relu(nd.dot(X, self.weight.data().T) + self.bias.data())

    _fails('ch06.my_dense', Transposed, '(in_units, units)')


def test_my_dense_with_plain_arrays_has_no_parameters():
    class Unregistered(nn.Block):
        def __init__(self, units, in_units, **kwargs):
            super().__init__(**kwargs)
            self.w = nd.random.normal(shape=(in_units, units))

        def forward(self, X):
            return nd.relu(nd.dot(X, self.w))

    _fails(
        'ch06.my_dense',
        Unregistered,
        'exactly two parameters',
        'self.params.get',
    )


def test_my_dense_forgetting_super_init_is_explained():
    class NoSuper(nn.Block):
        def __init__(self, units, in_units, **kwargs):
            self.weight = self.params.get('weight', shape=(in_units, units))

    _fails('ch06.my_dense', NoSuper, 'raised', 'super().__init__')


# -- ch06.my_sequential ------------------------------------------------------


class MySequential(nn.Block):
    def add(self, block):
        self._children[block.name] = block

    def forward(self, X):
        for block in self._children.values():
            X = block(X)
        return X


def test_my_sequential_reference_passes():
    result = run_check('ch06.my_sequential', MySequential)
    assert result.passed, result.report()


def test_my_sequential_with_register_child_passes():
    class Registered(MySequential):
        def add(self, block):
            self.register_child(block)

    assert run_check('ch06.my_sequential', Registered).passed


def test_my_sequential_with_a_python_list_is_explained():
    class ListSequential(nn.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.blocks = []

        def add(self, block):
            self.blocks.append(block)

        def forward(self, X):
            for block in self.blocks:
                X = block(X)
            return X

    _fails(
        'ch06.my_sequential',
        ListSequential,
        'collect_params()',
        'plain Python list',
    )


def test_my_sequential_running_only_the_first_block():
    class FirstOnly(MySequential):
        def forward(self, X):
            return list(self._children.values())[0](X)

    _fails('ch06.my_sequential', FirstOnly, 'only the first block ran')


def test_my_sequential_in_reverse_order():
    class Reversed(MySequential):
        def forward(self, X):
            for block in reversed(list(self._children.values())):
                X = block(X)
            return X

    _fails('ch06.my_sequential', Reversed, 'order they were added')


# -- ch06.shared_params ------------------------------------------------------


def build_net():
    net = nn.Sequential()
    shared = nn.Dense(8, activation='relu')
    net.add(
        nn.Dense(8, activation='relu'),
        shared,
        nn.Dense(8, activation='relu', params=shared.params),
        nn.Dense(10),
    )
    return net


@pytest.mark.parametrize('initialized', [False, True])
def test_shared_params_reference_passes(initialized):
    def answer():
        net = build_net()
        if initialized:
            net.initialize()
        return net

    result = run_check('ch06.shared_params', answer)
    assert result.passed, result.report()


def test_shared_params_copied_values_are_not_shared():
    def copied():
        net = nn.Sequential()
        net.add(
            nn.Dense(8, activation='relu', in_units=20),
            nn.Dense(8, activation='relu', in_units=8),
            nn.Dense(8, activation='relu', in_units=8),
            nn.Dense(10, in_units=8),
        )
        net.initialize()
        net[2].weight.set_data(net[1].weight.data())
        net[2].bias.set_data(net[1].bias.data())
        return net

    _fails(
        'ch06.shared_params',
        copied,
        'separate Parameters',
        'params=shared.params',
    )


def test_shared_params_error_in_build_net_is_reported():
    def broken():
        net = nn.Sequential()
        net.add(nn.Dense(8), nn.Dense(8, params=undefined.params))  # noqa

    _fails('ch06.shared_params', broken, 'build_net() raised NameError')


def test_shared_params_wrong_output_size():
    def small():
        out = nn.Sequential()
        shared = nn.Dense(8, activation='relu')
        out.add(
            nn.Dense(8, activation='relu'),
            shared,
            nn.Dense(8, activation='relu', params=shared.params),
            nn.Dense(5),
        )
        return out

    _fails('ch06.shared_params', small, 'output has shape (2, 5)')


def test_shared_params_not_shared_at_all():
    def plain():
        net = nn.Sequential()
        net.add(
            nn.Dense(8, activation='relu'),
            nn.Dense(8, activation='relu'),
            nn.Dense(8, activation='relu'),
            nn.Dense(10),
        )
        return net

    _fails('ch06.shared_params', plain, 'separate parameters')


def test_shared_params_function_returning_nothing():
    _fails('ch06.shared_params', lambda: None, 'returned a NoneType')
