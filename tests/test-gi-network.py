#!/usr/bin/python3
# test-gi-network.py: the network plugin (issue 20, items 1-4) loaded into
# a Python host's own dispatcher through GObject Introspection: its API
# (StagewrightNetwork-1.0) and its tools (call_json_sync, invoke_async),
# blocking and async
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-network.py
#
# On the network fixture app, its page served by a loopback HTTP server in
# this process: a capture sees a fetch and an image with the server's
# cookie redacted, a HAR is written, a stub with times changes what the
# page shows and then lets the server answer, a fail stub runs the page's
# error path. On its service-worker page: the worker's own request is
# captured (serviceWorker, no surface) and stubbed, blocking and async, and
# the worker is listed apart from the surfaces.

import http.server
import json
import os
import shutil
import sys
import tempfile
import threading

from stwtest import ELECTRON, CHROMIUM, FIXTURES, GLib, Json, Stagewright, run_async, run_tap, spin

import gi  # noqa: E402
gi.require_version('StagewrightNetwork', '1.0')
from gi.repository import StagewrightNetwork  # noqa: E402

TESTS = []
BUILDDIR = os.path.abspath(os.environ.get('G_TEST_BUILDDIR') or
                           os.path.join(os.path.dirname(os.path.abspath(__file__))))
PLUGIN = os.path.join(os.path.dirname(BUILDDIR), 'plugins', 'built', 'network.plugin')
APP = os.path.join(FIXTURES, 'network-app')
PAGE_DIR = os.path.join(APP, 'page')
state = {}


def test(fn):
    TESTS.append(fn)
    return fn


def skip_reason():
    for path in (ELECTRON, CHROMIUM, PLUGIN):
        if not os.path.exists(path):
            return '%s is missing' % path
    return None


class Handler(http.server.SimpleHTTPRequestHandler):
    hits = {}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=PAGE_DIR, **kwargs)

    def end_headers(self):
        # No heuristic caching (SimpleHTTP sends Last-Modified): a cached
        # answer has no raw headers, so no Set-Cookie to see redacted.
        self.send_header('Cache-Control', 'no-store')
        self.send_header('Set-Cookie', 'sid=server-s3cret; Path=/')
        super().end_headers()

    def do_GET(self):
        path = self.path.split('?')[0]
        Handler.hits[path] = Handler.hits.get(path, 0) + 1
        if path == '/api/old':
            self.send_response(302)
            self.send_header('Location', '/api/moved.json')
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, *args):
        pass


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
                                 lambda source, result: source.invoke_finish(result), 60000))


def ok(envelope):
    assert envelope['ok'], envelope
    return envelope


def fails(envelope, code):
    assert not envelope['ok'] and envelope['code'] == code, envelope
    return envelope


def text_is(dispatcher, sid, selector, expected):
    seen = {}

    def matches():
        seen['text'] = call(dispatcher, 'electron_get_text', {'sessionId': sid, 'selector': selector}).get('text')
        return seen['text'] is not None and seen['text'].startswith(expected)
    spin(matches, 15000)
    assert seen['text'].startswith(expected), (selector, seen['text'], expected)


def click(dispatcher, sid, selector, asynchronous=False):
    ok((call_async if asynchronous else call)(dispatcher, 'electron_click', {'sessionId': sid, 'selector': selector}))


