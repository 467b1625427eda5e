// stagewright.js: Stagewright for GJS scripts, as an ES module.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
//   import * as stagewright from 'resource:///…/stagewright.js';  // or a file:// URI
//   await stagewright.withApp({ executablePath, main, args: ['--page=forms'] }, async (session) => {
//       const window = session.active_surface;
//       const clicked = await window.click_async(Stagewright.Target.new_for_selector('#save'), null, null);
//   });
//
// Importing it changes the methods of Stagewright.SessionManager, Session,
// Surface (and Snapshot, when the library has it), as GJS's own overrides
// do: every _async method without a callback answers a Promise
// (Gio._promisify); where a method takes JSON it also takes plain values
// (a Json.Object or Json.Array argument a plain object or array, a `…_json`
// string any JSON-serializable value); and where it answers JSON it
// answers plain values. Which arguments are JSON is read from the typelib,
// so methods the library gains later are covered as they appear.

import Gio from 'gi://Gio';
import GIRepository from 'gi://GIRepository?version=2.0';
import GLib from 'gi://GLib';
import Json from 'gi://Json?version=1.0';
import Stagewright from 'gi://Stagewright?version=1.0';

export { Stagewright };

const NATIVE_CLASSES = ['SessionManager', 'Session', 'Surface', 'Snapshot'];
const STOP_TIMEOUT_MS = 5000;

/** A Json.Node, Json.Object or Json.Array (or an array of out values holding them) as plain values. */
export function toJs (value) {
  if (Array.isArray(value))
    return value.map(toJs);
  if (value instanceof Json.Object)
    value = Json.Node.alloc().init_object(value);
  else if (value instanceof Json.Array)
    value = Json.Node.alloc().init_array(value);
  else if (!(value instanceof Json.Node))
    return value;
  return JSON.parse(Json.to_string(value, false));
}

/** A plain value as a Json.Node. */
export function toJson (value) {
  return Json.from_string(JSON.stringify(value));
}

function converter (arg) {
  const type = GIRepository.arg_info_get_type(arg);
  const tag = GIRepository.type_info_get_tag(type);
  const name = arg.get_name();
  if (tag === GIRepository.TypeTag.UTF8)
    return name === 'json' || name.endsWith('_json')
      ? (value) => value === null || typeof value === 'string' ? value : JSON.stringify(value)
      : null;
  if (tag !== GIRepository.TypeTag.INTERFACE)
    return null;
  const iface = GIRepository.type_info_get_interface(type);
  const [namespace, typeName] = [iface.get_namespace(), iface.get_name()];
  if (namespace === 'Json' && ['Object', 'Array', 'Node'].includes(typeName)) {
    return (value) => {
      if (value === null || value instanceof Json[typeName])
        return value;
      const node = toJson(value);
      return typeName === 'Object' ? node.get_object() : typeName === 'Array' ? node.get_array() : node;
    };
  }
  // An options or state type built from a plain object (LaunchOptions,
  // SnapshotOptions, ElementState…) through its own constructor.
  if (namespace === 'Stagewright' && Stagewright[typeName]?.new_from_json)
    return (value) => value !== null && value.constructor === Object ? Stagewright[typeName].new_from_json(value) : value;
  return null;
}

// The arguments a JS caller passes, in order: GJS hides out arguments,
// array lengths and a callback's user data and destroy notify.
function visibleInArgs (info) {
  const args = [];
  for (let i = 0; i < GIRepository.callable_info_get_n_args(info); i++)
    args.push(GIRepository.callable_info_get_arg(info, i));
  const hidden = new Set();
  for (const arg of args) {
    const type = GIRepository.arg_info_get_type(arg);
    const tag = GIRepository.type_info_get_tag(type);
    if (tag === GIRepository.TypeTag.ARRAY && GIRepository.type_info_get_array_length(type) >= 0)
      hidden.add(GIRepository.type_info_get_array_length(type));
    if (tag === GIRepository.TypeTag.INTERFACE &&
        GIRepository.type_info_get_interface(type).get_type() === GIRepository.InfoType.CALLBACK) {
      for (const index of [GIRepository.arg_info_get_closure(arg), GIRepository.arg_info_get_destroy(arg)])
        if (index >= 0)
          hidden.add(index);
    }
  }
  return args.filter((arg, index) => !hidden.has(index) &&
    GIRepository.arg_info_get_direction(arg) !== GIRepository.Direction.OUT);
}

