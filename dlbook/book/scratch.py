"""Linear regression from scratch: the model, the loss and minibatch SGD
that chapter 3 writes by hand, kept here for the later chapters."""

from .. import nd


def linreg(X, w, b):
    """The linear regression model: ``Xw + b``."""
    return nd.dot(X, w) + b


def squared_loss(y_hat, y):
    """Squared loss ``(y_hat - y)^2 / 2``, one value per example.

    ``y`` is reshaped to ``y_hat``'s shape first: a label vector of shape
    ``(n,)`` against predictions of shape ``(n, 1)`` would otherwise
    broadcast to an ``(n, n)`` matrix.
    """
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    """Minibatch stochastic gradient descent, in place.

    ``param[:] = ...`` writes into the existing array, so the model keeps
    using the same (updated) parameters; ``param = ...`` would only
    rebind a local name. The gradient is a sum over the batch, hence the
    division by ``batch_size``.
    """
    for param in params:
        param[:] = param - lr * param.grad / batch_size
