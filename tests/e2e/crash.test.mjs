// crash.test.mjs: apps that die — mid-call, by their own hand or by SIGKILL —
// and apps that never start. The server answers every call with a
// registered code, forgets the session, cleans up after the app, and keeps
// serving.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// The app is tests/fixtures/crash-app (its main.js lists its switches).
//
// Run by hand:
//   node --test --test-reporter=tap --test-concurrency=1 tests/e2e/crash.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test as nodeTest } from 'node:test';

import {
  CRASH_APP,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  processAlive,
  shortTempDir,
  startServer,
  survivors,
  tempRoots,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const skip = electronSkipReason() ?? false;

function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 60000, ...options, skip: skip || options.skip }, fn);
}

// A private TMPDIR, so the server's temporary roots can be counted exactly.
const tmpdir = skip ? null : shortTempDir();
after(() => tmpdir && fs.rmSync(tmpdir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));

const AFTER_CRASH = new Set(['CDP_DISCONNECTED', 'NOT_RUNNING']);

/**
 * Launches the crash app with `mode`, then calls electron_screenshot and
 * electron_info concurrently, round after round, while the app kills
 * itself; stops after a few rounds that are all NOT_RUNNING.
 */
async function callThroughCrash (t, mode) {
  const server = await startServer(t, { env: { TMPDIR: tmpdir } });
  const launch = ok(await server.call('electron_launch', launchArgs(CRASH_APP, { args: [mode] })), 'launch');
  const info = ok(await server.call('electron_info', {}), 'info before the crash');
  const root = path.dirname(info.app.user_data_path);
  assert.ok(fs.existsSync(root));

  const rounds = [];
  const deadline = Date.now() + 20000;
  let quiet = 0;
  while (quiet < 5 && Date.now() < deadline) {
    const answers = await Promise.all([
      server.call('electron_screenshot', { dir: tmpdir }),
      server.call('electron_info', {}),
    ]);
    for (const answer of answers) {
      if (answer.ok && answer.path) fs.rmSync(answer.path, { force: true });
    }
    const codes = answers.map((a) => (a.ok ? 'ok' : a.code));
    rounds.push({ codes, answers });
    quiet = codes.every((c) => c === 'NOT_RUNNING') ? quiet + 1 : 0;
  }
  const counts = {};
  for (const { codes } of rounds) for (const c of codes) counts[c] = (counts[c] ?? 0) + 1;
  t.diagnostic(`${mode}: ${rounds.length} rounds, ${JSON.stringify(counts)}`);
  return { server, launch, root, rounds, counts };
}

function checkCrashAnswers ({ rounds, counts }) {
  assert.ok(counts.ok > 0, 'calls answered before the crash');
  for (const { codes, answers } of rounds) {
    for (let i = 0; i < codes.length; i++) {
      assert.ok(codes[i] === 'ok' || AFTER_CRASH.has(codes[i]), `unexpected answer ${JSON.stringify(answers[i])}`);
      if (codes[i] === 'CDP_DISCONNECTED') assert.equal(answers[i].retryable, true);
      if (codes[i] === 'NOT_RUNNING') assert.equal(answers[i].retryable, false);
    }
  }
  // Once every call of a round is NOT_RUNNING, the session is gone for good.
  const firstDead = rounds.findIndex(({ codes }) => codes.every((c) => c === 'NOT_RUNNING'));
  assert.ok(firstDead > 0, 'the session ended');
  for (const { codes } of rounds.slice(firstDead)) assert.deepEqual(codes, ['NOT_RUNNING', 'NOT_RUNNING']);
  // The first failure is an in-flight call cut off (CDP_DISCONNECTED) or a
  // call made after the crash (NOT_RUNNING); nothing else.
  const firstFailure = rounds.flatMap(({ codes }) => codes).find((c) => c !== 'ok');
  assert.ok(AFTER_CRASH.has(firstFailure));
}

async function checkAfterCrash (t, { server, launch, root }) {
  const status = ok(await server.call('electron_status', {}));
  assert.equal(status.active_sessions, 0);
  assert.deepEqual(status.sessions, []);
  failsWith(await server.call('electron_windows_list', {}), 'NOT_RUNNING');
  failsWith(await server.call('electron_stop', { sessionId: launch.session_id }), 'NOT_RUNNING');

  // Nothing of the app is left: not its group, not its helpers, not its directory.
  const gone = await waitUntil(() => !processAlive(launch.pid) &&
                                     survivors({ pgids: [launch.pid], needles: [root] }).length === 0 &&
                                     !fs.existsSync(root), 10000, 50);
  assert.deepEqual(survivors({ pgids: [launch.pid], needles: [root] }).map((p) => p.cmdline.slice(0, 120)), []);
  assert.equal(fs.existsSync(root), false, 'the temporary root is removed');
  assert.ok(gone);

  // The server itself is fine.
  await server.client.ping();
  const { tools } = await server.client.listTools();
  assert.ok(tools.some((tool) => tool.name === 'electron_launch'));
  // And it can launch again.
  ok(await server.call('electron_launch', launchArgs(CRASH_APP)), 'a launch after the crash');
  ok(await server.call('electron_stop', {}));
}

