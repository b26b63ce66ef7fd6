"""Executors: binding, forward/backward, gradient requests, parameter
copies, reshaping, model parallelism with ``group2ctx`` and the loss-output
operators, against NumPy and the eager ``nd`` + autograd results."""

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, nd, sym
from dlbook.symbol.program import GraphProgram


@pytest.fixture(autouse=True)
def fresh_names():
    with mx.name.NameManager():
        yield


def two_layer(act='tanh'):
    data = sym.var('data')
    h = sym.Activation(
        sym.FullyConnected(data, num_hidden=4, name='fc1'), act_type=act
    )
    return sym.FullyConnected(h, num_hidden=3, name='fc2')


def random_args(exe, seed=0):
    rng = np.random.RandomState(seed)
    values = {}
    for name, arr in exe.arg_dict.items():
        values[name] = rng.uniform(-1, 1, arr.shape).astype(arr.dtype)
        arr[:] = values[name]
    return values


def numpy_two_layer(v):
    h = np.tanh(v['data'] @ v['fc1_weight'].T + v['fc1_bias'])
    return h, h @ v['fc2_weight'].T + v['fc2_bias']


def numpy_two_layer_grads(v, dy):
    h, _ = numpy_two_layer(v)
    dh = dy @ v['fc2_weight'] * (1 - h * h)
    return {
        'fc2_weight': dy.T @ h,
        'fc2_bias': dy.sum(axis=0),
        'fc1_weight': dh.T @ v['data'],
        'fc1_bias': dh.sum(axis=0),
        'data': dh @ v['fc1_weight'],
    }


def close(a, b, **kw):
    a = a.asnumpy() if hasattr(a, 'asnumpy') else a
    np.testing.assert_allclose(
        a, b, rtol=kw.get('rtol', 1e-5), atol=kw.get('atol', 1e-6)
    )


# -- binding ------------------------------------------------------------------


def test_simple_bind_allocates_every_array():
    exe = two_layer().simple_bind(mx.cpu(), data=(5, 2))
    assert list(exe.arg_dict) == [
        'data',
        'fc1_weight',
        'fc1_bias',
        'fc2_weight',
        'fc2_bias',
    ]
    assert [a.shape for a in exe.arg_arrays] == [
        (5, 2),
        (4, 2),
        (4,),
        (3, 4),
        (3,),
    ]
    assert [g.shape for g in exe.grad_arrays] == [
        a.shape for a in exe.arg_arrays
    ]
    assert all(a.dtype == np.float32 for a in exe.arg_arrays)
    assert exe.aux_arrays == [] and exe.outputs == []
    exe64 = two_layer().simple_bind(
        mx.cpu(), type_dict={'data': 'float64'}, data=(5, 2)
    )
    assert all(a.dtype == np.float64 for a in exe64.arg_arrays)
    with pytest.raises(mx.MXNetError, match='cannot infer'):
        two_layer().simple_bind(mx.cpu())


def test_simple_bind_with_grad_req_dict_and_null():
    exe = two_layer().simple_bind(
        mx.cpu(),
        grad_req={'fc1_weight': 'write', 'fc2_bias': 'add'},
        data=(2, 2),
    )
    assert list(exe.grad_dict) == ['fc1_weight', 'fc2_bias']
    assert exe.grad_arrays[0] is None
    exe = two_layer().simple_bind(mx.cpu(), grad_req='null', data=(2, 2))
    assert exe.grad_dict == {} and exe.grad_arrays == [None] * 5
    with pytest.raises(ValueError, match='grad_req'):
        two_layer().simple_bind(mx.cpu(), grad_req='sometimes', data=(2, 2))


