// main-process.test.mjs: the app's main process on every path (launch, attach by
// port, inject on a non-default inspector port), BrowserWindow state in
// electron_windows_list, and the eval tools behind --allow-eval, driven over MCP
// by the official TypeScript SDK client against the Electron stand-in.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   node --test --test-reporter=tap --test-concurrency=1 tests/e2e/main-process.test.mjs

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test as nodeTest } from 'node:test';

import {
  CHROMIUM,
  DEMO_APP,
  demoAppSkipReason,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  processAlive,
  sleep,
  spawnStandin,
  startServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const skip = electronSkipReason() ?? demoAppSkipReason() ?? false;

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 120000, ...options, skip: skip || options.skip }, fn);
}

// The demo app's ipcMain.handle channels (tests/fixtures/demo-app/main.js).
const DEMO_HANDLERS = ['app:info', 'app:website', 'clipboard:copy', 'notes:export', 'notes:load', 'notes:open', 'notes:save',
                       'webview:url', 'window:new'];
// Read through the `electron` parameter: no require in the payload.
const READ_HANDLERS = 'return [...electron.ipcMain._invokeHandlers.keys()].sort();';

/** A free loopback port, for an inspector that must not be on 9229. */
function freePort () {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Loopback ports a pid listens on, from /proc (as the server reads them). */
function listeningPorts (pid) {
  const inodes = new Set();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // Closed meanwhile.
    }
  }
  const ports = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && f[3] === '0A' && inodes.has(f[9])) ports.add(parseInt(f[1].split(':')[1], 16));
    }
  }
  return [...ports];
}

async function evalMain (server, code, extra = {}) {
  return server.call('electron_eval_main', { code, ...extra });
}

// --- launch ---------------------------------------------------------------------------

test('launch: eval_main reads the demo app\'s ipcMain handlers; windows_list reports a hidden window', async (t) => {
  const server = await startServer(t, { args: ['--allow-eval=all'] });
  const launch = ok(await server.call('electron_launch', launchArgs(DEMO_APP)), 'electron_launch');
  t.after(() => server.call('electron_stop', {}).catch(() => {}));
  assert.equal(launch.capabilities.mainEval, true);

  const handlers = ok(await evalMain(server, READ_HANDLERS), 'eval_main');
  assert.equal(handlers.session_id, launch.session_id);
  assert.deepEqual(handlers.result, DEMO_HANDLERS);
  assert.equal(ok(await evalMain(server, 'return process.pid;')).result, launch.pid, 'the real main process');
  assert.deepEqual(ok(await evalMain(server, 'return { twice: arg.n * 2, type: process.type };', { arg: { n: 21 } }))
    .result, { twice: 42, type: 'browser' });

  // A hidden window, made by the main process itself.
  const made = ok(await evalMain(server,
    'const w = new electron.BrowserWindow({ show: false, width: 420, height: 330, x: 10, y: 20 });' +
    ' await w.loadURL("data:text/html,<title>Hidden</title>hidden"); return w.id;'), 'make a hidden window');
  const hiddenId = made.result;
  const listed = await waitUntil(async () => {
    const list = ok(await server.call('electron_windows_list', {}), 'windows_list');
    return list.windows.some((w) => w.electronId === hiddenId) ? list : null;
  }, 20000, 200);
  assert.ok(listed, 'the hidden window is listed with its electronId');
  const hidden = listed.windows.find((w) => w.electronId === hiddenId);
  assert.equal(hidden.visible, false);
  assert.equal(hidden.focused, false);
  assert.equal(hidden.minimized, false);
  assert.deepEqual(hidden.bounds, { x: 10, y: 20, width: 420, height: 330 });
  assert.equal(typeof hidden.id, 'string', 'today\'s string id stays');
  const main = listed.windows.find((w) => w.electronId !== hiddenId && w.title === 'Stagewright Notes');
  assert.ok(main, 'the main window is listed');
  assert.equal(main.visible, true);
  // Electron's ids, not ours: the same ones getAllWindows() gives.
  const ids = ok(await evalMain(server, 'return electron.BrowserWindow.getAllWindows().map((w) => w.id).sort();'))
    .result;
  assert.deepEqual(listed.windows.map((w) => w.electronId).sort(), ids);

  ok(await evalMain(server, `electron.BrowserWindow.fromId(${main.electronId}).minimize();`), 'minimize');
  const after = ok(await server.call('electron_windows_list', {}));
  assert.equal(after.windows.find((w) => w.electronId === main.electronId).minimized, true);
});

