// The economy benchmark (issue 11): agent tasks over real outputs of 1 MB or more (bench/make-economy.mjs), each
// answered with the shortest lro call sequence — the offload's descriptor is call 1 — and scored on: calls,
// tokens printed (js-tiktoken o200k_base) against the output's own tokens, and whether the answer equals the
// one python computes on the original file. A cut output (`next:`) is followed, and each part is a call.
// The questions of bench/kinds-tasks.mjs follow, one per kind of output (a table, a diff, a lock file…), each
// checked against the answer computed from its input. Usage: node bench/economy.mjs WORKDIR [--kinds]
// (bench/economy.sh runs it; --kinds runs only the kinds' questions)
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { KIND_TASKS, writtenFilter } from './kinds-tasks.mjs';

const work = process.argv[2];
const root = new URL('..', import.meta.url).pathname;
const LRO = join(root, 'bin/lro.js');
const enc = new Tiktoken(o200k);
const env = { ...process.env, LRO_DIR: join(work, 'store'), NO_COLOR: '1' };
delete env.LRO_MAX_OUTPUT_TOKENS;

/** Tokens of text, counted in pieces of lines (js-tiktoken is quadratic on one long run). */
function tokens(text) {
  let n = 0;
  for (let i = 0; i < text.length; i += 20_000) {
    let end = Math.min(text.length, i + 20_000);
    n += enc.encode(text.slice(i, end)).length;
  }
  return n;
}

