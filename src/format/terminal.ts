// Terminal noise: what a terminal would show of a line, as opposed to the bytes a program wrote. Test runners,
// package managers and build tools colour their output with escape sequences and redraw progress lines with
// `\r`; stored exactly (so `lro cat` stays byte-exact), but counted, described and searched as rendered text:
//   - escape sequences (the grammar of the `ansi-regex` package) are removed; `ESC[K`, `ESC[2K` and `ESC[nG`
//     act on the line as a terminal would (spinners erase and redraw with them);
//   - `\r` moves to the start of the line and what follows overwrites (`abcdef\rXY` shows `XYcdef`); a `\r`
//     ending the line is a CRLF line ending, kept, not a redraw; a backspace moves one character back.
// Lines are rendered one at a time (a multi-line redraw with cursor-up is only stripped), so rendering keeps the
// line count, and record N is still line N. A line longer than MAX_RENDER_LINE is left as it is, whatever the
// chunks it arrives in, so the offload and every later reader agree on the rendering.
import { isUtf8 } from 'node:buffer';
import ansiRegex from 'ansi-regex';
import { decodeSurrogateEscape, encodeSurrogateEscape } from './escape.js';

/** Lines longer than this (bytes) are not rendered: their memory would be unbounded for a redraw-only stream. */
export const MAX_RENDER_LINE = 1 << 20;

const ESC = 0x1b;
const BS = 0x08;
const CR = 0x0d;
const LF = 0x0a;

/**
 * Whether buf[start, end) may hold terminal noise: an ESC, a backspace, a C1 control (UTF-8 C2 90..9F), or a
 * `\r` that is not a line ending (followed by `\n`, or last in the range). False means rendering is the identity.
 * Built from memchr-speed indexOf calls: the common clean chunk costs a few passes at memory speed.
 */
export function mayHoldNoise(buf: Uint8Array, start = 0, end = buf.length): boolean {
  const b = Buffer.from(buf.buffer, buf.byteOffset + start, end - start);
  if (b.indexOf(ESC) >= 0 || b.indexOf(BS) >= 0) return true;
  for (let i = b.indexOf(0xc2); i >= 0 && i + 1 < b.length; i = b.indexOf(0xc2, i + 1)) {
    if (b[i + 1] >= 0x90 && b[i + 1] <= 0x9f) return true;
  }
  for (let i = b.indexOf(CR); i >= 0; i = b.indexOf(CR, i + 1)) {
    if (i + 1 < b.length && b[i + 1] !== LF) return true;
  }
  return false;
}

const SEQUENCES = ansiRegex();
// eslint-disable-next-line no-control-regex
const MAY_HOLD_NOISE = /[\u001b\u0008\u0090-\u009f]|\r(?!$)/;

/** The line (no line terminator) as a terminal shows it; the same string when it holds no noise. */
export function renderLine(line: string): string {
  if (!MAY_HOLD_NOISE.test(line)) return line;
  const ending = line.endsWith('\r') ? '\r' : '';
  const body = ending ? line.slice(0, -1) : line;
  const cells: string[] = [];
  let col = 0;
  const text = (s: string) => {
    for (const ch of s) {
      if (ch === '\r') col = 0;
      else if (ch === '\b') col = Math.max(0, col - 1);
      else {
        while (cells.length < col) cells.push(' ');
        cells[col++] = ch;
      }
    }
  };
  let last = 0;
  SEQUENCES.lastIndex = 0;
  for (let m = SEQUENCES.exec(body); m; m = SEQUENCES.exec(body)) {
    text(body.slice(last, m.index));
    last = m.index + m[0].length;
    const csi = /^(?:\u001b\[|\u009b)(\d*)([KG])$/.exec(m[0]);
    if (!csi) continue; // colours, titles, cursor moves across lines: nothing to show
    const n = csi[1] === '' ? 0 : Number(csi[1]);
    if (csi[2] === 'G') col = Math.max(0, (n || 1) - 1);
    else if (n === 0) cells.length = Math.min(cells.length, col); // erase to the end of the line
    else if (n === 1) cells.fill(' ', 0, Math.min(cells.length, col + 1)); // erase to the cursor
    else cells.length = 0; // erase the whole line (the cursor stays)
  }
  text(body.slice(last));
  return cells.join('') + ending;
}

/**
 * renderLine over bytes: bytes that are not UTF-8 survive (as in the stored records), and a line longer than
 * MAX_RENDER_LINE, or one without noise, is returned as it is (the same buffer).
 */
export function renderLineBytes(line: Buffer): Buffer {
  if (line.length > MAX_RENDER_LINE || !mayHoldNoise(line)) return line;
  if (isUtf8(line)) return Buffer.from(renderLine(line.toString('utf8')), 'utf8');
  return encodeSurrogateEscape(renderLine(decodeSurrogateEscape(line)));
}

/**
 * Renders a byte stream line by line, whatever its chunks: push the chunks, then end(); `emit` receives the
 * rendered bytes in order (often the input's own memory: copy what you keep). Memory is bounded by
 * MAX_RENDER_LINE (the one unfinished line held back). `noiseBytes` counts the bytes removed: escapes, redraw
 * controls and the text they overwrote.
 */
export class TerminalRenderer {
  noiseBytes = 0;
  private carry: Buffer | null = null;
  /** In a line too long to render: pass bytes through until its end. */
  private passing = false;

  constructor(private readonly emit: (piece: Buffer) => void) {}

  push(chunk: Buffer): void {
    let start = 0;
    if (this.passing || this.carry) {
      const nl = chunk.indexOf(LF);
      const upto = nl < 0 ? chunk.length : nl + 1;
      if (this.passing) {
        this.emit(chunk.subarray(0, upto));
        if (nl >= 0) this.passing = false;
      } else {
        const joined = Buffer.concat([this.carry!, chunk.subarray(0, upto)]);
        this.carry = null;
        if (nl >= 0) this.region(joined);
        else if (joined.length > MAX_RENDER_LINE) this.giveUp(joined);
        else this.carry = joined;
      }
      if (nl < 0) return;
      start = upto;
    }
    const lastNl = chunk.lastIndexOf(LF);
    if (lastNl >= start) {
      this.region(chunk.subarray(start, lastNl + 1));
      start = lastNl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (rest.length > MAX_RENDER_LINE) this.giveUp(Buffer.from(rest));
      else this.carry = Buffer.from(rest); // a copy: the chunk's memory may be reused or transferred
    }
  }

  /** Renders the last line (one without a final newline). */
  end(): void {
    if (this.carry) this.region(this.carry);
    this.carry = null;
    this.passing = false;
  }

  private giveUp(partial: Buffer): void {
    this.emit(partial);
    this.passing = true;
  }

  /** Whole lines (each ending with `\n`, but the last piece of the input may lack it). */
  private region(buf: Buffer): void {
    if (!mayHoldNoise(buf)) {
      this.emit(buf);
      return;
    }
    let from = 0; // start of the clean run not yet emitted
    let s = 0;
    while (s < buf.length) {
      let nl = buf.indexOf(LF, s);
      if (nl < 0) nl = buf.length;
      const line = buf.subarray(s, nl);
      const shown = renderLineBytes(line);
      if (shown !== line) {
        if (s > from) this.emit(buf.subarray(from, s));
        this.emit(shown);
        this.noiseBytes += Math.max(0, line.length - shown.length); // a jump right pads with spaces
        from = nl;
      }
      s = nl + 1;
    }
    if (from < buf.length) this.emit(buf.subarray(from));
  }
}
