// `lro __gemini-hook`: Gemini CLI's AfterTool hook for the shell tool (`lro init gemini` installs it, matcher
// run_shell_command). Gemini CLI 0.61.0 hands the hook the command's whole output before it cuts it (it would show
// the model the first 8,000 and last 32,000 characters), as the text it made for the model, one line after another:
//   <untrusted_context> / Output: <stdout and stderr> / [Error: …] [Exit Code: N] … / </untrusted_context>
// A large output is stored whole here, with the command and its exit code as the source, and the hook answers
// `{"decision": "deny", "reason": R}`: the only answer that replaces the result. The model then reads R as the call's
// `error`; R says the command ran, holds lro's descriptor, and ends with Gemini CLI's own lines (`Exit Code: 3`,
// `Process Group PGID: …`), inside the same <untrusted_context> wrapper (the descriptor quotes the output).
// An MCP tool's result (`lro init gemini` adds the matcher ^mcp_: Gemini CLI names a server's tool
// mcp_<server>_<tool>) is a list of parts: each text block wrapped in <untrusted_context>, an image, audio or blob as
// inline data after a note naming it. Its text blocks, without the wrapper and joined by line breaks (as Claude
// Code's hook joins them), are one result; over the threshold they are stored with the call as the source, and
// the model reads the descriptor in the same way. A result with inline data is left as it is: a hook can replace a
// result only whole, and the image would be neither shown nor stored (lro steps aside where it cannot keep all).
// lro's own MCP server (and its proxy, whose results are offloaded already) is left alone, as is a result Gemini
// CLI marks as an error.
// A small output, a call that was cancelled or moved to the background, anything else, or any failure prints
// nothing and exits 0: the model gets what Gemini CLI made, unchanged, and a call is never broken by lro.
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, openSync, readdirSync, readSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { HookCommand } from '../harness.js';
import { readHookInput, scratchFile, type ContentPart, type StreamedInput } from './input.js';
import type { IO } from '../../io.js';
import type { Source } from '../../format/header.js';
import { DEFAULT_THRESHOLD, fitsThreshold, offload } from '../../offload.js';
import { renderDescriptorText } from '../../render/descriptor-text.js';
import { formatBytes } from '../../units.js';
import { offloadOptions } from '../../offload-settings.js';
import { ensureResident, gcNowAndThen, prefixFolder } from '../resident-start.js';

/** The shell tool's result: where the output is in the file of llmContent, and Gemini CLI's lines after it. */
export interface ShellResult {
  /** The output's bytes in the file: from `start` to before `end`. */
  start: number;
  end: number;
  /** Gemini CLI's lines after the output (Error, Exit Code, Signal, Background PIDs, Process Group PGID). */
  trailer: string[];
  exitCode: number | null;
  signal: string | null;
  wrapped: boolean;
}

const OPEN = '<untrusted_context>\n';
const CLOSE = '\n</untrusted_context>';
/** Gemini CLI's lines after the output, in the order it writes them. */
const TRAILER = ['Error', 'Exit Code', 'Signal', 'Background PIDs', 'Process Group PGID'];
/** How much of the output's end is read for Gemini CLI's lines. */
const TAIL_BYTES = 64 * 1024;
/** Gemini CLI's prefix of an MCP tool's name. */
export const MCP_PREFIX = 'mcp_';

/** Bytes from..to of the file `fd`. */
function readRange(fd: number, from: number, to: number): Buffer {
  const b = Buffer.alloc(Math.max(0, to - from));
  for (let at = 0; at < b.length; ) {
    const n = readSync(fd, b, at, b.length - at, from + at);
    if (n === 0) break;
    at += n;
  }
  return b;
}

/**
 * The shell tool's llmContent (`size` bytes in the file `fd`) taken apart, reading only its start and its end;
 * null when it is not a finished command's output.
 */
