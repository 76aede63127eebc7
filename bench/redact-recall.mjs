// Recall of `lro offload --redact` on secrets named by their key (password, secret, token, API key) and in URLs,
// measured on other scanners' fixtures (test/secrets/fixtures/keyed-secrets.json: detect-secrets' keyword plugin
// tests, secretlint's basicauth and database-connection-string snapshots) and lro's own cases; and its false
// positives on the digests set (test/secrets/fixtures/digests.txt) and on the corpus (fixtures/corpus).
// Each group of cases goes through one `lro offload --redact` as one input (cases separated by a blank line, so
// none is another's context); a case counts as caught when every one of its secrets is gone from its part of the
// output, as a false positive when anything in it was replaced.
//   node bench/redact-recall.mjs LRO_JS [BASELINE_LRO_JS]   (prints a table; with a baseline, before -> after)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const fixture = JSON.parse(readFileSync(join(root, 'test/secrets/fixtures/keyed-secrets.json'), 'utf8'));
const digests = readFileSync(join(root, 'test/secrets/fixtures/digests.txt'), 'utf8');
const MARK = /\[REDACTED:([\w.-]+)\]/g;

/** The input redacted by the lro at `bin` (passed through: the threshold is above any input here). */
function redact(bin, input) {
  const dir = mkdtempSync(join(tmpdir(), 'lro-redact-bench-'));
  try {
    const r = spawnSync(process.execPath, [bin, 'offload', '--redact', '--threshold', '100000000'], {
      input,
      env: { ...process.env, LRO_DIR: dir },
      maxBuffer: 1 << 30,
    });
    if (r.status !== 0) {
      throw new Error(`lro offload --redact exited ${r.status}: ${r.stderr.toString().slice(0, 300)}`);
    }
    return r.stdout.toString('utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rulesIn = (text) => [...text.matchAll(MARK)].map((m) => m[1]);
/** The items of list less one of each in minus. */
function without(list, minus) {
  const rest = [...list];
  for (const m of minus) {
    const i = rest.indexOf(m);
    if (i >= 0) rest.splice(i, 1);
  }
  return rest;
}

/** Per case: caught (secret), false positive (none), and the rules that fired. */
function evaluate(bin) {
  const rows = [];
  for (const g of fixture.groups) {
    const out = redact(bin, `${g.cases.map((c) => c.text).join('\n\n')}\n`).replace(/\n$/, '').split('\n\n');
    if (out.length !== g.cases.length) throw new Error(`${g.id}: ${out.length} parts out for ${g.cases.length} cases`);
    g.cases.forEach((c, i) => {
      // the rules of the replacements made (a marker already in the input is not one)
      const fired = without(rulesIn(out[i]), rulesIn(c.text));
      const left = out[i].replace(MARK, ''); // a marker's text (`lro-url-password`) is not a secret left
      const caught = c.expect === 'secret' && fired.length > 0 && c.secrets.every((s) => !left.includes(s));
      const fp = c.expect === 'none' && fired.length > 0;
      rows.push({ group: c.form ? `${g.id} ${c.form}` : g.id, expect: c.expect, caught, fp, fired, out: out[i] });
    });
  }
  const lines = redact(bin, digests).split('\n');
  const digestHits = lines.filter((l) => MARK.test(l));
  MARK.lastIndex = 0;
  return { rows, digestHits, corpus: corpusCounts(bin) };
}

/** Replacements per rule on the text files of fixtures/corpus (logs, JSON documents, command output). */
function corpusCounts(bin) {
  const counts = {};
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else {
        const b = readFileSync(p);
        for (const r of rulesIn(redact(bin, b))) counts[r] = (counts[r] ?? 0) + 1;
      }
    }
  };
  for (const d of ['loghub', 'json-docs', 'shell-output']) walk(join(root, 'fixtures/corpus', d));
  return counts;
}

const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(1)}%` : '-');
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);

function summarize(rows) {
  const by = new Map();
  for (const r of rows) {
    const s = by.get(r.group) ?? { secrets: 0, caught: 0, nones: 0, fps: 0, rules: {} };
    if (r.expect === 'secret') {
      s.secrets++;
      if (r.caught) s.caught++;
    }
    if (r.expect === 'none') {
      s.nones++;
      if (r.fp) s.fps++;
    }
    if (r.expect !== 'none') for (const id of new Set(r.fired)) s.rules[id] = (s.rules[id] ?? 0) + 1;
    by.set(r.group, s);
  }
  return by;
}

/** A figure, or "before -> after" with a baseline. */
const change = (was, now) => (was === undefined ? now : `${was} -> ${now}`);
const recall = (s) => `${s.caught}/${s.secrets} ${pct(s.caught, s.secrets)}`;
const fps = (s) => `${s.fps}/${s.nones}`;

function printTable(a, b) {
  const W = b ? 30 : 16;
  const row = (name, r, f, rules = '') => console.log(`${pad(name, 46)}${lpad(r, W)}${lpad(f, W - 6)}  ${rules}`);
  row('group (source, form)', 'recall (secrets gone)', 'false positives', 'rules that fired on positives');
  const tot = { secrets: 0, caught: 0, nones: 0, fps: 0 };
  const totB = { ...tot };
  for (const [g, s] of a) {
    for (const k of Object.keys(tot)) tot[k] += s[k];
    if (b) for (const k of Object.keys(totB)) totB[k] += b.get(g)[k];
    const rules = Object.entries(s.rules).sort((x, y) => y[1] - x[1]).map(([r, n]) => `${r} ${n}`);
    const was = b?.get(g);
    row(g, change(was && recall(was), recall(s)), change(was && fps(was), fps(s)), rules.join(', '));
  }
  row('all', change(b && recall(totB), recall(tot)), change(b && fps(totB), fps(tot)));
}

const [bin, baseline] = process.argv.slice(2);
const after = evaluate(resolve(bin));
const before = baseline ? evaluate(resolve(baseline)) : null;
printTable(summarize(after.rows), before && summarize(before.rows));
const dl = digests.trimEnd().split('\n').length;
const hits = change(before?.digestHits.length, after.digestHits.length);
console.log(`\ndigests set: ${dl} lines (digests, UUIDs, integrity strings); lines with a replacement: ${hits}`);
for (const l of after.digestHits.slice(0, 5)) console.log(`  ${l.slice(0, 160)}`);
const fmt = (c) => Object.entries(c).sort().map(([r, n]) => `${r} ${n}`).join(', ') || 'none';
const corpus = change(before && fmt(before.corpus), fmt(after.corpus));
console.log(`corpus (fixtures/corpus, text files): replacements per rule: ${corpus}`);
if (process.env.VERBOSE) {
  for (const r of after.rows) {
    const what = r.fp ? 'FALSE POSITIVE' : r.expect === 'secret' && !r.caught ? 'MISSED' : null;
    if (what) console.log(`${what} ${r.group}: ${JSON.stringify(r.out).slice(0, 200)}`);
  }
}
