// A command's output as a tool result: `content` text for the model, `structuredContent` (matching the tool's
// outputSchema) for programs. Exit codes as the CLI means them: 0 ok; 1 "nothing matched", an ordinary answer;
// anything else an error result (`isError`) with the message the CLI prints.
import { printedDescriptor, type Descriptor } from '../describe/descriptor.js';
import type { LroLine, Next } from '../budget.js';
import type { GivenDocument } from '../commands/document.js';
import type { ListedRows } from '../commands/ls.js';
import { TSV_COLUMNS, tsvLine, type TsvFields } from '../render/store-table.js';
import { formatCount } from '../units.js';
import { MAX_OUTPUT_BYTES } from './bounds.js';
import { formatCall, type CallReader, type ToolCall } from './calls.js';
import { renderToolDescriptor, toolDescriptor } from './descriptor.js';
import type { ToolSpec } from './tools.js';

/**
 * What a command printed, how it exited, the last line lro added to its output (a continuation when it cut it, a
 * note, the command --explain answers: io.ts LroLine), and the values it gave besides its text (budget.ts giveValue).
 */
export interface Captured {
  stdout: string;
  stderr: string;
  code: number;
  last?: LroLine;
  /** The lines lro wrote on stderr that name commands (io.ts LroLine). */
  notes?: LroLine[];
  values?: unknown[];
}

/** A tools/call result. */
export interface ToolResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [k: string]: unknown;
}

/** An error result: one text block with the message. */
export function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

const text = (t: string): ToolResult['content'] => [{ type: 'text', text: t }];

/** How much of a listing one result shows, as text (see bounds.ts). */
const LISTING_BYTES = MAX_OUTPUT_BYTES / 2;

/** A command's output as the result of the tool that ran it. */
export async function toolResult(spec: ToolSpec, captured: Captured, calls: CallReader, args: Record<string, unknown> = {}): Promise<ToolResult> {
  const out = { ...captured, stderr: notesInToolTerms(captured.stderr, captured.notes ?? [], calls) };
  const ok = out.code === 0 || (out.code === 1 && spec.result === 'records');
  if (!ok) return errorResult(`${out.stdout}${out.stderr}`.trim() || `lro ${spec.command} exited with status ${out.code}`);
  switch (spec.result) {
    case 'records':
      return recordsResult(out, calls, args);
    case 'listing':
      return listingResult(out);
    case 'descriptor':
    case 'offload':
      return documentResult(spec, out, calls);
  }
}

/**
 * The output with the line lro added at its end in tool terms: each command it names as the tool call that does
 * the same, a continuation's next command as the next part's call, flags as arguments (max_tokens, not
 * --max-tokens). Only the line the command made counts (its values, io.ts LroLine): stored text that looks the
 * same is output like any other.
 */
function withNextCall(stdout: string, said: LroLine | undefined, calls: CallReader, args: Record<string, unknown>): { output: string; next?: NextCall } {
  if (!said || !stdout.endsWith(said.line)) return { output: stdout };
  const at = said.line.indexOf(said.what);
  let tail = said.line.slice(at + said.what.length);
  let next: NextCall | undefined;
  if (said.next) {
    const full = calls.fromNext(said.next);
    if (!full) return { output: stdout };
    next = shortNext(full, args);
    const named = 'same_arguments_as_this_call' in next ? `${next.tool} with this call's arguments and ${JSON.stringify(next.arguments)}` : formatCall(next);
    tail = replaceOnce(tail, said.next.text, named);
  }
  const line = `${said.line.slice(0, at)}${inToolTerms(said.what, said.mentions, calls)}${tail}`;
  return { output: `${stdout.slice(0, stdout.length - said.line.length)}${line}`, ...(next ? { next } : {}) };
}

/**
 * stderr with each line lro wrote there that names commands (`notes`) in tool terms; other lines as they are. A
 * note is found as a whole line, the last such one (lro writes its notes after what it passes on, as jq's error
 * messages, which may quote a record holding the same words).
 */
function notesInToolTerms(stderr: string, notes: LroLine[], calls: CallReader): string {
  let out = stderr;
  for (const n of [...notes].reverse()) {
    let at = out.lastIndexOf(n.line);
    while (at > 0 && out[at - 1] !== '\n') at = out.lastIndexOf(n.line, at - 1);
    if (at >= 0) out = `${out.slice(0, at)}${inToolTerms(n.what, n.mentions, calls)}\n${out.slice(at + n.line.length)}`;
  }
  return out;
}

/**
 * lro's words with each command they name as its tool call (where a tool makes it) and flags named as the
 * arguments tools take for them (one no tool takes, as --dir, the server's own, stays a flag of the command line).
 */
