// page-bench.mjs: see-and-act figures of issue 8, Stagewright next to
// Playwright, on the same Electron stand-in, pages app and Chromium, in one run.
//
//   node bench/page-bench.mjs [--only=stw|pw] [--json=FILE] STAGEWRIGHT ELECTRON PAGES_APP [N]
//
// Stagewright is measured over MCP end to end: the official SDK client drives
// the `stagewright` binary over stdio and every figure is a client-side round
// trip. Playwright is the library (`playwright-core` `_electron.launch`), in
// process. Each half runs in its own node process (so one's memory is not the
// other's). Figures are medians of N calls (default 20); the first call on a
// page is a warm-up and is reported apart.
//
//   snapshot, small page   electron_snapshot {} (the default: text)          | locator('body').ariaSnapshot()
//                          on signup.html
//   snapshot, 1,000 ctrls  the same on large.html (bench/pages/gen-large.mjs, the shared peer-benchmark page)
//   size                   characters/4 of snapshot_text, and its [N] refs;  | of ariaSnapshot() and of
//                          characters/4 of the whole text item the agent      ariaSnapshot({mode:"ai"}) ([ref=…] refs)
//                          reads (the envelope, escapes and all)
//   click by ref           electron_click {ref} on button "Action 13.4"      | locator.click()
//   fill by ref            electron_type {ref, text} on textbox "Name 13.2"  | locator.fill()
//   memory                 server VmRSS after 20 large snapshots             | this node process's VmRSS after 20
//   CDP floor              —                                                 | raw CDP (Playwright's CDPSession):
//                                                                              Runtime.evaluate "1"; a press and
//                                                                              release pair, as any driver sends
//
// Any ok:false envelope ends the run with an error: a benchmark that measured
// failures would lie. Prints a Markdown table and one JSON line.
//
// Measure an optimised build, as distributions ship it: a build from git is
// `-g -O0` (AX_CHECK_ENABLE_DEBUG), so configure a second tree with
// `./configure CFLAGS='-O2 -g' --enable-debug=info` and pass its binary.
//
// Reading the figures. Calls follow each other back to back, as the issue's
// figures were measured, so a call can wait for Chromium to render what the
// previous one changed: each click on the large page changes #status (and
// :active), each fill an input's text, and painting that page is a few ms of
// the renderer's main thread (headless, software compositing), run at the
// next BeginFrame. A call that arrives while that frame runs waits for it:
// the 8-9 ms fills every fifth or sixth call, and the clicks that alternate
// between about 4 and 10 ms. Whether one click in two or one in three meets a
// frame depends on how long a click takes, so the large page's click median
// jumps between the two from run to run. The small page's "later calls" start
// right after launch, while Chromium still does its own start-up work: with
// the stand-in, a second renderer loads Chrome's omnibox popup
// (chrome://omnibox-popup.top-chrome/, about 130 requests), and renderers
// and browser use several times the CPU per call they use seconds later
// (median 2-3.7 ms against 1.3 ms after a 3 s pause). Compare runs made back
// to back on a quiet machine.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { countRefs, median, pageArgs, preparePages, refOf, require, rssMB, startStagewright } from './page-common.mjs';

const SELF = fileURLToPath(import.meta.url);
const SNAPSHOTS_FOR_RSS = 20;
const CLICK = { role: 'button', name: 'Action 13.4' };
const FILL = { role: 'textbox', name: 'Name 13.2' };
const SMALL_CLICK = { role: 'checkbox', name: 'I accept the terms' };
const SMALL_FILL = { role: 'textbox', name: 'Full name' };

const options = Object.fromEntries(process.argv.slice(2).filter((a) => a.startsWith('--'))
  .map((a) => { const eq = a.indexOf('='); return eq < 0 ? [a.slice(2), true] : [a.slice(2, eq), a.slice(eq + 1)]; }));
