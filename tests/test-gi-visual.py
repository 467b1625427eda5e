#!/usr/bin/python3
# test-gi-visual.py: the visual plugin (issue 20, items 5, 6 and 10) loaded
# into a Python host's own dispatcher through GObject Introspection,
# blocking and async
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-visual.py
#
# On tests/fixtures/visual-pages/visual.html: a name's first capture is its
# baseline, the same page passes, a changed label is visual.MISMATCH with a
# diff image, the capture is adopted with visual_update_baseline, hostile
# names are visual.PATH_INVALID and a moving element is visual.UNSTABLE; the
# plugin the dispatcher loaded is StagewrightVisual.VisualPlugin, whose API
# is called directly, blocking and async, with typed results.

import json
import os
import shutil
import sys
import tempfile

from stwtest import ELECTRON, CHROMIUM, FIXTURES, Json, Stagewright, expect_plugin_code, run_async, run_tap

import gi  # noqa: E402

gi.require_version('StagewrightVisual', '1.0')
from gi.repository import StagewrightVisual  # noqa: E402

TESTS = []
BUILDDIR = os.path.abspath(os.environ.get('G_TEST_BUILDDIR') or
                           os.path.join(os.path.dirname(os.path.abspath(__file__))))
PLUGIN = os.path.join(os.path.dirname(BUILDDIR), 'plugins', 'built', 'visual.plugin')
PAGES_APP = os.path.join(FIXTURES, 'pages-app')
PAGES_DIR = os.path.join(FIXTURES, 'visual-pages')
state = {}


def test(fn):
    TESTS.append(fn)
    return fn


def skip_reason():
    for path in (ELECTRON, CHROMIUM, PLUGIN):
        if not os.path.exists(path):
            return '%s is missing' % path
    return None


def json_object(value):
    return Json.from_string(json.dumps(value)).get_object()


def envelope_of(obj):
    node = Json.Node.alloc().init_object(obj)
    return json.loads(Json.to_string(node, False))


def call(dispatcher, name, args=None):
    return json.loads(dispatcher.call_json_sync(name, json.dumps(args or {}), None))


def call_async(dispatcher, name, args=None):
    invocation = dispatcher.create_invocation(name, json_object(args or {}))
    return envelope_of(run_async(lambda done: dispatcher.invoke_async(invocation, None, done),
                                 lambda source, result: source.invoke_finish(result), 120000))


def ok(envelope):
    assert envelope['ok'], envelope
    return envelope


def fails(envelope, code):
    assert not envelope['ok'] and envelope['code'] == code, envelope
    return envelope


