// Playwright's _electron on the same stand-in and app: launch to a ready
// first window, evaluation round trips (main process and renderer), close.
// Prints one JSON object like bench/stw-bench.
import { createRequire } from 'node:module';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'tests', 'package.json'));
const { _electron } = require('playwright-core');

const [executablePath, appDir, nArg] = process.argv.slice(2);
const n = Number(nArg ?? 200);
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];

let t = performance.now();
const app = await _electron.launch({ executablePath, args: [appDir], timeout: 30000 });
const page = await app.firstWindow();
await page.waitForLoadState('domcontentloaded');
const launch = performance.now() - t;

const main = [];
for (let i = 0; i < n; i++) {
  t = performance.now();
  if ((await app.evaluate(() => 1 + 1)) !== 2) throw new Error('1+1');
  main.push(performance.now() - t);
}
const renderer = [];
for (let i = 0; i < n; i++) {
  t = performance.now();
  if ((await page.evaluate('1+1')) !== 2) throw new Error('1+1');
  renderer.push(performance.now() - t);
}

t = performance.now();
await app.close();
const stop = performance.now() - t;

console.log(JSON.stringify({ launch_ms: +launch.toFixed(1), stop_ms: +stop.toFixed(1),
  main_eval_ms: +median(main).toFixed(3), renderer_eval_ms: +median(renderer).toFixed(3), n }));
