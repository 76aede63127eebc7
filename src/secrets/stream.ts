// Scans a byte stream for secrets, line by line, whatever its chunks: counts the findings per rule and, when
// redacting, emits the stream with each finding replaced by `[REDACTED:<rule>]`. The result does not depend on
// how the input was cut into chunks. Memory stays bounded:
//   - one pass of the keyword automaton over the bytes; only the lines holding a rule's keyword run its regex;
//   - a line is scanned with the start of the next one (CONTEXT bytes) after it, as gitleaks, which scans whole
//     files, would see it: `key:` at the end of a line and its value on the next are found (the match must start
//     on the line; one starting on the next line is that line's);
//   - a line is scanned whole up to MAX_LINE bytes; a longer one in windows of MAX_LINE bytes that overlap by
//     OVERLAP, a finding being taken from the window that holds all of it;
//   - a PEM block (a line with `-----BEGIN`, up to the next line with `-----END`) is scanned as one text, so a
//     private key written over many lines is found and replaced as one span; a block that runs past HOLD_MAX
//     bytes or HOLD_LINES lines is scanned line by line instead.
import { KeywordAutomaton } from './keywords.js';
import { findSecrets, type Finding } from './scan.js';
import { loadRules, rulesFile, type Rule, type Rules } from './rules.js';

/** Lines up to this many bytes are scanned whole. */
export const MAX_LINE = 1 << 20;
/** Overlap of the windows of a longer line: more than any secret the rules find there. */
export const OVERLAP = 16 << 10;
/** Lines are cut from latin1 strings of about this many bytes of input. */
const TEXT_BLOCK = 64 << 10;
/** How much of the next line a line is scanned with. */
export const CONTEXT = 4 << 10;
const HOLD_MAX = 64 << 10;
const HOLD_LINES = 1000;
const END = Buffer.from('-----end');

export interface ScannerOptions {
  /** Redaction: receives the stream with findings replaced (pieces may be views into the pushed chunks). */
  emit?: (piece: Buffer) => void;
  /**
   * Counting only: scan all of the first `full` bytes, then the first `take` bytes of every `every` bytes after
   * that (whole lines: a line cut by a window's edge is left out). Windows are fixed by byte offsets, so what is
   * scanned does not depend on the chunks.
   */
  sample?: { full: number; every: number; take: number };
  /** Only these rules (ids); default all. */
  only?: string[];
  /** The replacement's label: `[LABEL:rule]`; default REDACTED. */
  label?: string;
}

/** The rules, and their keyword automaton with one more trigger, `-----begin` (PEM blocks), at index rules.length. */
interface Engine {
  rules: Rules;
  auto: KeywordAutomaton;
  /** Per output set of the automaton: whether it holds `-----begin`. */
  pem: boolean[];
  /** Rules without any trigger. */
  always: number[];
  /** Length of each anchor literal. */
  literalLength: Int32Array;
}

let shared: Engine | null = null;

/** The engine, built once per thread. */
export function engine(): Engine {
  if (!shared) {
    const rules = loadRules();
    // built with the rules: their triggers, then `-----begin` (scripts/build-secrets.mjs)
    const auto = new KeywordAutomaton(rulesFile('keywords.bin'));
    auto.gateOutputsBelow(rules.rules.length + 1); // the rules' keywords and `-----begin`; not the literals
    const pemIndex = rules.rules.length;
    const always = rules.rules.filter((r) => !r.triggers?.length).map((r) => r.index);
    const literalLength = Int32Array.from(rules.table.anchorLiterals, (l) => l.length);
    shared = { rules, auto, pem: auto.sets.map((set) => set.includes(pemIndex)), always, literalLength };
  }
  return shared;
}

/** The replacement of a finding: `[LABEL:rule-id]`. */
export function marker(label: string, rule: string): Buffer {
  return Buffer.from(`[${label}:${rule}]`, 'latin1');
}

/** Merges overlapping findings (the first one names the merged span); they come sorted by start. */
export function mergeSpans(findings: Finding[]): Finding[] {
  const out: Finding[] = [];
  for (const f of [...findings].sort((a, b) => a.start - b.start || b.end - a.end)) {
    const last = out[out.length - 1];
    if (last && f.start < last.end) last.end = Math.max(last.end, f.end);
    else out.push({ ...f });
  }
  return out;
}

