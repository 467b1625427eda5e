#!/usr/bin/python3
# test-gi-a11y.py: the a11y plugin (issue 20, items 7 and 8) loaded into a
# Python host's own dispatcher through GObject Introspection, blocking and
# async
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-a11y.py
#
# On tests/fixtures/a11y-pages/audit.html with axe-core from
# tests/node_modules: through the tool (call_json_sync, invoke_async), the
# violations with a ref per node that electron_get_attribute reads back and
# the scope's codes; through the plugin's own API (StagewrightA11y: audit_sync
# and the audit_async pair, answering a typed A11yReport), the same
# violations with each node's ElementRef read back by the core's
# get_attribute_sync, and the API's own refusals, its codes in the plugin's
# own error domain (StagewrightA11y.a11y_error_quark()).

import json
import os
import shutil
import sys
import tempfile

from stwtest import ELECTRON, CHROMIUM, FIXTURES, PAGES_APP, TOP_SRCDIR, GLib, Json, Stagewright, expect_error, \
    run_async, run_tap, spin

import gi  # noqa: E402

gi.require_version('StagewrightA11y', '1.0')
from gi.repository import StagewrightA11y  # noqa: E402

TESTS = []
BUILDDIR = os.path.abspath(os.environ.get('G_TEST_BUILDDIR') or
                           os.path.join(os.path.dirname(os.path.abspath(__file__))))
PLUGIN = os.path.join(os.path.dirname(BUILDDIR), 'plugins', 'built', 'a11y.plugin')
ENGINE = os.path.join(os.environ.get('STW_NODE_MODULES') or os.path.join(TOP_SRCDIR, 'tests', 'node_modules'),
                      'axe-core', 'axe.min.js')
PAGES = os.path.join(FIXTURES, 'a11y-pages')
state = {}


def test(fn):
    TESTS.append(fn)
    return fn


def skip_reason():
    for path in (ELECTRON, CHROMIUM, PLUGIN, ENGINE):
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
                                 lambda source, result: source.invoke_finish(result), 90000))


def ok(envelope):
    assert envelope['ok'], envelope
    return envelope


def fails(envelope, code):
    assert not envelope['ok'] and envelope['code'] == code, envelope
    return envelope


def violation(audit, rule):
    found = [v for v in audit['violations'] if v['id'] == rule]
    assert found, (rule, [v['id'] for v in audit['violations']])
    return found[0]


@test
def audit_blocking_and_async_with_refs():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    config = json_object({'a11y': {'engine': ENGINE}})
    loaded = run_async(lambda done: dispatcher.load_plugins_async([PLUGIN], config, None, done),
                       lambda source, result: source.load_plugins_finish(result), 60000)
    assert [p.get_name() for p in loaded] == ['a11y']
    state['dispatcher'] = dispatcher

    launch = ok(call(dispatcher, 'electron_launch', {
        'executablePath': ELECTRON, 'main': PAGES_APP, 'args': ['--page=audit', '--pages-dir=' + PAGES]}))
    sid = launch['session_id']
    state['session_id'] = sid

    # Both frames are up once three images without alt are found.
    found = {}

    def three_images():
        found['audit'] = ok(call(dispatcher, 'a11y_audit', {'sessionId': sid}))
        images = [v for v in found['audit']['violations'] if v['id'] == 'image-alt']
        return bool(images) and len(images[0]['nodes']) == 3

    assert spin(three_images, 20000), found['audit']
    audit = found['audit']

    def attribute_id(ref):
        return ok(call(dispatcher, 'electron_get_attribute', {'sessionId': sid, 'ref': ref, 'name': 'id'}))['value']

    assert [attribute_id(n['ref']) for n in violation(audit, 'label')['nodes']] == ['nameless']
    assert [attribute_id(n['ref']) for n in violation(audit, 'color-contrast')['nodes']] == ['faint']
    assert sorted(attribute_id(n['ref']) for n in violation(audit, 'image-alt')['nodes']) == \
        ['frame-noalt', 'frame-noalt', 'noalt']
    assert audit['capabilities']['world'] == 'isolated' and audit['capabilities']['frames'] == 3, audit['capabilities']

    scoped = ok(call_async(dispatcher, 'a11y_audit', {'sessionId': sid, 'rules': ['label', 'image-alt']}))
    assert sorted(v['id'] for v in scoped['violations']) == ['image-alt', 'label'], scoped
    assert violation(scoped, 'label')['nodes'][0]['ref'] == violation(audit, 'label')['nodes'][0]['ref']

    fails(call_async(dispatcher, 'a11y_audit', {'sessionId': sid, 'selector': '##'}), 'a11y.INVALID_SELECTOR')
    fails(call(dispatcher, 'a11y_audit', {'sessionId': sid, 'selector': '#no-such-element'}), 'a11y.SCOPE_NOT_FOUND')

    assert isinstance(loaded[0], StagewrightA11y.A11yPlugin), loaded
    api_blocking_and_async(dispatcher, loaded[0], sid)

    ok(call(dispatcher, 'electron_stop', {'sessionId': sid}))
    state.pop('session_id')
    assert dispatcher.unload_plugins_sync(None)


