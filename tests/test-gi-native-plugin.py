#!/usr/bin/python3
# test-gi-native-plugin.py: the native plugin (plugins/native) from Python
# through gi, blocking (call_json_sync) and async (invoke_async), on the demo
# app launched with the plugin's instrumentNative launch option: the menu
# tree, Export… runs, a disabled item is refused, a checkbox toggles, the
# start-up tray and notification are seen; without the option,
# native.NOT_INSTRUMENTED. Then the plugin's own API
# (StagewrightNative.NativePlugin), blocking and async, with typed results.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs under Debian's /usr/bin/python3 (it has PyGObject); prints TAP.
# By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-native-plugin.py

import json
import os
import sys
import time

from stwtest import (ELECTRON, FIXTURES, Json, Stagewright, expect_plugin_code, missing_fixture, run_async,
                     run_tap)

import gi  # noqa: E402

gi.require_version('StagewrightNative', '1.0')
from gi.repository import StagewrightNative  # noqa: E402

TESTS = []
BUILDDIR = os.path.abspath(os.environ.get('G_TEST_BUILDDIR') or
                           os.path.join(os.path.dirname(os.path.abspath(__file__))))
PLUGIN = os.path.join(os.path.dirname(BUILDDIR), 'plugins', 'built', 'native.plugin')
DEMO_APP = os.path.join(FIXTURES, 'demo-app')


def test(fn):
    TESTS.append(fn)
    return fn


def call(dispatcher, name, arguments):
    return json.loads(dispatcher.call_json_sync(name, json.dumps(arguments), None))


def call_async(dispatcher, name, arguments):
    invocation = dispatcher.create_invocation(name, Json.from_string(json.dumps(arguments)).get_object())
    envelope = run_async(lambda done: dispatcher.invoke_async(invocation, None, done),
                         lambda source, result: source.invoke_finish(result), 60000)
    return json.loads(Json.to_string(Json.Node.alloc().init_object(envelope), False))


def ok(envelope):
    assert envelope['ok'], envelope
    return envelope


def dispatcher_with_native():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    loaded = dispatcher.load_plugins_sync([PLUGIN], None, None)
    assert [p.get_name() for p in loaded] == ['native']
    return dispatcher


def launch(dispatcher, instrument):
    args = dict(executablePath=ELECTRON, main=DEMO_APP)
    if instrument:
        args['plugins'] = {'native': {'instrumentNative': True}}
    session_id = ok(call(dispatcher, 'electron_launch', args))['session_id']
    deadline = time.monotonic() + 15
    while True:
        menu = call(dispatcher, 'native_menu', {'sessionId': session_id})
        if menu['ok'] and menu['present']:
            return session_id
        assert time.monotonic() < deadline, menu
        time.sleep(0.1)


def items(menu, label):
    return next(item for item in menu if item['label'] == label)


@test
def instrumented_blocking_and_async():
    dispatcher = dispatcher_with_native()
    session_id = launch(dispatcher, True)
    sid = {'sessionId': session_id}
    try:
        tree = ok(call(dispatcher, 'native_menu', sid))['items']
        export = items(items(tree, 'File')['submenu'], 'Export…')
        assert export['path'] == ['File', 'Export…'] and export['id'] == 'file-export', export
        assert ok(call_async(dispatcher, 'native_menu_item', dict(sid, id='file-export')))['item'] == export

        assert ok(call_async(dispatcher, 'native_menu_invoke', dict(sid, path=['File', 'Export…'])))['invoked']
        refused = call(dispatcher, 'native_menu_invoke', dict(sid, path=['File', 'Print']))
        assert refused['code'] == 'native.ITEM_DISABLED', refused
        refused = call_async(dispatcher, 'native_menu_invoke', dict(sid, id='view-hidden'))
        assert refused['code'] == 'native.ITEM_DISABLED', refused

        assert ok(call(dispatcher, 'native_menu_invoke', dict(sid, id='view-wrap')))['item']['checked'] is False
        assert ok(call_async(dispatcher, 'native_menu_invoke', dict(sid, id='view-wrap')))['item']['checked'] is True

        trays = ok(call_async(dispatcher, 'native_trays', sid))['trays']
        assert [(t['index'], t['toolTip'], t['hasContextMenu']) for t in trays] == [(0, 'Stagewright Notes', True)]
        ok(call(dispatcher, 'native_tray_invoke', dict(sid, index=0, action='menu', path=['New Note'])))

        ok(call_async(dispatcher, 'native_notifications_start', sid))
        captured = ok(call(dispatcher, 'native_notifications', sid))
        assert captured['count'] == 1, captured
        assert (captured['notifications'][0]['title'], captured['notifications'][0]['body']) == \
            ('Stagewright Notes', 'Ready to take notes')
        ok(call_async(dispatcher, 'native_notifications_stop', sid))
        assert call(dispatcher, 'native_notifications', sid)['code'] == 'native.NOT_CAPTURING'

        deadline = time.monotonic() + 10
        while True:
            logs = ok(call(dispatcher, 'electron_console_logs', dict(sid, source='main', match='^\\[menu\\]')))
            lines = [entry['text'] for entry in logs['entries']]
            if len(lines) >= 4 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert lines == ['[menu] File › Export… clicked',
                         '[menu] View › Word Wrap clicked (checked: false)',
                         '[menu] View › Word Wrap clicked (checked: true)',
                         '[menu] Tray › New Note clicked'], lines
    finally:
        call(dispatcher, 'electron_stop', sid)
        dispatcher.unload_plugins_sync(None)