def test_bind_with_lists_and_dicts():
    net = two_layer()
    template = net.simple_bind(mx.cpu(), data=(3, 2))
    values = random_args(template)
    as_list = [nd.array(values[n]) for n in net.list_arguments()]
    as_dict = {n: nd.array(v) for n, v in values.items()}
    grads = {n: nd.zeros(v.shape) for n, v in values.items() if n != 'data'}
    _, want = numpy_two_layer(values)
    for args in (as_list, as_dict):
        exe = net.bind(mx.cpu(), args, args_grad=grads)
        close(exe.forward()[0], want)
        assert exe.arg_arrays[0] is args[0 if args is as_list else 'data']
    exe = net.bind(mx.cpu(), as_dict, args_grad=grads)
    assert list(exe.grad_dict) == [
        'fc1_weight',
        'fc1_bias',
        'fc2_weight',
        'fc2_bias',
    ]
    exe.forward(is_train=True)
    exe.backward(nd.ones((3, 3)))
    assert exe.grad_dict['fc2_bias'] is grads['fc2_bias']
    close(grads['fc2_bias'], np.full(3, 3.0))
    with pytest.raises(
        ValueError, match='key `fc2_bias` is missing in `args`'
    ):
        net.bind(
            mx.cpu(), {k: v for k, v in as_dict.items() if k != 'fc2_bias'}
        )
    with pytest.raises(ValueError, match='Length of args'):
        net.bind(mx.cpu(), as_list[:-1])
    with pytest.raises(TypeError):
        net.bind(mx.cpu(), as_list[0])


def test_bind_requires_auxiliary_states():
    bn = sym.BatchNorm(sym.var('x'), name='bn')
    args = {
        'x': nd.ones((2, 3)),
        'bn_gamma': nd.ones(3),
        'bn_beta': nd.zeros(3),
    }
    with pytest.raises(mx.MXNetError, match='auxiliary state'):
        bn.bind(mx.cpu(), args)
    exe = bn.bind(mx.cpu(), args, aux_states=[nd.zeros(3), nd.ones(3)])
    assert list(exe.aux_dict) == ['bn_moving_mean', 'bn_moving_var']


# -- running ------------------------------------------------------------------


def test_forward_backward_match_numpy_and_eager():
    net = two_layer()
    exe = net.simple_bind(mx.cpu(), data=(5, 2))
    values = random_args(exe)
    outs = exe.forward(is_train=True)
    _, want = numpy_two_layer(values)
    close(outs[0], want)
    dy = np.random.RandomState(1).uniform(-1, 1, (5, 3)).astype('f4')
    exe.backward(nd.array(dy))
    for name, g in numpy_two_layer_grads(values, dy).items():
        close(exe.grad_dict[name], g, err=name)
    # the eager front end and the tape agree
    arrays = {k: nd.array(v) for k, v in values.items()}
    for a in arrays.values():
        a.attach_grad()
    with autograd.record():
        y = nd.FullyConnected(
            nd.tanh(
                nd.FullyConnected(
                    arrays['data'],
                    arrays['fc1_weight'],
                    arrays['fc1_bias'],
                    num_hidden=4,
                )
            ),
            arrays['fc2_weight'],
            arrays['fc2_bias'],
            num_hidden=3,
        )
    y.backward(nd.array(dy))
    close(exe.outputs[0], y.asnumpy(), rtol=1e-6, atol=1e-7)
    for name, a in arrays.items():
        close(exe.grad_dict[name], a.grad.asnumpy(), rtol=1e-6, atol=1e-7)


def test_backward_without_out_grads_uses_ones():
    exe = two_layer().simple_bind(mx.cpu(), data=(2, 2))
    values = random_args(exe)
    exe.forward(is_train=True)
    exe.backward()
    want = numpy_two_layer_grads(values, np.ones((2, 3), 'f4'))
    close(exe.grad_dict['fc1_weight'], want['fc1_weight'])


def test_feeding_inputs_in_place_and_by_forward_kwargs():
    exe = two_layer().simple_bind(mx.cpu(), data=(2, 2))
    values = random_args(exe)
    data = exe.arg_dict['data']
    first = exe.forward()[0].asnumpy()
    x = np.array([[0.5, -1.0], [2.0, 0.25]], 'f4')
    exe.arg_arrays[0][:] = x
    values['data'] = x
    close(exe.forward()[0], numpy_two_layer(values)[1])
    x2 = x[::-1].copy()
    exe.forward(data=nd.array(x2))
    assert exe.arg_dict['data'] is data
    values['data'] = x2
    close(exe.outputs[0], numpy_two_layer(values)[1])
    exe.forward(data=x)  # NumPy arrays are accepted
    values['data'] = x
    close(exe.outputs[0], numpy_two_layer(values)[1])
    assert not np.allclose(first, exe.outputs[0].asnumpy())
    with pytest.raises(TypeError, match='Unknown argument dta'):
        exe.forward(dta=nd.array(x))
    with pytest.raises(
        ValueError,
        match='Shape not match! Argument data, '
        r'need: \(2, 2\), received: '
        r'\(1, 2\)',
    ):
        exe.forward(data=nd.ones((1, 2)))
    with pytest.raises(ValueError, match='only accept keyword argument'):
        exe.forward(data=[[1, 2], [3, 4]])


