#!/usr/bin/python3
# test-gi-clock.py: the clock plugin (issue 19, item 8) loaded into a
# Python host's own dispatcher through GObject Introspection, blocking and
# async
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-clock.py
#
# On tests/fixtures/clock-app: clock.NOT_INSTALLED before an install; after
# clock_install the page's Date is the given time; clock_run_for {ms: 60000}
# fires the page's one-minute timer at once; a new window's first script
# sees the fake clock; hostile values are refused. Through the tools
# (call_json_sync, invoke_async) and through the plugin's own API
# (StagewrightClock: its _sync forms and its async pairs, answering a
# typed ClockStatus).

import json
import os
import sys
import time

from stwtest import (ELECTRON, CHROMIUM, FIXTURES, GLib, Json, Stagewright, expect_error, expect_plugin_code, run_async,
                     run_tap)

import gi  # noqa: E402

gi.require_version('StagewrightClock', '1.0')
from gi.repository import StagewrightClock  # noqa: E402

TESTS = []
BUILDDIR = os.path.abspath(os.environ.get('G_TEST_BUILDDIR') or
                           os.path.join(os.path.dirname(os.path.abspath(__file__))))
PLUGIN = os.path.join(os.path.dirname(BUILDDIR), 'plugins', 'built', 'clock.plugin')
CLOCK_APP = os.path.join(FIXTURES, 'clock-app')
Y2030 = 1893456000000
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


def text(dispatcher, sid, selector):
    return ok(call(dispatcher, 'electron_get_text', {'sessionId': sid, 'selector': selector}))['text']


def wait_for(predicate, seconds=15):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError('not in %s s' % seconds)


@test
def on_the_clock_app_blocking_and_async():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    loaded = run_async(lambda done: dispatcher.load_plugins_async([PLUGIN], None, None, done),
                       lambda source, result: source.load_plugins_finish(result), 60000)
    assert [p.get_name() for p in loaded] == ['clock']
    assert isinstance(loaded[0], StagewrightClock.ClockPlugin), loaded
    state['plugin'] = loaded[0]
    state['dispatcher'] = dispatcher

    launch = ok(call(dispatcher, 'electron_launch', {'executablePath': ELECTRON, 'main': CLOCK_APP}))
    sid = launch['session_id']
    state['session_id'] = sid
    wait_for(lambda: text(dispatcher, sid, '#loaded'))

    assert not ok(call_async(dispatcher, 'clock_status', {'sessionId': sid}))['installed']
    fails(call(dispatcher, 'clock_run_for', {'sessionId': sid, 'ms': 60000}), 'clock.NOT_INSTALLED')
    fails(call_async(dispatcher, 'clock_advance', {'sessionId': sid, 'ms': 1}), 'clock.NOT_INSTALLED')
    session = dispatcher.get_session_manager().lookup(sid)
    # The plugin's codes reach Python in its own error domain.
    error = expect_plugin_code(StagewrightClock.clock_error_quark(), StagewrightClock.ClockError.NOT_INSTALLED,
                               'clock.NOT_INSTALLED', state['plugin'].advance_sync, session, 1, None)
    assert 'not installed' in error.message, error.message
    expect_plugin_code(StagewrightClock.clock_error_quark(), StagewrightClock.ClockError.NOT_INSTALLED,
                       'clock.NOT_INSTALLED', run_async,
                       lambda done: state['plugin'].pause_async(session, None, None, done),
                       lambda source, result: source.pause_finish(result), 60000)
    assert not state['plugin'].status_sync(session, None).get_installed()

    installed = ok(call_async(dispatcher, 'clock_install', {'sessionId': sid, 'time': '2030-01-01T00:00:00Z'}))
    assert installed['installed'] and Y2030 <= installed['now'] < Y2030 + 60000, installed
    assert installed['documents'] >= 2, installed

    ok(call(dispatcher, 'electron_click', {'sessionId': sid, 'selector': '#arm'}))
    started = time.monotonic()
    ran = ok(call(dispatcher, 'clock_run_for', {'sessionId': sid, 'ms': 60000}))
    assert time.monotonic() - started < 20, 'at once'
    assert ran['fired'] >= 1, ran
    assert text(dispatcher, sid, '#timer').startswith('fired at 2030-01-01T00:01:')

    paused = ok(call_async(dispatcher, 'clock_pause', {'sessionId': sid}))
    assert paused['paused']
    fixed = ok(call(dispatcher, 'clock_set_time', {'sessionId': sid, 'time': Y2030 + 86400000}))
    assert fixed['fixed'] and fixed['now'] == Y2030 + 86400000, fixed
    moved = ok(call_async(dispatcher, 'clock_set_system_time', {'sessionId': sid, 'time': '2031-01-01'}))
    assert not moved['fixed'] and moved['now'] == 1924992000000, moved
    advanced = ok(call(dispatcher, 'clock_advance', {'sessionId': sid, 'ms': 500}))
    assert advanced['now'] == 1924992000500, advanced
    assert not ok(call_async(dispatcher, 'clock_resume', {'sessionId': sid}))['paused']

    # Hostile values: the schema and the API.
    fails(call(dispatcher, 'clock_run_for', {'sessionId': sid, 'ms': -5}), 'BAD_ARGUMENT')
    fails(call_async(dispatcher, 'clock_install', {'sessionId': sid, 'time': 1e300}), 'BAD_ARGUMENT')
    fails(call(dispatcher, 'clock_set_time', {'sessionId': sid, 'time': 'yesterday'}), 'BAD_ARGUMENT')

    # A new window gets the clock before its first script.
    ok(call(dispatcher, 'clock_pause', {'sessionId': sid, 'time': '2033-03-03T00:00:00Z'}))
    ok(call(dispatcher, 'electron_click', {'sessionId': sid, 'selector': '#open'}))
    second = wait_for(lambda: [w for w in ok(call(dispatcher, 'electron_windows_list', {'sessionId': sid}))['windows']
                               if w['title'] == 'Stagewright Clock Two'])
    ok(call(dispatcher, 'electron_switch_window', {'sessionId': sid, 'targetId': second[0]['id']}))
    first = wait_for(lambda: text(dispatcher, sid, '#first'))
    assert first == '2033-03-03T00:00:00.000Z (fake timers)', first

    api_blocking_and_async(dispatcher, state['plugin'], sid)

    ok(call(dispatcher, 'electron_stop', {'sessionId': sid}))
    state.pop('session_id')
    assert dispatcher.unload_plugins_sync(None)


