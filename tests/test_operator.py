"""mx.operator: Python operators (CustomOp / CustomOpProp) run by
nd.Custom, under autograd, in symbol executors and hybridized blocks.

Expected values were recorded with MXNet 1.9.1 running the same code
(MXNet's tutorial softmax and a two-output operator with an aux state).
"""

import json

import numpy as np
import pytest

import dlbook as mx


class Softmax(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        y = np.exp(x - x.max(axis=1).reshape((x.shape[0], 1)))
        y /= y.sum(axis=1).reshape((x.shape[0], 1))
        self.assign(out_data[0], req[0], mx.nd.array(y))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        CALLS.append(('backward', list(req), [o.shape for o in out_grad]))
        lab = in_data[1].asnumpy().ravel().astype(int)
        y = out_data[0].asnumpy()
        y[np.arange(lab.shape[0]), lab] -= 1.0
        self.assign(in_grad[0], req[0], mx.nd.array(y))


CALLS = []


@mx.operator.register('test_softmax')
class SoftmaxProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ['data', 'label']

    def list_outputs(self):
        return ['output']

    def infer_shape(self, in_shape):
        CALLS.append(('infer_shape', in_shape))
        return [in_shape[0], (in_shape[0][0],)], [in_shape[0]], []

    def infer_type(self, in_type):
        return in_type, [in_type[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        CALLS.append(('create', ctx, shapes, dtypes))
        return Softmax()


class Mul2(mx.operator.CustomOp):
    """prod = a * b * scale, square = a ** 2; counts training calls."""

    def __init__(self, scale):
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        CALLS.append(
            ('forward', is_train, list(req), mx.autograd.is_recording())
        )
        self.assign(out_data[0], req[0], in_data[0] * in_data[1] * self.scale)
        self.assign(out_data[1], req[1], in_data[0] ** 2)
        if is_train:
            aux[0][:] += 1

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, b = in_data
        self.assign(
            in_grad[0],
            req[0],
            out_grad[0] * b * self.scale + out_grad[1] * 2 * a,
        )
        self.assign(in_grad[1], req[1], out_grad[0] * a * self.scale)


@mx.operator.register('test_mul2')
class Mul2Prop(mx.operator.CustomOpProp):
    def __init__(self, scale=1.0):
        super().__init__(need_top_grad=True)
        CALLS.append(('prop', scale))
        self.scale = float(scale)

    def list_arguments(self):
        return ['a', 'b']

    def list_outputs(self):
        return ['prod', 'square']

    def list_auxiliary_states(self):
        return ['count']

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0], in_shape[0]], [(1,)]

    def create_operator(self, ctx, shapes, dtypes):
        return Mul2(self.scale)


X = [[1, 2, 3], [0.5, -1, 2]]
LABEL = [2, 0]
# MXNet 1.9.1 gives these for the tutorial softmax
SOFTMAX = [
    [0.09003057, 0.24472846, 0.66524094],
    [0.17529038, 0.03911257, 0.785597],
]
SOFTMAX_GRAD = [
    [0.09003057, 0.24472846, -0.33475906],
    [-0.82470965, 0.03911257, 0.785597],
]


def test_tutorial_softmax_forward_and_autograd():
    CALLS.clear()
    x, lab = mx.nd.array(X), mx.nd.array(LABEL)
    y = mx.nd.Custom(x, lab, op_type='test_softmax')
    np.testing.assert_allclose(y.asnumpy(), SOFTMAX, rtol=1e-6)
    # MXNet 1.9.1 asks infer_shape with lists, then create_operator with
    # the context, shapes and dtype flags (0 = float32)
    assert CALLS[0] == ('infer_shape', [[2, 3], [2]])
    assert CALLS[1] == ('create', mx.cpu(0), [[2, 3], [2]], [0, 0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, lab, op_type='test_softmax')
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), SOFTMAX_GRAD, rtol=1e-6)
    # MXNet 1.9.1: the label needs no gradient ('null'); without
    # need_top_grad the out_grad is an empty placeholder of shape ()
    assert CALLS[-1] == ('backward', ['write', 'null'], [()])


