// budget.test.mjs: what an agent pays to learn the tools. With every
// first-party plugin loaded and every tool visible (the full profile,
// eval allowed for the main process and the renderers, so nothing is
// hidden), tools/list costs at most 15,000 tokens, counted as characters
// of its JSON over four (issue 20). The official SDK client asks.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   node --test --test-reporter=tap tests/e2e/budget.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { BIN, ok, sdk, startServer } from './lib/lifecycle-harness.mjs';

const PLUGIN_DIR = path.join(path.dirname(path.dirname(BIN)), 'plugins', 'built');
// The reference's nine first-party plugins.
const FIRST_PARTY = ['a11y', 'clock', 'ipc', 'native', 'network', 'production', 'storage', 'trace', 'visual'];
const BUDGET_TOKENS = 15000;

const missing = FIRST_PARTY.filter((name) => !fs.existsSync(path.join(PLUGIN_DIR, `${name}.plugin`)));

test('tools/list with all nine first-party plugins stays within 15,000 tokens', { timeout: 60000 }, async (t) => {
  assert.deepEqual(missing, [], `first-party plugins not built in ${PLUGIN_DIR}`);
  const env = { ...sdk.getDefaultEnvironment(), LC_ALL: 'C.UTF-8', STAGEWRIGHT_PLUGIN_PATH: PLUGIN_DIR };
  const server = await startServer(t, {
    args: ['--tool-profile', 'full', '--allow-eval=all', '--plugin', FIRST_PARTY.join(',')],
    env,
  });
  // tools/list is paged: every page counts.
  const listed = { tools: [] };
  let cursor;
  do {
    const page = await server.client.listTools(cursor ? { cursor } : {});
    listed.tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  const loaded = ok(await server.call('electron_plugins', {}), 'electron_plugins');
  assert.deepEqual(loaded.plugins.map((p) => p.name).sort(), FIRST_PARTY);
  // Every plugin shows its tools: none is hidden by a gate.
  for (const name of FIRST_PARTY)
    assert.ok(listed.tools.some((tool) => tool.name.startsWith(`${name}_`)), `${name} lists no tool`);

  const chars = JSON.stringify(listed).length;
  const tokens = Math.ceil(chars / 4);
  const byPlugin = {};
  for (const tool of listed.tools) {
    const owner = tool.name.split('_')[0];
    byPlugin[owner] = (byPlugin[owner] ?? 0) + Math.ceil(JSON.stringify(tool).length / 4);
  }
  t.diagnostic(`${listed.tools.length} tools, ${chars} characters, ${tokens} tokens: ${JSON.stringify(byPlugin)}`);
  assert.ok(tokens <= BUDGET_TOKENS, `tools/list costs ${tokens} tokens (${JSON.stringify(byPlugin)})`);
});
