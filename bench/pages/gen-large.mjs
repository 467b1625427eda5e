#!/usr/bin/env node
// Generates the "large" benchmark page: exactly 1,000 interactive controls
// (buttons, links, text/number inputs, checkboxes, radios, selects, textareas)
// in nested sections, lists, tables and fieldsets. Deterministic output.
//
// usage: node gen-large.mjs OUTDIR      -> writes OUTDIR/index.html
//
// Benchmark targets (the harness looks them up by accessible name):
//   click: button "Action 13.4"   (increments the counter in #status)
//   fill : textbox "Name 13.2"
//
// This is the shared peer-benchmark page, copied unchanged (but for this note)
// from ../shared/bench-pages/gen-large.mjs: the peer figures of issue 8 (Playwright,
// Playwright MCP, the TypeScript Electron Stagewright, agent-browser) were measured
// on its output, so bench/page-bench.mjs uses the very same page. Its output must
// stay byte-identical to the original's.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SECTIONS = 25;
const out = process.argv[2];
if (!out) { console.error('usage: gen-large.mjs OUTDIR'); process.exit(2); }

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
const L = [];
L.push('<!DOCTYPE html>', '<html lang="en">', '<head>', '<meta charset="utf-8">',
  '<title>Large generated page (1000 controls)</title>',
  '<style>body{font-family:sans-serif;margin:16px} section{border:1px solid #ccc;margin:8px 0;padding:6px}',
  'table{border-collapse:collapse} td,th{border:1px solid #ddd;padding:2px 4px} nav a{margin-right:6px}</style>',
  '</head>', '<body>', '<header><h1>Large generated page</h1>',
  '<p id="status" role="status">clicks: 0</p></header>');
// 25 nav links
L.push('<nav aria-label="Sections"><ul>');
for (let s = 1; s <= SECTIONS; s++) L.push(`<li><a href="#sec-${s}">Go to section ${s}</a></li>`);
L.push('</ul></nav>', '<main>');
for (let s = 1; s <= SECTIONS; s++) {
  L.push(`<section id="sec-${s}" aria-labelledby="h-${s}"><h2 id="h-${s}">Section ${s}</h2>`);
  // list: 8 items x (button + link) = 16 controls; items 4 and 8 nest their link one level deeper
  L.push(`<ul class="items">`);
  for (let i = 1; i <= 8; i++) {
    const link = `<a href="#sec-${s}">Details ${s}.${i}</a>`;
    L.push(`<li>Item ${s}.${i} <button type="button" data-act="1">Action ${s}.${i}</button> ` +
      (i % 4 === 0 ? `<ul><li>Nested ${link}</li></ul>` : link) + '</li>');
  }
  L.push('</ul>');
  // table: 4 rows x (text input, select, checkbox, button) = 16 controls
  L.push(`<table><caption>Table ${s}</caption><thead><tr><th>Row</th><th>Name</th><th>Choice</th><th>Enabled</th><th>Save</th></tr></thead><tbody>`);
  for (let r = 1; r <= 4; r++) {
    L.push(`<tr><td>Row ${s}.${r}</td>` +
      `<td><input type="text" aria-label="Name ${s}.${r}" value=""></td>` +
      `<td><select aria-label="Choice ${s}.${r}"><option>alpha</option><option>beta</option><option>gamma</option></select></td>` +
      `<td><input type="checkbox" aria-label="Enabled ${s}.${r}"></td>` +
      `<td><button type="button" data-act="1">Save ${s}.${r}</button></td></tr>`);
  }
  L.push('</tbody></table>');
  // fieldset: 2 text inputs, 1 number, 1 textarea, 2 radios, 1 button = 7 controls
  L.push(`<fieldset><legend>Options ${s}</legend>` +
    `<label>First ${s} <input type="text" name="first-${s}"></label> ` +
    `<label>Last ${s} <input type="text" name="last-${s}"></label> ` +
    `<label>Count ${s} <input type="number" name="count-${s}" value="${s}"></label><br>` +
    `<label>Notes ${s} <textarea name="notes-${s}" rows="1"></textarea></label> ` +
    `<label><input type="radio" name="mode-${s}" value="a" checked> Mode A ${s}</label> ` +
    `<label><input type="radio" name="mode-${s}" value="b"> Mode B ${s}</label> ` +
    `<button type="button" data-act="1">Apply ${s}</button></fieldset>`);
  L.push('</section>');
}
L.push('</main>');
L.push(`<script>
let clicks = 0;
document.addEventListener('click', (e) => {
  const b = e.target.closest('button[data-act]');
  if (b) { clicks++; document.getElementById('status').textContent = 'clicks: ' + clicks + ' (' + b.textContent + ')'; }
});
</script>`);
L.push('</body>', '</html>');
const html = L.join('\n') + '\n';
const count = (html.match(/<(button|select|textarea)\b/g) || []).length +
  (html.match(/<input\b/g) || []).length + (html.match(/<a href=/g) || []).length;
if (count !== 1000) { console.error('control count is ' + count + ', expected 1000'); process.exit(1); }
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'index.html'), html);
console.log(JSON.stringify({ file: join(out, 'index.html'), controls: count, bytes: html.length }));
