// expect-bench.mjs: how soon an expectation sees a change (issue 9), Stagewright
// next to Playwright on the same Electron stand-in, pages app and Chromium.
//
//   node bench/expect-bench.mjs STAGEWRIGHT ELECTRON PAGES_APP [N]
//
// On tests/fixtures/pages-app/pages/waits.html, #text-later changes #status to
// "Done" 300 ms after a click and stamps the moment on it (data-changed-at,
// epoch ms from the page's clock). Each run: reset, click, then
//
//   stagewright  electron_expect_text {selector:"#status", equals:"Done"} over
//                MCP (the official SDK client, the binary over stdio)
//   playwright   expect(locator('#status')).toHaveText('Done'): the call
//                @playwright/test makes, locator._expect('to.have.text', …)
//                (only playwright-core is installed here)
//
// and the lag is (the moment the client holds the answer) − data-changed-at,
// both this machine's epoch clock. Medians of N runs (default 20); every
// expectation must succeed, or the run ends with an error. Prints a Markdown
// table and one JSON line.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import { median, require, startStagewright } from './page-common.mjs';

const [bin, electron, pagesApp, nArg] = process.argv.slice(2);
const N = Number(nArg ?? 20);
if (!bin || !electron || !pagesApp || !Number.isInteger(N) || N < 1) {
  console.error('usage: node bench/expect-bench.mjs STAGEWRIGHT ELECTRON PAGES_APP [N]');
  process.exit(2);
}

const now = () => performance.timeOrigin + performance.now();
const round = (x) => (typeof x === 'number' ? +x.toFixed(2) : null);
const summary = (lags) => ({ median: round(median(lags)), min: round(Math.min(...lags)), max: round(Math.max(...lags)),
                             all: lags.map(round) });

async function stagewright () {
  const server = await startStagewright(bin, [], 'stagewright-expect-bench');
  const lags = [];
  try {
    await server.call('electron_launch', { executablePath: electron, main: pagesApp, args: ['--page=waits'] });
    await server.call('electron_wait_for_selector', { selector: '#text-later', timeoutMs: 15000 });
    for (let i = 0; i < N; i++) {
      await server.call('electron_click', { selector: '#reset' });
      await server.call('electron_expect_text', { selector: '#status', equals: 'Idle', timeoutMs: 5000 });
      await server.call('electron_click', { selector: '#text-later' });
      await server.call('electron_expect_text', { selector: '#status', equals: 'Done', timeoutMs: 5000 });
      const resolved = now();
      const { envelope } = await server.call('electron_get_attribute', { selector: '#status', name: 'data-changed-at' });
      lags.push(resolved - Number(envelope.value));
    }
    await server.call('electron_stop', {});
  } finally {
    await server.close();
  }
  return summary(lags);
}

async function playwright () {
  const { _electron } = require('playwright-core');
  const app = await _electron.launch({ executablePath: electron, args: [pagesApp, '--page=waits'], timeout: 30000 });
  const lags = [];
  try {
    const window = await app.firstWindow();
    await window.waitForLoadState('load');
    const status = window.locator('#status');
    // What expect(locator).toHaveText(text) sends (@playwright/test, matchers.ts).
    const toHaveText = async (text) => {
      const result = await status._expect('to.have.text', {
        expectedText: [{ string: text, matchSubstring: false, normalizeWhiteSpace: true }],
        isNot: false, useInnerText: false, timeout: 5000,
      });
      if (!result.matches) throw new Error(`toHaveText(${JSON.stringify(text)}) failed: ${JSON.stringify(result)}`);
    };
    for (let i = 0; i < N; i++) {
      await window.locator('#reset').click();
      await toHaveText('Idle');
      await window.locator('#text-later').click();
      await toHaveText('Done');
      const resolved = now();
      lags.push(resolved - Number(await status.getAttribute('data-changed-at')));
    }
  } finally {
    await app.close();
  }
  return summary(lags);
}

const stw = await stagewright();
const pw = await playwright();
console.log(`expect_text vs expect(locator).toHaveText on a text that changes 300 ms after a click; medians of ${N}`);
console.log('| metric | stagewright | playwright |');
console.log('|---|---|---|');
console.log(`| resolve − change, median ms | ${stw.median} | ${pw.median} |`);
console.log(`| resolve − change, min / max ms | ${stw.min} / ${stw.max} | ${pw.min} / ${pw.max} |`);
console.log(JSON.stringify({ n: N, stagewright: stw, playwright: pw }));
