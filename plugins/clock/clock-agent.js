// clock-agent.js: the clock plugin's fake clock, for a page's main world
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Written for Stagewright (no code taken from Playwright or
// @sinonjs/fake-timers). The plugin calls this function expression with a
// per-session secret and the clock's state, as a script added with
// Page.addScriptToEvaluateOnNewDocument (so it runs before the page's first
// script) and, on install, in the documents that already run.
//
// It replaces the page's Date, setTimeout/setInterval (and their clears),
// requestAnimationFrame/cancelAnimationFrame and performance.now with fakes
// driven by one controller. The controller is a closure: nothing is stored
// on a global. It is reached only through a window event whose name holds
// the secret, dispatched by the plugin from its isolated world; the answer
// goes back as another such event. Both carry JSON strings only (a string
// crosses worlds, an object does not). Everything the controller uses is
// captured before the page's scripts run, and its own records have no
// prototype, so a page patching built-ins later cannot reach it.
//
// In the Electron main process (mode 'main', only when the server allows
// main-process eval) there is no page and no isolated world: the
// controller's entry is a non-enumerable property of `process` under
// Symbol.for('stagewright.clock'), which the app's pages cannot reach. It
// fakes Date and performance.now there, and the timers only when asked
// (snapshot.mainTimers): Electron's own main-process code runs on them.
(function (secret, snapshot, mode) {
  'use strict';
  const g = globalThis;
  const main = mode === 'main';
  const mainKey = Symbol.for('stagewright.clock');
  if (main) {
    if (typeof g.process !== 'object' || g.process === null)
      return null;
    if (g.process[mainKey])
      return g.process[mainKey];
  } else if (typeof g.window !== 'object' || g.window !== g) {
    return null;
  }

  const NativeDate = g.Date;
  const dateNow = NativeDate.now;
  const perf = g.performance;
  const perfNowFn = perf.now;
  const nativeSetTimeout = g.setTimeout;
  const nativeClearTimeout = g.clearTimeout;
  const nativeCancelFrame = g.cancelAnimationFrame;
  const apply = Reflect.apply;
  const construct = Reflect.construct;
  const defineProperty = Object.defineProperty;
  const create = Object.create;
  const floor = Math.floor;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const NativeError = Error;
  const NativePromise = Promise;
  const nativeSetImmediate = g.setImmediate;
  const fakeTimers = !main || (snapshot !== null && typeof snapshot === 'object' && snapshot.mainTimers === true);
  const page = main ? null : {
    CustomEvent: g.CustomEvent,
    addListener: EventTarget.prototype.addEventListener,
    removeListener: EventTarget.prototype.removeEventListener,
    dispatch: EventTarget.prototype.dispatchEvent,
    detailOf: Object.getOwnPropertyDescriptor(g.CustomEvent.prototype, 'detail').get,
    channel: new g.MessageChannel(),
    post: g.MessagePort.prototype.postMessage,
    requestName: 'stw-clock-' + secret,
    replyName: 'stw-clock-r-' + secret,
  };

  const realNow = () => apply(dateNow, NativeDate, []);
  const perfNow = () => apply(perfNowFn, perf, []);

  // An earlier copy of this script owns the document (the live install
  // and the new-document script can both reach one document): ask it.
  if (page !== null) {
    let owned = false;
    const probe = () => { owned = true; };
    apply(page.addListener, g, [page.replyName, probe]);
    const detail = stringify({ id: 'probe', op: 'ping' });
    apply(page.dispatch, g, [new page.CustomEvent(page.requestName, { detail })]);
    apply(page.removeListener, g, [page.replyName, probe]);
    if (owned)
      return null;
  }

  // --- the clock ---------------------------------------------------------
  let installed = false;
  let paused = false;
  let busy = false;
  let fixed = null;       // a frozen Date.now(), or null
  let wallOffset = 0;     // the fake wall time is wallOffset + ticks
  let ticks = 0;          // fake monotonic ms since the install
  let anchor = null;      // perfNow() when ticks was last synced, while running
  let perfOrigin = 0;     // the real performance.now() at the install
  let nextId = 0x80000000; // above the browser's own timer ids
  let driver = null;      // the native timeout of the real-time mode
  let errors = 0;
  const timers = create(null);

  const currentTicks = () => (anchor === null ? ticks : ticks + (perfNow() - anchor));
  const wall = () => floor(wallOffset + currentTicks());
  const now = () => (fixed !== null ? fixed : wall());

  function stopDriver () {
    if (driver !== null)
      apply(nativeClearTimeout, g, [driver]);
    driver = null;
  }

  function freeze () {
    ticks = currentTicks();
    anchor = null;
    stopDriver();
  }

  function thaw () {
    if (!installed || paused || busy)
      return;
    anchor = perfNow();
    schedule();
  }

  function earliest (limit) {
    let best = null;
    for (const key in timers) {
      const t = timers[key];
      if (t.callAt > limit)
        continue;
      if (best === null || t.callAt < best.callAt || (t.callAt === best.callAt && t.id < best.id))
        best = t;
    }
    return best;
  }

  function count () {
    let n = 0;
    for (const key in timers)
      n++;
    return n;
  }

  function fire (t) {
    if (t.interval > 0)
      t.callAt += t.interval;
    else
      delete timers[t.id];
    try {
      if (t.frame)
        apply(t.fn, g, [perfOrigin + ticks]);
      else if (typeof t.fn === 'function')
        apply(t.fn, g, t.args);
      else
        (0, g.eval)(String(t.fn));
    } catch (error) {
      // Reported as the browser reports a throwing timer, after the run.
      errors++;
      apply(nativeSetTimeout, g, [() => { throw error; }, 0]);
    }
  }

  // Real-time mode: a native timeout wakes at the next due timer.
  function schedule () {
    stopDriver();
    if (!installed || paused || busy || anchor === null)
      return;
    const next = earliest(Infinity);
    if (next === null)
      return;
    const wait = next.callAt - currentTicks();
    driver = apply(nativeSetTimeout, g, [onDriver, wait > 0 ? wait : 0]);
  }

  function onDriver () {
    driver = null;
    if (!installed || paused || busy)
      return;
    const t = earliest(currentTicks());
    if (t !== null)
      fire(t);
    schedule();
  }

  function addTimer (fn, delay, args, interval, frame) {
    let ms = +delay;
    if (!(ms >= 0) || ms > 2147483647)
      ms = 0;
    const id = nextId++;
    const t = create(null);
    t.id = id;
    t.fn = fn;
    t.args = args;
    t.frame = frame;
    t.interval = interval ? (ms >= 1 ? ms : 1) : 0;
    t.delay = ms;
    t.callAt = currentTicks() + ms;
    timers[id] = t;
    if (!busy)
      schedule();
    return id;
  }

  function clearTimer (value) {
    const id = idOf(value);
    if (typeof id === 'number' && id in timers) {
      delete timers[id];
      if (!busy)
        schedule();
    } else {
      apply(nativeClearTimeout, g, [value]);
    }
  }

  // One macrotask between two timers of a run, so the promises a timer
  // resolves settle (and may add timers) before the next one fires.
  let wake = null;
  if (page !== null) {
    page.channel.port1.onmessage = () => {
      const w = wake;
      wake = null;
      if (w !== null)
        w();
    };
  }
  const yieldTask = () => new NativePromise((resolve) => {
    if (page === null) {
      apply(nativeSetImmediate, g, [resolve]);
      return;
    }
    wake = resolve;
    apply(page.post, page.channel.port2, [0]);
  });

  // A timer's handle: a number in a page; in Node, an object with the
  // methods of a Timeout that turns into its id.
  function handle (id) {
    if (!main)
      return id;
    const h = create(null);
    h.ref = function ref () { return h; };
    h.unref = function unref () { return h; };
    h.hasRef = function hasRef () { return true; };
    h.refresh = function refresh () {
      const t = timers[id];
      if (t !== undefined)
        t.callAt = currentTicks() + (t.interval > 0 ? t.interval : t.delay);
      return h;
    };
    h[Symbol.toPrimitive] = function toPrimitive () { return id; };
    return h;
  }

  const idOf = (value) => (main && value !== null && typeof value === 'object' && typeof value[Symbol.toPrimitive] === 'function'
    ? +value : value);

  // --- the fakes ----------------------------------------------------------
  function FakeDate (...args) {
    if (new.target === undefined)
      return apply(NativeDate.prototype.toString, construct(NativeDate, [now()]), []);
    if (args.length === 0)
      return construct(NativeDate, [now()], new.target);
    return construct(NativeDate, args, new.target);
  }

  function installFakes () {
    defineProperty(FakeDate, 'prototype', { value: NativeDate.prototype });
    FakeDate.now = function now_ () { return now(); };
    FakeDate.parse = NativeDate.parse;
    FakeDate.UTC = NativeDate.UTC;
    defineProperty(FakeDate, 'name', { value: 'Date' });
    defineProperty(NativeDate.prototype, 'constructor', { value: FakeDate, writable: true, configurable: true });
    g.Date = FakeDate;
    if (fakeTimers) {
      g.setTimeout = function setTimeout (fn, delay, ...args) { return handle(addTimer(fn, delay, args, false, false)); };
      g.setInterval = function setInterval (fn, delay, ...args) { return handle(addTimer(fn, delay, args, true, false)); };
      g.clearTimeout = function clearTimeout (id) { clearTimer(id); };
      g.clearInterval = function clearInterval (id) { clearTimer(id); };
    }
    if (!main && typeof nativeCancelFrame === 'function') {
      g.requestAnimationFrame = function requestAnimationFrame (fn) {
        if (typeof fn !== 'function')
          throw new TypeError("Failed to execute 'requestAnimationFrame': parameter 1 is not a function.");
        const at = currentTicks();
        return addTimer(fn, 16 - (at % 16), [], false, true);
      };
      g.cancelAnimationFrame = function cancelAnimationFrame (id) {
        if (typeof id === 'number' && id in timers)
          clearTimer(id);
        else
          apply(nativeCancelFrame, g, [id]);
      };
    }
    defineProperty(perf, 'now', {
      value: function now () { return perfOrigin + currentTicks(); },
      writable: true,
      configurable: true,
    });
  }

  // --- the operations -----------------------------------------------------
  function requireInstalled () {
    if (!installed)
      throw new NativeError('NOT_INSTALLED');
  }

  function status (extra) {
    const s = create(null);
    s.installed = installed;
    s.paused = paused;
    s.fixed = fixed !== null;
    s.now = installed ? now() : realNow();
    s.wall = installed ? wall() : realNow();
    s.ticks = installed ? floor(currentTicks()) : 0;
    s.pending = count();
    s.errors = errors;
    s.fired = 0;
    s.limitReached = false;
    if (extra)
      for (const key in extra)
        s[key] = extra[key];
    return s;
  }

  function install (time) {
    if (!installed) {
      perfOrigin = perfNow();
      installFakes();
      installed = true;
      anchor = perfNow();
    }
    freeze();
    wallOffset = time - ticks;
    fixed = null;
    paused = false;
  }

  // Every timer due within ms fires once at its end ("the lid was closed").
  async function advance (ms, max) {
    const target = ticks + ms;
    const due = [];
    for (const key in timers)
      if (timers[key].callAt <= target)
        due[due.length] = timers[key];
    due.sort((a, b) => a.callAt - b.callAt || a.id - b.id);
    ticks = target;
    let fired = 0;
    let limitReached = false;
    for (let i = 0; i < due.length; i++) {
      const t = due[i];
      if (!(t.id in timers))
        continue;
      if (fired >= max) {
        limitReached = true;
        break;
      }
      t.callAt = target;
      fire(t);
      fired++;
      await yieldTask();
    }
    return { fired, limitReached };
  }

  // Every timer due within ms fires in order, intervals again and again.
  async function runFor (ms, max) {
    const target = ticks + ms;
    let fired = 0;
    let limitReached = false;
    for (;;) {
      const t = earliest(target);
      if (t === null)
        break;
      if (fired >= max) {
        limitReached = true;
        break;
      }
      if (t.callAt > ticks)
        ticks = t.callAt;
      fire(t);
      fired++;
      await yieldTask();
    }
    if (!limitReached)
      ticks = target;
    return { fired, limitReached };
  }

  async function perform (op, arg) {
    if (op === 'status')
      return status();
    if (op === 'install') {
      install(arg.time);
      return status();
    }
    requireInstalled();
    busy = true;
    freeze();
    let extra = null;
    errors = 0;
    try {
      switch (op) {
        case 'set_time':
          fixed = arg.time;
          break;
        case 'set_system_time':
          fixed = null;
          wallOffset = arg.time - ticks;
          break;
        case 'advance':
          extra = await advance(arg.ms, arg.max);
          break;
        case 'run_for':
          extra = await runFor(arg.ms, arg.max);
          break;
        case 'pause':
          paused = true;
          if (typeof arg.time === 'number') {
            const delta = arg.time - floor(wallOffset + ticks);
            if (delta < 0)
              throw new NativeError('PAST');
            extra = await advance(delta, arg.max);
          }
          break;
        case 'resume':
          paused = false;
          break;
        default:
          throw new NativeError('BAD_OP');
      }
    } finally {
      busy = false;
      thaw();
    }
    return status(extra);
  }

  function reply (message) {
    apply(page.dispatch, g, [new page.CustomEvent(page.replyName, { detail: stringify(message) })]);
  }

  // The requests, one at a time, in the order they came.
  const queue = [];
  let working = false;

  async function drain () {
    working = true;
    while (queue.length > 0) {
      const request = queue[0];
      for (let i = 1; i < queue.length; i++)
        queue[i - 1] = queue[i];
      queue.length--;
      let answer;
      try {
        answer = { id: request.id, ok: true, value: await perform(request.op, request.arg) };
      } catch (error) {
        answer = { id: request.id, ok: false, error: error instanceof NativeError ? error.message : 'FAILED' };
      }
      reply(answer);
    }
    working = false;
  }

  // The main process: one entry, under a registered symbol of `process`.
  let entry = null;
  if (main) {
    let last = NativePromise.resolve();
    entry = (op, arg) => {
      const run = () => perform(op, arg).then((value) => ({ ok: true, value }),
                                              (error) => ({ ok: false, error: error instanceof NativeError ? error.message : 'FAILED' }));
      last = last.then(run, run);
      return last;
    };
    defineProperty(g.process, mainKey, { value: entry, configurable: true });
  }

  if (page !== null) apply(page.addListener, g, [page.requestName, (event) => {
    let request;
    try {
      request = parse(apply(page.detailOf, event, []));
    } catch {
      return;
    }
    if (request === null || typeof request !== 'object' || typeof request.id !== 'string')
      return;
    // Acknowledged at once, so the caller knows a clock lives here.
    reply({ id: request.id, ack: true });
    if (request.op === 'ping')
      return;
    queue[queue.length] = request;
    if (!working)
      drain();
  }]);

  // --- the state this document starts from --------------------------------
  if (snapshot !== null && typeof snapshot === 'object' && snapshot.installed) {
    const gap = snapshot.paused ? 0 : realNow() - snapshot.serverReal;
    install(snapshot.wall + (gap > 0 ? gap : 0));
    if (typeof snapshot.fixed === 'number')
      fixed = snapshot.fixed;
    if (snapshot.paused) {
      freeze();
      paused = true;
    } else {
      thaw();
    }
  }
  return entry;
})