@test
def capture_har_and_stubs_blocking_and_async():
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state['server'] = server
    url = 'http://127.0.0.1:%d/' % server.server_address[1]
    scratch = tempfile.mkdtemp(prefix='stw-gi-net-')
    state['scratch'] = scratch

    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    loaded = run_async(lambda done: dispatcher.load_plugins_async(
                           [PLUGIN], json_object({'network': {'bodyDir': scratch}}), None, done),
                       lambda source, result: source.load_plugins_finish(result), 60000)
    assert [p.get_name() for p in loaded] == ['network']
    state['dispatcher'] = dispatcher

    launch = ok(call(dispatcher, 'electron_launch', {'executablePath': ELECTRON, 'main': APP,
                                                     'args': ['--url=' + url]}))
    sid = launch['session_id']
    state['session_id'] = sid
    text_is(dispatcher, sid, '#secret', 'secret: ok')

    fails(call_async(dispatcher, 'network_captured', {'sessionId': sid}), 'network.NOT_CAPTURING')
    started = ok(call_async(dispatcher, 'network_capture_start', {'sessionId': sid, 'bodies': 'text'}))
    assert started['capturing'] and started['capabilities']['mainProcess'] is False, started
    fails(call(dispatcher, 'network_capture_start', {'sessionId': sid}), 'network.ALREADY_CAPTURING')

    click(dispatcher, sid, '#reload')
    text_is(dispatcher, sid, '#data', 'hello from the server (200, load 2)')
    click(dispatcher, sid, '#open', asynchronous=True)
    seen = {}

    def both_seen():
        entries = ok(call_async(dispatcher, 'network_captured', {'sessionId': sid, 'limit': 500}))['entries']
        # The raw headers (with Set-Cookie) may come after the body.
        seen['fetch'] = next((e for e in entries if e['url'] == url + 'api/data.json' and 'responseBody' in e and
                              any(k.lower() == 'set-cookie' for k in e['responseHeaders'])), None)
        seen['image'] = next((e for e in entries if e['url'] == url + 'pixel.png?second' and 'pending' not in e), None)
        return seen['fetch'] is not None and seen['image'] is not None
    spin(both_seen, 20000)
    assert seen['fetch'] and seen['image'], seen
    assert seen['fetch']['type'] == 'Fetch' and seen['fetch']['status'] == 200
    cookies = [v for k, v in seen['fetch']['responseHeaders'].items() if k.lower() == 'set-cookie']
    assert cookies == ['[REDACTED]'], seen['fetch']['responseHeaders']
    with open(seen['fetch']['responseBody']['path']) as body, open(os.path.join(PAGE_DIR, 'api', 'data.json')) as sent:
        assert body.read() == sent.read()
    assert seen['image']['type'] == 'Image' and seen['image']['mimeType'] == 'image/png'

    har_path = os.path.join(scratch, 'gi.har')
    exported = ok(call_async(dispatcher, 'network_export_har', {'sessionId': sid, 'path': har_path}))
    with open(har_path) as f:
        har = json.load(f)
    assert har['log']['version'] == '1.2' and len(har['log']['entries']) == exported['entries']
    assert any(e['request']['url'] == url + 'pixel.png?second' for e in har['log']['entries'])
    assert 's3cret' not in json.dumps(har)

    # times: 1, blocking; then the server answers again.
    hits = Handler.hits.get('/api/data.json', 0)
    stub = ok(call(dispatcher, 'network_stub', {'sessionId': sid, 'url': '**/api/data.json', 'times': 1,
                                                'body': json.dumps({'message': 'python stub'})}))
    click(dispatcher, sid, '#reload')
    text_is(dispatcher, sid, '#data', 'python stub (200, load 3)')
    assert Handler.hits.get('/api/data.json', 0) == hits
    click(dispatcher, sid, '#reload')
    text_is(dispatcher, sid, '#data', 'hello from the server (200, load 4)')
    listed = ok(call_async(dispatcher, 'network_stubs', {'sessionId': sid}))['stubs']
    assert [(s['id'], s['matched'], s['active']) for s in listed] == [(stub['id'], 1, False)], listed

    # fail, async: the page's error path.
    ok(call_async(dispatcher, 'network_stub', {'sessionId': sid, 'url': '**/api/data.json', 'fail': 'aborted'}))
    click(dispatcher, sid, '#reload', asynchronous=True)
    text_is(dispatcher, sid, '#data', 'failed (load 5)')
    text_is(dispatcher, sid, '#error', 'error: ')
    assert ok(call_async(dispatcher, 'network_unstub', {'sessionId': sid, 'all': True}))['removed'] == 2
    click(dispatcher, sid, '#reload')
    text_is(dispatcher, sid, '#data', 'hello from the server (200, load 6)')

    stopped = ok(call(dispatcher, 'network_capture_stop', {'sessionId': sid}))
    assert not stopped['capturing'] and stopped['total'] >= 5, stopped
    fails(call_async(dispatcher, 'network_capture_stop', {'sessionId': sid}), 'network.NOT_CAPTURING')

    ok(call(dispatcher, 'electron_stop', {'sessionId': sid}))
    state.pop('session_id')
    assert dispatcher.unload_plugins_sync(None)


