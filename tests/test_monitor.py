"""``mx.mon.Monitor`` on executors and ``Module.fit``: the names and
statistics MXNet 1.9.1 reports (recorded from it), every ``interval``
batches."""

import logging

import numpy as np

import dlbook as mx


def relu_layer(value):
    data = mx.sym.var('data')
    fc = mx.sym.FullyConnected(data, num_hidden=2, name='fc1')
    act = mx.sym.Activation(fc, act_type='relu', name='relu1')
    exe = act.simple_bind(mx.cpu(), data=(2, 3))
    for array in exe.arg_arrays:
        array[:] = value
    return exe


def test_outputs_then_arguments_with_the_default_statistic():
    exe = relu_layer(0.5)
    mon = mx.mon.Monitor(1, pattern='.*')
    mon.install(exe)
    mon.tic()
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((2, 2)))
    # MXNet also lists its backward nodes ('fc1_backward_output0', ...)
    assert mon.toc() == [
        (1, 'fc1_output', '1.25\t'),
        (1, 'relu1_output', '1.25\t'),
        (1, 'data', '0.5\t'),
        (1, 'fc1_weight', '0.5\t'),
        (1, 'fc1_bias', '0.5\t'),
    ]


def test_interval_pattern_sort_and_a_list_statistic():
    exe = relu_layer(0.25)
    mon = mx.mon.Monitor(
        2,
        pattern='.*output',
        sort=True,
        stat_func=lambda x: [x.max(), x.min()],
    )
    mon.install(exe)
    got = []
    for _ in range(3):
        mon.tic()
        exe.forward()
        got.append(mon.toc())
    both = [
        ('fc1_output', '0.4375\t0.4375\t'),
        ('relu1_output', '0.4375\t0.4375\t'),
    ]
    assert got == [[(1, *b) for b in both], [], [(3, *b) for b in both]]


def test_monitor_all_adds_each_operators_inputs():
    exe = relu_layer(0.5)
    mon = mx.mon.Monitor(1, monitor_all=True, pattern='fc1_.*|relu1_.*')
    mon.install(exe)
    mon.tic()
    exe.forward()
    names = [name for _, name, _ in mon.toc()]
    # MXNet names relu1's input 'relu1_input0' and repeats the weights
    assert names == [
        'fc1_data',
        'fc1_weight',
        'fc1_bias',
        'fc1_output',
        'relu1_data',
        'relu1_output',
        'fc1_weight',
        'fc1_bias',
    ]


def test_an_idle_monitor_leaves_the_forward_alone():
    exe = relu_layer(0.5)
    calls = []
    mon = mx.mon.Monitor(10, stat_func=lambda x: calls.append(1) or x.sum())
    mon.install(exe)
    for _ in range(3):
        mon.tic()
        exe.forward()
        mon.toc()
    assert len(calls) == 5  # the first batch only: 2 outputs, 3 arguments
    assert exe._watch() is None  # between intervals, no per-node hook


def test_module_fit_logs_the_monitor(caplog):
    x = np.random.RandomState(0).rand(20, 3).astype('f')
    y = (x.sum(1) > 1.5).astype('f')
    it = mx.io.NDArrayIter(x, y, batch_size=10, label_name='softmax_label')
    net = mx.sym.SoftmaxOutput(
        mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc'),
        name='softmax',
    )
    mod = mx.mod.Module(net)
    mon = mx.mon.Monitor(1, pattern='fc_output|softmax_output')
    with caplog.at_level(logging.INFO):
        mod.fit(
            it, num_epoch=1, monitor=mon, initializer=mx.init.Constant(0.1)
        )
    lines = [
        r.getMessage() for r in caplog.records if 'Batch:' in r.getMessage()
    ]
    # MXNet 1.9.1's log for the same run
    expected = [
        ('fc_output', 0.18166657),
        ('softmax_output', 0.5),
        ('fc_output', 0.139841),
        ('softmax_output', 0.5000094),
    ]
    assert len(lines) == 4
    for line, (name, value), batch in zip(lines, expected, (1, 1, 2, 2)):
        fields = line.split()
        assert fields[:3] == ['Batch:', str(batch), name]
        np.testing.assert_allclose(float(fields[3]), value, rtol=1e-5)


def test_mx_visualization_is_viz():
    assert mx.visualization is mx.viz
    assert mx.mon.Monitor is mx.monitor.Monitor
