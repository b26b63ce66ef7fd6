"""Metrics against values worked out by hand (MXNet 1.9.1 semantics)."""

import math

import numpy as np
import pytest

from dlbook import metric, nd

PRED = nd.array([[0.3, 0.7], [0, 1.0], [0.4, 0.6]])
LABEL = nd.array([0, 1, 1])


# -- EvalMetric plumbing ------------------------------------------------------


def test_accuracy_docstring_example_and_str():
    acc = metric.Accuracy()
    acc.update(preds=[PRED], labels=[LABEL])
    assert acc.get() == ('accuracy', pytest.approx(2 / 3))
    assert str(acc) == "EvalMetric: {'accuracy': 0.6666666666666666}"
    assert acc.get_name_value() == [('accuracy', pytest.approx(2 / 3))]


def test_single_arrays_and_local_global_counters():
    acc = metric.Accuracy()
    assert math.isnan(acc.get()[1])
    acc.update(LABEL, PRED)  # single NDArrays
    acc.update(
        labels=nd.array([1, 0]), preds=nd.array([[0.9, 0.1], [0.8, 0.2]])
    )
    assert (acc.num_inst, acc.sum_metric) == (5, 3)
    assert acc.get()[1] == pytest.approx(0.6)
    acc.reset_local()
    assert math.isnan(acc.get()[1])
    assert acc.get_global() == ('accuracy', pytest.approx(0.6))
    assert acc.get_global_name_value() == [('accuracy', pytest.approx(0.6))]
    acc.update([LABEL], [PRED])
    assert acc.get()[1] == pytest.approx(2 / 3)
    assert acc.get_global()[1] == pytest.approx(5 / 8)
    acc.reset()
    assert math.isnan(acc.get_global()[1])


def test_metrics_take_arrays_from_any_device(ctx):
    acc, ce = metric.Accuracy(), metric.CrossEntropy()
    for m in (acc, ce):
        m.update([LABEL.as_in_context(ctx)], [PRED.as_in_context(ctx)])
    assert acc.get()[1] == pytest.approx(2 / 3)
    assert ce.get()[1] == pytest.approx(-(math.log(0.3) + math.log(0.6)) / 3)


def test_accuracy_class_index_predictions_and_axis():
    acc = metric.Accuracy()
    acc.update([nd.array([0, 1, 2, 2])], [nd.array([0, 1, 1, 2])])
    assert acc.get()[1] == pytest.approx(0.75)
    by_axis0 = metric.Accuracy(axis=0)
    by_axis0.update([LABEL], [PRED.T])
    assert by_axis0.get()[1] == pytest.approx(2 / 3)


def test_label_count_mismatch_raises():
    with pytest.raises(
        ValueError,
        match='Shape of labels 2 does not match shape of predictions 1',
    ):
        metric.Accuracy().update([LABEL, LABEL], [PRED])


def test_get_config_and_update_dict():
    acc = metric.Accuracy(output_names=['out'], label_names=['lab'])
    assert acc.get_config() == {
        'axis': 1,
        'metric': 'Accuracy',
        'name': 'accuracy',
        'output_names': ['out'],
        'label_names': ['lab'],
    }
    acc.update_dict(
        {'lab': LABEL, 'other': nd.array([5, 5, 5])}, {'out': PRED}
    )
    assert acc.get()[1] == pytest.approx(2 / 3)


# -- classification -----------------------------------------------------------


def test_top_k_accuracy():
    preds = nd.array(
        [[0.1, 0.5, 0.4, 0.0], [0.3, 0.2, 0.4, 0.1], [0.5, 0.1, 0.25, 0.15]]
    )
    top2 = metric.TopKAccuracy(top_k=2)
    top2.update([nd.array([2, 0, 1])], [preds])
    assert top2.get() == ('top_k_accuracy_2', pytest.approx(2 / 3))
    top4 = metric.create('top_k_acc', top_k=4)
    top4.update([nd.array([2, 0, 1])], [preds])
    assert top4.get()[1] == 1.0
    with pytest.raises(AssertionError, match='Please use Accuracy'):
        metric.TopKAccuracy()


