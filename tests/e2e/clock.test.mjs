// clock.test.mjs: the clock plugin (issue 19, item 8) over MCP with the
// official SDK client, on tests/fixtures/clock-app: after clock_install the
// page's Date is the given time; clock_run_for {ms: 60000} fires a
// one-minute timer at once; a new window's first script already sees the
// fake clock; Playwright's semantics of set_time, set_system_time, advance,
// pause and resume; clock.NOT_INSTALLED; the controller out of the page's
// reach; hostile values refused and runaway timers bounded.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test as nodeTest } from 'node:test';

import {
  BIN,
  FIXTURES,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  sdk,
  spawnPlain,
  startServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const PLUGIN_DIR = path.join(path.dirname(path.dirname(BIN)), 'plugins', 'built');
const CLOCK_APP = path.join(FIXTURES, 'clock-app');
const built = fs.existsSync(path.join(PLUGIN_DIR, 'libclock.so')) ? null : `${PLUGIN_DIR}/libclock.so is not built`;
const skip = electronSkipReason() ?? built ?? false;

const Y2030 = Date.UTC(2030, 0, 1);

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 120000, ...options }, fn);
}

function serverEnv () {
  const env = { ...sdk.getDefaultEnvironment(), LC_ALL: 'C.UTF-8', STAGEWRIGHT_PLUGIN_PATH: PLUGIN_DIR };
  if (process.env.STW_NODE_MODULES) env.STW_NODE_MODULES = process.env.STW_NODE_MODULES;
  return env;
}

async function startClock (t, config) {
  const args = ['--plugin', 'clock', '--allow-eval=renderer'];
  if (config) args.push('--plugin-config', `clock=${JSON.stringify(config)}`);
  return startServer(t, { args, env: serverEnv() });
}

async function launchApp (t, server) {
  const launch = ok(await server.call('electron_launch', launchArgs(CLOCK_APP)), 'electron_launch');
  t.after(() => server.call('electron_stop', { sessionId: launch.session_id }).catch(() => {}));
  const sessionId = launch.session_id;
  await waitUntil(async () => /^\d{4}-/.test((await server.call('electron_get_text', { sessionId, selector: '#loaded' })).text ?? ''), 15000);
  return sessionId;
}

const page = async (server, sessionId, code) =>
  ok(await server.call('electron_eval_renderer', { sessionId, code }), `eval ${code}`).result;

test('install: the page\'s Date is the given time; run_for 60000 fires a one-minute timer at once; a new window sees the clock from its first script', { skip }, async (t) => {
  const server = await startClock(t);
  const sessionId = await launchApp(t, server);

  const plugins = ok(await server.call('electron_plugins', {}));
  const entry = plugins.plugins.find((p) => p.name === 'clock');
  assert.ok(entry, JSON.stringify(plugins));
  assert.deepEqual(entry.tools.map((tool) => tool.name).sort(),
                   ['clock_advance', 'clock_install', 'clock_pause', 'clock_resume', 'clock_run_for',
                    'clock_set_system_time', 'clock_set_time', 'clock_status']);

  const installed = ok(await server.call('clock_install', { sessionId, time: '2030-01-01T00:00:00Z' }), 'clock_install');
  assert.equal(installed.installed, true);
  assert.equal(installed.paused, false);
  // The window and its same-process frame.
  assert.ok(installed.documents >= 2, JSON.stringify(installed));
  assert.ok(installed.now >= Y2030 && installed.now < Y2030 + 60000, JSON.stringify(installed));

  const seen = await page(server, sessionId, 'return [new Date().toISOString(), Date.now(), Date()]');
  assert.match(seen[0], /^2030-01-01T00:0/);
  assert.ok(seen[1] >= Y2030 && seen[1] < Y2030 + 60000, String(seen[1]));
  assert.match(seen[2], /2030/);

  // The page arms a one-minute setTimeout; run_for fires it now.
  ok(await server.call('electron_click', { sessionId, selector: '#arm' }));
  assert.equal((await server.call('electron_get_text', { sessionId, selector: '#timer' })).text, 'armed');
  const started = Date.now();
  const ran = ok(await server.call('clock_run_for', { sessionId, ms: 60000 }), 'clock_run_for');
  assert.ok(Date.now() - started < 20000, 'at once, not in a minute');
  assert.ok(ran.fired >= 1, JSON.stringify(ran));
  assert.equal(ran.limitReached, false);
  const fired = (await server.call('electron_get_text', { sessionId, selector: '#timer' })).text;
  assert.match(fired, /^fired at 2030-01-01T00:01:/);

  // A second window (window.open): its first inline script sees 2030 and
  // the fake timers.
  ok(await server.call('electron_click', { sessionId, selector: '#open' }));
  let second = null;
  assert.ok(await waitUntil(async () => {
    second = ok(await server.call('electron_windows_list', { sessionId })).windows.find((w) => w.title === 'Stagewright Clock Two');
    return second !== undefined;
  }, 15000), 'the second window is there');
  ok(await server.call('electron_switch_window', { sessionId, targetId: second.id }));
  let first = '';
  await waitUntil(async () => {
    first = (await server.call('electron_get_text', { sessionId, selector: '#first' })).text ?? '';
    return first !== '';
  }, 15000);
  assert.match(first, /^2030-01-01T00:0[1-9].* \(fake timers\)$/);

  // The status counts every document: two windows and the frame.
  const status = ok(await server.call('clock_status', { sessionId }));
  assert.equal(status.installed, true);
  assert.ok(status.documents >= 3, JSON.stringify(status));
});

