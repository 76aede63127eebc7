// The streaming scanner: the same findings and the same redacted bytes whatever the chunks, with the cases that
// cross chunk and line boundaries: a value on the line after its key, PEM private keys over many lines, lines
// longer than MAX_LINE, CRLF, no final newline, bytes that are not UTF-8; and sampling.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_LINE, SecretScanner } from '../../src/secrets/stream.js';
import { maskLines, maskSecrets } from '../../src/secrets/mask.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const GHP = 'ghp_R8sTq2LmZx9Vb4Nc7Wd1Ye5Uf3Ig6Hj0Kk2X';
const KEY = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQJAIJLixBy2qpFoS4DSmoEmo3qGy0t6z09AIJtH+5OeRV1be+N4cDYJKffGzDa88vQENZiRm0GRq6a+HPGQMd2kTQIhAKMSvzIBnni7ot/OSie2TmJLY4SwTQAevXysE2RbFDYdAiEBCUEaRQnMnbp79mxDXDf6AU0cN/RPBjb9qSHDcWZHGzUCIG2Es59z8ugGrDY+pxLQnwfotadxd+Uyv/Ow5T0q5gIJAiEAyS4RaI9YG8EWx/2w0T67ZUVAw8eOMB6BIUg0Xcu+3okCIBOs/5OiPgoTdSy7bcF9IGpSE8ZgGKzgYQVZeN97Y==',
  '-----END RSA PRIVATE KEY-----',
].join('\n');

/** Redacts input pushed in the given chunk sizes (cycled). */
function redact(input: Buffer, sizes: number[] = [input.length || 1]): { out: Buffer; counts: Record<string, number> } {
  const pieces: Buffer[] = [];
  const s = new SecretScanner({ emit: (b) => pieces.push(Buffer.from(b)) });
  for (let i = 0, k = 0; i < input.length; k++) {
    const n = Math.max(1, sizes[k % sizes.length]);
    s.push(input.subarray(i, i + n));
    i += n;
  }
  s.end();
  return { out: Buffer.concat(pieces), counts: s.counts };
}

