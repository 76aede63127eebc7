// `lro offload`: stdin in; the same bytes out when small, else a stored result and its descriptor.
import { longFlag, type CommandDef, type OptionDef } from './command.js';
import { renderDescriptorText } from '../render/descriptor-text.js';
import { createProgress } from '../render/progress.js';
import { ENCODINGS } from '../tokens/tokenizer.js';
import type { IO } from '../io.js';
import type { StreamName } from '../format/streams.js';
import { DEFAULT_THRESHOLD, offload, type OffloadOptions } from '../offload.js';
import { offloadOptions, type OffloadCliOptions } from '../offload-settings.js';
import { DEFAULT_PREVIEW_TOKENS, renderDescriptorJson } from '../describe/descriptor.js';
import { giveDocument } from './document.js';
import OFFLOAD_HELP from 'help:offload';


/**
 * The offload options shared with `lro run` (which names the default operation differently) and `lro mcp proxy`
 * (which leaves out those that make no sense there, by long flag in `omit`).
 */
export function offloadOptionDefs(operationDefault = 'offload', omit: string[] = []): OptionDef[] {
  const options: OptionDef[] = [
    { flags: '--dir <dir>', description: 'store directory (default: $LRO_DIR, else ${TMPDIR:-/tmp}/lro-<uid>)', complete: 'dir' },
    { flags: '--threshold <tokens>', description: `store output above this many tokens (default: $LRO_THRESHOLD_TOKENS, else ${DEFAULT_THRESHOLD})`, mcp: '', manual: 'Input of at most that many bytes is never stored, without counting.' },
    { flags: '--force', description: 'store the output whatever its size', mcp: '' },
    { flags: '--json', description: 'print JSON even when passing through: {"offloaded": false, "content": ...}' },
    { flags: '--operation <name>', description: `what produced the output, used in the file name (default: ${operationDefault})`, mcp: 'what produced it', manual: 'It is part of the file name, reduced to [a-z0-9_-]{1,40}.' },
    { flags: '--query <text>', description: 'the query or command that produced the output, kept in the header', mcp: 'the call that produced it' },
    { flags: '--session <name>', description: 'store the result in this session (default: $LRO_SESSION): <store>/sessions/<name>/', mcp: '', manual: "A session is 1 to 128 bytes, without \\, .. or control characters; a / is kept in the name and written %2F in its folder's name." },
    { flags: '--no-dedupe', description: 'store a new result even if the same output is stored already', manual: "The same output is the same bytes, options, store and session, not expired; without this option that result's id and descriptor are given back." },
    {
      flags: '--redact',
      description: 'replace secrets (keys, tokens, private keys, passwords) by [REDACTED:rule] before anything is stored or printed (default: $LRO_REDACT)',
      manual:
        "Secrets are cloud keys, service tokens, private keys, JWTs, passwords in URLs and in key=value pairs (gitleaks' default rules and lro's own, see SECRETS); they are replaced as the input streams in, before it is passed through, stored, hashed or counted.",
    },
    { flags: '--no-redact', description: 'keep secrets as written even if LRO_REDACT=1' },
    { flags: '--meta <key=value>', description: 'extra metadata, repeatable', repeatable: true, mcp: 'header metadata' },
    { flags: '--ttl <duration>', description: 'how long to keep the result: 90s, 30m, 24h, 7d (default: $LRO_TTL, else 24h)', mcp: '30m, 24h, 7d (default 24h)' },
    { flags: '--encoding <name>', description: 'tokenizer used for counting', choices: [...ENCODINGS], default: 'o200k_base' },
    { flags: '--detail <level>', description: 'detail level recorded in the header', default: 'full' },
    { flags: '--format <type>', description: 'skip content detection', mcp: '', choices: ['auto', 'text', 'json', 'jsonl'], default: 'auto' },
    { flags: '--preview-tokens <n>', description: `size of the preview in the descriptor (default: ${DEFAULT_PREVIEW_TOKENS})`, mcp: '' },
    { flags: '--descriptor <form>', description: 'how to print the descriptor', choices: ['json', 'text'], default: 'json' },
  ];
  return options.filter((o) => !omit.includes(longFlag(o)));
}


