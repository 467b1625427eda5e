// haproxy.test.mjs: several `stagewright --http` instances behind haproxy
// (issue 10, item 5; docs/http.md, "Several instances")
//
// Two instances (ids sw1 and sw2) and Debian's haproxy running
// docs/haproxy.cfg as it is, its three ports replaced by free loopback
// ports: requests that touch no app land on both instances; a 2025-11-25
// session stays on the instance that answered its initialize; a call for a
// driven app reaches the instance that owns it, and the other instance,
// asked directly, refuses it naming the owner and leaves the app alone; an
// instance going away fails its sessions with clear errors while the other
// keeps serving. Driven by the official SDK clients: the 1.x client
// (2025-11-25, sessions) and the split 2.x client in automatic mode
// (2026-07-28, stateless).
//
// Which instance served a request is read twice: from the instances (a
// call naming another instance's app is refused with details.instance, the
// id of the instance that answered) and from haproxy's log (one line per
// request, `backend/server` and, between braces, Mcp-Method and the owner
// the call was routed by).
//
// Every process here (the instances, haproxy, the apps) was spawned by this
// test and is stopped by its pid.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   STAGEWRIGHT_BIN=$PWD/stagewright/stagewright STW_TOP_SRCDIR=$PWD \
//     node --test --test-reporter=tap --test-concurrency=1 tests/e2e/haproxy.test.mjs

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test as nodeTest } from 'node:test';

import {
  BIN,
  DEMO_APP,
  TOP_SRCDIR,
  demoAppSkipReason,
  electronSkipReason,
  envelopeOf,
  failsWith,
  launchArgs,
  ok,
  pngSize,
  processAlive,
  startHttpServer,
  startServer,
  survivors,
  waitUntil,
} from './lib/lifecycle-harness.mjs';
import { run } from './lib/harness.mjs';

const CONFIG = path.join(TOP_SRCDIR, 'docs', 'haproxy.cfg');

function findHaproxy () {
  const candidates = [process.env.STW_HAPROXY, ...(process.env.PATH ?? '').split(':').map((d) => d && path.join(d, 'haproxy')),
    '/usr/sbin/haproxy', '/usr/local/sbin/haproxy'];
  return candidates.find((file) => file && fs.existsSync(file)) ?? null;
}
const HAPROXY = findHaproxy();

let sdk;
try {
  const [client, http] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  sdk = { Client: client.Client, StreamableHTTPClientTransport: http.StreamableHTTPClientTransport };
} catch (error) {
  sdk = { skip: `@modelcontextprotocol/sdk is not installed (run npm ci in tests/): ${error.message}` };
}
let client2;
try {
  client2 = await import('@modelcontextprotocol/client');
} catch (error) {
  client2 = { skip: `@modelcontextprotocol/client is not installed (run npm ci in tests/): ${error.message}` };
}

const skip = (HAPROXY ? null : 'haproxy is not installed (apt-get install haproxy; .ci/setup does)') ??
  sdk.skip ?? client2.skip ?? false;
const appSkip = electronSkipReason() ?? demoAppSkipReason() ?? false;

function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 180000, ...options, skip: options.skip || skip }, fn);
}

// --- the cluster ------------------------------------------------------------------

/** A loopback port nobody listens on right now. */
function freePort () {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function canConnect (port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/** docs/haproxy.cfg with its ports (8930 in front, 8931 and 8932 behind) replaced. */
function configFor (front, sw1, sw2) {
  let text = fs.readFileSync(CONFIG, 'utf8');
  for (const [from, to] of [[8930, front], [8931, sw1], [8932, sw2]]) {
    const needle = `127.0.0.1:${from}`;
    // The instance lines in the comment name each back port once more.
    const count = text.split(needle).length - 1;
    assert.ok(count >= 1, `docs/haproxy.cfg names ${needle}`);
    text = text.replaceAll(needle, `127.0.0.1:${to}`);
  }
  return text;
}

/** One parsed line of haproxy's HTTP log. */
function parseLog (text) {
  const lines = [];
  const pattern = / (\S+)\/(\S+) \S+ (\d{3}) .* \{([^|}]*)\|([^}]*)\} "(\S+) /;
  for (const line of text.split('\n')) {
    const m = pattern.exec(line);
    if (m) lines.push({ backend: m[1], server: m[2], status: Number(m[3]), method: m[4], owner: m[5], verb: m[6] });
  }
  return lines;
}

