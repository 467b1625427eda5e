#!/usr/bin/python3
# test-gi-ipc.py: the ipc plugin (issue 19, items 1 and 2) loaded into a
# Python host's own dispatcher through GObject Introspection, blocking and
# async
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-ipc.py
#
# Without main-process eval the ipc tools are hidden and refused with
# ipc.EVAL_REQUIRED; with it, on the demo app, ipc_invoke is captured with
# redacted values, a stub answers in place of the handler, and a channel
# outside the allowlist is refused while its handler never runs. The
# plugin the dispatcher loads is StagewrightIpc.IpcPlugin, whose API is
# called directly too, blocking and async, with the same checks.

import json
import os
import sys

from stwtest import ELECTRON, CHROMIUM, FIXTURES, Json, Stagewright, expect_plugin_code, run_async, run_tap

import gi  # noqa: E402

gi.require_version('StagewrightIpc', '1.0')
from gi.repository import StagewrightIpc  # noqa: E402

TESTS = []
BUILDDIR = os.path.abspath(os.environ.get('G_TEST_BUILDDIR') or
                           os.path.join(os.path.dirname(os.path.abspath(__file__))))
PLUGIN = os.path.join(os.path.dirname(BUILDDIR), 'plugins', 'built', 'ipc.plugin')
DEMO_APP = os.path.join(FIXTURES, 'demo-app')
CONFIG = {'ipc': {'channels': ['notes:*', 'probe:*'], 'invokeAllow': ['notes:load', 'probe:*'],
                  'redact': ['password']}}
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
                                 lambda source, result: source.invoke_finish(result), 60000))


def ok(envelope):
    assert envelope['ok'], envelope
    return envelope


def fails(envelope, code):
    assert not envelope['ok'] and envelope['code'] == code, envelope
    return envelope


def load(dispatcher, asynchronous):
    if asynchronous:
        return run_async(lambda done: dispatcher.load_plugins_async([PLUGIN], json_object(CONFIG), None, done),
                         lambda source, result: source.load_plugins_finish(result), 60000)
    return dispatcher.load_plugins_sync([PLUGIN], json_object(CONFIG), None)


@test
def without_main_eval_the_tools_are_hidden_and_refused():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    loaded = load(dispatcher, False)
    assert [p.get_name() for p in loaded] == ['ipc']
    # One type, whether the module made it or the typelib names it.
    assert isinstance(loaded[0], StagewrightIpc.IpcPlugin), loaded
    assert not [t for t in dispatcher.list_tools() if t.get_name().startswith('ipc_')]

    refused = fails(call(dispatcher, 'ipc_capture_start', {'channels': ['notes:*']}), 'ipc.EVAL_REQUIRED')
    assert '--allow-eval=main' in refused['error'], refused
    fails(call_async(dispatcher, 'ipc_stub', {'channel': 'notes:load', 'returns': 1}), 'ipc.EVAL_REQUIRED')

    plugin = ok(call(dispatcher, 'electron_plugins'))['plugins'][0]
    assert {t['state'] for t in plugin['tools']} == {'disabled'}, plugin
    assert plugin['tools'][0]['disabledReason'] == {'kind': 'eval_policy_disabled', 'target': 'main'}
    assert dispatcher.unload_plugins_sync(None)


