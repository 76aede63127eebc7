// Concurrency: many offloads at once into one store (separate processes, as agents run them), while readers
// run read, grep and jq on `last` over and over. Every offload succeeds and is intact, ids are unique, an id's
// time is its header's timestamp, and an offload that finished before another started has the smaller id.
// @module-tag soak: every test here is part of `npm run test:soak`, not of `npm test` (vitest.config.ts)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { decodeTime } from 'ulid';
import { isTempFileName, parseDedupeFileName, parseResultFileName } from '../../src/format/naming.js';
import { openResultFile, originalContent } from '../../src/format/reader.js';
import { cleanup, lro, tempDir, type RunResult } from '../helpers/cli.js';
import { jsonTokens, report, sha256, sleep, WRITERS } from './lib.js';

let root: string;
let store: string;
const env = () => ({ LRO_DIR: store });

interface Writer {
  i: number;
  input: Buffer;
  started: number;
  ended: number;
  r: RunResult;
  id?: string;
  path?: string;
}

/** A distinct input per writer: text, JSONL, a JSON document or bytes, from 1 KB to a few hundred KB. */
function inputFor(i: number): Buffer {
  const n = 20 + ((i * 7919) % 4000);
  switch (i % 4) {
    case 0:
      return Buffer.from(Array.from({ length: n }, (_, k) => `writer ${i} line ${k}`).join('\n') + '\n');
    case 1:
      return Buffer.from(Array.from({ length: n }, (_, k) => JSON.stringify({ writer: i, k, v: 12345678901234567890 })).join('\n') + '\n');
    case 2:
      return Buffer.from(JSON.stringify({ writer: i, items: Array.from({ length: n }, (_, k) => ({ k })) }));
    default:
      return Buffer.from(Array.from({ length: n * 10 }, (_, k) => (k * i * 31 + i) & 0xff));
  }
}

let writers: Writer[] = [];
/** Writers started 60 ms apart after the burst. */
const WAVE = 30;
const readerRuns: { args: string[]; r: RunResult }[] = [];

beforeAll(async () => {
  root = tempDir('lro-torture-conc-');
  store = join(root, 'store');
  let writing = true;
  // readers: read, grep and jq on `last`, two at a time, until the writers are done
  const reader = async (k: number) => {
    const commands = [['read', 'last', '--tail', '2'], ['grep', 'last', '-c', 'writer'], ['jq', 'last', '-c', 'type', '--max-tokens', '20']];
    for (let j = k; writing; j++) {
      const args = commands[j % commands.length];
      readerRuns.push({ args, r: await lro(args, { env: env(), timeout: 120_000 }) });
    }
  };
  const readers = [reader(0), reader(1)];
  const write = async (i: number, delay = 0): Promise<Writer> => {
    if (delay) await sleep(delay);
    const input = inputFor(i);
    const started = Date.now();
    const r = await lro(['offload', '--force', '--operation', `w${i}`], { input, env: env(), timeout: 300_000 });
    return { i, input, started, ended: Date.now(), r };
  };
  // all at once; then a staggered wave, so some offloads finish before others start
  writers = await Promise.all(Array.from({ length: WRITERS }, (_, i) => write(i)));
  writers.push(...(await Promise.all(Array.from({ length: WAVE }, (_, k) => write(WRITERS + k, k * 60)))));
  writing = false;
  await Promise.all(readers);
  for (const w of writers) {
    if (w.r.code === 0) {
      const d = JSON.parse(w.r.out) as { id: string; file_path: string };
      w.id = d.id;
      w.path = d.file_path;
    }
  }
}, 600_000);

/** Writers whose result is missing or not their input. */
function lost(): number[] {
  return writers
    .filter((w) => {
      if (!w.path) return true;
      try {
        const rf = openResultFile(w.path);
        const back = Buffer.concat([...originalContent(rf)]);
        if (rf.header.sha256 !== sha256(w.input)) return true;
        return rf.header.content_type === 'json' ? jsonTokens(back).join('\u0000') !== jsonTokens(w.input).join('\u0000') : !back.equals(w.input);
      } catch {
        return true;
      }
    })
    .map((w) => w.i);
}

afterAll(() => {
  report({ suite: 'concurrency', writers: WRITERS, staggered: WAVE, reader_runs: readerRuns.length, losses: lost().length });
  cleanup(root);
});

describe(`${WRITERS} offloads at once into one store, then ${WAVE} staggered, with readers`, () => {
  it('every offload succeeds and its result is intact', () => {
    const failed = writers.filter((w) => w.r.code !== 0).map((w) => `${w.i}: exit ${w.r.code} ${w.r.stderr.slice(0, 200)}`);
    expect(failed).toEqual([]);
    expect(lost()).toEqual([]);
  });

  it('ids are unique and the store holds exactly those results, no temporary files', () => {
    const ids = writers.map((w) => w.id);
    expect(new Set(ids).size).toBe(WRITERS + WAVE);
    // besides results: dedupe refs (one per distinct output), and no claim left behind
    const names = readdirSync(store).filter((n) => parseDedupeFileName(n)?.kind !== 'ref');
    expect(names.filter(isTempFileName)).toEqual([]);
    expect(names.map((n) => parseResultFileName(n)?.id).sort()).toEqual([...ids].sort());
  });

  it("an id's time is its header's timestamp, so sorting by id sorts by time", () => {
    const headers = writers.map((w) => openResultFile(w.path!).header);
    for (const h of headers) expect(decodeTime(h.id)).toBe(Date.parse(h.timestamp));
    const byId = [...headers].sort((a, b) => (a.id < b.id ? -1 : 1)).map((h) => Date.parse(h.timestamp));
    expect(byId).toEqual([...byId].sort((a, b) => a - b));
  });

  it('an offload that finished before another started has the smaller id', () => {
    const sorted = [...writers].sort((a, b) => a.started - b.started);
    let pairs = 0;
    for (const a of sorted) {
      for (const b of sorted) {
        if (a.ended < b.started) {
          pairs++;
          expect(a.id! < b.id!, `writer ${a.i} ended before writer ${b.i} started`).toBe(true);
        }
      }
    }
    expect(pairs).toBeGreaterThan(0); // the staggered wave makes them
  });

  it('last is the newest id, and readers running meanwhile never saw a damaged or partial result', async () => {
    const newest = [...writers].sort((a, b) => (a.id! < b.id! ? 1 : -1))[0];
    const r = await lro(['info', 'last', '--header'], { env: env() });
    expect(JSON.parse(r.out).id).toBe(newest.id);
    expect(readerRuns.length).toBeGreaterThan(0);
    // 2 is an answer when the store is still empty, or when `last` is a binary writer's result (its one line)
    const answer = (x: RunResult) => x.code === 2 && /^lro: (no results in|result \w+ is binary: )/.test(x.stderr);
    const bad = readerRuns.filter(({ r: x }) => !(x.code === 0 || x.code === 1 || answer(x)));
    expect(bad.map(({ args, r: x }) => `${args.join(' ')}: ${x.code} ${x.stderr}`)).toEqual([]);
  });
});
