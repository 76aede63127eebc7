// The false-positive check of error lines over the fixtures of real outputs: every file of fixtures/error-lines/ok,
// fixtures/tables, fixtures/whole (gunzipped) and fixtures/outputs offloaded by this build, and by another
// (LRO_BASELINE=/path/to/other/bin/lro.js: a checkout before a change), with the kind, the error lines counted and
// the guidance's words on errors of each; a file whose count or words differ is marked `changed`. Of the ok
// folder, any error line at all is marked `FALSE POSITIVE` (none of its outputs failed).
// Usage: [LRO_BASELINE=…] node bench/error-lines-corpus.mjs   (needs npm run build)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const root = new URL('..', import.meta.url).pathname;
const builds = [['this', join(root, 'bin/lro.js')], ...(process.env.LRO_BASELINE ? [['baseline', process.env.LRO_BASELINE]] : [])];
const folders = ['error-lines/ok', 'tables', 'whole', 'outputs'];
const store = mkdtempSync(join(tmpdir(), 'lro-error-corpus-'));

/** What a descriptor says of errors: the count and the guidance's sentence on them. */
function describe(bin, input) {
  const r = spawnSync(process.execPath, [bin, 'offload', '--force'], { input, env: { ...process.env, LRO_DIR: store }, maxBuffer: 1 << 28 });
  if (r.status !== 0) return { kind: 'FAILED', errors: -1, words: r.stderr.toString().slice(0, 200) };
  const d = JSON.parse(r.stdout.toString());
  const g = /nothing printed\.(.*?) Next:/.exec(d.guidance ?? '')?.[1]?.trim() ?? '';
  // (the guidance's words on errors, without the ids and line numbers that differ between runs)
  return { kind: d.summary.kind, errors: d.summary.error_lines ?? 0, words: g.replace(/\d[\d,]*/g, 'N') };
}

let files = 0;
let changed = 0;
let falsePositives = 0;
for (const folder of folders) {
  for (const name of readdirSync(join(root, 'fixtures', folder)).sort()) {
    if (name === 'MANIFEST.md' || name === 'README.md') continue;
    const raw = readFileSync(join(root, 'fixtures', folder, name));
    const input = name.endsWith('.gz') ? gunzipSync(raw) : raw;
    const [now, before] = builds.map(([, bin]) => describe(bin, input));
    files++;
    const differs = before && (before.errors !== now.errors || before.words !== now.words || before.kind !== now.kind);
    const fp = folder === 'error-lines/ok' && now.errors > 0;
    if (differs) changed++;
    if (fp) falsePositives++;
    const was = before ? ` (baseline: ${before.kind}, ${before.errors})` : '';
    console.log(`${folder}/${name}: ${now.kind}, error lines ${now.errors}${was}${differs ? '  changed' : ''}${fp ? '  FALSE POSITIVE' : ''}`);
    if (differs) console.log(`    now:      ${now.words}\n    baseline: ${before.words}`);
  }
}
rmSync(store, { recursive: true, force: true });
console.log(`${files} outputs; ${builds.length > 1 ? `${changed} changed; ` : ''}${falsePositives} false positives in error-lines/ok`);