export function parseShellResult(fd: number, size: number): ShellResult | null {
  const read = (from: number, to: number): Buffer => readRange(fd, from, to);
  const is = (from: number, text: string) => from >= 0 && from + text.length <= size && read(from, from + text.length).toString('latin1') === text;
  const wrapped = size >= OPEN.length + CLOSE.length && is(0, OPEN) && is(size - CLOSE.length, CLOSE);
  const bodyEnd = wrapped ? size - CLOSE.length : size;
  const bodyStart = wrapped ? OPEN.length : 0;
  if (bodyEnd - bodyStart < 'Output: '.length || !is(bodyStart, 'Output: ')) return null;
  const start = bodyStart + 'Output: '.length;
  // Gemini CLI's lines are taken off the end one by one (the output can be millions of lines: never split it)
  const tailStart = Math.max(start, bodyEnd - TAIL_BYTES);
  const tail = read(tailStart, bodyEnd);
  const trailer: string[] = [];
  let end = tail.length;
  let next = TRAILER.length; // a trailer line must come before the ones already taken
  for (;;) {
    const nl = end > 0 ? tail.lastIndexOf(10, end - 1) : -1;
    if (nl < 0) break;
    const line = tail.subarray(nl + 1, end).toString('utf8');
    const key = TRAILER.findIndex((k, i) => i < next && line.startsWith(`${k}: `));
    if (key < 0) break;
    trailer.unshift(line);
    end = nl;
    next = key;
  }
  const outputEnd = tailStart + end;
  if (outputEnd - start === '(empty)'.length && is(start, '(empty)')) return null;
  const value = (k: string) => trailer.find((l) => l.startsWith(`${k}: `))?.slice(k.length + 2);
  const signal = value('Signal') ?? null;
  const code = value('Exit Code');
  const exitCode = code !== undefined && /^\d+$/.test(code) ? Number(code) : signal ? null : 0;
  return { start, end: outputEnd, trailer, exitCode, signal, wrapped };
}

/** The text the model gets instead of the output: lro's note, the descriptor, Gemini CLI's own lines. */
export function replacement(r: ShellResult, descriptor: string): string {
  const note =
    'The command ran; its whole output is stored by lro and its descriptor is shown instead ' +
    '(Gemini CLI calls this an error only because lro replaced the output; the descriptor says how the command ended).';
  const inner = [descriptor.trimEnd(), ...r.trailer].join('\n');
  return `${note}\n${r.wrapped ? `${OPEN}${inner}${CLOSE}` : inner}`;
}

/** An MCP tool's result taken apart: the ranges of the file its text is in, and what else it holds. */
export interface McpResult {
  texts: { start: number; end: number }[];
  /** What is not text: one line per inline part or part of another kind. */
  other: string[];
}

/** Gemini CLI's note before an inline part: `[Tool 'NAME' provided the following image data with mime-type: …]`. */
const INLINE_NOTE = /^\[Tool '.*' provided the following .+ with mime-type: .+\]$/s;

/** The parts of an MCP tool's llmContent (their text in `fd`) as the text to store and what is left out. */
export function parseMcpResult(fd: number, parts: ContentPart[]): McpResult {
  const texts: McpResult['texts'] = [];
  const other: string[] = [];
  parts.forEach((p, k) => {
    if (p.kind === 'text') {
      const next = parts[k + 1];
      // the note that names the inline part after it (Gemini CLI's, not the tool's)
      if (next?.kind === 'inline' && p.end - p.start < 1024 && INLINE_NOTE.test(readRange(fd, p.start, p.end).toString('utf8'))) return;
      let { start, end } = p;
      const wrapped = end - start >= OPEN.length + CLOSE.length &&
        readRange(fd, start, start + OPEN.length).toString('latin1') === OPEN &&
        readRange(fd, end - CLOSE.length, end).toString('latin1') === CLOSE;
      if (wrapped) {
        start += OPEN.length;
        end -= CLOSE.length;
      }
      texts.push({ start, end });
    } else if (p.kind === 'inline') {
      other.push(`${p.mimeType ?? 'inline data'} (${formatBytes(p.bytes)} of base64)`);
    } else {
      other.push(`a part of another kind (${p.keys.join(', ') || 'empty'})`);
    }
  });
  return { texts, other };
}

/** Whether the MCP server is lro's own (`lro mcp`, `lro mcp proxy`): its results are small or stored already. */
export function isLroServer(mcp: StreamedInput['mcp']): boolean {
  const [first, second] = mcp.args;
  if (typeof first === 'string' && /(^|[\\/])lro\.js$/.test(first) && second === 'mcp') return true;
  return !!mcp.command && basename(mcp.command) === 'lro' && first === 'mcp';
}

