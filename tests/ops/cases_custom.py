"""Rows for ``Custom`` (dlbook/operator.py): a Python operator written
with ``mx.operator`` (y = x ** 3 + b, two arguments), so the table checks
the Custom node's forward, gradient and dtype handling like any other."""

import dlbook as mx
from tests.ops.cases import Case


class _CubePlus(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] ** 3 + in_data[1])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], 3 * in_data[0] ** 2 * out_grad[0])
        self.assign(in_grad[1], req[1], out_grad[0])


@mx.operator.register('case_cube_plus')
class _CubePlusProp(mx.operator.CustomOpProp):
    def list_arguments(self):
        return ['x', 'b']

    def create_operator(self, ctx, shapes, dtypes):
        return _CubePlus()


CASES = {
    'Custom': Case(
        [(2, 3), (2, 3)],
        attrs={'op_type': 'case_cube_plus'},
        ref=lambda x, b: x**3 + b,
    ),
}
