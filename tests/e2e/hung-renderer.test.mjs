// hung-renderer.test.mjs: a page whose renderer hangs (a script that never
// yields) over MCP with the official SDK client. A tool's own timeoutMs
// bounds every DevTools command it sends: each answers CDP_TIMEOUT at its
// deadline, not after the transport's 15 s; a tool without timeoutMs
// (electron_screenshot) answers within the bound its description states.
// A call the page runs late, after the hang, does not act; the page works
// again once it recovers; a session whose page hangs for good stops promptly.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   node --test --test-reporter=tap --test-concurrency=1 tests/e2e/hung-renderer.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test as nodeTest } from 'node:test';

import {
  FIXTURES,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  processAlive,
  sleep,
  startServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const PAGES_APP = path.join(FIXTURES, 'pages-app');
const pagesSkip = fs.existsSync(path.join(PAGES_APP, 'package.json')) ? null : `${PAGES_APP} is missing`;
const skip = electronSkipReason() ?? pagesSkip ?? false;

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 180000, ...options, skip: skip || options.skip }, fn);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-hung-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

// #hang blocks the renderer for as many milliseconds as #ms says, #forever
// for good; both start just after the click that asks for it has answered.
// #ok counts its clicks in its own text.
fs.writeFileSync(path.join(scratch, 'hung.html'), `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Hung</title></head><body>
<h1 id="title">Ready</h1>
<input id="name" aria-label="Name">
<input id="ms" aria-label="Milliseconds" value="0">
<input type="checkbox" id="agree" aria-label="Agree">
<select id="plan" aria-label="Plan"><option>Free</option><option>Pro</option></select>
<div id="editor" contenteditable="true">Start</div>
<button id="ok" onclick="this.textContent = 'Clicked ' + (++this.dataset.n || (this.dataset.n = 1))">OK</button>
<button id="hang" onclick="setTimeout(() => { const end = Date.now() + Number(document.getElementById('ms').value); while (Date.now() < end) {} }, 50)">Hang</button>
<button id="forever" onclick="setTimeout(() => { for (;;) {} }, 50)">Forever</button>
</body></html>`);

let server = null;

before(async () => {
  if (skip) return;
  server = await startServer(null, { args: ['--screenshot-dir', scratch, '--allow-eval=renderer'] });
});

after(async () => {
  if (!server) return;
  await server.call('electron_stop', {}).catch(() => {});
  await server.close();
});

async function launch () {
  const answer = ok(await server.call('electron_launch', launchArgs(PAGES_APP, { args: ['--page=hung', `--pages-dir=${scratch}`] })),
                    'electron_launch');
  assert.ok(await waitUntil(async () => {
    const list = ok(await server.call('electron_windows_list', {}));
    return list.windows[0]?.title === 'Hung';
  }, 15000, 50), 'the window shows the page');
  return answer;
}

async function timed (tool, args) {
  const started = performance.now();
  const envelope = await server.call(tool, args);
  return { envelope, ms: Math.round(performance.now() - started) };
}

// Every tool that takes timeoutMs and acts on the page, with arguments that
// would answer at once on a live page.
const BOUNDED = [
  ['electron_wait_for_selector', { selector: '#ok' }],
  ['electron_click', { selector: '#ok' }],
  ['electron_expect_text', { selector: '#title', equals: 'Ready' }],
  ['electron_expect_url', { contains: 'hung' }],
  ['electron_type', { selector: '#name', text: 'late' }],
  ['electron_wait_for_state', { selector: '#ok', state: { enabled: true } }],
  ['electron_wait_for_event', { selector: '#ok', eventName: 'click' }],
  ['electron_expect_value', { selector: '#ms', contains: '' }],
  ['electron_expect_visible', { selector: '#ok' }],
  ['electron_expect_state', { selector: '#ok', state: { enabled: true } }],
  ['electron_expect_count', { selector: 'button', min: 1 }],
  ['electron_hover', { selector: '#ok' }],
  ['electron_drag', { selector: '#ok', targetSelector: '#title' }],
  ['electron_clear_input', { selector: '#ms' }],
  ['electron_check', { selector: '#agree' }],
  ['electron_uncheck', { selector: '#agree' }],
  ['electron_fill_form', { fields: [{ selector: '#name', value: 'late' }] }],
  ['electron_type_into_editor', { selector: '#editor', text: 'late' }],
  ['electron_eval_renderer', { code: 'return 6 * 7' }],
];

