// node-modules.mjs: find the npm test clients outside the source tree
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// The end-to-end tests import their clients (@modelcontextprotocol/sdk,
// playwright-core, ws) by bare name, which Node resolves from the test
// file's own directory upwards: tests/node_modules of the source tree. A
// tarball has no node_modules, so an out-of-tree build names a copy with
// `configure --with-node-modules=DIR`, and make check preloads this module
// (NODE_OPTIONS=--import=…) with STW_NODE_MODULES=DIR. It adds one
// resolution hook: a bare specifier that Node cannot find the usual way is
// looked up again from DIR. Everything Node finds by itself is unchanged.

import { register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';

let parentURL = null;

export function initialize (data) {
  // Resolving "from a file beside DIR" searches DIR first.
  parentURL = pathToFileURL(path.join(data.root, '..', 'stw-node-modules-anchor.mjs')).href;
}

function isBare (specifier) {
  return !/^([a-z][a-z0-9+.-]*:|\.{0,2}\/)/i.test(specifier);
}

export async function resolve (specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    if (parentURL === null || error?.code !== 'ERR_MODULE_NOT_FOUND' || !isBare(specifier))
      throw error;
    return next(specifier, { ...context, parentURL });
  }
}

if (isMainThread && process.env.STW_NODE_MODULES)
  register(import.meta.url, { data: { root: path.resolve(process.env.STW_NODE_MODULES) } });
