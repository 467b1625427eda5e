// harness.mjs: shared helpers for the end-to-end tests
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// The tests drive the real `stagewright` binary with clients we did not write
// (the official TypeScript SDK and the MCP Inspector CLI, pinned in
// tests/package.json). This module finds the binary and the clients, spawns
// raw protocol sessions, and records every byte the server writes to stdout
// so that "nothing but protocol on stdout" is checked on real sessions.
//
// Environment (set by automake, defaulted for runs by hand):
//   STAGEWRIGHT_BIN  absolute path of the built binary
//   STW_TOP_SRCDIR   the source tree (tests/node_modules lives under it)

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

export const TOP_SRCDIR = process.env.STW_TOP_SRCDIR
  ? path.resolve(process.env.STW_TOP_SRCDIR)
  : path.resolve(here, '..', '..', '..');
export const BIN = process.env.STAGEWRIGHT_BIN
  ? path.resolve(process.env.STAGEWRIGHT_BIN)
  : path.join(TOP_SRCDIR, 'stagewright', 'stagewright');
// The npm test clients: configure --with-node-modules=DIR (an out-of-tree
// build from a tarball) or the source tree's tests/node_modules.
export const NODE_MODULES = process.env.STW_NODE_MODULES || path.join(TOP_SRCDIR, 'tests', 'node_modules');
// The build tree: the binary is <builddir>/stagewright/stagewright.
export const BUILDDIR = path.dirname(path.dirname(BIN));
export const GI_PYTHON = process.env.GI_PYTHON ?? '/usr/bin/python3';

/** What a GI program needs to find the uninstalled library and typelib. */
export function giEnv () {
  return {
    GI_TYPELIB_PATH: process.env.GI_TYPELIB_PATH ?? BUILDDIR,
    LD_LIBRARY_PATH: process.env.LD_LIBRARY_PATH ?? path.join(BUILDDIR, '.libs'),
  };
}
export const INSPECTOR = path.join(NODE_MODULES, '.bin', 'mcp-inspector');

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// --- the pinned clients ------------------------------------------------------

// The clients come from `npm ci` in tests/; a tree without them (a tarball
// from `make dist`, say) skips the end-to-end tests instead of failing.
export async function loadSdk () {
  try {
    const [client, stdio, types] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/stdio.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    return {
      Client: client.Client,
      StdioClientTransport: stdio.StdioClientTransport,
      getDefaultEnvironment: stdio.getDefaultEnvironment,
      McpError: types.McpError,
      ErrorCode: types.ErrorCode,
      EmptyResultSchema: types.EmptyResultSchema,
    };
  } catch (error) {
    return { skip: `@modelcontextprotocol/sdk is not installed (run npm ci in tests/): ${error.message}` };
  }
}

export function inspectorSkipReason () {
  return fs.existsSync(INSPECTOR)
    ? null
    : `${INSPECTOR} is missing (run npm ci in tests/)`;
}

/** A missing binary is a broken build, not a reason to skip: fail loudly. */
export function assertBinaryBuilt (assert) {
  assert.ok(fs.existsSync(BIN), `${BIN} is not built (set STAGEWRIGHT_BIN or run make)`);
}

// --- temporary files ---------------------------------------------------------

