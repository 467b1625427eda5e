#!/usr/bin/python3
# test-gi-wait.py: the waits and expectations of Stagewright.Surface through
# GObject Introspection, from Python — blocking and async, out arguments,
# nullable targets and patterns, errors as GLib.Error with registry codes
# and their details, cancellation.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs under Debian's /usr/bin/python3 (it has PyGObject); prints TAP. The
# app is the pages app (tests/fixtures/pages-app, waits.html) on the Electron
# stand-in. By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-wait.py

import json
import os
import sys
import time

from stwtest import (Gio, GLib, Json, PAGES_APP, Stagewright, code_of, expect_error, missing_fixture,
                     page_launch_options, run_async, run_tap, to_python)

TESTS = []
state = {}


def test(fn):
    TESTS.append(fn)
    return fn


def sel(selector):
    return Stagewright.Target.new_for_selector(selector)


def json_object(data):
    return Json.from_string(json.dumps(data)).get_object()


def click(selector):
    state['window'].click_sync(sel(selector), None, None)


def reset():
    click('#reset')
    assert state['window'].expect_text_sync(sel('#status'), 'equals', 'Idle', None, 5000, None)[0]


def tool(name, **args):
    """The envelope of a tool call: the binding's GLib.Error carries code and
    message only, the envelope the details too."""
    return json.loads(state['dispatcher'].call_json_sync(name, json.dumps(args), None))


@test
def launch_the_waits_page():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    state['dispatcher'] = dispatcher
    manager = dispatcher.get_session_manager()
    state['session'] = manager.launch_json_sync(page_launch_options('waits'), None)
    state['window'] = state['session'].get_active_surface()
    met, element = state['window'].wait_for_selector_sync(sel('#reset'), 'attached', 15000, None)
    assert met and to_python(element)['ref'] >= 1


@test
def wait_for_selector_blocking_met_late_and_timing_out():
    window = state['window']
    reset()
    click('#show-later')
    met, element = window.wait_for_selector_sync(sel('#box'), None, 10000, None)
    assert met, element
    expect_error('WAIT_TIMEOUT', window.wait_for_selector_sync, sel('#never-there'), 'attached', 200, None)
    envelope = tool('electron_wait_for_selector', selector='#never-there', state='attached', timeoutMs=200)
    details = envelope['details']
    assert envelope['retryable'] is True, envelope
    assert details['timeout_ms'] == 200 and details['state'] == 'attached' and details['attached'] is False, details


@test
def expect_text_async_met_late():
    window = state['window']
    reset()
    click('#text-later')
    started = time.monotonic()
    met, actual, element = run_async(
        lambda done: window.expect_text_async(sel('#status'), 'equals', 'Done', None, 10000, None, done),
        lambda source, result: source.expect_text_finish(result))
    assert met and actual == 'Done', (met, actual)
    assert to_python(element)['role'] == 'status', to_python(element)
    assert time.monotonic() - started >= 0.2, 'met only after the change'


@test
def expectations_fail_with_expected_and_actual():
    window = state['window']
    reset()
    error = expect_error('EXPECTATION_FAILED', window.expect_text_sync, sel('#status'), 'contains', 'zzz', None, 100, None)
    assert 'contains' in error.message, error.message
    details = tool('electron_expect_text', selector='#status', contains='zzz', timeoutMs=100)['details']
    assert details['expected'] == 'zzz' and details['actual'] == 'Idle', details
    expect_error('EXPECTATION_FAILED', window.expect_value_sync, sel('#field'), 'equals', 'x', None, 0, None)
    assert tool('electron_expect_value', selector='#field', equals='x', timeoutMs=0)['details']['actual'] == 'empty'
    expect_error('EXPECTATION_FAILED', window.expect_visible_sync, sel('#ghost'), 0, None)
    assert tool('electron_expect_visible', selector='#ghost', timeoutMs=0)['details']['actual'] == 'hidden'
    query = json_object({'selector': '.item', 'equals': 9})
    expect_error('EXPECTATION_FAILED', window.expect_count_sync, query, 0, None)
    assert tool('electron_expect_count', selector='.item', equals=9, timeoutMs=0)['details']['actual'] == 3