// --- attach ---------------------------------------------------------------------------

test('attach by port to an app started elsewhere: the main process is found, opened and proven', async (t) => {
  const inspectPort = await freePort();
  const app = await spawnStandin(DEMO_APP, [], { env: { ...process.env, NODE_OPTIONS: `--inspect-port=${inspectPort}` } });
  t.after(() => app.kill());
  const server = await startServer(t, { args: ['--allow-eval=all'] });

  const attached = ok(await server.call('electron_attach', { port: app.port }), 'attach by port');
  assert.equal(attached.capabilities.mainEval, true, JSON.stringify(attached.capabilities));
  assert.deepEqual(ok(await evalMain(server, READ_HANDLERS), 'eval_main').result, DEMO_HANDLERS);
  assert.equal(ok(await evalMain(server, 'return process.pid;')).result, app.pid);
  assert.ok(listeningPorts(app.pid).includes(inspectPort), 'the inspector opened where NODE_OPTIONS put it');
  assert.notEqual(inspectPort, 9229);
  const list = ok(await server.call('electron_windows_list', {}));
  assert.equal(list.windows[0].visible, true);
  assert.equal(typeof list.windows[0].electronId, 'number');

  ok(await server.call('electron_detach', {}), 'detach');
  assert.ok(processAlive(app.pid), 'detach leaves the app running');

  // By ws:// too; the inspector is open already, so no second signal is needed.
  const byUrl = ok(await server.call('electron_attach', { cdpUrl: app.wsUrl }), 'attach by cdpUrl');
  assert.equal(byUrl.capabilities.mainEval, true);
  assert.deepEqual(ok(await evalMain(server, READ_HANDLERS)).result, DEMO_HANDLERS);
  ok(await server.call('electron_detach', {}));

  // A port whose /json/version names another endpoint: the process that owns the
  // endpoint we end up talking to is the one reached, never the one that answered.
  const relay = spawnSignalLogger(
    'const s = require("http").createServer((q, r) => { r.setHeader("content-type", "application/json");' +
    ` r.end(JSON.stringify({ Browser: "Chrome/1", webSocketDebuggerUrl: ${JSON.stringify(app.wsUrl)} })); });` +
    ' s.listen(0, "127.0.0.1", () => process.stdout.write(`PORT ${s.address().port}\\n`));');
  t.after(() => relay.kill());
  await relay.ready;
  ok(await server.call('electron_attach', { port: relay.port() }), 'attach through a relaying port');
  assert.equal(ok(await evalMain(server, 'return process.pid;')).result, app.pid);
  await sleep(300);
  assert.equal(relay.signalled(), false, 'the port that answered is not the endpoint\'s process');
  ok(await server.call('electron_detach', {}));
});

// --- inject ---------------------------------------------------------------------------

test('inject into a running stand-in whose inspector opens on a port other than 9229', async (t) => {
  const inspectPort = await freePort();
  const app = await spawnStandin(DEMO_APP, [`--inspect-port=${inspectPort}`]);
  t.after(() => app.kill());
  assert.ok(!listeningPorts(app.pid).includes(inspectPort), 'no inspector before the inject');
  const server = await startServer(t, { args: ['--allow-eval=main'] });

  const injected = ok(await server.call('electron_inject', { pid: app.pid }), 'electron_inject');
  assert.equal(injected.transport, 'injector');
  assert.equal(injected.capabilities.mainEval, true);
  assert.ok(listeningPorts(app.pid).includes(inspectPort));
  assert.deepEqual(ok(await evalMain(server, READ_HANDLERS), 'eval_main').result, DEMO_HANDLERS);
  ok(await server.call('electron_detach', {}));
  assert.ok(processAlive(app.pid));
});

