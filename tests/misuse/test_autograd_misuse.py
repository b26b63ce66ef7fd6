"""Autograd misuse: each test names the user's mistake and the exact
message dlbook must give (never a silently wrong gradient)."""

import re

import numpy as np
import pytest

from dlbook import autograd, nd
from dlbook.base import DLBookError

MODIFIED = (
    "autograd: input {i} ({name!r}) of operator '{op}', an NDArray "
    "of shape {shape} float32 @cpu(0), was modified in place "
    "(x[...] = ..., x += ...) after the operator recorded it; "
    "its gradient needs the old values. Write into a copy (x = x.copy()) or modify it only "
    "after backward()."
)


IN_GRAPH = (
    'Assigning to NDArrays that are already in a computational graph will '
    'cause undefined behavior when evaluating gradients: this NDArray of '
    'shape (2,) float32 @cpu(0) is {what}. Please call backward first to '
    'clear the graph, do this outside of a record section, or write into '
    'a copy (x = x.copy()). Also note that you cannot use inplace '
    'operations like +=, *=, relu(x, out=x), y[idx]=x, etc inside a record '
    'section.'
)


@pytest.mark.parametrize(
    'write',
    [
        lambda a: a.__setitem__(slice(None), 100),
        lambda a: a.__setitem__(0, 100),
        lambda a: a.__iadd__(1),
        lambda a: nd.array([7.0, 7.0]).copyto(a),
        lambda a: nd.relu(a, out=a),
    ],
    ids=['a[:]=', 'a[0]=', 'a+=', 'copyto(a)', 'relu(a,out=a)'],
)
def test_assign_inside_record_to_an_input_already_used(write):
    # Mistake: overwrite, inside record(), an array a recorded op used.
    # MXNet 1.9.1 raises at the write: "Assigning to NDArrays that are
    # already in a computational graph will cause undefined behavior ..."
    # (without a check x.grad would be 100 instead of 3).
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    a = nd.array([3.0, 3.0])
    with autograd.record():
        y = a * x
        with pytest.raises(
            DLBookError,
            match=re.escape(
                IN_GRAPH.format(what="an input of operator 'broadcast_mul'")
            ),
        ):
            write(a)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [3.0, 3.0])


def test_assign_inside_record_to_a_variable():
    # MXNet 1.9.1 raises even when the variable was not used yet.
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        with pytest.raises(
            DLBookError,
            match=re.escape(
                IN_GRAPH.format(
                    what='a variable (attach_grad() was called on it)'
                )
            ),
        ):
            x[:] = 100


def test_assign_inside_record_to_an_output():
    # MXNet 1.9.1 raises for y += 1 on a recorded output, even when the
    # operator does not need y for its gradient.
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * 2
        with pytest.raises(
            DLBookError,
            match=re.escape(
                IN_GRAPH.format(what="the output of operator '_mul_scalar'")
            ),
        ):
            y += 1


def test_assign_inside_record_after_backward_is_allowed():
    # MXNet 1.9.1: backward frees the graph, so its input and output
    # arrays may be written again in the same record() block.
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    a = nd.array([3.0, 3.0])
    with autograd.record():
        y = a * x
        y.backward()
        a[:] = 100
        y[:] = 0
    np.testing.assert_allclose(x.grad.asnumpy(), [3.0, 3.0])


def test_assign_inside_record_to_an_array_no_recorded_op_used():
    # MXNet 1.9.1: an op with no input that needs a gradient is not
    # recorded, so its inputs and outputs stay writable.
    a = nd.array([3.0, 3.0])
    with autograd.record():
        y = a * 2
        a[:] = 1
        y[:] = 1
    np.testing.assert_allclose(y.asnumpy(), [1.0, 1.0])


def test_assign_after_record_to_an_input_is_caught_at_backward():
    # Outside record() MXNet 1.9.1 accepts the write and silently gives
    # x.grad == [100, 100]; dlbook raises at backward instead.
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    a = nd.array([3.0, 3.0])
    with autograd.record():
        y = a * x
    a[:] = 100
    with pytest.raises(
        DLBookError,
        match=re.escape(
            MODIFIED.format(i=0, name='lhs', op='broadcast_mul', shape=(2,))
        ),
    ):
        y.backward()


OUTPUT_MODIFIED = (
    "autograd: output 0 of operator '{op}', an NDArray of shape (2,) "
    "float32 @cpu(0), was modified in place (y[...] = ..., y += ...) after "
    "the operator recorded it; its gradient needs the output it computed. "
    "Modify a copy (y = y.copy()) or modify it only after backward()."
)


