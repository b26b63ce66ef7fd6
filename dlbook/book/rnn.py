"""The recurrent networks of chapter 10 (d2l chapter 8) and their
training loop.

``RNNModelScratch`` (parameters you manage yourself), ``RNNModel`` (a
Gluon ``rnn.RNN``/``LSTM``/``GRU`` layer plus a ``Dense`` output),
``predict_ch8``, ``grad_clipping``, ``train_epoch_ch8`` and
``train_ch8``, trained on the text of ``text_data.py``.
"""
import math
from collections import namedtuple

from .. import autograd, gluon, init, nd
from ..widgets import Accumulator, Animator, Timer
from .scratch import sgd

__all__ = ['RNNModelScratch', 'RNNModel', 'predict_ch8', 'grad_clipping',
           'train_epoch_ch8', 'train_ch8', 'PerplexityResult']


# -- models -----------------------------------------------------------------

class RNNModelScratch:
    """A recurrent network whose parameters you create and update yourself.

    Parameters
    ----------
    vocab_size, num_hiddens : int
    device : Context
        Where the parameters live.
    get_params : callable
        ``get_params(vocab_size, num_hiddens, device)`` returns the list
        of parameter NDArrays, with gradients attached.
    init_state : callable
        ``init_state(batch_size, num_hiddens, device)`` returns the
        initial hidden state, a tuple of NDArrays.
    forward_fn : callable
        ``forward_fn(inputs, state, params)`` returns ``(outputs,
        state)``; ``inputs`` has shape ``(num_steps, batch_size,
        vocab_size)`` (one-hot, time major) and ``outputs`` shape
        ``(num_steps * batch_size, vocab_size)``.
    """

    def __init__(self, vocab_size, num_hiddens, device, get_params,
                 init_state, forward_fn):
        self.vocab_size, self.num_hiddens = vocab_size, num_hiddens
        self.params = get_params(vocab_size, num_hiddens, device)
        self.init_state, self.forward_fn = init_state, forward_fn

    def __call__(self, X, state):
        """Run on token indices ``X`` of shape ``(batch_size, num_steps)``.

        ``X.T`` puts time first; ``one_hot`` turns every index into a
        vector of ``vocab_size`` zeros with a single one.
        """
        X = nd.one_hot(X.T, self.vocab_size)
        return self.forward_fn(X, state, self.params)

    def begin_state(self, batch_size, ctx):
        """The initial hidden state for ``batch_size`` sequences."""
        return self.init_state(batch_size, self.num_hiddens, ctx)

    def __repr__(self):
        name = getattr(self.forward_fn, '__name__', 'forward_fn')
        return (f'RNNModelScratch({name}, vocab_size={self.vocab_size}, '
                f'num_hiddens={self.num_hiddens})')


class RNNModel(gluon.Block):
    """A Gluon recurrent layer followed by a ``Dense`` output layer.

    Parameters
    ----------
    rnn_layer : gluon.rnn.RNN, LSTM or GRU
        Time-major (``layout='TNC'``, the default).
    vocab_size : int

    Examples
    --------
    >>> net = d2l.RNNModel(rnn.LSTM(256), len(vocab))
    >>> net.initialize()
    >>> state = net.begin_state(batch_size=32)
    >>> Y, state = net(X, state)        # Y: (num_steps * 32, len(vocab))
    """

    def __init__(self, rnn_layer, vocab_size, **kwargs):
        super().__init__(**kwargs)
        self.rnn = rnn_layer
        self.vocab_size = vocab_size
        self.dense = gluon.nn.Dense(vocab_size)

    def forward(self, inputs, state):
        X = nd.one_hot(inputs.T, self.vocab_size)
        Y, state = self.rnn(X, state)
        # (num_steps, batch_size, num_hiddens) -> one row per token
        output = self.dense(Y.reshape((-1, Y.shape[-1])))
        return output, state

    def begin_state(self, *args, **kwargs):
        """The layer's initial state (a list: ``[h]``, or ``[h, c]``)."""
        return self.rnn.begin_state(*args, **kwargs)


# -- prediction and training --------------------------------------------------

class PerplexityResult(namedtuple('PerplexityResult',
                                  ['perplexity', 'tokens_per_sec'])):
    """Final numbers of ``train_ch8``: a tuple with a rounded repr.

    The perplexity is shown with one decimal, as d2l prints it; the speed
    is shown in words (``'24543.6 tokens/sec'``) because it changes from
    run to run.
    """

    __slots__ = ()

    def __repr__(self):
        return (f'PerplexityResult(perplexity={self.perplexity:.1f}, '
                f"speed='{self.tokens_per_sec:.1f} tokens/sec')")


