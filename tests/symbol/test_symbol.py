"""Symbols as MXNet 1.x builds them: automatic names, argument and output
lists, internals, multi-output indexing, operators, attributes and
scopes, shape and type inference, composition."""

import copy
import json
import warnings

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd, sym
from dlbook.base import DLBookError


@pytest.fixture(autouse=True)
def fresh_names():
    """Each test numbers its nodes from 0, as a fresh MXNet process."""
    with mx.name.NameManager():
        yield


def mlp():
    data = sym.var('data')
    fc1 = sym.FullyConnected(data, num_hidden=128, name='fc1')
    act = sym.Activation(fc1, act_type='relu')
    fc2 = sym.FullyConnected(act, num_hidden=10)
    return sym.SoftmaxOutput(fc2, name='softmax')


def evaluate(symbol, **arrays):
    """Outputs of ``symbol`` for NumPy inputs, as NumPy arrays."""
    outs = symbol.eval(
        ctx=mx.cpu(),
        **{k: nd.array(v, dtype=v.dtype) for k, v in arrays.items()},
    )
    return [o.asnumpy() for o in outs]


# -- names and lists ----------------------------------------------------------


def test_automatic_names_count_per_operator():
    data = sym.var('data')
    a = sym.FullyConnected(data, num_hidden=3)
    b = sym.FullyConnected(a, num_hidden=3)
    c = sym.Activation(b, act_type='relu')
    d = sym.Activation(c, act_type='relu')
    assert [s.name for s in (a, b, c, d)] == [
        'fullyconnected0',
        'fullyconnected1',
        'activation0',
        'activation1',
    ]
    assert b.list_arguments() == [
        'data',
        'fullyconnected0_weight',
        'fullyconnected0_bias',
        'fullyconnected1_weight',
        'fullyconnected1_bias',
    ]


def test_mlp_lists_follow_mxnet_order():
    net = mlp()
    assert net.list_arguments() == [
        'data',
        'fc1_weight',
        'fc1_bias',
        'fullyconnected0_weight',
        'fullyconnected0_bias',
        'softmax_label',
    ]
    assert net.list_outputs() == ['softmax_output']
    assert net.list_auxiliary_states() == []
    assert net.list_inputs() == net.list_arguments()
    assert net.name == 'softmax'
    assert repr(net) == '<Symbol softmax>'


def test_batchnorm_moving_statistics_are_auxiliary_states():
    data = sym.var('data')
    conv = sym.Convolution(data, kernel=(3, 3), num_filter=4, no_bias=True)
    bn = sym.BatchNorm(conv)
    assert bn.list_arguments() == [
        'data',
        'convolution0_weight',
        'batchnorm0_gamma',
        'batchnorm0_beta',
    ]
    assert bn.list_auxiliary_states() == [
        'batchnorm0_moving_mean',
        'batchnorm0_moving_var',
    ]
    assert bn.list_inputs() == [
        'data',
        'convolution0_weight',
        'batchnorm0_gamma',
        'batchnorm0_beta',
        'batchnorm0_moving_mean',
        'batchnorm0_moving_var',
    ]
    assert bn.list_outputs() == ['batchnorm0_output']


def test_list_inputs_interleaves_arguments_and_aux_in_graph_order():
    data = sym.var('data')
    bn = sym.BatchNorm(data, name='bn')
    fc = sym.FullyConnected(bn, num_hidden=2, name='fc')
    assert fc.list_inputs() == [
        'data',
        'bn_gamma',
        'bn_beta',
        'bn_moving_mean',
        'bn_moving_var',
        'fc_weight',
        'fc_bias',
    ]
    assert fc.list_arguments() == [
        'data',
        'bn_gamma',
        'bn_beta',
        'fc_weight',
        'fc_bias',
    ]


def test_no_bias_drops_the_bias_argument():
    fc = sym.FullyConnected(
        sym.var('x'), num_hidden=4, no_bias=True, name='fc'
    )
    assert fc.list_arguments() == ['x', 'fc_weight']


