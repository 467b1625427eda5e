// lifecycle-harness.mjs: helpers for the lifecycle, orphan and crash tests
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// A connected SDK client on a fresh `stagewright` (with its stderr kept and
// its pid known), envelope parsing, the Electron stand-in started by hand
// (for attach), /proc scans for what a server left behind, and a PNG header
// reader. The shared helpers (paths, skip reasons) come from harness.mjs.

import { spawn, spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { BIN, TOP_SRCDIR, assertNoGLibCriticals, loadSdk, processAlive, sleep, waitUntil } from './harness.mjs';

export { BIN, TOP_SRCDIR, processAlive, sleep, waitUntil };

export const FIXTURES = path.join(TOP_SRCDIR, 'tests', 'fixtures');
export const ELECTRON = path.join(FIXTURES, 'electron');
export const STANDIN_DIR = path.join(FIXTURES, 'electron-standin');
export const DEMO_APP = path.join(FIXTURES, 'demo-app');
export const CRASH_APP = path.join(FIXTURES, 'crash-app');
export const DETACH_APP = path.join(FIXTURES, 'detach-app');
export const CHROMIUM = process.env.STW_CHROMIUM ?? '/usr/lib/chromium/chromium';

export const sdk = await loadSdk();

/** Why the tests that need the stand-in and Chromium cannot run here, or null. */
export function electronSkipReason () {
  if (!fs.existsSync(BIN)) return `${BIN} is not built`;
  if (sdk.skip) return sdk.skip;
  if (!fs.existsSync(ELECTRON)) return `${ELECTRON} is missing`;
  if (!fs.existsSync(CHROMIUM)) return `${CHROMIUM} is missing`;
  return null;
}

export function demoAppSkipReason () {
  return fs.existsSync(path.join(DEMO_APP, 'package.json')) ? null : `${DEMO_APP} does not exist yet`;
}

// --- the server over the SDK ---------------------------------------------------

/**
 * A fresh server (BIN with `args`, `env` merged over the SDK's default
 * environment) with a connected client. `call(name, args)` returns the
 * parsed envelope and checks the wire invariants (structuredContent is the
 * text item, isError = !ok). Closed after the test unless `keep` is set.
 */
export async function startServer (t, { args = [], env, keep = false } = {}) {
  // The SDK hands the server a trimmed environment; the apps it launches
  // (the pages app) still need to find the npm clients of an out-of-tree build.
  if (env === undefined && process.env.STW_NODE_MODULES)
    env = { ...sdk.getDefaultEnvironment(), STW_NODE_MODULES: process.env.STW_NODE_MODULES };
  const transport = new sdk.StdioClientTransport({ command: BIN, args, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (chunk) => { stderr += chunk; });
  const client = new sdk.Client({ name: 'stagewright-lifecycle-e2e', version: '0.0.0' });
  await client.connect(transport);
  const server = {
    client,
    transport,
    pid: transport.pid,
    stderr: () => stderr,
    async call (name, args = {}, options) {
      const result = await client.callTool({ name, arguments: args }, undefined, options);
      return envelopeOf(result);
    },
    async close () {
      await client.close();
    },
    /** EOF on the server's stdin, as when its client goes away. */
    closeStdin () {
      transport._process?.stdin?.end();
    },
  };
  if (t && !keep) {
    t.after(async () => {
      await client.close().catch(() => {});
      assertNoGLibCriticals(assert, stderr, 'server stderr');
    });
  }
  return server;
}

export function envelopeOf (result) {
  assert.ok(Array.isArray(result.content) && result.content.length >= 1, 'content has an item');
  assert.equal(result.content[0].type, 'text');
  const envelope = JSON.parse(result.content[0].text);
  assert.deepEqual(result.structuredContent, envelope, 'structuredContent is the text item');
  assert.equal(result.isError, !envelope.ok, 'isError = !ok');
  return envelope;
}

/** Asserts an ok envelope and returns it (the message shows the error otherwise). */
export function ok (envelope, what = 'call') {
  assert.equal(envelope.ok, true, `${what} failed: ${JSON.stringify(envelope)}`);
  return envelope;
}

/** Asserts an error envelope with `code` and returns it. */
export function failsWith (envelope, code, what = 'call') {
  assert.equal(envelope.ok, false, `${what} should fail with ${code}: ${JSON.stringify(envelope)}`);
  assert.equal(envelope.code, code, `${what}: ${JSON.stringify(envelope)}`);
  assert.equal(typeof envelope.error, 'string');
  assert.equal(typeof envelope.hint, 'string');
  assert.equal(typeof envelope.retryable, 'boolean');
  return envelope;
}

/** electron_launch arguments for an app run by the stand-in. */
export function launchArgs (app, extra = {}) {
  return { executablePath: ELECTRON, main: app, ...extra };
}

// --- versions, read independently ---------------------------------------------

/** The version string the stand-in declares as process.versions.electron. */
/**
 * The demo app's round trip through `call` (name, args → envelope): launch,
 * a screenshot into a scratch directory checked against its file, stop, and
 * the app's process gone. Every call names the app by its sessionId, so it
 * works statelessly too.
 */
export async function demoAppRoundTrip (t, call, prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const launch = ok(await call('electron_launch', launchArgs(DEMO_APP)), 'electron_launch');
  const shot = ok(await call('electron_screenshot', { sessionId: launch.session_id, dir }), 'electron_screenshot');
  assert.deepEqual(pngSize(shot.path), { width: shot.width, height: shot.height });
  const stop = ok(await call('electron_stop', { sessionId: launch.session_id }), 'electron_stop');
  assert.equal(stop.stopped, true);
  assert.equal(processAlive(launch.pid), false);
}

export function standinElectronVersion () {
  const source = fs.readFileSync(path.join(STANDIN_DIR, 'runtime.js'), 'utf8');
  const match = /const ELECTRON_VERSION = '([^']+)'/.exec(source);
  assert.ok(match, 'runtime.js declares ELECTRON_VERSION');
  return match[1];
}

