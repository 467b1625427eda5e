// reference-task.mjs: issue 8's scripted reference task, as an agent would run
// it against `stagewright --tool-profile essential` over MCP (official SDK
// client), counting calls and the tokens the agent reads.
//
//   node bench/reference-task.mjs [--json=FILE] [--path=terse] STAGEWRIGHT ELECTRON PAGES_APP
//
// --path=terse (issue 16) does the task the way a terse agent does it, reading
// no description closely: electron_launch, electron_snapshot {} (the default,
// text), electron_fill_form (name, email, plan by its label, the terms
// checkbox), electron_click, electron_expect_text on the status region by
// its ref, electron_screenshot {} (to a file), electron_stop. Target: <= 7
// calls and <= 3,000 tokens, tools/list included, counted as the text an
// agent reads (tools/list whole, each result's text item). Measured the same
// way with the JSON default (before issue 16): 7 calls, 5,474 tokens.
//
// The task: open the sign-up form (pages-app --page=signup), read tools/list,
// snapshot (text), fill Full name and Email, choose the plan by its LABEL
// ("Pro"; its value is "pro") and accept the terms (one electron_fill_form),
// press Sign up, verify the welcome text in the `since:"last"` snapshot (read
// through the status region's ref only when the diff does not show it), take
// an inline screenshot, stop. Refs come from what the server answered, never
// from guessed selectors.
//
// Tokens = characters of every JSON-RPC response the client reads / 4
// (tools/list included, the initialize handshake shown apart), with the
// base64 of image content counted apart. Any ok:false envelope ends the run
// with an error. Prints a table and one JSON line.
//
// Peers on the same task (issue 8): Playwright MCP 7 calls / ~5,800 tokens
// (tools/list 5,074), TypeScript Electron Stagewright 11 / 21,400,
// agent-browser 10 / 22,900. Target: <= 3,500 tokens.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { refOf, refsOfRole, startStagewright } from './page-common.mjs';

const options = Object.fromEntries(process.argv.slice(2).filter((a) => a.startsWith('--'))
  .map((a) => { const eq = a.indexOf('='); return eq < 0 ? [a.slice(2), true] : [a.slice(2, eq), a.slice(eq + 1)]; }));
const [bin, electron, pagesApp] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!bin || !electron || !pagesApp) {
  console.error('usage: node bench/reference-task.mjs [--json=FILE] [--path=terse] STAGEWRIGHT ELECTRON PAGES_APP');
  process.exit(2);
}

const NAME = 'Ada Lovelace';
const EMAIL = 'ada@example.com';
const PLAN_LABEL = 'Pro';
const WELCOME = `Welcome, ${NAME}! Your ${PLAN_LABEL} plan is active.`;
const TERSE = options.path === 'terse';
if (options.path !== undefined && !TERSE) {
  console.error(`unknown --path=${options.path} (terse is the one other path)`);
  process.exit(2);
}
const NEEDED = ['electron_launch', 'electron_snapshot', 'electron_fill_form', 'electron_click',
  TERSE ? 'electron_expect_text' : 'electron_get_text', 'electron_screenshot', 'electron_stop'];

const tokens = (chars) => Math.round(chars / 4);

/** Every string in `value` (an envelope), depth first. */
function strings (value, out = []) {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => strings(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => strings(v, out));
  return out;
}

/** The one status ref a text (snapshot, diff) shows, or null. */
function statusRefIn (texts) {
  const refs = new Set(texts.flatMap((t) => refsOfRole(t, 'status')));
  return refs.size === 1 ? [...refs][0] : null;
}

