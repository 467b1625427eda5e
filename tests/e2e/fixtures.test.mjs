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

// --- the pages behave as their comments say (driven by Playwright) -------------
//
// The tools' tests rely on these pages; here a client we did not write (the
// pinned playwright-core, through the same stand-in) checks what each page
// promises, so a failure there is the tool's, not the fixture's.

const playwright = await import('playwright-core').catch((error) => ({ skip: `playwright-core: ${error.message}` }));
const ELECTRON_BIN = path.join(FIXTURES, 'electron');

function pwTest (name, fn) {
  return test(name, { skip: playwright.skip ?? false }, async (t) => {
    const launched = [];
    t.after(async () => {
      for (const app of launched) await app.close().catch(() => {});
    });
    await fn(async (pageName) => {
      const app = await playwright._electron.launch({ executablePath: ELECTRON_BIN, args: [PAGES_APP, `--page=${pageName}`], timeout: 30000 });
      launched.push(app);
      const page = await app.firstWindow();
      await page.waitForLoadState('load');
      return page;
    });
  });
}

const eventLog = async (page) => (await page.locator('#events li').allTextContents());

pwTest('forms.html: real input reaches the page and is logged; covered, moving and stateful controls', async (open) => {
  const page = await open('forms');
  await page.getByLabel('Full name').fill('Ada');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  assert.equal(await page.getByRole('status').first().textContent(), 'Saved: Ada');
  await page.locator('#dbl').dblclick();
  await page.locator('#context').click({ button: 'right' });
  await page.locator('#search').press('Control+Shift+K');
  await page.getByLabel('Plan').selectOption({ label: 'Pro plan' });
  await page.getByLabel('Interests').selectOption(['sport', 'books']);
  await page.getByLabel('Attachment').setInputFiles([
    { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('a') },
    { name: 'b.png', mimeType: 'image/png', buffer: Buffer.from('b') },
  ]);
  await page.getByLabel('Subscribe to the newsletter').check();
  const log = await eventLog(page);
  for (const line of [
    'input #fullname value="Ada"',
    'click #save button=0 detail=1 trusted=1',
    'dblclick #dbl trusted=1',
    'contextmenu #context button=2 trusted=1',
    'keydown #search key=K code=KeyK mods=ctrl+shift trusted=1',
    'change #plan value="pro"',
    'change #interests value="sport,books"',
    'change #attachment files="a.txt,b.png"',
    'change #newsletter checked=true',
  ]) assert.ok(log.includes(line), `${line} in ${JSON.stringify(log)}`);
  assert.ok(log.some((l) => /^mouseover #dbl trusted=1$/.test(l)), JSON.stringify(log));
  // A synthetic event is logged as untrusted.
  await page.locator('#dbl').dispatchEvent('click');
  assert.ok((await eventLog(page)).includes('click #dbl button=0 detail=0 trusted=0'));

  // The overlay takes the pointer at the covered button's centre.
  const covered = await page.locator('#covered').boundingBox();
  const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.id,
                                  [covered.x + covered.width / 2, covered.y + covered.height / 2]);
  assert.equal(hit, 'overlay');
  // The moving button ends its transition 160 px to the right.
  await page.waitForFunction(() => getComputedStyle(document.getElementById('moving')).transform === 'matrix(1, 0, 0, 1, 160, 0)',
                             null, { timeout: 5000 });
  // Disclosure, toggle, switch.
  await page.getByRole('button', { name: 'Show advanced options' }).click();
  assert.equal(await page.locator('#advanced-toggle').getAttribute('aria-expanded'), 'true');
  assert.ok(await page.getByLabel('Enable beta features').isVisible());
  await page.getByRole('button', { name: 'Bold' }).click();
  assert.equal(await page.locator('#bold').getAttribute('aria-pressed'), 'true');
  await page.getByRole('switch', { name: 'Dark mode' }).click();
  assert.equal(await page.locator('#dark-mode').getAttribute('aria-checked'), 'true');
  // Username validity follows its value.
  await page.getByLabel('Username').fill('adal');
  assert.equal(await page.locator('#username').getAttribute('aria-invalid'), 'false');
  // The far button is 2000 px below the fold.
  const far = await page.locator('#far-button').evaluate((b) => b.getBoundingClientRect().top);
  assert.ok(far > 2000, `far button at ${far}`);
  assert.ok(await page.locator('#delete').isDisabled());
  assert.ok(!(await page.locator('#hidden-button').isVisible()));
});

pwTest('signup.html: the alert without the terms, then the welcome status', async (open) => {
  const page = await open('signup');
  await page.getByRole('heading', { name: 'Create your account' }).waitFor();
  await page.getByLabel('Full name').fill('Ada Lovelace');
  await page.getByLabel('Email').fill('ada@example.com');
  await page.getByLabel('Plan').selectOption({ label: 'Pro' });
  await page.getByRole('button', { name: 'Sign up' }).click();
  assert.equal(await page.getByRole('alert').textContent(), 'Please accept the terms to continue.');
  await page.getByLabel('I accept the terms').check();
  await page.getByRole('button', { name: 'Sign up' }).click();
  assert.equal(await page.getByRole('status').textContent(), 'Welcome, Ada Lovelace! Your Pro plan is active.');
  assert.equal(await page.locator('form').count(), 0, 'the form is gone');
  assert.equal(await page.title(), 'Sign up');
});

pwTest('shadow.html: open, nested and slotted controls; the closed root answers a real click', async (open) => {
  const page = await open('shadow');
  await page.getByRole('button', { name: 'Open action' }).click();
  assert.equal(await page.locator('#open-status').textContent(), 'Open action clicked 1 time');
  await page.getByRole('textbox', { name: 'Open input' }).fill('hi');
  assert.equal(await page.locator('#open-input-status').textContent(), 'Open input: hi');
  await page.getByRole('button', { name: 'Nested action' }).click();
  assert.equal(await page.locator('#nested-status').textContent(), 'Nested action clicked 1 time');
  await page.getByRole('button', { name: 'Slotted button' }).click();
  assert.equal(await page.locator('#slotted-status').textContent(), 'Slotted button clicked 1 time');
  // Closed roots: no script (nor Playwright) can reach inside...
  assert.equal(await page.locator('#closed-host').evaluate((host) => host.shadowRoot), null);
  assert.equal(await page.getByRole('button', { name: 'Closed action' }).count(), 0);
  // ...but the mouse can: the button is the first thing in the host.
  const host = await page.locator('#closed-host').boundingBox();
  await page.mouse.click(host.x + 20, host.y + host.height / 2);
  assert.equal(await page.locator('#closed-status').textContent(), 'Closed action clicked 1 time');
});

pwTest('frames.html: both frames show their own controls and answer clicks', async (open) => {
  const page = await open('frames');
  for (const kind of ['same-origin', 'cross-origin']) {
    const frame = page.frameLocator(kind === 'same-origin' ? '#same-frame' : '#cross-frame');
    await frame.getByRole('button', { name: `Inner ${kind} button` }).click();
    assert.equal(await frame.getByRole('status').textContent(), `Inner ${kind} button clicked 1 time`);
    await frame.getByRole('textbox', { name: `Inner ${kind} textbox` }).fill('x');
    assert.equal(await frame.locator('#inner-typed').textContent(), `Inner ${kind} textbox: x`);
  }
  const cross = page.frames().find((f) => f.url().includes('kind=cross-origin'));
  assert.match(cross.url(), /^http:\/\/127\.0\.0\.2:\d+\//);
  await page.getByRole('button', { name: 'Top-level button' }).click();
  assert.equal(await page.locator('#top-status').textContent(), 'Top-level button clicked 1 time');
});

pwTest('list.html: 300 items, load more, and each mutation does what the ref tests expect', async (open) => {
  const page = await open('list');
  const items = page.locator('#items > li');
  assert.equal(await items.count(), 300);
  const handle = async (id) => page.locator(`#${id}`).elementHandle();
  const same = (a, b) => page.evaluate(([x, y]) => x === y, [a, b]);
  const before = { 1: await handle('open-1'), 6: await handle('open-6'), 7: await handle('open-7'), 8: await handle('open-8') };

  await page.locator('#insert-first').click();
  assert.equal(await items.first().getAttribute('id'), 'item-inserted-1');
  assert.equal(await items.first().getByRole('button').textContent(), 'Open inserted item 1');
  await page.locator('#remove-5').click();
  assert.equal(await page.locator('#item-5').count(), 0);
  await page.locator('#rename-6').click();
  assert.equal(await page.locator('#open-6').textContent(), 'Open item 6 (renamed)');
  assert.ok(await same(before[6], await handle('open-6')), 'item 6 keeps its node');
  await page.locator('#reverse-1-3').click();
  assert.deepEqual(await items.evaluateAll((li) => li.slice(0, 4).map((e) => e.id)),
                   ['item-inserted-1', 'item-3', 'item-2', 'item-1']);
  assert.ok(await same(before[1], await handle('open-1')), 'item 1 keeps its node when moved');
  await page.locator('#rerender-7').click();
  assert.equal(await page.locator('#open-7').textContent(), 'Open item 7');
  assert.ok(!(await same(before[7], await handle('open-7'))), 'item 7 is a new node');
  await page.locator('#retext-8').click();
  assert.equal(await page.locator('#open-8').textContent(), 'Open item 8 (busy)');
  await page.locator('#retext-8').click();
  assert.equal(await page.locator('#open-8').textContent(), 'Open item 8');
  assert.ok(await same(before[8], await handle('open-8')), 'item 8 keeps its node');

  await page.getByRole('button', { name: 'Open item 7', exact: true }).click();
  assert.equal(await page.locator('#list-status').textContent(), 'Opened item 7');
  await page.getByRole('button', { name: 'Open item 300' }).click();
  assert.equal(await page.locator('#list-status').textContent(), 'Opened item 300');
  await page.locator('#load-more').click();
  assert.equal(await page.locator('#open-310').textContent(), 'Open item 310');
  assert.equal(await items.count(), 300 + 1 - 1 + 10);
});

pwTest('editors.html: real keys reach CodeMirror 5 and 6, and #cm5-doc / #cm6-doc follow', async (open) => {
  const page = await open('editors');
  await page.waitForFunction(() => document.title !== 'Editors loading', null, { timeout: 15000 });
  assert.equal(await page.title(), 'Editors ready');
  assert.equal(await page.locator('#cm5-doc').textContent(), 'function hello() {\n  return 5;\n}\n');
  assert.equal(await page.locator('#cm6-doc').textContent(), 'const six = 6;\n');
  assert.equal(await page.locator('.CodeMirror textarea').getAttribute('aria-label'), 'CodeMirror 5 editor');
  assert.equal(await page.getByRole('textbox', { name: 'CodeMirror 6 editor' }).getAttribute('contenteditable'), 'true');

  await page.locator('.CodeMirror-lines').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('// five');
  assert.equal(await page.locator('#cm5-doc').textContent(), 'function hello() {\n  return 5;\n}\n// five');
  await page.getByRole('textbox', { name: 'CodeMirror 6 editor' }).click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('let x;');
  await page.keyboard.press('Enter');
  assert.equal(await page.locator('#cm6-doc').textContent(), 'const six = 6;\nlet x;\n');
});

// A title the page set a moment ago is looked for before Chromium's
// Target.targetInfoChanged about it has arrived: switching or capturing by
// that title reads the targets again instead of answering REF_NOT_FOUND.
test('a title just set by the page finds its window', async () => {
  await launchPage('states');
  try {
    await windowTitled('States fixture');
    // The click answers when the page ran its handler; nothing waits for the
    // title to travel back, so the next call races the event.
    ok(await server.call('electron_click', { selector: '#retitle' }), 'click #retitle');
    const switched = ok(await server.call('electron_switch_window', { windowTitle: 'Retitled' }),
                        'switch by the new title');
    assert.equal(switched.active.title, 'Retitled');
    failsWith(await server.call('electron_switch_window', { windowTitle: 'Never this title' }), 'REF_NOT_FOUND');
  } finally {
    await stop();
  }
  // The same race for a screenshot of a window picked by title.
  await launchPage('states');
  try {
    await windowTitled('States fixture');
    ok(await server.call('electron_click', { selector: '#retitle' }), 'click #retitle');
    const dir = fs.mkdtempSync(path.join(scratch, 'title-'));
    const shot = ok(await server.call('electron_screenshot', { dir, windowTitle: 'Retitled' }),
                    'screenshot by the new title');
    assert.ok(fs.statSync(shot.path).size === shot.bytes);
  } finally {
    await stop();
  }
});
