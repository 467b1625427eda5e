#!/usr/bin/python3
# test-gi-session.py: launching, inspecting and stopping a real app through
# GObject Introspection, from Python — the blocking and the async API that C
# harnesses and scripts use (no MCP involved).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs under Debian's /usr/bin/python3 (it has PyGObject); prints TAP. The
# app is the demo app on the Electron stand-in (tests/fixtures), on headless
# Chromium. By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-session.py
#
# Environment: STW_TOP_SRCDIR (the source tree; default: this file's parent's
# parent), STW_CHROMIUM (default /usr/lib/chromium/chromium).

import json
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time

from stwtest import (CHROMIUM, ELECTRON, FIXTURES, GLib, Json, Stagewright, code_of, expect_error,  # noqa: F401
                     run_async, run_tap, spin, to_python)

DEMO_APP = os.path.join(FIXTURES, 'demo-app')
CRASH_APP = os.path.join(FIXTURES, 'crash-app')
DEMO_TITLE = 'Stagewright Notes'

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def skip_reason():
    for path in (ELECTRON, CHROMIUM, os.path.join(DEMO_APP, 'package.json'), os.path.join(CRASH_APP, 'main.js')):
        if not os.path.exists(path):
            return '%s is missing' % path
    return None


def launch_options(app, **extra):
    return json.dumps(dict(executablePath=ELECTRON, main=app, **extra))


def alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as stat:
            return stat.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


def group_members(pgid):
    members = []
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % name) as stat:
                fields = stat.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ('Z', 'X'):
            members.append(int(name))
    return members


def kill_group(pgid):
    # Only ever a real group of ours: never 0, 1 or a negative number.
    if isinstance(pgid, int) and pgid > 1:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def png_size(data):
    assert data[:8] == b'\x89PNG\r\n\x1a\n', data[:8]
    assert data[12:16] == b'IHDR'
    return struct.unpack('>II', data[16:24])


# --- one launched demo app, shared by the tests in order ------------------------

state = {}


@test
def dispatcher_gives_a_session_manager():
    dispatcher = Stagewright.Dispatcher.new()
    manager = dispatcher.get_session_manager()
    assert isinstance(manager, Stagewright.SessionManager), manager
    assert manager.list_sessions() == []
    assert dispatcher.get_session_manager() is manager, 'one manager per dispatcher'
    expect_error('NOT_RUNNING', manager.resolve, None)
    state['dispatcher'] = dispatcher
    state['manager'] = manager


@test
def launch_sync_starts_the_demo_app():
    manager = state['manager']
    started = time.monotonic()
    options = Stagewright.LaunchOptions.new()
    options.set_executable_path(ELECTRON)
    options.set_main(DEMO_APP)
    session = manager.launch_sync(options, None)
    state['launch_ms'] = (time.monotonic() - started) * 1000
    assert isinstance(session, Stagewright.Session), session
    state['session'] = session
    assert re.match(r'^app-\d+-[0-9a-f]{8}$', session.get_id()), session.get_id()
    assert session.get_transport_name() == 'cdp'
    assert session.is_owned() and session.is_running() and session.is_renderer_ready()
    assert session.has_main_process()
    assert session.get_pid() > 0 and alive(session.get_pid())
    assert manager.list_sessions() == [session]
    assert manager.lookup(session.get_id()) is session
    assert manager.resolve(None) is session
    assert manager.resolve(session.get_id()) is session
    expect_error('NOT_RUNNING', manager.resolve, 'no-such-session')
    # A second launch without allowMultiple is refused, from options or JSON.
    expect_error('ALREADY_RUNNING', manager.launch_sync, options, None)
    expect_error('ALREADY_RUNNING', manager.launch_json_sync, launch_options(DEMO_APP), None)


@test
def list_windows_has_the_titled_window():
    session = state['session']
    windows = session.list_windows()
    assert [w.get_title() for w in windows] == [DEMO_TITLE], [w.get_title() for w in windows]
    window = windows[0]
    assert window.get_kind() == Stagewright.SurfaceKind.WINDOW
    assert Stagewright.SurfaceKind.to_string(window.get_kind()) == 'window'
    assert Stagewright.surface_kind_to_string(Stagewright.SurfaceKind.FRAME) == 'frame'
    assert window.get_window_id().startswith(session.get_id() + '-w'), window.get_window_id()
    assert window.get_parent_id() is None
    assert re.match(r'^[0-9A-F]{32}$', window.get_target_id()), window.get_target_id()
    assert window.get_url().endswith('/demo-app/index.html'), window.get_url()
    assert not window.is_closed()
    assert session.get_active_window() is window
    assert session.get_active_surface() is window


