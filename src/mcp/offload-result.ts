// What `lro mcp proxy` does to an upstream tool result: text above the threshold is stored and replaced by the
// descriptor (naming lro's tools); everything else passes through untouched (images, audio, resources, small
// text). structuredContent is never left holding the whole output: its string leaves that repeat the stored text
// become the descriptor text too (so a declared `{content: string}` schema still holds), and if it is still large
// (an array of objects, say), it is stored as JSON and replaced by `{lro_offloaded: {...}}`, which the proxy's
// tools/list allows in that tool's outputSchema (see tool-list.ts).
import type { Descriptor } from '../describe/descriptor.js';
import { offload, type OffloadOptions, type OffloadResult } from '../offload.js';
import type { Source } from '../format/header.js';
import { formatCall, type CallReader, type ToolCall } from './calls.js';
import { renderToolDescriptor, toolDescriptor } from './descriptor.js';
import { gcNowAndThen } from '../harness/resident-start.js';

/** How the proxy offloads: the offload options (store, threshold, ttl...) and the per-tool exceptions. */
export interface OffloadPolicy {
  options: OffloadOptions;
  /** --threshold-for TOOL=N */
  thresholdFor: Map<string, number>;
  /** --exclude TOOL: passed through whatever their size. */
  exclude: Set<string>;
  descriptor: 'text' | 'json';
  calls: CallReader;
}

type Block = { type: string; text?: unknown; [k: string]: unknown };
/** A tools/call result as it comes from the upstream (only `content` is relied on). */
export type CallResult = { content: Block[]; structuredContent?: unknown; isError?: boolean; [k: string]: unknown };

/** Strings longer than this in the arguments are shortened in the header's source. */
const ARGUMENT_CHARS = 200;

/** The arguments as kept in the header: long strings shortened (a written file's content has no place there). */
export function shortArguments(v: unknown): unknown {
  if (typeof v === 'string') return v.length > ARGUMENT_CHARS ? `${v.slice(0, ARGUMENT_CHARS)}… (${v.length} characters)` : v;
  if (Array.isArray(v)) return v.map(shortArguments);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shortArguments(x)]));
  return v;
}

/** The texts inside the usual MCP envelope `{"content":[{"type":"text","text":"…"}]}`, or null if it is not one. */
export function unwrapEnvelope(text: string): string[] | null {
  if (!/^\s*\{\s*"content"\s*:\s*\[/.test(text.slice(0, 100))) return null;
  try {
    const doc = JSON.parse(text) as { content?: unknown };
    const blocks = doc.content;
    if (!Array.isArray(blocks) || blocks.length === 0) return null;
    if (!blocks.every((b: Block) => b && b.type === 'text' && typeof b.text === 'string')) return null;
    return blocks.map((b: Block) => b.text as string);
  } catch {
    return null;
  }
}

const looksJson = (s: string): boolean => /^\s*[[{]/.test(s);

/** The text to store for some text blocks, and its format: JSON blocks become one JSON array of them, others lines. */
export function textPayload(texts: string[], format: OffloadOptions['format']): { text: string; format: OffloadOptions['format'] } | null {
  const flat = texts.flatMap((t) => unwrapEnvelope(t) ?? [t]);
  if (flat.length === 0) return null;
  if (flat.length === 1) return { text: flat[0], format };
  const allJson =
    flat.every(looksJson) &&
    flat.every((t) => {
      try {
        JSON.parse(t);
        return true;
      } catch {
        return false;
      }
    });
  if (allJson && (format === undefined || format === 'auto')) return { text: `[${flat.join(',')}]`, format: 'json' };
  // each block on lines of its own, without a blank line between blocks that end with a newline
  return { text: flat.reduce((all, t) => (all.endsWith('\n') ? all + t : `${all}\n${t}`)), format };
}

/** Replaces every string leaf `f` maps to something else. */
function mapLeaves(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => mapLeaves(x, f));
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapLeaves(x, f)]));
  return v;
}

const sameJson = (text: string, value: unknown): boolean => {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
};

/** Stores results of upstream tools above the threshold; see the top of this file. */
export class ResultOffloader {
  constructor(private readonly policy: OffloadPolicy) {}

  /** Whether a tool's results may be replaced (not --exclude'd). */
  offloads(tool: string): boolean {
    return !this.policy.exclude.has(tool);
  }

  /**
   * The result to give the client for a call's result. With --redact, what passes through is redacted too: whoever
   * asked for redaction must not see a secret in a small result either.
   */
  async apply(result: CallResult, call: ToolCall): Promise<CallResult> {
    const out = await this.offloaded(result, call);
    return this.policy.options.redact ? redactResult(out) : out;
  }

