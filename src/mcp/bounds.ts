// How big one MCP tool result may be, whatever a call asks for. A client's transport reads a whole message before
// anything else: a 45 MB result (max_tokens 0 on a large result) made the SDK's stdio client drop the connection.
// So every result is at most MAX_RESULT_BYTES as sent: budgets are capped at MAX_RESULT_TOKENS and at
// MAX_OUTPUT_BYTES (a run of spaces is one token per 128 bytes), so that a command cuts its own output and ends it
// with its next call, as at any budget; a result still too large (JSON escapes) is made again with less.
import type { Input } from '../commands/command.js';
import { maxTokensFrom } from '../budget.js';
import { formatBytes } from '../units.js';
import type { ToolDef } from './definitions.js';

/** The most bytes one tool result takes as JSON (its text and its structuredContent together). */
export const MAX_RESULT_BYTES = 1_000_000;
/** The largest output budget a tool call gets: max_tokens above it, or 0 (no limit), means this. */
export const MAX_RESULT_TOKENS = 50_000;
/** The most bytes a command prints for a tool (the result holds them twice: as text, and as structured output). */
export const MAX_OUTPUT_BYTES = 400_000;
/** How much of an argument an error message may repeat. */
export const MAX_ECHO_CHARS = 200;
/** The longest error message (what it quotes from a long argument in another form, escaped or in part). */
const MAX_ERROR_CHARS = 4000;

/** The size of a result as sent (JSON, UTF-8). */
export function resultBytes(result: object): number {
  return Buffer.byteLength(JSON.stringify(result));
}

/** The input option (its key) that holds an option argument of the tool, if the tool offers it. */
function attributeOf(def: ToolDef, arg: string): string | undefined {
  return def.options.find((o) => o.arg === arg)?.attribute;
}

/** The input with its output budget at most MAX_RESULT_TOKENS (0, no limit, is the cap too). */
export function cappedBudget(def: ToolDef, input: Input, env: NodeJS.ProcessEnv): Input {
  const key = attributeOf(def, 'max_tokens');
  if (!key) return input;
  const asked = maxTokensFrom(input[key] as string | undefined, env);
  return asked === 0 || asked > MAX_RESULT_TOKENS ? { ...input, [key]: String(MAX_RESULT_TOKENS) } : input;
}

/**
 * An input that makes a smaller result than one of `bytes`: a budget in proportion (with a margin), a passthrough
 * of lro_offload stored instead, a smaller preview; null when there is nothing left to make smaller.
 */
export function smallerInput(def: ToolDef, input: Input, bytes: number, env: NodeJS.ProcessEnv): Input | null {
  const shrink = (key: string, tokens: number): Input | null => {
    const fewer = Math.floor((tokens * MAX_RESULT_BYTES * 0.8) / bytes);
    return fewer >= 1 && fewer < tokens ? { ...input, [key]: String(fewer) } : null;
  };
  const budget = attributeOf(def, 'max_tokens');
  if (budget) return shrink(budget, maxTokensFrom(input[budget] as string | undefined, env) || MAX_RESULT_TOKENS);
  const force = def.spec.result === 'offload' ? attributeOf(def, 'force') : undefined;
  if (force && input[force] !== true) return { ...input, [force]: true }; // content too large to return: store it
  const preview = attributeOf(def, 'preview_tokens');
  if (preview && input[preview] !== undefined) return shrink(preview, Number(input[preview]));
  return null;
}

/** The error for a result that stays too large, and what to ask for instead. */
export function tooLargeMessage(def: ToolDef, bytes: number): string {
  const fix = def.spec.result === 'listing' ? 'list fewer (session, operation)' : 'ask for less (without full, a smaller preview_tokens, a narrower range)';
  return `the result of ${def.spec.name} would be ${formatBytes(bytes)}, more than the ${formatBytes(MAX_RESULT_BYTES)} one MCP result may hold: ${fix}`;
}

/** A message with every long string argument it repeats cut to MAX_ECHO_CHARS, and the message itself bounded. */
export function capEchoes(message: string, args: unknown): string {
  const long = new Set<string>();
  const collect = (v: unknown): void => {
    if (typeof v === 'string' && v.length > MAX_ECHO_CHARS) long.add(v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (typeof v === 'object' && v !== null) Object.entries(v).forEach(([k, x]) => [k, x].forEach(collect));
  };
  collect(args);
  let out = message;
  for (const v of [...long].sort((a, b) => b.length - a.length)) out = out.split(v).join(`${v.slice(0, MAX_ECHO_CHARS)}…`);
  return out.length > MAX_ERROR_CHARS ? `${out.slice(0, MAX_ERROR_CHARS)}…` : out;
}