/** Case-insensitive search of a lower-case ASCII needle in buf[from, to). */
function hasLower(buf: Uint8Array, from: number, to: number, needle: Buffer): boolean {
  outer: for (let i = from; i + needle.length <= to; i++) {
    for (let k = 0; k < needle.length; k++) {
      const b = buf[i + k];
      if ((b >= 65 && b <= 90 ? b + 32 : b) !== needle[k]) continue outer;
    }
    return true;
  }
  return false;
}

/** End of the line starting at `at` in buf[.., to): the position of its `\n`, or `to`. */
function lineEnd(buf: Buffer, at: number, to: number): number {
  const nl = buf.indexOf(0x0a, at);
  return nl < 0 || nl >= to ? to : nl;
}

/** The streaming scanner (see the top of this file). */
export class SecretScanner {
  /** Findings per rule id. */
  readonly counts: Record<string, number> = {};
  /** Bytes scanned so far. */
  scanned = 0;
  private readonly rules: Rules;
  private readonly auto: KeywordAutomaton;
  private readonly pem: boolean[];
  /** Rules without any trigger: they run on every line (none in the shipped set). */
  private readonly always: number[];
  private readonly stamp: Int32Array;
  private stampId = 0;
  private excluded: Set<number> | null = null;
  /** Length of each anchor literal. */
  private readonly literalLength: Int32Array;
  /** Input not processed yet: a line kept for the one after it to arrive, and an unfinished line. */
  private carry: Buffer | null = null;
  /** Inside a line longer than MAX_LINE: its unscanned rest is in `carry`. */
  private long = false;
  /** A PEM block being gathered (copies of its lines, with their `\n`). */
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** A block of the current `lines` call's data as a latin1 string (from textAt to textEnd), made when needed. */
  private text: string | null = null;
  private textAt = 0;
  private textEnd = 0;
  /** Spans found from a line that reach into the next one (offsets in that line), and where it starts (-1: none). */
  private pending: Finding[] = [];
  private pendingAt = -1;
  /** Pending spans for the first line of a PEM block being gathered. */
  private heldPending: Finding[] = [];
  private done = false;

  // (what depends on the rules only is the engine's, made once: a preview masks each of its lines with a scanner
  // of its own, thousands for a descriptor, and making these per scanner was most of that)
  constructor(private readonly options: ScannerOptions = {}) {
    const { rules, auto, pem, always, literalLength } = engine();
    [this.rules, this.auto, this.pem, this.always, this.literalLength] = [rules, auto, pem, always, literalLength];
    this.stamp = new Int32Array(this.rules.rules.length + 1);
    if (options.only) {
      this.excluded = new Set(this.rules.rules.filter((r) => !options.only!.includes(r.id)).map((r) => r.index));
      this.always = this.always.filter((r) => !this.excluded!.has(r));
    }
  }

  /** Total findings so far. */
  get total(): number {
    return Object.values(this.counts).reduce((a, b) => a + b, 0);
  }

  push(chunk: Buffer): void {
    if (this.done || chunk.length === 0) return;
    if (this.options.sample) {
      this.pushSampled(chunk);
      return;
    }
    if (chunk.length > MAX_LINE) {
      for (let i = 0; i < chunk.length && !this.done; i += MAX_LINE) this.push(chunk.subarray(i, i + MAX_LINE));
      return;
    }
    const data = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = null;
    this.consume(data, false);
  }

  /** Bytes of the input seen so far (sampling). */
  private offset = 0;
  /** After a gap in the sample: drop bytes up to the next line start. */
  private resyncing = false;