@test
def on_the_demo_app_blocking_and_async():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    dispatcher.set_allow_eval(Stagewright.EvalTarget.MAIN)
    plugin, = load(dispatcher, True)
    state['dispatcher'] = dispatcher

    launch = ok(call(dispatcher, 'electron_launch', {'executablePath': ELECTRON, 'main': DEMO_APP}))
    sid = launch['session_id']
    state['session_id'] = sid
    ok(call(dispatcher, 'electron_eval_main', {'sessionId': sid, 'code': (
        "let runs = 0; electron.ipcMain.handle('danger:wipe', () => ++runs);"
        "electron.ipcMain.handle('probe:runs', () => runs);"
        "electron.ipcMain.handle('probe:echo', (_e, v) => v); return true;")}))

    started = ok(call_async(dispatcher, 'ipc_capture_start', {'sessionId': sid, 'channels': ['probe:*', 'notes:load']}))
    assert started['capturing'] and started['capabilities']['scopes'][0] == 'ipcMain', started
    fails(call(dispatcher, 'ipc_capture_start', {'sessionId': sid, 'channels': ['probe:*']}), 'ipc.ALREADY_CAPTURING')

    echoed = ok(call(dispatcher, 'ipc_invoke', {'sessionId': sid, 'channel': 'probe:echo',
                                                'args': [{'password': 'p', 'n': 1}]}))
    assert echoed['result'] == {'password': '[REDACTED]', 'n': 1}, echoed

    for tool, args in (('ipc_invoke', {'channel': 'danger:wipe'}),
                       ('ipc_stub', {'channel': 'danger:wipe', 'returns': 2}),
                       ('ipc_capture_start', {'channels': ['danger:*']})):
        fails(call_async(dispatcher, tool, dict(sessionId=sid, **args)), 'ipc.CHANNEL_NOT_ALLOWED')
    assert ok(call(dispatcher, 'ipc_invoke', {'sessionId': sid, 'channel': 'probe:runs'}))['result'] == 0

    ok(call_async(dispatcher, 'ipc_stub', {'sessionId': sid, 'channel': 'notes:load', 'returns': ['stub']}))
    assert ok(call(dispatcher, 'ipc_invoke', {'sessionId': sid, 'channel': 'notes:load'}))['result'] == ['stub']
    assert ok(call_async(dispatcher, 'ipc_unstub', {'sessionId': sid, 'channel': 'notes:load'}))['removed']
    assert ok(call(dispatcher, 'ipc_invoke', {'sessionId': sid, 'channel': 'notes:load'}))['result'] == []

    # The page's own notes:load at start-up may come too, when it ran after the start.
    captured = ok(call_async(dispatcher, 'ipc_captured', {'sessionId': sid}))
    mine = [entry for entry in captured['entries'] if entry['source'] == 'ipc_invoke']
    others = [entry for entry in captured['entries'] if entry['source'] != 'ipc_invoke']
    assert all(entry['source'] == 'renderer' and entry['channel'] == 'notes:load' for entry in others), others
    channels = [entry['channel'] for entry in mine]
    assert channels == ['probe:echo', 'probe:runs', 'notes:load', 'notes:load'], channels
    assert mine[0]['args'] == [{'password': '[REDACTED]', 'n': 1}]
    assert mine[2]['stubbed'] and 'stubbed' not in mine[3]

    assert not ok(call(dispatcher, 'ipc_capture_stop', {'sessionId': sid}))['capturing']
    fails(call_async(dispatcher, 'ipc_captured', {'sessionId': sid}), 'ipc.NOT_CAPTURING')

    api_blocking_and_async(dispatcher, plugin, sid)

    ok(call(dispatcher, 'electron_stop', {'sessionId': sid}))
    state.pop('session_id')
    assert dispatcher.unload_plugins_sync(None)


def expect_ipc_error(code, fn, *args):
    # The plugin's own domain: its codes reach Python whole.
    return expect_plugin_code(StagewrightIpc.ipc_error_quark(), getattr(StagewrightIpc.IpcError, code),
                              'ipc.' + code, fn, *args)


def api_blocking_and_async(dispatcher, plugin, sid):
    session = dispatcher.get_session_manager().lookup(sid)
    error = expect_ipc_error('EVAL_REQUIRED', StagewrightIpc.IpcPlugin.new().captured_sync, session, 0, None, None)
    assert '--allow-eval=main' in error.message, error.message
    error = expect_ipc_error('CHANNEL_NOT_ALLOWED', run_async,
                             lambda done: plugin.invoke_async(session, 'danger:wipe', None, 0, None, done),
                             lambda source, result: source.invoke_finish(result), 60000)
    assert 'invokeAllow allowlist' in error.message, error.message

    assert plugin.capture_start_sync(session, ['probe:*'], False, False, None)
    args = Json.from_string('[{"password": "p", "n": 3}]').get_array()
    echoed = run_async(lambda done: plugin.invoke_async(session, 'probe:echo', args, 0, None, done),
                       lambda source, result: source.invoke_finish(result), 60000)
    result = echoed.get_object()
    assert result.get_string_member('password') == '[REDACTED]' and result.get_int_member('n') == 3
    assert plugin.stub_sync(session, 'probe:echo', None, 'stubbed out', True, None)
    error = expect_ipc_error('INVOKE_FAILED', plugin.invoke_sync, session, 'probe:echo', args, 0, None)
    assert 'stubbed out' in error.message, error.message
    captured = plugin.captured_sync(session, 10, 'probe:echo', None)
    assert captured.props.capturing and captured.props.total == 2, captured.props.total
    entries = list(captured.get_entries())
    assert [(e.props.channel, e.props.source, e.props.stubbed) for e in entries] == \
        [('probe:echo', 'ipc_invoke', False), ('probe:echo', 'ipc_invoke', True)]
    assert entries[1].props.error and entries[1].props.result is None, entries[1].props.error
    ok_, removed = plugin.unstub_sync(session, 'probe:echo', None)
    assert ok_ and not removed
    stopped = run_async(lambda done: plugin.capture_stop_async(session, None, done),
                        lambda source, result: source.capture_stop_finish(result), 60000)
    assert not stopped.props.capturing


def cleanup():
    dispatcher = state.get('dispatcher')
    if dispatcher is not None and 'session_id' in state:
        dispatcher.call_json_sync('electron_stop', json.dumps({'sessionId': state['session_id']}), None)


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, skip_reason(), cleanup))
