// Proof that the Electron stand-in (tests/fixtures/electron) looks like Electron from the
// outside: Playwright's own _electron launcher drives the demo app through it, and the
// process contract a launcher relies on holds (DevTools pipe, no debugging switch, a
// crash while loading, process.exit, SIGKILL). Nothing here talks to the stand-in in a way
// a real Electron would not understand.
//
//   cd tests && node --test e2e/playwright-standin.test.mjs

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { _electron } from 'playwright-core';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
const ELECTRON = path.join(FIXTURES, 'electron');
const DEMO_APP = path.join(FIXTURES, 'demo-app');
const REPORT_APP = path.join(FIXTURES, 'report-app');
const CRASH_APP = path.join(FIXTURES, 'crash-app'); // its main.js lists its switches
const NETWORK_APP = path.join(FIXTURES, 'network-app'); // its #open button calls window.open

// Each run gets its own TMPDIR: the stand-in puts its per-instance directory there, so
// every process of the run (Chromium's --user-data-dir, crashpad's --database) names it.
function scratchDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'standin-e2e-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// Live (not zombie) processes whose command line contains a marker or whose process
// group is pgid. Zombies are dead: PID 1 of a container may be slow to reap them.
function liveProcesses({ markers = [], pgid = null }) {
  const found = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid)
      continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (state !== 'Z' && (markers.some((m) => cmdline.includes(m)) || Number(group) === pgid))
        found.push(`${name} ${cmdline.slice(0, 120)}`);
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

async function assertNoProcessesLeft(which, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  let left;
  while ((left = liveProcesses(which)).length > 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(left, [], 'processes of this run are still alive');
}

function killMarked(markers) {
  for (const line of liveProcesses({ markers })) {
    try {
      process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

// Starts the stand-in directly, as a launcher would.
function startStandin(t, args, { tmpdir, stdio = ['ignore', 'pipe', 'pipe'] }) {
  const child = spawn(ELECTRON, args, { stdio, env: { ...process.env, TMPDIR: tmpdir } });
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk) => { output.stdout += chunk; });
  child.stderr?.on('data', (chunk) => { output.stderr += chunk; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null)
      child.kill('SIGKILL');
    killMarked([tmpdir]);
  });
  return { child, output, exited };
}

function waitFor(predicate, what, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = () => {
      const value = predicate();
      if (value)
        resolve(value);
      else if (Date.now() > deadline)
        reject(new Error(`timed out waiting for ${what}`));
      else
        setTimeout(poll, 20);
    };
    poll();
  });
}

