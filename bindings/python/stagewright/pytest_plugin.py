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
# SPDX-License-Identifier: LGPL-2.1-or-later

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


def pytest_configure(config):
    config.addinivalue_line(
        'markers', 'stagewright(**options): launch options of the test\'s app: properties of '
        'Stagewright.LaunchOptions (executable_path, main, args, cwd, timeout…) and env, a dict')


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
