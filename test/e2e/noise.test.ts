// End-to-end: terminal noise. The bytes are stored exactly (`cat`), but counting, the descriptor, `read` and
// `grep` see the text as a terminal shows it; `grep --raw` searches the bytes as stored.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, lro, storeEnv, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';

const root = tempDir('lro-noise-');
const env = storeEnv(root);
afterAll(() => cleanup(root));

const FIXTURES = resolve(__dirname, '../../fixtures');
const CAPTURES = [
  join(FIXTURES, 'corpus/shell-output/vitest-test-output-fail.ansi'),
  join(FIXTURES, 'terminal/vitest-run-color.tty'),
  join(FIXTURES, 'terminal/npm-install-run-color.tty'),
];
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u001b\u0008\u009b]|\r(?!$)/m;

async function store(input: Buffer | string, args: string[] = []): Promise<{ id: string; out: string }> {
  const r = await lroHere(['offload', '--force', ...args], { input, env });
  expect(r.code).toBe(0);
  const id = args.includes('--descriptor') ? /^id: (\S+)$/m.exec(r.out)![1] : (JSON.parse(r.out) as { id: string }).id;
  return { id, out: r.out };
}

const header = async (id: string) => JSON.parse((await lro(['info', id, '--header'], { env })).out) as Record<string, unknown>;

describe('real terminal captures', () => {
  for (const file of CAPTURES) {
    const name = file.slice(FIXTURES.length + 1);
    it(`${name}: cat is exact; read, grep and the descriptor see rendered text`, async () => {
      const bytes = readFileSync(file);
      const { id, out } = await store(bytes);
      expect((await lro(['cat', id], { env })).stdout.equals(bytes)).toBe(true);
      const h = await header(id);
      const shown = await lro(['read', id, '--raw', '--max-tokens', '0'], { env });
      expect(shown.out).not.toMatch(CONTROL);
      // the rendered text, with the input's own line endings: what was counted; the rest was noise
      const eol = h.line_ending === 'crlf' ? '\r\n' : '\n';
      const lines = shown.out.split('\n').slice(0, -1);
      const rendered = lines.join(eol) + (h.final_newline ? eol : '');
      expect(h.noise_bytes).toBe(bytes.length - Buffer.byteLength(rendered));
      expect(out).not.toMatch(/\\u001b/);
      const clean = await store(rendered);
      expect((await header(clean.id)).estimated_tokens).toBe(h.estimated_tokens);
    });
  }

  it('the vitest capture: grep finds words split by colour codes; --raw finds the codes', async () => {
    const { id } = await store(readFileSync(CAPTURES[1]));
    const g = await lro(['grep', id, 'AssertionError: expected 0.30000000000000004'], { env });
    expect(g.code).toBe(0);
    expect(g.out).toMatch(/^\d+:AssertionError: expected 0\.30000000000000004 to be 0\.3/m);
    expect((await lro(['grep', id, '\\x1b\\[31m'], { env })).code).toBe(1);
    const raw = await lro(['grep', id, '\\x1b\\[31m', '--raw', '-c'], { env });
    expect(raw.code).toBe(0);
    expect(Number(raw.out)).toBeGreaterThan(3);
  });

  it('the npm capture: the spinner is gone from the preview and from read', async () => {
    const { id, out } = await store(readFileSync(CAPTURES[2]), ['--descriptor', 'text']);
    expect(out).toContain('terminal noise: ');
    expect(out).not.toMatch(/[⠙⠹⠸]/);
    const r = await lro(['read', id, '--records', '8:8'], { env });
    expect(r.out).toBe('8: added 2 packages in 507ms\n');
  });

  it('offload prints the descriptor info prints again, byte for byte, in JSON and text', async () => {
    for (const file of CAPTURES) {
      const bytes = readFileSync(file);
      const { id, out } = await store(bytes);
      expect((await lro(['info', id], { env })).out).toBe(out);
      const text = await store(bytes, ['--descriptor', 'text']);
      expect((await lro(['info', text.id, '--descriptor', 'text'], { env })).out).toBe(text.out);
    }
  });
});

