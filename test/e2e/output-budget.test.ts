// End-to-end: every output is within the output budget or ends with a next: command that continues it — lro info
// --full and --header (a page from --from), lro ls and ls --sessions (--offset), and error messages that quote what
// the user typed. Following the next: commands to the end gives exactly what --max-tokens 0 prints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';

let root: string;
let env: Record<string, string>;
beforeAll(() => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
});
afterAll(() => cleanup(root));

const tokens = (s: string) => getTokenizer('o200k_base').count(s);
const NEXT = /^\[lro: (.*); next: (lro .*)\]$/;

async function store(input: string, extra: string[] = []): Promise<string> {
  const r = await lroHere(['offload', '--force', ...extra], { input, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out).id as string;
}

/** Runs a printed `lro …` command as given (words, single-quoted ones unquoted), in this process (the pages after the first). */
async function run(command: string): Promise<string> {
  const words = command.match(/'[^']*'|\S+/g)!.map((w) => (w.startsWith("'") ? w.slice(1, -1) : w));
  const r = await lroHere(words.slice(1), { env });
  expect(r.code, r.stderr).toBe(0);
  return r.out;
}

/** The last line of an output and what it says, if it is a next: line. */
function lastNext(out: string): { body: string; what: string; next: string } | null {
  const lines = out.split('\n');
  const m = NEXT.exec(lines[lines.length - 2] ?? '');
  return m ? { body: lines.slice(0, -2).join('\n') + (lines.length > 2 ? '\n' : ''), what: m[1], next: m[2] } : null;
}

describe('lro info --full', () => {
  let id: string;
  beforeAll(async () => {
    // a big JSON result: 60 fields in 7 variants, so the full schema alone is thousands of tokens
    const rows = Array.from({ length: 300 }, (_, i) => Object.fromEntries([['id', i], ...Array.from({ length: 60 }, (_, j) => [`field_${j}_${i % 7}`, `v${(i * j) % 97}`])]));
    id = await store(JSON.stringify(rows));
  });

  it('is cut at the budget with a next: command; following it to the end gives the whole descriptor', async () => {
    const whole = (await lro(['info', id, '--full', '--max-tokens', '0'], { env })).out;
    expect(tokens(whole)).toBeGreaterThan(2000);
    expect(() => JSON.parse(whole)).not.toThrow();
    const first = (await lro(['info', id, '--full'], { env })).out;
    expect(tokens(first)).toBeLessThanOrEqual(2000);
    let out = (await lro(['info', id, '--full', '--max-tokens', '500'], { env })).out;
    let text = '';
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(40);
      expect(tokens(out)).toBeLessThanOrEqual(500);
      const n = lastNext(out);
      if (!n) {
        text += out;
        break;
      }
      const [, from, to] = /^printed characters (\d+)-(\d+) of [\d,]+ \(--max-tokens 500\)$/.exec(n.what)!;
      text += n.body.slice(0, Number(to) - Number(from)); // the page's text, without the newline before the last line
      expect(n.next).toBe(`lro info ${id} --full --from ${to} --max-tokens 500`);
      out = await run(n.next);
    }
    expect(text).toBe(whole);
  });

  it('--descriptor text is cut and continued the same way; --from past the end is an error', async () => {
    const whole = (await lro(['info', id, '--full', '--descriptor', 'text', '--max-tokens', '0'], { env })).out;
    const first = (await lro(['info', id, '--full', '--descriptor', 'text', '--max-tokens', '800'], { env })).out;
    const n = lastNext(first)!;
    expect(n.next).toMatch(/--from \d+ --descriptor text --max-tokens 800$/);
    const to = Number(/-(\d+) of/.exec(n.what)![1]);
    expect(n.body.slice(0, to)).toBe(whole.slice(0, to));
    const bad = await lro(['info', id, '--full', '--from', '99999999'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--from 99999999 is past the end/);
  });
});

describe('lro ls', () => {
  let dir: string;
  let lsEnv: Record<string, string>;
  beforeAll(async () => {
    dir = join(root, 'many');
    lsEnv = { LRO_DIR: dir };
    await Promise.all(Array.from({ length: 14 }, (_, i) => lroHere(['offload', '--force', '--operation', `op-${i}`], { input: `{"a":${i}}\n`, env: lsEnv })));
  });

  async function follow(args: string[], json: boolean): Promise<string[]> {
    let out = (await lro(['ls', ...args], { env: lsEnv })).out;
    const items: string[] = [];
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(20);
      expect(tokens(out)).toBeLessThanOrEqual(300);
      if (json) {
        const arr = JSON.parse(out) as Record<string, unknown>[];
        const last = arr[arr.length - 1];
        const cut = last?.type === 'truncated';
        items.push(...(cut ? arr.slice(0, -1) : arr).map((x) => String(x.id)));
        if (!cut) break;
        out = (await lroHere(String(last.next).split(' ').slice(1), { env: lsEnv })).out;
      } else {
        const n = lastNext(out);
        items.push(...(n ? n.body : out).split('\n').filter(Boolean));
        if (!n) break;
        expect(n.next).toMatch(/^lro ls --offset \d+( --json)? --max-tokens 300$/);
        out = (await lroHere(n.next.split(' ').slice(1), { env: lsEnv })).out;
      }
    }
    return items;
  }

  it('cuts a long listing at the budget; following --offset to the end lists every result once', async () => {
    const whole = (await lro(['ls', '--max-tokens', '0'], { env: lsEnv })).out.split('\n').filter(Boolean);
    expect(whole).toHaveLength(14);
    const first = (await lro(['ls', '--max-tokens', '300'], { env: lsEnv })).out;
    expect(lastNext(first)?.what).toMatch(/^listed results 1-\d+ of 14, newest first \(--max-tokens 300\)$/);
    expect(await follow(['--max-tokens', '300'], false)).toEqual(whole);
  });

  it('--json stays one JSON array, its last element the continuation', async () => {
    const whole = (JSON.parse((await lro(['ls', '--json', '--max-tokens', '0'], { env: lsEnv })).out) as { id: string }[]).map((x) => x.id);
    expect(await follow(['--json', '--max-tokens', '300'], true)).toEqual(whole);
  });
});