function lro(args, input) {
  const r = spawnSync(process.execPath, [LRO, ...args], { env, input, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { code: r.status, out: r.stdout + r.stderr };
}

function python(script, file) {
  const r = spawnSync('python3', ['-c', script, file, join(root, 'fixtures/loghub-templates')], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

const literal = (t) => {
  try {
    return JSON.parse(t);
  } catch {
    return t;
  }
};
const numbers = (out) => [...out.matchAll(/^(\d+)[:-]/gm)].map((m) => Number(m[1]));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

const TASKS = [
  {
    name: 'fatal lines of a log',
    file: 'log.txt',
    calls: (id) => [['grep', id, 'fatal', '-i']],
    answer: (outs) => numbers(outs.slice(1).join('')),
    truth: `import re,sys,json; print(json.dumps([i+1 for i,l in enumerate(open(sys.argv[1],encoding='utf-8',errors='replace').read().split('\\n')) if re.search('fatal',l,re.I)]))`,
  },
  {
    name: 'count records by a field',
    file: 'gotest.jsonl',
    calls: (id) => [['count', id, '--by', 'Action']],
    answer: (outs) => Object.fromEntries([...outs.slice(1).join('').matchAll(/^ *([\d,]+) +\d+  (.*)$/gm)].map((m) => [String(literal(m[2])), Number(m[1].replace(/,/g, ''))])),
    truth: `import sys,json,collections; c=collections.Counter(str(json.loads(l).get('Action')) for l in open(sys.argv[1]) if l.strip()); print(json.dumps(dict(c)))`,
    compare: (a, b) => same(Object.entries(a).sort(), Object.entries(b).sort()),
  },
  {
    name: 'three-condition filter',
    file: 'tweets.jsonl',
    calls: (id) => [['where', id, 'user.lang=ja', 'retweet_count>5', 'user.followers_count>=1000', '--fields', 'id_str']],
    answer: (outs) => numbers(outs.slice(1).join('')),
    truth: `import sys,json
r=[json.loads(l) for l in open(sys.argv[1])]
ok=lambda t: t['user'].get('lang')=='ja' and isinstance(t.get('retweet_count'),int) and t['retweet_count']>5 and isinstance(t['user'].get('followers_count'),int) and t['user']['followers_count']>=1000
print(json.dumps([i+1 for i,t in enumerate(r) if ok(t)]))`,
  },
  {
    name: 'one record by an id beyond 2^53',
    file: 'tweets.jsonl',
    calls: (id) => [['where', id, 'id=505874924095815701', '--fields', 'id,id_str,user.screen_name']],
    answer: (outs) => numbers(outs.slice(1).join('')),
    truth: `import sys,json; print(json.dumps([i+1 for i,l in enumerate(open(sys.argv[1])) if json.loads(l)['id']==505874924095815701]))`,
  },
  {
    name: 'failing tests of a go test -json run',
    file: 'gotest.jsonl',
    calls: (id) => [['where', id, 'Action=fail', 'Test?', '--fields', 'Package,Test']],
    answer: (outs) => [...outs.slice(1).join('').matchAll(/^\d+: (\{.*\})$/gm)].map((m) => JSON.parse(m[1])).map((r) => `${r.Package} ${r.Test}`).sort(),
    truth: `import sys,json
r=[json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(json.dumps(sorted(f"{t['Package']} {t['Test']}" for t in r if t.get('Action')=='fail' and t.get('Test') is not None)))`,
  },
  {
    name: 'the most common log template',
    file: 'hdfs.log',
    // the descriptor's templates are of the first lines (their scope says so) and name the command that counts all
    calls: (id) => [['count', id, '--by', 'template']],
    answer: (outs) => Number(/^ *([\d,]+) +\d+ +\S/m.exec(outs[1])?.[1].replace(/,/g, '')),
    truth: `import sys,json,re,csv,collections
rows=list(csv.reader(open(sys.argv[2]+'/HDFS_2k.log_templates.csv',newline='')))[1:]
rules=[(e,re.compile(r'(?:^|[\\s:\\]])'+'.*?'.join(re.escape(p) for p in t.split('<*>'))+r'\\s*$'),len(t.replace('<*>',''))) for e,t in rows]
c=collections.Counter()
for l in open(sys.argv[1]).read().split('\\n'):
  if not l: continue
  best=max((r for r in rules if r[1].search(l)), key=lambda r:r[2], default=None)
  c[best[0] if best else None]+=1
print(json.dumps(c.most_common(1)[0][1]))`,
  },
];

const rows = [];
// --kinds: only the questions of bench/kinds-tasks.mjs (one per kind of output)
const kindsOnly = process.argv.includes('--kinds');
for (const t of kindsOnly ? [] : TASKS) {
  const input = readFileSync(join(work, t.file));
  const own = tokens(input.toString('utf8'));
  const outs = [];
  const off = lro(['offload'], input);
  outs.push(off.out);
  const id = JSON.parse(off.out).id;
  let calls = 1;
  for (const args of t.calls(id)) {
    let r = lro(args);
    calls++;
    outs.push(r.out);
    // a cut output: follow its next: command, as an agent would, each part a call
    for (let m = /\[lro: [^\n]*; next: lro (.*)\]\n$/.exec(r.out); m; m = /\[lro: [^\n]*; next: lro (.*)\]\n$/.exec(r.out)) {
      r = lro(m[1].match(/'[^']*'|\S+/g).map((w) => (w.startsWith("'") ? w.slice(1, -1) : w)));
      calls++;
      outs.push(r.out);
    }
  }
  const printed = outs.reduce((s, o) => s + tokens(o), 0);
  const answer = t.answer(outs);
  const truth = python(t.truth, join(work, t.file));
  const correct = (t.compare ?? same)(answer, truth) && JSON.stringify(truth) !== '[]'; // an empty answer proves nothing
  rows.push({ task: t.name, input: `${t.file} ${(input.length / 1e6).toFixed(1)} MB`, calls, printed, own, share: printed / own, correct });
}

for (const t of KIND_TASKS) {
  const input = t.input();
  const own = tokens(input);
  const off = lro(['offload'], input);
  const d = JSON.parse(off.out);
  const outs = [off.out];
  for (const args of t.calls(d)) outs.push(lro(args.map((a) => (a === 'ID' ? d.id : a))).out);
  const printed = outs.reduce((s, o) => s + tokens(o), 0);
  const answer = t.answer(outs, d);
  const truth = t.truth(input);
  const correct = d.summary.kind === t.kind && (t.compare ?? same)(answer, truth);
  const mb = (Buffer.byteLength(input) / 1e6).toFixed(1);
  const filter = t.calls(d).some((args) => writtenFilter(args, d));
  rows.push({ task: t.name, input: `${t.kind} ${mb} MB`, calls: outs.length, printed, own, share: printed / own, correct, filter });
}

const pct = (x) => `${(x * 100).toFixed(2)}%`;
console.log('| task | input | calls | tokens printed | output tokens | printed/output | filter written | correct |');
console.log('|---|---|---:|---:|---:|---:|---|---|');
for (const r of rows) console.log(`| ${r.task} | ${r.input} | ${r.calls} | ${r.printed.toLocaleString('en')} | ${r.own.toLocaleString('en')} | ${pct(r.share)} | ${r.filter ? 'yes' : 'no'} | ${r.correct ? 'yes' : 'NO'} |`);
const own = rows.filter((r) => !r.filter).length / rows.length;
const ok = rows.every((r) => r.correct && r.calls <= 2 && r.share <= 0.01) && own >= 0.9;
const sorted = rows.map((r) => r.share).sort((a, b) => a - b);
console.log(`\n${rows.filter((r) => r.correct).length} of ${rows.length} right; calls at most ${Math.max(...rows.map((r) => r.calls))}; printed/output median ${pct(sorted[Math.floor(sorted.length / 2)])}, largest ${pct(sorted.at(-1))}; no filter written for ${pct(own)}`);
console.log(`targets (every task correct, <= 2 calls, <= 1% of the output's tokens, >= 90% without a written filter): ${ok ? 'met' : 'NOT met'}`);