// --- policy ---------------------------------------------------------------------------

test('--allow-eval=renderer: eval_main is absent from tools/list and refused by name', async (t) => {
  const server = await startServer(t, { args: ['--allow-eval=renderer'] });
  const { tools } = await server.client.listTools();
  const names = tools.map((tool) => tool.name);
  assert.ok(names.includes('electron_eval_renderer'));
  assert.ok(!names.includes('electron_eval_main'));
  const refused = failsWith(await evalMain(server, 'return 1;'), 'BAD_ARGUMENT');
  assert.match(refused.error, /--allow-eval=main/);

  const none = await startServer(t);
  const noneNames = (await none.client.listTools()).tools.map((tool) => tool.name);
  assert.ok(!noneNames.some((name) => name.startsWith('electron_eval_')), 'no eval tool without --allow-eval');
  assert.match(failsWith(await none.call('electron_eval_renderer', { code: 'return 1;' }), 'BAD_ARGUMENT').error,
    /--allow-eval=renderer/);
});

// --- eval errors ----------------------------------------------------------------------

test('eval errors: syntax before running, runtime first line, timeouts, truncation, oversize input', async (t) => {
  const server = await startServer(t, { args: ['--allow-eval=all'] });
  ok(await server.call('electron_launch', launchArgs(DEMO_APP)), 'electron_launch');
  t.after(() => server.call('electron_stop', {}).catch(() => {}));

  for (const tool of ['electron_eval_main', 'electron_eval_renderer']) {
    const call = (code, extra = {}) => server.call(tool, { code, ...extra });

    // A syntax error anywhere means nothing ran, not even the statements before it.
    const marker = `__stw_marker_${tool}`;
    const syntax = failsWith(await call(`globalThis.${marker} = 1; return (;`), 'EVAL_SYNTAX_ERROR', tool);
    // From the target's parser, or from the dispatcher's guard when it tokenizes first.
    assert.match(syntax.error, /Unexpected token|Unclosed|Unexpected/);
    assert.equal(ok(await call(`return typeof globalThis.${marker};`)).result, 'undefined', `${tool}: nothing ran`);
    // Nor can a body close the wrapper early.
    failsWith(await call('}); (async () => {'), 'EVAL_SYNTAX_ERROR', tool);

    const runtime = failsWith(await call('throw new Error("boom\\nsecond line");'), 'EVAL_RUNTIME_ERROR', tool);
    assert.equal(runtime.error, 'Error: boom');
    const rejected = failsWith(await call('await Promise.reject(new TypeError("late"));'), 'EVAL_RUNTIME_ERROR');
    assert.equal(rejected.error, 'TypeError: late');

    failsWith(await call('while (true) {}', { timeoutMs: 1000 }), 'EVAL_TIMEOUT', `${tool}: busy loop`);
    assert.equal(ok(await call('return 1 + 1;'), `${tool} after a terminated loop`).result, 2);
    const pending = failsWith(await call('await new Promise(() => {});', { timeoutMs: 500 }), 'EVAL_TIMEOUT');
    assert.equal(pending.retryable, true);

    const big = ok(await call('return "x".repeat(20000);'), `${tool}: big`);
    assert.equal(big.truncated, true);
    assert.equal(big.result.length, 10000);
    assert.equal(big.result_chars, 20002);
    const small = ok(await call('return { a: [1, "two", null] };'));
    assert.deepEqual(small.result, { a: [1, 'two', null] });
    assert.equal(small.truncated, undefined);

    const undef = ok(await call('return undefined;'));
    assert.equal(undef.result_serialized, true);
    assert.equal(undef.result, 'undefined');
    assert.equal(ok(await call('return 10n ** 20n;')).result, '100000000000000000000');

    failsWith(await call('x'.repeat(100001)), 'BAD_ARGUMENT', `${tool}: oversize`);
    failsWith(await call(''), 'BAD_ARGUMENT', `${tool}: empty`);
  }

  // The renderer runs in the page's own world: the preload's global is there.
  const api = ok(await server.call('electron_eval_renderer', { code: 'return Object.keys(window.notesApi).length > 0;' }));
  assert.equal(api.result, true);
  // The audit line names the hash, never the code.
  assert.match(server.stderr(), /eval audit: tool=electron_eval_renderer code_length=\d+ code_sha256=[0-9a-f]{64}/);
  assert.ok(!server.stderr().includes('notesApi'), 'no code in the audit');
});