F1_LABEL = nd.array([0, 1, 1, 0, 1])
F1_PRED = nd.array(
    [[0.4, 0.6], [0.2, 0.8], [0.9, 0.1], [0.7, 0.3], [0.1, 0.9]]
)  # argmax 1 1 0 0 1: TP 2 FP 1 FN 1 TN 1


def test_f1_macro_and_micro():
    f1 = metric.F1()
    f1.update([F1_LABEL], [F1_PRED])
    assert f1.get() == ('f1', pytest.approx(2 / 3))
    f1.update([nd.array([1, 1])], [nd.array([[0, 1.0], [0, 1.0]])])
    assert f1.get()[1] == pytest.approx((2 / 3 + 1) / 2)
    micro = metric.F1(average='micro')
    micro.update([F1_LABEL], [F1_PRED])
    micro.update([nd.array([1, 1])], [nd.array([[0, 1.0], [0, 1.0]])])
    assert micro.get()[1] == pytest.approx(0.8)  # TP 4 FP 1 FN 1
    with pytest.raises(ValueError, match='only supports binary'):
        metric.F1().update([nd.array([0, 1, 2])], [PRED])


def test_mcc():
    mcc = metric.MCC()
    mcc.update([F1_LABEL], [F1_PRED])
    want = (2 * 1 - 1 * 1) / math.sqrt(3 * 3 * 2 * 2)
    assert mcc.get() == ('mcc', pytest.approx(want))
    mcc.reset()
    assert math.isnan(mcc.get()[1])


def test_pcc_equals_mcc_for_two_classes_and_grows():
    pcc = metric.PCC()
    pcc.update([F1_LABEL], [F1_PRED])
    assert pcc.get()[1] == pytest.approx((2 - 1) / 6)
    multi = metric.PCC()
    labels = np.array([0, 1, 2, 2, 1, 0, 2])
    preds = np.array([0, 2, 2, 2, 1, 0, 1])
    multi.update([nd.array(labels)], [nd.array(preds)])
    cmat = np.zeros((3, 3))
    for p, t in zip(preds, labels):
        cmat[p, t] += 1
    n, x, y = cmat.sum(), cmat.sum(axis=1), cmat.sum(axis=0)
    want = (np.trace(cmat) * n - x @ y) / math.sqrt(
        (n * n - x @ x) * (n * n - y @ y)
    )
    assert multi.k == 3
    assert multi.get()[1] == pytest.approx(want)


def test_perplexity():
    perp = metric.Perplexity(ignore_label=None)
    perp.update([LABEL], [PRED])
    assert perp.get() == ('perplexity', pytest.approx(1.7710976285155853))
    ignoring = metric.Perplexity(ignore_label=1)
    ignoring.update([LABEL], [PRED])
    assert ignoring.get()[1] == pytest.approx(1 / 0.3)
    assert ignoring.get_global()[1] == pytest.approx(1 / 0.3)
    seq = metric.Perplexity(ignore_label=None)
    seq.update(
        [nd.array([[0, 1], [1, 1]])],
        [nd.array([[[0.5, 0.5], [0.25, 0.75]], [[0.5, 0.5], [0.1, 0.9]]])],
    )
    want = math.exp(
        -(math.log(0.5) + math.log(0.75) + math.log(0.5) + math.log(0.9)) / 4
    )
    assert seq.get()[1] == pytest.approx(want)


# -- regression and losses ----------------------------------------------------


def test_mae_mse_rmse_average_per_batch():
    batches = [
        (nd.array([1, 2, 3]), nd.array([1.5, 2, 2])),
        (nd.array([0, 0]), nd.array([1, 3])),
    ]
    mae, mse, rmse = metric.MAE(), metric.MSE(), metric.RMSE()
    for m in (mae, mse, rmse):
        for label, pred in batches:
            m.update([label], [pred])
    assert mae.get() == ('mae', pytest.approx((0.5 + 2) / 2))
    assert mse.get() == ('mse', pytest.approx((1.25 / 3 + 5) / 2))
    assert rmse.get() == (
        'rmse',
        pytest.approx((math.sqrt(1.25 / 3) + math.sqrt(5)) / 2),
    )


