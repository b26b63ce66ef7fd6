"""End to end in a real IPython kernel, as a notebook runs the widgets.

These tests start a kernel (a few seconds) and check what a notebook
would store: exactly one widget view with a short text repr, one PNG and
one summary line per training cell; the Stop button and the interrupt
button ending a busy training loop after the current batch; and strict
nbval passing on an executed notebook.
"""

import json
import os
import subprocess
import sys
import time

import pytest

pytest.importorskip('ipykernel')
pytest.importorskip('ipywidgets')
jupyter_client = pytest.importorskip('jupyter_client')

REPO = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
)
KERNEL_NAME = 'dlbook-widgets-test'
SETUP = f'import sys; sys.path.insert(0, {REPO!r})'


def write_kernelspec(folder):
    """A kernelspec for this very interpreter (not whatever is on PATH)."""
    spec = folder / KERNEL_NAME
    spec.mkdir(parents=True)
    (spec / 'kernel.json').write_text(
        json.dumps(
            {
                'argv': [
                    sys.executable,
                    '-m',
                    'ipykernel_launcher',
                    '-f',
                    '{connection_file}',
                ],
                'display_name': 'dlbook test',
                'language': 'python',
            }
        )
    )
    return folder


def kernel_manager(folder):
    from jupyter_client.kernelspec import KernelSpecManager

    specs = KernelSpecManager(
        kernel_dirs=[str(folder)], ensure_native_kernel=False
    )
    return jupyter_client.KernelManager(
        kernel_name=KERNEL_NAME, kernel_spec_manager=specs
    )


@pytest.fixture(scope='module')
def kernel(tmp_path_factory):
    folder = write_kernelspec(tmp_path_factory.mktemp('kernels'))
    km = kernel_manager(folder)
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        run(kc, SETUP)
        yield km, kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def run(kc, code, on_message=None, timeout=60):
    """Execute ``code``; return its outputs as (kind, content) pairs.

    ``on_message(msg, seconds)`` sees every IOPub message of the cell.
    """
    msg_id = kc.execute(code)
    start = time.monotonic()
    outputs = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg['parent_header'].get('msg_id') != msg_id:
            continue
        if on_message is not None:
            on_message(msg, time.monotonic() - start)
        kind, content = msg['msg_type'], msg['content']
        if kind == 'status' and content['execution_state'] == 'idle':
            return outputs
        if kind in ('stream', 'display_data', 'execute_result', 'error'):
            outputs.append((kind, content))


def describe(outputs):
    """Outputs as nbval compares them: stream text, text/plain, PNG."""
    described = []
    for kind, content in outputs:
        if kind == 'stream':
            described.append((content['name'], content['text']))
        elif kind == 'error':
            described.append(('error', content['ename']))
        else:
            data = content['data']
            described.append(
                (
                    kind,
                    data.get('text/plain'),
                    sorted(k for k in data if k != 'text/plain'),
                )
            )
    return described


WIDGET = 'application/vnd.jupyter.widget-view+json'

TRAIN_CELL = '''
import time
from dlbook.widgets import TrainingMonitor
monitor = TrainingMonitor(epochs=2, device='cpu(0)')
for epoch in monitor.epochs():
    for X in monitor.batches(range(10)):
        time.sleep(0.01)
        monitor.log(loss=1.0 / (epoch + 1), acc=0.5)
    monitor.epoch_end(val_acc=0.6)
'''


def test_monitor_cell_outputs(kernel):
    _, kc = kernel
    outputs = describe(run(kc, TRAIN_CELL))
    assert outputs[:2] == [
        ('display_data', 'TrainingMonitor(epochs=2)', [WIDGET]),
        ('display_data', '<Figure size 700x250 with 2 Axes>', ['image/png']),
    ]
    assert len(outputs) == 3
    name, text = outputs[2]
    assert name == 'stdout'
    assert text.startswith('epoch 2/2: loss 0.500, acc 0.500, val_acc 0.600; ')
    assert text.endswith(' sec\n') and text.count('\n') == 1


def test_animator_in_a_function_is_finished_at_cell_end(kernel):
    _, kc = kernel
    code = '''
from dlbook.widgets import Animator
def train():
    animator = Animator(xlabel='epoch', legend=['loss', 'acc'])
    for epoch in range(1, 4):
        animator.add(epoch, (1.0 / epoch, 0.5))
train()
'''
    assert describe(run(kc, code)) == [
        (
            'display_data',
            "Animator(xlabel='epoch', legend=['loss', 'acc'])",
            [WIDGET],
        ),
        ('display_data', '<Figure size 350x250 with 1 Axes>', ['image/png']),
        ('stdout', 'epoch 3: loss 0.333, acc 0.500\n'),
    ]


