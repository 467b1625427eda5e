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
# checked for shape and a loopback URL; they are started only once
# `stagewright --http` exists (issue 10) and are skipped until then. The
# systemd user unit must serve the URL the HTTP forms name.
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


def has_http():
    exe = shutil.which('stagewright', path=search_path())
    out = subprocess.run([exe, '--help-all'], capture_output=True, text=True,
                         timeout=TIMEOUT_S, env=dict(os.environ, LC_ALL='C.UTF-8')).stdout
    return re.search(r'^\s+--http\b', out, re.M) is not None


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
    http_ok = has_http()
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
                    results.append((True, '%s answers initialize over HTTP' % name, '',
                                    '' if http_ok else 'stagewright --http does not exist yet (issue 10)'))
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
