// confine.test.mjs: what the server lets an app and a page reach, over MCP
// with the official SDK client, on the Electron stand-in and Chromium.
//
// - --app-root confines relative environment values too: they resolve
//   against the app's working directory (issue 16, defect 7).
// - The files electron_drop_file and electron_set_files read are regular
//   files on a disk: never the server's own /proc/self files, never an
//   endless pseudo file (defect 8). The hostile calls run under a memory
//   ceiling: the server is killed past it rather than eat the machine.
// - A directory swapped for a symlink between the check and the use leads
//   nowhere: screenshots land inside the root, and a page is handed a
//   private copy, never the outside file (defect 11).
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   node --test --test-reporter=tap --test-concurrency=1 tests/e2e/confine.test.mjs

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test as nodeTest } from 'node:test';

import {
  FIXTURES,
  TOP_SRCDIR,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  sdk,
  shortTempDir,
  startServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const PAGES_APP = path.join(FIXTURES, 'pages-app');
const OWN_PAGES = path.join(here, 'confine-pages');

const skip = electronSkipReason() ?? false;

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 120000, ...options, skip: skip || options.skip }, fn);
}

/** A server with its own TMPDIR (removed after), and --app-root when given. */
async function privateServer (t, args = []) {
  const tmpdir = shortTempDir();
  const env = { ...sdk.getDefaultEnvironment(), TMPDIR: tmpdir };
  if (process.env.STW_NODE_MODULES) env.STW_NODE_MODULES = process.env.STW_NODE_MODULES;
  const server = await startServer(t, { args, env });
  t.after(async () => {
    await server.call('electron_stop', {}).catch(() => {});
    await server.close().catch(() => {});
    fs.rmSync(tmpdir, { recursive: true, force: true });
  });
  return { server, tmpdir };
}

const uploadPage = (extra = []) => launchArgs(PAGES_APP, { args: ['--page=upload', `--pages-dir=${OWN_PAGES}`, ...extra] });