@test
def the_api_blocking_and_async():
    server = state['server']
    url = 'http://127.0.0.1:%d/' % server.server_address[1]
    scratch = state['scratch']
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    plugin, = dispatcher.load_plugins_sync([PLUGIN], json_object({'network': {'bodyDir': scratch}}), None)
    assert isinstance(plugin, StagewrightNetwork.NetworkPlugin), plugin
    state['dispatcher'] = dispatcher
    launch = ok(call(dispatcher, 'electron_launch', {'executablePath': ELECTRON, 'main': APP,
                                                     'args': ['--url=' + url]}))
    sid = launch['session_id']
    state['session_id'] = sid
    text_is(dispatcher, sid, '#secret', 'secret: ok')
    session = dispatcher.get_session_manager().lookup(sid)

    assert plugin.capture_start_sync(session, ['**/api/**', '**/*.png*'], StagewrightNetwork.NetworkBodies.TEXT,
                                     0, None, None)
    try:
        plugin.capture_start_sync(session, None, StagewrightNetwork.NetworkBodies.NONE, 0, None, None)
        raise AssertionError('a second capture started')
    except GLib.Error as error:
        assert error.matches(StagewrightNetwork.network_error_quark(), StagewrightNetwork.NetworkError.ALREADY_CAPTURING), error
        assert Stagewright.error_get_code_name(error) == 'network.ALREADY_CAPTURING'
        assert 'running' in error.message, error.message
    try:
        plugin.stub_sync(session, StagewrightNetwork.NetworkStub.new('{unclosed'), None)
        raise AssertionError('a bad pattern was taken')
    except GLib.Error as error:
        assert error.matches(StagewrightNetwork.network_error_quark(), StagewrightNetwork.NetworkError.INVALID_PATTERN), error
        assert 'is invalid' in error.message, error.message

    stub = StagewrightNetwork.NetworkStub.new('**/api/data.json')
    stub.set_body(GLib.Bytes.new(json.dumps({'message': 'api stub'}).encode()))
    stub.set_times(1)
    registered = run_async(lambda done: plugin.stub_async(session, stub, None, done),
                           lambda source, result: source.stub_finish(result), 30000)
    assert registered.get_id() == stub.get_id() and stub.get_id().startswith('stub-')
    click(dispatcher, sid, '#reload')
    text_is(dispatcher, sid, '#data', 'api stub (200, load 2)')
    click(dispatcher, sid, '#open')

    seen = {}

    def captured():
        page = run_async(lambda done: plugin.captured_async(session, 500, None, None, -1, None, None, done),
                         lambda source, result: source.captured_finish(result), 30000)
        entries = page.get_entries()
        seen['urls'] = [e.get_url() for e in entries]
        seen['stubbed'] = [e for e in entries if e.get_stub_id() == stub.get_id() and e.is_finished()]
        seen['image'] = [e for e in entries if e.get_url().endswith('pixel.png?second') and e.is_finished()]
        return seen['stubbed'] and seen['image']
    spin(captured, 20000)
    assert seen['stubbed'] and seen['image'], seen['urls']
    assert all('/api/' in u or '.png' in u for u in seen['urls']), seen['urls']
    assert seen['image'][0].get_resource_type() == 'Image' and seen['image'][0].get_status() == 200
    assert seen['stubbed'][0].get_status() == 200
    assert stub.get_matched() == 1
    assert [s.get_id() for s in plugin.list_stubs(session)] == [stub.get_id()]

    har_path = os.path.join(scratch, 'api.har')
    ok_, n_entries = plugin.export_har_sync(session, har_path, None)
    assert ok_ and n_entries == len(seen['urls']), (n_entries, seen['urls'])
    removed = run_async(lambda done: plugin.unstub_async(session, None, None, done),
                        lambda source, result: source.unstub_finish(result), 30000)
    assert removed == 1
    page = run_async(lambda done: plugin.capture_stop_async(session, None, done),
                     lambda source, result: source.capture_stop_finish(result), 30000)
    assert not page.get_capturing() and page.get_total() >= 2

    ok(call(dispatcher, 'electron_stop', {'sessionId': sid}))
    state.pop('session_id')
    assert dispatcher.unload_plugins_sync(None)