def test_tutorial_softmax_symbol_and_executor():
    data = mx.sym.var('data')
    s = mx.sym.Custom(data=data, op_type='test_softmax', name='softmax')
    # MXNet 1.9.1: ['data', 'softmax_label'] ['softmax_output'] []
    assert s.list_arguments() == ['data', 'softmax_label']
    assert s.list_outputs() == ['softmax_output']
    assert s.list_auxiliary_states() == []
    assert s.infer_shape(data=(2, 3)) == ([(2, 3), (2,)], [(2, 3)], [])
    exe = s.simple_bind(mx.cpu(), data=(2, 3))
    exe.arg_dict['data'][:] = mx.nd.array(X)
    exe.arg_dict['softmax_label'][:] = mx.nd.array(LABEL)
    exe.forward(is_train=True)
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), SOFTMAX, rtol=1e-6)
    CALLS.clear()
    exe.backward()
    np.testing.assert_allclose(
        exe.grad_dict['data'].asnumpy(), SOFTMAX_GRAD, rtol=1e-6
    )
    # MXNet 1.9.1: req ['write', 'write'] in an executor; the label's
    # gradient stays zero
    assert CALLS[-1] == ('backward', ['write', 'write'], [()])
    assert exe.grad_dict['softmax_label'].asnumpy().tolist() == [0, 0]


def test_json_round_trip_keeps_the_custom_node():
    s = mx.sym.Custom(
        data=mx.sym.var('data'), op_type='test_softmax', name='softmax'
    )
    graph = json.loads(s.tojson())
    # MXNet 1.9.1 writes the op_type on the node and, oddly, on the
    # automatic label variable too
    assert graph['nodes'][1] == {
        'op': 'null',
        'name': 'softmax_label',
        'attrs': {'op_type': 'test_softmax'},
        'inputs': [],
    }
    assert graph['nodes'][2] == {
        'op': 'Custom',
        'name': 'softmax',
        'attrs': {'op_type': 'test_softmax'},
        'inputs': [[0, 0, 0], [1, 0, 0]],
    }
    back = mx.sym.load_json(s.tojson())
    assert back.tojson() == s.tojson()
    exe = back.bind(
        mx.cpu(), {'data': mx.nd.array(X), 'softmax_label': mx.nd.array(LABEL)}
    )
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), SOFTMAX, rtol=1e-6)


def test_hybridized_block_runs_custom_op():
    class Net(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x, lab):
            return F.Custom(x, lab, op_type='test_softmax')

    net = Net()
    net.hybridize()
    x, lab = mx.nd.array(X), mx.nd.array(LABEL)
    x.attach_grad()
    with mx.autograd.record():
        z = net(x, lab)
    z.backward()
    np.testing.assert_allclose(z.asnumpy(), SOFTMAX, rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), SOFTMAX_GRAD, rtol=1e-6)


def test_two_outputs_aux_state_and_string_kwargs():
    CALLS.clear()
    a, b = mx.nd.array([1.0, 2.0, 3.0]), mx.nd.array([4.0, 5.0, 6.0])
    count = mx.nd.zeros((1,))
    a.attach_grad()
    b.attach_grad(grad_req='add')
    with mx.autograd.record():
        p, q = mx.nd.Custom(a, b, count, op_type='test_mul2', scale=2)
        loss = (p * mx.nd.array([1.0, 1.0, 2.0])).sum() + q.sum()
    loss.backward()
    # MXNet 1.9.1: the keyword reaches the property as the string '2';
    # forward sees is_train=1 and recording paused
    assert CALLS[0] == ('prop', '2')
    assert CALLS[1] == ('forward', 1, ['write', 'write'], False)
    assert p.asnumpy().tolist() == [8.0, 20.0, 36.0]
    assert q.asnumpy().tolist() == [1.0, 4.0, 9.0]
    assert count.asnumpy().tolist() == [1.0]
    assert a.grad.asnumpy().tolist() == [10.0, 14.0, 30.0]
    assert b.grad.asnumpy().tolist() == [2.0, 4.0, 12.0]
    out = mx.nd.Custom(a, b, count, op_type='test_mul2', scale=2)
    assert isinstance(out, list) and len(out) == 2
    assert count.asnumpy().tolist() == [1.0]  # not training


