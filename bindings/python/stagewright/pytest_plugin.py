# A pytest plugin for apps driven by Stagewright, as pytest-playwright is for
# the web. Installed with python3-stagewright and registered through the
# pytest11 entry point; from a build tree, `-p stagewright.pytest_plugin`.
#
#   @pytest.mark.stagewright(args=['--page=forms'])
#   def test_save(stagewright_surface):
#       stagewright_surface.click_sync(Stagewright.Target.new_for_selector('#save'), None, None)
#
# stagewright_app launches the app (the --stagewright-executable and
# --stagewright-main options, then the keywords of the test's stagewright
# marker: any property of Stagewright.LaunchOptions, and env) and stops it
# after the test; stagewright_surface is its active surface. When a test
# fails while its app runs, a screenshot goes to --stagewright-output
# (default test-results/) and its path to the test's report: a section of
# the failure's output and a stagewright_screenshot property in JUnit XML.
#
# With --stagewright-trace retain-on-failure (or on), the trace plugin
# (--stagewright-trace-plugin, by name from STAGEWRIGHT_PLUGIN_PATH and the
# installed plugins, or a .plugin path) records each test that uses
# stagewright_app, from before the launch to after the stop: its CDP
# traffic and console lines (calls through Stagewright.Dispatcher in the
# test become actions). A failed test keeps the recording (NAME-trace.jsonl)
# and its Playwright export (NAME-trace.zip, `npx playwright show-trace`)
# beside the screenshot, both named in a "stagewright trace" section and in
# stagewright_trace and stagewright_trace_zip properties; with on, passing
# tests keep theirs too; the others' are deleted.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import json
import os
import re

import pytest

_APP = pytest.StashKey()
_STOP_TIMEOUT_MS = 5000


def pytest_addoption(parser):
    group = parser.getgroup('stagewright', 'Stagewright')
    group.addoption('--stagewright-executable', metavar='PATH',
                    help='the Electron (or Chromium) binary stagewright_app launches')
    group.addoption('--stagewright-main', metavar='PATH',
                    help='the app (directory or main script) stagewright_app launches')
    group.addoption('--stagewright-output', metavar='DIR', default='test-results',
                    help='where the screenshots of failed tests go (default: %(default)s)')
    group.addoption('--stagewright-trace', choices=('off', 'on', 'retain-on-failure'), default='off',
                    help='record each test that uses stagewright_app with the trace plugin and keep the '
                    'recording and its Playwright trace.zip under --stagewright-output: for every test (on) '
                    'or for failed ones (retain-on-failure) (default: %(default)s)')
    group.addoption('--stagewright-trace-plugin', metavar='NAME|PATH', default='trace',
                    help='the trace plugin --stagewright-trace loads (default: %(default)s)')


def pytest_configure(config):
    config.addinivalue_line(
        'markers', 'stagewright(**options): launch options of the test\'s app: properties of '
        'Stagewright.LaunchOptions (executable_path, main, args, cwd, timeout…) and env, a dict')
    if config.getoption('stagewright_trace', 'off') != 'off':
        config.pluginmanager.register(_TraceReporter(), 'stagewright-trace')


def _stagewright():
    import gi
    gi.require_version('Stagewright', '1.0')
    from gi.repository import Stagewright
    return Stagewright


@pytest.fixture
def stagewright_launch_options(request):
    """The keywords stagewright_app passes to Stagewright.launch()."""
    options = {}
    for option, key in (('stagewright_executable', 'executable_path'), ('stagewright_main', 'main')):
        value = request.config.getoption(option)
        if value:
            options[key] = os.path.abspath(value)
    for marker in reversed(list(request.node.iter_markers('stagewright'))):
        if marker.args:
            raise pytest.UsageError('the stagewright marker takes keywords only: %r' % (marker.args,))
        options.update(marker.kwargs)
    return options


@pytest.fixture
def stagewright_app(request, stagewright_launch_options):
    """A launched app, as a Stagewright.Session; stopped after the test."""
    if not stagewright_launch_options.get('executable_path') and not stagewright_launch_options.get('main'):
        raise pytest.UsageError('stagewright_app needs --stagewright-executable/--stagewright-main '
                                'or a stagewright(executable_path=…, main=…) marker')
    session = _stagewright().launch(**stagewright_launch_options)
    request.node.stash[_APP] = session
    try:
        yield session
    finally:
        del request.node.stash[_APP]
        if session.is_running():
            session.stop_sync(_STOP_TIMEOUT_MS, None)