test('Playwright _electron drives the demo app through the stand-in', { timeout: 60000 }, async (t) => {
  const tmpdir = scratchDir(t);
  const app = await _electron.launch({
    executablePath: ELECTRON,
    args: [DEMO_APP],
    env: { ...process.env, TMPDIR: tmpdir },
    timeout: 30000,
  });
  const pid = app.process().pid;
  t.after(() => killMarked([tmpdir]));
  let userData;
  try {
    const window = await app.firstWindow();
    // The first window exists before its page has loaded (as in Electron).
    await window.waitForLoadState('domcontentloaded');
    assert.match(window.url(), /\/demo-app\/index\.html$/);
    assert.equal(await window.title(), 'Stagewright Notes');

    // The form, through Playwright's real input.
    await window.getByLabel('Title').fill('Buy milk');
    await window.getByLabel('Body').fill('Two litres, semi-skimmed');
    await window.getByLabel('Category').selectOption('Work');
    await window.getByLabel('Pinned').check();
    await window.getByRole('button', { name: 'Add', exact: true }).click();
    const note = window.getByRole('article', { name: 'Buy milk' });
    await note.waitFor();
    assert.match(await note.textContent(), /Two litres, semi-skimmed.*Category: Work · Pinned/s);
    await window.getByText('Saved 1 note to the main process').waitFor();

    // A confirm() the test dismisses keeps the note.
    window.once('dialog', (dialog) => dialog.dismiss());
    await window.getByRole('button', { name: 'Delete Buy milk' }).click();
    await window.getByText('Kept "Buy milk"').waitFor();

    // The main process, through the Node inspector, as Playwright does with Electron.
    const main = await app.evaluate(({ app, BrowserWindow }) => ({
      name: app.getName(),
      version: app.getVersion(),
      windows: BrowserWindow.getAllWindows().length,
      title: BrowserWindow.getAllWindows()[0].getTitle(),
      type: process.type,
      electron: process.versions.electron,
      chrome: process.versions.chrome,
    }));
    assert.deepEqual(
      { ...main, chrome: undefined },
      { name: 'Stagewright Notes', version: '1.0.0', windows: 1, title: 'Stagewright Notes', type: 'browser', electron: '0.0.0-standin', chrome: undefined });
    assert.match(main.chrome, /^\d+\.\d+\.\d+\.\d+$/);

    // What the renderer saved over ipcRenderer.invoke is main-process state.
    // (_invokeHandlers keeps Electron's wrapper, which answers through the event.)
    const saved = await app.evaluate(({ ipcMain }) => new Promise((resolve, reject) =>
      ipcMain._invokeHandlers.get('notes:load')({ _reply: resolve, _throw: reject })));
    assert.deepEqual(saved, [{ id: 1, title: 'Buy milk', body: 'Two litres, semi-skimmed', category: 'Work', pinned: true }]);
    assert.equal(await app.evaluate(() => process.mainModule.exports.state.saves), 1);

    // The same-origin help frame and the out-of-process "webview" frame.
    const help = window.frameLocator('#help-frame');
    await help.getByRole('button', { name: 'Show a tip' }).click();
    await help.getByText('Tip 1: Pinned notes stay at the top of the list.').waitFor();
    const webview = window.frameLocator('#webview-frame');
    await webview.getByRole('button', { name: 'Like' }).click();
    await webview.getByText('1 like').waitFor();
    assert.ok(window.frames().some((frame) => frame.url().startsWith('http://127.0.0.1:')));

    // A second window, opened by the renderer over IPC.
    const [second] = await Promise.all([
      app.waitForEvent('window'),
      window.getByRole('button', { name: 'New window' }).click(),
    ]);
    await second.waitForLoadState('domcontentloaded');
    assert.match(second.url(), /\/demo-app\/second\.html$/);
    assert.equal(await second.title(), 'Stagewright Notes — Second window');
    await second.locator('#saved-count', { hasText: '1' }).waitFor();
    assert.equal(app.windows().length, 2);
    const secondWindow = await app.browserWindow(second);
    assert.deepEqual(await secondWindow.evaluate((win) => [win.id, win.getTitle()]), [2, 'Stagewright Notes — Second window']);
    assert.equal(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length), 2);

    userData = await app.evaluate(({ app }) => app.getPath('userData'));
  } finally {
    await app.close();
  }

  // Nothing of this run survives: not by group, not by profile or scratch directory.
  await assertNoProcessesLeft({ markers: [tmpdir, userData], pgid: pid });
  assert.deepEqual(fs.readdirSync(tmpdir), [], 'the per-instance directory is removed');
});

test('--remote-debugging-pipe: the caller speaks CDP on fds 3/4', { timeout: 30000 }, async (t) => {
  const tmpdir = scratchDir(t);
  const { child, output, exited } = startStandin(t, ['--remote-debugging-pipe', DEMO_APP], {
    tmpdir,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
  });
  const [commands, replies] = [child.stdio[3], child.stdio[4]];
  const pending = new Map();
  const targets = new Map();
  let buffered = Buffer.alloc(0);
  let sawEof = false;
  replies.on('end', () => { sawEof = true; });
  replies.on('data', (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (let end; (end = buffered.indexOf(0)) !== -1; buffered = buffered.subarray(end + 1)) {
      const message = JSON.parse(buffered.subarray(0, end).toString('utf8'));
      if (pending.has(message.id))
        pending.get(message.id)(message);
      else if (message.method === 'Target.targetInfoChanged' || message.method === 'Target.targetCreated')
        targets.set(message.params.targetInfo.targetId, message.params.targetInfo);
    }
  });
  let nextId = 1;
  const send = (method, params = {}) => new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    commands.write(`${JSON.stringify({ id, method, params })}\0`);
  });

  const version = await send('Browser.getVersion');
  assert.match(version.result.product, /^(Headless)?Chrome\//);
  await send('Target.setDiscoverTargets', { discover: true });
  await waitFor(() => [...targets.values()].some((info) => info.type === 'page' && info.url.endsWith('/demo-app/index.html')),
    'the demo window on the caller\'s pipe');

  child.kill('SIGTERM');
  assert.deepEqual(await exited, { code: 0, signal: null });
  await waitFor(() => sawEof, 'EOF on the caller\'s pipe', 5000);
  assert.doesNotMatch(output.stderr, /DevTools listening/, 'the stand-in\'s private port is not announced');
  assert.equal(output.stdout, '');
  await assertNoProcessesLeft({ markers: [tmpdir] });
  assert.deepEqual(fs.readdirSync(tmpdir), []);
});