def expect_a11y_error(code, fn, *args):
    # The plugin's own error domain survives PyGObject's copy of the error.
    try:
        fn(*args)
    except GLib.Error as error:
        assert error.matches(StagewrightA11y.a11y_error_quark(), getattr(StagewrightA11y.A11yError, code)), \
            (error.domain, error.code, error.message)
        assert Stagewright.error_get_code_name(error) == 'a11y.' + code, Stagewright.error_get_code_name(error)
        return error
    raise AssertionError('expected a11y.%s' % code)


def report_violation(report, rule):
    found = [v for v in report.get_violations() if v.get_id() == rule]
    assert found, (rule, [v.get_id() for v in report.get_violations()])
    return found[0]


def api_blocking_and_async(dispatcher, plugin, sid):
    session = dispatcher.get_session_manager().lookup(sid)
    surfaces = {s.get_id(): s for s in session.list_surfaces()}

    def node_id(node):
        element = node.get_element()
        value, read = surfaces[element.get_surface_id()].get_attribute_sync(
            Stagewright.Target.new_for_ref(element.get_ref()), 'id', None)
        assert read.get_ref() == element.get_ref()
        return value

    report = plugin.audit_sync(session, None, None, None, None)
    assert isinstance(report, StagewrightA11y.A11yReport), report
    assert report.get_engine_version() == '4.14.1' and report.props.n_frames == 3, report.get_n_frames()
    assert not report.get_closed_shadow_roots() and 'closed shadow roots' in report.get_notes()[0]
    assert report.get_n_violations() == report.get_violations().get_n_items()
    label = report_violation(report, 'label')
    assert isinstance(label, StagewrightA11y.A11yViolation)
    assert label.get_help_url().startswith('https://dequeuniversity.com/') and 'wcag2a' in label.get_tags()
    assert [node_id(n) for n in label.get_nodes()] == ['nameless']
    assert [node_id(n) for n in report_violation(report, 'color-contrast').props.nodes] == ['faint']
    images = report_violation(report, 'image-alt')
    assert images.get_n_nodes() == 3 and all(isinstance(n, StagewrightA11y.A11yNode) for n in images.get_nodes())
    assert sorted(node_id(n) for n in images.get_nodes()) == ['frame-noalt', 'frame-noalt', 'noalt']
    label_ref = label.get_nodes()[0].get_element().get_ref()

    scoped = run_async(lambda done: plugin.audit_async(session, None, None, ['label', 'image-alt'], None, done),
                       lambda source, result: source.audit_finish(result), 90000)
    assert sorted(v.get_id() for v in scoped.get_violations()) == ['image-alt', 'label']
    assert report_violation(scoped, 'label').get_nodes()[0].props.element.get_ref() == label_ref
    by_ref = plugin.audit_sync(session, Stagewright.Target.new_for_ref(label_ref), None, None, None)
    assert [v.get_id() for v in by_ref.get_violations()] == ['label'], [v.get_id() for v in by_ref.get_violations()]

    expect_a11y_error('INVALID_SELECTOR', run_async,
                      lambda done: plugin.audit_async(session, Stagewright.Target.new_for_selector('##'),
                                                      None, None, None, done),
                      lambda source, result: source.audit_finish(result), 90000)
    expect_a11y_error('SCOPE_NOT_FOUND', plugin.audit_sync, session,
                      Stagewright.Target.new_for_selector('#no-such-element'), None, None, None)
    # What the tool's schema bounds, the API bounds too.
    expect_error('BAD_ARGUMENT', plugin.audit_sync, session, None, ['wcag2a'] * 101, None, None)

    # A plugin made from the typelib, outside any dispatcher: no config, so
    # the default engine under the working directory, which has none.
    bare = StagewrightA11y.A11yPlugin.new()
    empty = tempfile.mkdtemp(prefix='stw-a11y-')
    cwd = os.getcwd()
    try:
        os.chdir(empty)
        error = expect_a11y_error('UNSUPPORTED', bare.audit_sync, session, None, None, None, None)
        assert 'No usable axe-core engine' in error.message, error.message
        expect_a11y_error('UNSUPPORTED', run_async,
                          lambda done: bare.audit_async(session, None, None, None, None, done),
                          lambda source, result: source.audit_finish(result), 90000)
    finally:
        os.chdir(cwd)
        shutil.rmtree(empty)


def cleanup():
    dispatcher = state.get('dispatcher')
    if dispatcher is not None and 'session_id' in state:
        dispatcher.call_json_sync('electron_stop', json.dumps({'sessionId': state['session_id']}), None)


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, skip_reason(), cleanup))