def utc(year, month=1, day=1):
    return GLib.DateTime.new_utc(year, month, day, 0, 0, 0)


def expect_bad_argument(words, fn, *args):
    error = expect_error('BAD_ARGUMENT', fn, *args)
    assert words in error.message, error.message


def api_blocking_and_async(dispatcher, plugin, sid):
    session = dispatcher.get_session_manager().lookup(sid)
    status = plugin.pause_sync(session, utc(2034), None)
    assert isinstance(status, StagewrightClock.ClockStatus)
    assert status.get_paused() and status.get_now() == 2019686400000, status.get_now()
    status = run_async(lambda done: plugin.run_for_async(session, 1500, None, done),
                       lambda source, result: source.run_for_finish(result), 60000)
    assert status.props.now == 2019686401500 and status.props.documents >= 3, status.props.now
    status = plugin.set_time_sync(session, utc(2035), None)
    assert status.get_fixed() and status.get_now() == 2051222400000
    status = run_async(lambda done: plugin.status_async(session, None, done),
                       lambda source, result: source.status_finish(result), 60000)
    assert status.get_installed() and status.get_fixed() and status.get_max_timers() == 10000
    assert not plugin.resume_sync(session, None).get_paused()
    # Hostile values, refused by the API itself (no schema on this path).
    expect_bad_argument('ms must be from 0', plugin.advance_sync, session, -1, None)
    expect_bad_argument('ms must be from 0', run_async,
                        lambda done: plugin.run_for_async(session, 2 ** 62, None, done),
                        lambda source, result: source.run_for_finish(result), 60000)


def cleanup():
    dispatcher = state.get('dispatcher')
    if dispatcher is not None and 'session_id' in state:
        dispatcher.call_json_sync('electron_stop', json.dumps({'sessionId': state['session_id']}), None)


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, skip_reason(), cleanup))