describe('lro ls --sessions and lro info --header', () => {
  let sEnv: Record<string, string>;
  beforeAll(async () => {
    sEnv = { LRO_DIR: join(root, 'sessions') };
    const input = `${Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n')}\n`;
    for (let i = 0; i < 12; i++) await lroHere(['offload', '--session', `session-${i}-of-the-budget-test`], { input: input + i, env: sEnv });
  });

  it('ls --sessions is cut at the budget; following --offset to the end lists every session once, text and JSON', async () => {
    const whole = (await lro(['ls', '--sessions', '--max-tokens', '0'], { env: sEnv })).out.split('\n').filter(Boolean);
    expect(whole).toHaveLength(12);
    const rows: string[] = [];
    let out = (await lro(['ls', '--sessions', '--max-tokens', '200'], { env: sEnv })).out;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(12);
      expect(tokens(out)).toBeLessThanOrEqual(200);
      const n = lastNext(out);
      rows.push(...(n ? n.body : out).split('\n').filter(Boolean));
      if (!n) break;
      expect(n.next).toMatch(/^lro ls --sessions --offset \d+ --max-tokens 200$/);
      out = (await lroHere(n.next.split(' ').slice(1), { env: sEnv })).out;
    }
    expect(rows).toEqual(whole);
    const json = JSON.parse((await lro(['ls', '--sessions', '--json', '--max-tokens', '200'], { env: sEnv })).out) as Record<string, string>[];
    expect(json.at(-1)).toMatchObject({ type: 'truncated', next: expect.stringMatching(/^lro ls --sessions --offset \d+ --json --max-tokens 200$/) });
    expect(json.slice(0, -1).map((x) => x.session)).toEqual(whole.slice(0, json.length - 1).map((l) => l.split('\t')[0]));
  });

  it('info --header is cut at the budget (a big --meta); following --from gives the whole header line', async () => {
    const meta = Array.from({ length: 40 }, (_, i) => ['--meta', `key${i}=${'value '.repeat(20)}${i}`]).flat();
    const id = await store(`${'x\n'.repeat(20000)}`, meta);
    const whole = (await lro(['info', id, '--header', '--max-tokens', '0'], { env })).out;
    expect(tokens(whole)).toBeGreaterThan(1000);
    let out = (await lro(['info', id, '--header', '--max-tokens', '300'], { env })).out;
    let text = '';
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(30);
      expect(tokens(out)).toBeLessThanOrEqual(300);
      const n = lastNext(out);
      if (!n) {
        text += out;
        break;
      }
      const [, from, to] = /^printed characters (\d+)-(\d+) of /.exec(n.what)!;
      text += n.body.slice(0, Number(to) - Number(from));
      expect(n.next).toBe(`lro info ${id} --header --from ${to} --max-tokens 300`);
      out = await run(n.next);
    }
    expect(text).toBe(whole);
    expect(JSON.parse(text).meta.key39).toMatch(/ 39$/);
  });
});

describe('error messages', () => {
  it('a huge field, filter or pattern typed by the user is cut in the message', async () => {
    const id = await store('{"a":1}\n{"a":2}\n');
    const huge = 'a'.repeat(50_000);
    for (const args of [['where', id, `${huge}=1`], ['jq', id, `.${huge} | foo(`], ['count', id, '--by', huge]]) {
      const r = await lro(args, { env });
      expect(r.code, args[0]).toBe(args[0] === 'jq' ? 3 : 2);
      expect(tokens(r.stderr), args[0]).toBeLessThan(600);
      expect(r.stderr, args[0]).toMatch(/more characters\]/);
    }
  });
});
