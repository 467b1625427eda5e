// demo.test.mjs: the README's main job (bindings/examples/mcp-demo.mjs)
// runs to the end: every call of its transcript succeeds, the ipc and
// native plugins' calls among them, and its screenshot is written.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   node --test --test-reporter=tap tests/e2e/demo.test.mjs

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { BIN, electronSkipReason } from './lib/lifecycle-harness.mjs';

const SRCDIR = process.env.STW_TOP_SRCDIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DEMO = path.join(SRCDIR, 'bindings', 'examples', 'mcp-demo.mjs');
const PLUGIN_DIR = path.join(path.dirname(path.dirname(BIN)), 'plugins', 'built');
const built = ['ipc', 'native'].every((p) => fs.existsSync(path.join(PLUGIN_DIR, `lib${p}.so`)))
  ? null : `the ipc and native plugins are not built in ${PLUGIN_DIR}`;

test('the demo transcript runs to the end with the plugins', { timeout: 180000, skip: electronSkipReason() ?? built ?? false }, async (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-demo-'));
  t.after(() => fs.rmSync(out, { recursive: true, force: true }));
  const env = { ...process.env, DEMO_OUTPUT: out, STAGEWRIGHT_BIN: BIN, STAGEWRIGHT_PLUGIN_PATH: PLUGIN_DIR, LC_ALL: 'C.UTF-8' };
  const child = spawn(process.execPath, [DEMO], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const timer = setTimeout(() => child.kill('SIGKILL'), 150000);
  const status = await new Promise((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(timer);

  assert.equal(status, 0, `the demo failed:\n${stdout.slice(-4000)}\n${stderr.slice(-2000)}`);
  assert.match(stdout, /Demo finished: every call succeeded\./);
  // Every call answered ok, the plugins' among them.
  const answers = stdout.split('\n').filter((line) => line.startsWith('← '));
  assert.ok(answers.length >= 30, `${answers.length} answers`);
  assert.deepEqual(answers.filter((line) => !line.startsWith('← ok')), []);
  for (const tool of ['ipc_captured', 'ipc_invoke', 'native_menu_invoke', 'native_trays', 'native_notifications'])
    assert.match(stdout, new RegExp(`→ ${tool} `), tool);
  assert.match(stdout, /"channel":"notes:save"/, 'the Add button\'s IPC call was captured');
  assert.match(stdout, /\[menu\] File › Export… clicked/, 'File › Export… ran its handler');
  assert.match(stdout, /"title":"Stagewright Notes","body":"Ready to take notes"/, 'the start-up notification');
  const shot = /Screenshot: (\S+) /.exec(stdout);
  assert.ok(shot, 'the screenshot line');
  assert.ok(shot[1].startsWith(out + path.sep), `${shot[1]} is in DEMO_OUTPUT`);
  assert.ok(fs.statSync(shot[1]).size > 1000);
});