  private async offloaded(result: CallResult, call: ToolCall): Promise<CallResult> {
    if (!this.offloads(call.tool) || !Array.isArray(result.content)) return result;
    const { options } = this.policy;
    const threshold = this.policy.thresholdFor.get(call.tool) ?? options.threshold ?? 6400;
    const over = (s: string) => Buffer.byteLength(s) > threshold; // tokens never outnumber bytes
    const texts = result.content.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string);
    const payload = textPayload(texts, options.format);
    let out: CallResult = result;
    let stored: { id: string; text: string } | null = null;

    if (payload && (options.force || over(payload.text))) {
      const r = await this.store(payload.text, payload.format, call, result.isError, threshold, !!options.force);
      if (r) {
        const replacement = await this.replacement(r);
        out = { ...out, content: replaceTextBlocks(result.content, replacement) };
        const original = new Set([...texts, payload.text]);
        if (out.structuredContent !== undefined) out.structuredContent = mapLeaves(out.structuredContent, (s) => (original.has(s) ? replacement : s));
        if (!r.offloaded) return out; // the store could not be written: nothing more can be stored
        stored = { id: r.id, text: payload.text };
      }
    }
    // structuredContent still large: the same data as the stored text (its JSON), or data of its own to store too
    if (out.structuredContent !== undefined && typeof out.structuredContent === 'object') {
      const json = JSON.stringify(out.structuredContent);
      if (over(json) && stored && sameJson(stored.text, result.structuredContent)) {
        out = { ...out, structuredContent: placeholder(stored.id, call, 'the same data as the text') };
      } else if (over(json)) {
        const r = await this.store(json, 'json', call, result.isError, threshold, false);
        if (r?.offloaded) {
          const note = stored === null ? await this.replacement(r) : null;
          out = { ...out, structuredContent: placeholder(r.id, call, 'structuredContent, stored as JSON') };
          // the model reads content: tell it where the structured data went when no text said so
          if (note) out = { ...out, content: [...out.content, { type: 'text', text: note }] };
        }
      }
    }
    return out;
  }

  /** Offloads one payload with the call as its source; null when it passed through (at or below the threshold). */
  private async store(
    text: string,
    format: OffloadOptions['format'],
    call: ToolCall,
    isError: unknown,
    threshold: number,
    force: boolean,
  ): Promise<OffloadResult | null> {
    const args = shortArguments(call.arguments) as Record<string, unknown>;
    const source: Source = { command: formatCall({ tool: call.tool, arguments: args }), exit_code: null, tool: call.tool, arguments: args };
    if (isError === true) source.is_error = true;
    const r = await offload(text, { ...this.policy.options, threshold, force, format, operation: call.tool, source });
    if (r.offloaded) gcNowAndThen(this.policy.options.dir, process.env, new Date());
    return r.offloaded || r.truncated ? r : null;
  }

  /** The text that replaces a stored output: its descriptor, or the output cut short when it could not be stored. */
  private async replacement(r: OffloadResult): Promise<string> {
    if (r.offloaded) return renderToolDescriptor(await toolDescriptor(r.descriptor as Descriptor, this.policy.calls), this.policy.descriptor);
    if (!r.truncated) return r.content.toString('utf8');
    this.policy.options.warn?.(r.warning.replace(/^lro: /, ''));
    const text = r.content.toString('utf8');
    return `${text}${text.endsWith('\n') || text === '' ? '' : '\n'}[${r.warning}]`;
  }
}

/** A result with its text blocks and the strings of its structuredContent redacted (secrets/redact.ts). */
async function redactResult(r: CallResult): Promise<CallResult> {
  const { redactText } = await import('../secrets/redact.js');
  const texts = new Map<string, string>();
  const collect = (v: unknown): void => {
    if (typeof v === 'string') texts.set(v, v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(collect);
  };
  if (Array.isArray(r.content)) for (const b of r.content) if (b.type === 'text' && typeof b.text === 'string') texts.set(b.text, b.text);
  collect(r.structuredContent);
  for (const t of texts.keys()) texts.set(t, await redactText(t));
  const content = Array.isArray(r.content) ? r.content.map((b) => (b.type === 'text' && typeof b.text === 'string' ? { ...b, text: texts.get(b.text)! } : b)) : r.content;
  const structured = r.structuredContent === undefined ? {} : { structuredContent: mapLeaves(r.structuredContent, (s) => texts.get(s) ?? s) };
  return { ...r, content, ...structured };
}

/** The text blocks replaced by one block with `text` where the first was; other blocks kept in their places. */
function replaceTextBlocks(blocks: Block[], text: string): Block[] {
  const out: Block[] = [];
  let done = false;
  for (const b of blocks) {
    if (b.type !== 'text' || typeof b.text !== 'string') out.push(b);
    else if (!done) {
      out.push({ type: 'text', text });
      done = true;
    }
  }
  return out;
}

/** What structuredContent becomes when its data is stored. */
function placeholder(id: string, call: ToolCall, what: string): Record<string, unknown> {
  return { lro_offloaded: { id, tool: call.tool, note: `${what} as lro result ${id}; look inside with lro_jq, lro_grep or lro_read` } };
}