BUSY_CELL = '''
import time
from dlbook.widgets import TrainingMonitor
monitor = TrainingMonitor(epochs=100)
for epoch in monitor.epochs():
    for X in monitor.batches(range(50)):
        time.sleep(0.01)
        monitor.log(loss=1.0)
print('done', monitor.should_stop)
'''


def test_stop_button_works_while_the_cell_is_busy(kernel):
    km, kc = kernel
    has_subshells = run(
        kc,
        (
            'print(getattr(get_ipython().kernel, '
            '"_supports_kernel_subshells", False))'
        ),
    )
    if has_subshells[0][1]['text'].strip() != 'True':
        pytest.skip('needs ipykernel >= 7 (kernel subshells)')
    state = {}

    def click_after_a_second(msg, seconds):
        content = msg['content']
        if msg['msg_type'] == 'comm_open':
            model = content['data'].get('state', {}).get('_model_name')
            if model == 'ButtonModel':
                state['button'] = content['comm_id']
        if 'button' in state and 'clicked' not in state and seconds > 1:
            click = kc.session.msg(
                'comm_msg',
                {
                    'comm_id': state['button'],
                    'data': {
                        'method': 'custom',
                        'content': {'event': 'click'},
                    },
                },
            )
            kc.shell_channel.send(click)
            state['clicked'] = seconds

    start = time.monotonic()
    outputs = describe(run(kc, BUSY_CELL, click_after_a_second))
    elapsed = time.monotonic() - start
    assert 'clicked' in state
    assert elapsed - state['clicked'] < 5  # 100 epochs would take 50 s
    assert outputs[-1] == ('stdout', 'done True\n')
    assert outputs[-2][1].startswith('stopped at epoch ')


def test_interrupt_stops_cleanly(kernel):
    km, kc = kernel
    state = {}

    def interrupt_after_a_second(msg, seconds):
        if 'sent' not in state and seconds > 1:
            km.interrupt_kernel()
            state['sent'] = seconds

    outputs = describe(run(kc, BUSY_CELL, interrupt_after_a_second))
    assert (
        'stderr',
        'Interrupted: stopping after the current batch '
        '(interrupt again to abort at once).\n',
    ) in outputs
    assert outputs[-1] == ('stdout', 'done True\n')
    assert not [o for o in outputs if o[0] == 'error']
    # The kernel's own interrupt handling is back for the next cell.
    handler = run(kc, 'import signal; print(signal.getsignal(signal.SIGINT))')
    assert 'default_int_handler' in handler[0][1]['text']


def test_strict_nbval_passes(tmp_path):
    nbformat = pytest.importorskip('nbformat')
    nbclient = pytest.importorskip('nbclient')
    pytest.importorskip('nbval')
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook(
        cells=[
            new_code_cell(SETUP),
            new_code_cell(TRAIN_CELL),
            new_code_cell(
                'from dlbook.widgets import Animator\n'
                "animator = Animator(xlabel='epoch', legend=['loss'])\n"
                'for epoch in range(1, 4):\n'
                '    animator.add(epoch, 1.0 / epoch)'
            ),
        ]
    )
    folder = write_kernelspec(tmp_path / 'kernels')
    nbclient.NotebookClient(
        nb, km=kernel_manager(folder), timeout=120
    ).execute()
    path = tmp_path / 'widgets.ipynb'
    nbformat.write(nb, str(path))
    sanitize = tmp_path / 'sanitize.cfg'
    sanitize.write_text(
        '[speed]\nregex: \\d+\\.\\d+ (examples|batches)/sec\n'
        'replace: SPEED\n\n'
        '[seconds]\nregex: \\d+\\.\\d+ sec\nreplace: SECONDS\n'
    )
    result = subprocess.run(
        [
            sys.executable,
            '-m',
            'pytest',
            '--nbval',
            '--nbval-current-env',
            '--nbval-sanitize-with',
            str(sanitize),
            '-q',
            '-p',
            'no:cacheprovider',
            str(path),
        ],
        capture_output=True,
        text=True,
        cwd=str(tmp_path),
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:]
