// orphans.test.mjs: nothing the server launches outlives it — not after a
// stop, not after twenty launch/stop cycles, not after the server itself is
// SIGKILLed with two apps running, and not a helper the app started
// detached (its own session and group, as updaters and crash reporters do)
// after a stop, the server's SIGKILL, SIGTERM or the EOF of its stdin.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// The server runs with a private TMPDIR, so its temporary roots
// (stagewright-XXXXXX) are the only ones there and the scan is exact.
//
// Run by hand:
//   node --test --test-reporter=tap --test-concurrency=1 tests/e2e/orphans.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test as nodeTest } from 'node:test';

import {
  DEMO_APP,
  DETACH_APP,
  demoAppSkipReason,
  electronSkipReason,
  launchArgs,
  median,
  ok,
  processAlive,
  shortTempDir,
  startServer,
  survivors,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const skip = electronSkipReason() ?? demoAppSkipReason() ?? false;

function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 180000, ...options, skip: skip || options.skip }, fn);
}

const CYCLES = 20;

const tmpdir = shortTempDir();
after(() => fs.rmSync(tmpdir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));

/** The server's temporary roots still in its private TMPDIR. */
function tempRoots () {
  return fs.readdirSync(tmpdir).filter((name) => name.startsWith('stagewright-'));
}

const fmt = (ms) => ms.toFixed(1);

test(`${CYCLES} launch/stop cycles over one connection: every stop ok, nothing left`, async (t) => {
  const server = await startServer(t, { env: { TMPDIR: tmpdir } });
  const launchMs = [];
  const stopMs = [];
  const pids = [];

  for (let i = 0; i < CYCLES; i++) {
    let started = performance.now();
    const launch = ok(await server.call('electron_launch', launchArgs(DEMO_APP)), `launch ${i + 1}`);
    launchMs.push(performance.now() - started);
    assert.equal(launch.renderer_ready, true, `launch ${i + 1} is ready`);
    pids.push(launch.pid);

    started = performance.now();
    const stop = ok(await server.call('electron_stop', {}), `stop ${i + 1}`);
    stopMs.push(performance.now() - started);
    assert.equal(stop.stopped, true, `stop ${i + 1}`);
    assert.equal(stop.session_id, launch.session_id);
    assert.equal(stop.escalated, false, `stop ${i + 1} needed no signals`);
  }

  assert.equal(ok(await server.call('electron_status', {})).active_sessions, 0);
  assert.deepEqual(tempRoots(), [], 'every temporary root is removed');
  assert.deepEqual(survivors({ pgids: pids, needles: [tmpdir] }), [], 'no process of any cycle is left');
  t.diagnostic(`launch median ${fmt(median(launchMs))} ms (min ${fmt(Math.min(...launchMs))}, ` +
               `max ${fmt(Math.max(...launchMs))}); stop median ${fmt(median(stopMs))} ms ` +
               `(min ${fmt(Math.min(...stopMs))}, max ${fmt(Math.max(...stopMs))}) over ${CYCLES} cycles`);
});

test('SIGKILL of the server with two apps running: their groups, processes and directories go', async (t) => {
  const server = await startServer(t, { env: { TMPDIR: tmpdir } });
  const apps = [];
  for (let i = 0; i < 2; i++) {
    const launch = ok(await server.call('electron_launch', launchArgs(DEMO_APP, { allowMultiple: true })),
                      `launch ${i + 1}`);
    const info = ok(await server.call('electron_info', { sessionId: launch.session_id }));
    const root = path.dirname(info.app.user_data_path);
    assert.equal(path.dirname(root), tmpdir, 'the temporary root is in the server\'s TMPDIR');
    assert.match(path.basename(root), /^stagewright-[A-Za-z0-9]{6}$/);
    apps.push({ pid: launch.pid, root });
  }
  assert.equal(ok(await server.call('electron_status', {})).active_sessions, 2);
  for (const app of apps) {
    assert.ok(processAlive(app.pid), 'the app runs');
    assert.ok(fs.existsSync(app.root), 'its temporary root exists');
  }
  const pgids = apps.map((a) => a.pid);
  const needles = apps.map((a) => a.root);
  assert.ok(survivors({ pgids, needles }).length > 2, 'the apps have helper processes (Chromium)');

  const killedAt = performance.now();
  process.kill(server.pid, 'SIGKILL');

  const clean = await waitUntil(() => survivors({ pgids, needles }).length === 0 &&
                                      apps.every((a) => !fs.existsSync(a.root)) &&
                                      tempRoots().length === 0, 10000, 50);
  const elapsed = performance.now() - killedAt;
  const left = survivors({ pgids, needles });
  assert.deepEqual(left.map((p) => `${p.pid} (pgrp ${p.pgrp}, ${p.state}): ${p.cmdline.slice(0, 160)}`), [],
                   'no process of either app (or its guard) is left');
  assert.deepEqual(tempRoots(), [], 'no temporary root is left');
  assert.ok(clean, 'everything went within 10 s');
  t.diagnostic(`everything gone ${fmt(elapsed)} ms after the server's SIGKILL`);
});