test('semantics: NOT_INSTALLED first; pause, run_for, advance, set_time, set_system_time, resume', { skip }, async (t) => {
  const server = await startClock(t);
  const sessionId = await launchApp(t, server);

  const before = ok(await server.call('clock_status', { sessionId }));
  assert.equal(before.installed, false);
  for (const [name, args] of [['clock_run_for', { ms: 1 }], ['clock_advance', { ms: 1 }], ['clock_pause', {}],
    ['clock_resume', {}], ['clock_set_time', { time: 0 }], ['clock_set_system_time', { time: 0 }]])
    failsWith(await server.call(name, { sessionId, ...args }), 'clock.NOT_INSTALLED', name);

  ok(await server.call('clock_install', { sessionId, time: Y2030 }));
  const paused = ok(await server.call('clock_pause', { sessionId }));
  assert.equal(paused.paused, true);
  const at = await page(server, sessionId, `
    window.ticks = 0; window.once = 0;
    setInterval(() => { window.ticks++; }, 1000);
    setTimeout(() => { window.once++; }, 5000);
    const start = Date.now();
    window.order = [];
    for (const [delay, name] of [[300, 'c'], [100, 'a'], [200, 'b'], [100, 'a2']])
      setTimeout(() => { window.order.push(name + '@' + (Date.now() - start)); }, delay);
    return start;`);
  // Paused: nothing moves while real time passes.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(await page(server, sessionId, 'return Date.now()'), at);

  const ran = ok(await server.call('clock_run_for', { sessionId, ms: 3500 }));
  assert.equal(ran.fired, 7);
  // In order of their time, then of their making, each at its own time.
  assert.deepEqual(await page(server, sessionId, 'return window.order'), ['a@100', 'a2@100', 'b@200', 'c@300']);
  assert.deepEqual(await page(server, sessionId, 'return [window.ticks, window.once, Date.now()]'), [3, 0, at + 3500]);

  // advance: each timer due within the span fires once, at its end.
  const jumped = ok(await server.call('clock_advance', { sessionId, ms: 10000 }));
  assert.equal(jumped.fired, 2);
  assert.deepEqual(await page(server, sessionId, 'return [window.ticks, window.once, Date.now()]'), [4, 1, at + 13500]);

  // set_time freezes Date while timers still run.
  const fixedAt = Date.UTC(2031, 4, 5);
  const fixed = ok(await server.call('clock_set_time', { sessionId, time: '2031-05-05T00:00:00Z' }));
  assert.equal(fixed.fixed, true);
  assert.equal(fixed.now, fixedAt);
  ok(await server.call('clock_run_for', { sessionId, ms: 2000 }));
  assert.deepEqual(await page(server, sessionId, 'return [window.ticks, Date.now(), new Date().getTime()]'), [6, fixedAt, fixedAt]);

  // set_system_time jumps the wall time without firing anything.
  const y2032 = Date.UTC(2032, 0, 1);
  const system = ok(await server.call('clock_set_system_time', { sessionId, time: y2032 }));
  assert.equal(system.fixed, false);
  assert.equal(system.fired, 0);
  assert.deepEqual(await page(server, sessionId, 'return [window.ticks, Date.now()]'), [6, y2032]);

  // pause at a time in the past is refused; resume runs with real time.
  failsWith(await server.call('clock_pause', { sessionId, time: Y2030 }), 'BAD_ARGUMENT');
  const resumed = ok(await server.call('clock_resume', { sessionId }));
  assert.equal(resumed.paused, false);
  await waitUntil(async () => (await page(server, sessionId, 'return Date.now()')) > y2032 + 50, 10000);
  // Real time drives the timers again: the one-second interval ticks.
  assert.ok(await waitUntil(async () => (await page(server, sessionId, 'return window.ticks')) > 6, 10000));

  // A navigation starts from the clock's state: the reloaded page's first
  // script sees 2032.
  await page(server, sessionId, 'location.reload(); return true');
  let loaded = '';
  assert.ok(await waitUntil(async () => {
    loaded = (await server.call('electron_get_text', { sessionId, selector: '#loaded' })).text ?? '';
    return loaded.startsWith('2032-');
  }, 15000), loaded);
  assert.match(loaded, /^2032-01-01T00:0/);
});