def predict_ch8(prefix, num_preds, net, vocab, device):
    """Continue ``prefix`` with ``num_preds`` characters, greedily.

    The prefix is fed in one character at a time only to *warm up* the
    hidden state (its outputs are ignored); then every prediction is the
    most likely next character, and is fed back in as the next input.

    Parameters
    ----------
    prefix : str
    num_preds : int
    net : RNNModelScratch or RNNModel
    vocab : Vocab
    device : Context

    Returns
    -------
    str
        The prefix followed by the predicted characters.
    """
    state = net.begin_state(batch_size=1, ctx=device)
    outputs = [vocab[prefix[0]]]

    def get_input():
        return nd.array([outputs[-1]], ctx=device).reshape((1, 1))

    for y in prefix[1:]:                      # warm-up period
        _, state = net(get_input(), state)
        outputs.append(vocab[y])
    for _ in range(num_preds):                # predict num_preds steps
        y, state = net(get_input(), state)
        outputs.append(int(y.argmax(axis=1).reshape((1,)).asscalar()))
    return ''.join(vocab.idx_to_token[i] for i in outputs)


def _parameter_arrays(net):
    if isinstance(net, gluon.Block):
        return [p.data() for p in net.collect_params().values()
                if p.grad_req != 'null']
    return list(net.params)


def grad_clipping(net, theta):
    """Rescale all gradients together so their joint norm is at most theta.

    With ``g`` the vector of *all* gradients of the model,

    .. math:: \\mathbf{g} \\leftarrow \\min\\left(1,
              \\frac{\\theta}{\\|\\mathbf{g}\\|}\\right) \\mathbf{g}.

    The direction of the update is kept; only a step that would be huge
    (an exploding gradient, common when backpropagating through many
    time steps) is shortened.

    Parameters
    ----------
    net : gluon.Block, or an object with a ``params`` list (scratch model)
    theta : float

    Returns
    -------
    float
        The norm before clipping (d2l returns nothing; this lets you
        watch how often clipping happens).
    """
    params = _parameter_arrays(net)
    norm = math.sqrt(sum(float((p.grad ** 2).sum().asscalar())
                         for p in params))
    if norm > theta:
        for p in params:
            p.grad[:] *= theta / norm
    return norm


def train_epoch_ch8(net, train_iter, loss, updater, device,
                    use_random_iter):
    """Train for one epoch; return ``(perplexity, tokens per second)``.

    With sequential batches the hidden state is carried over from one
    batch to the next, but *detached*: the new batch then starts a new
    computational graph instead of backpropagating into the previous
    (already freed) one. With random batches the state is reset.
    """
    state, timer = None, Timer()
    metric = Accumulator(2)         # sum of losses, number of tokens
    for X, Y in train_iter:
        if state is None or use_random_iter:
            state = net.begin_state(batch_size=X.shape[0], ctx=device)
        else:
            state = [s.detach() for s in state]
        y = Y.T.reshape((-1,))      # time major, as the outputs
        X, y = X.as_in_context(device), y.as_in_context(device)
        with autograd.record():
            y_hat, state = net(X, state)
            l = loss(y_hat, y).mean()
        l.backward()
        grad_clipping(net, 1)
        updater(batch_size=1)       # the loss is already a mean
        metric.add(float(l.asscalar()) * y.size, y.size)
    return math.exp(metric[0] / metric[1]), metric[1] / timer.stop()


def train_ch8(net, train_iter, vocab, lr, num_epochs, device,
              use_random_iter=False):
    """Train a character-level language model, as d2l does.

    A Gluon model is (re)initialized with ``init.Normal(0.01)`` and
    trained with ``Trainer('sgd')``; a scratch model is updated with
    ``sgd(net.params, lr, 1)``. Gradients are clipped to norm 1. The
    perplexity is drawn on a live plot (``dlbook.widgets.Animator``) at
    about 50 points over the run (every 10 epochs for d2l's 500), then
    one line is printed, as in d2l,
    ``perplexity 1.1, 24543.6 tokens/sec on cpu(0)``, followed by the
    model's continuations of ``'time traveller'`` and ``'traveller'``.

    Parameters
    ----------
    net : RNNModelScratch or RNNModel
    train_iter : SeqDataLoader
    vocab : Vocab
    lr : float
    num_epochs : int
    device : Context
    use_random_iter : bool, optional

    Returns
    -------
    PerplexityResult
        ``(perplexity, tokens_per_sec)`` of the last epoch (d2l returns
        nothing).
    """
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    every = max(1, num_epochs // 50)
    # matplotlib warns about an empty x range such as [1, 1]
    xlim = [every, num_epochs] if num_epochs > every else None
    animator = Animator(xlabel='epoch', ylabel='perplexity',
                        legend=['train'], xlim=xlim)
    if isinstance(net, gluon.Block):
        net.initialize(ctx=device, force_reinit=True, init=init.Normal(0.01))
        trainer = gluon.Trainer(net.collect_params(), 'sgd',
                                {'learning_rate': lr})

        def updater(batch_size):
            trainer.step(batch_size)
    else:
        def updater(batch_size):
            sgd(net.params, lr, batch_size)

    def predict(prefix):
        return predict_ch8(prefix, 50, net, vocab, device)

    ppl, speed = float('nan'), 0.0
    for epoch in range(num_epochs):
        ppl, speed = train_epoch_ch8(net, train_iter, loss, updater, device,
                                     use_random_iter)
        if (epoch + 1) % every == 0:
            animator.add(epoch + 1, [ppl])
    animator.finish()
    print(f'perplexity {ppl:.1f}, {speed:.1f} tokens/sec on {device}')
    print(predict('time traveller'))
    print(predict('traveller'))
    return PerplexityResult(ppl, speed)
