// `lro __gemini-hook`: Gemini CLI's AfterTool hook for the shell tool (`lro init gemini` installs it, matcher
// run_shell_command). Gemini CLI 0.61.0 hands the hook the command's whole output before it cuts it (it would show
// the model the first 8,000 and last 32,000 characters), as the text it made for the model, one line after another:
//   <untrusted_context> / Output: <stdout and stderr> / [Error: …] [Exit Code: N] … / </untrusted_context>
// A large output is stored whole here, with the command and its exit code as the source, and the hook answers
// `{"decision": "deny", "reason": R}`: the only answer that replaces the result. The model then reads R as the call's
// `error`; R says the command ran, holds lro's descriptor, and ends with Gemini CLI's own lines (`Exit Code: 3`,
// `Process Group PGID: …`), inside the same <untrusted_context> wrapper (the descriptor quotes the output).
// A small output, a call that was cancelled or moved to the background, anything else, or any failure prints
// nothing and exits 0: the model gets what Gemini CLI made, unchanged, and a call is never broken by lro.
import type { CommandDef } from './command.js';
import type { IO } from '../io.js';
import { offload } from '../offload.js';
import { renderDescriptorText } from '../render/descriptor-text.js';
import { offloadOptions } from './offload.js';

interface HookInput {
  hook_event_name?: string;
  tool_name?: string;
  tool_input?: { command?: unknown };
  tool_response?: { llmContent?: unknown; error?: unknown };
}

/** The shell tool's result split into the output and Gemini CLI's lines after it. */
export interface ShellResult {
  output: string;
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

/** The shell tool's llmContent taken apart; null when it is not a finished command's output. */
export function parseShellResult(text: string): ShellResult | null {
  const wrapped = text.startsWith(OPEN) && text.endsWith(CLOSE);
  const body = wrapped ? text.slice(OPEN.length, -CLOSE.length) : text;
  if (!body.startsWith('Output: ')) return null;
  // Gemini CLI's lines are taken off the end one by one (the output can be millions of lines: never split it)
  const start = 'Output: '.length;
  const trailer: string[] = [];
  let end = body.length;
  let next = TRAILER.length; // a trailer line must come before the ones already taken
  for (;;) {
    const nl = body.lastIndexOf('\n', end - 1);
    if (nl < start) break;
    const line = body.slice(nl + 1, end);
    const key = TRAILER.findIndex((k, i) => i < next && line.startsWith(`${k}: `));
    if (key < 0) break;
    trailer.unshift(line);
    end = nl;
    next = key;
  }
  const output = body.slice(start, end);
  if (output === '(empty)') return null;
  const value = (k: string) => trailer.find((l) => l.startsWith(`${k}: `))?.slice(k.length + 2);
  const signal = value('Signal') ?? null;
  const code = value('Exit Code');
  const exitCode = code !== undefined && /^\d+$/.test(code) ? Number(code) : signal ? null : 0;
  return { output, trailer, exitCode, signal, wrapped };
}

/** The text the model gets instead of the output: lro's note, the descriptor, Gemini CLI's own lines. */
export function replacement(r: ShellResult, descriptor: string): string {
  const note =
    'The command ran; its whole output is stored by lro and its descriptor is shown instead ' +
    '(Gemini CLI calls this an error only because lro replaced the output; the descriptor says how the command ended).';
  const inner = [descriptor.trimEnd(), ...r.trailer].join('\n');
  return `${note}\n${r.wrapped ? `${OPEN}${inner}${CLOSE}` : inner}`;
}

/** The hook's answer for one input, or null to leave the result as it is. */
export async function answer(input: HookInput, io: IO): Promise<object | null> {
  const command = input.tool_input?.command;
  const content = input.tool_response?.llmContent;
  if (input.tool_name !== 'run_shell_command' || typeof command !== 'string' || typeof content !== 'string') {
    return null;
  }
  if (input.tool_response?.error) return null;
  const parsed = parseShellResult(content);
  if (!parsed) return null;
  const source = { command, exit_code: parsed.exitCode, ...(parsed.signal ? { signal: parsed.signal } : {}) };
  const r = await offload(parsed.output, {
    ...offloadOptions({}, io),
    operation: 'bash',
    query: command,
    format: 'auto',
    source,
  });
  if (!r.offloaded) return null;
  return { decision: 'deny', reason: replacement(parsed, renderDescriptorText(r.descriptor)) };
}

export async function runGeminiHook(io: IO): Promise<number> {
  try {
    const chunks: Buffer[] = [];
    for await (const c of io.stdin) chunks.push(Buffer.from(c));
    const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as HookInput;
    if (input.hook_event_name !== undefined && input.hook_event_name !== 'AfterTool') return 0;
    const out = await answer(input, io);
    if (out) await io.stdout.write(`${JSON.stringify(out)}\n`);
  } catch {
    // the result reaches the model unchanged
  }
  return 0;
}

/** The hidden `lro __gemini-hook` Gemini CLI runs after each shell command. */
export const geminiHookCommand: CommandDef<Record<string, never>> = {
  name: '__gemini-hook',
  description: "Gemini CLI's AfterTool hook: a shell command's large output is stored, the model gets the descriptor",
  options: [],
  examples: ['lro __gemini-hook < hook-input.json'],
  hidden: true,
  run: (_o, io) => runGeminiHook(io),
};
