#!/usr/bin/python3
# test-gi-main-process.py: running code in the main process and the renderer,
# and the windows' main-process state, through GObject Introspection from
# Python, blocking and async; then attach by port to an app this test started,
# whose main process the library finds and opens.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-main-process.py

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

from stwtest import (CHROMIUM, ELECTRON, FIXTURES, GLib, Json, Stagewright, code_of, expect_error,  # noqa: F401
                     run_async, run_tap, to_python)

DEMO_APP = os.path.join(FIXTURES, 'demo-app')
DEMO_HANDLERS = ['app:info', 'app:website', 'clipboard:copy', 'notes:export', 'notes:load', 'notes:open',
                 'notes:save', 'webview:url', 'window:new']
READ_HANDLERS = 'return [...electron.ipcMain._invokeHandlers.keys()].sort();'

TESTS = []
state = {}


def test(fn):
    TESTS.append(fn)
    return fn


def skip_reason():
    for path in (ELECTRON, CHROMIUM, os.path.join(DEMO_APP, 'package.json')):
        if not os.path.exists(path):
            return '%s is missing' % path
    return None


def json_node(value):
    parser = Json.Parser()
    parser.load_from_data(json.dumps(value), -1)
    return parser.get_root()


@test
def run_main_blocking_and_async():
    manager = Stagewright.SessionManager.new()
    session = manager.launch_json_sync(json.dumps(dict(executablePath=ELECTRON, main=DEMO_APP)), None)
    state['session'] = session
    assert session.has_main_process()

    value, serialized = session.run_main_sync(READ_HANDLERS, None, 0, None)
    assert to_python(value) == DEMO_HANDLERS and not serialized, to_python(value)

    value, serialized = run_async(
        lambda done: session.run_main_async('return arg.n * 2;', json_node({'n': 21}), 0, None, done),
        lambda source, result: source.run_main_finish(result))
    assert to_python(value) == 42

    value, serialized = session.run_main_sync('return () => 1;', None, 0, None)
    assert serialized and to_python(value) == '() => 1', to_python(value)

    expect_error('EVAL_SYNTAX_ERROR', session.run_main_sync, 'return (;', None, 0, None)
    error = expect_error('EVAL_RUNTIME_ERROR', session.run_main_sync, 'throw new Error("one\\ntwo");', None, 0, None)
    assert error.message == 'Error: one', error.message
    expect_error('EVAL_TIMEOUT', session.run_main_sync, 'await new Promise(() => {});', None, 300, None)


@test
def run_renderer_blocking_and_async():
    session = state['session']
    value, _ = session.run_renderer_sync('return document.title;', None, 0, None)
    assert to_python(value) == 'Stagewright Notes'
    value, _ = run_async(
        lambda done: session.run_renderer_async('return typeof window.notesApi + arg;', json_node('!'), 0, None, done),
        lambda source, result: source.run_renderer_finish(result))
    assert to_python(value) == 'object!'
    expect_error('EVAL_SYNTAX_ERROR', session.run_renderer_sync, '}); (async () => {', None, 0, None)

    # A page whose JSON writes 100,000 brackets, then one that forges:
    # the value is the inspector's reading, never the page's text.
    for patch in ("globalThis.savedStringify = JSON.stringify;"
                  " JSON.stringify = () => '['.repeat(100000) + ']'.repeat(100000); return 1;",
                  "JSON.stringify = () => '{\"forged\":true}'; return 1;"):
        session.run_renderer_sync(patch, None, 0, None)
        value, serialized = session.run_renderer_sync('return 6 * 7;', None, 0, None)
        assert to_python(value) == 42 and not serialized, to_python(value)
        value, _ = session.run_renderer_sync('return {a: [1, "two"]};', None, 0, None)
        assert to_python(value) == {'a': [1, 'two']}, to_python(value)
    session.run_renderer_sync('JSON.stringify = globalThis.savedStringify;', None, 0, None)