def test_given_inputs_are_used_instead_of_new_variables():
    w = sym.var('shared_w')
    a = sym.FullyConnected(sym.var('x'), weight=w, num_hidden=2, name='a')
    b = sym.FullyConnected(a, weight=w, num_hidden=2, name='b')
    assert b.list_arguments() == ['x', 'shared_w', 'a_bias', 'b_bias']


def test_bilinear_upsampling_creates_its_weight_with_bilinear_init():
    # UpSampling is variadic, but in bilinear mode its inputs are named
    # (data, weight); MXNet tags the new weight variable with init.Bilinear
    up = sym.UpSampling(
        sym.var('data'),
        scale=2,
        sample_type='bilinear',
        num_filter=2,
        name='up',
    )
    assert up.list_arguments() == ['data', 'up_weight']
    # MXNet 1.9.1 also copies the node's attributes onto the variable
    assert up.attr_dict()['up_weight'] == {
        '__init__': '["bilinear", {}]',
        'num_args': '1',
        'num_filter': '2',
        'sample_type': 'bilinear',
        'scale': '2',
    }
    args, outs, _ = up.infer_shape(data=(1, 2, 3, 3))
    assert args == [(1, 2, 3, 3), (2, 1, 4, 4)] and outs == [(1, 2, 6, 6)]
    mod = mx.mod.Module(up, data_names=['data'], label_names=None)
    mod.bind(data_shapes=[('data', (1, 2, 3, 3))], for_training=False)
    mod.init_params(mx.init.Uniform(0.01))
    weight = mod.get_params()[0]['up_weight'].asnumpy()
    corner = np.array([0.25, 0.75, 0.75, 0.25])
    np.testing.assert_allclose(weight[1, 0], np.outer(corner, corner))


def test_get_internals_lists_every_output():
    net = mlp()
    internals = net.get_internals()
    assert internals.list_outputs() == [
        'data',
        'fc1_weight',
        'fc1_bias',
        'fc1_output',
        'activation0_output',
        'fullyconnected0_weight',
        'fullyconnected0_bias',
        'fullyconnected0_output',
        'softmax_label',
        'softmax_output',
    ]
    assert internals.name is None
    feature = internals['fc1_output']
    assert feature.list_outputs() == ['fc1_output']
    assert feature.list_arguments() == ['data', 'fc1_weight', 'fc1_bias']
    with pytest.raises(
        ValueError, match='Cannot find output that matches name "nope"'
    ):
        internals['nope']


def test_internal_feature_symbol_computes_the_layer():
    rng = np.random.RandomState(0)
    x, w, b = rng.randn(2, 5), rng.randn(128, 5), rng.randn(128)
    feature = mlp().get_internals()['fc1_output']
    (got,) = evaluate(
        feature,
        data=x.astype('f4'),
        fc1_weight=w.astype('f4'),
        fc1_bias=b.astype('f4'),
    )
    np.testing.assert_allclose(got, x @ w.T + b, rtol=1e-5, atol=1e-5)


def test_get_children():
    net = mlp()
    children = net.get_children()
    assert children.list_outputs() == [
        'fullyconnected0_output',
        'softmax_label',
    ]
    assert sym.var('x').get_children() is None


def test_split_outputs_are_indexed():
    data = sym.var('data')
    parts = sym.split(data, num_outputs=3, axis=1)
    assert len(parts) == 3
    assert parts.list_outputs() == [
        'split0_output0',
        'split0_output1',
        'split0_output2',
    ]
    assert parts.name is None
    assert repr(parts) == '<Symbol group [split0, split0, split0]>'
    assert parts[1].list_outputs() == ['split0_output1']
    assert parts[-1].list_outputs() == ['split0_output2']
    assert parts['split0_output2'].list_outputs() == ['split0_output2']
    assert [p.list_outputs()[0] for p in parts] == parts.list_outputs()
    with pytest.raises(IndexError):
        parts[3]
    x = np.arange(12, dtype='f4').reshape(2, 6)
    got = evaluate(sym.Group([parts[2], parts[0]]), data=x)
    np.testing.assert_array_equal(got[0], x[:, 4:])
    np.testing.assert_array_equal(got[1], x[:, :2])
    # an output of a multi-output node feeds another operator
    (summed,) = evaluate(parts[1] * 2, data=x)
    np.testing.assert_array_equal(summed, 2 * x[:, 2:4])


