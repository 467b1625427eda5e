#!/usr/bin/python3
# test-gi-blocking.py: the blocking-call policy from a Python script.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A script drives the demo app only through Dispatcher.call_json_sync, then
# mixes SessionManager.launch_json_sync, Session.stop_sync and dispatcher calls
# with asynchronous ones, in every order. Before the policy, a launch made
# through call_json_sync left its sockets on a private context that nobody
# ran again (the next call took 5 s and answered stale data), and a
# dispatcher call after launch_sync timed out. Prints TAP; runs under
# Debian's /usr/bin/python3, like tests/test-gi-session.py.

import faulthandler
import json
import os
import struct
import sys
import tempfile
import threading
import time
import traceback

os.environ['G_DEBUG'] = ','.join(filter(None, [os.environ.get('G_DEBUG'), 'fatal-criticals']))

import gi  # noqa: E402

gi.require_version('Stagewright', '1.0')
gi.require_version('Json', '1.0')
from gi.repository import GLib, Json, Stagewright  # noqa: E402

faulthandler.dump_traceback_later(240, exit=True)

TOP_SRCDIR = os.path.abspath(os.environ.get('STW_TOP_SRCDIR') or
                             os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
FIXTURES = os.path.join(TOP_SRCDIR, 'tests', 'fixtures')
ELECTRON = os.path.join(FIXTURES, 'electron')
DEMO_APP = os.path.join(FIXTURES, 'demo-app')
DEMO_TITLE = 'Stagewright Notes'
# A call that answers from an already running app: well under a second.
QUICK_MS = 1000
# A launch includes Chromium's own start; the budget only catches a hang.
LAUNCH_MS = 15000

TESTS = []
timings = {}


def test(fn):
    TESTS.append(fn)
    return fn


def call(dispatcher, name, args=None, budget_ms=QUICK_MS):
    started = time.monotonic()
    text = dispatcher.call_json_sync(name, json.dumps(args or {}), None)
    elapsed = (time.monotonic() - started) * 1000
    timings.setdefault(name, []).append(elapsed)
    envelope = json.loads(text)
    assert envelope['ok'], (name, envelope)
    assert elapsed < budget_ms, '%s took %.0f ms (budget %d ms)' % (name, elapsed, budget_ms)
    return envelope


def invoke_async(dispatcher, name, args=None, timeout_ms=5000):
    """The asynchronous path on the same dispatcher, under a GLib.MainLoop."""
    invocation = dispatcher.create_invocation(name, Json.from_string(json.dumps(args or {})).get_object())
    loop = GLib.MainLoop()
    box = {}

    def done(source, result, *unused):
        try:
            box['envelope'] = source.invoke_finish(result)
        except GLib.Error as error:
            box['error'] = error
        loop.quit()

    def expired():
        box['timeout'] = True
        loop.quit()
        return GLib.SOURCE_REMOVE

    timer = GLib.timeout_add(timeout_ms, expired)
    dispatcher.invoke_async(invocation, None, done)
    loop.run()
    assert 'timeout' not in box, '%s: no answer within %d ms' % (name, timeout_ms)
    GLib.source_remove(timer)
    if 'error' in box:
        raise box['error']
    envelope = json.loads(Stagewright.envelope_to_string(box['envelope']))
    assert envelope['ok'], (name, envelope)
    return envelope


def png_size(path):
    with open(path, 'rb') as image:
        data = image.read(24)
    assert data[:8] == b'\x89PNG\r\n\x1a\n', data[:8]
    return struct.unpack('>II', data[16:24])


def alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as stat:
            return stat.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


state = {}


@test
def dispatcher_alone_drives_the_demo_app():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    state['dispatcher'] = dispatcher
    launched = call(dispatcher, 'electron_launch', {'executablePath': ELECTRON, 'main': DEMO_APP},
                    budget_ms=LAUNCH_MS)
    session_id = launched['session_id']
    state['pid'] = launched['pid']
    info = call(dispatcher, 'electron_info')
    assert info['session_id'] == session_id, info
    windows = call(dispatcher, 'electron_windows_list')
    assert [w['title'] for w in windows['windows']] == [DEMO_TITLE], windows
    # The same call again must agree: nothing stale is left on a dead context.
    again = call(dispatcher, 'electron_windows_list')
    assert again['windows'] == windows['windows'], (again, windows)
    with tempfile.TemporaryDirectory(prefix='stw-') as out:
        path = os.path.join(out, 'shot.png')
        shot = call(dispatcher, 'electron_screenshot', {'path': path})
        assert shot['path'] == path, shot
        width, height = png_size(path)
        assert width > 100 and height > 100, (width, height)
    stopped = call(dispatcher, 'electron_stop', budget_ms=LAUNCH_MS)
    assert stopped['ok'], stopped
    assert not alive(state['pid'])
    status = call(dispatcher, 'electron_status')
    assert status['sessions'] == [], status


@test
def launch_sync_then_dispatcher_calls_then_async():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    manager = dispatcher.get_session_manager()
    session = manager.launch_json_sync(json.dumps({'executablePath': ELECTRON, 'main': DEMO_APP}), None)
    try:
        info = call(dispatcher, 'electron_info')
        assert info['session_id'] == session.get_id(), info
        # Asynchronous on the same context, then blocking again, then async.
        listed = invoke_async(dispatcher, 'electron_windows_list')
        assert [w['title'] for w in listed['windows']] == [DEMO_TITLE], listed
        info = call(dispatcher, 'electron_info')
        assert info['session_id'] == session.get_id(), info
        invoke_async(dispatcher, 'electron_info')
        assert [w.get_title() for w in session.list_windows()] == [DEMO_TITLE]
    finally:
        pid = session.get_pid()
        stopped, escalated = session.stop_sync(5000, None)
    assert stopped and not alive(pid)
    # The dispatcher noticed through the manager's exited handler.
    status = call(dispatcher, 'electron_status')
    assert status['sessions'] == [], status


@test
def dispatcher_launch_then_session_stop_sync():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    launched = call(dispatcher, 'electron_launch', {'executablePath': ELECTRON, 'main': DEMO_APP},
                    budget_ms=LAUNCH_MS)
    session = dispatcher.get_session_manager().lookup(launched['session_id'])
    assert session is not None
    invoke_async(dispatcher, 'electron_windows_list')
    stopped, escalated = session.stop_sync(5000, None)
    assert stopped and not alive(launched['pid'])
    assert not escalated


@test
def a_thread_with_its_own_context_owns_its_objects():
    """A harness thread that pushes its own context makes and drives its own dispatcher."""
    box = {}

    def worker():
        context = GLib.MainContext.new()
        context.push_thread_default()
        try:
            dispatcher = Stagewright.Dispatcher.new()
            dispatcher.add_core_tools()
            launched = json.loads(dispatcher.call_json_sync(
                'electron_launch', json.dumps({'executablePath': ELECTRON, 'main': DEMO_APP}), None))
            assert launched['ok'], launched
            listed = json.loads(dispatcher.call_json_sync('electron_windows_list', '{}', None))
            box['titles'] = [w['title'] for w in listed['windows']]
            box['stop'] = json.loads(dispatcher.call_json_sync('electron_stop', '{}', None))
            box['pid'] = launched['pid']
        except Exception:  # noqa: BLE001 (reported below)
            box['error'] = traceback.format_exc()
        finally:
            context.pop_thread_default()

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), 'the worker hung'
    assert 'error' not in box, box['error']
    assert box['titles'] == [DEMO_TITLE], box
    assert box['stop']['ok'] and not alive(box['pid']), box


def main():
    missing = [p for p in (ELECTRON, os.path.join(DEMO_APP, 'package.json')) if not os.path.exists(p)]
    print('1..%d' % len(TESTS))
    failed = 0
    for number, fn in enumerate(TESTS, 1):
        name = fn.__name__.replace('_', ' ')
        if missing:
            print('ok %d - %s # SKIP %s is missing' % (number, name, missing[0]))
            continue
        try:
            fn()
        except Exception:
            failed += 1
            print('not ok %d - %s' % (number, name))
            for line in traceback.format_exc().splitlines():
                print('# ' + line)
        else:
            print('ok %d - %s' % (number, name))
        sys.stdout.flush()
    for name, values in sorted(timings.items()):
        print('# %s: %s ms' % (name, ' '.join('%.1f' % v for v in values)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