@pytest.mark.parametrize('op', ['exp', 'sigmoid', 'tanh', 'sqrt'])
def test_output_the_op_saved_changed_in_place_after_record(op):
    # Mistake: y = exp(x), then y += 1 before backward.  exp's gradient is
    # y * dy from the saved output: MXNet 1.9.1 silently gives
    # x.grad == exp(x) + 1 ([3.718282, 8.389056]); dlbook raises.
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = getattr(nd, op)(x)
    y += 1
    with pytest.raises(
        DLBookError, match=re.escape(OUTPUT_MODIFIED.format(op=op))
    ):
        y.backward()


def test_output_changed_in_place_then_backward_through_a_later_op():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = nd.exp(x)
        z = (y * 3).sum()
    y[:] = 0
    # y is an input of y * 3 (which needs only the scalar) and the
    # output of exp (which needs y): exp's check names the output
    with pytest.raises(
        DLBookError, match=re.escape(OUTPUT_MODIFIED.format(op='exp'))
    ):
        z.backward()


def test_output_the_op_does_not_need_may_change():
    # x * 2 keeps no output for its gradient: MXNet 1.9.1 and dlbook
    # give x.grad == [2, 2].
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * 2
    y += 1
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [2.0, 2.0])


def test_custom_function_saved_output_modified():
    class Exp(autograd.Function):
        def forward(self, x):
            y = nd.exp(x)
            self.save_for_backward(y)
            return y

        def backward(self, dy):
            (y,) = self.saved_tensors
            return y * dy

    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = Exp()(x)
    y[:] = 0
    with pytest.raises(
        DLBookError, match=re.escape(OUTPUT_MODIFIED.format(op='Function'))
    ):
        y.backward()


def test_variable_changed_in_place_between_record_and_backward():
    # Mistake: update the variable before calling backward (d(x*x)/dx
    # would be taken at the new value, 20 instead of 2 and 4).
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * x
    x[:] = 10
    with pytest.raises(
        DLBookError,
        match=re.escape(
            MODIFIED.format(i=0, name='lhs', op='broadcast_mul', shape=(2,))
        ),
    ):
        y.backward()


def test_augmented_assignment_counts_as_in_place():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    w = nd.array([2.0, 2.0])
    with autograd.record():
        y = x * w
    w += 1
    with pytest.raises(
        DLBookError,
        match=r"input 1 \('rhs'\) of operator "
        r"'broadcast_mul'.*after the operator recorded it",
    ):
        y.backward()


def test_in_place_write_the_op_does_not_need_is_allowed():
    # reshape keeps only x's shape for its backward: changing x is harmless.
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x.reshape((2, 1))
    x[:] = 5
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [1.0, 1.0])


def test_write_after_backward_is_allowed():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * x
    y.backward()
    x[:] = 10
    np.testing.assert_allclose(x.grad.asnumpy(), [2.0, 4.0])


def test_custom_function_saved_tensor_modified():
    class Square(autograd.Function):
        def forward(self, x):
            self.save_for_backward(x)
            return x * x

        def backward(self, dy):
            (x,) = self.saved_tensors
            return 2 * x * dy

    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = Square()(x)
    x[:] = 7
    with pytest.raises(DLBookError, match=r"input 0 of operator 'Function'"):
        y.backward()


def test_grad_of_a_variable_without_attach_grad():
    # MXNet 1.9.1: "Cannot differentiate with respect to the 1-th variable
    # because it does not require gradient."
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    z = nd.array([1.0, 2.0])
    with autograd.record():
        y = x * 2
    with pytest.raises(
        DLBookError,
        match=re.escape(
            'Cannot differentiate with respect to the 1-th variable (an '
            'NDArray of shape (2,) float32 @cpu(0)) because it does not '
            'require gradient. Call attach_grad() on it before '
            'autograd.record().'
        ),
    ):
        autograd.grad(y, [z])


def test_grad_of_a_variable_the_heads_do_not_depend_on():
    # MXNet 1.9.1: "Cannot differentiate with respect to the 2-th variable
    # because it is unreachable from the outputs."
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    w = nd.array([1.0, 2.0])
    w.attach_grad()
    with autograd.record():
        y = x * 2
    with pytest.raises(
        DLBookError,
        match=re.escape(
            'Cannot differentiate with respect to the 2-th variable (an '
            'NDArray of shape (2,) float32 @cpu(0)) because it is '
            'unreachable from the outputs: the heads were not computed from '
            'it inside autograd.record().'
        ),
    ):
        autograd.grad(y, [x, w])