@test
def partition_capture_blocking_and_async():
    # A second window in the persist:pn partition: a capture of it, started
    # blocking and async, sees that window's requests and not the default
    # window's.
    server = state['server']
    url = 'http://127.0.0.1:%d/' % server.server_address[1]
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    dispatcher.set_allow_eval(Stagewright.EvalTarget.MAIN)
    plugin, = dispatcher.load_plugins_sync([PLUGIN], json_object({'network': {'bodyDir': state['scratch']}}), None)
    state['dispatcher'] = dispatcher
    sid = ok(call(dispatcher, 'electron_launch', {'executablePath': ELECTRON, 'main': APP,
                                                  'args': ['--url=' + url, '--partition=persist:pn']}))['session_id']
    state['session_id'] = sid
    text_is(dispatcher, sid, '#secret', 'secret: ok')
    session = dispatcher.get_session_manager().lookup(sid)
    window = ("const w = electron.BrowserWindow.getAllWindows()"
              ".find((b) => b.webContents.session === electron.session.fromPartition('persist:pn'));")
    spin(lambda: ok(call(dispatcher, 'electron_eval_main',
                         {'sessionId': sid, 'code': window + ' return w.webContents.getURL()'}))['result']
         .endswith('second.html'), 20000)

    def round_trip(start):
        start()
        ok(call(dispatcher, 'electron_eval_main', {'sessionId': sid, 'code': window + ' w.webContents.reload(); return 1'}))
        before = Handler.hits.get('/api/secret.json', 0)
        click(dispatcher, sid, '#reload')
        seen = {}

        def both():
            entries = plugin.captured_sync(session, 500, None, None, -1, None, None).get_entries()
            seen['urls'] = [e.get_url() for e in entries]
            return any(u.endswith('pixel.png?second') for u in seen['urls'])
        spin(both, 20000)
        # The default window's requests were made (the server saw them) and not captured.
        spin(lambda: Handler.hits.get('/api/secret.json', 0) > before, 20000)
        assert Handler.hits.get('/api/secret.json', 0) > before
        both()
        assert any(u.endswith('second.html') for u in seen['urls']), seen['urls']
        assert not [u for u in seen['urls'] if '/api/' in u], seen['urls']
        page = run_async(lambda done: plugin.capture_stop_async(session, None, done),
                         lambda source, result: source.capture_stop_finish(result), 30000)
        assert not page.get_capturing()

    round_trip(lambda: plugin.capture_start_sync(session, None, StagewrightNetwork.NetworkBodies.NONE, 0,
                                                 'persist:pn', None))
    round_trip(lambda: run_async(lambda done: plugin.capture_start_async(session, None,
                                                                         StagewrightNetwork.NetworkBodies.NONE, 0,
                                                                         'persist:pn', None, done),
                                 lambda source, result: source.capture_start_finish(result), 30000))
    ok(call(dispatcher, 'electron_stop', {'sessionId': sid}))
    state.pop('session_id')
    assert dispatcher.unload_plugins_sync(None)