test('hostile: the controller is out of the page\'s reach, bad values are refused, runaway timers stop at the bound', { skip }, async (t) => {
  const server = await startClock(t, { maxTimersPerCall: 50 });
  const sessionId = await launchApp(t, server);
  const names = 'return [...Object.getOwnPropertyNames(globalThis), ...Object.getOwnPropertySymbols(globalThis).map(String)].sort()';

  const globalsBefore = await page(server, sessionId, names);
  ok(await server.call('clock_install', { sessionId, time: Y2030 }));
  ok(await server.call('clock_pause', { sessionId }));
  // Nothing new on the page's global, nor on Date, nor on EventTarget.
  assert.deepEqual(await page(server, sessionId, names), globalsBefore);
  assert.deepEqual(await page(server, sessionId, 'return Object.getOwnPropertyNames(Date).sort()'),
                   ['UTC', 'length', 'name', 'now', 'parse', 'prototype']);
  const scan = await page(server, sessionId, `
    const hits = [];
    for (const o of [globalThis, Date, Date.prototype, EventTarget.prototype, performance, document])
      for (const k of [...Object.getOwnPropertyNames(o), ...Object.getOwnPropertySymbols(o).map(String)])
        if (/stw|clock/i.test(k)) hits.push(k);
    return hits;`);
  assert.deepEqual(scan, []);

  // A timer armed now, then the page breaks everything it can reach: its
  // Date and timers, the event and JSON built-ins the channel uses.
  await page(server, sessionId, `
    window.hit = 0;
    setTimeout(() => { window.hit++; }, 1000);
    const boom = () => { throw new Error('hijacked'); };
    window.Date = function () { return 'hijacked'; };
    window.setTimeout = boom;
    EventTarget.prototype.addEventListener = boom;
    EventTarget.prototype.dispatchEvent = boom;
    window.CustomEvent = boom;
    JSON.parse = boom;
    JSON.stringify = boom;
    return true;`);
  const ran = ok(await server.call('clock_run_for', { sessionId, ms: 1000 }), 'run_for after the page broke its built-ins');
  assert.equal(ran.fired, 1);
  assert.equal(await page(server, sessionId, 'return window.hit'), 1);

  // Hostile values: over the schema and past it.
  failsWith(await server.call('clock_run_for', { sessionId, ms: -1 }), 'BAD_ARGUMENT');
  failsWith(await server.call('clock_run_for', { sessionId, ms: 1e15 }), 'BAD_ARGUMENT');
  failsWith(await server.call('clock_advance', { sessionId, ms: 31622400001 }), 'BAD_ARGUMENT');
  failsWith(await server.call('clock_install', { sessionId, time: 1e300 }), 'BAD_ARGUMENT');
  failsWith(await server.call('clock_install', { sessionId, time: -8.64e15 - 1 }), 'BAD_ARGUMENT');
  failsWith(await server.call('clock_set_time', { sessionId, time: 'not a date' }), 'BAD_ARGUMENT');
  failsWith(await server.call('clock_set_time', { sessionId, time: 'x'.repeat(65) }), 'BAD_ARGUMENT');

  // A one-millisecond interval over a year stops at maxTimersPerCall.
  await page(server, sessionId, 'window.spins = 0; setInterval(() => { window.spins++; }, 1); return true');
  const started = Date.now();
  const bounded = ok(await server.call('clock_run_for', { sessionId, ms: 31536000000 }));
  assert.ok(Date.now() - started < 30000);
  assert.equal(bounded.limitReached, true);
  assert.equal(bounded.maxTimersPerCall, 50);
  assert.equal(bounded.fired, 50);
  assert.equal(await page(server, sessionId, 'return window.spins'), 50);
});