  /** Feeds the parts of chunk that fall in the sample's windows; forgets the line state across each gap. */
  private pushSampled(chunk: Buffer): void {
    const { full, every, take } = this.options.sample!;
    const inWindow = (at: number) => at < full || (at - full) % every < take;
    // the next offset where being in a window changes
    const nextEdge = (at: number) => {
      if (at < full) return full;
      const k = (at - full) % every;
      return k < take ? at + (take - k) : at + (every - k);
    };
    let at = 0;
    while (at < chunk.length) {
      const pos = this.offset + at;
      const edge = Math.min(chunk.length, at + (nextEdge(pos) - pos));
      if (inWindow(pos)) {
        let piece = chunk.subarray(at, edge);
        if (this.resyncing) {
          const nl = piece.indexOf(0x0a);
          piece = nl < 0 ? piece.subarray(piece.length) : piece.subarray(nl + 1);
          this.resyncing = nl < 0;
        }
        for (let i = 0; i < piece.length; i += MAX_LINE) {
          const part = piece.subarray(i, i + MAX_LINE);
          const data = this.carry ? Buffer.concat([this.carry, part]) : part;
          this.carry = null;
          this.consume(data, false);
        }
      } else if (!this.resyncing) this.forget();
      at = edge;
    }
    this.offset += chunk.length;
  }

  /**
   * A gap in the sample: the complete lines kept for their context are scanned with what there is of it, a PEM
   * block being gathered line by line; an unfinished line is dropped unscanned.
   */
  private forget(): void {
    const c = this.carry;
    const lastNl = c && !this.long ? c.lastIndexOf(0x0a) : -1;
    this.carry = null;
    if (c && lastNl >= 0) this.lines(c, 0, lastNl + 1, false);
    this.releaseHeld(false);
    this.long = false;
    this.held = [];
    this.heldBytes = 0;
    this.pending = [];
    this.pendingAt = -1;
    this.heldPending = [];
    this.resyncing = true;
  }

  /** Scans what is left (a last line without a newline, a PEM block still open). */
  end(): void {
    if (this.done) return;
    const rest = this.carry ?? Buffer.alloc(0);
    this.carry = null;
    this.consume(rest, true);
    this.releaseHeld(false);
    this.done = true;
  }

  private emit(piece: Buffer): void {
    if (piece.length > 0) this.options.emit?.(piece);
  }

  /** Processes data (starting at a line start, or inside a long line), keeping what must wait in `carry`. */
  private consume(data: Buffer, final: boolean): void {
    let start = 0;
    if (this.long) {
      const nl = data.indexOf(0x0a);
      const ended = nl >= 0 || final;
      const lineEnd = nl >= 0 ? nl : data.length;
      const rest = this.drainLong(data.subarray(0, lineEnd), ended, nl >= 0);
      if (!ended) {
        this.carry = rest;
        return;
      }
      this.long = false;
      this.emit(data.subarray(lineEnd, lineEnd + 1));
      this.scanned += Math.min(1, data.length - lineEnd);
      start = lineEnd + 1;
    }
    if (start >= data.length && !final) return;
    const lastNl = data.lastIndexOf(0x0a);
    let ready: number;
    if (final) ready = data.length;
    else if (lastNl < start) ready = start;
    else if (data.length - (lastNl + 1) >= CONTEXT) ready = lastNl + 1;
    else ready = Math.max(start, data.lastIndexOf(0x0a, lastNl - 1) + 1); // keep the last line for its context
    if (ready > start) this.lines(data, start, ready, final);
    const rest = data.subarray(ready);
    if (final || rest.length === 0) return;
    const firstNl = rest.indexOf(0x0a);
    if (firstNl < 0 && rest.length > MAX_LINE) {
      this.long = true;
      this.carry = this.drainLong(rest, false, false);
    } else this.carry = Buffer.from(rest); // a copy: the chunk may be handed on (and transferred)
  }

