// wait.test.mjs: the wait and expect tools (electron_wait, wait_for_selector,
// wait_for_state, wait_for_event, expect_text, expect_value, expect_visible,
// expect_state, expect_count, expect_url, assert_pattern) on
// tests/fixtures/pages-app/pages/waits.html, run by the Electron stand-in on
// Debian's Chromium, driven over MCP by the official TypeScript SDK client:
// waits met late (the page changes 300 ms after a click), waits that time
// out, a wait cancelled by the client, progress, a navigation during a wait,
// and hostile arguments.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   node --test --test-reporter=tap --test-concurrency=1 tests/e2e/wait.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test as nodeTest } from 'node:test';

import {
  FIXTURES,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  startServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const PAGES_APP = path.join(FIXTURES, 'pages-app');
const pagesSkip = fs.existsSync(path.join(PAGES_APP, 'pages', 'waits.html')) ? null : `${PAGES_APP}/pages/waits.html is missing`;
const skip = electronSkipReason() ?? pagesSkip ?? false;

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 120000, ...options, skip: skip || options.skip }, fn);
}

let server = null;
const call = (name, args = {}, options) => server.call(name, args, options);
const click = async (selector) => ok(await call('electron_click', { selector }), `click ${selector}`);

async function launch () {
  ok(await call('electron_launch', launchArgs(PAGES_APP, { args: ['--page=waits'] })), 'electron_launch --page=waits');
  assert.ok(await waitUntil(async () => (await call('electron_exists', { selector: '#reset' })).exists === true, 15000, 50),
            'the page is up');
}

before(async () => {
  if (skip) return;
  server = await startServer(null);
  await launch();
});

after(async () => {
  if (!server) return;
  await server.call('electron_stop', {}).catch(() => {});
  await server.close();
});

async function reset () {
  await click('#reset');
  ok(await call('electron_expect_text', { selector: '#status', equals: 'Idle', timeoutMs: 2000 }), 'reset');
}

// --- waits met late --------------------------------------------------------------------

test('wait_for_selector: visible, attached, hidden and detached, each met 300 ms after a click', async () => {
  await reset();
  for (const [button, args] of [
    ['#show-later', { selector: '#box' }],
    ['#add-later', { selector: '#added', state: 'attached' }],
    ['#hide-later', { selector: '#visible-box', state: 'hidden' }],
    ['#remove-later', { selector: '#removable', state: 'detached' }],
  ]) {
    // Not met yet: the change comes 300 ms after the click.
    failsWith(await call('electron_wait_for_selector', { ...args, timeoutMs: 0 }), 'WAIT_TIMEOUT', `${button} before`);
    await click(button);
    const started = Date.now();
    const met = ok(await call('electron_wait_for_selector', { ...args, timeoutMs: 10000 }), `${button} → ${JSON.stringify(args)}`);
    assert.equal(met.matched, true);
    assert.equal(met.state, args.state ?? 'visible');
    assert.ok(Date.now() - started < 10000, 'met before the timeout');
    if (args.state === 'detached')
      assert.equal(met.target, undefined, 'a detached element has no ref');
    else
      assert.ok(met.target.ref > 0, JSON.stringify(met));
  }
  // A ref works as well as a selector.
  const field = ok(await call('electron_exists', { selector: '#field' }));
  assert.ok(ok(await call('electron_wait_for_selector', { ref: field.target.ref, timeoutMs: 1000 })).matched);
});

test('wait_for_selector times out with WAIT_TIMEOUT (retryable) and details', async () => {
  const started = Date.now();
  const failed = failsWith(await call('electron_wait_for_selector', { selector: '#never-there', timeoutMs: 400 }), 'WAIT_TIMEOUT');
  assert.ok(Date.now() - started >= 350, 'it waited its time');
  assert.equal(failed.retryable, true);
  assert.equal(failed.details.timeout_ms, 400);
  assert.equal(failed.details.state, 'visible');
  failsWith(await call('electron_wait_for_selector', { selector: '#ghost', timeoutMs: 200 }), 'WAIT_TIMEOUT', 'visibility:hidden is not visible');
});