// --- hostile endpoints ----------------------------------------------------------------

/** A node process that logs SIGUSR1 instead of opening an inspector. */
function spawnSignalLogger (script) {
  const child = spawn(process.execPath, ['-e',
    `process.on('SIGUSR1', () => process.stdout.write('SIGUSR1\\n')); ${script}`],
  { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => { out += chunk; });
  const ready = new Promise((resolve) => child.stdout.on('data', () => { if (/PORT \d+/.test(out)) resolve(); }));
  return {
    child,
    ready,
    port: () => Number(/PORT (\d+)/.exec(out)?.[1]),
    signalled: () => out.includes('SIGUSR1'),
    output: () => out,
    kill () {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    },
  };
}

test('hostile: an endpoint that lies, one that is not Electron, one that is the server\'s own ancestor', async (t) => {
  const server = await startServer(t, { args: ['--allow-eval=all'] });

  // 1. A fake endpoint that names a browser it does not serve: refused, no signal.
  const liar = spawnSignalLogger(
    'const s = require("http").createServer((q, r) => { r.setHeader("content-type", "application/json");' +
    ' r.end(JSON.stringify({ Browser: "Chrome/1", webSocketDebuggerUrl:' +
    ' `ws://127.0.0.1:${s.address().port}/devtools/browser/x` })); });' +
    ' s.listen(0, "127.0.0.1", () => process.stdout.write(`PORT ${s.address().port}\\n`));');
  t.after(() => liar.kill());
  await liar.ready;
  const lied = await server.call('electron_attach', { port: liar.port(), timeoutMs: 3000 });
  assert.equal(lied.ok, false, 'a lying endpoint is refused');
  await sleep(300);
  assert.equal(liar.signalled(), false, 'no SIGUSR1 to the liar');
  assert.ok(processAlive(liar.child.pid));

  // 2. Plain Chromium: a real endpoint, but no Node main process to open.
  const chromiumProfile = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-main-chromium-'));
  const chromium = spawn(CHROMIUM, ['--headless', '--no-sandbox', '--remote-debugging-port=0',
    `--user-data-dir=${chromiumProfile}`, 'about:blank'],
  { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  t.after(async () => {
    try { process.kill(-chromium.pid, 'SIGKILL'); } catch { /* gone */ }
    await sleep(200);
    fs.rmSync(chromiumProfile, { recursive: true, force: true });
  });
  let err = '';
  chromium.stderr.setEncoding('utf8');
  chromium.stderr.on('data', (chunk) => { err += chunk; });
  const wsUrl = await waitUntil(() => /DevTools listening on (ws:\/\/\S+)/.exec(err)?.[1], 30000, 50);
  assert.ok(wsUrl, 'chromium announced its endpoint');
  const plain = ok(await server.call('electron_attach', { cdpUrl: wsUrl }), 'attach to plain Chromium');
  assert.equal(plain.capabilities.mainEval, false);
  assert.match(plain.capabilities.notes.mainEval, /does not handle SIGUSR1|cannot be reached/);
  assert.ok(processAlive(chromium.pid), 'Chromium was not signalled to death');
  const refused = failsWith(await evalMain(server, 'return 1;'), 'TRANSPORT_UNSUPPORTED');
  assert.match(refused.error, /main process/);
  // Without a main process, windows are listed as before.
  const list = ok(await server.call('electron_windows_list', {}));
  assert.equal(list.windows[0].visible, true);
  assert.equal(list.windows[0].electronId, undefined);
  ok(await server.call('electron_detach', {}));

  // 3. Chromium launched the way Puppeteer and Playwright do (its own process group) by a
  // Node script that would take SIGUSR1: the script is not the app, and is never signalled.
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-main-launcher-'));
  const launcher = spawnSignalLogger(
    `const c = require("child_process").spawn(${JSON.stringify(CHROMIUM)}, ["--headless", "--no-sandbox",` +
    ` "--remote-debugging-port=0", "--user-data-dir=${profile}", "about:blank"],` +
    ' { detached: true, stdio: ["ignore", "ignore", "pipe"] }); let e = "";' +
    ' c.stderr.on("data", (d) => { e += d; const m = /DevTools listening on ws:\\/\\/[^:]+:(\\d+)/.exec(e);' +
    ' if (m && !globalThis.told) { globalThis.told = true; process.stdout.write(`PORT ${m[1]} PID ${c.pid}\\n`); } });');
  t.after(() => {
    const child = /PID (\d+)/.exec(launcher.output())?.[1];
    if (child) try { process.kill(-Number(child), 'SIGKILL'); } catch { /* gone */ }
    launcher.kill();
    fs.rmSync(profile, { recursive: true, force: true });
  });
  await launcher.ready;
  const launched = ok(await server.call('electron_attach', { port: launcher.port() }), 'attach to a launched Chromium');
  assert.equal(launched.capabilities.mainEval, false);
  await sleep(300);
  assert.equal(launcher.signalled(), false, 'the launching script is not the app and gets no signal');
  ok(await server.call('electron_detach', {}));

  // 4. Another user's Chromium (when we may start one as nobody): never ours to signal.
  if (process.getuid() === 0 && fs.existsSync('/usr/bin/setpriv')) {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-main-nobody-'));
    fs.chownSync(home, 65534, 65534);
    const foreign = spawn('/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '--', CHROMIUM,
      '--headless', '--no-sandbox', '--remote-debugging-port=0', `--user-data-dir=${home}`, 'about:blank'],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, HOME: home } });
    t.after(async () => {
      try { process.kill(-foreign.pid, 'SIGKILL'); } catch { /* gone */ }
      await sleep(200);
      fs.rmSync(home, { recursive: true, force: true });
    });
    let foreignErr = '';
    foreign.stderr.setEncoding('utf8');
    foreign.stderr.on('data', (chunk) => { foreignErr += chunk; });
    const foreignUrl = await waitUntil(() => /DevTools listening on (ws:\/\/\S+)/.exec(foreignErr)?.[1], 30000, 50);
    assert.ok(foreignUrl, 'the foreign Chromium announced its endpoint');
    const other = ok(await server.call('electron_attach', { cdpUrl: foreignUrl }), 'attach to another user\'s app');
    assert.equal(other.capabilities.mainEval, false);
    assert.match(other.capabilities.notes.mainEval, /another user's/);
    ok(await server.call('electron_detach', {}));
  }

  // 5. An endpoint served by this test process, the server's parent: never signalled.
  let signalled = false;
  const onSignal = () => { signalled = true; };
  process.on('SIGUSR1', onSignal);
  t.after(() => process.off('SIGUSR1', onSignal));
  const fake = http.createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ webSocketDebuggerUrl: `ws://127.0.0.1:${fake.address().port}/devtools/browser/y` }));
  });
  await new Promise((resolve) => fake.listen(0, '127.0.0.1', resolve));
  t.after(() => fake.close());
  const own = await server.call('electron_attach', { port: fake.address().port, timeoutMs: 3000 });
  assert.equal(own.ok, false);
  await sleep(300);
  assert.equal(signalled, false, 'the server\'s ancestor is never signalled');
});