@test
def not_instrumented_blocking_and_async():
    dispatcher = dispatcher_with_native()
    session_id = launch(dispatcher, False)
    sid = {'sessionId': session_id}
    try:
        assert call(dispatcher, 'native_trays', sid)['code'] == 'native.NOT_INSTRUMENTED'
        assert call_async(dispatcher, 'native_trays', sid)['code'] == 'native.NOT_INSTRUMENTED'
    finally:
        call(dispatcher, 'electron_stop', sid)
        dispatcher.unload_plugins_sync(None)


@test
def the_api_blocking_and_async():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    plugin, = dispatcher.load_plugins_sync([PLUGIN], None, None)
    # One type, whether the module made it or the typelib names it.
    assert isinstance(plugin, StagewrightNative.NativePlugin), plugin
    session_id = launch(dispatcher, True)
    session = dispatcher.get_session_manager().lookup(session_id)
    application = -1  # STW_NATIVE_APPLICATION_MENU
    try:
        menu = plugin.menu_sync(session, application, None)
        file_menu = next(item for item in menu if item.props.label == 'File')
        export = next(item for item in file_menu.get_submenu() if item.get_label() == 'Export…')
        assert list(export.get_path()) == ['File', 'Export…'] and export.props.id == 'file-export'
        assert export.props.accelerator == 'CmdOrCtrl+E' and export.props.enabled

        clicked = run_async(lambda done: plugin.menu_invoke_async(session, application, ['File', 'Export…'], None,
                                                                  None, done),
                            lambda source, result: source.menu_invoke_finish(result), 60000)
        assert clicked.get_id() == 'file-export'
        # The plugin's codes reach Python in its own error domain.
        error = expect_plugin_code(StagewrightNative.native_error_quark(), StagewrightNative.NativeError.ITEM_DISABLED,
                                   'native.ITEM_DISABLED',
                                   plugin.menu_invoke_sync, session, application, ['File', 'Print'], None, None)
        assert 'Print' in error.message, error.message

        trays = run_async(lambda done: plugin.trays_async(session, None, done),
                          lambda source, result: source.trays_finish(result), 60000)
        assert [(t.props.index, t.props.tool_tip, t.props.has_context_menu) for t in trays] == \
            [(0, 'Stagewright Notes', True)]
        assert plugin.notifications_start_sync(session, None)
        expect_plugin_code(StagewrightNative.native_error_quark(), StagewrightNative.NativeError.ALREADY_CAPTURING,
                           'native.ALREADY_CAPTURING', run_async,
                           lambda done: plugin.notifications_start_async(session, None, done),
                           lambda source, result: source.notifications_start_finish(result), 60000)
        captured = run_async(lambda done: plugin.notifications_async(session, -1, None, done),
                             lambda source, result: source.notifications_finish(result), 60000)
        assert [(n.props.title, n.props.body, n.props.shown) for n in captured] == \
            [('Stagewright Notes', 'Ready to take notes', True)]
        closed = plugin.notification_invoke_sync(session, 0, StagewrightNative.NativeNotificationAction.CLOSE, None)
        assert closed.props.closed
        assert plugin.notifications_stop_sync(session, None)
    finally:
        call(dispatcher, 'electron_stop', {'sessionId': session_id})
        dispatcher.unload_plugins_sync(None)


if __name__ == '__main__':
    skip = missing_fixture(DEMO_APP) or (None if os.path.exists(PLUGIN) else '%s is not built' % PLUGIN)
    sys.exit(run_tap(TESTS, skip))
