"""Chapter 7 (devices): computing on, initializing on and splitting over
contexts. ``cpu(0)`` and ``cpu(1)`` are distinct devices, so every check
runs without a GPU."""

from .. import gluon
from ..context import cpu
from ..ndarray.ndarray import NDArray
from .compare import as_nd, call, expect_close, matches, rng
from .registry import exercise
from .result import Failure

MOVE = (
    'copy both inputs to ctx first: nd.dot(A.as_in_context(ctx), '
    'B.as_in_context(ctx)).'
)


def _on(array, ctx):
    return as_nd(array).as_in_context(ctx)


def _check_context(got, ctx, what, hint):
    if not isinstance(got, NDArray):
        raise Failure(
            f'{what} is a {type(got).__name__}, expected an NDArray on {ctx}.',
            hint,
        )
    if got.context != ctx:
        raise Failure(f'{what} lives on {got.context}, expected {ctx}.', hint)


@exercise('ch07.matmul_on', hint=MOVE)
def _matmul_on(student):
    """matmul_on(A, B, ctx): nd.dot(A, B) computed on the device ctx."""
    r = rng(701)
    cases = [
        (cpu(0), cpu(1), cpu(1)),
        (cpu(1), cpu(0), cpu(0)),
        (cpu(0), cpu(0), cpu(1)),
        (cpu(1), cpu(1), cpu(1)),
    ]
    for ctx_a, ctx_b, ctx in cases:
        A, B = r.normal(size=(3, 4)), r.normal(size=(4, 2))
        inputs = {
            'A': f'(3, 4) array on {ctx_a}',
            'B': f'(4, 2) array on {ctx_b}',
            'ctx': ctx,
        }

        def hint(err):
            if 'different contexts' in str(err):
                return 'A and B live on different devices; ' + MOVE
            return None

        got = call(
            student,
            _on(A, ctx_a),
            _on(B, ctx_b),
            ctx,
            inputs=inputs,
            hint=hint,
        )
        _check_context(
            got,
            ctx,
            f'the result for A on {ctx_a}, B on {ctx_b} and ctx={ctx}',
            MOVE,
        )

        def diagnose(got, A=A, B=B):
            if matches(got, B.T @ A.T):
                return 'that is (AB) transposed: nd.dot(A, B).'
            return None

        expect_close(
            got,
            A @ B,
            {'A': A, 'B': B},
            rtol=1e-4,
            atol=1e-4,
            diagnose=diagnose,
        )
    return 'correct: the product is computed (and stays) on ctx.'


INIT_ON = (
    'build the network, then net.initialize(ctx=ctx) so that the '
    'parameters are created on that device.'
)


@exercise('ch07.init_on', hint=INIT_ON)
def _init_on(student):
    """make_net(ctx): a Dense(4, in_units=3) network initialized on ctx."""
    for ctx in (cpu(1), cpu(0)):
        net = call(student, ctx, inputs={'ctx': ctx}, hint=INIT_ON)
        if not isinstance(net, gluon.Block):
            raise Failure(
                f'make_net({ctx}) returned a '
                f'{type(net).__name__}, expected a network '
                f'(an nn.Sequential).'
            )
        params = list(net.collect_params().values())
        if not params:
            raise Failure(
                f'the network returned by make_net({ctx}) has no parameters.'
            )
        for param in params:
            try:
                where = param.list_ctx()
            except Exception:  # not initialized at all
                raise Failure(
                    f'{param.name} is not initialized.', INIT_ON
                ) from None
            if list(where) != [ctx]:
                raise Failure(
                    f'make_net({ctx}) created {param.name} on '
                    f'{where}, expected [{ctx}]. Without ctx=, '
                    f'initialize() uses the default device, '
                    f'cpu(0).',
                    INIT_ON,
                )
        X = as_nd(rng(702).normal(size=(2, 3))).as_in_context(ctx)
        out = call(net, X, inputs={'X': f'(2, 3) array on {ctx}'})
        _check_context(out, ctx, 'the output', INIT_ON)
        if out.shape != (2, 4):
            raise Failure(
                f'for an input of shape (2, 3) the output has '
                f'shape {out.shape}, expected (2, 4).'
            )
    return 'correct: the parameters, and so the outputs, live on ctx.'


SPLIT = (
    'slice i is X[i * n : (i + 1) * n] with n = X.shape[0] // '
    'len(ctxs), copied with .as_in_context(ctxs[i]).'
)


@exercise('ch07.split_even', hint=SPLIT)
def _split_even(student):
    """split_even(X, ctxs): equal slices of X along axis 0, one per device."""
    r = rng(703)
    cases = [
        ((4, 3), [cpu(0), cpu(1)]),
        ((6, 2, 2), [cpu(1), cpu(0), cpu(2)]),
        ((3, 5), [cpu(1)]),
    ]
    for shape, ctxs in cases:
        X = r.normal(size=shape)
        inputs = {'X': X, 'ctxs': ctxs}
        got = call(student, as_nd(X), list(ctxs), inputs=inputs, hint=SPLIT)
        if not isinstance(got, (list, tuple)):
            raise Failure(
                f'split_even returned a {type(got).__name__}, '
                f'expected a list of {len(ctxs)} NDArrays.',
                SPLIT,
            )
        if len(got) != len(ctxs):
            raise Failure(
                f'for {len(ctxs)} devices split_even returned '
                f'{len(got)} slices.',
                SPLIT,
            )
        n = shape[0] // len(ctxs)
        for i, (part, ctx) in enumerate(zip(got, ctxs)):
            _check_context(part, ctx, f'slice {i} (ctxs[{i}])', SPLIT)
            expect_close(
                part, X[i * n : (i + 1) * n], inputs, what=f'slice {i}'
            )
    return 'correct: the same result as gluon.utils.split_and_load.'