const [bin, electron, pagesApp, nArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const N = Number(nArg ?? 20);
if (!bin || !electron || !pagesApp || !Number.isInteger(N) || N < 1) {
  console.error('usage: node bench/page-bench.mjs [--only=stw|pw] [--json=FILE] STAGEWRIGHT ELECTRON PAGES_APP [N]');
  process.exit(2);
}

const round = (x, digits = 3) => (x === null || x === undefined ? null : +x.toFixed(digits));

/** N timed runs of `fn` (after one warm-up, returned apart): { first, median, all }. */
async function timed (n, fn) {
  let t = performance.now();
  await fn(-1);
  const first = performance.now() - t;
  const all = [];
  for (let i = 0; i < n; i++) {
    t = performance.now();
    await fn(i);
    all.push(performance.now() - t);
  }
  return { first: round(first), median: round(median(all)), all: all.map((x) => round(x)) };
}

// --- Stagewright over MCP ------------------------------------------------------

async function stagewrightHalf (pagesDir) {
  // STW_BENCH_TRACE=FILE: the same run with the trace plugin recording to
  // FILE (its overhead: compare the medians with and without);
  // STW_BENCH_TRACE_PLUGIN names the plugin (a .plugin path from a build
  // tree; the server's environment has no STAGEWRIGHT_PLUGIN_PATH).
  const traceFile = process.env.STW_BENCH_TRACE;
  const server = await startStagewright(bin, traceFile ? ['--plugin', process.env.STW_BENCH_TRACE_PLUGIN ?? 'trace'] : []);
  if (traceFile)
    await server.call('trace_start', { path: traceFile });
  const launch = (page) => server.call('electron_launch', { executablePath: electron, main: pagesApp, args: pageArgs(page, pagesDir) });
  const snapshot = async () => {
    // What an agent calls when it passes no arguments (issue 16: text).
    const { envelope, ms, textChars } = await server.call('electron_snapshot', {});
    if (typeof envelope.snapshot_text !== 'string')
      throw new Error(`electron_snapshot {} has no snapshot_text: ${JSON.stringify(envelope).slice(0, 500)}`);
    return { text: envelope.snapshot_text, ms, serverMs: envelope._meta?.elapsed_ms, readChars: textChars,
             entries: envelope.entry_count, truncated: envelope.truncated };
  };
  const out = { pid: server.pid };
  try {
    await launch('signup');
    out.small = await timed(N, snapshot);
    {
      // The same actions on the small page, where the page's own layout
      // costs little: what the server and the browser add.
      const text = (await snapshot()).text;
      const terms = refOf(text, SMALL_CLICK.role, SMALL_CLICK.name);
      const name = refOf(text, SMALL_FILL.role, SMALL_FILL.name);
      out.small_click = await timed(N, () => server.call('electron_click', { ref: terms }));
      out.small_fill = await timed(N, (i) => server.call('electron_type', { ref: name, text: `bench ${i}` }));
    }
    await server.call('electron_stop', {});

    await launch('large');
    let last = null;
    let rss = null;
    const serverMs = [];
    let count = 0;
    out.large = await timed(Math.max(N, SNAPSHOTS_FOR_RSS - 1), async () => {
      last = await snapshot();
      serverMs.push(last.serverMs);
      if (++count === SNAPSHOTS_FOR_RSS) rss = rssMB(server.pid);
    });
    out.large.server_elapsed_ms = round(median(serverMs.filter((x) => typeof x === 'number')) ?? null);
    out.large_text = { chars: last.text.length, tokens: Math.round(last.text.length / 4), refs: countRefs(last.text),
                       read_tokens: Math.round(last.readChars / 4), entries: last.entries ?? null,
                       truncated: last.truncated ?? null };
    if (last.truncated)
      console.error(`page-bench: the large page's text snapshot is truncated (${last.entries} entries)`);
    out.rss_mb = round(rss, 1);

    const clickRef = refOf(last.text, CLICK.role, CLICK.name);
    const fillRef = refOf(last.text, FILL.role, FILL.name);
    out.click = await timed(N, () => server.call('electron_click', { ref: clickRef }));
    // The page counts clicks in its status line: every click reached the button.
    const status = await server.call('electron_get_text', { selector: '#status' });
    const expected = `clicks: ${N + 1} (${CLICK.name})`;
    if (status.envelope.text !== expected)
      throw new Error(`after ${N + 1} clicks the status reads ${JSON.stringify(status.envelope.text)}, not "${expected}"`);
    let lastText = '';
    out.fill = await timed(N, (i) => server.call('electron_type', { ref: fillRef, text: (lastText = `bench ${i}`) }));
    const value = await server.call('electron_get_value', { ref: fillRef });
    if (value.envelope.value !== lastText)
      throw new Error(`after filling "${lastText}" the value is ${JSON.stringify(value.envelope.value)}`);
    await server.call('electron_stop', {});
  } finally {
    await server.close();
  }
  return out;
}

// --- Playwright, in process ----------------------------------------------------

async function playwrightHalf (pagesDir) {
  const { _electron } = require('playwright-core');
  const open = async (page) => {
    const app = await _electron.launch({ executablePath: electron, args: [pagesApp, ...pageArgs(page, pagesDir)], timeout: 30000 });
    const window = await app.firstWindow();
    await window.waitForLoadState('load');
    return { app, window };
  };
  const out = { pid: process.pid };
  let { app, window } = await open('signup');
  const body = () => window.locator('body');
  out.small = await timed(N, () => body().ariaSnapshot());
  {
    const terms = window.getByRole(SMALL_CLICK.role, { name: SMALL_CLICK.name, exact: true });
    const name = window.getByRole(SMALL_FILL.role, { name: SMALL_FILL.name, exact: true });
    out.small_click = await timed(N, () => terms.click());
    out.small_fill = await timed(N, (i) => name.fill(`bench ${i}`));

    // The protocol's floor on this machine: what any CDP driver pays for
    // one page round trip and for a click's press and release, before
    // doing anything of its own.
    const cdp = await window.context().newCDPSession(window);
    const { x, y, width, height } = await terms.boundingBox();
    const press = (type) => cdp.send('Input.dispatchMouseEvent',
                                     { type, x: x + width / 2, y: y + height / 2, button: 'left', clickCount: 1 });
    out.floor_eval = await timed(N, () => cdp.send('Runtime.evaluate', { expression: '1', returnByValue: true }));
    out.floor_press = await timed(N, () => Promise.all([press('mousePressed'), press('mouseReleased')]));
    await cdp.detach();
  }
  await app.close();

  ({ app, window } = await open('large'));
  let text = '';
  let rss = null;
  let count = 0;
  out.large = await timed(Math.max(N, SNAPSHOTS_FOR_RSS - 1), async () => {
    text = await body().ariaSnapshot();
    if (++count === SNAPSHOTS_FOR_RSS) rss = rssMB(process.pid);
  });
  const ai = await body().ariaSnapshot({ mode: 'ai' });
  out.large_text = { chars: text.length, tokens: Math.round(text.length / 4), refs: 0 };
  out.large_ai_text = { chars: ai.length, tokens: Math.round(ai.length / 4), refs: (ai.match(/\[ref=[^\]]+\]/g) ?? []).length };
  out.rss_mb = round(rss, 1);

  const button = window.getByRole(CLICK.role, { name: CLICK.name, exact: true });
  const box = window.getByRole(FILL.role, { name: FILL.name, exact: true });
  out.click = await timed(N, () => button.click());
  const status = await window.locator('#status').textContent();
  if (status !== `clicks: ${N + 1} (${CLICK.name})`) throw new Error(`Playwright clicks: status is ${JSON.stringify(status)}`);
  let lastText = '';
  out.fill = await timed(N, (i) => box.fill((lastText = `bench ${i}`)));
  if ((await box.inputValue()) !== lastText) throw new Error('Playwright fill did not set the value');
  await app.close();
  return out;
}

