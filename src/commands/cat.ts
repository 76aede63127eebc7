// `lro cat ID`: the original content, exactly (CONTRACT section 2), checked against the header's sha256.
import { createHash } from 'node:crypto';
import { Command } from 'commander';
import type { Context } from '../cli.js';
import { FormatError } from '../format/header.js';
import { originalContent } from '../format/reader.js';
import type { IO } from '../io.js';
import { damagedError, resolveResult } from '../store/resolve.js';

const OUT_CHUNK = 1 << 20;

export async function runCat(ref: string, opts: { dir?: string }, io: IO): Promise<number> {
  const rf = resolveResult(ref, { dir: opts.dir, env: io.env });
  const hash = createHash('sha256');
  let parts: Uint8Array[] = [];
  let size = 0;
  const flush = async () => {
    if (size === 0) return;
    const buf = Buffer.concat(parts);
    parts = [];
    size = 0;
    await io.stdout.write(buf);
  };
  try {
    for (const piece of originalContent(rf)) {
      hash.update(piece);
      parts.push(piece.length < 65536 ? Buffer.from(piece) : piece);
      size += piece.length;
      if (size >= OUT_CHUNK) await flush();
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

export function catCommand(ctx: Context): Command {
  return new Command('cat')
    .description('print the original content of a stored result, exactly as it was offloaded')
    .argument('<id>', "result id, 'last', or the path of a result file")
    .option('--dir <dir>', 'store directory')
    .addHelpText(
      'after',
      `
Examples:
  lro cat 01JD2X3Y4Z5A6B7C8D9E0F1G2H > output.log
  lro cat last | less

Text, JSONL and binary come back byte for byte (checked against the header's sha256); a JSON document comes
back as equal JSON with whitespace removed, every number and string exactly as written.`,
    )
    .action(async (id: string, opts: { dir?: string }) => {
      ctx.exitCode = await runCat(id, opts, ctx.io);
    });
}