/** The text the model gets instead of an MCP tool's result: lro's note, then the descriptor. */
export function mcpReplacement(descriptor: string): string {
  const note =
    'The tool ran; its whole result is stored by lro and its descriptor is shown instead (Gemini CLI calls this an ' +
    'error only because lro replaced the result).';
  // the descriptor quotes the tool's text: the same wrapper Gemini CLI puts around it, and the same escape
  const inner = descriptor.trimEnd().replaceAll('</untrusted_context>', '&lt;/untrusted_context&gt;');
  return `${note}\n${OPEN}${inner}${CLOSE}`;
}

/** The call as the descriptor's source names it: the tool and its arguments, cut at 200 characters. */
function mcpSource(input: StreamedInput, tool: string): Source {
  const args = input.toolInput?.json ?? '{}';
  let call = `${tool} ${args}`;
  if (call.length > 200 || input.toolInput?.cut) call = `${call.slice(0, 199)}…`;
  return { command: call, exit_code: null, tool };
}

/**
 * What the hook would store for an input: a shell command's output (its place in the file of llmContent) or an MCP
 * tool's text blocks; null when the result is left as it is whatever its size (another event or tool, a call
 * Gemini CLI marks as an error, lro's own server, inline data, no finished command's output). One decision for the
 * hook and for the resident helper that answers for it (leaves()).
 */
export type Plan =
  | { kind: 'shell'; command: string; parsed: ShellResult }
  | { kind: 'mcp'; tool: string; texts: { start: number; end: number }[] };

/** The plan for one input (llmContent in the file `fd`), or null to leave the result as it is. */
export function plan(input: StreamedInput, fd: number): Plan | null {
  if (input.hook_event_name !== undefined && input.hook_event_name !== 'AfterTool') return null;
  if (input.error) return null;
  if (input.tool_name?.startsWith(MCP_PREFIX)) {
    if (!input.parts || isLroServer(input.mcp)) return null;
    const parsed = parseMcpResult(fd, input.parts!);
    if (!parsed.texts.length || parsed.other.length) return null;
    return { kind: 'mcp', tool: input.tool_name, texts: parsed.texts };
  }
  const command = input.command;
  if (input.tool_name !== 'run_shell_command' || typeof command !== 'string' || input.content === null) return null;
  const size = input.content;
  const parsed = parseShellResult(fd, size);
  if (!parsed || parsed.end <= parsed.start) return null;
  return { kind: 'shell', command, parsed };
}

/** The text a plan stores, read from the file a range at a time (an MCP tool's text blocks joined by line breaks). */
export async function* planText(p: Plan, fd: number): AsyncGenerator<Uint8Array> {
  const ranges = p.kind === 'shell' ? [{ start: p.parsed.start, end: p.parsed.end }] : p.texts;
  for (const [k, t] of ranges.entries()) {
    if (k > 0) yield Buffer.from('\n');
    if (t.end > t.start) yield* createReadStream('', { fd, autoClose: false, start: t.start, end: t.end - 1 });
  }
}

/**
 * Whether the hook leaves this input as it is (prints nothing, stores nothing): the resident helper's answer for
 * bin/lro-hook, so that a medium result is settled without a Node start. The same plan as answer(), and the same
 * decision offload() makes on its text (offload.ts fitsThreshold); with LRO_REDACT the text offload() counts is the
 * redacted one, so only Node can tell (false: the hook runs). `settings` are offloadOptions() of the caller's env.
 */
export async function leaves(input: StreamedInput, fd: number, settings: { threshold?: number; redact?: boolean }): Promise<boolean> {
  const p = plan(input, fd);
  if (!p) return true;
  if (settings.redact) return false;
  const chunks: Buffer[] = [];
  for await (const c of planText(p, fd)) chunks.push(Buffer.from(c));
  return fitsThreshold(Buffer.concat(chunks), settings.threshold ?? DEFAULT_THRESHOLD);
}