def test_outputs_are_the_executors_arrays():
    exe = two_layer().simple_bind(mx.cpu(), data=(2, 2))
    values = random_args(exe)
    out = exe.forward()[0]
    assert list(exe.output_dict) == ['fc2_output']
    assert exe.output_dict['fc2_output'] is out
    exe.forward(data=nd.zeros((2, 2)))
    assert exe.outputs[0] is out
    values['data'] = np.zeros((2, 2), 'f4')
    close(out, numpy_two_layer(values)[1])  # updated in place


@pytest.mark.parametrize('req', ['write', 'add', 'null'])
def test_grad_req(req):
    exe = two_layer().simple_bind(mx.cpu(), grad_req=req, data=(3, 2))
    values = random_args(exe)
    want = numpy_two_layer_grads(values, np.ones((3, 3), 'f4'))
    if req == 'null':
        assert exe.grad_dict == {}
        exe.forward(is_train=True)
        exe.backward()
        return
    for g in exe.grad_arrays:
        g[:] = 1.0
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward()
    factor, offset = (2, 1) if req == 'add' else (1, 0)
    for name, g in want.items():
        close(exe.grad_dict[name], factor * g + offset)


def test_backward_after_prediction_mode_forward():
    """A training executor keeps what backward needs even after
    ``forward(is_train=False)`` (MXNet allows backward then), while
    operators behave as in prediction (BatchNorm's moving statistics)."""
    x = sym.var('x')
    net = sym.BatchNorm(x, fix_gamma=False, eps=1e-5, name='bn') * 2
    exe = net.simple_bind(mx.cpu(), x=(4, 2))
    v = np.array([[1, 2], [3, 5], [0, 1], [2, 0]], 'f4')
    exe.arg_dict['x'][:] = v
    exe.arg_dict['bn_gamma'][:] = 1.5
    exe.aux_dict['bn_moving_mean'][:] = 0.5
    exe.aux_dict['bn_moving_var'][:] = 4.0
    out = exe.forward(is_train=False)[0]
    close(out, 2 * ((v - 0.5) / np.sqrt(4 + 1e-5) * 1.5))
    exe.backward()
    close(exe.grad_dict['x'], np.full((4, 2), 2 * 1.5 / np.sqrt(4 + 1e-5)))
    close(exe.aux_dict['bn_moving_mean'], np.full(2, 0.5))
    # an executor without gradients runs forward only
    inference = net.simple_bind(mx.cpu(), grad_req='null', x=(4, 2))
    inference.forward()
    with pytest.raises(mx.MXNetError, match='forward'):
        inference.backward()


def test_backward_needs_a_forward_first():
    exe = two_layer().simple_bind(mx.cpu(), data=(2, 2))
    with pytest.raises(mx.MXNetError):
        exe.backward()


def test_multiple_outputs_and_out_grads():
    data = sym.var('data')
    parts = sym.split(data, num_outputs=2, axis=1)
    net = sym.Group([parts[0] * 3, sym.exp(parts[1])])
    exe = net.simple_bind(mx.cpu(), data=(2, 4))
    x = np.random.RandomState(0).randn(2, 4).astype('f4')
    exe.arg_dict['data'][:] = x
    a, b = exe.forward(is_train=True)
    close(a, 3 * x[:, :2])
    close(b, np.exp(x[:, 2:]))
    ga = np.full((2, 2), 0.5, 'f4')
    gb = np.arange(4, dtype='f4').reshape(2, 2)
    exe.backward([nd.array(ga), nd.array(gb)])
    close(exe.grad_dict['data'], np.hstack([3 * ga, gb * np.exp(x[:, 2:])]))
    with pytest.raises(mx.MXNetError):
        exe.backward([nd.array(ga)])


