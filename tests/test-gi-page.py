#!/usr/bin/python3
# test-gi-page.py: the read family of StwSurface and element screenshots
# through GObject Introspection, from Python: blocking (_sync) and async
# (a GLib main loop) on the fixture pages of the pages app, no MCP involved.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs under Debian's /usr/bin/python3 (it has PyGObject); prints TAP. By
# hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-page.py

import os
import struct
import sys

from stwtest import (GLib, Json, PAGES_APP, Stagewright, code_of, expect_error,
                     missing_fixture, page_launch_options, run_async, run_tap, spin, to_python)

TESTS = []
state = {}


def test(fn):
    TESTS.append(fn)
    return fn


def png_size(data):
    assert data[:8] == b'\x89PNG\r\n\x1a\n', data[:8]
    return struct.unpack('>II', data[16:24])


def sel(selector):
    return Stagewright.Target.new_for_selector(selector)


def launch(page):
    manager = state.setdefault('manager', Stagewright.SessionManager.new())
    session = manager.launch_json_sync(page_launch_options(page), None)
    state['session'] = session
    window = session.get_active_window()
    # The page's own title says it has loaded.
    assert spin(lambda: (session.refresh_surfaces_sync(None) or True) and
                (window.get_title() or '').endswith('fixture'), 15000), window.get_title()
    return session, window


def stop():
    session = state.pop('session', None)
    if session is not None and session.is_running():
        session.stop_sync(2000, None)


def assert_element(element):
    element = to_python(element)
    assert isinstance(element['ref'], int) and element['ref'] > 0, element
    assert isinstance(element['role'], str) and isinstance(element['name'], str), element
    return element


@test
def reads_block_on_the_forms_page():
    session, window = launch('forms')
    state['window'] = window

    text, element = window.get_text_sync(sel('#save'), None)
    assert text == 'Save', text
    save = assert_element(element)
    assert window.get_text_sync(sel('#phone'), None)[0] == 'Phone number'
    # A ref reads like its selector, and names the same element.
    text, again = window.get_text_sync(Stagewright.Target.new_for_ref(save['ref']), None)
    assert text == 'Save' and to_python(again)['ref'] == save['ref']

    assert window.get_value_sync(sel('#volume'), None)[0] == '5'
    assert window.get_value_sync(sel('#plan'), None)[0] == 'free'
    value, element = window.get_value_sync(sel('h1'), None)
    assert value is None and element is not None, 'no value is None, not an error'

    assert window.get_attribute_sync(sel('#email'), 'type', None)[0] == 'email'
    assert window.get_attribute_sync(sel('#email'), 'data-none', None)[0] is None

    box, element = window.get_bbox_sync(sel('#save'), None)
    x, y, width, height = box.x, box.y, box.width, box.height
    assert width > 20 and height > 10 and x >= 0 and y >= 0, (x, y, width, height)

    style, element = window.get_computed_style_sync(sel('#overlay'), ['position', 'background-color'], None)
    assert to_python(style) == {'position': 'fixed', 'background-color': 'rgba(40, 40, 60, 0.85)'}, to_python(style)

    states, element = window.get_state_sync(sel('#delete'), None)
    states = to_python(states)
    assert states['disabled'] is True and states['enabled'] is False and states['visible'] is True, states

    exists, element = window.exists_sync(sel('#save'), None)
    assert exists is True and to_python(element)['ref'] == save['ref']
    exists, element = window.exists_sync(sel('#no-such-thing'), None)
    assert exists is False and element is None
    assert window.exists_sync(Stagewright.Target.new_for_ref(999999), None)[0] is False

    assert window.get_focused_element_sync(None) is None

    # Failures are registry errors.
    expect_error('SELECTOR_NO_MATCH', window.get_text_sync, sel('#no-such-thing'), None)
    expect_error('BAD_ARGUMENT', window.get_text_sync, sel('button['), None)
    expect_error('REF_NOT_FOUND', window.get_value_sync, Stagewright.Target.new_for_ref(999999), None)
    expect_error('BAD_ARGUMENT', window.get_attribute_sync, sel('#save'), '', None)
    expect_error('BAD_ARGUMENT', window.get_computed_style_sync, sel('#save'), [], None)
    expect_error('BAD_ARGUMENT', window.get_computed_style_sync, sel('#save'), ['color;x'], None)
    expect_error('BAD_ARGUMENT', window.get_computed_style_sync, sel('#save'), ['color'] * 51, None)