describe('redraws and escapes in generated output', () => {
  it('a progress line redrawn with \\r is read as its final state', async () => {
    const input = `${Array.from({ length: 50 }, () => 'Downloading 10%\rDownloading 55%\rDownloading 100%').join('\n')}\n`;
    const { id } = await store(input);
    expect((await lro(['read', id, '--head', '1'], { env })).out).toBe('1: Downloading 100%\n');
    expect((await lro(['grep', id, '10%'], { env })).code).toBe(1);
    expect((await lro(['grep', id, '10%', '--raw', '-c'], { env })).out).toBe('50\n');
    const h = await header(id);
    expect(h.noise_bytes).toBe(Buffer.byteLength(input) - 50 * 'Downloading 100%\n'.length);
  });

  it('CRLF line endings and clean text are not noise', async () => {
    const crlf = await store(Array.from({ length: 20 }, (_, i) => `line ${i}\r\n`).join(''));
    expect((await header(crlf.id)).noise_bytes).toBeUndefined();
    const mixed = await store('a\r\nb\nc\r\n');
    expect((await header(mixed.id)).noise_bytes).toBeUndefined();
    expect((await lro(['grep', mixed.id, 'a\\r$'], { env })).code).toBe(0);
  });

  it('grep finds a word that only rendering joins, in a large result (the literal pre-filter)', async () => {
    const lines = Array.from({ length: 20000 }, (_, i) => (i % 1000 === 7 ? `\u001b[31mERR\u001b[0mOR at ${i}` : `info ${i} \u001b[2mdim\u001b[22m`));
    const { id } = await store(`${lines.join('\n')}\n`);
    expect((await lro(['grep', id, 'ERROR at', '-c'], { env })).out).toBe('20\n');
    expect((await lro(['grep', id, 'error AT', '-i', '-c'], { env })).out).toBe('20\n');
    expect((await lro(['grep', id, '-F', 'ERROR', '-m', '1'], { env })).out).toBe('8:ERROR at 7\n');
    expect((await lro(['grep', id, 'ERROR', '--raw', '-c'], { env })).code).toBe(1);
  });

  it('a large input (counted in a worker) gets the same counts and descriptor as info computes', async () => {
    const line = (i: number) => `\u001b[32m✓\u001b[39m test ${i} passed \u001b[2m(${i % 97} ms)\u001b[22m${i % 5000 === 1 ? '\r\u001b[Kretry FAILED' : ''}`;
    const input = `${Array.from({ length: 60000 }, (_, i) => line(i)).join('\n')}\n`;
    const { id, out } = await store(input);
    const h = await header(id);
    expect(h.bytes).toBe(Buffer.byteLength(input));
    expect(h.noise_bytes).toBeGreaterThan(60000 * 15);
    expect((await lro(['info', id], { env })).out).toBe(out);
    expect((await lro(['grep', id, '^retry FAILED$', '-c'], { env })).out).toBe('12\n');
  });
});

describe('the threshold decides on the bytes as they would pass through', () => {
  it('output small enough passes through unchanged, escapes and all', async () => {
    const input = '\u001b[31mred\u001b[0m and 50%\r100%\n';
    const r = await lro(['offload'], { input, env });
    expect(r.stdout.equals(Buffer.from(input))).toBe(true);
  });

  it('output whose escapes push it over the threshold is stored, and counted rendered', async () => {
    const input = `${Array.from({ length: 200 }, (_, i) => `\u001b[38;5;${i % 200}m${i}\u001b[0m`).join('\n')}\n`;
    const r = await lro(['offload', '--threshold', '1000'], { input, env });
    const d = JSON.parse(r.out) as { summary: { estimated_tokens: number; noise_bytes: number } };
    expect(d.summary.estimated_tokens).toBeLessThan(1000);
    expect(d.summary.noise_bytes).toBeGreaterThan(2000);
  });
});