@pytest.fixture
def stagewright_surface(stagewright_app):
    """The active surface (window) of stagewright_app."""
    surface = stagewright_app.props.active_surface
    if surface is None:
        pytest.fail('the app has no window')
    return surface


def _screenshot(session, path):
    session.capture_screenshot_sync(None, {}, None).save(path)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    session = item.stash.get(_APP, None)
    if not report.failed or report.when == 'teardown' or session is None or not session.is_running():
        return
    directory = item.config.getoption('stagewright_output')
    name = re.sub(r'[^A-Za-z0-9_.-]+', '-', item.nodeid).strip('-')
    path = os.path.abspath(os.path.join(directory, '%s-failed.png' % name))
    try:
        os.makedirs(directory, exist_ok=True)
        _screenshot(session, path)
    except Exception as error:  # a failed screenshot must not hide the test's failure
        report.sections.append(('stagewright screenshot', 'not taken: %s' % error))
        return
    report.sections.append(('stagewright screenshot', path))
    # JUnit XML reads the properties of the teardown report, made from the item's.
    item.user_properties.append(('stagewright_screenshot', path))


# --- the trace ---------------------------------------------------------------

_TRACE = pytest.StashKey()


class _Trace:
    """A recording of one test by the trace plugin, in its own dispatcher."""

    def __init__(self, config, item):
        directory = config.getoption('stagewright_output')
        name = re.sub(r'[^A-Za-z0-9_.-]+', '-', item.nodeid).strip('-')
        base = os.path.abspath(os.path.join(directory, '%s-trace' % name))
        self.recording = base + '.jsonl'
        self.archive = base + '.zip'
        self.running = False
        os.makedirs(directory, exist_ok=True)
        self.dispatcher = _stagewright().Dispatcher.new()
        self.dispatcher.load_plugins_sync([config.getoption('stagewright_trace_plugin')], None, None)
        self._call('trace_start', {'path': self.recording})
        self.running = True

    def _call(self, tool, arguments):
        envelope = json.loads(self.dispatcher.call_json_sync(tool, json.dumps(arguments), None))
        if not envelope.get('ok'):
            raise RuntimeError('%s: %s %s' % (tool, envelope.get('code'), envelope.get('message')))
        return envelope

    def keep(self):
        """Stops the recording and exports it; answers the two paths."""
        if self.running:
            self.running = False
            self._call('trace_stop', {})
        if not os.path.exists(self.archive):
            self._call('trace_export', {'format': 'playwright', 'path': self.archive, 'recording': self.recording})
        return self.recording, self.archive

    def close(self, keep):
        try:
            if keep:
                self.keep()
            else:
                if self.running:
                    self.running = False
                    self._call('trace_stop', {})
                for path in (self.recording, self.archive):
                    if os.path.exists(path):
                        os.unlink(path)
        finally:
            self.dispatcher.unload_plugins_sync(None)


@pytest.fixture(autouse=True)
def _stagewright_trace(request):
    """With --stagewright-trace, records a test that uses stagewright_app
    (autouse: set up before the app, torn down after it)."""
    mode = request.config.getoption('stagewright_trace')
    if mode == 'off' or 'stagewright_app' not in request.fixturenames:
        yield None
        return
    trace = _Trace(request.config, request.node)
    request.node.stash[_TRACE] = trace
    try:
        yield trace
    finally:
        del request.node.stash[_TRACE]
        trace.close(keep=mode == 'on' or not trace.running)


class _TraceReporter:
    """Keeps a failed test's trace and names it in its report."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        trace = item.stash.get(_TRACE, None)
        if trace is None or not report.failed or report.when == 'teardown':
            return
        try:
            paths = trace.keep()
        except Exception as error:  # a lost trace must not hide the test's failure
            report.sections.append(('stagewright trace', 'not kept: %s' % error))
            return
        report.sections.append(('stagewright trace', '\n'.join(paths)))
        item.user_properties.append(('stagewright_trace', paths[0]))
        item.user_properties.append(('stagewright_trace_zip', paths[1]))
