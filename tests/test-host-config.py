#!/usr/bin/python3
# test-host-config.py: the MCP host configurations in docs/hosts/ work
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Every docs/hosts/*.json is parsed in its host's own format (Claude Desktop
# and Cursor: "mcpServers"; VS Code's mcp.json: "servers" with a "type").
# Each stdio server is started exactly as the host would start it: its
# "command" looked up on PATH (the build tree's stagewright/ comes first in
# make check; the installed program in installed tests), its "args" and
# "env", VS Code's ${workspaceFolder} set to a scratch directory. The test
# then speaks MCP to it: initialize, notifications/initialized, tools/list,
# and end of input, which must end the server with status 0. HTTP forms are
# checked for shape and a loopback URL, then `stagewright --http` is started
# from PATH (on a free port: the forms' own may be taken here) and the test
# speaks MCP to its /mcp over HTTP: initialize, then tools/list in the
# session it got. The systemd user unit must serve the URL the HTTP forms
# name.
#
# Environment: STAGEWRIGHT_BIN (its directory goes first on PATH),
# STW_HOSTS_DIR (default: docs/hosts of the source tree), STW_USER_UNIT
# (default: data/stagewright.service of the build tree, else installed).
# Output is TAP.

import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

PROTOCOL_VERSION = '2025-06-18'
TIMEOUT_S = 60


def top_srcdir():
    env = os.environ.get('STW_TOP_SRCDIR')
    return Path(env) if env else Path(__file__).resolve().parent.parent


def hosts_dir():
    env = os.environ.get('STW_HOSTS_DIR')
    return Path(env) if env else top_srcdir() / 'docs' / 'hosts'


def user_unit():
    if os.environ.get('STW_USER_UNIT'):
        return Path(os.environ['STW_USER_UNIT'])
    candidates = []
    if os.environ.get('STAGEWRIGHT_BIN'):
        candidates.append(Path(os.environ['STAGEWRIGHT_BIN']).resolve().parent.parent
                          / 'data' / 'stagewright.service')
    candidates += [Path('/usr/lib/systemd/user/stagewright.service'),
                   Path('/usr/local/lib/systemd/user/stagewright.service')]
    for c in candidates:
        if c.exists():
            return c
    return candidates[0]


def search_path():
    path = os.environ.get('PATH', '/usr/bin:/bin')
    if os.environ.get('STAGEWRIGHT_BIN'):
        path = str(Path(os.environ['STAGEWRIGHT_BIN']).resolve().parent) + os.pathsep + path
    return path


def post(url, message, session=None):
    """One JSON-RPC message to an MCP endpoint: (status, headers, parsed JSON body)."""
    headers = {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream',
               'MCP-Protocol-Version': PROTOCOL_VERSION}
    if session:
        headers['MCP-Session-Id'] = session
    request = urllib.request.Request(url, data=json.dumps(message).encode(), headers=headers, method='POST')
    with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
        body = answer.read().decode()
        if answer.headers.get('Content-Type', '').startswith('text/event-stream'):
            data = [line[5:].strip() for line in body.splitlines() if line.startswith('data:')]
            body = data[-1] if data else 'null'
        return answer.status, answer.headers, json.loads(body) if body else None


def drive_http(path):
    """Starts stagewright --http from PATH on a free loopback port and speaks MCP to its /mcp."""
    exe = shutil.which('stagewright', path=search_path())
    if exe is None:
        raise FileNotFoundError('stagewright is not on PATH (%s)' % search_path())
    proc = subprocess.Popen([exe, '--http', '127.0.0.1:0'], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=dict(os.environ, PATH=search_path(), LC_ALL='C.UTF-8'))
    try:
        url, seen, deadline = None, b'', time.monotonic() + TIMEOUT_S
        while url is None and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stderr], [], [], max(0, deadline - time.monotonic()))
            if not ready:
                break
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
            m = re.search(rb'(http://127\.0\.0\.1:\d+' + re.escape(path.encode()) + rb')', seen)
            url = m.group(1).decode() if m else None
        if url is None:
            raise RuntimeError('stagewright --http printed no URL: %r' % seen.decode(errors='replace'))
        status, headers, init = post(url, {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
                                           'params': {'protocolVersion': PROTOCOL_VERSION, 'capabilities': {},
                                                      'clientInfo': {'name': 'test-host-config', 'version': '1'}}})
        assert status == 200 and 'result' in init, 'initialize over HTTP: %r %r' % (status, init)
        session = headers.get('MCP-Session-Id')
        assert session, 'initialize over HTTP gave no MCP-Session-Id'
        status, _, _ = post(url, {'jsonrpc': '2.0', 'method': 'notifications/initialized'}, session)
        assert status == 202, 'notifications/initialized over HTTP: %r' % status
        status, _, listed = post(url, {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list', 'params': {}}, session)
        names = [t['name'] for t in listed['result']['tools']]
        assert 'electron_launch' in names, 'tools/list over HTTP lacks electron_launch: %r' % names
        return url, len(names)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def servers_of(name, config):
    """(form, {name: server}) in the host's own format, or raise."""
    if 'mcpServers' in config:
        servers = config['mcpServers']
        form = 'mcpServers'
    elif 'servers' in config:
        servers = config['servers']
        form = 'servers'
    else:
        raise ValueError('%s has neither "mcpServers" nor "servers"' % name)
    if not isinstance(servers, dict) or not servers:
        raise ValueError('%s: %s is not a non-empty object' % (name, form))
    for key, server in servers.items():
        if form == 'servers' and server.get('type') not in ('stdio', 'http', 'sse'):
            raise ValueError('%s: VS Code servers need "type" (stdio or http)' % name)
        if ('command' in server) == ('url' in server):
            raise ValueError('%s: %s needs exactly one of "command" and "url"' % (name, key))
    return form, servers


def expand(value, workspace):
    return value.replace('${workspaceFolder}', workspace)


class Server:
    def __init__(self, argv, env):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self.buffer = b''

    def send(self, message):
        self.proc.stdin.write(json.dumps(message).encode() + b'\n')
        self.proc.stdin.flush()

    def receive(self, want_id):
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            while b'\n' in self.buffer:
                line, self.buffer = self.buffer.split(b'\n', 1)
                if not line.strip():
                    continue
                message = json.loads(line)
                if message.get('id') == want_id:
                    return message
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError('no answer to request %r' % want_id)
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    raise EOFError('the server closed stdout before answering %r' % want_id)
                self.buffer += chunk

    def close(self):
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None


def drive_stdio(server, workspace):
    exe = shutil.which(server['command'], path=search_path())
    if exe is None:
        raise FileNotFoundError('%s is not on PATH (%s)' % (server['command'], search_path()))
    argv = [exe] + [expand(a, workspace) for a in server.get('args', [])]
    env = dict(os.environ, PATH=search_path())
    env.update({k: expand(v, workspace) for k, v in server.get('env', {}).items()})
    s = Server(argv, env)
    try:
        s.send({'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
                'params': {'protocolVersion': PROTOCOL_VERSION, 'capabilities': {},
                           'clientInfo': {'name': 'test-host-config', 'version': '1'}}})
        init = s.receive(1)
        assert 'result' in init, 'initialize failed: %r' % init
        assert init['result']['serverInfo']['name'], init
        s.send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})
        s.send({'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list', 'params': {}})
        listed = s.receive(2)
        names = [t['name'] for t in listed['result']['tools']]
        assert 'electron_launch' in names, 'tools/list lacks electron_launch: %r' % names
    finally:
        status = s.close()
    assert status == 0, '%s exited with status %r at the end of its input' % (exe, status)
    return exe, len(names)


def main():
    results = []
    files = sorted(hosts_dir().glob('*.json'))
    urls = set()
    results.append((len(files) >= 4, 'docs/hosts has the host configurations (%d files)' % len(files), '', ''))

    with tempfile.TemporaryDirectory(prefix='stw-hosts-') as workspace:
        for path in files:
            try:
                form, servers = servers_of(path.name, json.loads(path.read_text()))
            except (ValueError, json.JSONDecodeError) as e:
                results.append((False, '%s parses' % path.name, str(e), ''))
                continue
            for key, server in servers.items():
                name = '%s (%s.%s)' % (path.name, form, key)
                if 'url' in server:
                    url = urlparse(server['url'])
                    ok = url.scheme == 'http' and url.hostname in ('127.0.0.1', 'localhost', '::1') \
                        and url.path == '/mcp' and url.port is not None
                    urls.add((url.hostname, url.port))
                    results.append((ok, '%s names a loopback /mcp URL' % name, server['url'], ''))
                    try:
                        served, count = drive_http(url.path)
                        results.append((True, '%s: stagewright --http answers initialize at %s and lists %d tools'
                                        % (name, served, count), '', ''))
                    except Exception as e:  # noqa: BLE001 — any failure is the test's verdict
                        results.append((False, '%s: stagewright --http answers MCP' % name, repr(e), ''))
                    continue
                try:
                    exe, count = drive_stdio(server, workspace)
                    results.append((True, '%s: %s answers initialize and lists %d tools'
                                    % (name, exe, count), '', ''))
                except Exception as e:  # noqa: BLE001 — any failure is the test's verdict
                    results.append((False, '%s starts and answers MCP' % name, repr(e), ''))

    unit = user_unit()
    if unit.exists():
        text = unit.read_text()
        m = re.search(r'^ExecStart=(\S+) --http (\S+)', text, re.M)
        ok = m is not None and m.group(1).endswith('/stagewright') and Path(m.group(1)).is_absolute()
        results.append((ok, 'the user unit starts stagewright --http by absolute path', text, ''))
        if m:
            host, _, port = m.group(2).rpartition(':')
            results.append(((host, int(port)) in urls, 'the user unit serves the URL the HTTP forms name',
                            '%s vs %s' % (m.group(2), sorted(urls)), ''))
        results.append(('WantedBy=default.target' in text, 'the user unit can be enabled', '', ''))
    else:
        results.append((True, 'the user unit', '', 'not installed here (%s)' % unit))

    print('1..%d' % len(results))
    failed = 0
    for n, (ok, name, diag, skip) in enumerate(results, 1):
        if skip:
            print('ok %d - %s # SKIP %s' % (n, name, skip))
            continue
        print('%s %d - %s' % ('ok' if ok else 'not ok', n, name))
        if not ok:
            failed += 1
            for line in str(diag).splitlines():
                print('# ' + line)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