test('main process: with main eval allowed its Date follows the clock, and its timers with mainTimers; without, it is left alone', { skip }, async (t) => {
  const server = await startServer(t, {
    args: ['--plugin', 'clock', '--allow-eval=all', '--plugin-config', 'clock={"mainTimers":true}'],
    env: serverEnv(),
  });
  const sessionId = await launchApp(t, server);
  const mainEval = async (code) => ok(await server.call('electron_eval_main', { sessionId, code }), 'electron_eval_main').result;

  const installed = ok(await server.call('clock_install', { sessionId, time: Y2030 }));
  assert.equal(installed.mainProcess, true);
  assert.match(await mainEval('return new Date().toISOString()'), /^2030-01-01T00:0/);
  // Nothing new on the main process's global.
  assert.deepEqual(await mainEval('return Object.getOwnPropertyNames(globalThis).filter((k) => /stw|clock/i.test(k))'), []);

  await mainEval('globalThis.__clockProbe = 0; setTimeout(() => { globalThis.__clockProbe = Date.now(); }, 60000); return true');
  const ran = ok(await server.call('clock_run_for', { sessionId, ms: 60000 }));
  assert.equal(ran.mainProcess, true);
  assert.ok(ran.fired >= 1, JSON.stringify(ran));
  const probe = await mainEval('return globalThis.__clockProbe');
  assert.ok(probe >= Y2030 + 60000 && probe < Y2030 + 120000, String(probe));

  // A server without main eval leaves the main process alone.
  const plain = await startClock(t);
  const other = await launchApp(t, plain);
  const status = ok(await plain.call('clock_install', { sessionId: other, time: Y2030 }));
  assert.equal(status.mainProcess, false);
});

/** Whether something listens on the Node inspector's default port (inject needs it free). */
function inspectorPortBusy () {
  return new Promise((resolve) => {
    const socket = net.connect(9229, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

test('a session with no renderer: clock.UNSUPPORTED', { skip }, async (t) => {
  if (await inspectorPortBusy()) {
    t.skip('port 9229 is taken: a SIGUSR1 inspector could not open');
    return;
  }
  const node = spawnPlain('node', ['-e', 'process.stdout.write("ready\\n"); setInterval(() => {}, 1000)'],
                          { waitFor: 'ready' });
  t.after(() => node.kill());
  await node.ready;
  const server = await startClock(t);
  const injected = ok(await server.call('electron_inject', { pid: node.pid }), 'electron_inject');
  t.after(() => server.call('electron_detach', {}).catch(() => {}));
  assert.equal(injected.capabilities.rendererEval, false);
  failsWith(await server.call('clock_install', { time: Y2030 }), 'clock.UNSUPPORTED');
  failsWith(await server.call('clock_status', {}), 'clock.UNSUPPORTED');
});
