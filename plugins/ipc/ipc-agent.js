// ipc-agent.js: the ipc plugin's main-process side (SPDX-License-Identifier: LGPL-2.1-or-later)
//
// Evaluated over the main process's inspector as `(SOURCE)(electron, op, arg)`, never by
// an agent's code. The first call makes one agent, kept under a registry symbol for the
// life of the process; each call runs one op and answers plain JSON: a value, or
// {error: {code, message}} with a bare ipc code.
//
// Capture wraps the handlers Electron keeps in each scope's private _invokeHandlers map
// (lib/browser/ipc-main-impl.ts: per channel, a wrapper that answers through the event's
// _reply/_throw), in ipcMain and in every webContents.ipc (Electron >= 17, which take
// precedence), those registered already and, through the map's own `set`, those
// registered later. Everything it reads from the app is hostile: values are copied
// with bounds on depth, size and count, without running getters, cycles cut.
(function (electron, op, arg) {
  'use strict';

  const KEY = Symbol.for('stagewright.ipc.agent');
  let agent = globalThis[KEY];
  if (!agent) {
    agent = makeAgent(electron);
    Object.defineProperty(globalThis, KEY, { value: agent, configurable: true });
  }
  return agent(op, arg ?? {});

  function makeAgent({ app, ipcMain, webContents, BrowserWindow }) {
    const MAX_DEPTH = 8;
    const MAX_ITEMS = 100;
    const MAX_STRING = 2000;
    const MAX_NODES = 1000;
    const MAX_ENTRY_CHARS = 65536;
    const INVOKE_TIMEOUT_MS = 10000;
    const FROM_TOOL = Symbol('stagewright.ipc.invoke');

    const mapGet = Map.prototype.get;
    const mapSet = Map.prototype.set;
    const mapHas = Map.prototype.has;
    const mapEntries = Map.prototype.entries;
    const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

    const state = {
      capturing: false,
      channels: [],
      allow: [],
      redact: [],
      includeOn: false,
      includeSend: false,
      maxEntries: 1000,
      entries: [],
      dropped: 0,
      seq: 0,
      stubs: new Map(),
      scopes: new Map(),        // scope → { label, hadSet, set, hadEmit, emit }
      sends: new Map(),         // webContents → { had, send }
      originals: new WeakMap(), // our wrapper → the stored handler it wraps
      installed: false,
      onCreated: null,
    };

    // --- bounded copies ------------------------------------------------------

    function redacted(key) {
      const lower = String(key).toLowerCase();
      return state.redact.some((name) => name === lower);
    }

    function clone(value) {
      let budget = MAX_NODES;
      const ancestors = new Set();

      function walk(v, depth) {
        if (--budget < 0)
          return '[Truncated]';
        switch (typeof v) {
          case 'string':
            return v.length > MAX_STRING ? `${v.slice(0, MAX_STRING)}…[${v.length - MAX_STRING} more]` : v;
          case 'number':
            return Number.isFinite(v) ? v : String(v);
          case 'boolean':
            return v;
          case 'undefined':
            return null;
          case 'bigint':
            return `${v}n`;
          case 'symbol':
            return '[Symbol]';
          case 'function':
            return '[Function]';
          default:
            break;
        }
        if (v === null)
          return null;
        if (depth >= MAX_DEPTH)
          return '[Object]';
        if (ancestors.has(v))
          return '[Circular]';
        ancestors.add(v);
        try {
          const tag = Object.prototype.toString.call(v);
          if (tag === '[object Date]') {
            const time = Date.prototype.getTime.call(v);
            return Number.isFinite(time) ? new Date(time).toISOString() : 'Invalid Date';
          }
          if (tag === '[object Error]')
            return { error: errorText(v) };
          if (ArrayBuffer.isView(v) || tag === '[object ArrayBuffer]')
            return { type: tag.slice(8, -1), byteLength: Number(v.byteLength) || 0 };
          if (tag === '[object Map]' || tag === '[object Set]') {
            const out = { type: tag.slice(8, -1), entries: [] };
            const iterator = tag === '[object Map]' ? mapEntries.call(v) : Set.prototype.values.call(v);
            for (const item of iterator) {
              if (out.entries.length >= MAX_ITEMS) {
                out.truncated = true;
                break;
              }
              out.entries.push(walk(item, depth + 1));
            }
            return out;
          }
          if (tag === '[object Promise]')
            return '[Promise]';
          if (Array.isArray(v)) {
            const length = Math.min(Number(v.length) || 0, 1e9);
            const out = [];
            for (let i = 0; i < Math.min(length, MAX_ITEMS); i++)
              out.push(field(v, i, depth));
            if (length > MAX_ITEMS)
              out.push(`[${length - MAX_ITEMS} more items]`);
            return out;
          }
          const out = {};
          const keys = Object.keys(v);
          for (let i = 0; i < Math.min(keys.length, MAX_ITEMS); i++)
            out[keys[i]] = redacted(keys[i]) ? '[REDACTED]' : field(v, keys[i], depth);
          if (keys.length > MAX_ITEMS)
            out['[truncated]'] = `${keys.length - MAX_ITEMS} more keys`;
          return out;
        } catch {
          return '[Unreadable]';
        } finally {
          ancestors.delete(v);
        }
      }

      // Own data properties only: a getter is the app's code, so it is not run.
      function field(object, key, depth) {
        const descriptor = Object.getOwnPropertyDescriptor(object, key);
        if (!descriptor)
          return null;
        if (!('value' in descriptor))
          return '[Getter]';
        return walk(descriptor.value, depth + 1);
      }

      return walk(value, 0);
    }

    function errorText(error) {
      try {
        if (error !== null && typeof error === 'object') {
          const name = Object.getOwnPropertyDescriptor(error, 'name')?.value ??
            Object.getOwnPropertyDescriptor(Object.getPrototypeOf(error) ?? {}, 'name')?.value ?? 'Error';
          const message = Object.getOwnPropertyDescriptor(error, 'message')?.value ?? '';
          return `${String(name).slice(0, 200)}: ${String(message).slice(0, MAX_STRING)}`;
        }
        return String(error).slice(0, MAX_STRING);
      } catch {
        return '[Unreadable error]';
      }
    }

    // --- channels ------------------------------------------------------------

    function globToRegExp(glob) {
      const body = String(glob).replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
      return new RegExp(`^${body}$`, 's');
    }

    function matches(globs, channel) {
      return typeof channel === 'string' && globs.some((glob) => globToRegExp(glob).test(channel));
    }

    function capturing(channel) {
      return state.capturing && matches(state.allow, channel) && matches(state.channels, channel);
    }

    function active(channel) {
      return capturing(channel) || (typeof channel === 'string' && mapHas.call(state.stubs, channel));
    }

    function windowOf(contents) {
      try {
        if (!contents || typeof contents !== 'object')
          return null;
        const win = BrowserWindow?.fromWebContents?.(contents);
        return { webContentsId: Number(contents.id) || null, windowId: win ? Number(win.id) || null : null };
      } catch {
        return null;
      }
    }

    function record(entry) {
      entry.seq = ++state.seq;
      if (JSON.stringify(entry).length > MAX_ENTRY_CHARS) {
        for (const key of ['args', 'result'])
          if (key in entry)
            entry[key] = '[Truncated: the entry was over 64 KiB]';
        entry.truncated = true;
      }
      state.entries.push(entry);
      while (state.entries.length > state.maxEntries) {
        state.entries.shift();
        state.dropped++;
      }
    }

    // --- wrapping ------------------------------------------------------------

    function wrapHandler(channel, stored, label) {
      if (typeof stored !== 'function' || state.originals.has(stored))
        return stored;
      const wrapped = function (event, ...args) {
        if (!active(channel))
          return stored.call(this, event, ...args);
        const fromTool = !!(event && event[FROM_TOOL]);
        const entry = {
          channel,
          kind: 'invoke',
          direction: 'renderer-to-main',
          scope: label,
          source: fromTool ? 'ipc_invoke' : 'renderer',
          window: windowOf(event?.sender),
          args: clone(args),
          startedAt: new Date().toISOString(),
        };
        const started = now();
        let settled = false;
        const finish = (fields) => {
          if (settled)
            return;
          settled = true;
          Object.assign(entry, fields, { durationMs: Math.round((now() - started) * 1000) / 1000 });
          if (capturing(channel))
            record(entry);
        };

        const stub = mapGet.call(state.stubs, channel);
        if (stub) {
          if (stub.once)
            state.stubs.delete(channel);
          stub.hits++;
          entry.stubbed = true;
          if (stub.throws !== undefined) {
            finish({ error: `Error: ${stub.throws}` });
            if (typeof event?._throw === 'function')
              return event._throw(new Error(stub.throws));
            return Promise.reject(new Error(stub.throws));
          }
          finish({ result: clone(stub.returns) });
          if (typeof event?._reply === 'function')
            return event._reply(stub.returns);
          return Promise.resolve(stub.returns);
        }

        if (event && typeof event._reply === 'function' && typeof event._throw === 'function') {
          const reply = event._reply;
          const fail = event._throw;
          try {
            event._reply = function (value) {
              finish({ result: clone(value) });
              return reply.apply(this, arguments);
            };
            event._throw = function (error) {
              finish({ error: errorText(error) });
              return fail.apply(this, arguments);
            };
          } catch {
            // A frozen event: the answer is still seen below when the handler returns it.
          }
        }
        let returned;
        try {
          returned = stored.call(this, event, ...args);
        } catch (error) {
          finish({ error: errorText(error) });
          throw error;
        }
        // An Electron whose stored handler answers by its return value.
        if (returned && typeof returned.then === 'function')
          returned.then((value) => {
            if (value !== undefined)
              finish({ result: clone(value) });
          }, (error) => finish({ error: errorText(error) }));
        return returned;
      };
      state.originals.set(wrapped, stored);
      return wrapped;
    }

    function instrumentScope(scope, label) {
      if (!scope || typeof scope !== 'object' || state.scopes.has(scope))
        return;
      const map = scope._invokeHandlers;
      if (!(map instanceof Map))
        return;
      const saved = {
        label,
        map,
        hadSet: Object.prototype.hasOwnProperty.call(map, 'set'),
        set: map.set,
        hadEmit: Object.prototype.hasOwnProperty.call(scope, 'emit'),
        emit: scope.emit,
      };
      state.scopes.set(scope, saved);
      Object.defineProperty(map, 'set', {
        configurable: true,
        writable: true,
        value: function (channel, handler) {
          return mapSet.call(this, channel, wrapHandler(channel, handler, label));
        },
      });
      for (const [channel, handler] of [...mapEntries.call(map)])
        mapSet.call(map, channel, wrapHandler(channel, handler, label));

      // ipcMain.on / webContents.ipc.on: Electron emits the channel on each scope.
      if (typeof saved.emit === 'function') {
        const emit = saved.emit;
        Object.defineProperty(scope, 'emit', {
          configurable: true,
          writable: true,
          value: function (channel, event, ...args) {
            try {
              if (state.includeOn && capturing(channel) && event && typeof event === 'object' &&
                  (label === 'ipcMain' || this.listenerCount(channel) > 0))
                record({
                  channel,
                  kind: 'on',
                  direction: 'renderer-to-main',
                  scope: label,
                  source: 'renderer',
                  window: windowOf(event.sender),
                  args: clone(args),
                  listeners: this.listenerCount(channel),
                  startedAt: new Date().toISOString(),
                  durationMs: 0,
                });
            } catch {
              // Recording never stands in the app's way.
            }
            return emit.call(this, channel, event, ...args);
          },
        });
      }
    }

    function restoreScope(scope, saved) {
      for (const [channel, handler] of [...mapEntries.call(saved.map)])
        if (state.originals.has(handler))
          mapSet.call(saved.map, channel, state.originals.get(handler));
      if (saved.hadSet)
        saved.map.set = saved.set;
      else
        delete saved.map.set;
      if (saved.hadEmit)
        scope.emit = saved.emit;
      else
        delete scope.emit;
    }

    function instrumentSend(contents) {
      if (!contents || typeof contents.send !== 'function' || state.sends.has(contents))
        return;
      const send = contents.send;
      state.sends.set(contents, { had: Object.prototype.hasOwnProperty.call(contents, 'send'), send });
      Object.defineProperty(contents, 'send', {
        configurable: true,
        writable: true,
        value: function (channel, ...args) {
          try {
            if (state.includeSend && capturing(channel))
              record({
                channel,
                kind: 'send',
                direction: 'main-to-renderer',
                scope: 'webContents.send',
                source: 'main',
                window: windowOf(this),
                args: clone(args),
                startedAt: new Date().toISOString(),
                durationMs: 0,
              });
          } catch {
            // Recording never stands in the app's way.
          }
          return send.apply(this, arguments);
        },
      });
    }

    function instrumentContents(contents) {
      try {
        instrumentScope(contents.ipc, 'webContents.ipc');
        for (const frame of contents.mainFrame?.framesInSubtree ?? [])
          instrumentScope(frame?.ipc, 'WebFrameMain.ipc');
        instrumentSend(contents);
      } catch {
        // A destroyed webContents: nothing to wrap.
      }
    }

    function install() {
      if (state.installed)
        return;
      state.installed = true;
      instrumentScope(ipcMain, 'ipcMain');
      for (const contents of webContents?.getAllWebContents?.() ?? [])
        instrumentContents(contents);
      state.onCreated = (_event, contents) => instrumentContents(contents);
      app?.on?.('web-contents-created', state.onCreated);
    }

    function uninstallIfIdle() {
      if (!state.installed || state.capturing || state.stubs.size > 0)
        return;
      for (const [scope, saved] of state.scopes)
        restoreScope(scope, saved);
      state.scopes.clear();
      for (const [contents, saved] of state.sends) {
        try {
          if (saved.had)
            contents.send = saved.send;
          else
            delete contents.send;
        } catch {
          // Destroyed meanwhile.
        }
      }
      state.sends.clear();
      app?.removeListener?.('web-contents-created', state.onCreated);
      state.onCreated = null;
      state.installed = false;
    }

    function handlersOf(globs) {
      const out = [];
      for (const [scope, saved] of state.scopes) {
        for (const [channel] of mapEntries.call(saved.map))
          if (matches(globs, channel))
            out.push({ channel, scope: saved.label, webContentsId: saved.label === 'ipcMain' ? null : windowOfScope(scope) });
      }
      return out;
    }

    function windowOfScope(scope) {
      for (const contents of webContents?.getAllWebContents?.() ?? [])
        if (contents.ipc === scope)
          return contents.id;
      return null;
    }

    function lookupHandler(channel, webContentsId) {
      const all = webContents?.getAllWebContents?.() ?? [];
      const contents = webContentsId != null
        ? all.find((c) => c.id === webContentsId)
        : (BrowserWindow?.getFocusedWindow?.() ?? BrowserWindow?.getAllWindows?.()[0])?.webContents ?? all[0];
      // Electron's order: the window's own handlers first, then ipcMain's.
      for (const scope of [contents?.ipc, ipcMain]) {
        const map = scope?._invokeHandlers;
        if (map instanceof Map && mapHas.call(map, channel))
          return { handler: mapGet.call(map, channel), contents };
      }
      return { handler: null, contents };
    }

    const CAPABILITIES = {
      scopes: ['ipcMain', 'webContents.ipc', 'WebFrameMain.ipc'],
      notes: [
        'handlers registered before and after capture starts are both wrapped',
        'WebFrameMain.ipc: only frames that exist when a window is instrumented',
        'ipcMain.on and webContents.ipc.on messages with includeOn; webContents.send with includeSend',
        'not captured: webContents.sendToFrame, MessagePort traffic, ipcRenderer.sendSync answers',
      ],
    };

    function configure(arg) {
      state.allow = Array.isArray(arg.allow) ? arg.allow.map(String) : [];
      state.redact = Array.isArray(arg.redact) ? arg.redact.map((key) => String(key).toLowerCase()) : [];
    }

    const ops = {
      start(arg) {
        if (state.capturing)
          return { error: { code: 'ALREADY_CAPTURING', message: 'A capture is running; stop it with ipc_capture_stop first' } };
        configure(arg);
        state.channels = arg.channels.map(String);
        state.includeOn = !!arg.includeOn;
        state.includeSend = !!arg.includeSend;
        state.maxEntries = Math.max(1, Math.min(Number(arg.maxEntries) || 1000, 100000));
        state.entries = [];
        state.dropped = 0;
        state.capturing = true;
        install();
        return {
          capturing: true,
          channels: state.channels,
          includeOn: state.includeOn,
          includeSend: state.includeSend,
          handlers: handlersOf(state.channels),
          capabilities: CAPABILITIES,
        };
      },

      captured(arg) {
        if (!state.capturing)
          return { error: { code: 'NOT_CAPTURING', message: 'Nothing is being captured; start with ipc_capture_start' } };
        configure(arg);
        let entries = state.entries;
        if (typeof arg.channel === 'string')
          entries = entries.filter((entry) => matches([arg.channel], entry.channel));
        const limit = Math.max(1, Math.min(Number(arg.limit) || 100, 1000));
        return {
          capturing: true,
          total: entries.length,
          dropped: state.dropped,
          entries: entries.slice(-limit),
        };
      },

      stop(arg) {
        if (!state.capturing)
          return { error: { code: 'NOT_CAPTURING', message: 'Nothing is being captured' } };
        configure(arg);
        state.capturing = false;
        const entries = state.entries;
        state.entries = [];
        uninstallIfIdle();
        return { capturing: false, total: entries.length, dropped: state.dropped, entries: entries.slice(-100) };
      },

      invoke(arg) {
        configure(arg);
        const channel = String(arg.channel);
        const args = Array.isArray(arg.args) ? arg.args : [];
        const { handler, contents } = lookupHandler(channel, arg.webContentsId ?? null);
        if (typeof handler !== 'function')
          return { error: { code: 'INVOKE_FAILED', message: `No handler registered for '${channel}'` } };
        const started = now();
        return new Promise((resolve) => {
          let done = false;
          const settle = (answer) => {
            if (done)
              return;
            done = true;
            clearTimeout(timer);
            answer.durationMs = Math.round((now() - started) * 1000) / 1000;
            resolve(answer);
          };
          const timer = setTimeout(() => settle({
            error: { code: 'INVOKE_FAILED', message: `The handler of '${channel}' did not answer in ${INVOKE_TIMEOUT_MS} ms` },
          }), INVOKE_TIMEOUT_MS);
          const event = {
            [FROM_TOOL]: true,
            type: 'frame',
            sender: contents ?? null,
            senderFrame: null,
            frameId: 0,
            processId: 0,
            ports: [],
            defaultPrevented: false,
            preventDefault() { this.defaultPrevented = true; },
            _reply: (value) => settle({ channel, result: clone(value) }),
            _throw: (error) => settle({ error: { code: 'INVOKE_FAILED', message: `The handler of '${channel}' threw: ${errorText(error)}` } }),
          };
          try {
            const returned = handler(event, ...args);
            if (returned && typeof returned.then === 'function')
              returned.then((value) => {
                if (value !== undefined)
                  event._reply(value);
              }, (error) => event._throw(error));
          } catch (error) {
            event._throw(error);
          }
        });
      },

      stub(arg) {
        configure(arg);
        const stub = { once: !!arg.once, hits: 0 };
        if ('throws' in arg)
          stub.throws = String(arg.throws);
        else
          stub.returns = arg.returns ?? null;
        state.stubs.set(String(arg.channel), stub);
        install();
        return {
          channel: String(arg.channel),
          stubbed: true,
          once: stub.once,
          handlers: handlersOf(['*']).filter((found) => found.channel === String(arg.channel)).length,
        };
      },

      unstub(arg) {
        configure(arg);
        const existed = state.stubs.delete(String(arg.channel));
        uninstallIfIdle();
        return { channel: String(arg.channel), removed: existed };
      },
    };

    return (op, arg) => {
      if (!Object.prototype.hasOwnProperty.call(ops, op))
        return { error: { code: 'INVOKE_FAILED', message: `Unknown op ${op}` } };
      return ops[op](arg);
    };
  }
})