/** `Chromium 156.0.1234.5 …` → `156.0.1234.5`. */
export function chromiumVersion () {
  const run = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8', timeout: 20000 });
  const match = /(\d+\.\d+\.\d+\.\d+)/.exec(run.stdout ?? '');
  assert.ok(match, `${CHROMIUM} --version printed ${JSON.stringify(run.stdout)} ${run.stderr}`);
  return match[1];
}

/** The version of the `node` the stand-in runs (it execs `node` from PATH). */
export function pathNodeVersion () {
  const node = process.env.ELECTRON_STANDIN_NODE ?? 'node';
  const run = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' });
  return run.stdout.trim();
}

// --- PNG ------------------------------------------------------------------------

/** Width and height from a PNG file's IHDR, or null when it is not a PNG. */
export function pngSize (file) {
  const fd = fs.openSync(file, 'r');
  const header = Buffer.alloc(24);
  try {
    fs.readSync(fd, header, 0, 24, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (!header.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return null;
  if (header.subarray(12, 16).toString('latin1') !== 'IHDR') return null;
  return { width: header.readUInt32BE(16), height: header.readUInt32BE(20) };
}

// --- processes --------------------------------------------------------------------

/** Every process: {pid, state, ppid, pgrp, cmdline}. */
export function scanProcesses () {
  const list = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      let cmdline = '';
      try {
        cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
      } catch {
        // Gone meanwhile.
      }
      list.push({ pid: Number(name), state: rest[0], ppid: Number(rest[1]), pgrp: Number(rest[2]), cmdline });
    } catch {
      // Gone meanwhile.
    }
  }
  return list;
}

/** Live (not zombie) processes whose group is one of `pgids` or whose command line mentions one of `needles`. */
export function survivors ({ pgids = [], needles = [] } = {}) {
  return scanProcesses().filter((p) => p.state !== 'Z' && p.state !== 'X' && p.pid !== process.pid &&
    (pgids.includes(p.pgrp) || needles.some((n) => n && p.cmdline.includes(n))));
}

/**
 * The stand-in started by hand, as a user would start an app with
 * `--remote-debugging-port=0`: its own process group, stderr drained (the
 * DevTools URL is read from it). `kill()` ends the whole group.
 */
export async function spawnStandin (app, extraArgs = [], { timeoutMs = 30000, env } = {}) {
  const args = ['--remote-debugging-port=0', ...extraArgs, app];
  // A private TMPDIR: every process of this run (crashpad handlers too, which
  // leave the process group) names it in its command line.
  const tmpdir = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-standin-'));
  const child = spawn(ELECTRON, args, {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...(env ?? process.env), TMPDIR: tmpdir },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  let exited = null;
  child.on('exit', (code, signal) => { exited = { code, signal }; });
  const url = await waitUntil(() => {
    if (exited) return 'exited';
    return /DevTools listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
  }, timeoutMs, 20);
  const handle = {
    child,
    pid: child.pid,
    wsUrl: url,
    port: url ? Number(new URL(url).port) : null,
    stderr: () => stderr,
    exited: () => exited,
    tmpdir,
    kill () {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      for (const p of survivors({ needles: [tmpdir] })) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      fs.rmSync(tmpdir, { recursive: true, force: true });
    },
  };
  if (!url || url === 'exited') {
    handle.kill();
    throw new Error(`the stand-in did not announce DevTools (${JSON.stringify(exited)}); stderr:\n${stderr}`);
  }
  return handle;
}

/**
 * A plain background process in its own group; `kill()` ends the group.
 * With `waitFor`, `ready` resolves once its stdout has printed that text.
 */
export function spawnPlain (command, args, { waitFor } = {}) {
  const child = spawn(command, args, { detached: true, stdio: ['ignore', waitFor ? 'pipe' : 'ignore', 'ignore'] });
  let ready = Promise.resolve();
  if (waitFor) {
    let out = '';
    child.stdout.setEncoding('utf8');
    ready = new Promise((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes(waitFor)) resolve();
      });
      child.on('exit', (code, signal) => reject(new Error(`${command} exited (${code ?? signal}) before printing ${waitFor}`)));
    });
  }
  return {
    child,
    pid: child.pid,
    ready,
    kill () {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
}

/**
 * A fresh private TMPDIR for a server, with a short name: Chromium puts its
 * SingletonSocket in TMPDIR and a Unix socket path has at most 107 bytes.
 * Under the server and the stand-in that path is
 *   $TMPDIR/stagewright-XXXXXX/tmp/electron-standin-XXXXXX/tmp/org.chromium.Chromium.XXXXXX/SingletonSocket
 * — 96 bytes past $TMPDIR — so $TMPDIR may have 11 bytes at most.
 */
export function shortTempDir () {
  for (;;) {
    const dir = `/tmp/sw${Math.random().toString(36).slice(2, 6).padEnd(4, '0')}`;
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
      return dir;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
  }
}

/** The server's temporary roots (stagewright-XXXXXX) in `dir`. */
export function tempRoots (dir) {
  return fs.readdirSync(dir).filter((name) => name.startsWith('stagewright-'));
}

export function median (values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * `stagewright --http 127.0.0.1:0 …`, a process this test spawned; resolves
 * once it printed its URL. With `t`, it is stopped (by its pid) after the
 * test, its exit checked (0 on SIGTERM) and its stderr checked for GLib
 * criticals; without, the caller stops it with `server.stop()`.
 *
 * The server's health is part of every failure: `server.health()` says
 * whether it still runs or how it died (exit code or signal, before any
 * stop) with the tail of its stderr, so that a client's "fetch failed"
 * names a crash instead of hiding it. `server.stop()` answers
 * `{ code, signal, died }`, `died` being that description when the server
 * was gone before it was asked to stop.
 */
export async function startHttpServer (t, extraArgs = [], { nofile } = {}) {
  // With `nofile`, under that descriptor limit (prlimit execs the server: same pid).
  const argv = [BIN, '--http', '127.0.0.1:0', ...extraArgs];
  const child = nofile
    ? spawn('prlimit', [`--nofile=${nofile}`, '--', ...argv], { stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  const pid = child.pid;
  let stderr = '';
  let exit = null;
  let stopping = false;
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => {
    exit = { code, signal, early: !stopping };
    resolve(exit);
  }));
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const tail = (n = 3000) => stderr.length > n ? `…${stderr.slice(-n)}` : stderr;
  const describe = () => {
    if (!exit && !stopping && !processAlive(pid))
      return `the server (pid ${pid}) died before the test stopped it (not yet reaped); its stderr ends with:\n${tail()}`;
    if (!exit) return `the server (pid ${pid}) is running; its stderr ends with:\n${tail()}`;
    const how = exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
    return `the server (pid ${pid}) ${how}${exit.early ? ' before the test stopped it' : ''}; ` +
           `its stderr ends with:\n${tail()}`;
  };
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL on stderr: ${describe()}`)), 20000);
    const onData = () => {
      const match = /serving MCP over HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        child.stderr.off('data', onData);
        resolve(match[1]);
      }
    };
    child.stderr.on('data', onData);
    exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`no URL: ${describe()}`));
    });
  });
  const server = {
    pid,
    url,
    stderr: () => stderr,
    /** The last `n` characters of its stderr. */
    stderrTail: tail,
    /** Whether it died on its own (not stopped by the test). */
    died: () => exit !== null && exit.early,
    /** How it is: running, or how it ended, with its stderr's tail. */
    health: describe,
    async stop () {
      const died = exit?.early ? describe() : null;
      stopping = true;
      if (!exit && processAlive(pid)) process.kill(pid, 'SIGTERM');
      const { code, signal } = await exited;
      return { code, signal, died };
    },
  };
  t?.after(async () => {
    const { code, signal, died } = await server.stop();
    assert.equal(died, null, died ?? '');
    assert.ok(code === 0 && signal === null, `on SIGTERM: ${describe()}`);
    assertNoGLibCriticals(assert, stderr, 'server stderr');
  });
  return server;
}