// --- a helper the app started detached -----------------------------------------

/** Whether `pid` is still the detach app's `sleep 90` (and not a zombie). */
function helperAlive (pid) {
  if (!processAlive(pid)) return false;
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'sleep\u000090\u0000';
  } catch {
    return false;
  }
}

/**
 * Launches the detach app and returns {launch, root, helper}: the pid of the
 * `sleep 90` its main process started with `detached: true` (read from the
 * launch's temporary root, where the app writes it). The helper is killed
 * after the test if it is still there — by that pid only, and only while it
 * is still that `sleep`.
 */
async function launchDetachApp (t, server) {
  const launch = ok(await server.call('electron_launch', launchArgs(DETACH_APP)), 'launch the detach app');
  const info = ok(await server.call('electron_info', { sessionId: launch.session_id }));
  const root = path.dirname(info.app.user_data_path);
  const pidFile = path.join(root, 'detached.pid');
  assert.ok(await waitUntil(() => fs.existsSync(pidFile), 10000, 20), 'the app wrote its helper\'s pid');
  const helper = Number(fs.readFileSync(pidFile, 'utf8'));
  assert.ok(helper > 1);
  t.after(() => {
    if (helperAlive(helper)) process.kill(helper, 'SIGKILL');
  });
  assert.ok(helperAlive(helper), 'the detached helper runs');
  const stat = fs.readFileSync(`/proc/${helper}/stat`, 'utf8');
  const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  assert.notEqual(pgrp, launch.pid, 'the helper left the app\'s process group');
  return { launch, root, helper };
}

const HELPER_GONE_MS = 5000;

async function assertHelperGone (t, { helper, root }, what, since) {
  const gone = await waitUntil(() => !helperAlive(helper) && !fs.existsSync(root), HELPER_GONE_MS + 5000, 20);
  const elapsed = performance.now() - since;
  assert.equal(helperAlive(helper), false, `the detached helper ${helper} is gone after ${what}`);
  assert.equal(fs.existsSync(root), false, `the temporary root is gone after ${what}`);
  assert.ok(gone && elapsed < HELPER_GONE_MS, `gone within ${HELPER_GONE_MS} ms of ${what} (${fmt(elapsed)} ms)`);
  t.diagnostic(`detached helper gone ${fmt(elapsed)} ms after ${what}`);
}

test('a helper the app started detached is gone after electron_stop', async (t) => {
  const server = await startServer(t, { env: { TMPDIR: tmpdir } });
  const app = await launchDetachApp(t, server);
  const started = performance.now();
  const stop = ok(await server.call('electron_stop', {}), 'stop');
  assert.equal(stop.stopped, true);
  await assertHelperGone(t, app, 'electron_stop', started);
  assert.equal(processAlive(app.launch.pid), false, 'the app is gone');
});

for (const [what, end] of [
  ['the server\'s SIGKILL', (server) => process.kill(server.pid, 'SIGKILL')],
  ['the server\'s SIGTERM', (server) => process.kill(server.pid, 'SIGTERM')],
  ['EOF on the server\'s stdin', (server) => server.closeStdin()],
]) {
  test(`a helper the app started detached is gone after ${what}`, async (t) => {
    const server = await startServer(t, { env: { TMPDIR: tmpdir } });
    const app = await launchDetachApp(t, server);
    const started = performance.now();
    end(server);
    await assertHelperGone(t, app, what, started);
    assert.ok(await waitUntil(() => !processAlive(app.launch.pid), 5000, 20), 'the app is gone');
    assert.ok(await waitUntil(() => !processAlive(server.pid), 5000, 20), 'the server is gone');
  });
}