def test_group_concatenates_outputs():
    a, b = sym.var('a'), sym.var('b')
    group = sym.Group([a + b, a * b, a])
    assert group.list_outputs() == ['_plus0_output', '_mul0_output', 'a']
    assert group.list_arguments() == ['a', 'b']
    x, y = np.full((2,), 3, 'f4'), np.full((2,), 4, 'f4')
    got = evaluate(group, a=x, b=y)
    np.testing.assert_array_equal(got[0], x + y)
    np.testing.assert_array_equal(got[1], x * y)
    np.testing.assert_array_equal(got[2], x)
    with pytest.raises(TypeError):
        sym.Group([a, 1])


def test_a_grouped_symbol_cannot_feed_an_operator():
    parts = sym.split(sym.var('x'), num_outputs=2)
    with pytest.raises(mx.MXNetError, match='pick one'):
        sym.relu(parts)


# -- operators ----------------------------------------------------------------


def test_arithmetic_names_and_values():
    a, b = sym.var('a'), sym.var('b')
    cases = [
        (a + b, '_plus0', lambda x, y: x + y),
        (a - b, '_minus0', lambda x, y: x - y),
        (a * b, '_mul0', lambda x, y: x * y),
        (a / b, '_div0', lambda x, y: x / y),
        (a**b, '_power0', lambda x, y: x**y),
        (a + 1, '_plusscalar0', lambda x, y: x + 1),
        (3 - a, '_rminusscalar0', lambda x, y: 3 - x),
        (a - 3, '_minusscalar0', lambda x, y: x - 3),
        (2 * a, '_mulscalar0', lambda x, y: 2 * x),
        (2 / a, '_rdivscalar0', lambda x, y: 2 / x),
        (a**2, '_powerscalar0', lambda x, y: x**2),
        (2**a, '_rpowerscalar0', lambda x, y: 2**x),
        (-a, '_mulscalar1', lambda x, y: -x),
        (a % 0.7, '_modscalar0', lambda x, y: np.mod(x, 0.7)),
    ]
    x = np.array([[0.5, 1.5, 2.0]], 'f4')
    y = np.array([[1.25, 0.5, 3.0]], 'f4')
    for symbol, name, ref in cases:
        assert symbol.name == name
        inputs = {
            k: v
            for k, v in (('a', x), ('b', y))
            if k in symbol.list_arguments()
        }
        (got,) = evaluate(symbol, **inputs)
        np.testing.assert_allclose(got, ref(x, y), rtol=1e-6, err_msg=name)
    (got,) = evaluate(abs(a - 1), a=x)
    np.testing.assert_allclose(got, np.abs(x - 1))


def test_symbol_arithmetic_records_mxnets_equal_shape_ops():
    # MXNet's Symbol.__add__ calls _internal._Plus: JSON op elemwise_add,
    # node _plus0; two symbols never broadcast.
    a, b = sym.var('a'), sym.var('b')
    cases = [
        (a + b, 'elemwise_add'),
        (a - b, 'elemwise_sub'),
        (a * b, 'elemwise_mul'),
        (a / b, 'elemwise_div'),
        (a % b, '_mod'),
        (a**b, '_power'),
        (a > b, '_greater'),
        (a == b, '_equal'),
        (sym.maximum(a, b), '_maximum'),
        (sym.minimum(a, b), '_minimum'),
        (a * 2, '_mul_scalar'),
        (sym.maximum(a, 2), '_maximum_scalar'),
    ]
    for symbol, op in cases:
        node = json.loads(symbol.tojson())['nodes'][-1]
        assert node['op'] == op, (symbol.name, node)
    assert sym.maximum(a, 2).name.startswith('_maximumscalar')
    # equal shapes: one input's shape gives the other's
    arg_shapes, out_shapes, _ = (a + b).infer_shape(a=(2, 3))
    assert arg_shapes == [(2, 3), (2, 3)] and out_shapes == [(2, 3)]
    with pytest.raises(
        DLBookError,
        match=r'elemwise_add: lhs shape '
        r'\(2, 3\) and rhs shape \(1, 3\) differ.*'
        r'broadcast_add',
    ):
        (a + b).infer_shape(a=(2, 3), b=(1, 3))
    arg_shapes, out_shapes, _ = sym.broadcast_add(a, b).infer_shape(
        a=(2, 3), b=(1, 3)
    )
    assert out_shapes == [(2, 3)]