test('a hung page: every tool with timeoutMs answers CDP_TIMEOUT at its deadline, and nothing acts late', async () => {
  await launch();
  try {
    // Long enough for every case, at about 2 s each, with room to spare.
    const hangMs = BOUNDED.length * 2300 + 3000;
    ok(await server.call('electron_type', { selector: '#ms', text: String(hangMs) }), 'set the hang');
    ok(await server.call('electron_click', { selector: '#hang' }), 'start the hang');
    const hungAt = performance.now();
    await sleep(300);

    for (const [tool, args] of BOUNDED) {
      const { envelope, ms } = await timed(tool, { ...args, timeoutMs: 1000 });
      failsWith(envelope, 'CDP_TIMEOUT', `${tool} on a hung page`);
      assert.equal(envelope.retryable, true, `${tool}: ${JSON.stringify(envelope)}`);
      // timeoutMs, the deadline's grace of 1 s for a slow page's last
      // answer, and slack for a loaded machine; 15 s before.
      assert.ok(ms < 3500, `${tool} with timeoutMs 1000 answered after ${ms} ms`);
      assert.ok(performance.now() - hungAt < hangMs - 1000, `${tool} ran while the page still hung`);
      console.log(`# ${tool}: ${envelope.code} in ${ms} ms`);
    }

    // The page recovers: the next calls work, and what timed out did not
    // act when the page ran it late (no click, no text typed).
    assert.ok(await waitUntil(async () => (await server.call('electron_expect_text',
      { selector: '#title', equals: 'Ready', timeoutMs: 1000 })).ok, hangMs + 15000, 100), 'the page recovered');
    assert.equal(ok(await server.call('electron_get_text', { selector: '#ok' })).text, 'OK', 'no late click');
    assert.equal(ok(await server.call('electron_get_value', { selector: '#name' })).value, '', 'no late typing');
    assert.equal(ok(await server.call('electron_get_text', { selector: '#editor' })).text, 'Start', 'no late typing');
    assert.equal(ok(await server.call('electron_get_state', { selector: '#agree' })).state.checked, false, 'no late check');
    const { envelope: click, ms } = await timed('electron_click', { selector: '#ok', timeoutMs: 1000 });
    ok(click, 'a click after the page recovered');
    assert.ok(ms < 3000, `the click took ${ms} ms`);
    ok(await server.call('electron_expect_text', { selector: '#ok', equals: 'Clicked 1', timeoutMs: 2000 }), 'the click landed once');
    ok(await server.call('electron_type', { selector: '#name', text: 'Ada', timeoutMs: 2000 }), 'typing after the hang');
    ok(await server.call('electron_expect_value', { selector: '#name', equals: 'Ada', timeoutMs: 2000 }), 'the text is there');
  } finally {
    ok(await server.call('electron_stop', {}), 'electron_stop');
  }
});

test('a page hung for good: the screenshot answers within its stated bound, and the session stops promptly', async () => {
  const launched = await launch();
  const tools = (await server.client.listTools()).tools;
  const shotTool = tools.find((tool) => tool.name === 'electron_screenshot');
  const bound = /(\d+) s\b/.exec(shotTool.description);
  assert.ok(bound, `electron_screenshot says what bounds it: ${shotTool.description}`);
  const boundMs = Number(bound[1]) * 1000;

  ok(await server.call('electron_click', { selector: '#forever' }), 'hang for good');
  await sleep(300);
  const { envelope, ms } = await timed('electron_screenshot', {});
  failsWith(envelope, 'CDP_TIMEOUT', 'electron_screenshot of a hung page');
  assert.ok(ms < boundMs + 2000, `electron_screenshot answered after ${ms} ms (its bound: ${boundMs} ms)`);
  console.log(`# electron_screenshot: ${envelope.code} in ${ms} ms`);

  const wait = await timed('electron_wait_for_selector', { selector: '#ok', timeoutMs: 1000 });
  failsWith(wait.envelope, 'CDP_TIMEOUT', 'a wait after the screenshot');
  assert.ok(wait.ms < 3500, `the wait answered after ${wait.ms} ms`);

  const stop = await timed('electron_stop', {});
  ok(stop.envelope, 'electron_stop of a hung page');
  assert.ok(stop.ms < 12000, `electron_stop took ${stop.ms} ms`);
  console.log(`# electron_stop: ${stop.ms} ms, escalated ${stop.envelope.escalated}`);
  assert.ok(await waitUntil(() => !processAlive(launched.pid), 5000, 50), 'the app is gone');
  failsWith(await server.call('electron_wait_for_selector', { selector: '#ok', timeoutMs: 1000 }), 'NOT_RUNNING',
            'after the stop');
});