@test
def refresh_surfaces_async_finds_the_frames():
    session = state['session']

    def refresh():
        assert run_async(lambda done: session.refresh_surfaces_async(None, done),
                         lambda source, result: source.refresh_surfaces_finish(result)) is True
        return session.list_surfaces()

    # The embedded page of another origin loads after the window (the page
    # asks the main process for its URL first).
    deadline = time.monotonic() + 15
    surfaces = refresh()
    while (not any(re.match(r'^http://127\.0\.0\.1:\d+/', s.get_url() or '') for s in surfaces)
           and time.monotonic() < deadline):
        time.sleep(0.05)
        surfaces = refresh()
    window = session.list_windows()[0]
    assert surfaces[0] is window, 'parents first'
    frames = [s for s in surfaces if s.get_kind() == Stagewright.SurfaceKind.FRAME]
    assert len(frames) >= 2, [(s.get_id(), s.get_url()) for s in surfaces]
    for frame in frames:
        assert frame.get_parent_id() == window.get_id()
        assert frame.get_window_id() == window.get_window_id()
    assert len({s.get_id() for s in surfaces}) == len(surfaces)
    assert any(re.match(r'^http://127\.0\.0\.1:\d+/', f.get_url() or '') for f in frames), \
        [f.get_url() for f in frames]
    # Switching surfaces, and the errors for unknown ids.
    session.switch_surface(frames[0].get_id())
    assert session.get_active_surface() is frames[0]
    assert session.get_active_window() is window
    expect_error('SURFACE_NOT_FOUND', session.switch_surface, 'no-such-surface')
    session.switch_surface(window.get_id())
    assert session.get_active_surface() is window


