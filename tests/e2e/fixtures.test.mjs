// fixtures.test.mjs: the pages app (tests/fixtures/pages-app) shows each
// fixture page of the see-and-act tests, launched by the real binary on the
// Electron stand-in and Debian's Chromium, driven over MCP by the official
// TypeScript SDK client: titles, URLs, frame surfaces (one out-of-process),
// the editors from npm, screenshots; the app's page server refuses paths
// outside its roots and page names it does not know.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   node --test --test-reporter=tap --test-concurrency=1 tests/e2e/fixtures.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test as nodeTest } from 'node:test';

import {
  FIXTURES,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  pngSize,
  startServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const PAGES_APP = path.join(FIXTURES, 'pages-app');
const pagesSkip = fs.existsSync(path.join(PAGES_APP, 'package.json')) ? null : `${PAGES_APP} is missing`;
const skip = electronSkipReason() ?? pagesSkip ?? false;

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 120000, ...options, skip: skip || options.skip }, fn);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-fixtures-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

// One server for the whole file; each test launches one page and stops it.
let server = null;

before(async () => {
  if (skip) return;
  server = await startServer(null);
});

after(async () => {
  if (!server) return;
  await server.call('electron_stop', {}).catch(() => {});
  await server.close();
});

const PAGE_URL = (name) => new RegExp(`^http://127\\.0\\.0\\.1:\\d+/${name}\\.html\\?xorigin=http%3A%2F%2F127\\.0\\.0\\.\\d+%3A\\d+$`);

/** Launches pages-app on `name`; returns the launch envelope. Stopped by the caller. */
async function launchPage (name) {
  const launch = ok(await server.call('electron_launch', launchArgs(PAGES_APP, { args: [`--page=${name}`] })),
                    `electron_launch --page=${name}`);
  assert.equal(launch.windows.length, 1, JSON.stringify(launch.windows));
  return launch;
}

async function stop () {
  ok(await server.call('electron_stop', {}), 'electron_stop');
}

/** The only window, once its title is `title` (pages may retitle themselves after load). */
async function windowTitled (title, { timeoutMs = 15000, failIf } = {}) {
  let list = null;
  const found = await waitUntil(async () => {
    list = ok(await server.call('electron_windows_list', {}), 'electron_windows_list');
    const current = list.windows[0]?.title ?? '';
    if (failIf && failIf.test(current)) return 'failed';
    return list.count === 1 && current === title;
  }, timeoutMs, 50);
  assert.equal(found, true, `the window is titled ${JSON.stringify(title)}: ${JSON.stringify(list)}`);
  return list.windows[0];
}

/** A PNG screenshot of the active window, checked against the file it wrote. */
async function screenshot (what) {
  const dir = fs.mkdtempSync(path.join(scratch, 'shot-'));
  const shot = ok(await server.call('electron_screenshot', { dir }), `electron_screenshot (${what})`);
  assert.equal(shot.format, 'png');
  assert.ok(shot.bytes > 0 && fs.statSync(shot.path).size === shot.bytes, JSON.stringify(shot));
  assert.deepEqual(pngSize(shot.path), { width: shot.width, height: shot.height });
  assert.ok(shot.width > 0 && shot.height > 0);
  return shot;
}

/** Status code of a GET of `pathname` (sent verbatim) on `origin`. */
function get (origin, pathname) {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const request = http.get({ host: url.hostname, port: url.port, path: pathname }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => { body += chunk; });
      response.on('end', () => resolve({ status: response.statusCode, body, type: response.headers['content-type'] }));
    });
    request.on('error', reject);
  });
}

const SIMPLE_PAGES = [
  ['forms', 'Forms fixture'],
  ['signup', 'Sign up'],
  ['shadow', 'Shadow DOM fixture'],
  ['list', 'List fixture'],
];

for (const [name, title] of SIMPLE_PAGES) {
  test(`pages-app --page=${name}: one window titled "${title}" at its http URL, a screenshot`, async () => {
    const launch = await launchPage(name);
    try {
      assert.match(launch.windows[0].url, PAGE_URL(name));
      const window = await windowTitled(title);
      assert.match(window.url, PAGE_URL(name));
      const surfaces = ok(await server.call('electron_surfaces_list', {}), 'electron_surfaces_list');
      assert.deepEqual(surfaces.surfaces.map((s) => s.kind), ['window'], JSON.stringify(surfaces.surfaces));
      assert.equal(surfaces.surfaces[0].title, title);
      const shot = await screenshot(name);
      // BrowserWindow {width: 1100, height: 800} is the page's viewport.
      assert.deepEqual([shot.width, shot.height], [1100, 800]);
    } finally {
      await stop();
    }
  });
}

test('pages-app without --page shows forms', async () => {
  const launch = ok(await server.call('electron_launch', launchArgs(PAGES_APP)), 'electron_launch');
  try {
    assert.match(launch.windows[0].url, PAGE_URL('forms'));
    await windowTitled('Forms fixture');
  } finally {
    await stop();
  }
});