@test
def baseline_expect_mismatch_update_blocking_and_async():
    directory = tempfile.mkdtemp(prefix='stw-visual-')
    state['dir'] = directory
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    loaded = run_async(lambda done: dispatcher.load_plugins_async(
                           [PLUGIN], json_object({'visual': {'baselineDir': directory}}), None, done),
                       lambda source, result: source.load_plugins_finish(result), 60000)
    assert [p.get_name() for p in loaded] == ['visual']
    assert isinstance(loaded[0], StagewrightVisual.VisualPlugin), loaded
    state['dispatcher'] = dispatcher

    launch = ok(call(dispatcher, 'electron_launch', {
        'executablePath': ELECTRON, 'main': PAGES_APP,
        'args': ['--page=visual', '--pages-dir=' + PAGES_DIR]}))
    sid = launch['session_id']
    state['session_id'] = sid
    ok(call(dispatcher, 'electron_expect_text', {'sessionId': sid, 'selector': '#label', 'equals': 'Save'}))

    for name in ('../up', 'a/b', '', 'x' * 101):
        fails(call(dispatcher, 'visual_capture', {'sessionId': sid, 'name': name}),
              'visual.PATH_INVALID' if name else 'BAD_ARGUMENT')
    fails(call_async(dispatcher, 'visual_expect', {'sessionId': sid, 'name': 'home'}), 'visual.BASELINE_NOT_FOUND')

    captured = ok(call(dispatcher, 'visual_capture', {'sessionId': sid, 'name': 'home'}))
    assert captured['baseline'] == 'created', captured
    assert captured['baselinePath'] == os.path.join(directory, 'home.png')
    assert captured['environment']['deviceScaleFactor'] == 1, captured
    same = ok(call_async(dispatcher, 'visual_expect', {'sessionId': sid, 'name': 'home'}))
    assert same['passed'] and same['mismatchedPixels'] == 0, same

    ok(call(dispatcher, 'electron_click', {'sessionId': sid, 'selector': '#rename'}))
    ok(call(dispatcher, 'electron_expect_text', {'sessionId': sid, 'selector': '#label', 'equals': 'Send'}))
    changed = fails(call(dispatcher, 'visual_expect', {'sessionId': sid, 'name': 'home'}), 'visual.MISMATCH')
    details = changed['details']
    assert details['mismatchedPixels'] > 0 and os.path.isfile(details['diffPath']), details
    fails(call_async(dispatcher, 'visual_expect', {'sessionId': sid, 'name': 'home'}), 'visual.MISMATCH')

    updated = ok(call_async(dispatcher, 'visual_update_baseline', {'name': 'home', 'confirm': True}))
    assert updated['updated'] and updated['baselinePath'] == details['baselinePath'], updated
    assert ok(call(dispatcher, 'visual_expect', {'sessionId': sid, 'name': 'home'}))['passed']

    api_blocking_and_async(dispatcher, loaded[0], sid, directory)

    ok(call(dispatcher, 'electron_click', {'sessionId': sid, 'selector': '#animate'}))
    fails(call_async(dispatcher, 'visual_capture', {'sessionId': sid, 'name': 'spin', 'selector': '#spinner'}),
          'visual.UNSTABLE')

    ok(call(dispatcher, 'electron_stop', {'sessionId': sid}))
    state.pop('session_id')
    assert dispatcher.unload_plugins_sync(None)


def expect_visual_error(code, words, fn, *args):
    # The plugin's own domain: its codes reach Python whole.
    error = expect_plugin_code(StagewrightVisual.visual_error_quark(), getattr(StagewrightVisual.VisualError, code),
                               'visual.' + code, fn, *args)
    assert words in error.message, error.message


def api_blocking_and_async(dispatcher, plugin, sid, directory):
    session = dispatcher.get_session_manager().lookup(sid)
    target = Stagewright.Target.new_for_selector('#label')

    captured = plugin.capture_sync(session, 'label', target, False, None)
    assert captured.props.baseline_created and captured.get_width() == 200 and captured.get_height() == 40
    assert captured.props.baseline_path == os.path.join(directory, 'label.png')
    assert captured.props.device_scale_factor == 1 and captured.props.fonts_fingerprint.startswith('sha256:')
    assert captured.props.chromium_version and captured.props.viewport_width > 0

    compared = run_async(lambda done: plugin.expect_async(session, 'label', -1, -1, -1, None, done),
                         lambda source, result: source.expect_finish(result), 120000)
    assert compared.props.passed and compared.props.mismatched_pixels == 0, compared.props.mismatched_pixels
    assert compared.props.total_pixels == 200 * 40 and os.path.isfile(compared.props.diff_path)

    updated = run_async(lambda done: plugin.update_baseline_async('label', None, done),
                        lambda source, result: source.update_baseline_finish(result), 60000)
    assert updated.get_path() == os.path.join(directory, 'label.png')
    assert plugin.update_baseline_sync('label', None).get_width() == 200

    expect_visual_error('PATH_INVALID', 'not a plain file name', plugin.capture_sync, session, 'a/../b', target, False, None)
    expect_visual_error('BASELINE_NOT_FOUND', 'No baseline named', run_async,
                        lambda done: plugin.expect_async(session, 'nothing-here', -1, -1, -1, None, done),
                        lambda source, result: source.expect_finish(result), 60000)


def cleanup():
    dispatcher = state.get('dispatcher')
    if dispatcher is not None and 'session_id' in state:
        dispatcher.call_json_sync('electron_stop', json.dumps({'sessionId': state['session_id']}), None)
    if 'dir' in state:
        shutil.rmtree(state['dir'], ignore_errors=True)


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, skip_reason(), cleanup))