@test
def get_info_async_reads_the_app():
    session = state['session']
    info = run_async(lambda done: session.get_info_async(None, done),
                     lambda source, result: source.get_info_finish(result))
    with open(os.path.join(FIXTURES, 'electron-standin', 'runtime.js')) as runtime:
        declared = re.search(r"const ELECTRON_VERSION = '([^']+)'", runtime.read()).group(1)
    assert info.get_version('electron') == declared, to_python(info.to_json())
    node = subprocess.run([os.environ.get('ELECTRON_STANDIN_NODE', 'node'), '-p', 'process.versions.node'],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert info.get_version('node') == node, (info.get_version('node'), node)
    chromium = re.search(r'(\d+\.\d+\.\d+\.\d+)',
                         subprocess.run([CHROMIUM, '--version'], capture_output=True, text=True).stdout).group(1)
    assert info.get_version('chrome') == chromium, (info.get_version('chrome'), chromium)
    assert info.has_app() and info.get_app_name() == DEMO_TITLE and info.get_app_version() == '1.0.0'
    assert info.get_app_path() == DEMO_APP and info.is_packaged() is False
    assert re.search(r'/stagewright-[A-Za-z0-9]{6}/profile$', info.get_user_data_path()), info.get_user_data_path()
    assert info.get_note('app.path') is None
    state['temp_root'] = os.path.dirname(info.get_user_data_path())
    assert os.path.isdir(state['temp_root'])


@test
def evaluate_in_main_and_renderer():
    session = state['session']
    value = run_async(lambda done: session.evaluate_main_async(
                          "require('electron').app.getName() + ' ' + (20 + 22)", None, done),
                      lambda source, result: source.evaluate_main_finish(result))
    assert to_python(value) == DEMO_TITLE + ' 42', to_python(value)
    value = run_async(lambda done: session.evaluate_renderer_async('document.title', None, done),
                      lambda source, result: source.evaluate_renderer_finish(result))
    assert to_python(value) == DEMO_TITLE
    error = None
    try:
        run_async(lambda done: session.evaluate_main_async("throw new Error('boom')", None, done),
                  lambda source, result: source.evaluate_main_finish(result))
    except GLib.Error as e:
        error = e
    assert error is not None and code_of(error) == 'EVAL_RUNTIME_ERROR' and 'boom' in error.message, error


@test
def capture_screenshot_async_gives_a_png():
    session = state['session']
    image = run_async(lambda done: session.capture_screenshot_async(None, Json.Object.new(), None, done),
                      lambda source, result: source.capture_screenshot_finish(result))
    data = image.get_bytes().get_data()
    width, height = png_size(data)
    assert width > 0 and height > 0, (width, height)
    options = Json.Object.new()
    options.set_string_member('format', 'jpeg')
    options.set_int_member('quality', 50)
    jpeg = run_async(lambda done: session.capture_screenshot_async(None, options, None, done),
                     lambda source, result: source.capture_screenshot_finish(result)).get_bytes().get_data()
    assert jpeg[:2] == b'\xff\xd8', jpeg[:4]


@test
def surface_screenshots_blocking_and_async():
    session = state['session']
    window = session.get_active_window()
    assert window.dup_session() is session
    assert window.get_frame_id() == window.get_target_id()
    assert window.get_cdp_session_id()
    caps = window.get_capabilities()
    assert caps == (Stagewright.CapabilityFlags.SNAPSHOT | Stagewright.CapabilityFlags.INTERACTION
                    | Stagewright.CapabilityFlags.RENDERER_EVAL), caps
    assert window.get_origin_relation() is None
    # The viewport, blocking.
    image = window.capture_screenshot_sync(None, None)
    width, height = png_size(image.get_bytes().get_data())
    ok, w, h = Stagewright.image_get_size(image.get_bytes())
    assert ok and (w, h) == (width, height) and width > 0 and height > 0, (ok, w, h, width, height)
    assert (image.get_width(), image.get_height()) == (width, height)
    # A clip, asynchronously.
    options = Stagewright.ScreenshotOptions.new()
    options.set_clip(5, 6, 70, 30)
    clipped = run_async(lambda done: window.capture_screenshot_async(options, None, done),
                        lambda source, result: source.capture_screenshot_finish(result))
    assert png_size(clipped.get_bytes().get_data()) == (70, 30)
    # An element, as JPEG, blocking.
    options = Stagewright.ScreenshotOptions.new()
    options.set_selector('#add')
    options.set_format(Stagewright.ImageFormat.JPEG)
    options.set_quality(60)
    element = window.capture_screenshot_sync(options, None)
    assert element.get_bytes().get_data()[:2] == b'\xff\xd8'
    ok, w, h = Stagewright.image_get_size(element.get_bytes())
    assert ok and 0 < w < width and 0 < h < height, (w, h)
    options.set_selector('#no-such-element')
    expect_error('SELECTOR_NO_MATCH', window.capture_screenshot_sync, options, None)
    # Frames are captured through their window; their origin relation is known.
    assert session.refresh_surfaces_sync(None) is True
    frames = [s for s in session.list_surfaces() if s.get_kind() == Stagewright.SurfaceKind.FRAME]
    relations = {f.get_origin_relation() for f in frames}
    assert {'same-origin', 'cross-origin'} <= relations, relations
    expect_error('SURFACE_UNSUPPORTED', frames[0].capture_screenshot_sync, None, None)
    # The session's convenience, blocking, and its JSON options refused typed.
    data = session.capture_screenshot_sync(None, None, None).get_bytes().get_data()
    assert png_size(data) == (width, height)
    bad = Json.Object.new()
    bad.set_string_member('format', 'gif')
    expect_error('BAD_ARGUMENT', session.capture_screenshot_sync, None, bad, None)
    caps = session.get_capabilities()
    assert caps & Stagewright.CapabilityFlags.MAIN_EVAL and caps & Stagewright.CapabilityFlags.OWNED, caps


@test
def switch_window_errors():
    session = state['session']
    expect_error('REF_NOT_FOUND', session.switch_window, None, 'No such window', -1)
    expect_error('REF_NOT_FOUND', session.switch_window, None, None, 5)
    session.switch_window(None, DEMO_TITLE, -1)
    session.switch_window(None, None, 0)
    session.switch_window(session.list_windows()[0].get_window_id(), None, -1)
    # A launched app is owned: detaching is refused.
    expect_error('TRANSPORT_UNSUPPORTED', session.detach)


@test
def stop_sync_stops_and_cleans_up():
    session, manager = state['session'], state['manager']
    pid = session.get_pid()
    exited = []
    session.connect('exited', lambda s: exited.append(s))
    started = time.monotonic()
    # A graceful quit answers as soon as the app is gone; the bound is only
    # how long it may take on a loaded machine before escalating.
    result = session.stop_sync(20000, None)
    state['stop_ms'] = (time.monotonic() - started) * 1000
    assert result == (True, False), result      # stopped, not escalated
    stopped, escalated = result
    assert escalated is False
    assert exited == [session], exited
    assert not session.is_running()
    assert manager.list_sessions() == []
    assert manager.lookup(session.get_id()) is None
    assert not alive(pid) and group_members(pid) == [], group_members(pid)
    assert not os.path.exists(state['temp_root']), 'the temporary root is removed'
    assert all(s.is_closed() for s in session.list_surfaces() + [session.get_active_window()] if s is not None)
    assert session.list_windows() == []
    expect_error('NOT_RUNNING', session.switch_window, None, None, 0)
    error = None
    try:
        run_async(lambda done: session.get_info_async(None, done),
                  lambda source, result: source.get_info_finish(result))
    except GLib.Error as e:
        error = e
    assert error is not None and code_of(error) == 'NOT_RUNNING', error
    print('# launch_sync %.0f ms, stop_sync %.0f ms' % (state['launch_ms'], state['stop_ms']))


# --- the others -----------------------------------------------------------------

@test
def launch_sync_errors_are_registry_codes():
    manager = Stagewright.SessionManager.new()
    expect_error('BAD_ARGUMENT', manager.launch_json_sync, '[1, 2]', None)
    expect_error('BAD_ARGUMENT', manager.launch_json_sync, '{}', None)
    expect_error('ABSOLUTE_PATH_REQUIRED', manager.launch_json_sync,
                 json.dumps({'executablePath': ELECTRON, 'main': 'tests/fixtures/demo-app'}), None)
    expect_error('FILE_NOT_FOUND', manager.launch_json_sync,
                 json.dumps({'executablePath': '/nonexistent/electron', 'main': DEMO_APP}), None)
    # The details (denied_env_keys, exit_code, log_tail) live in the GError's
    # private data, which PyGObject drops when it makes a GLib.Error: a
    # binding sees code and message only (the MCP envelope has the details).
    expect_error('BAD_ARGUMENT', manager.launch_json_sync, launch_options(DEMO_APP, env={'LD_PRELOAD': 'x'}), None)
    started = time.monotonic()
    expect_error('LAUNCH_FAILED', manager.launch_json_sync, launch_options(CRASH_APP, args=['--throw-at-load']), None)
    assert time.monotonic() - started < 10
    expect_error('LAUNCH_FAILED', manager.launch_json_sync, json.dumps({'executablePath': '/bin/false'}), None)
    # A fresh directory is outside wherever the tree was cloned (even under /tmp).
    elsewhere = tempfile.mkdtemp(prefix='stw-gi-root-')
    manager.set_app_root(elsewhere)
    expect_error('BAD_ARGUMENT', manager.launch_json_sync, launch_options(DEMO_APP), None)
    os.rmdir(elsewhere)
    assert manager.list_sessions() == []


@test
def window_added_signal_and_force_kill():
    manager = Stagewright.SessionManager.new()
    session = manager.launch_json_sync(launch_options(CRASH_APP, args=['--two-windows']), None)
    pid = session.get_pid()
    try:
        added = []
        session.connect('window-added', lambda s, window: added.append(window))
        assert spin(lambda: len(session.list_windows()) == 2, 15000), session.list_windows()
        assert len(added) == 1 and added[0] is session.list_windows()[1], added
        assert session.get_active_window() is session.list_windows()[0], 'the first window stays active'
        second = session.list_windows()[1]
        session.switch_window(second.get_window_id(), None, -1)
        assert session.get_active_window() is second
        exited = []
        session.connect('exited', lambda s: exited.append(True))
        session.force_kill()
        assert exited == [True] and not session.is_running()
        assert manager.list_sessions() == []
        assert spin(lambda: not alive(pid) and group_members(pid) == [], 10000), group_members(pid)
    finally:
        if session.is_running():
            session.stop_sync(2000, None)


@test
def session_kept_after_its_manager_is_dropped():
    # Defect 2: a session outlives its manager. force_kill must neither
    # crash nor log a critical (criticals are fatal here), and the disposed
    # session is not running.
    manager = Stagewright.SessionManager.new()
    session = manager.launch_json_sync(launch_options(DEMO_APP), None)
    pid = session.get_pid()
    window = session.get_active_window()
    assert session.is_running() and alive(pid)
    del manager
    import gc
    gc.collect()
    assert not session.is_running()
    session.force_kill()
    assert not session.is_running()
    assert window.is_closed()
    assert spin(lambda: not alive(pid) and group_members(pid) == [], 10000), group_members(pid)
    expect_error('NOT_RUNNING', window.capture_screenshot_sync, None, None)


@test
def a_disposed_session_ends_and_leaves_its_manager():
    # Disposing a session ends it the usual way: not running, its app
    # stopped, and the manager (through `exited`) no longer lists it.
    manager = Stagewright.SessionManager.new()
    session = manager.launch_json_sync(launch_options(DEMO_APP), None)
    pid = session.get_pid()
    exited = []
    session.connect('exited', lambda *args: exited.append(True))
    session.run_dispose()
    assert not session.is_running()
    assert exited == [True], exited
    assert manager.list_sessions() == [], manager.list_sessions()
    assert spin(lambda: not alive(pid) and group_members(pid) == [], 10000), group_members(pid)


@test
def attach_sync_and_detach_leave_the_app_running():
    tmpdir = tempfile.mkdtemp(prefix='stw-gi-')
    drain = None
    # attach opens the main process's inspector: off 9229, which inject tests need.
    app = subprocess.Popen([ELECTRON, '--remote-debugging-port=0', '--inspect-port=0', DEMO_APP],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           start_new_session=True, env=dict(os.environ, TMPDIR=tmpdir))
    try:
        url = None
        deadline = time.monotonic() + 30
        while url is None and time.monotonic() < deadline:
            line = app.stderr.readline().decode('utf-8', 'replace')
            if not line:
                break
            match = re.match(r'DevTools listening on (ws://\S+)', line)
            url = match.group(1) if match else None
        assert url, 'the stand-in announced DevTools'
        # Keep draining its stderr, as an app's pipe must be.
        drain = GLib.io_add_watch(app.stderr.fileno(), GLib.IO_IN | GLib.IO_HUP,
                                  lambda fd, cond: bool(os.read(fd, 65536)))
        manager = Stagewright.SessionManager.new()
        session = manager.attach_sync(json.dumps({'cdpUrl': url}), None)
        assert session.get_transport_name() == 'cdp'
        # The main process is found through the endpoint's socket.
        assert not session.is_owned() and session.has_main_process()
        assert spin(lambda: len(session.list_windows()) == 1, 10000)
        assert session.detach() is True
        assert not session.is_running() and manager.list_sessions() == []
        time.sleep(0.3)
        assert app.poll() is None and alive(app.pid), 'the app still runs after detach'
        # Loopback only.
        expect_error('BAD_ARGUMENT', manager.attach_sync, json.dumps({'cdpUrl': 'ws://192.0.2.1:1/x'}), None)
    finally:
        # The watch must go before the fd does: a later socket or pipe
        # reusing the number would otherwise have its data read here.
        if drain is not None:
            GLib.source_remove(drain)
        kill_group(app.pid)
        app.wait(10)
        app.stderr.close()
        # The stand-in's Chromium helpers that left the group name tmpdir.
        for name in os.listdir('/proc'):
            if name.isdigit():
                try:
                    with open('/proc/%s/cmdline' % name, 'rb') as cmdline:
                        if tmpdir.encode() in cmdline.read():
                            os.kill(int(name), signal.SIGKILL)
                except OSError:
                    pass
        subprocess.run(['rm', '-rf', '--', tmpdir], check=False)


@test
def plain_chromium_has_no_main_process():
    # A URL in Chromium, no Electron main: main-process operations answer
    # TRANSPORT_UNSUPPORTED, renderer ones work, stop leaves nothing.
    manager = Stagewright.SessionManager.new()
    chromium = '/usr/lib/chromium/chromium'
    launch_json = json.dumps({
        'executablePath': chromium, 'pipe': True,
        'args': ['--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking',
                 '--disable-component-update', '--disable-sync',
                 'data:text/html,<title>Plain</title><p>plain</p>']})
    started = time.monotonic()
    try:
        session = manager.launch_json_sync(launch_json, None)
    except GLib.Error as error:
        raise AssertionError('launch failed after %.0f ms: %s' % ((time.monotonic() - started) * 1000,
                                                                 error.message))
    try:
        assert not session.has_main_process()
        error = None
        try:
            run_async(lambda done: session.evaluate_main_async('1 + 1', None, done),
                      lambda source, result: source.evaluate_main_finish(result))
        except GLib.Error as e:
            error = e
        assert error is not None and code_of(error) == 'TRANSPORT_UNSUPPORTED', error
        value = run_async(lambda done: session.evaluate_renderer_async('document.title', None, done),
                          lambda source, result: source.evaluate_renderer_finish(result))
        assert to_python(value) == 'Plain', to_python(value)
    finally:
        pid = session.get_pid()
        stopped, escalated = session.stop_sync(5000, None)
    assert stopped and not alive(pid)
    assert group_members(pid) == [], group_members(pid)


def cleanup():
    session = state.get('session')
    if session is not None and session.is_running():
        session.stop_sync(2000, None)


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, skip_reason(), cleanup))