/** How long a call's claim is kept: far longer than Gemini CLI's hooks of one call run apart. */
const CLAIM_MS = 10 * 60_000;

/**
 * Whether this process is the one to answer for the call: Gemini CLI 0.61.0 runs every matching hook of the
 * user's and the project's settings, at once, on the same input, and joins their reasons; with lro's hook in both
 * (the user's by absolute paths, the project's by PATH: two commands, so Gemini CLI does not take them for one)
 * the model read the descriptor twice. The first to create the call's file in `dir` answers; the other leaves the
 * result as it is, which adds nothing to the first's. The call is told by its session, the event's time, the tool,
 * its arguments and the result's size. Claims older than CLAIM_MS are removed. No folder: this one answers.
 */
export function claimCall(input: StreamedInput, p: Plan, dir: string | null, now = Date.now()): boolean {
  if (!dir || input.session_id === undefined || input.timestamp === undefined) return true;
  const size = p.kind === 'shell' ? `${p.parsed.start}-${p.parsed.end}` : p.texts.map((t) => `${t.start}-${t.end}`).join(',');
  const key = createHash('sha256')
    .update([input.session_id, input.timestamp, input.tool_name ?? '', input.toolInput?.json ?? input.command ?? '', size].join('\0'))
    .digest('hex')
    .slice(0, 32);
  try {
    mkdirSync(dir, { mode: 0o700, recursive: true });
    for (const f of readdirSync(dir)) {
      try {
        if (now - statSync(join(dir, f)).mtimeMs > CLAIM_MS) unlinkSync(join(dir, f));
      } catch {
        // removed by another call
      }
    }
    closeSync(openSync(join(dir, key), 'wx', 0o600));
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'EEXIST';
  }
}

/** Where the calls' claims are: a folder in the shell prefix's own (this user's, 0700). */
export function claimsFolder(env: NodeJS.ProcessEnv): string | null {
  const spool = prefixFolder(env, true);
  return spool ? join(spool, 'gemini-calls') : null;
}

/** The hook's answer for one input (llmContent in the file `fd`), or null to leave the result as it is. */
export async function answer(input: StreamedInput, fd: number, io: IO): Promise<object | null> {
  const p = plan(input, fd);
  if (!p) return null;
  if (input.session_id !== undefined && !claimCall(input, p, claimsFolder(io.env))) return null;
  const options = offloadOptions({}, io);
  const r = await offload(
    planText(p, fd),
    p.kind === 'shell'
      ? {
          ...options,
          operation: 'bash',
          query: p.command,
          format: 'auto',
          source: { command: p.command, exit_code: p.parsed.exitCode, ...(p.parsed.signal ? { signal: p.parsed.signal } : {}) },
        }
      : { ...options, operation: p.tool.slice(MCP_PREFIX.length), source: mcpSource(input, p.tool) },
  );
  if (!r.offloaded) return null;
  gcNowAndThen(options.dir, io.env, io.now());
  const descriptor = renderDescriptorText(r.descriptor);
  return { decision: 'deny', reason: p.kind === 'shell' ? replacement(p.parsed, descriptor) : mcpReplacement(descriptor) };
}

export async function runGeminiHook(io: IO): Promise<number> {
  let fd: number | undefined;
  try {
    fd = scratchFile(tmpdir());
    const input = await readHookInput(io.stdin, fd);
    const out = await answer(input, fd, io);
    if (out) await io.stdout.write(`${JSON.stringify(out)}\n`);
  } catch {
    // the result reaches the model unchanged
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  // the next call's hook (bin/lro-hook) asks the resident helper whether a medium result is left, instead of
  // starting Node; Gemini CLI runs no shell prefix, so the prefix's folder is made here when it is not there
  const spool = prefixFolder(io.env, true);
  if (spool) ensureResident(spool, io.env);
  return 0;
}

/** The hidden `lro __gemini-hook` Gemini CLI runs after each shell command. */
export const geminiHook: HookCommand = {
  name: '__gemini-hook',
  description: "Gemini CLI's AfterTool hook: a shell command's large output or an MCP tool's large result is stored, the model gets the descriptor",
  examples: ['lro __gemini-hook < hook-input.json'],
  run: (io) => runGeminiHook(io),
};
