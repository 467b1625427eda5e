# stwtest.py: what the gi tests written in Python share — where the fixtures
# are, turning library values into Python data, error codes, running an
# _async/_finish pair under a main loop, and a TAP runner.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Import it after setting nothing: it sets G_DEBUG=fatal-criticals (a failed
# precondition in the library aborts the run) and arms a watchdog so a hung
# wait fails the run instead of hanging it.

import faulthandler
import json
import os
import sys
import time
import traceback

os.environ['G_DEBUG'] = ','.join(filter(None, [os.environ.get('G_DEBUG'), 'fatal-criticals']))

import gi  # noqa: E402

gi.require_version('Stagewright', '1.0')
gi.require_version('Json', '1.0')
from gi.repository import Gio, GLib, Json, Stagewright  # noqa: E402,F401

faulthandler.dump_traceback_later(300, exit=True)

TOP_SRCDIR = os.path.abspath(os.environ.get('STW_TOP_SRCDIR') or
                             os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
FIXTURES = os.path.join(TOP_SRCDIR, 'tests', 'fixtures')
ELECTRON = os.path.join(FIXTURES, 'electron')
PAGES_APP = os.path.join(FIXTURES, 'pages-app')
CHROMIUM = os.environ.get('STW_CHROMIUM', '/usr/lib/chromium/chromium')


def missing_fixture(*paths):
    """Why the tests cannot run here, or None."""
    for path in (ELECTRON, CHROMIUM) + paths:
        if not os.path.exists(path):
            return '%s is missing' % path
    return None


def page_launch_options(page):
    """electron_launch arguments for a page of the pages app."""
    return json.dumps(dict(executablePath=ELECTRON, main=PAGES_APP, args=['--page=' + page]))


def to_python(value):
    """A Json.Object or Json.Node, or a typed element result, as Python data
    (what the override answers where the API speaks JSON already is)."""
    if value is None or isinstance(value, (dict, list, str, int, float, bool)):
        return value
    if isinstance(value, Stagewright.ElementList):
        matches = [to_python(value.get_element(i).to_json()) for i in range(value.get_n_elements())]
        return {'surface_id': value.get_surface_id(), 'count': value.get_count(),
                'truncated': value.get_count() - len(matches), 'matches': matches,
                'renderer_reloaded': value.get_renderer_reloaded()}
    if isinstance(value, Stagewright.ActionResult):
        typed = {'target': value.get_target(), 'source': value.get_source(), 'dialog': value.get_dialog()}
        answer = {key: to_python(found) for key, found in typed.items() if found is not None}
        if value.get_values() is not None:
            answer['values'] = list(value.get_values())
        return answer
    if isinstance(value, (Stagewright.ElementRef, Stagewright.ElementState, Stagewright.DialogEvent,
                          Stagewright.Snapshot, Stagewright.AppInfo, Stagewright.ConsoleLog,
                          Stagewright.DialogLog, Stagewright.DialogPolicy)):
        value = value.to_json()
    if isinstance(value, Json.Object):
        value = Json.Node.alloc().init_object(value)
    if isinstance(value, Json.Array):
        value = Json.Node.alloc().init_array(value)
    return json.loads(Json.to_string(value, False))


def code_of(error):
    """The registry code name of a GLib.Error from the library."""
    assert error.domain == GLib.quark_to_string(Stagewright.error_quark()), error.domain
    return Stagewright.error_code_to_string(Stagewright.Error(error.code))


def expect_error(code, fn, *args):
    try:
        fn(*args)
    except GLib.Error as error:
        assert code_of(error) == code, (code_of(error), error.message)
        return error
    raise AssertionError('expected %s' % code)


def run_async(start, finish, timeout_ms=30000):
    """Runs an _async/_finish pair under a GLib.MainLoop on the default context."""
    loop = GLib.MainLoop()
    box = {}

    def done(source, result, *user_data):
        try:
            box['value'] = finish(source, result)
        except Exception as error:  # noqa: BLE001 (re-raised below)
            box['error'] = error
        loop.quit()

    def expired():
        box['timeout'] = True
        loop.quit()
        return GLib.SOURCE_REMOVE

    timer = GLib.timeout_add(timeout_ms, expired)
    start(done)
    loop.run()
    if 'timeout' in box:
        raise AssertionError('no answer within %d ms' % timeout_ms)
    GLib.source_remove(timer)
    if 'error' in box:
        raise box['error']
    return box['value']


def spin(predicate, timeout_ms):
    """Iterates the default context until predicate() holds (or time runs out)."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + timeout_ms / 1000
    while not predicate() and time.monotonic() < deadline:
        context.iteration(False)
        time.sleep(0.005)
    return predicate()


def run_tap(tests, skip_reason=None, cleanup=None):
    """Runs test functions as one TAP stream; returns the exit status."""
    print('1..%d' % len(tests))
    failed = 0
    for number, fn in enumerate(tests, 1):
        name = fn.__name__.replace('_', ' ')
        if skip_reason:
            print('ok %d - %s # SKIP %s' % (number, name, skip_reason))
            continue
        started = time.monotonic()
        try:
            fn()
        except Exception:
            failed += 1
            print('not ok %d - %s' % (number, name))
            for line in traceback.format_exc().splitlines():
                print('# ' + line)
        else:
            print('ok %d - %s' % (number, name))
            print('# %.0f ms' % ((time.monotonic() - started) * 1000))
        sys.stdout.flush()
    if cleanup is not None:
        cleanup()
    return 1 if failed else 0


def expect_plugin_code(domain, code, wire_code, fn, *args):
    """Calls fn(*args), which must fail with a first-party plugin's code: a
    GLib.Error in the plugin's own domain (StagewrightIpc.ipc_error_quark())
    with code (StagewrightIpc.IpcError.EVAL_REQUIRED), whose wire code is
    wire_code ('ipc.EVAL_REQUIRED'). Returns the error."""
    try:
        fn(*args)
    except GLib.Error as error:
        assert error.matches(domain, code), (error.domain, error.code, error.message)
        name = Stagewright.error_get_code_name(error)
        assert name == wire_code, (name, wire_code, error.message)
        return error
    raise AssertionError('expected %s' % wire_code)
