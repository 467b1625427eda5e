#!/usr/bin/python3
# test-gi-actions.py: the interaction methods of Stagewright.Surface through
# GObject Introspection, from Python — blocking and async, string arrays,
# nullable targets and options, errors as GLib.Error with registry codes.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs under Debian's /usr/bin/python3 (it has PyGObject); prints TAP. The
# app is the pages app (tests/fixtures/pages-app, forms.html) on the Electron
# stand-in. By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-actions.py

import os
import sys
import tempfile
import time

from stwtest import (FIXTURES, Gio, GLib, PAGES_APP, Stagewright, expect_error, missing_fixture,
                     page_launch_options, run_tap, to_python)

TESTS = []
state = {}


def test(fn):
    TESTS.append(fn)
    return fn


def sel(selector):
    return Stagewright.Target.new_for_selector(selector)


def value(selector):
    return state['window'].get_value_sync(sel(selector), None)[0]


def events():
    return state['window'].get_text_sync(sel('#events'), None)[0]


@test
def launch_the_pages_app():
    manager = Stagewright.SessionManager.new()
    state['manager'] = manager
    state['session'] = manager.launch_json_sync(page_launch_options('forms'), None)
    state['window'] = state['session'].get_active_surface()
    assert state['window'] is not None


@test
def click_blocking_by_selector_then_by_ref():
    window = state['window']
    answer = to_python(window.click_sync(sel('#bold'), None, None))
    ref = answer['target']['ref']
    assert ref >= 1, answer
    assert 'click #bold button=0 detail=1 trusted=1' in events()
    again = to_python(window.click_sync(Stagewright.Target.new_for_ref(ref), None, None))
    assert again['target']['ref'] == ref, again


@test
def click_options_and_refusals():
    window = state['window']
    options = Stagewright.ActionOptions.new()
    options.set_button('right')
    window.click_sync(sel('#context'), options, None)
    assert 'contextmenu #context button=2 trusted=1' in events()
    options = Stagewright.ActionOptions.new()
    options.set_timeout_ms(200)
    error = expect_error('ELEMENT_NOT_VISIBLE', window.click_sync, sel('#covered'), options, None)
    assert 'div#overlay' in error.message, error.message
    expect_error('ELEMENT_DISABLED', window.click_sync, sel('#delete'), None, None)


@test
def fill_async_and_keys():
    window = state['window']
    loop = GLib.MainLoop()
    box = {}

    def done(source, result):
        box['answer'] = to_python(source.fill_finish(result))
        loop.quit()

    window.fill_async(sel('#fullname'), 'Ada Lovelace', None, None, done)
    GLib.timeout_add(20000, loop.quit)
    loop.run()
    assert 'target' in box.get('answer', {}), box
    assert value('#fullname') == 'Ada Lovelace'

    window.type_text_sync(sel('#comments'), 'Hi!', None, None)
    window.press_sequence_sync(None, ['Control+A', 'Backspace', 'x'], None, None)
    assert value('#comments') == 'x'
    expect_error('BAD_ARGUMENT', window.press_key_sync, None, 'Control+Nope', None, None)


@test
def select_check_and_files():
    window = state['window']
    selected = to_python(window.select_options_sync(sel('#interests'), ['music', 'Books'], None, None))
    assert selected['values'] == ['music', 'books'], selected
    checked = Stagewright.StateFlags.CHECKED
    assert to_python(window.set_checked_sync(sel('#newsletter'), True, None, None))['target']['role'] == 'checkbox'
    assert window.get_state_sync(sel('#newsletter'), None)[0].values & checked
    window.set_checked_sync(sel('#newsletter'), False, None, None)
    assert not window.get_state_sync(sel('#newsletter'), None)[0].values & checked
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, 'gi.txt')
        with open(path, 'w') as f:
            f.write('gi\n')
        files = to_python(window.set_files_sync(sel('#attachment'), [path], None, None, None))
        assert files['values'] == ['gi.txt'], files
        expect_error('BAD_ARGUMENT', window.set_files_sync, sel('#attachment'), [path], FIXTURES, None, None)
        expect_error('ABSOLUTE_PATH_REQUIRED', window.set_files_sync, sel('#attachment'), ['gi.txt'], None, None, None)


@test
def cancel_a_waiting_click():
    window = state['window']
    options = Stagewright.ActionOptions.new()
    options.set_timeout_ms(20000)
    cancellable = Gio.Cancellable.new()
    loop = GLib.MainLoop()
    box = {}

    def done(source, result):
        try:
            source.click_finish(result)
        except GLib.Error as error:
            box['error'] = error
        box['at'] = time.monotonic()
        loop.quit()

    def cancel():
        box['cancelled_at'] = time.monotonic()
        cancellable.cancel()
        return GLib.SOURCE_REMOVE

    window.click_async(sel('#covered'), options, cancellable, done)
    GLib.timeout_add(300, cancel)
    GLib.timeout_add(10000, loop.quit)
    loop.run()
    assert box['error'].matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED), box
    assert box['at'] - box['cancelled_at'] < 0.5, box


def cleanup():
    session = state.get('session')
    if session is not None and session.is_running():
        session.stop_sync(5000, None)


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, missing_fixture(os.path.join(PAGES_APP, 'pages', 'forms.html')), cleanup))