def test_copy_params_from():
    exe = two_layer().simple_bind(mx.cpu(), data=(2, 2))
    w = nd.array(np.arange(8).reshape(4, 2))
    weight = exe.arg_dict['fc1_weight']
    exe.copy_params_from({'fc1_weight': w})
    assert exe.arg_dict['fc1_weight'] is weight
    close(weight, w.asnumpy())
    with pytest.raises(ValueError, match='Find name "extra"'):
        exe.copy_params_from({'extra': w})
    exe.copy_params_from({'extra': w}, allow_extra_params=True)
    with pytest.raises(mx.MXNetError, match='shape'):
        exe.copy_params_from({'fc1_weight': nd.ones((1, 2))})
    bn = sym.BatchNorm(sym.var('x'), name='bn').simple_bind(mx.cpu(), x=(2, 3))
    bn.copy_params_from({}, {'bn_moving_var': nd.array([1, 2, 3])})
    close(bn.aux_dict['bn_moving_var'], [1, 2, 3])
    with pytest.raises(ValueError, match='auxiliary states'):
        bn.copy_params_from({}, {'nope': nd.ones(3)})


def test_reshape_shares_parameters():
    net = sym.SoftmaxOutput(two_layer(), name='softmax')
    exe = net.simple_bind(mx.cpu(), data=(8, 2))
    values = random_args(exe)
    small = exe.reshape(data=(3, 2), softmax_label=(3,))
    for name in ('fc1_weight', 'fc1_bias', 'fc2_weight', 'fc2_bias'):
        assert small.arg_dict[name] is exe.arg_dict[name]
        assert small.grad_dict[name] is exe.grad_dict[name]
    assert small.arg_dict['data'].shape == (3, 2)
    # a smaller array is a view of the old memory, as in MXNet
    close(small.arg_dict['data'], values['data'].reshape(-1)[:6].reshape(3, 2))
    out = small.forward()[0]
    assert out.shape == (3, 3)
    with pytest.raises(
        mx.MXNetError,
        match='Shape of unspecified array arg:softmax_label changed',
    ):
        exe.reshape(data=(3, 2))
    assert exe.reshape(partial_shaping=True, data=(3, 2)).arg_dict[
        'softmax_label'
    ].shape == (3,)
    with pytest.raises(mx.MXNetError, match='larger than original'):
        exe.reshape(data=(9, 2), softmax_label=(9,))
    big = exe.reshape(allow_up_sizing=True, data=(9, 2), softmax_label=(9,))
    assert big.forward()[0].shape == (9, 3)


def test_monitor_callback_sees_every_operators_output():
    net = two_layer()
    exe = net.simple_bind(mx.cpu(), data=(2, 2))
    random_args(exe)
    seen = []
    exe.set_monitor_callback(lambda name, arr: seen.append((name, arr)))
    exe.forward()
    activation = net.get_internals().list_outputs()[4]
    assert [name for name, _ in seen] == [
        'fc1_output',
        activation,
        'fc2_output',
    ]
    internals = net.get_internals()
    values = internals.bind(mx.cpu(), args=exe.arg_dict).forward()
    expected = dict(zip(internals.list_outputs(), values))
    for name, array in seen:
        np.testing.assert_allclose(array.asnumpy(), expected[name].asnumpy())


# -- model parallelism -------------------------------------------------------


def staged_net():
    data = sym.var('data')
    with mx.AttrScope(ctx_group='stage1'):
        h = sym.FullyConnected(data, num_hidden=5, name='fc1')
        h = sym.Activation(h, act_type='tanh')
    with mx.AttrScope(ctx_group='stage2'):
        out = sym.FullyConnected(h, num_hidden=3, name='fc2')
        # a second use of a stage-1 value crosses devices too
        out = sym.broadcast_add(out, sym.sum(h, axis=1, keepdims=True))
        out = sym.SoftmaxOutput(out, name='softmax')
    return out


def test_group2ctx_places_arrays_and_gives_the_same_gradients():
    net = staged_net()
    group2ctx = {'stage1': mx.cpu(0), 'stage2': mx.cpu(1)}
    split = net.simple_bind(mx.cpu(0), group2ctx=group2ctx, data=(4, 6))
    single = net.simple_bind(mx.cpu(0), data=(4, 6))
    where = {n: a.context for n, a in split.arg_dict.items()}
    assert where == {
        'data': mx.cpu(0),
        'fc1_weight': mx.cpu(0),
        'fc1_bias': mx.cpu(0),
        'fc2_weight': mx.cpu(1),
        'fc2_bias': mx.cpu(1),
        'softmax_label': mx.cpu(1),
    }
    for name, grad in split.grad_dict.items():
        assert grad.context == where[name]
    values = random_args(single)
    values['softmax_label'] = np.array([0, 2, 1, 1], 'f4')
    for name, v in values.items():
        single.arg_dict[name][:] = v
        split.arg_dict[name][:] = v
    out_split = split.forward(is_train=True)[0]
    out_single = single.forward(is_train=True)[0]
    assert out_split.context == mx.cpu(1)
    assert out_single.context == mx.cpu(0)
    close(out_split, out_single.asnumpy(), rtol=1e-6, atol=1e-7)
    split.backward()
    single.backward()
    for name in single.grad_dict:
        assert split.grad_dict[name].context == where[name]
        close(
            split.grad_dict[name],
            single.grad_dict[name].asnumpy(),
            rtol=1e-6,
            atol=1e-7,
        )
    assert np.abs(split.grad_dict['fc1_weight'].asnumpy()).sum() > 0


