"""The course as a student sees it: JupyterLab in a real browser.

Unit tests and nbval check what a kernel *sends*; they cannot see what a
browser *shows*. This test starts JupyterLab, opens
``live_training.ipynb`` in headless Chromium (driven by playwright), runs
every cell through the Run menu as a person would, and checks that

* the ``TrainingMonitor`` is live: its progress bars and its plot image
  change *while* the training cell runs (not only at the end);
* the finished run leaves a static figure and a summary line;
* the graph from ``mx.viz.plot_network`` is drawn as SVG, or, where the
  ``dot`` program is missing, shows the install hint and the DOT source.

Screenshots go to ``$DLBOOK_ARTIFACTS`` if set, else to
``tests/browser/artifacts/``. The test skips (never fails) when Chromium,
playwright or JupyterLab is missing. Every measured fact it relies on
(flags, selectors, settings) is in ``reference/jupyter-testing.md``.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
NOTEBOOK = HERE / 'live_training.ipynb'

CHROMIUM_PATHS = ('/usr/bin/chromium', '/usr/bin/chromium-browser')
CHROMIUM_ARGS = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
]
# Lab settings: no news toast, no autosave, every cell in the DOM.
LAB_SETTINGS = {
    '@jupyterlab/apputils-extension/notification.jupyterlab-settings': {
        'fetchNews': 'false',
        'checkForUpdates': False,
    },
    '@jupyterlab/docmanager-extension/plugin.jupyterlab-settings': {
        'autosave': False
    },
    '@jupyterlab/notebook-extension/tracker.jupyterlab-settings': {
        'windowingMode': 'none'
    },
}

SERVER_START_TIMEOUT = 30
PAGE_TIMEOUT_MS = 30_000
RUN_TIMEOUT = 60


def _chromium():
    for path in CHROMIUM_PATHS:
        if os.access(path, os.X_OK):
            return path
    return shutil.which('chromium')


def _require_tools():
    """Skip unless Chromium, playwright and JupyterLab are installed."""
    chromium = _chromium()
    if chromium is None:
        pytest.skip('Chromium is not installed (apt-get install chromium)')
    pytest.importorskip(
        'playwright.sync_api', reason='playwright is not installed'
    )
    pytest.importorskip('jupyterlab', reason='jupyterlab is not installed')
    pytest.importorskip('ipywidgets', reason='ipywidgets is not installed')
    return chromium


def _artifacts_dir():
    path = Path(os.environ.get('DLBOOK_ARTIFACTS') or HERE / 'artifacts')
    path.mkdir(parents=True, exist_ok=True)
    return path


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _descendants(pid):
    """PIDs of every process below ``pid`` (Linux ``/proc``; else [])."""
    children = {}
    for entry in Path('/proc').glob('[0-9]*/stat'):
        try:
            text = entry.read_text()
        except OSError:
            continue
        # The command name is in parentheses and may contain spaces.
        fields = text[text.rindex(')') + 2 :].split()
        children.setdefault(int(fields[1]), []).append(int(entry.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _request(url, token, method='GET'):
    req = urllib.request.Request(
        url,
        method=method,
        data=b'' if method == 'POST' else None,
        headers={'Authorization': f'token {token}'},
    )
    with urllib.request.urlopen(req, timeout=5) as response:
        return response.status, response.read()


class JupyterLab:
    """A JupyterLab server on loopback with isolated dirs and settings."""

    def __init__(self, root, tmp):
        self.root = root
        self.port = _free_port()
        self.token = uuid.uuid4().hex
        self.base = f'http://127.0.0.1:{self.port}'
        settings = tmp / 'settings'
        for name, values in LAB_SETTINGS.items():
            path = settings / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        env = dict(os.environ)
        env.update(
            JUPYTER_CONFIG_DIR=str(tmp / 'config'),
            JUPYTER_DATA_DIR=str(tmp / 'data'),
            JUPYTER_RUNTIME_DIR=str(tmp / 'runtime'),
            JUPYTER_PLATFORM_DIRS='1',
            # The kernel must import this checkout's dlbook.
            PYTHONPATH=os.pathsep.join(
                p for p in (str(REPO), env.get('PYTHONPATH')) if p
            ),
            MPLBACKEND='Agg',
        )
        env.pop('DLBOOK_WIDGETS', None)  # the widget view is the point
        command = [
            sys.executable,
            '-m',
            'jupyterlab',
            '--allow-root',
            '--no-browser',
            '--ip=127.0.0.1',
            f'--port={self.port}',
            f'--IdentityProvider.token={self.token}',
            '--LabApp.expose_app_in_browser=True',
            f'--LabApp.user_settings_dir={settings}',
            f'--LabApp.workspaces_dir={tmp / "workspaces"}',
            f'--ServerApp.root_dir={root}',
        ]
        self.log = open(tmp / 'jupyterlab.log', 'wb')
        # A new session: the server and whatever it starts can be found
        # (and ended) as one group, apart from pytest.
        self.process = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.children = []

    def wait_ready(self):
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f'JupyterLab exited with {self.process.returncode}; '
                    f'see {self.log.name}'
                )
            try:
                status, _ = _request(f'{self.base}/api/status', self.token)
                if status == 200:
                    return
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.25)
        raise RuntimeError(f'JupyterLab did not start; see {self.log.name}')

    def url(self, notebook):
        workspace = f'dlbook-{uuid.uuid4().hex[:8]}'
        return (
            f'{self.base}/lab/workspaces/{workspace}/tree/{notebook}'
            f'?reset&token={self.token}'
        )

    def remember_children(self):
        """Note the kernels (the server's descendants) for ``stop``."""
        self.children = _descendants(self.process.pid)

    def stop(self):
        """``POST /api/shutdown``, then end whatever is left over."""
        self.children = sorted(
            set(self.children) | set(_descendants(self.process.pid))
        )
        try:
            _request(f'{self.base}/api/shutdown', self.token, 'POST')
        except (OSError, urllib.error.URLError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=5)
        for pid in self.children:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.log.close()


# -- what the page shows ---------------------------------------------------

KERNEL_IDLE = '''() => {
    const app = window.jupyterapp;
    const panel = app && app.shell.currentWidget;
    const session = panel && panel.sessionContext
        && panel.sessionContext.session;
    return !!(session && session.kernel
              && session.kernel.status === 'idle');
}'''

PROMPTS = '''() => Array.from(document.querySelectorAll(
    '.jp-NotebookPanel .jp-CodeCell .jp-InputArea-prompt'))
    .map(e => e.textContent.trim())'''

LIVE_STATE = '''() => ({
    bars: Array.from(document.querySelectorAll(
        '.widget-hprogress .progress-bar')).map(e => e.style.width),
    images: Array.from(document.querySelectorAll('.jupyter-widgets img'))
        .map(e => e.getAttribute('src') || '')
})'''


def _run_all(page):
    page.locator('.lm-MenuBar-itemLabel', has_text='Run').first.click()
    page.locator('.lm-Menu-itemLabel', has_text='Run All Cells').first.click()


def _all_done(prompts):
    return bool(prompts) and all(
        p.startswith('[') and p[1:-2].strip().isdigit() for p in prompts
    )


def _watch_training(page, shots):
    """Sample the widget while the cells run; return the samples."""
    samples = []
    deadline = time.monotonic() + RUN_TIMEOUT
    shot_taken = False
    while time.monotonic() < deadline:
        state = page.evaluate(LIVE_STATE)
        if state['bars'] or state['images']:
            samples.append(state)
        images = [src for src in state['images'] if src]
        if not shot_taken and images and len(samples) > 8:
            widget = page.locator('.jp-OutputArea-output .widget-vbox')
            if widget.count():
                widget.first.scroll_into_view_if_needed()
                widget.first.screenshot(path=str(shots / 'monitor-live.png'))
            shot_taken = True
        if _all_done(page.evaluate(PROMPTS)):
            return samples
        time.sleep(0.2)
    raise AssertionError(
        f'cells still running after {RUN_TIMEOUT} s: {page.evaluate(PROMPTS)}'
    )


def test_live_training_and_graph_in_jupyterlab(tmp_path):
    chromium = _require_tools()
    from playwright.sync_api import sync_playwright

    shots = _artifacts_dir()
    root = tmp_path / 'root'
    root.mkdir()
    shutil.copy(NOTEBOOK, root / NOTEBOOK.name)
    lab = JupyterLab(root, tmp_path)
    try:
        lab.wait_ready()
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=chromium, args=CHROMIUM_ARGS
            )
            try:
                page = browser.new_page(
                    viewport={'width': 1300, 'height': 1700}
                )
                page.set_default_timeout(PAGE_TIMEOUT_MS)
                page.goto(lab.url(NOTEBOOK.name))
                page.wait_for_selector('.jp-NotebookPanel .jp-Cell')
                page.wait_for_function(KERNEL_IDLE, timeout=PAGE_TIMEOUT_MS)
                lab.remember_children()
                _run_all(page)
                samples = _watch_training(page, shots)
                page.screenshot(path=str(shots / 'notebook-done.png'))
                _check_live(samples)
                _check_final_outputs(page, shots)
            finally:
                browser.close()
    finally:
        lab.stop()


