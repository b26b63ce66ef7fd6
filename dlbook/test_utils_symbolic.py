"""Graph checks of ``mx.test_utils``, run through the Executor.

``check_symbolic_forward`` / ``check_symbolic_backward`` compare a
symbol's outputs and gradients with expected arrays;
``check_numeric_gradient`` compares its gradients with finite differences
(MXNet's algorithm: the outputs are multiplied by a random projection and
turned into a loss with ``make_loss``); ``check_consistency`` runs one
symbol on several contexts/dtypes and compares them.
``check_numeric_gradient`` and ``numeric_grad`` also accept a plain Python
function of NDArrays, checked with the autograd tape in float64.
``check_speed`` times a symbol's forward (and backward);
``same_symbol_structure`` compares two graphs' operators;
``check_gluon_hybridize_consistency`` runs a Gluon block imperatively and
hybridized and compares outputs and gradients.
"""

import json
import time
import traceback

import numpy as np

from . import autograd, initializer
from . import ndarray as nd
from . import test_utils_compare as tu
from .context import current_context

__all__ = [
    'simple_forward',
    'numeric_grad',
    'check_numeric_gradient',
    'check_symbolic_forward',
    'check_symbolic_backward',
    'check_consistency',
    'check_speed',
    'same_symbol_structure',
    'check_gluon_hybridize_consistency',
]


def _is_symbol(obj):
    from .symbol.symbol import Symbol

    return isinstance(obj, Symbol)


def _sorted_dict(d):
    return dict(sorted(d.items(), key=lambda kv: kv[0]))


def _parse_location(sym, location, ctx, dtype=np.float32):
    """``{argument name: NDArray}`` from a list (in ``list_arguments()``
    order) or dict of arrays."""
    from . import ndarray as nd

    assert isinstance(location, (dict, list, tuple))
    if isinstance(location, dict):
        if set(location) != set(sym.list_arguments()):
            raise ValueError(
                'Symbol arguments and keys of the given location do not '
                f'match.symbol args:{set(sym.list_arguments())}, '
                f'location.keys():{set(location)}'
            )
    else:
        location = dict(zip(sym.list_arguments(), location))
    location = {
        k: nd.array(v, ctx=ctx, dtype=v.dtype if dtype == 'asnumpy' else dtype)
        if isinstance(v, np.ndarray)
        else v
        for k, v in location.items()
    }
    return _sorted_dict(location)


