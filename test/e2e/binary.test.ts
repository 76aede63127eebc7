// End-to-end: a binary result. The readers that read text or JSON say in one line what it is (size, kind by its
// magic number) and what can be done, exit 2, instead of printing base64; `lro grep --strings` searches its
// printable strings as strings(1) finds them; `lro cat` gives the bytes back.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, lro, tempDir } from '../helpers/cli.js';

let root: string;
let store: string;
const env = () => ({ LRO_DIR: store });

/** A PNG-like file: its signature, bytes that are not text, and a few printable strings at known offsets. */
function pngLike(): Buffer {
  const parts: Buffer[] = [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])];
  for (let i = 0; i < 200; i++) {
    parts.push(Buffer.from([0, 1, 2, 0xff, 0xfe, i & 0xff, 0, 0]));
    parts.push(Buffer.from(i % 50 === 7 ? `tEXtComment made by tool ${i}` : 'ab'));
  }
  return Buffer.concat(parts);
}

let id: string;
const bytes = pngLike();

beforeAll(async () => {
  root = tempDir();
  store = join(root, 'store');
  const r = await lro(['offload', '--force'], { env: env(), input: bytes });
  id = JSON.parse(r.out).id;
});
afterAll(() => cleanup(root));

describe('binary results: the readers refuse in one line', () => {
  for (const args of [['read'], ['grep', 'tEXt'], ['jq', '.'], ['where', 'a=1'], ['count', '--by', 'x']]) {
    it(`lro ${args[0]} says what the result is and what to do, exit 2`, async () => {
      const r = await lro([args[0], id, ...args.slice(1)], { env: env() });
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      const lines = r.stderr.split('\n');
      expect(lines.length).toBe(2); // one line and its newline
      expect(lines[0]).toContain(`result ${id} is binary: ${bytes.length.toLocaleString('en-US')} bytes, PNG image`);
      expect(lines[0]).toContain(`lro cat ${id} | file -`);
      expect(lines[0]).toContain(`lro grep ${id} PATTERN --strings`);
    });
  }

  it('lro cat still gives the bytes back exactly', async () => {
    const r = await lro(['cat', id], { env: env() });
    expect(r.code).toBe(0);
    expect(createHash('sha256').update(r.stdout).digest('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
  });
});

describe('lro grep --strings', () => {
  it('finds the printable strings that match, numbered, with their byte offsets', async () => {
    const r = await lro(['grep', id, 'made by tool', '--strings'], { env: env() });
    expect(r.code).toBe(0);
    const want = [7, 57, 107, 157].map((i) => {
      const offset = bytes.indexOf(`tEXtComment made by tool ${i}`);
      return `@${offset} tEXtComment made by tool ${i}`;
    });
    expect(r.out.trim().split('\n').map((l) => l.replace(/^\d+:/, ''))).toEqual(want);
    expect((await lro(['grep', id, 'made by', '--strings', '-c'], { env: env() })).out).toBe('4\n');
    const j = JSON.parse((await lro(['grep', id, 'tool 57$', '--strings', '--json'], { env: env() })).out);
    expect(j).toMatchObject({ type: 'match', offset: bytes.indexOf('tEXtComment made by tool 57'), text: 'tEXtComment made by tool 57' });
    expect((await lro(['grep', id, 'no such string', '--strings'], { env: env() })).code).toBe(1);
  });

  it('cuts at the budget with the exact command for the rest', async () => {
    const first = await lro(['grep', id, 'tool', '--strings', '--max-tokens', '20'], { env: env() });
    const next = /next: lro grep (\S+) tool --max-tokens 20 --strings --records (\d+):\]/.exec(first.out);
    expect(next, first.out).not.toBeNull();
    const rest = await lro(['grep', id, 'tool', '--strings', '--max-tokens', '0', '--records', `${next![2]}:`], { env: env() });
    const shown = first.out.split('\n').filter((l) => /^\d+:@/.test(l)).length;
    expect(shown + rest.out.trim().split('\n').length).toBe(4);
  });

  it('is refused for a text result, with what to do', async () => {
    const t = JSON.parse((await lro(['offload', '--force'], { env: env(), input: 'plain text\n' })).out).id;
    const r = await lro(['grep', t, 'plain', '--strings'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lro: --strings searches a binary result, and \w+ is text: drop --strings\n$/);
  });
});
