// http-load.mjs: many MCP sessions over Streamable HTTP, each driving its own
// app, against one `stagewright --http` (issue 10, "Scale").
//
//   node bench/http-load.mjs STAGEWRIGHT ELECTRON PAGES_APP [SESSIONS] [CALLS] [--json=FILE]
//
// SESSIONS (default 16) official-SDK clients (StreamableHTTPClientTransport)
// connect to one server on 127.0.0.1 (port 0, read from its stderr). Each
// launches its own pages app (signup.html, allowMultiple) and then makes CALLS
// (default 1,000) tool calls in a fixed cycle that touches the page and the
// server alike — electron_snapshot (text), electron_type by ref, electron_click
// by ref, electron_get_value by ref, electron_status — then stops its app.
// Every call must answer ok:true (a benchmark that measured failures would
// lie). Reports the server's VmRSS after every 100 calls of all sessions
// together, p50/p99 latency per tool and overall, and checks at the end that
// nothing is left: the server's children, the apps' process groups.
//
// Bounded: loopback only; the whole run is stopped after 15 minutes; the
// server is a process this script spawned, stopped by its pid.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import { spawn } from 'node:child_process';
import fs from 'node:fs';

import { median, pageArgs, preparePages, refOf, require, rssMB } from './page-common.mjs';

const args = process.argv.slice(2);
const options = Object.fromEntries(args.filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=')));
const [bin, electron, pagesApp, sessionsArg, callsArg] = args.filter((a) => !a.startsWith('--'));
const SESSIONS = Number(sessionsArg ?? 16);
const CALLS = Number(callsArg ?? 1000);
const DEADLINE_MS = 15 * 60 * 1000;
if (!bin || !electron || !pagesApp || !(SESSIONS >= 1) || !(CALLS >= 5)) {
  console.error('usage: node bench/http-load.mjs STAGEWRIGHT ELECTRON PAGES_APP [SESSIONS] [CALLS] [--json=FILE]');
  process.exit(2);
}

const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null;
};
const round = (x) => (x === null ? null : +x.toFixed(3));