/**
 * Runs an offload of `input` and prints the outcome; returns the exit code (always 0 unless usage is wrong).
 * `extra` overrides library options (`lro run` passes its operation and the command's source); `split`, given by
 * `lro run`, tells which bytes of an output handed back came from stderr, so that they go back there.
 */
/** An output given back unstored, split into what each stream printed (and, when known, the order they did). */
export interface SplitOutput {
  stdout: Buffer;
  stderr: Buffer;
  inOrder?: [StreamName, Buffer][];
}

/** Writes an output given back to the streams it came from, in the order it came when that is known. */
async function writeSplit(io: IO, stdout: Buffer, stderr: Buffer, inOrder: [StreamName, Buffer][] | undefined): Promise<void> {
  if (!inOrder) {
    if (stderr.length) await io.stderr.write(stderr);
    await io.stdout.write(stdout);
    return;
  }
  for (const [s, b] of inOrder) await io[s].write(b);
}

export async function runOffload(
  input: AsyncIterable<Uint8Array>,
  o: OffloadCliOptions,
  io: IO,
  extra: Partial<OffloadOptions> = {},
  split: (content: Buffer) => SplitOutput = (content) => ({ stdout: content, stderr: EMPTY }),
): Promise<number> {
  const progress = createProgress(io, 'lro: offloading');
  // extra's getters kept as getters: lro run's `force` is known only once its output has ended
  const options: OffloadOptions = Object.defineProperties({ ...offloadOptions(o, io), onProgress: progress.update }, Object.getOwnPropertyDescriptors(extra));
  let result;
  try {
    result = await offload(input, options);
  } finally {
    progress.done();
  }
  if (!result.offloaded && !result.truncated) {
    if (result.warning) await io.stderr.write(`${result.warning}\n`);
    const { stdout, stderr, inOrder } = split(result.content);
    if (o.json) {
      const source = extra.source ? { source: await extra.source } : {};
      const warning = result.warning ? { warning: result.warning } : {};
      const err = stderr.length ? { stderr: stderr.toString('utf8') } : {};
      await printDocument(io, { offloaded: false, content: stdout.toString('utf8'), ...err, ...source, ...warning });
    } else {
      await writeSplit(io, stdout, stderr, inOrder);
    }
    return 0;
  }
  if (!result.offloaded) {
    await io.stderr.write(`${result.warning}\n`);
    if (io.env.LRO_DEBUG === '1' && result.error.stack) await io.stderr.write(`${result.error.stack}\n`);
    const { stdout, stderr, inOrder } = split(result.content);
    if (o.json) {
      const err = stderr.length ? { stderr: stderr.toString('utf8') } : {};
      await printDocument(io, { offloaded: false, truncated: true, content: stdout.toString('utf8'), ...err, warning: result.warning });
    } else {
      await writeSplit(io, stdout, stderr, inOrder);
      const sep = stdout.length && stdout[stdout.length - 1] !== 0x0a ? '\n' : '';
      await io.stdout.write(`${sep}[${result.warning}]\n`);
    }
    return 0;
  }
  giveDocument(io, result.descriptor);
  if (o.descriptor === 'text') await io.stdout.write(renderDescriptorText(result.descriptor));
  else await io.stdout.write(renderDescriptorJson(result.descriptor, io.stdout.isTTY));
  return 0;
}

/** Prints a passthrough's JSON, and gives it as a value. */
async function printDocument(io: IO, document: Record<string, unknown>): Promise<void> {
  giveDocument(io, document);
  await io.stdout.write(`${JSON.stringify(document)}\n`);
}

const EMPTY = Buffer.alloc(0);

/** `lro offload`. */
export const offloadCommand: CommandDef<OffloadCliOptions> = {
  name: 'offload',
  description: 'read stdin; print it unchanged if small, else store it and print a descriptor (id, schema, preview, jq recipes)',
  options: offloadOptionDefs(),
  examples: [
    'kubectl get pods -o json | lro offload',
    'npm test 2>&1 | lro offload --operation npm-test --descriptor text',
    'curl -s https://api.example.com/items | lro offload --threshold 2000 --ttl 1h',
    "make 2>&1 | lro offload --session build-42     kept in the session's folder; lro gc --session build-42 removes it",
    'env | lro offload --redact                      secrets become [REDACTED:rule] before anything is stored or printed',
  ],
  notes: OFFLOAD_HELP,
  run: (o, io) => runOffload(io.stdin, o, io),
};