  /**
   * Lines data[from, to) (the last one may lack its `\n` when `final`); what follows `to` in data is the next
   * line's start, for context. Emitted as they are or redacted.
   */
  private lines(buf: Buffer, from: number, to: number, final: boolean): void {
    this.scanned += to - from;
    this.text = null;
    let emitted = from;
    let pos = from;
    // the line the pending spans are for, when it comes before `before` and has no findings of its own
    const flushPending = (before: number) => {
      if (this.pendingAt < 0 || this.pendingAt >= before) return;
      const at = this.pendingAt;
      const le = lineEnd(buf, at, to);
      this.emit(buf.subarray(emitted, at));
      this.emitRedacted(buf, at, le, this.takePending(le - at));
      emitted = le;
    };
    while (pos < to) {
      if (this.held.length > 0) {
        // inside a PEM block: gather its lines
        const le = lineEnd(buf, pos, to);
        this.hold(buf.subarray(pos, Math.min(to, le + 1)));
        pos = emitted = Math.min(to, le + 1);
        continue;
      }
      let holdAt = -1;
      pos = this.auto.scanLines(buf, pos, to, final, this.always.length > 0, (ls, le, sets, hits) => {
        flushPending(ls);
        if (sets.some((s) => this.pem[s]) && !hasLower(buf, ls, le, END)) {
          holdAt = ls;
          return true;
        }
        const carried = this.pendingAt === ls ? this.takePending(le - ls) : [];
        const found = sets.length || this.always.length ? this.scanLine(buf, ls, le, sets, hits) : [];
        const spans = [...carried, ...found];
        if (spans.length && this.options.emit) {
          this.emit(buf.subarray(emitted, ls));
          this.emitRedacted(buf, ls, le, spans);
          emitted = le;
        }
        return false;
      });
      if (holdAt < 0) break;
      this.emit(buf.subarray(emitted, holdAt));
      this.heldPending = this.pendingAt === holdAt ? this.takePending(Infinity) : [];
      const le = lineEnd(buf, holdAt, to);
      this.hold(buf.subarray(holdAt, Math.min(to, le + 1)));
      pos = emitted = Math.min(to, le + 1);
    }
    flushPending(to);
    this.emit(buf.subarray(emitted, to));
    // spans for the first line of what comes next
    if (this.pendingAt >= 0) this.pendingAt -= to;
  }

  /** The pending spans (for a line of `length` bytes), cleared; a part past the line is dropped. */
  private takePending(length: number): Finding[] {
    const spans = this.pending.map((f) => ({ ...f, end: Math.min(f.end, length) })).filter((f) => f.end > f.start);
    this.pending = [];
    this.pendingAt = -1;
    return spans;
  }

  /** Rule indices for the keyword sets seen (and the trigger-less rules). */
  private rulesFor(sets: number[]): number[] {
    const id = ++this.stampId;
    const rules = this.rules.rules.length; // past the rules: the PEM trigger, then the anchor literals
    const out: number[] = [];
    for (const s of sets) {
      for (const r of this.auto.sets[s]) {
        if (r < rules && this.stamp[r] !== id && !this.excluded?.has(r)) {
          this.stamp[r] = id;
          out.push(r);
        }
      }
    }
    for (const r of this.always) if (this.stamp[r] !== id) out.push(r);
    return out;
  }

  /**
   * Findings of the line buf[ls, le) (le at its `\n` or the end of the data), scanned with the next line; spans
   * reaching into the next line are kept for it in `pending`; the ones returned are clipped to this line.
   */
  private scanLine(buf: Buffer, ls: number, le: number, sets: number[], hits: number[] | null): Finding[] {
    // a latin1 string of TEXT_BLOCK bytes or so, from the first line that needs it; lines are slices of it (small
    // strings: a string per line costs more, one of the whole chunk is an old-space object per chunk)
    const body = le - ls;
    let end = le;
    if (le < buf.length) {
      // gitleaks sees the newline, and the next line (with its own newline), after this one
      const ns = le + 1;
      const ne = lineEnd(buf, ns, buf.length);
      end = ne - ns > CONTEXT ? ns + CONTEXT : ne < buf.length ? ne + 1 : ne;
    }
    if (this.text === null || ls < this.textAt || end > this.textEnd) {
      this.textAt = ls;
      this.textEnd = Math.min(buf.length, Math.max(end, ls + TEXT_BLOCK));
      this.text = buf.toString('latin1', ls, this.textEnd);
    }
    const text = this.text.slice(ls - this.textAt, end - this.textAt);
    const found = findSecrets(this.rules, text, this.rulesFor(sets), body, hits ? this.literalsAt(hits, ls) : undefined);
    this.count(found);
    const mine: Finding[] = [];
    for (const f of found) {
      if (f.start < body) mine.push({ ...f, end: Math.min(f.end, body) });
      if (f.end > body + 1 && this.options.emit) {
        this.pending.push({ rule: f.rule, start: Math.max(0, f.start - body - 1), end: f.end - body - 1 });
        this.pendingAt = le + 1;
      }
    }
    return mine;
  }