@test
def window_states_blocking_and_async():
    session = state['session']
    made, _ = session.run_main_sync(
        'const w = new electron.BrowserWindow({ show: false });'
        ' await w.loadURL("data:text/html,<title>Hidden</title>"); return w.id;', None, 0, None)
    hidden = to_python(made)
    deadline = time.monotonic() + 20
    seen = {}
    use_async = False
    while time.monotonic() < deadline:
        session.refresh_surfaces_sync(None)
        if use_async:
            run_async(lambda done: session.refresh_window_states_async(None, done),
                      lambda source, result: source.refresh_window_states_finish(result))
        else:
            assert session.refresh_window_states_sync(None)
        use_async = not use_async
        seen = {s.get_electron_id(): s for s in (session.dup_window_state(w) for w in session.list_windows())
                if s is not None}
        if hidden in seen:
            break
        time.sleep(0.1)
    assert hidden in seen, seen
    assert seen[hidden].is_visible() is False and seen[hidden].is_minimized() is False
    assert seen[hidden].is_maximized() is False and seen[hidden].is_fullscreen() is False
    bounds = seen[hidden].get_bounds()
    assert bounds.width > 0 and bounds.height > 0, (bounds.width, bounds.height)
    assert any(s.is_visible() for key, s in seen.items() if key != hidden)
    session.stop_sync(10000, None)
    state.pop('session')


@test
def attach_by_port_finds_and_opens_the_main_process():
    tmpdir = tempfile.mkdtemp(prefix='stw-gi-main-')
    env = dict(os.environ, NODE_OPTIONS='--inspect-port=0', TMPDIR=tmpdir)
    app = subprocess.Popen([ELECTRON, '--remote-debugging-port=0', DEMO_APP], env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True, text=True)
    state['app'] = app
    url = None
    for line in app.stderr:
        match = re.search(r'DevTools listening on (ws://\S+)', line)
        if match:
            url = match.group(1)
            break
    assert url, 'the stand-in announced its endpoint'
    port = int(re.search(r':(\d+)/', url).group(1))

    manager = Stagewright.SessionManager.new()
    session = manager.attach_sync(json.dumps({'port': port}), None)
    assert session.get_capabilities() & Stagewright.CapabilityFlags.MAIN_EVAL
    value, _ = session.run_main_sync(READ_HANDLERS, None, 0, None)
    assert to_python(value) == DEMO_HANDLERS
    value, _ = session.run_main_sync('return process.pid;', None, 0, None)
    assert to_python(value) == app.pid
    session.detach()
    app.send_signal(signal.SIGTERM)
    app.wait(15)
    state.pop('app')
    # The stand-in removed its own directory inside on the way out.
    os.rmdir(tmpdir)


@test
def inject_into_plain_node_on_a_moved_inspector_port():
    node = subprocess.Popen(['node', '--inspect-port=0', '-e', 'setInterval(() => {}, 1000)'],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    state['node'] = node
    manager = Stagewright.SessionManager.new()
    deadline = time.monotonic() + 10
    # Node installs its SIGUSR1 handler as it starts: until then inject refuses.
    while time.monotonic() < deadline:
        with open('/proc/%d/status' % node.pid) as status:
            mask = int(re.search(r'SigCgt:\s*([0-9a-f]+)', status.read()).group(1), 16)
        if mask & (1 << (signal.SIGUSR1 - 1)):
            break
        time.sleep(0.05)
    session = run_async(lambda done: manager.inject_async(node.pid, 0, None, done),
                        lambda source, result: source.inject_finish(result))
    assert session.get_transport_name() == 'injector'
    value, _ = session.run_main_sync('return [electron, process.pid];', None, 0, None)
    assert to_python(value) == [None, node.pid], to_python(value)
    session.detach()
    node.kill()
    node.wait(5)
    state.pop('node')


def cleanup():
    session = state.get('session')
    if session is not None and session.is_running():
        session.stop_sync(2000, None)
    node = state.get('node')
    if node is not None:
        node.kill()
    app = state.get('app')
    if app is not None:
        try:
            os.killpg(app.pid, signal.SIGKILL)
        except OSError:
            pass


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, skip_reason(), cleanup))