@test
def service_worker_blocking_and_async():
    server = state['server']
    url = 'http://127.0.0.1:%d/' % server.server_address[1]
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    plugin, = dispatcher.load_plugins_sync([PLUGIN], json_object({'network': {'bodyDir': state['scratch']}}), None)
    state['dispatcher'] = dispatcher
    sid = ok(call(dispatcher, 'electron_launch', {'executablePath': ELECTRON, 'main': APP,
                                                  'args': ['--url=' + url + 'sw.html']}))['session_id']
    state['session_id'] = sid
    text_is(dispatcher, sid, '#sw', 'idle')
    session = dispatcher.get_session_manager().lookup(sid)

    # Async: capturing from before the worker starts.
    assert run_async(lambda done: plugin.capture_start_async(session, None, StagewrightNetwork.NetworkBodies.NONE, 0,
                                                             None, None, done),
                     lambda source, result: source.capture_start_finish(result), 30000)
    click(dispatcher, sid, '#register', asynchronous=True)
    text_is(dispatcher, sid, '#sw', 'ready')
    workers = session.list_workers()
    assert [w.get_kind() for w in workers] == [Stagewright.SurfaceKind.SERVICE_WORKER], workers
    assert all(s.get_kind() != Stagewright.SurfaceKind.SERVICE_WORKER for s in session.list_surfaces())
    assert workers[0].get_id() not in [s.get_id() for s in session.list_surfaces()]
    click(dispatcher, sid, '#ask')
    text_is(dispatcher, sid, '#sw', 'hello from the server to the worker (200) (ask 1)')
    seen = {}

    def worker_entry():
        page = run_async(lambda done: plugin.captured_async(session, 500, None, '**/api/from-sw.json', -1, None, None,
                                                            done),
                         lambda source, result: source.captured_finish(result), 30000)
        seen['entries'] = [e for e in page.get_entries() if e.is_finished()]
        return seen['entries']
    spin(worker_entry, 15000)
    assert seen['entries'], 'the worker\'s request was not captured'
    entry = seen['entries'][0]
    assert entry.get_service_worker() and entry.get_surface_id() is None and entry.get_status() == 200
    captured = ok(call_async(dispatcher, 'network_captured', {'sessionId': sid, 'url': '**/api/from-sw.json'}))
    assert captured['entries'][0]['serviceWorker'] is True and 'surfaceId' not in captured['entries'][0], captured

    # Blocking: a stub answers the worker's fetch; the server sees nothing.
    stub = StagewrightNetwork.NetworkStub.new('**/api/from-sw.json')
    stub.set_body(GLib.Bytes.new(json.dumps({'message': 'python worker stub'}).encode()))
    plugin.stub_sync(session, stub, None)
    hits = Handler.hits.get('/api/from-sw.json', 0)
    click(dispatcher, sid, '#ask')
    text_is(dispatcher, sid, '#sw', 'python worker stub (200) (ask 2)')
    assert Handler.hits.get('/api/from-sw.json', 0) == hits
    assert stub.get_matched() == 1
    assert plugin.unstub_sync(session, None, None) == 1
    assert not plugin.capture_stop_sync(session, None).get_capturing()
    page = plugin.captured_sync(session, 500, None, '**/api/from-sw.json', -1, None, None)
    assert [e.get_service_worker() for e in page.get_entries()] == [True, True], page.get_entries()

    # A dedicated worker's own requests, from its first, are its page's.
    assert plugin.capture_start_sync(session, None, StagewrightNetwork.NetworkBodies.NONE, 0, None, None)
    click(dispatcher, sid, '#worker-ask')
    text_is(dispatcher, sid, '#worker', 'hello from the server to the dedicated worker (200) (answer 1)')
    window = session.list_surfaces()[0]
    assert [w.get_parent_id() for w in session.list_workers() if w.get_kind() == Stagewright.SurfaceKind.WORKER] == \
        [window.get_id()]

    def dedicated_entries():
        page = plugin.captured_sync(session, 500, None, '**/api/from-worker.json', -1, None, None)
        seen['dedicated'] = [e for e in page.get_entries() if e.is_finished()]
        return seen['dedicated']
    spin(dedicated_entries, 15000)
    assert [(e.get_surface_id(), e.get_service_worker()) for e in seen['dedicated']] == [(window.get_id(), False)], \
        seen['dedicated']
    plugin.capture_stop_sync(session, None)

    ok(call(dispatcher, 'electron_stop', {'sessionId': sid}))
    state.pop('session_id')
    assert dispatcher.unload_plugins_sync(None)


def cleanup():
    dispatcher = state.get('dispatcher')
    if dispatcher is not None and 'session_id' in state:
        dispatcher.call_json_sync('electron_stop', json.dumps({'sessionId': state['session_id']}), None)
    if 'server' in state:
        state['server'].shutdown()
        state['server'].server_close()
    if 'scratch' in state:
        shutil.rmtree(state['scratch'], ignore_errors=True)


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, skip_reason(), cleanup))