def test_comparisons_give_zero_one_in_the_input_dtype():
    a, b = sym.var('a'), sym.var('b')
    x = np.array([1, 2, 3], 'f4')
    y = np.array([3, 2, 1], 'f4')
    cases = [
        (a > b, np.greater),
        (a >= b, np.greater_equal),
        (a < b, np.less),
        (a <= b, np.less_equal),
        (a == b, np.equal),
        (a != b, np.not_equal),
    ]
    for symbol, ref in cases:
        (got,) = evaluate(symbol, a=x, b=y)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, ref(x, y).astype('f4'))
    assert (a > 2).name == '_greater_scalar0'
    (got,) = evaluate(a > 2, a=x)
    np.testing.assert_array_equal(got, [0, 0, 1])


def test_symbol_has_no_truth_value():
    with pytest.raises(NotImplementedError):
        bool(sym.var('a') > 1)


def test_methods_build_operators():
    x = np.arange(6, dtype='f4').reshape(2, 3)
    a = sym.var('a')
    (got,) = evaluate(a.reshape((3, 2)).sum(axis=1), a=x)
    np.testing.assert_array_equal(got, x.reshape(3, 2).sum(axis=1))
    (got,) = evaluate(a.transpose().exp(), a=x)
    np.testing.assert_allclose(got, np.exp(x.T), rtol=1e-6)


# -- attributes and scopes ----------------------------------------------------


def test_attr_list_attr_and_attr_dict():
    data = sym.var('data', attr={'mood': 'happy'})
    fc = sym.FullyConnected(data, num_hidden=7, name='fc', attr={'k': 'v'})
    assert data.attr('mood') == 'happy'
    assert fc.attr('num_hidden') == '7'
    assert fc.attr('k') == 'v'
    assert fc.attr('missing') is None
    assert fc.list_attr() == {'num_hidden': '7', 'k': 'v'}
    # MXNet 1.9.1 copies the node's attributes onto the variables it makes
    # (it refuses the unknown 'k'; dlbook keeps it)
    assert fc.attr_dict() == {
        'data': {'mood': 'happy'},
        'fc_weight': {'num_hidden': '7', 'k': 'v'},
        'fc_bias': {'num_hidden': '7', 'k': 'v'},
        'fc': {'num_hidden': '7', 'k': 'v'},
    }
    with pytest.raises(DeprecationWarning):
        fc.list_attr(recursive=True)
    fc._set_attr(k='w')
    assert fc.attr('k') == 'w'
    with pytest.raises(ValueError, match='string values'):
        fc._set_attr(k=1)


def test_variable_attributes_are_mxnet_strings():
    v = sym.var(
        'w',
        shape=(3, 4),
        lr_mult=2.0,
        wd_mult=0.0,
        dtype='float64',
        init=mx.init.Constant(0.5),
        __layout__='NC',
    )
    attrs = v.list_attr()
    assert attrs['__shape__'] == '(3, 4)'
    assert attrs['__lr_mult__'] == '2.0'
    assert attrs['__wd_mult__'] == '0.0'
    assert attrs['__dtype__'] == '1'  # MXNet's type flag
    assert attrs['__layout__'] == 'NC'
    assert '"value": 0.5' in attrs['__init__']
    with pytest.raises(ValueError, match='double underscores'):
        sym.var('w', layout='NC')
    with pytest.raises(TypeError):
        sym.var(3)