def _parse_aux_states(sym, aux_states, ctx, dtype=np.float32):
    from . import ndarray as nd

    if aux_states is None:
        return None
    names = sym.list_auxiliary_states()
    if isinstance(aux_states, dict):
        if set(aux_states) != set(names):
            raise ValueError(
                'Symbol aux_states names and given aux_states do not match.'
                f'symbol aux_names:{set(names)}, '
                f'aux_states.keys:{set(aux_states)}'
            )
    else:
        aux_states = dict(zip(names, aux_states))
    return {
        k: nd.array(
            v,
            ctx=ctx,
            dtype=np.asarray(v).dtype if dtype == 'asnumpy' else dtype,
        )
        for k, v in aux_states.items()
    }


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Run ``sym`` on NumPy ``inputs`` (by argument name); NumPy
    output(s)."""
    from . import ndarray as nd

    ctx = ctx or current_context()
    exe = sym.bind(ctx, args={k: nd.array(v) for k, v in inputs.items()})
    exe.forward(is_train=is_train)
    outputs = [x.asnumpy() for x in exe.outputs]
    return outputs[0] if len(outputs) == 1 else outputs


def _numeric_grad_fn(f, inputs, eps=1e-4):
    """Central differences of the scalar ``f(*inputs)`` (float64)."""
    inputs = [np.array(x, dtype=np.float64) for x in inputs]
    grads = []
    for x in inputs:
        g = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            keep = x[i]
            x[i] = keep + eps
            up = float(f(*inputs))
            x[i] = keep - eps
            down = float(f(*inputs))
            x[i] = keep
            g[i] = (up - down) / (2 * eps)
        grads.append(g)
    return grads


def numeric_grad(
    executor,
    location,
    aux_states=None,
    eps=1e-4,
    use_forward_train=True,
    dtype=np.float32,
):
    """Finite-difference gradient of the sum of ``executor``'s first output
    with respect to each float array in ``location`` (``{name: numpy
    array}``), as MXNet computes it.

    Also accepts ``numeric_grad(f, [arrays], eps)`` with ``f`` a function
    returning a scalar (central differences in float64).
    """
    from . import ndarray as nd

    if callable(executor) and not hasattr(executor, 'arg_dict'):
        return _numeric_grad_fn(executor, location, eps)
    approx = {k: np.zeros(v.shape, dtype=dtype) for k, v in location.items()}
    for k, v in location.items():
        executor.arg_dict[k][:] = nd.array(v, dtype=dtype)
    for k in location:
        location[k] = np.asarray(location[k], order='C')

    def run():
        if aux_states is not None:
            for key, val in aux_states.items():
                executor.aux_dict[key][:] = val
        executor.forward(is_train=use_forward_train)
        return executor.outputs[0].asnumpy()

    for k, v in location.items():
        if v.dtype.kind != 'f':
            continue
        old = v.copy()
        for i in range(v.size):
            v.ravel()[i] += eps / 2.0
            executor.arg_dict[k][:] = nd.array(v, dtype=dtype)
            f_plus = run()
            v.ravel()[i] -= eps
            executor.arg_dict[k][:] = nd.array(v, dtype=dtype)
            f_minus = run()
            approx[k].ravel()[i] = (f_plus - f_minus).sum() / eps
            v.ravel()[i] = old.ravel()[i]
        executor.arg_dict[k][:] = nd.array(old, dtype=dtype)
    return approx


def check_numeric_gradient(
    sym,
    location,
    aux_states=None,
    numeric_eps=None,
    rtol=None,
    atol=None,
    grad_nodes=None,
    use_forward_train=True,
    ctx=None,
    grad_stype_dict=None,
    dtype=np.float32,
):
    """Check a symbol's gradients against finite differences.

    Parameters
    ----------
    sym : Symbol or callable
        The graph to check.  A Python function of NDArrays returning one
        NDArray is checked through autograd in float64 instead (dlbook's
        extension; ``rtol`` defaults to 1e-5 there).
    location : list or dict of numpy arrays
        Argument values, in ``sym.list_arguments()`` order or by name.
    aux_states : list or dict, optional
    numeric_eps : float, optional
        Finite-difference step (default: 2**-9 for float32, 2**-14 for
        float64).
    rtol, atol : float, optional
    grad_nodes : list or dict, optional
        Arguments to check (a dict gives their ``grad_req``).
    dtype : numpy float type
        dtype of the arrays (float32 by default, as MXNet).
    """
    ctx = ctx or current_context()
    if not _is_symbol(sym):
        return _check_function_gradient(
            sym,
            location,
            numeric_eps=1e-6 if numeric_eps is None else numeric_eps,
            rtol=1e-5 if rtol is None else rtol,
            atol=1e-8 if atol is None else atol,
            ctx=ctx,
        )
    from . import ndarray as nd
    from . import symbol as S

    assert dtype in (np.float16, np.float32, np.float64)
    location = _parse_location(sym, location, ctx, dtype)
    location_npy = {k: v.asnumpy() for k, v in location.items()}
    aux_states = _parse_aux_states(sym, aux_states, ctx, dtype)
    aux_npy = (
        None
        if aux_states is None
        else {k: v.asnumpy() for k, v in aux_states.items()}
    )
    if grad_nodes is None:
        grad_nodes = sym.list_arguments()
        grad_req = {k: 'write' for k in grad_nodes}
    elif isinstance(grad_nodes, (list, tuple)):
        grad_nodes = list(grad_nodes)
        grad_req = {k: 'write' for k in grad_nodes}
    elif isinstance(grad_nodes, dict):
        grad_req = dict(grad_nodes)
        grad_nodes = list(grad_nodes)
    else:
        raise ValueError(
            f'grad_nodes must be a list or dict, got '
            f'{type(grad_nodes).__name__}'
        )
    for name in sym.list_arguments():
        grad_req.setdefault(name, 'null')
    _, out_shape, _ = sym.infer_shape(
        **{k: v.shape for k, v in location.items()}
    )
    proj = S.Variable('__random_proj')
    out = S.make_loss(sym * proj)
    location = dict(location)
    location['__random_proj'] = nd.array(
        np.random.rand(*out_shape[0]) + 0.1, ctx=ctx, dtype=dtype
    )
    grad_req['__random_proj'] = 'write'
    args_grad_npy = {
        k: np.random.normal(0, 0.01, size=location[k].shape)
        for k in list(grad_nodes) + ['__random_proj']
    }
    args_grad = {
        k: nd.array(v, ctx=ctx, dtype=dtype) for k, v in args_grad_npy.items()
    }
    executor = out.bind(
        ctx,
        grad_req=grad_req,
        args=location,
        args_grad=args_grad,
        aux_states=aux_states,
    )
    executor.forward(is_train=True)
    assert len(executor.outputs) == 1
    eps = tu.get_tolerance(
        executor.outputs[0], numeric_eps, tu.default_numeric_eps()
    )
    if dtype in (np.float32, np.float16):
        assert eps >= 1e-5, 'finite differences in float32 need eps >= 1e-5'
    executor.backward()
    symbolic = executor.grad_dict
    numeric = numeric_grad(
        executor,
        location_npy,
        aux_npy,
        eps=eps,
        use_forward_train=use_forward_train,
        dtype=dtype,
    )
    for name in grad_nodes:
        fd, orig, got = numeric[name], args_grad_npy[name], symbolic[name]
        names = (f'NUMERICAL_{name}', f'BACKWARD_{name}')
        if grad_req[name] == 'write':
            tu.assert_almost_equal(fd, got, rtol, atol, names)
        elif grad_req[name] == 'add':
            tu.assert_almost_equal(fd, got.asnumpy() - orig, rtol, atol, names)
        elif grad_req[name] == 'null':
            tu.assert_almost_equal(orig, got, rtol, atol, names)
        else:
            raise ValueError(
                f'Invalid grad_req {grad_req[name]} for argument {name}'
            )


def _check_function_gradient(
    f, location, numeric_eps, rtol, atol, ctx, seed=0
):
    """Autograd gradient of the function ``f`` vs central differences,
    both in float64 with a random cotangent (so transposed or
    mis-broadcast gradients fail)."""
    from . import ndarray as nd

    points = [np.array(tu._as_numpy(x), dtype=np.float64) for x in location]
    cot = None

    def value(*arrays):
        nonlocal cot
        out = f(*[nd.array(a, ctx=ctx, dtype='float64') for a in arrays])
        out = out.asnumpy()
        if cot is None:
            cot = np.random.RandomState(seed).uniform(-1, 1, out.shape)
        return float(np.sum(out * cot))

    value(*points)
    numeric = _numeric_grad_fn(value, points, eps=numeric_eps)
    args = [nd.array(a, ctx=ctx, dtype='float64') for a in points]
    for a in args:
        a.attach_grad()
    with autograd.record():
        out = f(*args)
    out.backward(nd.array(cot, ctx=ctx, dtype='float64'))
    for i, (a, g) in enumerate(zip(args, numeric)):
        tu.assert_almost_equal(
            a.grad.asnumpy(),
            g,
            rtol=rtol,
            atol=atol,
            names=(f'autograd d/dx{i}', f'numeric d/dx{i}'),
        )


def check_symbolic_forward(
    sym,
    location,
    expected,
    rtol=None,
    atol=None,
    aux_states=None,
    ctx=None,
    equal_nan=False,
    dtype=np.float32,
):
    """Assert that ``sym``'s outputs at ``location`` equal ``expected``
    (a list in output order, or a dict by output name); returns the
    outputs."""
    from . import ndarray as nd

    ctx = ctx or current_context()
    location = _parse_location(sym, location, ctx, dtype)
    aux_states = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    grads = {
        k: nd.zeros(
            v.shape, ctx=ctx, dtype=v.dtype if dtype == 'asnumpy' else dtype
        )
        for k, v in location.items()
    }
    executor = sym.bind(
        ctx=ctx, args=location, args_grad=grads, aux_states=aux_states
    )
    executor.forward(is_train=False)
    for name, expect, output in zip(
        sym.list_outputs(), expected, executor.outputs
    ):
        tu.assert_almost_equal(
            expect,
            output,
            rtol,
            atol,
            (f'EXPECTED_{name}', f'FORWARD_{name}'),
            equal_nan=equal_nan,
        )
    return executor.outputs


def check_symbolic_backward(
    sym,
    location,
    out_grads,
    expected,
    rtol=None,
    atol=None,
    aux_states=None,
    grad_req='write',
    ctx=None,
    grad_stypes=None,
    equal_nan=False,
    dtype=np.float32,
):
    """Assert that the gradients of ``sym`` at ``location`` for head
    gradients ``out_grads`` equal ``expected`` (list in argument order or
    dict by name); honours ``grad_req`` ('write', 'add', 'null') and
    returns the gradient arrays."""
    from . import ndarray as nd

    ctx = ctx or current_context()
    location = _parse_location(sym, location, ctx, dtype)
    aux_states = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(sym.list_arguments(), expected))
    # dirty the gradient buffers, so 'add' and 'null' are really tested
    args_grad_npy = {
        k: np.random.normal(size=np.shape(v))
        for k, v in sorted(expected.items())
    }
    args_grad = {
        k: nd.array(
            v,
            ctx=ctx,
            dtype=np.asarray(expected[k]).dtype
            if dtype == 'asnumpy'
            else dtype,
        )
        for k, v in args_grad_npy.items()
    }
    if isinstance(grad_req, str):
        grad_req = {k: grad_req for k in sym.list_arguments()}
    elif isinstance(grad_req, (list, tuple)):
        grad_req = dict(zip(sym.list_arguments(), grad_req))
    executor = sym.bind(
        ctx=ctx,
        args=location,
        args_grad=args_grad,
        aux_states=aux_states,
        grad_req=grad_req,
    )
    executor.forward(is_train=True)

    def as_nd(arr):
        if isinstance(arr, np.ndarray):
            return nd.array(
                arr, ctx=ctx, dtype=arr.dtype if dtype == 'asnumpy' else dtype
            )
        return arr

    if isinstance(out_grads, (list, tuple)):
        out_grads = [as_nd(a) for a in out_grads]
    elif isinstance(out_grads, dict):
        out_grads = [as_nd(out_grads[k]) for k in sym.list_outputs()]
    else:
        assert out_grads is None
    executor.backward(out_grads)
    for name in expected:
        names = (f'EXPECTED_{name}', f'BACKWARD_{name}')
        req = grad_req.get(name, 'write')
        if req == 'write':
            tu.assert_almost_equal(
                expected[name],
                args_grad[name],
                rtol,
                atol,
                names,
                equal_nan=equal_nan,
            )
        elif req == 'add':
            tu.assert_almost_equal(
                expected[name],
                args_grad[name].asnumpy() - args_grad_npy[name],
                rtol,
                atol,
                names,
                equal_nan=equal_nan,
            )
        elif req == 'null':
            tu.assert_almost_equal(
                args_grad_npy[name],
                args_grad[name],
                rtol,
                atol,
                names,
                equal_nan=equal_nan,
            )
        else:
            raise ValueError(f'Invalid grad_req {req} for argument {name}')
    return args_grad


def check_consistency(
    sym,
    ctx_list,
    scale=1.0,
    grad_req='write',
    arg_params=None,
    aux_params=None,
    rtol=None,
    atol=None,
    raise_on_err=True,
    ground_truth=None,
    equal_nan=False,
    use_uniform=False,
    rand_type=np.float64,
):
    """Run ``sym`` under each entry of ``ctx_list`` (``{'ctx': mx.cpu(0),
    '<arg>': shape, 'type_dict': {...}}``) on the same random inputs and
    compare outputs and gradients with the most precise run; returns that
    ground truth (``{name: NDArray}``)."""
    from . import ndarray as nd
    from .symbol.symbol import Symbol

    assert len(ctx_list) > 1
    syms = [sym] * len(ctx_list) if isinstance(sym, Symbol) else list(sym)
    assert len(syms) == len(ctx_list)
    output_names = syms[0].list_outputs()
    arg_names = syms[0].list_arguments()
    exe_list = [
        s.simple_bind(grad_req=grad_req, **ctx)
        for s, ctx in zip(syms, ctx_list)
    ]
    arg_params = {} if arg_params is None else arg_params
    aux_params = {} if aux_params is None else aux_params

    def smaller_dtype(dt1, dt2):
        return (
            dt1
            if dt2 is None or np.dtype(dt1).itemsize < np.dtype(dt2).itemsize
            else dt2
        )

    for n, arr in sorted(exe_list[0].arg_dict.items()):
        if n not in arg_params:
            if use_uniform:
                arg_params[n] = np.random.uniform(
                    -0.92 * scale, 0.92 * scale, size=arr.shape
                ).astype(rand_type)
            else:
                arg_params[n] = np.random.normal(
                    size=arr.shape, scale=scale
                ).astype(rand_type)
    for n in exe_list[0].aux_dict:
        aux_params.setdefault(n, 0)
    for exe in exe_list:
        for name, arr in exe.arg_dict.items():
            arr[:] = arg_params[name]
        for name, arr in exe.aux_dict.items():
            arr[:] = aux_params[name]
        if grad_req == 'add':
            for arr in exe.grad_arrays:
                if arr is not None:
                    arr[:] = 0
    # dlbook's executors make their outputs in forward (MXNet's exist
    # from bind), so the ground truth is read after each phase
    for exe in exe_list:
        exe.forward(is_train=False)
    dtypes = [np.dtype(exe.outputs[0].dtype) for exe in exe_list]
    gt_idx = int(np.argmax([d.itemsize for d in dtypes]))
    given = ground_truth
    gt = (
        dict(given)
        if given is not None
        else dict(exe_list[gt_idx].output_dict)
    )

    def compare(arr, gtarr, what, i, rt=rtol, at=atol):
        try:
            tu.assert_almost_equal(
                arr, gtarr, rtol=rt, atol=at, equal_nan=equal_nan
            )
        except AssertionError as e:
            print(f'{what} Err: ctx {i} vs ctx {gt_idx}')
            traceback.print_exc()
            if raise_on_err:
                raise e
            print(str(e))

    for i, exe in enumerate(exe_list):
        if i != gt_idx:
            for name, arr in zip(output_names, exe.outputs):
                compare(arr, gt[name], 'Predict', i)
    if grad_req != 'null':
        for exe in exe_list:
            exe.forward(is_train=True)
        least = [out.dtype for out in exe_list[0].outputs]
        for exe in exe_list:
            least = [
                smaller_dtype(o.dtype, d) for o, d in zip(exe.outputs, least)
            ]
        golden = [
            out.astype(d).asnumpy()
            for out, d in zip(exe_list[0].outputs, least)
        ]
        for exe in exe_list:
            exe.backward(
                [
                    nd.array(g, ctx=exe._ctx, dtype=out.dtype)
                    for g, out in zip(golden, exe.outputs)
                ]
            )
        if given is None:
            gt = dict(exe_list[gt_idx].output_dict)
            gt.update(exe_list[gt_idx].grad_dict)
        for i, exe in enumerate(exe_list):
            if i == gt_idx:
                continue
            grads = [exe.grad_dict.get(n) for n in arg_names]
            for name, arr in zip(
                output_names + arg_names, list(exe.outputs) + grads
            ):
                if gt.get(name) is None:
                    assert arr is None
                    continue
                rt, at = rtol, atol
                small_arr = smaller_dtype(arr.dtype, dtypes[i])
                small_gt = smaller_dtype(gt[name].dtype, dtypes[gt_idx])
                if small_arr != arr.dtype or small_gt != gt[name].dtype:
                    rt, at = tu.get_tols(
                        arr.astype(small_arr),
                        gt[name].astype(small_gt),
                        rtol,
                        atol,
                    )
                compare(arr, gt[name], 'Train', i, rt, at)
    return gt


def check_speed(
    sym, location=None, ctx=None, N=20, grad_req=None, typ='whole', **kwargs
):
    """Seconds per run of ``sym``, averaged over ``N`` runs after one
    warm-up.

    Parameters
    ----------
    sym : Symbol
    location : dict of str to numpy.ndarray, optional
        Input values (default: standard normal, shapes from ``kwargs``).
    ctx : Context, optional
        Default: the current context.
    N : int, default 20
    grad_req : str or dict, default 'write'
    typ : {'whole', 'forward'}
        ``'whole'``: forward and backward (the outputs as their own
        head gradients); ``'forward'``: inference only.
    **kwargs
        Input shapes, when ``location`` is not given (``data=(32, 10)``).

    Examples
    --------
    >>> t = check_speed(net, data=(32, 100), typ='forward')  # doctest: +SKIP
    """
    if ctx is None:
        ctx = current_context()
    if grad_req is None:
        grad_req = 'write'
    if location is None:
        exe = sym.simple_bind(grad_req=grad_req, ctx=ctx, **kwargs)
        location = {
            k: np.random.normal(size=arr.shape, scale=1.0)
            for k, arr in exe.arg_dict.items()
        }
    else:
        if not isinstance(location, dict):
            raise TypeError(f'Expect dict, get "location"={location}')
        exe = sym.simple_bind(
            grad_req=grad_req,
            ctx=ctx,
            **{k: v.shape for k, v in location.items()},
        )
    for name, iarr in location.items():
        exe.arg_dict[name][:] = iarr.astype(exe.arg_dict[name].dtype)
    if typ == 'whole':
        is_train, run_backward = True, True
    elif typ == 'forward':
        is_train, run_backward = False, False
    else:
        raise ValueError('typ can only be "whole" or "forward".')

    def run():
        exe.forward(is_train=is_train)
        if run_backward:
            exe.backward(out_grads=exe.outputs)

    run()  # warm-up
    for output in exe.outputs:
        output.wait_to_read()
    tic = time.time()
    for _ in range(N):
        run()
    nd.waitall()
    return (time.time() - tic) / N


def same_symbol_structure(sym1, sym2):
    """Whether the two graphs have the same operator at each node index
    (names and attributes are not compared; nodes past the shorter graph
    are not either, as in MXNet)."""
    nodes1 = json.loads(sym1.tojson())['nodes']
    nodes2 = json.loads(sym2.tojson())['nodes']
    return all(n1['op'] == n2['op'] for n1, n2 in zip(nodes1, nodes2))


class _NumpyParamDictInit(initializer.Initializer):
    """Sets each weight from a dict of NumPy arrays (by parameter name)."""

    def __init__(self, np_params):
        super().__init__()
        self._np_params = np_params

    def _init_weight(self, name, arr):
        arr[()] = self._np_params[name]


def check_gluon_hybridize_consistency(
    net_builder, data_l, numpy_func=None, test_grad=True, rtol=1e-4, atol=1e-4
):
    """Check that a HybridBlock gives the same outputs (and input
    gradients) run imperatively and hybridized.

    The block is built four times (``net_builder(prefix='net_')``):
    imperative and hybridized, each without and with autograd; the first
    build's weights are copied into the others.  The network must not be
    random (no Dropout in training mode).

    Parameters
    ----------
    net_builder : function
        ``net_builder(prefix=...)`` -> a new HybridBlock.
    data_l : list of NDArray
        The inputs.
    numpy_func : function, optional
        Also compare the output with ``numpy_func(*inputs as NumPy)``.
    test_grad : bool, default True
        Also compare the gradients of the inputs (backward from the
        output itself).
    rtol, atol : float, default 1e-4
    """
    saved_out_np = None
    saved_grad_np_l = None
    params_init = None
    use_autograd_flags = [False, True] if test_grad else [False]
    for hybridize in [False, True]:
        for use_autograd in use_autograd_flags:
            net = net_builder(prefix='net_')
            if params_init is None:
                net.initialize()
            else:
                net.initialize(params_init)
            if hybridize:
                net.hybridize()
            in_data_l = [ele.copy() for ele in data_l]
            if use_autograd:
                for ele in in_data_l:
                    ele.attach_grad()
                with autograd.record():
                    out = net(*in_data_l)
                out.backward(out)
            else:
                out = net(*in_data_l)
            if params_init is None:
                params_init = _NumpyParamDictInit(
                    {
                        k: v.data().asnumpy()
                        for k, v in net.collect_params().items()
                    }
                )
            if saved_out_np is None:
                saved_out_np = out.asnumpy()
            else:
                tu.assert_almost_equal(
                    out.asnumpy(), saved_out_np, rtol=rtol, atol=atol
                )
            if use_autograd:
                if saved_grad_np_l is None:
                    saved_grad_np_l = [ele.grad.asnumpy() for ele in in_data_l]
                else:
                    for data, saved_grad_np in zip(in_data_l, saved_grad_np_l):
                        tu.assert_almost_equal(
                            data.grad.asnumpy(),
                            saved_grad_np,
                            rtol=rtol,
                            atol=atol,
                        )
    if numpy_func is not None:
        numpy_out = numpy_func(*[ele.asnumpy() for ele in data_l])
        tu.assert_almost_equal(saved_out_np, numpy_out, rtol=rtol, atol=atol)
