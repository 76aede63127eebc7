// `lro __claude-code-hook`: Claude Code's PostToolUse hook for MCP tools (`lro init claude-code` installs it,
// matcher mcp__.*). It reads the hook's input on stdin; a result over the threshold is stored with the call as its
// source, and the model gets the descriptor instead (updatedToolOutput, in the result's own shape). A small
// result, a result with anything but text, or any failure prints nothing and exits 0: the result goes to the model
// unchanged, and a tool call is never broken by lro.
import { readFileSync, statSync } from 'node:fs';
import type { HookCommand } from '../harness.js';
import type { IO } from '../../io.js';
import { offload } from '../../offload.js';
import { renderDescriptorText } from '../../render/descriptor-text.js';
import type { Source } from '../../format/header.js';
import { offloadOptions } from '../../offload-settings.js';
import { gcNowAndThen } from '../resident-start.js';

interface HookInput {
  hook_event_name?: string;
  tool_name?: string;
  tool_input?: unknown;
  tool_response?: unknown;
}

type Block = { type?: string; text?: string };

/** The text of an MCP tool's response and a function giving the same shape with other text; null if not all text. */
export function textOf(response: unknown): { text: string; reshape: (t: string) => unknown } | null {
  // the text is replaced when the whole result was saved to a file
  if (typeof response === 'string') return { text: response, reshape: (t) => t };
  const blocks = Array.isArray(response) ? response : Array.isArray((response as { content?: unknown })?.content) ? (response as { content: unknown[] }).content : null;
  if (!blocks || !blocks.every((b: Block) => b && b.type === 'text' && typeof b.text === 'string')) return null;
  const text = (blocks as Block[]).map((b) => b.text).join('\n');
  const reshape = (t: string) => {
    const content = [{ type: 'text', text: t }];
    return Array.isArray(response) ? content : { ...(response as object), content };
  };
  return { text, reshape };
}

/** Claude Code's note for an MCP result over its limit (2.1.328): the whole result is in the file it names. */
const PERSISTED = /^Error: result \([^)]*\) exceeds maximum allowed tokens\. Output has been saved to (\/.+?\.(?:txt|json))\.\n/;

const isFile = (p: string): boolean => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

async function readAll(io: IO): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of io.stdin) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks).toString('utf8');
}

export async function runClaudeHook(io: IO): Promise<number> {
  try {
    const input = JSON.parse(await readAll(io)) as HookInput;
    const tool = input.tool_name ?? '';
    if (input.hook_event_name !== 'PostToolUse' || !tool.startsWith('mcp__')) return 0;
    const found = textOf(input.tool_response);
    if (!found) return 0;
    // too large for Claude Code: it saved the whole result to a file and hands on a note naming it
    const saved = PERSISTED.exec(found.text);
    if (saved && isFile(saved[1])) found.text = readFileSync(saved[1], 'utf8');
    const args = input.tool_input && typeof input.tool_input === 'object' ? (input.tool_input as Record<string, unknown>) : {};
    let call = `${tool} ${JSON.stringify(args)}`;
    if (call.length > 200) call = `${call.slice(0, 199)}…`;
    const source: Source = { command: call, exit_code: null, tool };
    const options = offloadOptions({}, io);
    const r = await offload(found.text, { ...options, operation: tool.replace(/^mcp__/, ''), source });
    if (!r.offloaded) return 0;
    gcNowAndThen(options.dir, io.env, io.now());
    const output = { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: found.reshape(renderDescriptorText(r.descriptor)) } };
    await io.stdout.write(`${JSON.stringify(output)}\n`);
  } catch {
    // the result reaches the model unchanged
  }
  return 0;
}

/** The hidden `lro __claude-code-hook`. */
export const claudeHook: HookCommand = {
  name: '__claude-code-hook',
  description: "Claude Code's PostToolUse hook for MCP tools: a large result becomes its descriptor",
  examples: ["echo '{\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"mcp__s__t\",\"tool_response\":\"…\"}' | lro __claude-code-hook"],
  run: (io) => runClaudeHook(io),
};