def test_attr_scope_nests_and_variables_inherit_it():
    with mx.AttrScope(ctx_group='stage1', lr_mult='0.5'):
        a = sym.var('a')
        with mx.AttrScope(ctx_group='stage2'):
            b = sym.var('b', attr={'extra': 'yes'})
            inner = sym.relu(a + b)
        outer = sym.sigmoid(inner)
    after = sym.tanh(outer)
    assert a.attr('ctx_group') == 'stage1'
    # MXNet 1.9.1 stores __ctx_group__/__lr_mult__ and lists both names
    assert b.list_attr() == {
        'ctx_group': 'stage2',
        'lr_mult': '0.5',
        '__ctx_group__': 'stage2',
        '__lr_mult__': '0.5',
        'extra': 'yes',
    }
    assert inner.attr('ctx_group') == 'stage2'
    assert inner.attr('lr_mult') == '0.5'
    assert outer.attr('ctx_group') == 'stage1'
    assert after.attr('ctx_group') is None
    groups = {k: v.get('ctx_group') for k, v in after.attr_dict().items()}
    assert groups == {
        'a': 'stage1',
        'b': 'stage2',
        '_plus0': 'stage2',
        'relu0': 'stage2',
        'sigmoid0': 'stage1',
    }
    with pytest.raises(ValueError):
        mx.AttrScope(ctx_group=1)


def test_name_prefix_and_name_manager():
    with mx.name.Prefix('net_'):
        fc = sym.FullyConnected(sym.var('x'), num_hidden=2)
        named = sym.FullyConnected(fc, num_hidden=2, name='out')
    assert fc.name == 'net_fullyconnected0'
    assert named.name == 'net_out'
    assert named.list_arguments() == [
        'x',
        'net_fullyconnected0_weight',
        'net_fullyconnected0_bias',
        'net_out_weight',
        'net_out_bias',
    ]
    # a new manager restarts the counters inside its block only
    first = sym.relu(sym.var('x'))
    with mx.name.NameManager():
        again = sym.relu(sym.var('x'))
    later = sym.relu(sym.var('x'))
    assert (first.name, again.name, later.name) == ('relu0', 'relu0', 'relu1')
    manager = mx.name.NameManager()
    assert manager.get(None, 'conv') == 'conv0'
    assert manager.get(None, 'conv') == 'conv1'
    assert manager.get('given', 'conv') == 'given'


# -- inference ----------------------------------------------------------------


def test_infer_shape_fills_parameter_shapes():
    arg, out, aux = mlp().infer_shape(data=(32, 784))
    assert arg == [(32, 784), (128, 784), (128,), (10, 128), (10,), (32,)]
    assert out == [(32, 10)]
    assert aux == []
    # positional shapes follow list_arguments()
    assert mlp().infer_shape((8, 20))[1] == [(8, 10)]


def test_infer_shape_of_a_convolution_network():
    data = sym.var('data')
    net = sym.Convolution(data, kernel=(5, 5), num_filter=6, pad=(2, 2))
    net = sym.BatchNorm(net)
    net = sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type='max')
    net = sym.Flatten(net)
    arg, out, aux = net.infer_shape(data=(4, 1, 28, 28))
    assert dict(zip(net.list_arguments(), arg)) == {
        'data': (4, 1, 28, 28),
        'convolution0_weight': (6, 1, 5, 5),
        'convolution0_bias': (6,),
        'batchnorm0_gamma': (6,),
        'batchnorm0_beta': (6,),
    }
    assert out == [(4, 6 * 14 * 14)]
    assert aux == [(6,), (6,)]


def test_infer_shape_warns_and_returns_none_when_incomplete():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        result = mlp().infer_shape()
    assert result == (None, None, None)
    message = str(caught[0].message)
    assert message.startswith(
        'Cannot decide shape for the following arguments (0s in shape '
        'means unknown dimensions). Consider providing them as input:\n\t'
    )
    assert 'data: ()' in message and 'fc1_weight' in message
    assert caught[0].filename == __file__


