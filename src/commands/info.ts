// `lro info ID`: the descriptor again, with the current id and path; --full drops the size bound.
import { DIR_OPTION, ID_ARGUMENT, type CommandDef } from './command.js';
import { describeResult } from '../api/results.js';
import { renderDescriptorJson } from '../describe/descriptor.js';
import { serializeHeader } from '../format/header.js';
import type { IO } from '../io.js';
import { renderDescriptorText } from '../render/descriptor-text.js';
import { resolveResult } from '../store/resolve.js';
import { parseCount } from '../units.js';

export interface InfoOptions {
  dir?: string;
  full?: boolean;
  descriptor?: string;
  previewTokens?: string;
  header?: boolean;
}

/** Prints the descriptor (or the header) of a stored result; the library's describeResult does the work. */
export async function runInfo(ref: string, opts: InfoOptions, io: IO): Promise<number> {
  const rf = resolveResult(ref, { dir: opts.dir, env: io.env });
  if (opts.header) {
    // one line, the envelope's numbers as written; without the descriptor's statistics (the descriptor shows them)
    const { stats: _stats, ...header } = rf.header;
    await io.stdout.write(`${serializeHeader(header)}\n`);
    return 0;
  }
  const d = describeResult(rf, {
    full: !!opts.full,
    previewTokens: opts.previewTokens !== undefined ? parseCount(opts.previewTokens, '--preview-tokens') : undefined,
  });
  if (opts.descriptor === 'text') await io.stdout.write(renderDescriptorText(d));
  else await io.stdout.write(renderDescriptorJson(d, io.stdout.isTTY));
  return 0;
}

/** `lro info`. */
export const infoCommand: CommandDef<InfoOptions & { id: string }> = {
  name: 'info',
  description: 'print the descriptor of a stored result again (as offload printed it)',
  arguments: [ID_ARGUMENT],
  options: [
    DIR_OPTION,
    { flags: '--full', description: 'everything: the whole schema, all fields and values, a longer preview', mcp: 'every field and value' },
    { flags: '--header', description: 'print the header (line 1 of the file) instead', mcp: 'the header line instead' },
    { flags: '--preview-tokens <n>', description: 'size of the preview', mcp: '' },
    { flags: '--descriptor <form>', description: 'how to print it', choices: ['json', 'text'], default: 'json' },
  ],
  examples: ['lro info 01JD2X3Y4Z5A6B7C8D9E0F1G2H', 'lro info last --descriptor text', 'lro info last --full'],
  run: ({ id, ...o }, io) => runInfo(id, o, io),
};