test('no debugging switch: no DevTools endpoint, IPC works, stdout is the app\'s', { timeout: 30000 }, async (t) => {
  const tmpdir = scratchDir(t);
  const { output, exited } = startStandin(t, [REPORT_APP], { tmpdir });
  assert.deepEqual(await exited, { code: 0, signal: null });
  assert.doesNotMatch(output.stderr, /DevTools listening/);
  const lines = output.stdout.split('\n');
  assert.equal(lines.length, 2, `exactly one line on stdout, got ${JSON.stringify(output.stdout)}`);
  const report = JSON.parse(lines[0]);
  assert.deepEqual({ ...report, chrome: undefined }, {
    name: 'Report and Quit', version: '2.3.4', title: 'Report and Quit', sum: 5, type: 'browser',
    electron: '0.0.0-standin', chrome: undefined,
  });
  await assertNoProcessesLeft({ markers: [tmpdir] });
  assert.deepEqual(fs.readdirSync(tmpdir), []);
});

test('a main script that throws while loading: Electron\'s message, non-zero exit', { timeout: 30000 }, async (t) => {
  const tmpdir = scratchDir(t);
  const { output, exited } = startStandin(t,
    ['--inspect=0', '--remote-debugging-port=0', CRASH_APP, '--throw-at-load'], { tmpdir });
  assert.deepEqual(await exited, { code: 1, signal: null });
  assert.match(output.stderr, /^Debugger listening on ws:\/\//m);
  assert.match(output.stderr, /^App threw an error during load\nError: crash-app: deliberate failure while loading main\.js\n/m);
  assert.doesNotMatch(output.stderr, /DevTools listening/, 'Chromium never started');
  await assertNoProcessesLeft({ markers: [tmpdir] });
});

test('process.exit(4) in the main process ends the app with status 4', { timeout: 30000 }, async (t) => {
  const tmpdir = scratchDir(t);
  const exitFile = path.join(scratchDir(t), 'exit-now');
  const app = await _electron.launch({
    executablePath: ELECTRON,
    args: [CRASH_APP, `--exit-file=${exitFile}`],
    env: { ...process.env, TMPDIR: tmpdir },
    timeout: 30000,
  });
  t.after(() => killMarked([tmpdir]));
  const pid = app.process().pid;
  const exited = new Promise((resolve) => app.process().once('exit', (code, signal) => resolve({ code, signal })));
  const window = await app.firstWindow();
  await window.waitForLoadState('domcontentloaded');
  assert.equal(await window.title(), 'Crash App');
  // Playwright is attached to the Node inspector, so Node prints "Waiting for the debugger
  // to disconnect..." and Playwright lets go, as with Electron.
  fs.writeFileSync(exitFile, '');
  assert.deepEqual(await exited, { code: 4, signal: null });
  await assertNoProcessesLeft({ markers: [tmpdir], pgid: pid });
  assert.deepEqual(fs.readdirSync(tmpdir), []);
});

test('SIGKILL of the main process takes Chromium down with it', { timeout: 30000 }, async (t) => {
  const tmpdir = scratchDir(t);
  const { child, output, exited } = startStandin(t,
    ['--inspect=0', '--remote-debugging-port=0', DEMO_APP], { tmpdir });
  await waitFor(() => /^DevTools listening on ws:\/\//m.test(output.stderr), 'the DevTools line');
  assert.match(output.stderr, /^Debugger listening on ws:\/\//m);
  assert.ok(liveProcesses({ markers: [tmpdir] }).length > 1, 'Chromium is running');
  child.kill('SIGKILL');
  assert.deepEqual(await exited, { code: null, signal: 'SIGKILL' });
  await assertNoProcessesLeft({ markers: [tmpdir] });
});

// Chromium lets a held popup run on the first Runtime.runIfWaitingForDebugger of any
// client that holds it. Electron holds nothing, so a debugger that holds new pages (to
// turn on what it needs before their first request) must be the one that lets them go.
// This debugger holds each popup well past the stand-in's own set-up: the popup's
// document must not be requested before it lets go, for the first popup (from which the
// stand-in learns there is another holder) and for a later one held longer than that.
test('a popup another debugger holds starts when that debugger lets it go', { timeout: 60000 }, async (t) => {
  const tmpdir = scratchDir(t);
  const requests = [];
  const pageDir = path.join(NETWORK_APP, 'page');
  const server = http.createServer((request, response) => {
    const pathname = new URL(request.url, 'http://127.0.0.1').pathname;
    requests.push({ pathname, at: Date.now() });
    const file = { '/': 'index.html', '/app.js': 'app.js', '/second.html': 'second.html', '/pixel.png': 'pixel.png' }[pathname];
    if (!file) {
      response.writeHead(pathname.startsWith('/api/') ? 200 : 404, { 'Content-Type': 'application/json' });
      response.end('{}');
      return;
    }
    response.end(fs.readFileSync(path.join(pageDir, file)));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const { child, output, exited } = startStandin(t, ['--remote-debugging-port=0', NETWORK_APP, `--url=http://127.0.0.1:${server.address().port}/`], { tmpdir });
  const wsUrl = (await waitFor(() => output.stderr.match(/DevTools listening on (ws:\/\/\S+)/), 'the DevTools line'))[1];

  const { CdpConnection, WebSocketTransport } = createRequire(import.meta.url)('../fixtures/electron-standin/lib/cdp.js');
  const cdp = new CdpConnection(await WebSocketTransport.connect(wsUrl));
  const popups = [];
  let opener = null;
  cdp.on('Target.attachedToTarget', (event, parent) => {
    if (parent || event.targetInfo.type !== 'page')
      return;
    if (event.targetInfo.openerId)
      popups.push({ sessionId: event.sessionId, waiting: event.waitingForDebugger });
    else {
      opener ??= event.sessionId; // the app's window (on its placeholder until loadURL)
      if (event.waitingForDebugger)
        cdp.send('Runtime.runIfWaitingForDebugger', {}, event.sessionId).catch(() => {});
    }
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
  await waitFor(() => opener, 'the app\'s window');
  await waitFor(() => requests.some((r) => r.pathname === '/api/data.json'), 'the app\'s page to run');

  for (const [index, holdMs] of [[0, 500], [1, 2500]]) {
    const before = requests.length;
    // window.open() returns once the popup runs (it shares its opener's renderer).
    const clicked = cdp.send('Runtime.evaluate', { expression: 'document.querySelector("#open").click()', userGesture: true }, opener);
    const popup = await waitFor(() => popups[index], `popup ${index + 1}`);
    assert.equal(popup.waiting, true, 'the popup waits for this debugger');
    await new Promise((resolve) => setTimeout(resolve, holdMs));
    assert.ok(!requests.slice(before).some((r) => r.pathname === '/second.html'),
      `popup ${index + 1} was let go before its debugger did (held ${holdMs} ms)`);
    const released = Date.now();
    await cdp.send('Runtime.runIfWaitingForDebugger', {}, popup.sessionId);
    const document = await waitFor(() => requests.slice(before).find((r) => r.pathname === '/second.html'), `popup ${index + 1}'s document`);
    assert.ok(document.at >= released, `popup ${index + 1}'s document at ${document.at}, let go at ${released}`);
    await clicked;
  }
  cdp.close();
  child.kill('SIGTERM');
  assert.deepEqual(await exited, { code: 0, signal: null });
});