test('pages-app --page=frames: a same-origin and an out-of-process cross-origin frame surface', async () => {
  const launch = await launchPage('frames');
  try {
    const window = await windowTitled('Frames fixture');
    assert.equal(window.id, launch.windows[0].id);
    let list = null;
    const found = await waitUntil(async () => {
      list = ok(await server.call('electron_surfaces_list', {}), 'electron_surfaces_list');
      const frames = list.surfaces.filter((s) => s.kind === 'frame');
      return frames.length === 2 && frames.every((s) => /frame-inner\.html\?kind=/.test(s.url ?? ''));
    }, 15000, 50);
    assert.equal(found, true, `two frame surfaces: ${JSON.stringify(list)}`);
    const top = list.surfaces.find((s) => s.kind === 'window');
    assert.ok(top, JSON.stringify(list.surfaces));
    const frames = list.surfaces.filter((s) => s.kind === 'frame');
    const same = frames.find((s) => s.originRelation === 'same-origin');
    const cross = frames.find((s) => s.originRelation === 'cross-origin');
    assert.ok(same && cross, JSON.stringify(frames));
    const topOrigin = new URL(window.url).origin;
    assert.equal(same.url, `${topOrigin}/frame-inner.html?kind=same-origin`);
    // The second server of pages-app, whose origin the page got in ?xorigin=.
    const xorigin = new URL(window.url).searchParams.get('xorigin');
    assert.notEqual(xorigin, topOrigin);
    assert.equal(cross.url, `${xorigin}/frame-inner.html?kind=cross-origin`);
    for (const frame of frames) {
      assert.equal(frame.parentId, top.id);
      assert.equal(frame.windowId, window.id);
    }
    // Another host, so another site: Chromium's site isolation puts it in its
    // own renderer (a different port alone would be cross-origin, same process).
    assert.equal(new URL(topOrigin).hostname, '127.0.0.1');
    assert.equal(new URL(xorigin).hostname, '127.0.0.2');
    await screenshot('frames');
  } finally {
    await stop();
  }
});

test('pages-app --page=editors: CodeMirror 5 and 6 from npm come up ("Editors ready")', async () => {
  const launch = await launchPage('editors');
  try {
    assert.match(launch.windows[0].url, PAGE_URL('editors'));
    // "Editors failed: …" names what did not load; fail at once with it.
    await windowTitled('Editors ready', { failIf: /^Editors failed/ });
    const shot = await screenshot('editors');
    assert.deepEqual([shot.width, shot.height], [1100, 800]);
  } finally {
    await stop();
  }
});

test('pages-app serves its pages and node_modules, and nothing outside them', async () => {
  await launchPage('signup');
  try {
    const window = await windowTitled('Sign up');
    const origin = new URL(window.url).origin;
    const xorigin = new URL(window.url).searchParams.get('xorigin');

    for (const base of [origin, xorigin]) {
      const page = await get(base, '/signup.html');
      assert.equal(page.status, 200);
      assert.match(page.type, /^text\/html/);
      assert.match(page.body, /<title>Sign up<\/title>/);
      const module = await get(base, '/node_modules/@codemirror/view/package.json');
      assert.equal(module.status, 200, 'node_modules are served');
      assert.equal(JSON.parse(module.body).name, '@codemirror/view');
    }
    const refused = [
      '/../main.js',
      '/%2e%2e/main.js',
      '/..%2fmain.js',
      '/%2e%2e%2f%2e%2e%2fpackage.json',
      '/node_modules/../pages/signup.html',
      '/node_modules/%2e%2e/package.json',
      '/node_modules/..%2f..%2fMakefile.am',
      '/node_modules/@codemirror/../../../../../../etc/passwd',
      '/%00signup.html',
      '/signup.html%00.png',
      '/%E0%A4%A',
      '/..\\main.js',
      '/node_modules/',
      '/node_modules',
      '/',
      '/no-such-page.html',
      '//etc/passwd',
    ];
    for (const pathname of refused) {
      const answer = await get(origin, pathname);
      assert.equal(answer.status, 404, `${pathname} → ${answer.status} ${answer.body.slice(0, 80)}`);
      assert.ok(!/"name"|<html|root:/.test(answer.body), pathname);
    }
  } finally {
    await stop();
  }
});

test('pages-app refuses page names outside [a-z0-9-] and pages that do not exist', async () => {
  for (const name of ['../signup', 'Signup', 'signup.html', 'sign up', '', 'no-such-page']) {
    const failed = failsWith(await server.call('electron_launch', launchArgs(PAGES_APP, { args: [`--page=${name}`] })),
                             'LAUNCH_FAILED', `--page=${name}`);
    assert.match(failed.details.log_tail, /pages-app: (refusing page name|no page)/, `--page=${name}`);
    assert.equal(ok(await server.call('electron_status', {})).active_sessions, 0);
  }
});