  /** Where a rule's anchor literals start on the line at ls, from the automaton's hits there (ascending). */
  private literalsAt(hits: number[], ls: number): (rule: Rule) => number[] {
    const first = this.rules.rules.length + 1; // the first anchor literal's output
    const sets = this.auto.sets;
    const lengths = this.literalLength;
    return (rule) => {
      const ids = rule.anchor!.ids;
      const out: number[] = [];
      for (let k = 0; k < hits.length; k += 2) {
        for (const item of sets[hits[k + 1]]) {
          if (item >= first && ids.includes(item - first)) out.push(hits[k] - lengths[item - first] + 1 - ls);
        }
      }
      if (out.length > 1) {
        // hits come in order of their ends: literals of several lengths may need sorting
        out.sort((x, y) => x - y);
        return out.filter((x, i) => i === 0 || x !== out[i - 1]);
      }
      return out;
    };
  }

  private count(found: Finding[]): void {
    for (const f of found) this.counts[f.rule] = (this.counts[f.rule] ?? 0) + 1;
  }

  /** Emits buf[ls, le) with the spans (offsets from ls) replaced. */
  private emitRedacted(buf: Buffer, ls: number, le: number, spans: Finding[]): void {
    let at = ls;
    for (const f of mergeSpans(spans)) {
      this.emit(buf.subarray(at, ls + f.start));
      this.emit(marker(this.options.label ?? 'REDACTED', f.rule));
      at = ls + f.end;
    }
    this.emit(buf.subarray(at, le));
  }

  /** Adds a line (with its `\n`) to the PEM block being gathered; scans the block at its end or its limit. */
  private hold(line: Buffer): void {
    const first = this.held.length === 0;
    this.held.push(Buffer.from(line)); // a copy: the chunk may be handed on
    this.heldBytes += line.length;
    if (!first && hasLower(line, 0, line.length, END)) this.releaseHeld(true);
    else if (this.heldBytes > HOLD_MAX || this.held.length > HOLD_LINES) this.releaseHeld(false);
  }

  /** Scans the gathered block: as one text when it is complete, else line by line. */
  private releaseHeld(complete: boolean): void {
    if (this.held.length === 0) return;
    const lines = this.held;
    this.held = [];
    this.heldBytes = 0;
    const pieces = complete ? [Buffer.concat(lines)] : lines;
    let carried = this.heldPending;
    this.heldPending = [];
    for (const piece of pieces) {
      const body = piece[piece.length - 1] === 0x0a ? piece.length - 1 : piece.length;
      const text = piece.toString('latin1', 0, piece.length);
      const found = findSecrets(this.rules, text, this.rulesFor(this.auto.setsIn(text)), body);
      this.count(found);
      const spans = [...carried, ...found.map((f) => ({ ...f, end: Math.min(f.end, body) }))];
      carried = [];
      if (spans.length && this.options.emit) this.emitRedacted(piece, 0, body, spans);
      else this.emit(piece.subarray(0, body));
      this.emit(piece.subarray(body));
    }
  }

  /**
   * Part of a line longer than MAX_LINE (without its `\n`): scans windows of MAX_LINE bytes while more than that
   * is waiting, or all of it when the line has `ended` (`terminated` by a `\n`). Returns the unscanned rest.
   */
  private drainLong(part: Buffer, ended: boolean, terminated: boolean): Buffer {
    this.releaseHeld(false); // keep the output in order
    let c = part;
    for (;;) {
      const w = Math.min(c.length, MAX_LINE);
      const last = ended && w === c.length;
      if (!last && c.length <= MAX_LINE) return Buffer.from(c);
      const text = c.toString('latin1', 0, w) + (last && terminated ? '\n' : '');
      const all = findSecrets(this.rules, text, this.rulesFor(this.auto.setsIn(text)), w);
      let cut = last ? w : w - OVERLAP;
      const crossing = all.find((f) => f.start < cut && f.end > cut);
      if (crossing) cut = crossing.start > 0 ? crossing.start : Math.min(w, crossing.end);
      const found = all.filter((f) => f.end <= cut);
      this.count(found);
      this.scanned += cut;
      const spans = [...(this.pendingAt === 0 ? this.takePending(cut) : []), ...found];
      if (spans.length && this.options.emit) this.emitRedacted(c, 0, cut, spans);
      else this.emit(c.subarray(0, cut));
      c = c.subarray(cut);
      if (last || c.length === 0) return Buffer.alloc(0);
    }
  }
}
