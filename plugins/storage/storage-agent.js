// storage-agent.js: the storage plugin's page-side agent
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// One function, called by the plugin in the isolated world of a frame of
// the origin it works on (stw_surface_call_isolated_async): it shares the
// origin's Web Storage and IndexedDB with the page but none of the page's
// globals, so nothing the page defines runs here. Arguments arrive as JSON
// data; no agent-supplied code runs. The value encoding is Playwright's
// (packages/playwright-core/src/server/isomorphic/utilityScriptSerializers.ts,
// Apache-2.0): a clean-room port of its table, so a storage state moves
// between Playwright and Stagewright both ways.
async (op, arg) => {
  'use strict';
  const limit = arg.maxBytes || 16 * 1024 * 1024;
  let budget = limit;
  const fail = (code, message) => { const e = new Error(message); e.stwCode = code; throw e; };
  const spend = (text) => {
    budget -= typeof text === 'string' ? text.length : 8;
    if (budget < 0)
      fail('ACCESS_FAILED', `the origin's data exceeds ${limit} bytes`);
  };

  // --- Playwright's value encoding -------------------------------------------
  const kinds = [
    [Int8Array, 'i8'], [Uint8Array, 'ui8'], [Uint8ClampedArray, 'ui8c'], [Int16Array, 'i16'],
    [Uint16Array, 'ui16'], [Int32Array, 'i32'], [Uint32Array, 'ui32'], [Float32Array, 'f32'],
    [Float64Array, 'f64'], [BigInt64Array, 'bi64'], [BigUint64Array, 'bui64'],
  ];
  const toBase64 = (bytes) => {
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000)
      binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    spend(binary);
    return btoa(binary);
  };
  const fromBase64 = (text) => {
    if (typeof text !== 'string')
      fail('BAD_ARGUMENT', 'an encoded buffer is not base64 text');
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++)
      bytes[i] = binary.charCodeAt(i);
    return bytes;
  };
  const isPlain = (v) => {
    if (typeof v !== 'object' || v === null)
      return false;
    const proto = Object.getPrototypeOf(v);
    return proto === Object.prototype || proto === null;
  };
  const isTrivial = (v, depth = 0) => {
    if (depth > 200)
      return false;
    if (v === null || typeof v === 'string' || typeof v === 'boolean')
      return true;
    if (typeof v === 'number')
      return Number.isFinite(v) && !Object.is(v, -0);
    if (Array.isArray(v))
      return v.every((x) => isTrivial(x, depth + 1));
    if (isPlain(v))
      return Object.keys(v).every((k) => isTrivial(v[k], depth + 1));
    return false;
  };
  const serialize = (value) => {
    const ids = new Map();
    let last = 0;
    const inner = (v, depth) => {
      if (depth > 200)
        fail('ACCESS_FAILED', 'a value is nested more than 200 deep');
      if (v === undefined || typeof v === 'symbol' || typeof v === 'function')
        return { v: 'undefined' };
      if (v === null)
        return { v: 'null' };
      if (typeof v === 'number') {
        if (Number.isNaN(v)) return { v: 'NaN' };
        if (v === Infinity) return { v: 'Infinity' };
        if (v === -Infinity) return { v: '-Infinity' };
        if (Object.is(v, -0)) return { v: '-0' };
        return v;
      }
      if (typeof v === 'string') {
        spend(v);
        return v;
      }
      if (typeof v === 'boolean')
        return v;
      if (typeof v === 'bigint')
        return { bi: v.toString() };
      if (v instanceof Date)
        return { d: Number.isNaN(v.getTime()) ? null : v.toJSON() };
      if (v instanceof RegExp)
        return { r: { p: v.source, f: v.flags } };
      if (v instanceof Error)
        return { e: { n: String(v.name), m: String(v.message), s: String(v.stack) } };
      for (const [ctor, k] of kinds)
        if (v instanceof ctor)
          return { ta: { b: toBase64(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)), k } };
      if (v instanceof ArrayBuffer)
        return { ab: { b: toBase64(new Uint8Array(v)) } };
      if (ids.has(v))
        return { ref: ids.get(v) };
      const id = ++last;
      ids.set(v, id);
      spend(null);
      if (Array.isArray(v))
        return { a: v.map((x) => inner(x, depth + 1)), id };
      if (v instanceof Map)
        return { m: [...v].map(([k, x]) => ({ k: inner(k, depth + 1), v: inner(x, depth + 1) })), id };
      if (v instanceof Set)
        return { s: [...v].map((x) => inner(x, depth + 1)), id };
      return { o: Object.keys(v).map((k) => { spend(k); return { k, v: inner(v[k], depth + 1) }; }), id };
    };
    return inner(value, 0);
  };
  // The raw form when every node is plain JSON, else the encoded one.
  const encode = (value, raw, encoded, into) => {
    if (isTrivial(value)) {
      spend(JSON.stringify(value));
      into[raw] = value;
    } else {
      into[encoded] = serialize(value);
    }
  };
  const parse = (value) => {
    const refs = new Map();
    const inner = (v, depth) => {
      if (depth > 200)
        fail('BAD_ARGUMENT', 'an encoded value is nested more than 200 deep');
      if (typeof v !== 'object' || v === null)
        return v;
      if (Array.isArray(v))
        fail('BAD_ARGUMENT', 'an encoded value is a bare array');
      const has = (k) => Object.prototype.hasOwnProperty.call(v, k);
      if (has('ref')) {
        if (!refs.has(v.ref))
          fail('BAD_ARGUMENT', `an encoded value refers to ${JSON.stringify(v.ref)}, which is not before it`);
        return refs.get(v.ref);
      }
      if (has('v')) {
        switch (v.v) {
          case 'undefined': return undefined;
          case 'null': return null;
          case 'NaN': return NaN;
          case 'Infinity': return Infinity;
          case '-Infinity': return -Infinity;
          case '-0': return -0;
          default: fail('BAD_ARGUMENT', `unknown special value ${JSON.stringify(v.v)}`);
        }
      }
      if (has('d'))
        return new Date(v.d === null ? NaN : String(v.d));
      if (has('u'))
        return String(v.u);
      if (has('bi'))
        return BigInt(String(v.bi));
      if (has('e')) {
        const e = new Error(String(v.e?.m ?? ''));
        e.name = String(v.e?.n ?? 'Error');
        e.stack = String(v.e?.s ?? '');
        return e;
      }
      if (has('r'))
        return new RegExp(String(v.r?.p ?? ''), String(v.r?.f ?? ''));
      if (has('a') && Array.isArray(v.a)) {
        const out = [];
        refs.set(v.id, out);
        for (const x of v.a)
          out.push(inner(x, depth + 1));
        return out;
      }
      if (has('o') && Array.isArray(v.o)) {
        const out = {};
        refs.set(v.id, out);
        for (const entry of v.o) {
          if (typeof entry?.k !== 'string')
            fail('BAD_ARGUMENT', 'an encoded object has a key that is not a string');
          if (entry.k === '__proto__')
            continue;
          out[entry.k] = inner(entry.v, depth + 1);
        }
        return out;
      }
      if (has('m') && Array.isArray(v.m)) {
        const out = new Map();
        refs.set(v.id, out);
        for (const entry of v.m)
          out.set(inner(entry?.k, depth + 1), inner(entry?.v, depth + 1));
        return out;
      }
      if (has('s') && Array.isArray(v.s)) {
        const out = new Set();
        refs.set(v.id, out);
        for (const x of v.s)
          out.add(inner(x, depth + 1));
        return out;
      }
      if (has('ta')) {
        const found = kinds.find(([, k]) => k === v.ta?.k);
        if (!found)
          fail('BAD_ARGUMENT', `unknown typed array kind ${JSON.stringify(v.ta?.k)}`);
        const bytes = fromBase64(v.ta.b);
        if (bytes.length % found[0].BYTES_PER_ELEMENT)
          fail('BAD_ARGUMENT', `a ${v.ta.k} array has ${bytes.length} bytes`);
        return new found[0](bytes.buffer);
      }
      if (has('ab'))
        return fromBase64(v.ab?.b).buffer;
      fail('BAD_ARGUMENT', `an encoded value has no known form (keys: ${Object.keys(v).slice(0, 5).join(', ')})`);
    };
    return inner(value, 0);
  };
  const decode = (record, raw, encoded) =>
    Object.prototype.hasOwnProperty.call(record, raw) ? record[raw] : parse(record[encoded]);

  // --- IndexedDB ------------------------------------------------------------------
  const request = (r) => new Promise((resolve, reject) => {
    r.addEventListener('success', () => resolve(r.result));
    r.addEventListener('error', () => reject(r.error));
  });
  const openDb = async (name) => {
    const names = (await indexedDB.databases()).map((d) => d.name);
    if (!names.includes(name))
      fail('NOT_FOUND', `the origin has no IndexedDB database ${JSON.stringify(name)}`);
    return request(indexedDB.open(name));
  };
  const storeOf = (db, store, mode) => {
    if (!db.objectStoreNames.contains(store))
      fail('NOT_FOUND', `the database ${JSON.stringify(db.name)} has no object store ${JSON.stringify(store)}`);
    return db.transaction(store, mode).objectStore(store);
  };
  const keyPaths = (keyPath, into) => {
    if (typeof keyPath === 'string')
      into.keyPath = keyPath;
    else if (Array.isArray(keyPath))
      into.keyPathArray = [...keyPath];
    return into;
  };
  const schemaOf = (db) => ({
    name: db.name,
    version: db.version,
    stores: [...db.objectStoreNames].map((storeName) => {
      const store = db.transaction(storeName, 'readonly').objectStore(storeName);
      return keyPaths(store.keyPath, {
        name: storeName,
        autoIncrement: store.autoIncrement,
        indexes: [...store.indexNames].map((indexName) => {
          const index = store.index(indexName);
          return keyPaths(index.keyPath, { name: index.name, multiEntry: index.multiEntry, unique: index.unique });
        }),
      });
    }),
  });
  const collectDb = async (name) => {
    const db = await request(indexedDB.open(name));
    try {
      const schema = schemaOf(db);
      for (const store of schema.stores) {
        const os = db.transaction(store.name, 'readonly').objectStore(store.name);
        const keys = await request(os.getAllKeys());
        const values = await request(os.getAll());
        store.records = keys.map((key, i) => {
          const record = {};
          if (os.keyPath === null)
            encode(key, 'key', 'keyEncoded', record);
          encode(values[i], 'value', 'valueEncoded', record);
          return record;
        });
        // Playwright's member order: name, records, indexes, autoIncrement, keyPath(s).
        const { indexes, autoIncrement, keyPath, keyPathArray } = store;
        delete store.indexes; delete store.autoIncrement; delete store.keyPath; delete store.keyPathArray;
        Object.assign(store, { indexes, autoIncrement });
        keyPaths(keyPath ?? keyPathArray, store);
      }
      return schema;
    } finally {
      db.close();
    }
  };
  const restoreDb = async (info) => {
    const open = indexedDB.open(info.name, info.version);
    open.addEventListener('upgradeneeded', () => {
      const db = open.result;
      for (const store of info.stores) {
        const os = db.createObjectStore(store.name, {
          autoIncrement: !!store.autoIncrement, keyPath: store.keyPathArray ?? store.keyPath,
        });
        for (const index of store.indexes ?? [])
          os.createIndex(index.name, index.keyPathArray ?? index.keyPath,
                         { unique: !!index.unique, multiEntry: !!index.multiEntry });
      }
    });
    const db = await request(open);
    try {
      if (info.stores.length === 0)
        return 0;
      const tx = db.transaction(info.stores.map((s) => s.name), 'readwrite');
      let count = 0;
      for (const store of info.stores) {
        const os = tx.objectStore(store.name);
        for (const record of store.records ?? []) {
          const value = decode(record, 'value', 'valueEncoded');
          const hasKey = 'key' in record || 'keyEncoded' in record;
          if (hasKey)
            os.add(value, decode(record, 'key', 'keyEncoded'));
          else
            os.add(value);
          count++;
        }
      }
      await new Promise((resolve, reject) => {
        tx.addEventListener('complete', resolve);
        tx.addEventListener('error', () => reject(tx.error));
        tx.addEventListener('abort', () => reject(tx.error ?? new Error('the transaction was aborted')));
      });
      return count;
    } finally {
      db.close();
    }
  };
  const dbNames = async () => (await indexedDB.databases()).map((d) => d.name).filter(Boolean);

  const areaOf = (name) => (name === 'session' ? sessionStorage : localStorage);
  const entries = (area) => {
    const out = [];
    for (let i = 0; i < area.length; i++) {
      const name = area.key(i);
      const value = area.getItem(name);
      spend(name);
      spend(value);
      out.push({ name, value });
    }
    return out;
  };
  const size = (area) => {
    let bytes = 0;
    for (let i = 0; i < area.length; i++) {
      const k = area.key(i);
      bytes += k.length + (area.getItem(k) ?? '').length;
    }
    return { count: area.length, bytes: bytes * 2 };
  };

  try {
    if (!/^https?:$/.test(location.protocol))
      fail('UNSUPPORTED', `the frame's origin ${location.origin} is not http(s)`);
    const origin = location.origin;
    switch (op) {
      case 'origin':
        return { origin };
      case 'collect': {
        const out = { origin, localStorage: entries(localStorage) };
        if (arg.indexedDB) {
          out.indexedDB = [];
          for (const name of await dbNames())
            out.indexedDB.push(await collectDb(name));
        }
        return out;
      }
      case 'restore': {
        const state = arg.state ?? {};
        for (const name of await dbNames())
          await request(indexedDB.deleteDatabase(name));
        let records = 0;
        for (const info of state.indexedDB ?? [])
          records += await restoreDb(info);
        sessionStorage.clear();
        localStorage.clear();
        for (const { name, value } of state.localStorage ?? [])
          localStorage.setItem(name, value);
        return { origin, localStorage: localStorage.length, indexedDB: (state.indexedDB ?? []).length, records };
      }
      case 'web': {
        const area = areaOf(arg.area);
        switch (arg.action) {
          case 'get': {
            const value = area.getItem(arg.key);
            if (value !== null)
              spend(value);
            return { origin, key: arg.key, found: value !== null, value };
          }
          case 'set':
            area.setItem(arg.key, arg.value);
            return { origin, key: arg.key, length: area.length };
          case 'remove': {
            const found = area.getItem(arg.key) !== null;
            area.removeItem(arg.key);
            return { origin, key: arg.key, removed: found, length: area.length };
          }
          case 'keys': {
            const keys = [];
            for (let i = 0; i < area.length; i++) {
              const k = area.key(i);
              spend(k);
              keys.push(k);
            }
            return { origin, keys };
          }
          case 'entries':
            return { origin, entries: entries(area) };
          case 'clear': {
            const cleared = area.length;
            area.clear();
            return { origin, cleared };
          }
        }
        break;
      }
      case 'idb': {
        if (arg.action === 'schema') {
          const out = [];
          for (const name of await dbNames()) {
            if (arg.db && arg.db !== name)
              continue;
            const db = await request(indexedDB.open(name));
            try { out.push(schemaOf(db)); } finally { db.close(); }
          }
          if (arg.db && out.length === 0)
            fail('NOT_FOUND', `the origin has no IndexedDB database ${JSON.stringify(arg.db)}`);
          return { origin, databases: out };
        }
        const db = await openDb(arg.db);
        try {
          const write = ['set', 'delete', 'clear'].includes(arg.action);
          const os = storeOf(db, arg.store, write ? 'readwrite' : 'readonly');
          const hasKey = 'key' in arg || 'keyEncoded' in arg;
          const key = hasKey ? decode(arg, 'key', 'keyEncoded') : undefined;
          switch (arg.action) {
            case 'get': {
              if (hasKey) {
                const value = await request(os.get(key));
                const record = { found: value !== undefined };
                if (value !== undefined)
                  encode(value, 'value', 'valueEncoded', record);
                return { origin, db: db.name, store: os.name, ...record };
              }
              const count = arg.limit ?? 100;
              const keys = await request(os.getAllKeys(null, count));
              const values = await request(os.getAll(null, count));
              return {
                origin, db: db.name, store: os.name,
                records: keys.map((k, i) => {
                  const r = {};
                  encode(k, 'key', 'keyEncoded', r);
                  encode(values[i], 'value', 'valueEncoded', r);
                  return r;
                }),
              };
            }
            case 'keys': {
              const keys = await request(os.getAllKeys(null, arg.limit ?? 100));
              return { origin, db: db.name, store: os.name, keys: keys.map((k) => { const r = {}; encode(k, 'key', 'keyEncoded', r); return r; }) };
            }
            case 'count':
              return { origin, db: db.name, store: os.name, count: await request(hasKey ? os.count(key) : os.count()) };
            case 'set': {
              const value = decode(arg, 'value', 'valueEncoded');
              const stored = await request(hasKey && os.keyPath === null ? os.put(value, key) : os.put(value));
              const r = { origin, db: db.name, store: os.name };
              encode(stored, 'key', 'keyEncoded', r);
              return r;
            }
            case 'delete': {
              const before = await request(os.count(key));
              await request(os.delete(key));
              return { origin, db: db.name, store: os.name, deleted: before };
            }
            case 'clear': {
              const before = await request(os.count());
              await request(os.clear());
              return { origin, db: db.name, store: os.name, cleared: before };
            }
          }
        } finally {
          db.close();
        }
        break;
      }
      case 'snapshot': {
        const databases = [];
        for (const name of await dbNames()) {
          const db = await request(indexedDB.open(name));
          try {
            const stores = [];
            for (const storeName of db.objectStoreNames) {
              const os = db.transaction(storeName, 'readonly').objectStore(storeName);
              stores.push({ name: storeName, count: await request(os.count()) });
            }
            databases.push({ name, version: db.version, stores });
          } finally {
            db.close();
          }
        }
        let usage = null;
        try { usage = (await navigator.storage.estimate()).usage ?? null; } catch (e) { usage = null; }
        return { origin, localStorage: size(localStorage), sessionStorage: size(sessionStorage), indexedDB: databases, usageBytes: usage };
      }
    }
    fail('BAD_ARGUMENT', `unknown operation ${op}`);
  } catch (e) {
    return { __failure: { code: e.stwCode ?? 'ACCESS_FAILED', message: String(e?.message ?? e).slice(0, 500) } };
  }
}
