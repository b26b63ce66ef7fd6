"""Every check of chapters 1-5 passes the reference solution and explains
the typical mistakes."""

import pytest

from dlbook import autograd, nd
from dlbook.exercises import (
    CheckResult,
    check,
    exercise,
    list_exercises,
    run_check,
)

# -- reference solutions and typical mistakes --------------------------------


def row_normalize(X):
    return X / X.sum(axis=1, keepdims=True)


def pairwise_sq_dist(A, B):
    return ((A.expand_dims(1) - B.expand_dims(0)) ** 2).sum(axis=2)


def grad_2xTx(x):
    x.attach_grad()
    with autograd.record():
        y = 2 * nd.dot(x, x)
    y.backward()
    return x.grad


def sin_grad(x):
    x.attach_grad()
    with autograd.record():
        y = x.sin()
    y.backward()
    return x.grad


def linreg(X, w, b):
    return nd.dot(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    for param in params:
        param[:] = param - lr * param.grad / batch_size


def softmax(X):
    X_exp = X.exp()
    return X_exp / X_exp.sum(axis=1, keepdims=True)


def stable_softmax(X):
    X_exp = (X - X.max(axis=1, keepdims=True)).exp()
    return X_exp / X_exp.sum(axis=1, keepdims=True)


def cross_entropy(y_hat, y):
    return -nd.pick(y_hat, y).log()


def accuracy(y_hat, y):
    cmp = y_hat.argmax(axis=1).astype(y.dtype) == y
    return float(cmp.sum().asscalar())


def relu(X):
    return nd.maximum(X, 0)


def dropout_layer(X, dropout):
    if dropout == 1:
        return X.zeros_like()
    mask = nd.random.uniform(0, 1, X.shape) > dropout
    return mask * X / (1.0 - dropout)


def l2_penalty(w):
    return (w**2).sum() / 2


REFERENCES = {
    'ch01.row_normalize': row_normalize,
    'ch01.pairwise_sq_dist': pairwise_sq_dist,
    'ch02.grad_2xTx': grad_2xTx,
    'ch02.sin_grad': sin_grad,
    'ch03.linreg': linreg,
    'ch03.squared_loss': squared_loss,
    'ch03.sgd': sgd,
    'ch04.softmax': softmax,
    'ch04.cross_entropy': cross_entropy,
    'ch04.accuracy': accuracy,
    'ch05.relu': relu,
    'ch05.dropout_layer': dropout_layer,
    'ch05.l2_penalty': l2_penalty,
}


@pytest.mark.parametrize('exercise_id', sorted(REFERENCES))
def test_reference_solution_passes(exercise_id, capsys):
    result = check(exercise_id, REFERENCES[exercise_id])
    out = capsys.readouterr().out
    assert result, out
    assert out.startswith(f'\u2713 {exercise_id}: ')
    assert repr(result) == f"CheckResult('{exercise_id}', passed=True)"


def test_every_chapter_exercise_has_a_reference():
    mine = [
        e
        for e in list_exercises()
        if e[:4] in ('ch01', 'ch02', 'ch03', 'ch04', 'ch05')
    ]
    assert sorted(mine) == sorted(REFERENCES)
    assert list_exercises('ch04') == [
        'ch04.accuracy',
        'ch04.cross_entropy',
        'ch04.softmax',
    ]


def failed(exercise_id, answer, **kw):
    """Run a check that must fail; return its printed feedback."""
    result = run_check(exercise_id, answer, **kw)
    assert not result, result.report()
    assert repr(result) == f"CheckResult('{exercise_id}', passed=False)"
    return result.report()


# -- wrong axis, missing keepdims, wrong shape, exceptions ------------------


def test_softmax_wrong_axis():
    def wrong(X):
        X_exp = X.exp()
        return X_exp / X_exp.sum(axis=0, keepdims=True)

    report = failed('ch04.softmax', wrong)
    assert report.startswith(
        '\u2717 ch04.softmax: wrong values for X of '
        'shape (2, 5): largest difference'
    )
    assert 'sum over axis=1' in report


def test_softmax_missing_keepdims_is_explained():
    def wrong(X):
        X_exp = X.exp()
        return X_exp / X_exp.sum(axis=1)

    report = failed('ch04.softmax', wrong)
    assert 'raised DLBookError when called with X of shape (2, 5)' in report
    assert 'cannot be broadcast' in report
    assert 'in your line: return X_exp / X_exp.sum(axis=1)' in report
    assert 'Hint: did you sum over axis=1 with keepdims=True?' in report
    assert 'Traceback' not in report


def test_softmax_stability_is_a_note_or_a_failure():
    result = run_check('ch04.softmax', softmax)
    assert result and 'overflows' in result.message
    report = failed('ch04.softmax', softmax, stable=True)
    assert 'did you subtract the row maximum' in report
    assert 'nan' in report
    assert run_check('ch04.softmax', stable_softmax, stable=True)
    assert 'large inputs' in run_check('ch04.softmax', stable_softmax).message


def test_raising_function_is_explained_not_raised():
    def broken(X):
        raise ZeroDivisionError('oops')

    report = failed('ch04.softmax', broken)
    assert 'your function raised ZeroDivisionError' in report
    assert 'oops' in report
    assert "in your line: raise ZeroDivisionError('oops')" in report


def test_returning_none():
    def forgot(X):
        X / X.sum(axis=1, keepdims=True)

    report = failed('ch01.row_normalize', forgot)
    assert 'returned None' in report and 'return' in report


def test_not_a_function():
    report = failed('ch04.softmax', softmax(nd.ones((2, 2))))
    assert 'expected a function, got NDArray of shape (2, 2)' in report
    assert 'not my_function()' in report


def test_unknown_exercise_suggests_names():
    report = failed('ch04.softmx', softmax)
    assert "there is no exercise called 'ch04.softmx'" in report
    assert "did you mean 'ch04.softmax'" in report
    assert not run_check('nonsense', softmax)


def test_row_normalize_keepdims_on_square_input():
    def wrong(X):  # (3, 3): broadcasts, but along the columns
        if X.shape[0] == X.shape[1]:
            return X / X.sum(axis=1).reshape((1, -1))
        return X / X.sum(axis=1, keepdims=True)

    report = failed('ch01.row_normalize', wrong)
    assert 'X of shape (3, 3)' in report
    assert 'keepdims=True' in report


def test_row_normalize_column_sums():
    report = failed(
        'ch01.row_normalize', lambda X: X / X.sum(axis=0, keepdims=True)
    )
    assert 'column sums (axis=0)' in report


def test_pairwise_distances_not_squared():
    report = failed(
        'ch01.pairwise_sq_dist', lambda A, B: pairwise_sq_dist(A, B).sqrt()
    )
    assert 'squared distances' in report


def test_pairwise_wrong_shape():
    report = failed(
        'ch01.pairwise_sq_dist',
        lambda A, B: (A.expand_dims(1) - B.expand_dims(0)) ** 2,
    )
    assert 'has shape (3, 4, 2), expected (3, 4)' in report
    assert 'axis=2' in report


def test_grad_missing_factor_two():
    def wrong(x):
        x.attach_grad()
        with autograd.record():
            y = nd.dot(x, x)
        y.backward()
        return x.grad

    report = failed('ch02.grad_2xTx', wrong)
    assert 'expected 12, got 6' in report
    assert 'gradient 4x' in report


def test_grad_returns_y():
    report = failed('ch02.sin_grad', lambda x: x.sin())
    assert 'you returned sin(x) itself' in report


def test_grad_without_record():
    def wrong(x):
        x.attach_grad()
        y = x.sin()
        y.backward()
        return x.grad

    report = failed('ch02.sin_grad', wrong)
    assert 'your function raised' in report
    assert 'autograd.record()' in report


def test_linreg_without_bias():
    report = failed('ch03.linreg', lambda X, w, b: nd.dot(X, w))
    assert 'the bias b is missing' in report


def test_squared_loss_without_reshape():
    report = failed('ch03.squared_loss', lambda y_hat, y: (y_hat - y) ** 2 / 2)
    assert 'has shape (5, 5), expected (5, 1)' in report
    assert 'reshape y' in report


def test_sgd_rebinding_is_explained():
    def wrong(params, lr, batch_size):
        for param in params:
            param = param - lr * param.grad / batch_size

    report = failed('ch03.sgd', wrong)
    assert 'did not change' in report and 'param[:] =' in report


def test_sgd_without_batch_size():
    def wrong(params, lr, batch_size):
        for param in params:
            param[:] = param - lr * param.grad

    assert 'divide the gradient by batch_size' in failed('ch03.sgd', wrong)


def test_cross_entropy_mean_instead_of_per_example():
    report = failed(
        'ch04.cross_entropy', lambda y_hat, y: cross_entropy(y_hat, y).mean()
    )
    assert 'has shape (1,), expected (4,)' in report
    assert 'one loss per example, not their mean' in report


def test_cross_entropy_all_classes():
    report = failed('ch04.cross_entropy', lambda y_hat, y: -y_hat.log())
    assert 'nd.pick(y_hat, y)' in report


def test_accuracy_fraction_and_int_mean():
    def fraction(y_hat, y):
        return accuracy(y_hat, y) / y.shape[0]

    def int_mean(y_hat, y):
        return (y_hat.argmax(axis=1).astype(y.dtype) == y).mean()

    assert 'return the count, not the fraction' in failed(
        'ch04.accuracy', fraction
    )
    assert 'int32' in failed('ch04.accuracy', int_mean)


def test_relu_abs_and_in_place():
    assert "that is |X|" in failed('ch05.relu', lambda X: X.abs())

    def in_place(X):
        X[:] = nd.maximum(X, 0)
        return X

    assert 'changed its input X in place' in failed('ch05.relu', in_place)


def test_dropout_without_scaling_and_inverted_mask():
    def no_scale(X, dropout):
        if dropout == 1:
            return X.zeros_like()
        return (nd.random.uniform(0, 1, X.shape) > dropout) * X

    def inverted(X, dropout):
        if dropout == 1:
            return X.zeros_like()
        mask = nd.random.uniform(0, 1, X.shape) < dropout
        return mask * X / (1.0 - dropout)

    assert 'divide the kept elements by 1 - dropout' in failed(
        'ch05.dropout_layer', no_scale
    )
    report = failed('ch05.dropout_layer', inverted)
    assert 'everything was dropped' in report
    assert 'probability 1 - dropout' in report


def test_dropout_divides_by_zero():
    def naive(X, dropout):
        mask = nd.random.uniform(0, 1, X.shape) > dropout
        return mask * X / (1.0 - dropout)

    report = failed('ch05.dropout_layer', naive)
    assert 'dropout = 1' in report


def test_l2_penalty_mistakes():
    assert 'divide by 2' in failed('ch05.l2_penalty', lambda w: (w**2).sum())
    assert 'squared norm' in failed('ch05.l2_penalty', lambda w: w.norm())


# -- the result object and the registry -------------------------------------


def test_check_result_is_truthy_and_short():
    result = CheckResult('ch99.demo', True, 'fine.')
    assert result and repr(result) == "CheckResult('ch99.demo', passed=True)"
    failed_result = CheckResult('ch99.demo', False, 'no.', hint='try again')
    assert not failed_result
    assert failed_result.report() == (
        '\u2717 ch99.demo: no.\n  Hint: try again'
    )


def test_check_prints_and_returns(capsys):
    result = check('ch05.relu', relu)
    assert capsys.readouterr().out == (
        '\u2713 ch05.relu: correct, and X was left unchanged.\n'
    )
    assert isinstance(result, CheckResult)


def test_exercise_ids_are_validated():
    with pytest.raises(ValueError, match="look like 'ch04.softmax'"):
        exercise('softmax')


def test_checks_do_not_touch_the_global_random_state():
    import dlbook as mx

    mx.random.seed(7)
    first = nd.random.uniform(shape=3).asnumpy()
    mx.random.seed(7)
    check('ch04.softmax', softmax)
    assert (nd.random.uniform(shape=3).asnumpy() == first).all()


def test_results_are_logged_for_grading(tmp_path, monkeypatch, capsys):
    import json

    log = tmp_path / 'log.jsonl'
    monkeypatch.setenv('DLBOOK_CHECK_LOG', str(log))
    check('ch05.relu', relu)
    check('ch05.relu', lambda X: X.abs())
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(d['id'], d['passed']) for d in lines] == [
        ('ch05.relu', True),
        ('ch05.relu', False),
    ]
    assert lines[1]['hint']