// --- the parent: one child per half, then the table ------------------------------

function runHalf (half, pagesDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SELF, `--half=${half}`, `--pages-dir=${pagesDir}`, bin, electron, pagesApp, String(N)],
                        { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== 0) {
        reject(new Error(`the ${half} half failed (${code ?? signal})`));
        return;
      }
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop()));
      } catch (error) {
        reject(new Error(`the ${half} half printed no JSON: ${error.message}\n${stdout}`));
      }
    });
  });
}

function table (stw, pw) {
  const ratio = (a, b) => (typeof a === 'number' && typeof b === 'number' && b !== 0 ? (a / b).toFixed(2) : '—');
  const show = (x) => (x === null || x === undefined ? '—' : String(x));
  const rows = [
    ['snapshot, small page (signup, later calls), ms', stw?.small?.median, pw?.small?.median, '≤ 3'],
    ['snapshot, small page, first call, ms', stw?.small?.first, pw?.small?.first, ''],
    ['snapshot {} (default), 1,000 controls, ms', stw?.large?.median, pw?.large?.median, '≤ 30'],
    ['snapshot {} (default), 1,000 controls, first call, ms', stw?.large?.first, pw?.large?.first, ''],
    ['snapshot, 1,000 controls, size, tokens (chars/4)', stw?.large_text?.tokens, pw?.large_text?.tokens, ''],
    ['snapshot {} (default), 1,000 controls, tokens read (text item)', stw?.large_text?.read_tokens, null, '≤ 10,000'],
    ['  Playwright ariaSnapshot({mode:"ai"}) size, tokens', null, pw?.large_ai_text?.tokens, ''],
    ['snapshot, 1,000 controls, refs', stw?.large_text?.refs, pw?.large_ai_text?.refs, 'every control'],
    ['click by ref (with actionability), small page, ms', stw?.small_click?.median, pw?.small_click?.median, '≤ 4'],
    ['fill by ref, small page, ms', stw?.small_fill?.median, pw?.small_fill?.median, '≤ 2'],
    ['click by ref (with actionability), 1,000 controls, ms', stw?.click?.median, pw?.click?.median, '≤ 4'],
    ['fill by ref, 1,000 controls, ms', stw?.fill?.median, pw?.fill?.median, '≤ 2'],
    [`driver RSS after ${SNAPSHOTS_FOR_RSS} large snapshots, MB`, stw?.rss_mb, pw?.rss_mb, '≤ 25'],
    ['CDP floor: one Runtime.evaluate round trip (small page), ms', null, pw?.floor_eval?.median, ''],
    ['CDP floor: mousePressed + mouseReleased, pipelined, ms', null, pw?.floor_press?.median, ''],
  ];
  const lines = [
    `Stagewright (MCP, SDK client) vs Playwright (_electron, library); same stand-in, pages app and Chromium; medians of ${N}`,
    '| metric | stagewright | playwright | ratio (stw/pw) | target (stw) |',
    '|---|---|---|---|---|',
  ];
  for (const [label, a, b, target] of rows)
    lines.push(`| ${label} | ${show(a)} | ${show(b)} | ${ratio(a, b)} | ${target} |`);
  return lines.join('\n');
}

if (options.half) {
  const pagesDir = options['pages-dir'];
  const result = options.half === 'stw' ? await stagewrightHalf(pagesDir) : await playwrightHalf(pagesDir);
  console.log(JSON.stringify(result));
} else {
  if (options.only && options.only !== 'stw' && options.only !== 'pw') {
    console.error('--only takes stw or pw');
    process.exit(2);
  }
  const pages = preparePages(pagesApp);
  let stw = null;
  let pw = null;
  try {
    if (options.only !== 'pw') stw = await runHalf('stw', pages.dir);
    if (options.only !== 'stw') pw = await runHalf('pw', pages.dir);
  } finally {
    pages.remove();
  }
  console.log(table(stw, pw));
  const json = JSON.stringify({ n: N, stagewright: stw, playwright: pw });
  if (typeof options.json === 'string') fs.writeFileSync(path.resolve(options.json), `${json}\n`);
  console.log(json);
}
