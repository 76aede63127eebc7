// Rendering terminal output: escapes removed, `\r` redraws and backspaces applied, line by line, whatever the
// chunks; clean text is never changed.
import { describe, expect, it } from 'vitest';
import { mayHoldNoise, MAX_RENDER_LINE, renderLine, renderLineBytes, TerminalRenderer } from '../../src/format/terminal.js';

function renderStream(chunks: Buffer[]): { text: Buffer; noise: number } {
  const out: Buffer[] = [];
  const r = new TerminalRenderer((b) => out.push(Buffer.from(b)));
  for (const c of chunks) r.push(c);
  r.end();
  return { text: Buffer.concat(out), noise: r.noiseBytes };
}

describe('renderLine', () => {
  it('removes colour and other escape sequences', () => {
    expect(renderLine('\u001b[31mFAIL\u001b[39m src/a.test.ts \u001b[2m>\u001b[22m sum')).toBe('FAIL src/a.test.ts > sum');
    expect(renderLine('\u001b]0;window title\u0007text')).toBe('text');
    expect(renderLine('\u009b31mred\u009b0m')).toBe('red');
  });

  it('overlays what follows a carriage return', () => {
    expect(renderLine('abcdef\rXY')).toBe('XYcdef');
    expect(renderLine('Downloading 10%\rDownloading 55%\rDownloading 100%')).toBe('Downloading 100%');
  });

  it('keeps a carriage return that ends the line (a CRLF line ending)', () => {
    expect(renderLine('plain\r')).toBe('plain\r');
    expect(renderLine('10%\r100%\r')).toBe('100%\r');
  });

  it('moves back on a backspace without erasing', () => {
    expect(renderLine('abc\b\bX')).toBe('aXc');
    expect(renderLine('\b\bab')).toBe('ab');
  });

  it('applies erase-line and cursor-column sequences as spinners use them', () => {
    expect(renderLine('⠙\u001b[1G\u001b[0K⠹\u001b[1G\u001b[0Knpm http fetch')).toBe('npm http fetch');
    expect(renderLine('old text\r\u001b[2Knew')).toBe('new');
    expect(renderLine('abcdef\r\u001b[K')).toBe('');
    expect(renderLine('ab\u001b[5Gx')).toBe('ab  x');
  });

  it('leaves text without noise exactly as it is', () => {
    for (const s of ['', 'plain', 'tab\there', 'é ü 😀', 'a\u0000b']) expect(renderLine(s)).toBe(s);
  });
});

describe('renderLineBytes and mayHoldNoise', () => {
  it('keeps bytes that are not UTF-8', () => {
    const line = Buffer.concat([Buffer.from('\u001b[1m'), Buffer.from([0xff, 0xfe]), Buffer.from('\u001b[0mend')]);
    expect(renderLineBytes(line)).toEqual(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('end')]));
  });

  it('leaves a line longer than the limit alone', () => {
    const long = Buffer.alloc(MAX_RENDER_LINE + 10, 'a');
    long[0] = 0x1b;
    expect(renderLineBytes(long)).toBe(long);
  });

  it('finds escapes, backspaces, C1 controls and redraws, not CRLF endings', () => {
    expect(mayHoldNoise(Buffer.from('a\r\nb\r\n'))).toBe(false);
    expect(mayHoldNoise(Buffer.from('ends with cr\r'))).toBe(false);
    expect(mayHoldNoise(Buffer.from('é©°'))).toBe(false);
    expect(mayHoldNoise(Buffer.from('a\rb'))).toBe(true);
    expect(mayHoldNoise(Buffer.from('\u001b[0m'))).toBe(true);
    expect(mayHoldNoise(Buffer.from('x\by'))).toBe(true);
    expect(mayHoldNoise(Buffer.from('\u009b0m'))).toBe(true);
  });
});

describe('TerminalRenderer', () => {
  const input = Buffer.from('\u001b[32mok\u001b[39m 1\n50%\r100%\nclean line\r\n\u001b[31mERR\u001b[0mOR last');

  it('renders line by line and counts the bytes removed', () => {
    const { text, noise } = renderStream([input]);
    expect(text.toString()).toBe('ok 1\n100%\nclean line\r\nERROR last');
    expect(noise).toBe(input.length - text.length);
  });

  it('gives the same result whatever the chunk boundaries', () => {
    const whole = renderStream([input]);
    for (let cut = 1; cut < input.length; cut++) {
      const split = renderStream([input.subarray(0, cut), input.subarray(cut)]);
      expect(split.text.equals(whole.text)).toBe(true);
      expect(split.noise).toBe(whole.noise);
    }
    const bytes = renderStream([...input].map((b) => Buffer.from([b])));
    expect(bytes.text.equals(whole.text)).toBe(true);
  });

  it('passes a line longer than the limit through unrendered, in any chunks', () => {
    const long = Buffer.concat([Buffer.from('\u001b[1m'), Buffer.alloc(MAX_RENDER_LINE + 5, 'x'), Buffer.from('\n\u001b[1mnext\n')]);
    for (const size of [1000, 65536, long.length]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < long.length; i += size) chunks.push(long.subarray(i, i + size));
      const { text, noise } = renderStream(chunks);
      expect(text.subarray(0, MAX_RENDER_LINE + 9).equals(long.subarray(0, MAX_RENDER_LINE + 9))).toBe(true);
      expect(text.subarray(MAX_RENDER_LINE + 10).toString()).toBe('next\n');
      expect(noise).toBe(4);
    }
  });
});