export function makeTempDir (prefix = 'stw-e2e-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * A directory holding a fake `node` for electron_doctor, which runs
 * `node --version` from PATH. The fake is a real Node script (one process,
 * so killing it kills everything) that writes its pid to `pidfile`, waits
 * `delayMs`, and prints a version naming what its stdin is
 * (`v0.0.0-stdin=/dev/null` when the server did not hand it the protocol pipe).
 *
 * This turns electron_doctor into a deterministically slow core tool, which
 * is what cancellation and the operation backstop need.
 */
export function makeSlowNode (delayMs) {
  const dir = makeTempDir('stw-fake-node-');
  const pidfile = path.join(dir, 'pid');
  const script = `#!${process.execPath}
const fs = require('fs');
fs.writeFileSync(${JSON.stringify(pidfile)} + '.tmp', String(process.pid));
fs.renameSync(${JSON.stringify(pidfile)} + '.tmp', ${JSON.stringify(pidfile)});
setTimeout(() => {
  let stdin = '?';
  try { stdin = fs.readlinkSync('/proc/self/fd/0'); } catch (e) { stdin = 'closed'; }
  console.log('v0.0.0-stdin=' + stdin);
}, ${Number(delayMs)});
`;
  fs.writeFileSync(path.join(dir, 'node'), script, { mode: 0o755 });
  return {
    dir,
    pidfile,
    pathEnv: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    readPid () {
      try {
        return Number(fs.readFileSync(pidfile, 'utf8'));
      } catch {
        return null;
      }
    },
    cleanup () {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function processAlive (pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie still answers kill(0); it is dead for our purposes.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export async function waitUntil (predicate, timeoutMs, stepMs = 10) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() >= deadline) return value;
    await sleep(stepMs);
  }
}

// --- a raw protocol session --------------------------------------------------

/**
 * The binary on a pair of pipes, spoken to line by line. Every stdout line
 * is kept (`lines`), parsed (`frames`) or recorded as not JSON-RPC
 * (`badLines`); stderr is kept as text.
 */
export class RawSession {
  constructor (args = [], { env, cwd } = {}) {
    this.args = args;
    this.lines = [];
    this.frames = [];
    this.badLines = [];
    this.stderr = '';
    this.partial = '';
    this._waiters = [];
    this._nextId = 1000;
    this.startedAt = performance.now();
    this.child = spawn(BIN, args, {
      env: env ?? process.env,
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdin.on('error', () => {});  // EPIPE after the server exits
    this.child.stdout.setEncoding('utf8');
    this.child.stderr.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => this._onStdout(chunk));
    this.child.stderr.on('data', (chunk) => { this.stderr += chunk; });
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        resolve({ code, signal, ms: performance.now() - this.startedAt });
      });
    });
    this.exitInfo = null;
    this.exited.then((info) => { this.exitInfo = info; this._wake(); });
  }

  _onStdout (chunk) {
    const text = this.partial + chunk;
    const parts = text.split('\n');
    this.partial = parts.pop();
    for (const line of parts) {
      this.lines.push(line);
      let frame = null;
      try {
        frame = JSON.parse(line);
      } catch {
        this.badLines.push(line);
        continue;
      }
      if (!isJsonRpcFrame(frame)) {
        this.badLines.push(line);
        continue;
      }
      this.frames.push(frame);
    }
    this._wake();
  }

  _wake () {
    for (const waiter of [...this._waiters]) waiter();
  }

  write (text) {
    this.child.stdin.write(text);
  }

  send (message) {
    this.write(JSON.stringify(message) + '\n');
  }

  notify (method, params) {
    this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Sends a request and returns its id (does not wait). */
  sendRequest (method, params, id = this._nextId++) {
    const message = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    this.send(message);
    return id;
  }

  responsesFor (id) {
    return this.frames.filter((f) => !('method' in f) && f.id === id);
  }

  /**
   * Resolves with the first frame (from the start of the session) matching
   * `predicate`; rejects after `timeoutMs` or when the server exits first.
   */
  waitFor (predicate, timeoutMs = 5000, what = 'a frame') {
    return new Promise((resolve, reject) => {
      let timer = null;
      const check = () => {
        const frame = this.frames.find(predicate);
        if (frame !== undefined) {
          done();
          resolve(frame);
        } else if (this.exitInfo) {
          done();
          reject(new Error(`server exited (${JSON.stringify(this.exitInfo)}) before ${what}; stderr:\n${this.stderr}`));
        }
      };
      const done = () => {
        clearTimeout(timer);
        this._waiters = this._waiters.filter((w) => w !== check);
      };
      timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stderr:\n${this.stderr}`));
      }, timeoutMs);
      this._waiters.push(check);
      check();
    });
  }

  waitForResponse (id, timeoutMs = 5000) {
    return this.waitFor((f) => !('method' in f) && f.id === id, timeoutMs, `the response to ${JSON.stringify(id)}`);
  }

  async request (method, params, timeoutMs = 5000) {
    return this.waitForResponse(this.sendRequest(method, params), timeoutMs);
  }

  /** initialize + notifications/initialized, as a client would. */
  async initialize (protocolVersion = '2025-11-25') {
    const response = await this.request('initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'stagewright-e2e-raw', version: '0' },
    });
    this.notify('notifications/initialized');
    return response;
  }

  closeStdin () {
    this.child.stdin.end();
  }

  kill (signal = 'SIGTERM') {
    if (this.exitInfo === null) this.child.kill(signal);
  }

  /** Ends the session politely, then firmly; returns the exit info. */
  async close (graceMs = 3000) {
    if (this.exitInfo) return this.exitInfo;
    this.closeStdin();
    const timer = setTimeout(() => this.kill('SIGKILL'), graceMs);
    const info = await this.exited;
    clearTimeout(timer);
    return info;
  }
}

export function isJsonRpcFrame (frame) {
  if (frame === null || typeof frame !== 'object' || Array.isArray(frame)) return false;
  if (frame.jsonrpc !== '2.0') return false;
  const isRequestOrNotification = typeof frame.method === 'string';
  const isResponse = 'id' in frame && (('result' in frame) !== ('error' in frame));
  return isRequestOrNotification !== isResponse;
}

/**
 * An SDK transport over a RawSession: the official `Client` drives the
 * session while the harness sees every byte of stdout. Implements the SDK's
 * Transport interface (start, send, close, onmessage, onclose, onerror).
 */
export class RecordingTransport {
  constructor (args = [], options = {}) {
    this.args = args;
    this.options = options;
    this.session = null;
    this.protocolVersion = null;
  }

  async start () {
    this.session = new RawSession(this.args, this.options);
    await once(this.session.child, 'spawn');
    let delivered = 0;
    this.session._waiters.push(() => {
      while (delivered < this.session.frames.length) {
        this.onmessage?.(this.session.frames[delivered++]);
      }
    });
    this.session.exited.then(() => this.onclose?.());
  }

  async send (message) {
    this.session.send(message);
  }

  setProtocolVersion (version) {
    this.protocolVersion = version;
  }

  async close () {
    if (this.session) await this.session.close();
  }
}

// --- envelopes ---------------------------------------------------------------

/**
 * The part of the server's own serialization of an envelope that
 * `_meta.estimated_tokens` counts: the text item minus its trailing `_meta`
 * member (the server removes `_meta`, serializes, counts, then appends
 * `_meta` as the last member).
 */
export function textWithoutMeta (text) {
  const match = /,"_meta":\{[^{}]*\}\}$/.exec(text);
  if (!match) throw new Error(`the envelope text does not end with a flat _meta member: ${text.slice(-200)}`);
  return text.slice(0, match.index) + '}';
}

/** ceil(code points / 4), the contract's estimate (no tokenizer). */
export function estimateTokens (text) {
  return Math.ceil([...text].length / 4);
}

export function withoutMeta (envelope) {
  const { _meta, ...rest } = envelope;
  return rest;
}

// --- running a command -------------------------------------------------------

/** Runs a program to completion; resolves with code, signal, stdout, stderr, ms. */
export function run (command, args, { env, cwd, input, timeoutMs = 30000 } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env: env ?? process.env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (c) => { stdout += c; });
    child.stderr.on('data', (c) => { stderr += c; });
    child.stdin.on('error', () => {});
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish within ${timeoutMs} ms; stderr:\n${stderr}`));
    }, timeoutMs);
    child.on('error', (error) => { clearTimeout(timer); reject(error); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: performance.now() - started });
    });
    child.stdin.end(input ?? '');
  });
}

/** GLib prints these for programmer errors; none may appear on stderr. */
export function assertNoGLibCriticals (assert, stderr, context = 'stderr') {
  assert.doesNotMatch(stderr, /-CRITICAL \*\*|-WARNING \*\*|GLib-GObject-|ERROR:.*assertion/,
                      `${context} has a GLib critical or warning:\n${stderr}`);
}
