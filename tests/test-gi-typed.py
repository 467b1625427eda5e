#!/usr/bin/python3
# test-gi-typed.py: driving a page through the typed results of the 1.0 API,
# from Python through GObject Introspection — blocking and async.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The pages app's states page (tests/fixtures/pages-app, states.html) on the
# Electron stand-in: a click by ref answers an ActionResult whose target is
# an ElementRef; get_state answers an ElementState (known, values, mixed
# StateFlags); a box is a Box; a screenshot is a Screenshot (bytes, size,
# format, scale factor, saved path); a stale ref raises the REF_NOT_FOUND enum
# value of Stagewright.Error. Runs under Debian's /usr/bin/python3; prints TAP.

import os
import re
import sys

from stwtest import (ELECTRON, GLib, Json, PAGES_APP, Stagewright, missing_fixture, run_async, run_tap)

TESTS = []
state = {}
Flags = Stagewright.StateFlags


def test(fn):
    TESTS.append(fn)
    return fn


def by_ref(name):
    return Stagewright.Target.new_for_ref(state['refs'][name])


def ref_in(text, role, name):
    found = re.findall(r'^[ ~]*\[(\d+)\] %s "%s"(?: |$)' % (re.escape(role), re.escape(name)), text, re.M)
    assert len(found) == 1, (role, name, text)
    return int(found[0])


@test
def launch_async_with_options_and_snapshot():
    options = Stagewright.LaunchOptions.new()
    options.set_executable_path(ELECTRON)
    options.set_main(PAGES_APP)
    options.set_args(['--page=states'])
    manager = Stagewright.SessionManager.new()
    state['manager'] = manager
    session = run_async(lambda done: manager.launch_async(options, None, done),
                        lambda source, result: source.launch_finish(result), 60000)
    state['session'] = session
    window = session.get_active_surface()
    state['window'] = window
    snapshot_options = Stagewright.SnapshotOptions.new()
    snapshot_options.set_format(Stagewright.SnapshotFormat.TEXT)
    snapshot = window.snapshot_sync(snapshot_options, None)
    assert not snapshot.is_diff() and snapshot.get_surface_id() == window.get_id()
    text = snapshot.get_text()
    assert snapshot.get_entry_count() >= 5 and snapshot.get_entries() is None
    state['refs'] = {name: ref_in(text, role, label) for name, role, label in (
        ('go', 'button', 'Go'), ('remove', 'button', 'Remove Go'), ('all', 'checkbox', 'Select all'),
        ('first', 'checkbox', 'First'), ('name', 'textbox', 'Name'))}


@test
def find_async_and_list_blocking():
    window = state['window']
    filters = Json.Object()
    filters.set_string_member('role', 'checkbox')
    found = run_async(lambda done: window.find_async(filters, None, done),
                      lambda source, result: source.find_finish(result))
    assert isinstance(found, Stagewright.ElementList)
    assert found.get_count() == found.get_n_elements() == 2
    first = found.get_element(0)
    assert first.get_element().get_ref() == state['refs']['all'] and first.get_box().width > 0
    listed = window.list_elements_sync('button', 1, None)
    assert listed.get_count() == 3 and listed.get_n_elements() == 1
    assert listed.get_element(0).get_tag() == 'button'
    assert listed.get_element(0).get_element().get_ref() == state['refs']['go']


@test
def fill_blocking_click_async_by_ref():
    window = state['window']
    filled = window.fill_sync(by_ref('name'), 'Grace', None, None)
    target = filled.get_target()
    assert isinstance(target, Stagewright.ElementRef), target
    assert (target.get_ref(), target.get_role(), target.get_name()) == (state['refs']['name'], 'textbox', 'Name')

    clicked = run_async(lambda done: window.click_async(by_ref('go'), None, None, done),
                        lambda source, result: source.click_finish(result))
    target = clicked.get_target()
    assert target.get_ref() == state['refs']['go'] and target.get_role() == 'button', target.get_name()
    assert target.get_surface_id() == window.get_id()
    assert clicked.get_dialog() is None and clicked.get_source() is None

    text, element = window.get_text_sync(Stagewright.Target.new_for_selector('#status'), None)
    assert text == 'Went Grace', text
    assert element.get_role() == 'status'