async function startHaproxy (t, front, sw1, sw2) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-haproxy-'));
  const file = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(file, configFor(front, sw1, sw2));
  const check = spawnSync(HAPROXY, ['-c', '-f', file], { encoding: 'utf8', timeout: 20000 });
  assert.equal(check.status, 0, `haproxy -c: ${check.stdout}${check.stderr}`);

  // -db: in the foreground, logs on stdout (the configuration says so).
  const child = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid;
  let log = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (c) => { log += c; });
  child.stderr.on('data', (c) => { log += c; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  t.after(async () => {
    if (processAlive(pid)) {
      process.kill(pid, 'SIGTERM');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
  assert.ok(await waitUntil(() => !processAlive(pid) || canConnect(front), 20000, 50) && processAlive(pid),
            `haproxy did not listen on ${front}: ${log}`);
  return { pid, url: `http://127.0.0.1:${front}/mcp`, log: () => log, requests: () => parseLog(log) };
}

/** Two instances, sw1 and sw2, and haproxy in front of them. */
async function startCluster (t) {
  const instances = {};
  for (const id of ['sw1', 'sw2']) {
    // haproxy is the instances' one client: it limits the rate, they do not.
    const server = await startHttpServer(t, ['--http-instance-id', id, '--http-rate-limit', '0']);
    assert.match(server.stderr(), new RegExp(`^stagewright: instance id ${id}$`, 'm'));
    server.port = Number(new URL(server.url).port);
    instances[id] = server;
  }
  const haproxy = await startHaproxy(t, await freePort(), instances.sw1.port, instances.sw2.port);
  return { instances, haproxy };
}

// --- the clients ------------------------------------------------------------------

function wrap (client, extra = {}) {
  return {
    client,
    ...extra,
    async call (name, args = {}) {
      return envelopeOf(await client.callTool({ name, arguments: args }));
    },
    // Which instance answers: a call naming another instance's app is
    // refused with the answering instance's id.
    async whoami () {
      const refusal = failsWith(await this.call('electron_info', { sessionId: 'elsewhere.app-0-00000000' }),
                                'NOT_RUNNING', 'a call for an app of another instance');
      assert.equal(refusal.details.owner, 'elsewhere', JSON.stringify(refusal));
      assert.match(refusal.error, /“elsewhere”/);
      return refusal.details.instance;
    },
  };
}

/** The 2.x client in automatic mode: 2026-07-28, every request on its own. */
async function connectStateless (t, url) {
  const client = new client2.Client({ name: 'stagewright-haproxy-e2e', version: '0.0.0' },
    { versionNegotiation: { mode: 'auto' } });
  await client.connect(new client2.StreamableHTTPClientTransport(new URL(url)));
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  t.after(() => client.close().catch(() => {}));
  return wrap(client);
}

/** The 1.x client: a 2025-11-25 session with an MCP-Session-Id. */
async function connectSession (t, url) {
  const errors = [];
  const transport = new sdk.StreamableHTTPClientTransport(new URL(url),
    { reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 100, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1 } });
  const client = new sdk.Client({ name: 'stagewright-haproxy-e2e', version: '0.0.0' });
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  assert.match(transport.sessionId, /^[0-9a-f]{32}$/);
  t.after(() => client.close().catch(() => {}));
  return wrap(client, { transport, errors });
}

// --- the option -----------------------------------------------------------------------

nodeTest('--http-instance-id: validated, needs --http, random by default', async (t) => {
  const bad = ['', 'a.b', 'x'.repeat(33), 'caf\u00e9', 'a b', 'a/b', '-'.repeat(3) + '\n'];
  for (const id of bad) {
    const { code, stderr } = await run(BIN, ['--http', '127.0.0.1:0', '--http-instance-id', id], { timeoutMs: 20000 });
    assert.equal(code, 2, `${JSON.stringify(id)}: ${stderr}`);
    assert.match(stderr, /--http-instance-id takes 1 to 32 letters/);
  }
  const alone = await run(BIN, ['--http-instance-id', 'sw1'], { timeoutMs: 20000 });
  assert.equal(alone.code, 2, alone.stderr);
  assert.match(alone.stderr, /need --http/);

  // The longest id and every allowed character are taken.
  const named = await startHttpServer(t, ['--http-instance-id', 'Az09_-'.padEnd(32, 'x')]);
  assert.match(named.stderr(), /^stagewright: instance id Az09_-x{26}$/m);
  assert.equal((await named.stop()).code, 0);

  // Two instances started without one never share it.
  const a = await startHttpServer(t);
  const b = await startHttpServer(t);
  const idOf = (server) => /^stagewright: instance id ([0-9a-f]{8})$/m.exec(server.stderr())?.[1];
  assert.ok(idOf(a) && idOf(b), `${a.stderr()}\n${b.stderr()}`);
  assert.notEqual(idOf(a), idOf(b));

  // Over stdio alone there is no instance id: ids stay bare, and a server
  // without one claims nothing about whose an id is.
  if (!sdk.skip) {
    const stdio = await startServer(t);
    const refusal = failsWith(await stdio.call('electron_info', { sessionId: 'sw1.app-1-00000000' }), 'NOT_RUNNING');
    assert.equal(refusal.details, undefined, JSON.stringify(refusal));
    assert.match(refusal.error, /No live session has the id sw1\.app-1-00000000/);
  }
});

// --- behind haproxy ---------------------------------------------------------------------

test('2026-07-28 requests that touch no app land on both instances', async (t) => {
  const { haproxy } = await startCluster(t);
  // Each client discovers once, at connect: two clients, two instances.
  const clients = [await connectStateless(t, haproxy.url), await connectStateless(t, haproxy.url)];

  const seen = new Set();
  for (let i = 0; i < 4; i++) {
    for (const client of clients) {
      const { tools } = await client.client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'electron_status'));
      const status = ok(await client.call('electron_status'), 'electron_status');
      assert.equal(status.active_sessions, 0);
      seen.add(await client.whoami());
    }
  }
  assert.deepEqual([...seen].sort(), ['sw1', 'sw2'], 'the instances themselves say both served');

  // haproxy's account: each kind of request on both.
  const log = haproxy.requests();
  for (const method of ['server/discover', 'tools/list', 'tools/call']) {
    const servers = new Set(log.filter((r) => r.method === method).map((r) => r.server));
    assert.deepEqual([...servers].sort(), ['sw1', 'sw2'], `${method} landed on both: ${haproxy.log()}`);
  }
  assert.ok(log.every((r) => r.status === 200 && r.backend === 'stagewright'), haproxy.log());
});

test('hostile sessionIds: through haproxy and at an instance, refused plainly, nothing routed astray',
  async (t) => {
    const { instances, haproxy } = await startCluster(t);
    const through = await connectStateless(t, haproxy.url);
    const direct = await connectStateless(t, instances.sw1.url);

    // Not an instance id before the dot, or our own: the plain refusal.
    const plain = ['.app-1-00000000', 'sw1.app-1-00000000', 'sw1.', 'a b.x', 'x'.repeat(33) + '.y',
      'caf\u00e9.x', '\u0000.x', 'sw2\u0000.x', '..', '.', 'sw2', '', 'x'.repeat(100000)];
    for (const sessionId of plain) {
      const refusal = failsWith(await direct.call('electron_info', { sessionId }), 'NOT_RUNNING',
                                `electron_info ${JSON.stringify(sessionId.slice(0, 40))}`);
      assert.equal(refusal.details, undefined, JSON.stringify(refusal).slice(0, 300));
    }
    // Another instance's id, even one that does not exist: named.
    for (const owner of ['sw2', 'Z', 'x'.repeat(32), 'a-b_c']) {
      const refusal = failsWith(await direct.call('electron_stop', { sessionId: `${owner}.app-1-00000000.x` }),
                                'NOT_RUNNING');
      assert.deepEqual(refusal.details, { owner, instance: 'sw1' });
    }

    // Through haproxy: ids that are not strings, or not there, are the
    // instances' to refuse; haproxy routes them round robin and answers
    // nothing itself.
    for (const sessionId of [123, null, true, { sessionId: 'sw1.x' }, ['sw1.x'], 'sw1', 'x'.repeat(100000)]) {
      const envelope = await through.call('electron_info', { sessionId });
      assert.equal(envelope.ok, false, JSON.stringify(envelope).slice(0, 300));
      assert.ok(['BAD_ARGUMENT', 'NOT_RUNNING'].includes(envelope.code), JSON.stringify(envelope).slice(0, 300));
    }
    assert.ok(haproxy.requests().every((r) => r.status === 200), haproxy.log());
    assert.deepEqual(new Set([await through.whoami(), await through.whoami()]), new Set(['sw1', 'sw2']));
  });

test('a 2025-11-25 session stays on the instance that answered its initialize', async (t) => {
  const { haproxy } = await startCluster(t);
  const first = await connectSession(t, haproxy.url);
  const second = await connectSession(t, haproxy.url);

  const home = [await first.whoami(), await second.whoami()];
  // Round robin: the second initialize went to the other instance.
  assert.deepEqual([...home].sort(), ['sw1', 'sw2']);
  for (let i = 0; i < 5; i++) {
    // Landing on the other instance would be a 404 (it does not know the
    // session), which the client would throw.
    const [a, b] = await Promise.all([first.whoami(), second.whoami()]);
    assert.deepEqual([a, b], home, 'each session stays where it began');
    await first.client.listTools();
    ok(await second.call('electron_status'), 'electron_status');
  }
  assert.ok(haproxy.requests().every((r) => r.status < 400), haproxy.log());
  assert.deepEqual(first.errors, []);
  assert.deepEqual(second.errors, []);
  await first.transport.terminateSession();
  await second.transport.terminateSession();
});

test('a call for a driven app reaches its owner; the other instance refuses it, naming the owner',
  { skip: appSkip }, async (t) => {
    const { instances, haproxy } = await startCluster(t);
    const client = await connectStateless(t, haproxy.url);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-haproxy-shot-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));

    // Launches touch no app yet: round robin spreads them; launch until
    // each instance has one (bounded).
    const apps = {};
    for (let i = 0; i < 6 && Object.keys(apps).length < 2; i++) {
      const launch = ok(await client.call('electron_launch', launchArgs(DEMO_APP, { allowMultiple: true })),
                        'electron_launch');
      const owner = launch.session_id.split('.')[0];
      assert.match(launch.session_id, /^sw[12]\.app-\d+-[0-9a-f]{8}$/);
      if (apps[owner]) {
        ok(await client.call('electron_stop', { sessionId: launch.session_id }), 'electron_stop');
        continue;
      }
      apps[owner] = launch;
      t.after(() => { if (processAlive(launch.pid)) process.kill(-launch.pid, 'SIGKILL'); });
    }
    assert.deepEqual(Object.keys(apps).sort(), ['sw1', 'sw2'], 'launches landed on both instances');

    for (const [owner, launch] of Object.entries(apps)) {
      // Through haproxy, every call for the app reaches its owner.
      for (let i = 0; i < 4; i++) {
        const info = ok(await client.call('electron_info', { sessionId: launch.session_id }), 'electron_info');
        assert.equal(info.session_id, launch.session_id);
      }
      const shot = ok(await client.call('electron_screenshot', { sessionId: launch.session_id, dir }),
                      'electron_screenshot');
      assert.deepEqual(pngSize(shot.path), { width: shot.width, height: shot.height });

      // Asked directly, the other instance refuses, names the owner, and
      // does not touch the app.
      const other = owner === 'sw1' ? 'sw2' : 'sw1';
      const direct = await connectStateless(t, instances[other].url);
      for (const tool of ['electron_info', 'electron_screenshot', 'electron_stop']) {
        const refusal = failsWith(await direct.call(tool, { sessionId: launch.session_id, ...(tool === 'electron_screenshot' ? { dir } : {}) }),
                                  'NOT_RUNNING', `${tool} on the other instance`);
        assert.deepEqual(refusal.details, { owner, instance: other }, JSON.stringify(refusal));
        assert.ok(refusal.error.includes(launch.session_id) && refusal.error.includes(`“${owner}”`), refusal.error);
      }
      assert.ok(processAlive(launch.pid), 'the other instance stopped nothing');
    }

    // haproxy routed every call that named an app by its owner.
    const routed = haproxy.requests().filter((r) => r.method === 'tools/call' && r.owner);
    assert.ok(routed.length >= 10, haproxy.log());
    for (const r of routed.filter((r) => r.owner in apps))
      assert.equal(r.server, r.owner, `routed by owner: ${haproxy.log()}`);

    for (const launch of Object.values(apps)) {
      const stop = ok(await client.call('electron_stop', { sessionId: launch.session_id }), 'electron_stop');
      assert.equal(stop.stopped, true);
      assert.ok(await waitUntil(() => !processAlive(launch.pid), 10000, 50));
      await waitUntil(() => survivors({ pgids: [launch.pid] }).length === 0, 5000, 50);
      assert.deepEqual(survivors({ pgids: [launch.pid] }), []);
    }
  });