def test_two_outputs_in_an_executor_with_add_request():
    s = mx.sym.Custom(mx.sym.var('x'), op_type='test_mul2', scale=3, name='m')
    # MXNet 1.9.1 names
    assert s.list_arguments() == ['x', 'm_b']
    assert s.list_outputs() == ['m_prod', 'm_square']
    assert s.list_auxiliary_states() == ['m_count']
    assert json.loads(s.tojson())['nodes'][2]['attrs'] == {
        'op_type': 'test_mul2',
        'scale': '3',
    }
    # MXNet 1.9.1: ([(), ()], [(), ()], [(1,)])
    assert s.infer_shape_partial() == ([(), ()], [(), ()], [(1,)])
    exe = s.simple_bind(
        mx.cpu(), x=(3,), m_b=(3,), grad_req={'x': 'write', 'm_b': 'add'}
    )
    exe.arg_dict['x'][:] = mx.nd.array([1.0, 2.0, 3.0])
    exe.arg_dict['m_b'][:] = mx.nd.array([4.0, 5.0, 6.0])
    exe.grad_dict['m_b'][:] = 1
    exe.forward(is_train=True)
    assert [o.asnumpy().tolist() for o in exe.outputs] == [
        [12.0, 30.0, 54.0],
        [1.0, 4.0, 9.0],
    ]
    assert exe.aux_dict['m_count'].asnumpy().tolist() == [1.0]
    exe.backward([mx.nd.ones((3,)), mx.nd.array([1.0, 0.0, 1.0])])
    # MXNet 1.9.1: gx [14, 15, 24], gb 1 + [3, 6, 9]
    assert exe.grad_dict['x'].asnumpy().tolist() == [14.0, 15.0, 24.0]
    assert exe.grad_dict['m_b'].asnumpy().tolist() == [4.0, 7.0, 10.0]
    exe.forward(is_train=False)
    assert exe.aux_dict['m_count'].asnumpy().tolist() == [1.0]


def test_assign_requests():
    op = mx.operator.CustomOp()
    dst = mx.nd.ones((2,))
    op.assign(dst, 'add', mx.nd.array([1.0, 2.0]))
    assert dst.asnumpy().tolist() == [2.0, 3.0]
    op.assign(dst, 'inplace', mx.nd.array([5.0, 6.0]))
    assert dst.asnumpy().tolist() == [5.0, 6.0]
    op.assign(dst, 'null', mx.nd.array([0.0, 0.0]))
    assert dst.asnumpy().tolist() == [5.0, 6.0]


def test_declare_backward_dependency_drops_unneeded_arrays():
    seen = {}

    class Square(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] ** 2)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            seen['out_data'] = out_data[0].shape
            self.assign(in_grad[0], req[0], 2 * in_data[0] * out_grad[0])

    @mx.operator.register('test_square')
    class SquareProp(mx.operator.CustomOpProp):
        def declare_backward_dependency(self, out_grad, in_data, out_data):
            return out_grad + in_data

        def create_operator(self, ctx, shapes, dtypes):
            return Square()

    x = mx.nd.array([1.0, -2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type='test_square')
    y.backward(mx.nd.array([1.0, 10.0]))
    assert x.grad.asnumpy().tolist() == [2.0, -40.0]
    assert seen['out_data'] == ()


def test_unknown_op_type_is_an_error():
    # MXNet 1.9.1: "Cannot find custom operator nonexistent"
    with pytest.raises(
        mx.MXNetError, match='Cannot find custom operator nonexistent'
    ):
        mx.nd.Custom(mx.nd.ones((2,)), op_type='nonexistent')


def test_registered_operator_names():
    names = mx.operator.get_all_registered_operators()
    assert 'Custom' in names and 'Activation' in names