describe('SecretScanner', () => {
  it('replaces findings and leaves every other byte as it was (CRLF, no final newline, invalid UTF-8)', () => {
    const input = Buffer.concat([Buffer.from(`a\r\ntoken ${GHP}\r\n\xff\xfe `, 'latin1'), Buffer.from([0xc3, 0x28]), Buffer.from(` end ${GHP}`)]);
    const { out, counts } = redact(input);
    expect(out).toEqual(Buffer.concat([Buffer.from('a\r\ntoken [REDACTED:github-pat]\r\n\xff\xfe ', 'latin1'), Buffer.from([0xc3, 0x28]), Buffer.from(' end [REDACTED:github-pat]')]));
    expect(counts).toEqual({ 'github-pat': 2 });
  });

  it('finds a value on the line after its key, and a private key over many lines, across chunk boundaries', () => {
    const input = Buffer.from(`x\n<adafruitToken>\n    abcdefghijklmnopqrstuvwx12345678\n</adafruitToken>\n${KEY}\nafter\n`);
    const whole = redact(input);
    expect(whole.out.toString()).toBe('x\n<adafruitToken>\n    [REDACTED:adafruit-api-key]\n</adafruitToken>\n[REDACTED:private-key]\nafter\n');
    expect(whole.counts).toEqual({ 'adafruit-api-key': 1, 'private-key': 1 });
    for (const sizes of [[1], [2, 3], [7], [64], [13, 1, 200]]) expect(redact(input, sizes).out.toString(), String(sizes)).toBe(whole.out.toString());
  });

  it('gives the same result however the input is cut (property)', () => {
    const parts = ['token=', GHP, '\n', '\r\n', ' ', 'password: ', 'postgres://u:S3cretPassw0rd@db/x', KEY, '<githubToken>\n', 'xoxb-781236542736-2364535789652-GkwFDQoHqzXDVsC6GzqYUypD', 'plain text'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...parts), { maxLength: 20 }), fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 5 }), (ps, sizes) => {
        const input = Buffer.from(ps.join(''));
        const a = redact(input);
        const b = redact(input, sizes);
        expect(b.out).toEqual(a.out);
        expect(b.counts).toEqual(a.counts);
        expect(a.out.toString()).not.toContain(GHP);
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it('scans a line longer than MAX_LINE in windows, finding secrets anywhere in it, even across window edges', () => {
    const filler = 'x '.repeat(MAX_LINE / 2 - 20);
    const line = `${GHP} ${filler}${GHP} ${filler}tail ${GHP}\nnext ${GHP}\n`;
    const { out, counts } = redact(Buffer.from(line), [65536]);
    expect(counts).toEqual({ 'github-pat': 4 });
    expect(out.toString()).not.toContain(GHP);
    expect(out.length).toBe(line.length + 4 * ('[REDACTED:github-pat]'.length - GHP.length));
  });

  it('counts without emitting; sampled, it scans its windows only, the same whatever the chunks', () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${String(i).padStart(4, '0')} token ${GHP}\n`);
    const input = Buffer.from(lines.join(''));
    const lineBytes = lines[0].length; // all lines are as long
    const count = (sizes: number[], sample?: { full: number; every: number; take: number }) => {
      const s = new SecretScanner({ sample });
      for (let i = 0, k = 0; i < input.length; k++) {
        const n = sizes[k % sizes.length];
        s.push(input.subarray(i, i + n));
        i += n;
      }
      s.end();
      return s.counts['github-pat'] ?? 0;
    };
    expect(count([4096])).toBe(2000);
    const sample = { full: 100 * lineBytes + 5, every: 400 * lineBytes, take: 50 * lineBytes };
    // the first 100 lines and the 50 after them (the first window follows on), then in each later window of 400
    // lines the 50 it starts in, less the one cut at its start
    const want = 150 + 4 * 49;
    for (const sizes of [[input.length], [1], [7, 1000], [65536], [lineBytes]]) expect(count(sizes, sample), String(sizes)).toBe(want);
  });

  it('masks a preview line, and returns the same bytes when there is nothing to mask', () => {
    expect(Buffer.from(maskSecrets(Buffer.from(`export TOKEN=${GHP}`))).toString()).toBe('export TOKEN=[MASKED:github-pat]');
    const clean = Buffer.from('nothing here');
    expect(maskSecrets(clean)).toBe(clean);
  });

  it('masks many lines at once as it masks each: every line of gitleaks\' examples, keyed secrets and a PEM key', () => {
    const strings = (file: string): string[] => {
      const out: string[] = [];
      const walk = (v: unknown): void => {
        if (typeof v === 'string') out.push(...v.split('\n'));
        else if (v && typeof v === 'object') Object.values(v).forEach(walk);
      };
      walk(JSON.parse(readFileSync(resolve(__dirname, 'fixtures', file), 'utf8')));
      return out;
    };
    const lines = [...strings('gitleaks-examples.json'), ...strings('keyed-secrets.json'), ...KEY.split('\n'), '', 'plain'];
    const bytes = lines.map((l) => Buffer.from(l));
    const one = bytes.map((b) => Buffer.from(maskSecrets(b)).toString());
    const many = maskLines(bytes).map((b) => Buffer.from(b).toString());
    expect(many).toEqual(one);
    expect(one.filter((l, i) => l !== lines[i]).length).toBeGreaterThan(250); // the examples do hold secrets (296 lines masked)
    expect(maskLines(bytes.slice(-2))).toEqual(bytes.slice(-2));
  });
});

describe('patterns that backtrack exponentially in JavaScript', () => {
  it('run on the linear engine: a curl line of many \\r is scanned at once, and curl -u is still found', () => {
    // backtracking, this line would take far longer than the test's timeout (80 \r took 4 s; each doubles it)
    const line = `curl ${'ab\r'.repeat(2000)}\n`;
    expect(redact(Buffer.from(line)).counts).toEqual({});
    expect(redact(Buffer.from('curl -u "admin:Sup3rS3cr3tPw" https://example.com\n')).counts['curl-auth-user']).toBe(1);
  });
});