test('an instance going away fails its sessions clearly; the other keeps serving', async (t) => {
  const { instances, haproxy } = await startCluster(t);
  const stateless = await connectStateless(t, haproxy.url);
  const sessions = [await connectSession(t, haproxy.url), await connectSession(t, haproxy.url)];
  const homes = await Promise.all(sessions.map((s) => s.whoami()));
  assert.deepEqual([...homes].sort(), ['sw1', 'sw2']);
  const gone = 'sw1';
  const kept = 'sw2';
  const orphaned = sessions[homes.indexOf(gone)];
  const survivor = sessions[homes.indexOf(kept)];

  // An app on the instance that goes away, when the demo app is here.
  let app = null;
  if (!appSkip) {
    for (let i = 0; i < 4 && !app; i++) {
      const launch = ok(await stateless.call('electron_launch', launchArgs(DEMO_APP, { allowMultiple: true })),
                        'electron_launch');
      if (launch.session_id.startsWith(`${gone}.`)) app = launch;
      else ok(await stateless.call('electron_stop', { sessionId: launch.session_id }), 'electron_stop');
    }
    assert.ok(app, `a launch landed on ${gone}`);
  }

  const { code } = await instances[gone].stop();
  assert.equal(code, 0, instances[gone].stderr());
  if (app) {
    // It stopped its apps on its way out.
    assert.ok(await waitUntil(() => !processAlive(app.pid), 10000, 50), 'the app stopped with its instance');
  }

  // Its 2025-11-25 session: the remaining instance does not know it (404,
  // the specification's "start a new session"), never a hang.
  await assert.rejects(orphaned.call('electron_status'), (error) => {
    assert.match(String(error), /404|Session not found/i, String(error));
    return true;
  });

  // A stateless call for its app: the remaining instance says whose it was.
  if (app) {
    const refusal = failsWith(await stateless.call('electron_info', { sessionId: app.session_id }), 'NOT_RUNNING');
    assert.deepEqual(refusal.details, { owner: gone, instance: kept });
  }

  // The other instance keeps serving: its session, new sessions, stateless
  // requests.
  for (let i = 0; i < 3; i++) {
    assert.equal(await survivor.whoami(), kept);
    assert.equal(await stateless.whoami(), kept);
    await stateless.client.listTools();
  }
  const fresh = await connectSession(t, haproxy.url);
  assert.equal(await fresh.whoami(), kept);
  const again = await connectStateless(t, haproxy.url);
  assert.equal(await again.whoami(), kept);
  await survivor.transport.terminateSession();
  await fresh.transport.terminateSession();

  const late = haproxy.requests().filter((r) => r.verb === 'POST').slice(-6);
  assert.ok(late.every((r) => r.server === kept), haproxy.log());
});