/** A scratch directory inside the source tree (the root these tests use). */
function scratchInTree (t, prefix) {
  const dir = fs.mkdtempSync(path.join(here, prefix));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function entries (dir) {
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

// --- defect 7: relative environment values ------------------------------------------

test('--app-root: relative HOME, XDG_CONFIG_HOME and PATH that climb out are refused', async (t) => {
  const { server } = await privateServer(t, [`--app-root=${TOP_SRCDIR}`]);
  const outside = shortTempDir();
  t.after(() => fs.rmSync(outside, { recursive: true, force: true }));
  fs.mkdirSync(path.join(outside, 'bin'));
  // The app's cwd is inside the root; each value climbs from it to outside.
  const cwd = FIXTURES;
  const up = path.relative(cwd, outside);
  assert.ok(up.startsWith('..'), up);
  const env = {
    HOME: path.join(up, 'home'),
    XDG_CONFIG_HOME: path.join(up, 'xdg'),
    PATH: `${path.join(up, 'bin')}:${path.join(TOP_SRCDIR, 'tests')}`,
    LANG: 'C.UTF-8',
  };
  const refused = failsWith(await server.call('electron_launch', { ...uploadPage(), cwd, env }),
                            'BAD_ARGUMENT', 'a launch with relative paths out of the root');
  assert.equal(refused.details.argument, 'env');
  assert.deepEqual([...refused.details.denied_env_keys].sort(), ['HOME', 'PATH', 'XDG_CONFIG_HOME']);
  assert.deepEqual(entries(outside), ['bin'], 'nothing was made outside the root');
  failsWith(await server.call('electron_get_text', { selector: '#read' }), 'NOT_RUNNING', 'no app was started');
});

// --- defect 8: pseudo files ---------------------------------------------------------------

/** VmRSS of `pid` in bytes, or 0 once it is gone. */
function rss (pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Keeps the server under a memory ceiling while `fn` runs: an address
 * space limit on the server alone (the app it started keeps its own), and a
 * watchdog that kills it past `ceiling` bytes of RSS. Returns fn's value and
 * whether the watchdog fired. */
async function underCeiling (pid, ceiling, fn) {
  let fired = false;
  const vm = /^VmSize:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  const limit = Number(vm[1]) * 1024 + ceiling;
  try {
    execFileSync('prlimit', [`--pid=${pid}`, `--as=${limit}:${limit}`]);
  } catch {
    // No prlimit: the watchdog alone holds the ceiling.
  }
  const watchdog = setInterval(() => {
    if (rss(pid) > ceiling) {
      fired = true;
      try { process.kill(pid, 'SIGKILL'); } catch {}
    }
  }, 20);
  try {
    const value = await fn().catch((error) => ({ thrown: error }));
    return { value, fired };
  } finally {
    clearInterval(watchdog);
  }
}

test('drop_file and set_files refuse /proc, /sys, /dev, FIFOs and sockets, bounded in memory', async (t) => {
  const { server } = await privateServer(t);
  ok(await server.call('electron_launch', uploadPage()), 'launch');
  const scratch = shortTempDir();
  t.after(() => fs.rmSync(scratch, { recursive: true, force: true }));
  const fifo = path.join(scratch, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const link = path.join(scratch, 'environ');
  fs.symlinkSync('/proc/self/environ', link);

  const ceiling = 512 * 1024 * 1024;
  const before = rss(server.pid);
  const { value, fired } = await underCeiling(server.pid, ceiling, async () => {
    const answers = [];
    for (const file of ['/proc/self/pagemap', '/proc/self/environ', link, '/proc/self/mem', '/dev/zero',
      '/dev/urandom', '/sys/kernel/mm/transparent_hugepage/enabled', fifo]) {
      for (const tool of ['electron_drop_file', 'electron_set_files']) {
        const selector = tool === 'electron_drop_file' ? '#zone' : '#file';
        answers.push([tool, file, await server.call(tool, { selector, paths: [file] }, { timeout: 20000 })]);
      }
    }
    return answers;
  });
  assert.equal(fired, false, 'the server stayed under the memory ceiling');
  assert.ok(!value.thrown, `every call answered: ${value.thrown}`);
  for (const [tool, file, answer] of value) {
    // A path that does not exist here (no THP on this kernel) is FILE_NOT_FOUND.
    const code = fs.existsSync(file) ? 'BAD_ARGUMENT' : 'FILE_NOT_FOUND';
    failsWith(answer, code, `${tool} ${file}`);
    if (code === 'BAD_ARGUMENT')
      assert.match(answer.details.rule, /regular file/, `${tool} ${file}: ${JSON.stringify(answer)}`);
  }
  assert.ok(rss(server.pid) < before + 64 * 1024 * 1024, 'the server did not grow');
  assert.equal(ok(await server.call('electron_get_text', { selector: '#read' })).text, 'nothing',
               'the page was handed nothing');

  // The control: a plain file passes, and the page reads it.
  const plain = path.join(scratch, 'plain.txt');
  fs.writeFileSync(plain, 'plain text');
  ok(await server.call('electron_drop_file', { selector: '#zone', paths: [plain] }));
  await waitUntil(async () => ok(await server.call('electron_get_text', { selector: '#read' })).text === '1:plain text', 10000);
  ok(await server.call('electron_set_files', { selector: '#file', paths: [plain] }));
  await waitUntil(async () => ok(await server.call('electron_get_text', { selector: '#read' })).text === '2:plain text', 10000);
});

// --- defect 11: check, then use --------------------------------------------------------------

/** A process that swaps `dir` for a symlink to `target` and back, until
 * killed or `ms` have passed. */
function startSwapper (dir, target, ms) {
  const script = `
    const fs = require('node:fs');
    const [dir, target, ms] = process.argv.slice(1);
    const parked = dir + '.real';
    const end = Date.now() + Number(ms);
    const pause = (us) => { const until = process.hrtime.bigint() + BigInt(us) * 1000n; while (process.hrtime.bigint() < until); };
    while (Date.now() < end) {
      try { fs.renameSync(dir, parked); } catch { continue; }
      try { fs.symlinkSync(target, dir); pause(300); fs.unlinkSync(dir); } catch {}
      fs.renameSync(parked, dir);
      pause(300);
    }`;
  const child = spawn(process.execPath, ['-e', script, dir, target, String(ms)], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return {
    async stop () {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      // The swap may have stopped half way: put the real directory back.
      if (fs.existsSync(`${dir}.real`)) {
        fs.rmSync(dir, { force: true });
        fs.renameSync(`${dir}.real`, dir);
      }
    },
  };
}

test('--app-root: a directory swapped for a symlink leads nowhere (screenshots, set_files, drop_file)', async (t) => {
  const { server, tmpdir } = await privateServer(t, [`--app-root=${TOP_SRCDIR}`]);
  ok(await server.call('electron_launch', uploadPage()), 'launch');
  const race = scratchInTree(t, '.stw-race-');
  const outside = shortTempDir();
  t.after(() => fs.rmSync(outside, { recursive: true, force: true }));
  const shots = path.join(race, 'shots');
  const files = path.join(race, 'files');
  fs.mkdirSync(shots);
  fs.mkdirSync(files);
  fs.writeFileSync(path.join(files, 'a.txt'), 'inside');
  fs.writeFileSync(path.join(outside, 'a.txt'), 'SECRET');

  const rounds = 20;
  let written = 0;
  let read = 0;
  const swapShots = startSwapper(shots, outside, 120000);
  try {
    for (let i = 0; i < rounds; i++) {
      const answer = await server.call('electron_screenshot', { path: path.join(shots, `shot-${i}.png`) });
      if (answer.ok) written++;
      else assert.ok(['BAD_ARGUMENT', 'FILE_NOT_FOUND'].includes(answer.code), JSON.stringify(answer));
    }
  } finally {
    await swapShots.stop();
  }
  const swapFiles = startSwapper(files, outside, 120000);
  try {
    for (let i = 0; i < rounds; i++) {
      const tool = i % 2 ? 'electron_drop_file' : 'electron_set_files';
      const before = ok(await server.call('electron_get_text', { selector: '#read' })).text;
      const answer = await server.call(tool, { selector: i % 2 ? '#zone' : '#file', paths: [path.join(files, 'a.txt')] });
      if (!answer.ok) {
        assert.ok(['BAD_ARGUMENT', 'FILE_NOT_FOUND'].includes(answer.code), JSON.stringify(answer));
        continue;
      }
      // What the page reads, whenever it reads it, is the inside file.
      let text = before;
      await waitUntil(async () => (text = ok(await server.call('electron_get_text', { selector: '#read' })).text) !== before, 10000);
      assert.doesNotMatch(text, /SECRET/, `${tool}, round ${i}: the page read the outside file`);
      if (/:inside$/.test(text)) read++;
    }
  } finally {
    await swapFiles.stop();
  }
  t.diagnostic(`${written}/${rounds} screenshots written, ${read}/${rounds} files read inside`);
  assert.deepEqual(entries(outside), ['a.txt'], 'nothing was written outside the root');
  assert.equal(entries(shots).length, written, 'every screenshot answered ok is inside');
  assert.ok(written + read > 0, `some calls went through (${written} screenshots, ${read} files read)`);

  // The private copies go with the session.
  assert.ok(entries(tmpdir).some((name) => name.startsWith('stw-files-')), 'set_files made a private directory');
  ok(await server.call('electron_stop', {}));
  assert.deepEqual(entries(tmpdir).filter((name) => name.startsWith('stw-files-')), [], 'removed when the session ended');
});