@test
def state_count_url_and_assert():
    window = state['window']
    reset()
    click('#check-later')
    state_seen, element = window.wait_for_state_sync(
        sel('#agree'), Stagewright.ElementState.new_from_json(Json.from_string('{"checked": true}').get_object()), 10000, None)
    assert to_python(state_seen)['checked'] is True
    flags, element = window.expect_state_sync(
        sel('#agree'), Stagewright.ElementState.new(Stagewright.StateFlags.CHECKED | Stagewright.StateFlags.DISABLED,
                                                    Stagewright.StateFlags.CHECKED, 0), 0, None)
    assert to_python(flags)['enabled'] is True
    met, actual = window.expect_count_sync(json_object({'role': 'listitem', 'min': 3}), 0, None)
    assert met and actual == 3, actual
    met, url = window.expect_url_sync('contains', 'waits.html', None, 0, None)
    assert met and url.startswith('http://127.0.0.1:'), url
    met, actual, element = window.assert_pattern_sync(sel('#status'), None, 'matches', '^idle$', 'i', None)
    assert met and actual == 'Idle'
    expect_error('SELECTOR_NO_MATCH', window.assert_pattern_sync, sel('#absent'), None, 'equals', 'x', None, None)


@test
def wait_for_event_dom_and_browser():
    window = state['window']
    reset()
    click('#event-later')
    event = to_python(window.wait_for_event_sync('settled', sel('#status'), None, None, 10000, None))
    assert event['type'] == 'settled', event
    click('#hash-later')
    event = to_python(window.wait_for_event_sync('navigation', None, '#/done$', None, 10000, None))
    assert event['url'].endswith('#/done'), event


@test
def refused_before_the_page():
    window = state['window']
    for pattern, flags in (('(a+)+', None), ('(a|a)*', None), ('a', 'g'), ('x' * 1001, None), ('(', None)):
        expect_error('BAD_ARGUMENT', window.expect_text_sync, sel('#status'), 'matches', pattern, flags, 0, None)
    expect_error('BAD_ARGUMENT', window.expect_text_sync, sel('#status'), 'sounds_like', 'x', None, 0, None)
    expect_error('BAD_ARGUMENT', window.wait_for_state_sync, sel('#agree'), Stagewright.ElementState.new(0, 0, 0), 0, None)
    expect_error('BAD_ARGUMENT', Stagewright.ElementState.new_from_json, json_object({'checked': 'half'}))
    expect_error('BAD_ARGUMENT', window.wait_for_event_sync, 'not an event', None, None, None, 0, None)
    expect_error('BAD_ARGUMENT', window.expect_url_sync, 'equals', 'x', None, 0, None)


@test
def cancel_an_async_wait():
    window = state['window']
    cancellable = Gio.Cancellable()
    loop = GLib.MainLoop()
    box = {}

    def done(source, result, *user_data):
        try:
            source.wait_for_selector_finish(result)
        except GLib.Error as error:
            box['error'] = error
        box['at'] = time.monotonic()
        loop.quit()

    def cancel():
        box['cancelled_at'] = time.monotonic()
        cancellable.cancel()
        return GLib.SOURCE_REMOVE

    window.wait_for_selector_async(sel('#never-there'), 'visible', 60000, cancellable, done)
    GLib.timeout_add(300, cancel)
    GLib.timeout_add(10000, loop.quit)
    loop.run()
    assert box['error'].matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED), box
    assert box['at'] - box['cancelled_at'] < 2, box


def cleanup():
    session = state.get('session')
    if session is not None and session.is_running():
        session.stop_sync(5000, None)


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, missing_fixture(os.path.join(PAGES_APP, 'pages', 'waits.html')), cleanup))
