#!/usr/bin/python3
# test-gi-native.py: the PyGObject override makes the library feel like
# Python — Stagewright.launch() with keywords as a context manager, dicts and
# lists in and out where the API speaks JSON, session.props.active_surface —
# driving the demo app (tests/fixtures/demo-app on the Electron stand-in).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs under Debian's /usr/bin/python3 with PYTHONPATH holding the build
# tree's bindings/python (make check sets it); prints TAP.

import os
import re
import sys

from stwtest import ELECTRON, FIXTURES, GLib, Stagewright, missing_fixture, run_async, run_tap

import gi  # noqa: E402
import gi.overrides.Stagewright  # noqa: E402,F401 (fails the run when the override did not load)

DEMO_APP = os.path.join(FIXTURES, 'demo-app')
TESTS = []
state = {}


def test(fn):
    TESTS.append(fn)
    return fn


def snapshot_text(window):
    snapshot = window.snapshot_sync({'format': 'text'}, None)
    if isinstance(snapshot, dict):  # the JsonObject of today's API
        return snapshot['snapshot_text']
    return snapshot.get_text()  # a Stagewright.Snapshot


def ref_in(text, role, name):
    found = re.findall(r'^[ ~]*\[(\d+)\] %s "%s"(?: |$)' % (re.escape(role), re.escape(name)), text, re.M)
    assert len(found) >= 1, (role, name, text)
    return Stagewright.Target.new_for_ref(int(found[-1]))


@test
def launch_with_keywords_is_a_context_manager():
    with Stagewright.launch(executable_path=ELECTRON, main=DEMO_APP, args=['--no-sandbox'],
                            env={'STW_NATIVE_TEST': '1'}) as session:
        assert isinstance(session, Stagewright.Session)
        assert session.is_running() and session.props.running and session.get_pid() > 0
        window = session.props.active_surface
        assert isinstance(window, Stagewright.Surface) and window == session.get_active_surface()
        assert window.props.title == 'Stagewright Notes', window.props.title
        value, _ = session.run_main_sync('return process.env.STW_NATIVE_TEST;', None, 0, None)
        assert value == '1', value
    assert not session.is_running() and not session.props.running


@test
def the_app_stops_when_the_block_raises():
    try:
        with Stagewright.launch(executable_path=ELECTRON, main=DEMO_APP) as session:
            state['raised'] = session
            raise KeyError('inside')
    except KeyError as error:
        assert error.args == ('inside',)
    else:
        raise AssertionError('the exception was swallowed')
    assert not state.pop('raised').is_running()


@test
def json_in_and_out_as_python_data():
    session = state['session'] = Stagewright.launch(executable_path=ELECTRON, main=DEMO_APP)
    window = state['window'] = session.props.active_surface
    # A JsonNode argument from a dict, a JsonNode answer as Python data.
    value, serialized = session.run_renderer_sync(
        'return {sum: arg.a + arg.b, items: [arg.a, null, "x"], title: document.title};',
        {'a': 2, 'b': 3}, 0, None)
    assert value == {'sum': 5, 'items': [2, None, 'x'], 'title': 'Stagewright Notes'}, value
    assert isinstance(serialized, bool)
    # An async pair answers Python data too.
    value = run_async(lambda done: session.run_renderer_async('return [arg, arg * 2];', 21, 0, None, done),
                      lambda source, result: source.run_renderer_finish(result))
    assert value == ([21, 42], False) or value[0] == [21, 42], value
    # A JsonObject argument from a dict (find's filters).
    found = window.find_sync({'role': 'checkbox', 'visible': True}, None)
    assert found.get_count() == 1, found.get_count()
    assert found.get_element(0).get_element().get_name() == 'Pinned'
    # An options type from a dict (SnapshotOptions through new_from_json).
    assert '"Stagewright Notes"' in snapshot_text(window)
    # What has a fixed shape is typed, not JSON: capabilities are flags.
    capabilities = session.get_capabilities()
    assert capabilities & Stagewright.CapabilityFlags.MAIN_EVAL, capabilities


@test
def snapshot_click_fill_state_by_ref():
    window = state['window']
    text = snapshot_text(window)
    title, pinned = ref_in(text, 'textbox', 'Title'), ref_in(text, 'checkbox', 'Pinned')
    filled = window.fill_sync(title, 'Groceries', None, None)
    assert isinstance(filled.get_target(), Stagewright.ElementRef)
    assert filled.get_target().get_role() == 'textbox' and filled.get_target().get_name() == 'Title'
    checked = window.click_sync(pinned, None, None)
    assert checked.get_target().get_ref() == pinned.get_ref()
    element_state, element = window.get_state_sync(pinned, None)
    assert isinstance(element_state, Stagewright.ElementState) and isinstance(element, Stagewright.ElementRef)
    Flags = Stagewright.StateFlags
    assert element_state.known & Flags.CHECKED and element_state.values & Flags.CHECKED, element_state.values
    assert element_state.matches({'checked': True, 'enabled': True})  # an ElementState from a dict

    clicked = window.click_sync(ref_in(text, 'button', 'Add'), None, None)
    target = clicked.get_target()
    assert isinstance(target, Stagewright.ElementRef)
    assert (target.get_role(), target.get_name(), target.get_surface_id()) == ('button', 'Add', window.get_id())
    # The note is saved through the main process: wait for the count.
    window.expect_text_sync(Stagewright.Target.new_for_selector('#note-count'), 'equals', '1 note', None, 5000, None)


@test
def a_stale_ref_raises_ref_not_found():
    window = state['window']
    delete = ref_in(snapshot_text(window), 'button', 'Delete Groceries')
    state['session'].run_renderer_sync('document.getElementById("notes").replaceChildren();', None, 0, None)
    try:
        window.click_sync(delete, None, None)
    except GLib.Error as error:
        assert error.matches(Stagewright.error_quark(), Stagewright.Error.REF_NOT_FOUND), (error.code, error.message)
    else:
        raise AssertionError('expected REF_NOT_FOUND')


@test
def stop():
    session = state['session']
    with session:  # a session made elsewhere is a context manager too
        assert session.is_running()
    assert not session.is_running() and state['window'].props.closed


def cleanup():
    session = state.get('session')
    if session is not None and session.is_running():
        session.stop_sync(5000, None)


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, missing_fixture(os.path.join(DEMO_APP, 'package.json')), cleanup))
