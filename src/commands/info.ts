// `lro info ID`: the descriptor again, with the current id and path; --full drops the size bound.
import { DIR_OPTION, ID_ARGUMENT, MAX_TOKENS_OPTION, type CommandDef } from './command.js';
import { UsageError } from '../errors.js';
import { inToolCall, maxTokensFrom } from '../budget.js';
import { textPage } from '../render/text-page.js';
import { describeResult } from '../api/results.js';
import { renderDescriptorJson } from '../describe/descriptor.js';
import { headerValue, serializeHeader, type Header } from '../format/header.js';
import type { IO } from '../io.js';
import { renderDescriptorText } from '../render/descriptor-text.js';
import { resolveResult, uncheckedNote } from '../store/resolve.js';
import { keptStats } from '../describe/stored.js';
import { parseCount } from '../units.js';
import { nextCommand } from './argv.js';
import { giveDocument } from './document.js';
import INFO_HELP from 'help:info';

export interface InfoOptions {
  dir?: string;
  full?: boolean;
  descriptor?: string;
  previewTokens?: string;
  header?: boolean;
  from?: string;
  maxTokens?: string;
}

/** Prints the descriptor (or the header) of a stored result; the library's describeResult does the work. */
export async function runInfo(ref: string, opts: InfoOptions, io: IO): Promise<number> {
  // the header alone answers, when it keeps the statistics: a remote result is then not fetched whole
  const need = (h: Header) => (opts.header || keptStats(h) ? 0 : null);
  const rf = resolveResult(ref, { dir: opts.dir, env: io.env, need });
  const note = uncheckedNote(rf);
  if (note) await io.stderr.write(note);
  if (opts.header) {
    // one line, the envelope's numbers as written; without the descriptor's statistics (the descriptor shows them)
    // and the block hashes (up to 16 KB of digests, for readers)
    const { stats: _stats, blocks: _blocks, ...header } = rf.header;
    giveDocument(io, headerValue(header));
    await io.stdout.write(page(rf.header.id, `${serializeHeader(header)}\n`, '--header', opts, io));
    return 0;
  }
  const d = describeResult(rf, {
    full: !!opts.full,
    previewTokens: opts.previewTokens !== undefined ? parseCount(opts.previewTokens, '--preview-tokens') : undefined,
  });
  giveDocument(io, d);
  const text = opts.descriptor === 'text' ? renderDescriptorText(d) : renderDescriptorJson(d, io.stdout.isTTY);
  await io.stdout.write(opts.full ? page(rf.header.id, text, '--full', opts, io) : text);
  return 0;
}

/**
 * --full and --header have no size bound of their own (a header holds the user's --meta and the whole command),
 * so the output budget bounds them: a page from --from (a character offset) with the command for the next. A tool
 * call gets it whole (the MCP layer bounds a descriptor as a document).
 */
function page(id: string, text: string, what: '--full' | '--header', opts: InfoOptions, io: IO): string {
  const from = opts.from !== undefined ? parseCount(opts.from, '--from') : 0;
  if (from > text.length) {
    const name = what === '--full' ? 'descriptor' : 'header';
    throw new UsageError(`--from ${from} is past the end: the ${name} has ${text.length} characters`);
  }
  if (inToolCall(io)) return text.slice(from);
  const max = maxTokensFrom(opts.maxTokens, io.env);
  const next = (at: number, maxTokens?: number) => {
    const kept = { descriptor: opts.descriptor === 'text' ? 'text' : undefined, previewTokens: opts.previewTokens, maxTokens: maxTokens !== undefined ? String(maxTokens) : opts.maxTokens, dir: opts.dir || undefined };
    return nextCommand(infoCommand, { id, [what === '--full' ? 'full' : 'header']: true, from: String(at), ...kept }, INFO_LAYOUT);
  };
  return textPage(text, from, max, 'o200k_base', next, io.run);
}

/** The order lro info's next command shows its words in (as it printed them before): the page first. */
export const INFO_LAYOUT = ['id', '--full', '--header', '--from', '--descriptor', '--preview-tokens', '--max-tokens', '--dir'];

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
    { flags: '--from <n>', description: 'with --full or --header: print from character n (to continue a cut output)' },
    MAX_TOKENS_OPTION,
  ],
  examples: ['lro info 01JD2X3Y4Z5A6B7C8D9E0F1G2H', 'lro info last --descriptor text', 'lro info last --full'],
  notes: INFO_HELP,
  run: ({ id, ...o }, io) => runInfo(id, o, io),
};