@test
def state_blocking_and_async():
    window = state['window']
    mixed, element = window.get_state_sync(by_ref('all'), None)
    assert isinstance(mixed, Stagewright.ElementState)
    assert element.get_ref() == state['refs']['all']
    assert mixed.known & Flags.CHECKED and mixed.mixed == Flags.CHECKED, (mixed.known, mixed.mixed)
    assert not mixed.values & Flags.CHECKED and mixed.values & Flags.VISIBLE

    first, element = run_async(lambda done: window.get_state_async(by_ref('first'), None, done),
                               lambda source, result: source.get_state_finish(result))
    assert first.values & Flags.CHECKED and not first.mixed, (first.values, first.mixed)

    name, element = window.get_state_sync(by_ref('name'), None)
    assert not name.known & (Flags.CHECKED | Flags.PRESSED), name.known
    assert name.known & name.values & Flags.REQUIRED

    wanted = Stagewright.ElementState.new(Flags.CHECKED | Flags.ENABLED, Flags.ENABLED, Flags.CHECKED)
    met, element = window.expect_state_sync(by_ref('all'), wanted, 0, None)
    assert met.matches(wanted)
    try:
        window.expect_state_sync(by_ref('first'), Stagewright.ElementState.new(Flags.CHECKED, 0, 0), 0, None)
        raise AssertionError('expected EXPECTATION_FAILED')
    except GLib.Error as error:
        assert error.matches(Stagewright.error_quark(), Stagewright.Error.EXPECTATION_FAILED), error.message


@test
def box_blocking_and_async():
    window = state['window']
    box, element = window.get_bbox_sync(by_ref('go'), None)
    assert isinstance(box, Stagewright.Box)
    assert (round(box.x), round(box.y), round(box.width), round(box.height)) == (40, 200, 120, 30), \
        (box.x, box.y, box.width, box.height)
    again, element = run_async(lambda done: window.get_bbox_async(by_ref('go'), None, done),
                               lambda source, result: source.get_bbox_finish(result))
    assert again.width == box.width and element.get_ref() == state['refs']['go']


def png_header_size(data):
    """The PNG's own IHDR, read by hand."""
    assert data[:8] == b'\x89PNG\r\n\x1a\n' and data[12:16] == b'IHDR', data[:16]
    return int.from_bytes(data[16:20], 'big'), int.from_bytes(data[20:24], 'big')


@test
def screenshots_blocking_and_async():
    window = state['window']
    shot = window.capture_screenshot_sync(None, None)
    assert isinstance(shot, Stagewright.Screenshot)
    data = bytes(shot)
    assert data == shot.get_bytes().get_data() == shot.props.bytes.get_data()
    assert png_header_size(data) == (shot.get_width(), shot.get_height()) == (shot.props.width, shot.props.height)
    assert shot.get_width() > 0
    assert shot.props.format == Stagewright.ImageFormat.PNG and shot.get_mime_type() == 'image/png'
    assert shot.props.scale_factor == 0 and shot.props.path is None  # unmeasured, unsaved

    options = Stagewright.ScreenshotOptions.new()
    options.set_clip(40, 200, 120, 30)  # #go's box
    clipped = run_async(lambda done: window.capture_screenshot_async(options, None, done),
                        lambda source, result: source.capture_screenshot_finish(result))
    width, height = png_header_size(bytes(clipped))
    scale = clipped.get_scale_factor()
    assert scale > 0 and (clipped.get_width(), clipped.get_height()) == (width, height)
    assert abs(width - 120 * scale) <= 1 and abs(height - 30 * scale) <= 1, (width, height, scale)

    jpeg = run_async(lambda done: state['session'].capture_screenshot_async(None, {'format': 'jpeg'}, None, done),
                     lambda source, result: source.capture_screenshot_finish(result))
    assert jpeg.get_format() == Stagewright.ImageFormat.JPEG and bytes(jpeg)[:2] == b'\xff\xd8'
    assert (jpeg.get_width(), jpeg.get_height()) == (shot.get_width(), shot.get_height())

    notified = []
    clipped.connect('notify::path', lambda *_: notified.append(clipped.props.path))
    directory = GLib.Dir.make_tmp('stw-shot-XXXXXX')
    path = os.path.join(directory, 'go.png')
    try:
        assert clipped.save(path)
        with open(path, 'rb') as saved:
            assert saved.read() == bytes(clipped)
        assert clipped.get_path() == path and notified == [path]
    finally:
        if os.path.exists(path):
            os.unlink(path)
        os.rmdir(directory)
    try:
        Stagewright.Screenshot.new_from_bytes(GLib.Bytes.new(b'not an image at all'))
        raise AssertionError('not an image, wrapped')
    except GLib.Error as error:
        assert error.matches(Stagewright.error_quark(), Stagewright.Error.BAD_ARGUMENT), error