@test
def reads_run_async_under_a_main_loop():
    window = state['window']
    text, element = run_async(lambda done: window.get_text_async(sel('#email'), None, done),
                              lambda source, result: source.get_text_finish(result))
    assert text == 'Email' and assert_element(element)
    value, element = run_async(lambda done: window.get_value_async(sel('#account-id'), None, done),
                               lambda source, result: source.get_value_finish(result))
    assert value == 'ACC-0042'
    value, element = run_async(lambda done: window.get_attribute_async(sel('#username'), 'aria-invalid', None, done),
                               lambda source, result: source.get_attribute_finish(result))
    assert value == 'true'
    box, element = run_async(lambda done: window.get_bbox_async(sel('#email'), None, done),
                             lambda source, result: source.get_bbox_finish(result))
    assert box.width > 0 and box.height > 0, (box.width, box.height)
    style, element = run_async(lambda done: window.get_computed_style_async(sel('#overlay'), ['position'], None, done),
                               lambda source, result: source.get_computed_style_finish(result))
    assert to_python(style) == {'position': 'fixed'}
    states, element = run_async(lambda done: window.get_state_async(sel('#email'), None, done),
                                lambda source, result: source.get_state_finish(result))
    assert to_python(states)['required'] is True
    exists, element = run_async(lambda done: window.exists_async(sel('#nope'), None, done),
                                lambda source, result: source.exists_finish(result))
    assert exists is False
    focused = run_async(lambda done: window.get_focused_element_async(None, done),
                        lambda source, result: source.get_focused_element_finish(result))
    assert focused is None

    # Several in flight at once, on one world.
    loop = GLib.MainLoop()
    answers = {}

    def collect(name):
        def done(source, result):
            answers[name] = source.get_text_finish(result)[0]
            if len(answers) == 3:
                loop.quit()
        return done
    for name in ('#save', '#email', '#phone'):
        window.get_text_async(sel(name), None, collect(name))
    loop.run()
    assert answers == {'#save': 'Save', '#email': 'Email', '#phone': 'Phone number'}, answers

    try:
        run_async(lambda done: window.get_text_async(sel('#no-such-thing'), None, done),
                  lambda source, result: source.get_text_finish(result))
    except GLib.Error as error:
        assert code_of(error) == 'SELECTOR_NO_MATCH'
    else:
        raise AssertionError('expected SELECTOR_NO_MATCH')


@test
def element_screenshots_by_target_and_bounded():
    window = state['window']
    options = Stagewright.ScreenshotOptions.new()
    options.set_target(sel('#save'))
    assert options.get_selector() == '#save'
    image = window.capture_screenshot_sync(options, None)
    box, element = window.get_bbox_sync(sel('#save'), None)
    width, height = box.width, box.height
    size = png_size(image.get_bytes().get_data())
    assert abs(size[0] - width) <= 1 and abs(size[1] - height) <= 1, (size, width, height)

    bounded = Stagewright.ScreenshotOptions.new()
    bounded.set_max_size(200, 0)
    assert bounded.get_max_size() == (True, 200, 0)
    image = run_async(lambda done: window.capture_screenshot_async(bounded, None, done),
                      lambda source, result: source.capture_screenshot_finish(result))
    assert png_size(image.get_bytes().get_data())[0] <= 200, png_size(image.get_bytes().get_data())

    parsed = Stagewright.ScreenshotOptions.new_from_json(Json.from_string('{"ref": 3, "maxWidth": 64}').get_object())
    assert parsed.get_target().get_ref() == 3
    for bad in ('{"maxWidth": 0}', '{"maxHeight": 99999}', '{"ref": 0}', '{"ref": 1, "selector": "a"}',
                '{"selector": "a", "fullPage": true}'):
        expect_error('BAD_ARGUMENT', Stagewright.ScreenshotOptions.new_from_json, Json.from_string(bad).get_object())
    stop()


@test
def frames_read_by_ref_from_the_window():
    session, window = launch('frames')
    assert spin(lambda: (session.refresh_surfaces_sync(None) or True) and
                len([s for s in session.list_surfaces()
                     if s.get_kind() == Stagewright.SurfaceKind.FRAME and (s.get_url() or '').startswith('http')]) >= 2,
                15000)
    cross = [s for s in session.list_surfaces() if s.get_origin_relation() == 'cross-origin'][0]
    text, element = cross.get_text_sync(sel('#inner-heading'), None)
    assert text == 'Inner cross-origin frame', text
    ref = Stagewright.Target.new_for_ref(assert_element(element)['ref'])
    # The window resolves the frame's ref in its frame; the box is the window's.
    assert window.get_text_sync(ref, None)[0] == 'Inner cross-origin frame'
    frame_box, owner = window.get_bbox_sync(sel('#cross-frame'), None)
    fx, fy, fh = frame_box.x, frame_box.y, frame_box.height
    box, element = window.get_bbox_sync(ref, None)
    x, y, w, h = box.x, box.y, box.width, box.height
    assert abs(x - (fx + 4 + 6 + 8)) < 0.02 and fy < y < fy + fh, (fx, fy, x, y)

    options = Stagewright.ScreenshotOptions.new()
    options.set_target(ref)
    image = window.capture_screenshot_sync(options, None)
    size = png_size(image.get_bytes().get_data())
    assert abs(size[0] - w) <= 1 and abs(size[1] - h) <= 1, (size, w, h)
    # A whole frame is still captured through its window.
    expect_error('SURFACE_UNSUPPORTED', cross.capture_screenshot_sync, None, None)
    stop()


def cleanup():
    stop()


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, missing_fixture(os.path.join(PAGES_APP, 'package.json')), cleanup))
