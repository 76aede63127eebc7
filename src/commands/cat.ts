// `lro cat ID`: the original content, exactly (CONTRACT section 2), checked against the header's sha256.
import { createHash, type Hash } from 'node:crypto';
import { DIR_OPTION, ID_ARGUMENT, type CommandDef } from './command.js';
import { FormatError } from '../format/header.js';
import { originalPieces } from '../format/reader.js';
import type { IO } from '../io.js';
import { damagedError, resolveResult } from '../store/resolve.js';
import { streamsOf } from '../format/streams.js';
import { streamFilter } from '../query/view.js';
import { STREAM_OPTION } from './stream-option.js';
import CAT_HELP from 'help:cat';

const OUT_CHUNK = 1 << 20;
/** A piece at least this long is written by itself rather than gathered (OutChunks.add). */
const DIRECT_PIECE = 64 << 10;

export async function runCat(ref: string, opts: { dir?: string; stream?: string }, io: IO): Promise<number> {
  const rf = resolveResult(ref, { dir: opts.dir, env: io.env });
  const hash = createHash('sha256');
  // a result of lro run gives its stdout unless asked otherwise; one without streams is all one stream
  const streams = streamsOf(rf.header);
  const filter = streams && streams.stderrLines > 0 ? streamFilter(rf.header, opts.stream ?? 'stdout') : streamFilter(rf.header, opts.stream);
  const lines = filter ? new LineFilter((n) => filter.map.selects(filter.choice, n)) : null;
  const out = new OutChunks(io, lines ? createHash('sha256') : hash);
  try {
    // the reader's pieces are valid until the next: each is copied into the output buffers at once
    for (const piece of originalPieces(rf, true)) {
      if (!lines) await out.add(piece);
      else {
        hash.update(piece); // the check is on the whole original; only the chosen lines are printed
        for (const part of lines.pick(piece)) await out.add(part);
      }
    }
    await out.flush();
    await out.done();
  } catch (e) {
    if (e instanceof FormatError) throw damagedError(rf, e);
    throw e;
  }
  // json is rebuilt equal as JSON, not byte for byte, so only the other types can be checked.
  if (rf.header.content_type !== 'json' && hash.digest('hex') !== rf.header.sha256) {
    throw damagedError(rf, new FormatError('does not match its sha256'));
  }
  return 0;
}

/** Splits a text into its lines (each record of a text or jsonl result is one) and keeps those chosen by number. */
class LineFilter {
  private n = 1;

  constructor(private readonly chosen: (n: number) => boolean) {}

  /** The parts of `piece` on chosen lines (views of it). */
  *pick(piece: Uint8Array): Generator<Uint8Array> {
    for (let at = 0; at < piece.length; ) {
      const nl = piece.indexOf(0x0a, at);
      const end = nl < 0 ? piece.length : nl + 1;
      if (this.chosen(this.n)) yield piece.subarray(at, end);
      if (nl >= 0) this.n++;
      at = end;
    }
  }
}

/**
 * Pieces copied into 1 MB buffers, each hashed and written when full. Two buffers take turns: one fills while
 * the other is written, and is filled again only once the stream is done with it (no fresh memory per write).
 * A long piece (a run of stored lines, a decoded run of text) is hashed and written by itself, in its order.
 */
class OutChunks {
  private bufs = [Buffer.allocUnsafe(OUT_CHUNK), Buffer.allocUnsafe(OUT_CHUNK)];
  private writing: (Promise<void> | null)[] = [null, null];
  private cur = 0;
  private size = 0;

  constructor(
    private readonly io: IO,
    private readonly hash: Hash,
  ) {}

  async add(piece: Uint8Array): Promise<void> {
    if (piece.length >= DIRECT_PIECE && this.io.stdout.writeSettled) {
      // written as it is, not copied (a copy of a megabyte into fresh memory cost a tenth of cat's time on it);
      // the piece is the reader's until this resolves
      await this.flush();
      this.hash.update(piece);
      await this.io.stdout.writeSettled(piece);
      return;
    }
    for (let at = 0; at < piece.length; ) {
      const n = Math.min(piece.length - at, OUT_CHUNK - this.size);
      this.bufs[this.cur].set(piece.subarray(at, at + n), this.size);
      this.size += n;
      at += n;
      if (this.size === OUT_CHUNK) await this.flush();
    }
  }

  async flush(): Promise<void> {
    if (this.size === 0) return;
    const full = this.bufs[this.cur].subarray(0, this.size);
    this.hash.update(full);
    const stdout = this.io.stdout;
    // without writeSettled, a written buffer is the stream's: take a new one
    if (stdout.writeSettled) {
      const written = stdout.writeSettled(full);
      written.catch(() => {}); // awaited later (a closed stdout is reported then), never unhandled meanwhile
      this.writing[this.cur] = written;
    } else {
      await stdout.write(full);
      this.bufs[this.cur] = Buffer.allocUnsafe(OUT_CHUNK);
    }
    this.cur ^= 1;
    this.size = 0;
    await this.writing[this.cur]; // the other buffer is written before it is filled again
    this.writing[this.cur] = null;
  }

  /** Waits for the last writes. */
  async done(): Promise<void> {
    await Promise.all(this.writing);
  }
}

/** `lro cat`. */
export const catCommand: CommandDef<{ id: string; dir?: string; stream?: string }> = {
  name: 'cat',
  description: 'print the original content of a stored result, exactly as it was offloaded',
  arguments: [ID_ARGUMENT],
  options: [
    {
      ...STREAM_OPTION,
      description: 'for an lro run result: stdout (default), stderr, or both (the lines in the order they were printed)',
    },
    DIR_OPTION,
  ],
  examples: [
    'lro cat 01JD2X3Y4Z5A6B7C8D9E0F1G2H > output.log',
    'lro cat last | less',
    'lro cat last --stream both                  an lro run result as a terminal showed it (2>&1)',
  ],
  notes: CAT_HELP,
  run: ({ id, ...o }, io) => runCat(id, o, io),
};