const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-reference-task-'));
const server = await startStagewright(bin, ['--tool-profile', 'essential'], 'stagewright-reference-task');
const steps = [];
let failed = null;
let initialize = null;
try {
  initialize = server.read.find((r) => r.message?.result?.protocolVersion !== undefined);
  const list = await server.listTools();
  steps.push({ step: 'tools/list', call: false, chars: list.chars, text_chars: list.textChars, image_chars: 0,
               note: `${list.tools.length} tools` });
  const names = new Set(list.tools.map((t) => t.name));
  const missing = NEEDED.filter((n) => !names.has(n));
  if (missing.length) throw new Error(`--tool-profile essential lacks ${missing.join(', ')}`);

  const call = async (step, name, args) => {
    const answer = await server.call(name, args);
    steps.push({ step, call: true, tool: name, chars: answer.chars, text_chars: answer.textChars,
                 image_chars: answer.imageChars, ms: +answer.ms.toFixed(1) });
    return answer;
  };

  const launch = await call('open the sign-up form', 'electron_launch',
                            { executablePath: electron, main: pagesApp, args: ['--page=signup'] });
  let text = TERSE ? null : strings(launch.envelope).find((s) => /\[\d+\]\s+button "Sign up"/.test(s));
  if (TERSE) {
    const snapshot = await call('snapshot, no arguments', 'electron_snapshot', {});
    text = snapshot.envelope.snapshot_text;
    if (typeof text !== 'string')
      throw new Error(`electron_snapshot {} answered no text: ${JSON.stringify(snapshot.envelope).slice(0, 300)}`);
  } else if (!text) {
    const snapshot = await call('snapshot', 'electron_snapshot', { format: 'text' });
    text = snapshot.envelope.snapshot_text;
  }
  const ref = {
    name: refOf(text, 'textbox', 'Full name'),
    email: refOf(text, 'textbox', 'Email'),
    plan: refOf(text, 'combobox', 'Plan'),
    terms: refOf(text, 'checkbox', 'I accept the terms'),
    submit: refOf(text, 'button', 'Sign up'),
  };

  // One call fills the form (text, a select by the label the snapshot shows,
  // a checkbox), as Playwright MCP's browser_fill_form does.
  const filled = await call('fill name, email, plan (by label), terms', 'electron_fill_form', {
    fields: [
      { ref: ref.name, value: NAME },
      { ref: ref.email, value: EMAIL },
      { ref: ref.plan, value: PLAN_LABEL },
      { ref: ref.terms, value: true },
    ],
  });
  if (filled.envelope.count !== 4)
    throw new Error(`electron_fill_form filled ${JSON.stringify(filled.envelope)}`);
  const clicked = await call('sign up', 'electron_click', { ref: ref.submit });

  if (TERSE) {
    // The status region appears with the click: by the ref the click's
    // answer shows, or else by its role.
    const statusRef = statusRefIn(strings(clicked.envelope));
    await call('verify the welcome text', 'electron_expect_text',
               statusRef === null ? { selector: '[role=status]', equals: WELCOME } : { ref: statusRef, equals: WELCOME });
    await call('screenshot', 'electron_screenshot', { dir: shots });
    await call('close', 'electron_stop', {});
    report();
  } else {
  // What changed shows the welcome text; an agent reads it there. Only
  // when it does not is the status read by its ref.
  const diff = await call('see what changed', 'electron_snapshot', { format: 'text', since: 'last' });
  if (!strings(diff.envelope).some((t) => t.includes(WELCOME))) {
    let statusRef = statusRefIn(strings(clicked.envelope)) ?? statusRefIn(strings(diff.envelope));
    if (statusRef === null) {
      const found = await call('find the status', 'electron_find', { role: 'status' });
      const matches = (found.envelope.matches ?? []).filter((m) => Number.isInteger(m.ref));
      if (matches.length !== 1) throw new Error(`electron_find {role:"status"}: ${JSON.stringify(found.envelope)}`);
      statusRef = matches[0].ref;
    }
    const welcome = await call('verify the welcome text', 'electron_get_text', { ref: statusRef });
    if (welcome.envelope.text !== WELCOME)
      throw new Error(`the status reads ${JSON.stringify(welcome.envelope.text)}, not ${JSON.stringify(WELCOME)}`);
  }

  const shot = await call('screenshot', 'electron_screenshot', { inline: true, dir: shots });
  if (!shot.result.content.some((c) => c.type === 'image'))
    throw new Error('electron_screenshot {inline:true} returned no image content');
  await call('close', 'electron_stop', {});
  report();
  }
} catch (error) {
  failed = error;
} finally {
  await server.close();
  fs.rmSync(shots, { recursive: true, force: true });
}
if (failed) {
  console.error(`reference task failed after ${steps.length} steps: ${failed.stack ?? failed}`);
  process.exit(1);
}

function report () {
  const calls = steps.filter((s) => s.call).length;
  const chars = steps.reduce((sum, s) => sum + s.chars, 0);
  const imageChars = steps.reduce((sum, s) => sum + s.image_chars, 0);
  const textChars = steps.reduce((sum, s) => sum + s.text_chars, 0);
  const listChars = steps[0].chars;
  const lines = [
    `Reference task (issue 8${TERSE ? ', the terse path of issue 16' : ''}) against stagewright --tool-profile essential, ` +
      'over MCP with the SDK client',
    '| # | step | tool | tokens read (JSON-RPC) | text content only | image (apart) |',
    '|---|---|---|---|---|---|',
    ...steps.map((s, i) => `| ${i} | ${s.step} | ${s.tool ?? s.note ?? ''} | ${tokens(s.chars)} | ${tokens(s.text_chars)} | ` +
                           `${s.image_chars ? `${tokens(s.image_chars)} (${s.image_chars} b64 chars)` : ''} |`),
    '',
    `tool calls: ${calls}; tokens read: ${tokens(chars)} (tools/list ${tokens(listChars)}, ${(100 * listChars / chars).toFixed(0)}%); ` +
      `image content apart: ${tokens(imageChars)} tokens; initialize handshake (not counted): ${initialize ? tokens(initialize.chars) : '?'}`,
    `text content only (tools/list whole, each result's text items without structuredContent): ${tokens(textChars)} tokens`,
    TERSE
      ? 'target: <= 7 calls, <= 3,000 tokens of text content. Peer: Playwright MCP 7 calls / 5,793; before issue 16 (JSON default): 7 / 5,474'
      : 'target: <= 3,500 tokens. Peers: Playwright MCP 7 calls / ~5,800; TypeScript Electron Stagewright 11 / 21,400; agent-browser 10 / 22,900',
  ];
  console.log(lines.join('\n'));
  const json = JSON.stringify({ path: TERSE ? 'terse' : 'reference', calls, tokens: tokens(chars), chars, text_tokens: tokens(textChars), tools_list_tokens: tokens(listChars),
    image_tokens: tokens(imageChars), initialize_tokens: initialize ? tokens(initialize.chars) : null, steps });
  if (typeof options.json === 'string') fs.writeFileSync(path.resolve(options.json), `${json}\n`);
  console.log(json);
}