def test_infer_shape_partial_returns_what_it_knows():
    a, b = sym.var('a'), sym.var('b')
    net = sym.Group(
        [sym.FullyConnected(a, num_hidden=3, name='fc'), sym.relu(b)]
    )
    arg, out, aux = net.infer_shape_partial(a=(2, 5))
    assert dict(zip(net.list_arguments(), arg)) == {
        'a': (2, 5),
        'fc_weight': (3, 5),
        'fc_bias': (3,),
        'b': (),
    }
    assert aux == []
    assert out == [(2, 3), ()]
    with pytest.warns(UserWarning, match='b: ()'):
        assert net.infer_shape(a=(2, 5)) == (None, None, None)


def test_infer_shape_uses_variable_shape_hints():
    w = sym.var('w', shape=(4, 3))
    net = sym.dot(sym.var('x'), w)
    assert net.infer_shape(x=(2, 4))[1] == [(2, 3)]


def test_infer_shape_rejects_inconsistent_shapes():
    fc = sym.FullyConnected(sym.var('data'), num_hidden=3, name='fc')
    with pytest.raises(
        mx.MXNetError,
        match=r'Shape inconsistent.*'
        r'Provided = \(3, 4\), '
        r'inferred shape=\(3, 5\)',
    ):
        fc.infer_shape(data=(2, 5), fc_weight=(3, 4))
    hinted = sym.FullyConnected(
        sym.var('x'), sym.var('w', shape=(3, 0)), num_hidden=3, no_bias=True
    )
    assert hinted.infer_shape(x=(2, 5))[0] == [(2, 5), (3, 5)]
    with pytest.raises(mx.MXNetError, match='Shape inconsistent'):
        sym.FullyConnected(
            sym.var('x'),
            sym.var('w', shape=(4, 0)),
            num_hidden=3,
            no_bias=True,
        ).infer_shape(x=(2, 5))


def test_infer_shape_rejects_unknown_names():
    with pytest.raises(mx.MXNetError, match='not an input'):
        mlp().infer_shape(date=(1, 2))


def test_infer_type():
    arg, out, aux = mlp().infer_type(data='float64')
    assert arg == [np.float64] * 6 and out == [np.float64] and aux == []
    cast = sym.Cast(sym.var('x'), dtype='float16')
    assert cast.infer_type(x=np.float32) == ([np.float32], [np.float16], [])
    one_hot = sym.one_hot(sym.var('i'), depth=3)
    assert one_hot.infer_type(i='int32')[1] == [np.float32]


def test_infer_type_warns_and_returns_none_when_undecided():
    with pytest.warns(
        UserWarning, match='Cannot decide type for the following arguments'
    ):
        assert mlp().infer_type() == (None, None, None)


# -- composition and copies ---------------------------------------------------


def test_compose_replaces_variables():
    net = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
    pre = sym.relu(sym.var('raw'), name='pre')
    composed = net(data=pre)
    assert composed.list_arguments() == ['raw', 'fc_weight', 'fc_bias']
    assert net.list_arguments() == ['data', 'fc_weight', 'fc_bias']
    by_position = net(pre)
    assert by_position.list_arguments() == composed.list_arguments()
    rng = np.random.RandomState(0)
    x, w, b = rng.randn(3, 4), rng.randn(2, 4), rng.randn(2)
    (got,) = evaluate(
        composed,
        raw=x.astype('f4'),
        fc_weight=w.astype('f4'),
        fc_bias=b.astype('f4'),
    )
    np.testing.assert_allclose(
        got, np.maximum(x, 0) @ w.T + b, rtol=1e-5, atol=1e-6
    )
    with pytest.raises(TypeError, match='not both'):
        net(pre, fc_weight=sym.var('w'))
    with pytest.raises(mx.MXNetError, match='no variable'):
        net(nope=pre)


def test_copies_are_independent_graphs():
    net = sym.relu(sym.var('x'), name='r', attr={'k': 'old'})
    for twin in (copy.copy(net), copy.deepcopy(net)):
        twin._set_attr(k='new')
        assert net.attr('k') == 'old' and twin.attr('k') == 'new'
        assert twin.list_arguments() == net.list_arguments()