@test
def state_as_properties_with_notify():
    session, window = state['session'], state['window']
    assert session.props.running and session.props.owned and session.props.pid == session.get_pid() > 0
    assert session.props.active_surface == window
    assert window.props.title == 'States fixture' and window.props.kind == Stagewright.SurfaceKind.WINDOW
    assert window.props.closed is False
    titles = []
    handler = window.connect('notify::title', lambda surface, pspec: titles.append(surface.props.title))
    window.click_sync(Stagewright.Target.new_for_selector('#retitle'), None, None)
    context = GLib.MainContext.default()
    deadline = GLib.get_monotonic_time() + 10 * 1000000
    while not titles and GLib.get_monotonic_time() < deadline:
        session.refresh_surfaces_sync(None)
        context.iteration(False)
    window.disconnect(handler)
    assert titles and titles[-1] == 'Retitled', titles


@test
def app_info_and_window_state_blocking_and_async():
    session, window = state['session'], state['window']
    info = session.get_info_sync(None)
    assert info.has_app() and info.get_app_version() == '1.0.0' and not info.is_packaged()
    assert info.get_version('electron') and info.get_version('chrome') and info.get_protocol_version()
    assert info.get_note('app.path') is None
    again = run_async(lambda done: session.get_info_async(None, done),
                      lambda source, result: source.get_info_finish(result))
    assert again.get_app_name() == info.get_app_name() and again.get_app_name()
    assert session.get_capabilities() & Stagewright.CapabilityFlags.MAIN_EVAL
    assert window.get_capabilities() & Stagewright.CapabilityFlags.INTERACTION
    run_async(lambda done: session.refresh_window_states_async(None, done),
              lambda source, result: source.refresh_window_states_finish(result))
    window_state = session.dup_window_state(window)
    assert window_state.get_electron_id() > 0 and window_state.is_visible()
    assert not window_state.is_minimized() and not window_state.is_fullscreen()
    bounds = window_state.get_bounds()
    assert bounds.width > 0 and bounds.height > 0, (bounds.width, bounds.height)


@test
def console_messages_and_dialog_events_blocking_and_async():
    session, window = state['session'], state['window']
    session.run_renderer_sync("console.error('typed from python'); setTimeout(() => alert('python alert'), 0);"
                              " return 1;", None, 0, None)
    logged = Json.Object.new()
    logged.set_string_member('match', '^typed from python$')
    alerts = Json.Object.new()
    alerts.set_string_member('type', 'alert')
    context = GLib.MainContext.default()
    deadline = GLib.get_monotonic_time() + 10 * 1000000
    while GLib.get_monotonic_time() < deadline:
        log = session.read_console(logged)
        dialogs = run_async(lambda done: session.read_dialog_events_async(alerts, None, done),
                            lambda source, result: source.read_dialog_events_finish(result))
        if log.get_n_messages() > 0 and dialogs.get_n_events() > 0:
            break
        context.iteration(False)
    assert log.get_n_messages() == 1 and dialogs.get_n_events() == 1
    message = log.get_message(0)
    assert message.get_text() == 'typed from python' and message.get_level() == 'error'
    assert message.get_source() == 'renderer' and message.get_surface_id() == window.get_id()
    assert message.get_timestamp() > 0 and not message.is_exception()
    event = dialogs.get_event(0)
    assert event.get_kind() == 'alert' and event.get_message() == 'python alert'
    assert event.get_action() == 'dismiss' and event.get_window_id() == window.get_window_id()
    assert dialogs.get_policy().get_action() == 'dismiss' and dialogs.is_native()
    alerts.set_boolean_member('clear', True)
    assert session.read_dialog_events_sync(alerts, None).get_n_events() == 1
    # clear emptied the log: the next read finds nothing.
    assert session.read_dialog_events_sync(alerts, None).get_n_events() == 0


@test
def a_stale_ref_raises_the_enum():
    window = state['window']
    window.click_sync(by_ref('remove'), None, None)
    try:
        window.click_sync(by_ref('go'), None, None)
        raise AssertionError('expected REF_NOT_FOUND')
    except GLib.Error as error:
        assert error.matches(Stagewright.error_quark(), Stagewright.Error.REF_NOT_FOUND), error.message
    try:
        run_async(lambda done: window.get_text_async(by_ref('go'), None, done),
                  lambda source, result: source.get_text_finish(result))
        raise AssertionError('expected REF_NOT_FOUND')
    except GLib.Error as error:
        assert error.matches(Stagewright.error_quark(), Stagewright.Error.REF_NOT_FOUND), error.message


@test
def stop():
    session, window = state['session'], state['window']
    seen = []
    session.connect('notify::running', lambda session, pspec: seen.append(('running', session.props.running)))
    window.connect('notify::closed', lambda surface, pspec: seen.append(('closed', surface.props.closed)))
    session.stop_sync(10000, None)
    assert not session.is_running()
    assert ('running', False) in seen and ('closed', True) in seen, seen


def cleanup():
    session = state.get('session')
    if session is not None and session.is_running():
        session.stop_sync(5000, None)


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, missing_fixture(os.path.join(PAGES_APP, 'pages', 'states.html')), cleanup))
