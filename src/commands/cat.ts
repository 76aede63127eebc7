// `lro cat ID`: the original content, exactly (CONTRACT section 2), checked against the header's sha256.
import { createHash } from 'node:crypto';
import { DIR_OPTION, ID_ARGUMENT, type CommandDef } from './command.js';
import { FormatError } from '../format/header.js';
import { originalContent } from '../format/reader.js';
import type { IO } from '../io.js';
import { damagedError, resolveResult } from '../store/resolve.js';

const OUT_CHUNK = 1 << 20;

export async function runCat(ref: string, opts: { dir?: string }, io: IO): Promise<number> {
  const rf = resolveResult(ref, { dir: opts.dir, env: io.env });
  const hash = createHash('sha256');
  // pieces (a line, a line ending) are copied into 1 MB buffers, hashed and written a buffer at a time
  let out = Buffer.allocUnsafe(OUT_CHUNK);
  let size = 0;
  const emit = async (buf: Uint8Array) => {
    hash.update(buf);
    await io.stdout.write(buf);
  };
  const flush = async () => {
    if (size === 0) return;
    const full = out.subarray(0, size);
    out = Buffer.allocUnsafe(OUT_CHUNK); // the written buffer is the stream's until it is flushed
    size = 0;
    await emit(full);
  };
  try {
    for (const piece of originalContent(rf)) {
      if (size + piece.length > OUT_CHUNK) await flush();
      if (piece.length >= OUT_CHUNK) await emit(piece);
      else {
        out.set(piece, size);
        size += piece.length;
      }
    }
    await flush();
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

/** `lro cat`. */
export const catCommand: CommandDef<{ id: string; dir?: string }> = {
  name: 'cat',
  description: 'print the original content of a stored result, exactly as it was offloaded',
  arguments: [ID_ARGUMENT],
  options: [DIR_OPTION],
  examples: ['lro cat 01JD2X3Y4Z5A6B7C8D9E0F1G2H > output.log', 'lro cat last | less'],
  notes: `Text, JSONL and binary come back byte for byte (checked against the header's sha256); a JSON document comes
back as equal JSON with whitespace removed, every number and string exactly as written.`,
  run: ({ id, ...o }, io) => runCat(id, o, io),
};
