// The largest answer the proxy passes to its client. The SDK's stdio client drops the connection (and with it the
// server) when a message passes 10 MiB, and a model gains nothing from megabytes of base64: what the offload does
// not replace (images, audio, embedded resources, the results of --exclude'd tools) is still bounded here. A tool
// result over the cap is stored whole as JSON, so nothing is lost, and answered with an error result naming the
// stored id (an error result is not checked against the tool's outputSchema, so a validating client takes it).
import { offload, type OffloadOptions } from '../offload.js';
import { formatBytes } from '../units.js';
import { formatCall, type ToolCall } from './calls.js';
import { shortArguments, type CallResult } from './offload-result.js';

/** A message through lro carries at most this many bytes: well under the 10 MiB of the SDK's stdio client. */
export const MAX_RELAYED_BYTES = 4 << 20;

/** The JSON size of a value, Infinity when it is longer than a string can be. */
function jsonBytes(v: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(v));
  } catch {
    return Infinity;
  }
}

/** "2 image blocks, 1 text block": what a result holds, for the message. */
function blockKinds(result: CallResult): string {
  const counts = new Map<string, number>();
  for (const b of Array.isArray(result.content) ? result.content : []) {
    counts.set(String(b?.type), (counts.get(String(b?.type)) ?? 0) + 1);
  }
  const kinds = [...counts].map(([type, n]) => `${n} ${type} block${n === 1 ? '' : 's'}`);
  return [...kinds, ...(result.structuredContent !== undefined ? ['structuredContent'] : [])].join(', ');
}

/** Tool results within MAX_RELAYED_BYTES; see the top of this file. */
export class ResultCap {
  constructor(
    private readonly options: OffloadOptions,
    private readonly maxBytes = MAX_RELAYED_BYTES,
  ) {}

  /** The result itself when within the cap; else an error result naming where it was stored. */
  async apply(result: CallResult, call: ToolCall): Promise<CallResult> {
    const size = jsonBytes(result);
    if (size <= this.maxBytes) return result;
    const measured = size === Infinity ? 'too large to measure' : formatBytes(size);
    const over = `more than the ${formatBytes(this.maxBytes)} a message through lro may carry`;
    const what = `lro: the result of ${call.tool} is ${measured} (${blockKinds(result)}), ${over}`;
    const id = size === Infinity ? null : await this.store(result, call);
    const text = id
      ? `${what}; it is stored whole as lro result ${id} (as JSON): see what it holds with lro_info {"id":"${id}"}`
      : `${what}, and it could not be stored: ask the tool for less`;
    return { content: [{ type: 'text', text }], isError: true };
  }

  private async store(result: CallResult, call: ToolCall): Promise<string | null> {
    const args = shortArguments(call.arguments) as Record<string, unknown>;
    const command = formatCall({ tool: call.tool, arguments: args });
    const source = { command, exit_code: null, tool: call.tool, arguments: args };
    const options: OffloadOptions = { ...this.options, force: true, format: 'json', operation: call.tool, source };
    try {
      const r = await offload(JSON.stringify(result), options);
      return r.offloaded ? r.id : null;
    } catch {
      return null;
    }
  }
}