def test_group2ctx_with_bound_arrays_on_their_devices():
    net = staged_net()
    group2ctx = {'stage1': mx.cpu(0), 'stage2': mx.cpu(1)}
    template = net.simple_bind(mx.cpu(0), group2ctx=group2ctx, data=(2, 6))
    values = random_args(template)
    args = {
        n: nd.array(v, ctx=template.arg_dict[n].context)
        for n, v in values.items()
    }
    grads = {
        n: nd.zeros(v.shape, ctx=template.arg_dict[n].context)
        for n, v in values.items()
    }
    exe = net.bind(mx.cpu(0), args, args_grad=grads, group2ctx=group2ctx)
    exe.forward(is_train=True)
    exe.backward()
    template.forward(is_train=True)
    template.backward()
    for n in values:
        close(grads[n], template.grad_dict[n].asnumpy(), rtol=1e-6, atol=1e-7)


# -- loss outputs ------------------------------------------------------------


def softmax(x, axis=1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def bind_loss(net, **arrays):
    exe = net.simple_bind(mx.cpu(), **{k: v.shape for k, v in arrays.items()})
    for k, v in arrays.items():
        exe.arg_dict[k][:] = v
    return exe


@pytest.mark.parametrize('normalization', ['null', 'batch', 'valid'])
def test_softmax_output_gradient(normalization):
    rng = np.random.RandomState(0)
    x = rng.randn(5, 4).astype('f4')
    label = np.array([0, 3, -1, 2, -1], 'f4')
    net = sym.SoftmaxOutput(
        sym.var('x'),
        sym.var('y'),
        grad_scale=2.0,
        use_ignore=True,
        ignore_label=-1,
        normalization=normalization,
    )
    exe = bind_loss(net, x=x, y=label)
    close(exe.forward(is_train=True)[0], softmax(x))
    # the head gradient is ignored
    exe.backward(nd.array(rng.randn(5, 4) * 100))
    keep = label != -1
    onehot = np.zeros_like(x)
    onehot[np.arange(5)[keep], label[keep].astype(int)] = 1
    grad = 2.0 * (softmax(x) - onehot) * keep[:, None]
    grad /= {'null': 1, 'batch': 5, 'valid': 3}[normalization]
    close(exe.grad_dict['x'], grad)
    close(exe.grad_dict['y'], np.zeros(5))


def test_softmax_output_multi_output():
    rng = np.random.RandomState(1)
    x = rng.randn(2, 3, 4).astype('f4')
    label = rng.randint(0, 3, (2, 4)).astype('f4')
    exe = bind_loss(
        sym.SoftmaxOutput(sym.var('x'), sym.var('y'), multi_output=True),
        x=x,
        y=label,
    )
    close(exe.forward(is_train=True)[0], softmax(x, axis=1))
    exe.backward()
    onehot = np.eye(3)[label.astype(int)].transpose(0, 2, 1)
    # 'null' normalization divides by the spatial size (MXNet)
    close(exe.grad_dict['x'], (softmax(x, axis=1) - onehot) / 4)


def test_regression_outputs_and_make_loss():
    rng = np.random.RandomState(2)
    x = rng.randn(4, 3).astype('f4')
    y = rng.randn(4, 3).astype('f4')
    linear = bind_loss(
        sym.LinearRegressionOutput(sym.var('x'), sym.var('y'), grad_scale=3.0),
        x=x,
        y=y,
    )
    close(linear.forward(is_train=True)[0], x)
    linear.backward()
    close(linear.grad_dict['x'], 3.0 * (x - y) / 3)
    logistic = bind_loss(
        sym.LogisticRegressionOutput(sym.var('x'), sym.var('y')), x=x, y=y
    )
    logistic.forward(is_train=True)
    logistic.backward()
    close(logistic.grad_dict['x'], (1 / (1 + np.exp(-x)) - y) / 3)
    # MakeLoss: the gradient of the summed loss, scaled
    loss = sym.MakeLoss(
        sym.square(sym.var('x') - sym.var('y')),
        grad_scale=0.5,
        normalization='batch',
    )
    exe = bind_loss(loss, x=x, y=y)
    close(exe.forward(is_train=True)[0], (x - y) ** 2)
    exe.backward(nd.ones((4, 3)) * 7)  # ignored
    close(exe.grad_dict['x'], 0.5 / 4 * 2 * (x - y))
    close(exe.grad_dict['y'], -0.5 / 4 * 2 * (x - y))


def test_block_grad_stops_gradients_in_a_group():
    x, w = sym.var('x'), sym.var('w')
    prediction = sym.FullyConnected(x, w, num_hidden=2, no_bias=True)
    loss = sym.MakeLoss(sym.sum(sym.square(prediction)))
    net = sym.Group([loss, sym.BlockGrad(prediction)])
    v = {
        'x': np.array([[1.0, 2.0]], 'f4'),
        'w': np.array([[0.5, -1.0], [2.0, 1.0]], 'f4'),
    }
    exe = bind_loss(net, **v)
    total, pred = exe.forward(is_train=True)
    close(pred, v['x'] @ v['w'].T)
    close(total, [(np.square(v['x'] @ v['w'].T)).sum()])
    exe.backward()  # ones for both heads; BlockGrad stops
    dp = 2 * (v['x'] @ v['w'].T)
    close(exe.grad_dict['w'], dp.T @ v['x'])
    stopped = bind_loss(sym.BlockGrad(prediction) * 2, **v)
    stopped.forward(is_train=True)
    stopped.backward()
    close(stopped.grad_dict['w'], np.zeros((2, 2)))


# -- memory -------------------------------------------------------------------


def test_peak_memory_is_below_the_sum_of_intermediates(monkeypatch):
    monkeypatch.setattr(GraphProgram, 'track_memory', True)
    data = sym.var('data')
    net = data
    for i in range(6):
        net = sym.tanh(sym.FullyConnected(net, num_hidden=64, name=f'fc{i}'))
    predict = net.simple_bind(mx.cpu(), grad_req='null', data=(32, 64))
    assert predict.peak_bytes == 0
    predict.forward()
    # in prediction only the newest values are alive: a few 32x64 arrays
    assert 0 < predict.peak_bytes <= 3 * 32 * 64 * 4
    assert predict.total_bytes == 12 * 32 * 64 * 4
    train = net.simple_bind(mx.cpu(), data=(32, 64))
    train.forward(is_train=True)
    train.backward()
    # training keeps what backward needs, still less than everything
    assert train.peak_bytes > predict.peak_bytes
    assert train.peak_bytes < train.total_bytes


def test_backward_computes_only_the_gradients_wanted(monkeypatch):
    from dlbook.ops import REGISTRY

    fc = REGISTRY['FullyConnected']
    seen = []
    original = fc.backward

    def spy(self, xp, dy):
        seen.append(self.needs_input_grad)
        return original(self, xp, dy)

    monkeypatch.setattr(fc, 'backward', spy)
    net = two_layer()
    reqs = {
        'fc1_weight': 'write',
        'fc1_bias': 'write',
        'fc2_weight': 'write',
        'fc2_bias': 'null',
    }
    exe = net.simple_bind(mx.cpu(), grad_req=reqs, data=(3, 2))
    values = random_args(exe)
    exe.forward(is_train=True)
    exe.backward()
    # fc2 first: its input leads to fc1's weights; fc1: no data gradient
    assert seen == [(True, True, False), (False, True, True)]
    want = numpy_two_layer_grads(values, np.ones((3, 3), 'f4'))
    close(exe.grad_dict['fc1_weight'], want['fc1_weight'])
    # hybridized: the same question is asked of the traced graph
    seen.clear()
    block = mx.gluon.nn.Dense(2, in_units=3)
    block.initialize()
    block.hybridize()
    with autograd.record():
        y = block(nd.ones((4, 3)))
    y.backward()
    assert seen == [(False, True, True)]