test('the main process exits mid-call: CDP_DISCONNECTED or NOT_RUNNING, then NOT_RUNNING; server fine', async (t) => {
  const run = await callThroughCrash(t, '--crash-after=700');
  checkCrashAnswers(run);
  await checkAfterCrash(t, run);
});

test('the main process is SIGKILLed mid-call: the server reaps its orphaned Chromium and directory', async (t) => {
  const run = await callThroughCrash(t, '--abort-after=700');
  checkCrashAnswers(run);
  await checkAfterCrash(t, run);
});

test('a main script that throws at load: LAUNCH_FAILED with exit_code and the error in log_tail', async (t) => {
  const server = await startServer(t, { env: { TMPDIR: tmpdir } });
  const before = new Set(tempRoots(tmpdir));
  const created = () => tempRoots(tmpdir).filter((name) => !before.has(name));
  const started = performance.now();
  const failed = failsWith(await server.call('electron_launch', launchArgs(CRASH_APP, { args: ['--throw-at-load'] })),
                           'LAUNCH_FAILED');
  t.diagnostic(`LAUNCH_FAILED after ${(performance.now() - started).toFixed(0)} ms`);
  assert.equal(failed.retryable, false);
  assert.equal(failed.details.exit_code, 1);
  assert.match(failed.details.log_tail, /crash-app: deliberate failure while loading main\.js/);
  assert.match(failed.details.log_tail, /main\.js:\d+/, 'with the stack');
  assert.equal(ok(await server.call('electron_status', {})).active_sessions, 0);
  assert.ok(await waitUntil(() => created().length === 0, 5000, 50), 'its temporary root is removed');
  assert.ok(await waitUntil(() => survivors({ needles: [tmpdir] }).length === 0, 10000, 50),
            `nothing is left running: ${survivors({ needles: [tmpdir] }).map((p) => p.cmdline.slice(0, 120))}`);
});

test('an executable that is not an app: LAUNCH_FAILED quickly', async (t) => {
  const server = await startServer(t, { env: { TMPDIR: tmpdir } });
  for (const args of [{ executablePath: '/bin/false' }, { executablePath: '/bin/false', main: CRASH_APP }]) {
    const started = performance.now();
    const failed = failsWith(await server.call('electron_launch', args), 'LAUNCH_FAILED', JSON.stringify(args));
    const ms = performance.now() - started;
    assert.ok(ms < 3000, `answered in ${ms.toFixed(0)} ms`);
    assert.equal(failed.details.exit_code, 1);
    assert.equal(typeof failed.details.log_tail, 'string');
  }
  // A file that cannot be executed at all.
  const text = failsWith(await server.call('electron_launch', { executablePath: path.join(CRASH_APP, 'package.json') }),
                         'LAUNCH_FAILED');
  assert.match(text.error, /package\.json/);
  assert.equal(ok(await server.call('electron_status', {})).active_sessions, 0);
  assert.ok(await waitUntil(() => tempRoots(tmpdir).length === 0, 5000, 50), 'no temporary root is left');
  assert.ok(await waitUntil(() => survivors({ needles: [tmpdir] }).length === 0, 10000, 50),
            `nothing is left running: ${survivors({ needles: [tmpdir] }).map((p) => p.cmdline.slice(0, 120))}`);
  await server.client.ping();
});

test('an app that never opens a window: LAUNCH_TIMEOUT after timeoutMs, nothing left', async (t) => {
  const server = await startServer(t, { env: { TMPDIR: tmpdir } });
  const before = new Set(tempRoots(tmpdir));
  const started = performance.now();
  const timedOut = failsWith(await server.call('electron_launch',
                                               launchArgs(CRASH_APP, { args: ['--no-window'], timeoutMs: 1500 })),
                             'LAUNCH_TIMEOUT');
  const ms = performance.now() - started;
  t.diagnostic(`LAUNCH_TIMEOUT after ${ms.toFixed(0)} ms (timeoutMs 1500)`);
  assert.equal(timedOut.retryable, true);
  assert.ok(ms >= 1400 && ms < 8000, `answered after ${ms.toFixed(0)} ms`);
  assert.equal(ok(await server.call('electron_status', {})).active_sessions, 0);
  assert.ok(await waitUntil(() => tempRoots(tmpdir).every((name) => before.has(name)), 10000, 50),
            'its temporary root is removed');
  assert.ok(await waitUntil(() => survivors({ needles: [tmpdir] }).length === 0, 10000, 50),
            `nothing is left running: ${survivors({ needles: [tmpdir] }).map((p) => p.cmdline.slice(0, 120))}`);
  // The server keeps going, and the first-window wait left nothing armed behind.
  // (A budget a loaded CI machine can meet; waiting past it proves the timer is disarmed.)
  ok(await server.call('electron_launch', launchArgs(CRASH_APP, { timeoutMs: 4000 })), 'a launch after the timeout');
  await new Promise((resolve) => setTimeout(resolve, 4500));
  ok(await server.call('electron_windows_list', {}), 'still fine after its own first-window timeout would have fired');
  ok(await server.call('electron_stop', {}));
});