def test_cross_entropy_and_nll():
    want = -(math.log(0.3) + math.log(1) + math.log(0.6)) / 3
    ce = metric.create('ce')
    ce.update([LABEL], [PRED])
    assert ce.get() == ('cross-entropy', pytest.approx(want))
    nll = metric.create('nll_loss')
    nll.update([LABEL], [PRED])
    assert nll.get() == ('nll-loss', pytest.approx(want))


def test_pearson_correlation():
    label = np.array([[1.0, 0], [0, 1], [0, 1]])
    pred = PRED.asnumpy()
    want = np.corrcoef(pred.ravel(), label.ravel())[0, 1]
    pr = metric.create('pearsonr')
    pr.update([nd.array(label)], [PRED])
    assert pr.get() == ('pearsonr', pytest.approx(want))
    micro = metric.PearsonCorrelation(average='micro')
    micro.update([nd.array(label)], [PRED])
    assert micro.get()[1] == pytest.approx(want)


def test_loss_metric_ignores_labels():
    loss = metric.Loss()
    loss.update(None, [nd.array([1, 2, 3]), nd.array([[4]])])
    assert loss.get() == ('loss', pytest.approx(2.5))
    loss.update(None, nd.array([10.0]))
    assert loss.get()[1] == pytest.approx(4.0)


# -- custom metrics, composite, create ----------------------------------------


def test_custom_metric_and_np():
    m = metric.create(lambda label, pred: float(np.abs(label - pred).sum()))
    assert m.name == 'custom(<lambda>)'
    m.update([nd.array([1, 2])], [nd.array([1, 4])])
    assert m.get()[1] == 2.0

    def mean_err(label, pred):
        return float(np.abs(label - pred).sum()), label.size

    t = metric.CustomMetric(mean_err)
    t.update([nd.array([1, 2])], [nd.array([1, 4])])
    assert t.get() == ('mean_err', 1.0)
    n = metric.np(mean_err, name='me')
    n.update([nd.array([1, 2])], [nd.array([2, 3])])
    assert n.get() == ('me', 1.0)
    with pytest.raises(NotImplementedError):
        t.get_config()
    extra = metric.CustomMetric(mean_err, allow_extra_outputs=True)
    extra.update([nd.array([1, 2])], [nd.array([1, 2]), nd.array([9, 9])])
    assert extra.get()[1] == 0.0


def test_composite_metric():
    comp = metric.create(['acc', metric.CrossEntropy()])
    assert isinstance(comp, metric.CompositeEvalMetric)
    assert comp.name == 'composite'
    comp.update([LABEL], [PRED])
    names, values = comp.get()
    assert names == ['accuracy', 'cross-entropy']
    assert values[0] == pytest.approx(2 / 3)
    assert comp.get_name_value()[0] == ('accuracy', pytest.approx(2 / 3))
    comp.reset_local()
    assert math.isnan(comp.get()[1][0])
    assert comp.get_global()[1][0] == pytest.approx(2 / 3)
    comp.reset()
    assert math.isnan(comp.get_global()[1][0])
    assert isinstance(comp.get_metric(5), ValueError)
    assert comp.get_metric(0).name == 'accuracy'
    config = comp.get_config()
    assert [c['metric'] for c in config['metrics']] == [
        'Accuracy',
        'CrossEntropy',
    ]
    other = metric.CompositeEvalMetric()
    other.add('mse')
    other.add(metric.MAE())
    assert other.get()[0] == ['mse', 'mae']


def test_create_and_register():
    assert type(metric.create('acc')) is metric.Accuracy
    assert type(metric.create('Accuracy')) is metric.Accuracy
    assert type(metric.create('composite')) is metric.CompositeEvalMetric
    assert type(metric.create('rmse')) is metric.RMSE
    acc = metric.Accuracy()
    assert metric.create(acc) is acc
    assert metric.create('acc', axis=0).axis == 0
    with pytest.raises(AssertionError, match='not registered'):
        metric.create('nope')

    @metric.register
    @metric.alias('always_one')
    class One(metric.EvalMetric):
        def __init__(self, name='one'):
            super().__init__(name)

        def update(self, labels, preds):
            self.sum_metric += 1
            self.num_inst += 1

    m = metric.create('always_one')
    m.update([LABEL], [PRED])
    assert m.get() == ('one', 1.0)
    assert type(metric.create('one')) is One