function wrap (target, name, info, convertResult) {
  const original = target[name];
  const converters = visibleInArgs(info).map(converter);
  if (typeof original !== 'function' || (!converters.some(Boolean) && !convertResult))
    return;
  const wrapper = function (...args) {
    const converted = args.map((value, index) => converters[index] ? converters[index](value) : value);
    const result = original.apply(this, converted);
    return convertResult ? toJs(result) : result;
  };
  // Gio._promisify tells a call with a callback by the argument count.
  Object.defineProperty(wrapper, 'length', { value: original.length });
  target[name] = wrapper;
}

const repository = GIRepository.Repository.get_default();
for (const className of NATIVE_CLASSES.concat(['LaunchOptions', 'SnapshotOptions', 'ScreenshotOptions', 'ElementState'])) {
  const klass = Stagewright[className];
  const info = klass ? repository.find_by_name('Stagewright', className) : null;
  if (!info)
    continue;
  const [count, method] = info.get_type() === GIRepository.InfoType.OBJECT
    ? [GIRepository.object_info_get_n_methods, GIRepository.object_info_get_method]
    : [GIRepository.struct_info_get_n_methods, GIRepository.struct_info_get_method];
  const native = NATIVE_CLASSES.includes(className);
  const asyncNames = [];
  for (let i = 0; i < count(info); i++) {
    const fn = method(info, i);
    const name = fn.get_name();
    if (GIRepository.callable_info_is_method(fn))
      wrap(klass.prototype, name, fn, native);
    else
      wrap(klass, name, fn, false);
    if (native && name.endsWith('_async'))
      asyncNames.push(name);
  }
  for (const name of asyncNames) {
    const finish = name.replace(/_async$/, '_finish');
    if (klass.prototype[finish])
      Gio._promisify(klass.prototype, name, finish);
  }
}

/**
 * Launches an app; answers a Promise of its Stagewright.Session.
 *
 * @param {object} options the properties of Stagewright.LaunchOptions in
 *   camelCase (executablePath, main, args, cwd, timeout, readyTimeout,
 *   runtime…), env (a plain object of extra environment), manager (a
 *   Stagewright.SessionManager; one shared by default) and cancellable
 */
let defaultManager = null;
export function launch ({ manager = null, env = {}, cancellable = null, ...properties } = {}) {
  manager ??= defaultManager ??= Stagewright.SessionManager.new();
  const options = new Stagewright.LaunchOptions(properties);
  for (const [key, value] of Object.entries(env))
    options.setenv(key, value);
  return manager.launch_async(options, cancellable);
}

/** Stops a session if it still runs; answers a Promise. */
export async function stop (session, timeoutMs = STOP_TIMEOUT_MS) {
  if (session.is_running())
    await session.stop_async(timeoutMs, null);
}

/**
 * Launches an app, runs `fn(session)` and stops the app when it settles,
 * whether it resolved or threw; answers what `fn` answered.
 */
export async function withApp (options, fn) {
  const session = await launch(options);
  try {
    return await fn(session);
  } finally {
    await stop(session);
  }
}

/** Runs the default main loop until `promise` settles; answers its value (for scripts without a loop). */
export function run (promise) {
  const loop = new GLib.MainLoop(null, false);
  let outcome;
  promise.then((value) => { outcome = { value }; }, (error) => { outcome = { error }; }).finally(() => loop.quit());
  if (outcome === undefined)
    loop.run();
  if ('error' in outcome)
    throw outcome.error;
  return outcome.value;
}