function startServer () {
  const child = spawn(bin, ['--http', '127.0.0.1:0', '--http-rate-limit', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL on stderr: ${stderr}`)), 20000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.length > 1 << 20) stderr = stderr.slice(-(1 << 19));
      const match = /serving MCP over HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1], stderr: () => stderr });
      }
    });
    child.on('exit', (code, signal) => reject(new Error(`the server exited (${code ?? signal}): ${stderr}`)));
  });
}

/** Every process's pid, state, parent and process group, from /proc. */
function processes () {
  const out = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ pid: Number(name), state, ppid: Number(ppid), pgrp: Number(pgrp) });
    } catch { /* gone */ }
  }
  return out;
}

// Zombies waiting for their reaper are not left behind: they run nothing.
const live = (p) => p.state !== 'Z' && p.state !== 'X';

/** The live pids whose parent is `pid`. */
const childrenOf = (pid) => processes().filter((p) => p.ppid === pid && live(p)).map((p) => p.pid);

/** Whether a live process is in group `pgid`. */
const groupAlive = (pgid) => processes().some((p) => p.pgrp === pgid && live(p));

async function session (url, index, pagesDir, record) {
  const client = new Client({ name: `stagewright-http-load-${index}`, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const call = async (name, args = {}) => {
    const started = performance.now();
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 120000 });
    const ms = performance.now() - started;
    const envelope = result.structuredContent ?? JSON.parse(result.content?.[0]?.text ?? 'null');
    if (!envelope || envelope.ok !== true)
      throw new Error(`session ${index}: ${name} did not succeed: ${JSON.stringify(envelope ?? result).slice(0, 500)}`);
    return { envelope, ms };
  };
  const launched = await call('electron_launch', { executablePath: electron, main: pagesApp, allowMultiple: true,
                                                   args: pageArgs('signup', pagesDir) });
  const sessionId = launched.envelope.session_id;
  const pid = launched.envelope.pid;
  const text = (await call('electron_snapshot', { sessionId, format: 'text' })).envelope.snapshot_text;
  const name = refOf(text, 'textbox', 'Full name');
  const terms = refOf(text, 'checkbox', 'I accept the terms');
  const cycle = [
    () => ['electron_snapshot', { sessionId, format: 'text', interactiveOnly: true }],
    (i) => ['electron_type', { sessionId, ref: name, text: `load ${index}.${i}` }],
    () => ['electron_click', { sessionId, ref: terms }],
    () => ['electron_get_value', { sessionId, ref: name }],
    () => ['electron_status', {}],
  ];
  for (let i = 0; i < CALLS; i++) {
    const [tool, toolArgs] = cycle[i % cycle.length](i);
    const { ms } = await call(tool, toolArgs);
    record(tool, ms);
  }
  await call('electron_stop', { sessionId });
  await client.close();
  return pid;
}

const pages = preparePages(pagesApp);
const server = await startServer();
const watchdog = setTimeout(() => {
  console.error(`http-load: over ${DEADLINE_MS / 60000} minutes; stopping the server (pid ${server.child.pid})`);
  server.child.kill('SIGTERM');
  process.exit(1);
}, DEADLINE_MS);

const latencies = new Map();
const rss = [];
let done = 0;
const record = (tool, ms) => {
  if (!latencies.has(tool)) latencies.set(tool, []);
  latencies.get(tool).push(ms);
  if (++done % 100 === 0) rss.push({ calls: done, rss_mb: rssMB(server.child.pid) });
};

const started = performance.now();
let pids = [];
let failure = null;
try {
  rss.push({ calls: 0, rss_mb: rssMB(server.child.pid) });
  pids = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => session(server.url, i, pages.dir, record)));
} catch (error) {
  failure = error;
}
const wallS = (performance.now() - started) / 1000;
const leftChildren = childrenOf(server.child.pid);
const leftGroups = pids.filter((pid) => pid > 0 && groupAlive(pid));
server.child.kill('SIGTERM');
await new Promise((resolve) => server.child.once('exit', resolve));
clearTimeout(watchdog);
pages.remove();
if (failure) {
  console.error(`http-load: ${failure.message}\nserver stderr (tail):\n${server.stderr().slice(-2000)}`);
  process.exit(1);
}

const all = [...latencies.values()].flat();
const rows = [...latencies.entries()].map(([tool, values]) =>
  `| ${tool} | ${values.length} | ${round(median(values))} | ${round(quantile(values, 0.99))} |`);
console.log(`${SESSIONS} MCP sessions over Streamable HTTP, one stagewright --http, each driving its own app through ` +
            `${CALLS} calls; ${done} calls in ${wallS.toFixed(1)} s (${Math.round(done / wallS)} calls/s)`);
console.log('| tool | calls | p50 ms | p99 ms |\n|---|---|---|---|');
console.log(rows.join('\n'));
console.log(`| all | ${all.length} | ${round(median(all))} | ${round(quantile(all, 0.99))} |`);
const every = Math.max(1, Math.floor(rss.length / 10));
console.log(`server VmRSS (MB) by calls done: ${rss.filter((_, i) => i % every === 0 || i === rss.length - 1)
  .map((r) => `${r.calls}: ${r.rss_mb}`).join(', ')}`);
console.log(`left behind: ${leftChildren.length} server children, ${leftGroups.length} app process groups`);
const summary = {
  sessions: SESSIONS, calls_per_session: CALLS, calls: done, wall_s: round(wallS),
  p50_ms: round(median(all)), p99_ms: round(quantile(all, 0.99)),
  per_tool: Object.fromEntries([...latencies.entries()].map(([t, v]) => [t, { p50: round(median(v)), p99: round(quantile(v, 0.99)) }])),
  rss, left_children: leftChildren.length, left_groups: leftGroups.length,
};
console.log(JSON.stringify(summary));
if (options.json) fs.writeFileSync(options.json, JSON.stringify(summary) + '\n');
if (leftChildren.length || leftGroups.length) process.exit(1);