test('wait_for_state: a composite state met late; a timeout carries details.last_state', async () => {
  await reset();
  await click('#check-later');
  const met = ok(await call('electron_wait_for_state', { selector: '#agree', state: { checked: true, enabled: true }, timeoutMs: 10000 }));
  assert.equal(met.state.checked, true);
  assert.equal(met.state.visible, true);

  await click('#disable-later');
  assert.equal(ok(await call('electron_wait_for_state', { selector: '#target-button', state: { disabled: true }, timeoutMs: 10000 })).state.enabled, false);

  const failed = failsWith(await call('electron_wait_for_state', { selector: '#field', state: { checked: true }, timeoutMs: 300 }), 'WAIT_TIMEOUT');
  assert.equal(failed.details.last_state.checked, null, JSON.stringify(failed.details));
  assert.deepEqual(failed.details.expected, { checked: true });
});

test('wait_for_event: a DOM event at an element, a click, history navigation with a URL filter', async () => {
  await reset();
  await click('#event-later');
  const settled = ok(await call('electron_wait_for_event', { eventName: 'settled', selector: '#status', timeoutMs: 10000 }));
  assert.equal(settled.fired, true);
  assert.equal(settled.event.type, 'settled');

  // The event comes while the wait runs: a click made right after it starts.
  const pending = call('electron_wait_for_event', { eventName: 'click', timeoutMs: 10000 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await click('#target-button');
  const clicked = ok(await pending);
  assert.equal(clicked.event.type, 'click');

  await click('#hash-later');
  const routed = ok(await call('electron_wait_for_event', { eventName: 'navigation', urlPattern: '#/done$', timeoutMs: 10000 }));
  assert.equal(routed.event.type, 'navigation');
  assert.match(routed.event.url, /#\/done$/);

  const none = failsWith(await call('electron_wait_for_event', { eventName: 'settled', timeoutMs: 300 }), 'WAIT_TIMEOUT');
  assert.equal(none.details.event, 'settled');
  failsWith(await call('electron_wait_for_event', { eventName: 'click', selector: '#no-such', timeoutMs: 300 }), 'SELECTOR_NO_MATCH');
});

test('electron_wait sleeps its ms, clamped', async () => {
  const slept = ok(await call('electron_wait', { ms: 150 }));
  assert.ok(slept.waited_ms >= 140, JSON.stringify(slept));
  failsWith(await call('electron_wait', { ms: -1 }), 'BAD_ARGUMENT');
  failsWith(await call('electron_wait', {}), 'BAD_ARGUMENT');
});

// --- expectations -------------------------------------------------------------------------

test('expect_text: every predicate, on a text that changes 300 ms after a click', async () => {
  await reset();
  ok(await call('electron_expect_text', { selector: '#status', not_equals: 'Done', timeoutMs: 0 }));
  await click('#text-later');
  const done = ok(await call('electron_expect_text', { selector: '#status', equals: 'Done', timeoutMs: 10000 }));
  assert.deepEqual([done.matched, done.actual], [true, 'Done']);
  assert.ok(done.target.ref > 0);
  ok(await call('electron_expect_text', { selector: '#status', contains: 'on', timeoutMs: 0 }));
  ok(await call('electron_expect_text', { selector: '#status', regex: '^d.NE$', flags: 'i', timeoutMs: 0 }));
  ok(await call('electron_expect_text', { selector: '#status', not_contains: 'Idle', timeoutMs: 0 }));

  // A value that keeps changing: the expectation holds once the ticker passes 20.
  const ticked = ok(await call('electron_expect_text', { selector: '#ticker', regex: '^([2-9]\\d|\\d{3,})$', timeoutMs: 20000 }));
  assert.ok(Number(ticked.actual) >= 20, JSON.stringify(ticked));

  const failed = failsWith(await call('electron_expect_text', { selector: '#status', equals: 'Never', timeoutMs: 300 }), 'EXPECTATION_FAILED');
  assert.equal(failed.retryable, true);
  assert.deepEqual([failed.details.expected, failed.details.actual, failed.details.predicate], ['Never', 'Done', 'equals']);
  // An absent element is an unmet expectation: actual is null.
  assert.equal(failsWith(await call('electron_expect_text', { selector: '#absent', equals: 'x', timeoutMs: 100 }), 'EXPECTATION_FAILED').details.actual, null);
});

test('expect_value, expect_visible, expect_state: met late, and their failures', async () => {
  await reset();
  await click('#value-later');
  assert.equal(ok(await call('electron_expect_value', { selector: '#field', equals: 'filled', timeoutMs: 10000 })).actual, 'filled');
  const value = failsWith(await call('electron_expect_value', { selector: '#field', contains: 'nope', timeoutMs: 100 }), 'EXPECTATION_FAILED');
  assert.equal(value.details.actual, 'filled');

  await click('#show-later');
  ok(await call('electron_expect_visible', { selector: '#box', timeoutMs: 10000 }));
  assert.equal(failsWith(await call('electron_expect_visible', { selector: '#ghost', timeoutMs: 100 }), 'EXPECTATION_FAILED').details.actual, 'hidden');
  assert.equal(failsWith(await call('electron_expect_visible', { selector: '#absent', timeoutMs: 100 }), 'EXPECTATION_FAILED').details.actual, 'absent');

  await click('#check-later');
  assert.equal(ok(await call('electron_expect_state', { selector: '#agree', state: { checked: true }, timeoutMs: 10000 })).state.checked, true);
  const state = failsWith(await call('electron_expect_state', { selector: '#agree', state: { checked: false, focused: true }, timeoutMs: 100 }), 'EXPECTATION_FAILED');
  assert.equal(state.details.actual.checked, true);
  assert.equal(state.details.last_state.checked, true);
});

test('expect_count: selector mode and role mode, met late; out of range fails with actual', async () => {
  await reset();
  assert.equal(ok(await call('electron_expect_count', { selector: '.item', equals: 3, timeoutMs: 0 })).actual, 3);
  await click('#items-later');
  assert.equal(ok(await call('electron_expect_count', { selector: '.item', min: 5, timeoutMs: 10000 })).actual, 5);
  assert.equal(ok(await call('electron_expect_count', { role: 'listitem', equals: 5, timeoutMs: 5000 })).actual, 5);
  assert.equal(ok(await call('electron_expect_count', { role: 'button', name_contains: 'later', max: 20, min: 10, timeoutMs: 0 })).matched, true);
  ok(await call('electron_expect_count', { role: 'button', name_exact: 'Reset', equals: 1, timeoutMs: 0 }));
  ok(await call('electron_expect_count', { selector: '#box, #ghost', visible: false, equals: 2, timeoutMs: 0 }));
  const failed = failsWith(await call('electron_expect_count', { selector: '.item', max: 2, timeoutMs: 100 }), 'EXPECTATION_FAILED');
  assert.deepEqual([failed.details.actual, failed.details.expected], [5, { max: 2 }]);
});

test('assert_pattern: one test, no polling; a missing element is SELECTOR_NO_MATCH', async () => {
  await reset();
  assert.equal(ok(await call('electron_assert_pattern', { selector: '#status', equals: 'Idle' })).actual, 'Idle');
  ok(await call('electron_assert_pattern', { selector: '#status', attribute: 'role', matches_regex: '^stat' }));
  const absent = failsWith(await call('electron_assert_pattern', { selector: '#status', attribute: 'data-none', contains: 'x' }), 'EXPECTATION_FAILED');
  assert.equal(absent.details.actual, null);
  await click('#text-later');
  // No retry: the text changes only later.
  failsWith(await call('electron_assert_pattern', { selector: '#status', equals: 'Done' }), 'EXPECTATION_FAILED');
  failsWith(await call('electron_assert_pattern', { selector: '#absent', equals: 'x' }), 'SELECTOR_NO_MATCH');
});

test('progress: a client that asks hears the elapsed time of a long wait', async () => {
  const heard = [];
  const result = await server.client.callTool({ name: 'electron_wait_for_selector', arguments: { selector: '#never-there', timeoutMs: 1500 } },
                                              undefined, { onprogress: (p) => heard.push(p) });
  const envelope = JSON.parse(result.content[0].text);
  assert.equal(envelope.code, 'WAIT_TIMEOUT');
  assert.ok(heard.length >= 1, 'at least one progress notification');
  for (let i = 1; i < heard.length; i++)
    assert.ok(heard[i].progress > heard[i - 1].progress, 'strictly increasing');
  assert.equal(heard[0].total, 1500);
  assert.match(heard[0].message, /waited \d+ of 1500 ms/);
});

test('cancellation: the client aborts a long wait; the server answers the next call at once', async () => {
  for (const [name, args] of [
    ['electron_wait_for_selector', { selector: '#never-there', timeoutMs: 60000 }],
    ['electron_expect_text', { selector: '#status', equals: 'never', timeoutMs: 60000 }],
    ['electron_wait_for_event', { eventName: 'window', timeoutMs: 60000 }],
    ['electron_wait', { ms: 60000 }],
  ]) {
    const controller = new AbortController();
    let started = Date.now();
    setTimeout(() => controller.abort(), 300);
    await assert.rejects(server.client.callTool({ name, arguments: args }, undefined, { signal: controller.signal }));
    assert.ok(Date.now() - started < 5000, `${name}: the abort ended the wait`);
    started = Date.now();
    ok(await call('electron_get_text', { selector: '#status' }));
    assert.ok(Date.now() - started < 3000, `${name}: the next call took ${Date.now() - started} ms`);
  }
});

// --- hostile arguments ----------------------------------------------------------------------

test('hostile arguments: timeouts, patterns, states, predicates, counts, events', async () => {
  await reset();
  // A huge timeout is clamped, not refused; a negative one is refused.
  ok(await call('electron_expect_text', { selector: '#status', equals: 'Idle', timeoutMs: 2147483647 }));
  ok(await call('electron_wait_for_selector', { selector: '#status', timeoutMs: 2147483647 }));
  for (const name of ['electron_wait_for_selector', 'electron_expect_visible'])
    failsWith(await call(name, { selector: '#status', timeoutMs: -5 }), 'BAD_ARGUMENT', `${name} negative`);
  failsWith(await call('electron_expect_text', { selector: '#status', equals: 'Idle', timeoutMs: 1e12 }), 'BAD_ARGUMENT', 'beyond 32 bits');
  failsWith(await call('electron_expect_text', { selector: '#status', equals: 'Idle', timeoutMs: 1.5 }), 'BAD_ARGUMENT', 'not an integer');

  // Regular expressions: ReDoS shapes, flags, length, syntax — refused before the page sees them.
  for (const regex of ['(a+)+$', '(a*)*b', '(a|a)*c', '(.*a){12}', '((ab)*)+', '(\\w+\\s?)*$', '(a|ab)+x', '(?:x+y?)+z',
                       '(', 'a)', '[abc', '*a', 'a{2,1}', 'a{99999}', '\\', 'x'.repeat(1001)]) {
    const refused = failsWith(await call('electron_expect_text', { selector: '#status', regex, timeoutMs: 0 }), 'BAD_ARGUMENT', `regex ${regex.slice(0, 20)}`);
    assert.equal(refused.details.field, 'matches', JSON.stringify(refused.details));
  }
  for (const flags of ['g', 'y', 'ii', 'x', 'imsuimsu!'])
    failsWith(await call('electron_expect_text', { selector: '#status', regex: 'I', flags, timeoutMs: 0 }), 'BAD_ARGUMENT', `flags ${flags}`);
  failsWith(await call('electron_expect_url', { matches: '(a+)+', timeoutMs: 0 }), 'BAD_ARGUMENT');
  failsWith(await call('electron_assert_pattern', { selector: '#status', matches_regex: '(x*)*' }), 'BAD_ARGUMENT');
  failsWith(await call('electron_wait_for_event', { eventName: 'navigation', urlPattern: '(a|a)+', timeoutMs: 0 }), 'BAD_ARGUMENT');
  // Safe shapes pass (the JS engine, not PCRE, reads them).
  ok(await call('electron_expect_text', { selector: '#status', regex: '^(?:Id|Ad)le$', timeoutMs: 0 }));
  ok(await call('electron_expect_text', { selector: '#status', regex: '(?<word>I)\\k<word>?dle', flags: 'u', timeoutMs: 0 }));

  // Predicates: exactly one.
  failsWith(await call('electron_expect_text', { selector: '#status', timeoutMs: 0 }), 'BAD_ARGUMENT', 'no predicate');
  failsWith(await call('electron_expect_text', { selector: '#status', equals: 'a', contains: 'b' }), 'BAD_ARGUMENT', 'two predicates');
  failsWith(await call('electron_expect_url', { contains: 'a', matches: 'b' }), 'BAD_ARGUMENT');
  failsWith(await call('electron_expect_text', { selector: '#status', equals: 'x'.repeat(10001) }), 'BAD_ARGUMENT', 'huge expected');
  failsWith(await call('electron_expect_text', { equals: 'x' }), 'BAD_ARGUMENT', 'no target');
  failsWith(await call('electron_expect_text', { ref: 1, selector: '#status', equals: 'x' }), 'BAD_ARGUMENT', 'two targets');
  failsWith(await call('electron_expect_text', { selector: '##bad', equals: 'x', timeoutMs: 0 }), 'BAD_ARGUMENT', 'invalid selector');
  failsWith(await call('electron_expect_text', { ref: 999999, equals: 'x' }), 'REF_NOT_FOUND');

  // States.
  for (const state of [{}, { bogus: true }, { visible: 'yes' }, { checked: 'half' }, { __proto__: { visible: true } }])
    failsWith(await call('electron_wait_for_state', { selector: '#agree', state, timeoutMs: 0 }), 'BAD_ARGUMENT', JSON.stringify(state));
  failsWith(await call('electron_wait_for_selector', { selector: '#status', state: 'gone' }), 'BAD_ARGUMENT');

  // Counts.
  for (const args of [{ equals: 1 }, { selector: '.item' }, { selector: '.item', role: 'listitem', equals: 1 },
                      { selector: '.item', min: 3, max: 2 }, { selector: '.item', equals: -1 }, { role: 'x', enabled: 'yes', equals: 1 }])
    failsWith(await call('electron_expect_count', { ...args, timeoutMs: 0 }), 'BAD_ARGUMENT', JSON.stringify(args));

  // Events.
  for (const eventName of ['', 'two words', 'x'.repeat(65), '<script>'])
    failsWith(await call('electron_wait_for_event', { eventName, timeoutMs: 0 }), 'BAD_ARGUMENT', `eventName ${eventName.slice(0, 10)}`);
  failsWith(await call('electron_wait_for_event', { eventName: 'click', urlPattern: 'x' }), 'BAD_ARGUMENT', 'urlPattern on a DOM event');
  failsWith(await call('electron_wait_for_event', { eventName: 'load', selector: '#status' }), 'BAD_ARGUMENT', 'an element for load');

  // Nothing here left the page stuck.
  ok(await call('electron_expect_text', { selector: '#status', equals: 'Idle', timeoutMs: 0 }));
});

// --- across a navigation ---------------------------------------------------------------------

test('expect_url and a wait go on in the new document after a navigation', async () => {
  await reset();
  await click('#hash-later');
  assert.match(ok(await call('electron_expect_url', { contains: '#/done', timeoutMs: 10000 })).actual, /#\/done$/);
  ok(await call('electron_expect_url', { matches: 'WAITS\\.HTML', flags: 'i', timeoutMs: 0 }));
  const wrong = failsWith(await call('electron_expect_url', { contains: 'nowhere', timeoutMs: 100 }), 'EXPECTATION_FAILED');
  assert.match(wrong.details.actual, /waits\.html/);

  // The expectation starts in the first document and is met in the second.
  await click('#navigate-later');
  const second = ok(await call('electron_expect_text', { selector: '#status', equals: 'Second document', timeoutMs: 15000 }));
  assert.equal(second.actual, 'Second document');
  ok(await call('electron_expect_url', { contains: 'second=1', timeoutMs: 5000 }));

  // A load event, after another navigation.
  await click('#navigate-later');
  ok(await call('electron_wait_for_event', { eventName: 'load', timeoutMs: 15000 }));
});

// Last: the popup may become the active window.
test('wait_for_event window: a popup the page opens', async () => {
  const pending = call('electron_wait_for_event', { eventName: 'window', timeoutMs: 15000 });
  await new Promise((resolve) => setTimeout(resolve, 200));
  await click('#open-popup');
  const opened = await pending;
  ok(opened, 'a new window');
  assert.equal(opened.event.type, 'window');
  assert.ok(opened.event.window_id, JSON.stringify(opened));
});