def _check_live(samples):
    """The bars and the plot must change while the cell is running."""
    bars = {tuple(s['bars']) for s in samples if s['bars']}
    images = {tuple(src for src in s['images'] if src) for s in samples} - {()}
    assert len(bars) >= 3, f'progress bars did not move: {sorted(bars)}'
    assert len(images) >= 2, (
        f'the live plot was not redrawn while training '
        f'({len(images)} distinct image(s) in {len(samples)} samples)'
    )


def _check_final_outputs(page, shots):
    cells = page.locator('.jp-NotebookPanel .jp-CodeCell')
    training, graph = cells.nth(1), cells.nth(2)
    # After training: the static figure and the summary line stay.
    assert training.locator('.jp-RenderedImage img').count() == 1
    summary = training.locator('.jp-RenderedText').last.inner_text()
    assert 'epoch 6/6' in summary and 'on cpu(0)' in summary, summary
    graph.scroll_into_view_if_needed()
    graph.screenshot(path=str(shots / 'plot-network.png'))
    if shutil.which('dot'):
        svg = graph.locator('.jp-RenderedSVG img')
        assert svg.count() == 1, 'plot_network drew no SVG'
        src = svg.first.get_attribute('src') or ''
        assert src.startswith('data:image/svg+xml'), src[:60]
        box = svg.first.bounding_box()
        assert box and box['width'] > 50 and box['height'] > 100, box
    else:
        text = graph.locator('.jp-OutputArea-output').last.inner_text()
        assert 'dot' in text and 'fc1' in text and 'DOT source' in text, text[
            :300
        ]
