"""Autograd misuse: each test names the user's mistake and the exact
message dlbook must give (never a silently wrong gradient)."""

import re

import numpy as np
import pytest

from dlbook import autograd, nd
from dlbook.base import DLBookError

MODIFIED = ("autograd: input {i} ({name!r}) of operator '{op}', an NDArray "
            "of shape {shape} float32 @cpu(0), was modified in place "
            "(x[...] = ..., x += ...) after the operator recorded it; "
            "its gradient needs the old values. Write into a copy (x = x.copy()) or modify it only "
            "after backward().")


def test_assign_inside_record_to_an_input_already_used():
    # Mistake: overwrite an array a recorded op used.  Without the check
    # x.grad is 100 (the new value of a) instead of 3; MXNet 1.9.1 raises
    # "Assigning to NDArrays that are already in a computational graph".
    x = nd.array([1., 2.])
    x.attach_grad()
    a = nd.array([3., 3.])
    with autograd.record():
        y = a * x
        a[:] = 100
    with pytest.raises(DLBookError, match=re.escape(MODIFIED.format(
            i=0, name='lhs', op='broadcast_mul', shape=(2,), old=0,
            new=1))):
        y.backward()


def test_variable_changed_in_place_between_record_and_backward():
    # Mistake: update the variable before calling backward (d(x*x)/dx
    # would be taken at the new value, 20 instead of 2 and 4).
    x = nd.array([1., 2.])
    x.attach_grad()
    with autograd.record():
        y = x * x
    x[:] = 10
    with pytest.raises(DLBookError, match=re.escape(MODIFIED.format(
            i=0, name='lhs', op='broadcast_mul', shape=(2,), old=0,
            new=1))):
        y.backward()


def test_augmented_assignment_counts_as_in_place():
    x = nd.array([1., 2.])
    x.attach_grad()
    w = nd.array([2., 2.])
    with autograd.record():
        y = x * w
    w += 1
    with pytest.raises(DLBookError, match=r"input 1 \('rhs'\) of operator "
                       r"'broadcast_mul'.*after the operator recorded it"):
        y.backward()


def test_in_place_write_the_op_does_not_need_is_allowed():
    # reshape keeps only x's shape for its backward: changing x is harmless.
    x = nd.array([1., 2.])
    x.attach_grad()
    with autograd.record():
        y = x.reshape((2, 1))
    x[:] = 5
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [1., 1.])


def test_write_after_backward_is_allowed():
    x = nd.array([1., 2.])
    x.attach_grad()
    with autograd.record():
        y = x * x
    y.backward()
    x[:] = 10
    np.testing.assert_allclose(x.grad.asnumpy(), [2., 4.])


def test_custom_function_saved_tensor_modified():
    class Square(autograd.Function):
        def forward(self, x):
            self.save_for_backward(x)
            return x * x

        def backward(self, dy):
            x, = self.saved_tensors
            return 2 * x * dy

    x = nd.array([1., 2.])
    x.attach_grad()
    with autograd.record():
        y = Square()(x)
    x[:] = 7
    with pytest.raises(DLBookError, match=r"input 0 of operator 'Function'"):
        y.backward()


def test_grad_of_a_variable_without_attach_grad():
    # MXNet 1.9.1: "Cannot differentiate with respect to the 1-th variable
    # because it does not require gradient."
    x = nd.array([1., 2.])
    x.attach_grad()
    z = nd.array([1., 2.])
    with autograd.record():
        y = x * 2
    with pytest.raises(DLBookError, match=re.escape(
            'Cannot differentiate with respect to the 1-th variable (an '
            'NDArray of shape (2,) float32 @cpu(0)) because it does not '
            'require gradient. Call attach_grad() on it before '
            'autograd.record().')):
        autograd.grad(y, [z])


def test_grad_of_a_variable_the_heads_do_not_depend_on():
    # MXNet 1.9.1: "Cannot differentiate with respect to the 2-th variable
    # because it is unreachable from the outputs."
    x = nd.array([1., 2.])
    x.attach_grad()
    w = nd.array([1., 2.])
    w.attach_grad()
    with autograd.record():
        y = x * 2
    with pytest.raises(DLBookError, match=re.escape(
            'Cannot differentiate with respect to the 2-th variable (an '
            'NDArray of shape (2,) float32 @cpu(0)) because it is '
            'unreachable from the outputs: the heads were not computed from '
            'it inside autograd.record().')):
        autograd.grad(y, [x, w])