function inToolTerms(what: string, mentions: Next[], calls: CallReader): string {
  // a flag as a word of its own: not the dashes inside an id or a path a message quotes ('x--tail')
  const asArguments = (s: string) => s.replace(/(?<![\w-])--[a-z][a-z-]*/g, (flag) => calls.argumentOf(flag) ?? flag);
  let out = '';
  let rest = what;
  for (const m of mentions) {
    const at = rest.indexOf(m.text);
    if (at < 0) continue;
    const call = calls.fromNext(m);
    out += asArguments(rest.slice(0, at)) + (call ? formatCall(call) : m.text);
    rest = rest.slice(at + m.text.length);
  }
  return out + asArguments(rest);
}

/** s with the first `find` replaced (no replacement patterns: `$` in a command stays itself). */
function replaceOnce(s: string, find: string, by: string): string {
  const at = s.indexOf(find);
  return at < 0 ? s : `${s.slice(0, at)}${by}${s.slice(at + find.length)}`;
}

/** The longest next call given whole; a longer one (a call with large arguments) is given as what changes. */
const MAX_NEXT_CHARS = 2000;

/** A next call: whole, or (its arguments long) the arguments that differ from this call's. */
type NextCall = ToolCall | (ToolCall & { same_arguments_as_this_call: true });

/**
 * The next call as given: whole, or, when that is longer than MAX_NEXT_CHARS, only the arguments that differ from
 * this call's (a continuation repeated every argument: an lro_jq answer of 2,000 tokens came with 447 kB of args).
 */
function shortNext(next: ToolCall, args: Record<string, unknown>): NextCall {
  if (formatCall(next).length <= MAX_NEXT_CHARS) return next;
  const changed: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(next.arguments)) if (JSON.stringify(v) !== JSON.stringify(args[k])) changed[k] = v;
  for (const k of Object.keys(args)) if (!(k in next.arguments)) changed[k] = null;
  return { tool: next.tool, arguments: changed, same_arguments_as_this_call: true };
}

function recordsResult(out: Captured, calls: CallReader, args: Record<string, unknown>): ToolResult {
  const { output, next } = withNextCall(out.stdout, out.last, calls, args);
  const shown = output === '' ? (out.code === 1 ? 'No records matched.' : '(no output)') : output;
  return {
    content: text(`${shown}${out.stderr ? `\n${out.stderr}` : ''}`),
    structuredContent: { output, exit_code: out.code, ...(next ? { next } : {}) },
  };
}

/** `lro ls`'s rows as it gave them (commands/ls.ts ListedRows), the newest that one result holds. */
function listingResult(out: Captured): ToolResult {
  const given = out.values?.find((v): v is ListedRows => typeof v === 'object' && v !== null && 'results' in v);
  const all = given?.results ?? [];
  const { results, lines } = newestWithin(all, LISTING_BYTES);
  const cut = results.length < all.length ? `[lro: listed the newest ${formatCount(results.length)} of ${formatCount(all.length)} results, as many as one result holds; filter with session or operation]\n` : '';
  const shown = results.length ? `${TSV_COLUMNS.join('\t')}\n${lines.join('')}${cut}` : '';
  return { content: text(`${shown}${out.stderr}`.trim() || 'No results.'), structuredContent: { results } };
}

/** The first rows whose lines are within `bytes` (their structured form takes about twice as much again). */
function newestWithin(rows: TsvFields[], bytes: number): { results: TsvFields[]; lines: string[] } {
  const lines: string[] = [];
  let used = 0;
  for (const row of rows) {
    const line = tsvLine(row);
    if ((used += Buffer.byteLength(line)) > bytes) break;
    lines.push(line);
  }
  return { results: rows.slice(0, lines.length), lines };
}

/**
 * A descriptor (offload, info), a passthrough (offload) or a header (info --header), from the document the command
 * gave as a value (commands/document.ts); its text is what the command printed.
 */
async function documentResult(spec: ToolSpec, out: Captured, calls: CallReader): Promise<ToolResult> {
  const given = out.values?.find((v): v is GivenDocument => typeof v === 'object' && v !== null && 'document' in v);
  if (!given) throw new Error(`lro ${spec.command} gave no document`); // the tool's fixed options make it give one
  const doc = given.document as Record<string, unknown>;
  const warning = out.stderr ? `\n${out.stderr.trim()}` : '';
  if (doc.offloaded === true) {
    const d = await toolDescriptor(doc as unknown as Descriptor, calls);
    return { content: text(renderToolDescriptor(d, 'text') + warning), structuredContent: printedDescriptor(d as unknown as Descriptor) as Record<string, unknown> };
  }
  if (doc.offloaded === false) {
    const note = doc.truncated ? `\n[${String(doc.warning)}]` : '';
    return { content: text(`${String(doc.content)}${note}`), structuredContent: doc };
  }
  return { content: text(out.stdout.trim()), structuredContent: doc }; // the header
}
