// The descriptor for an MCP client: the same facts, with every command it names (recipes, guidance, "more
// fields") rewritten as the tool call that does it, since such a client has tools, not a shell. The plain
// `tail -n +2 FILE | jq` forms are left out for the same reason.
import type { Descriptor } from '../describe/descriptor.js';
import type { JqRecipe } from '../describe/recipes.js';
import { renderDescriptorJson, whereHint } from '../describe/descriptor.js';
import { renderDescriptorText } from '../render/descriptor-text.js';
import { formatCall, type CallReader, type ToolCall } from './calls.js';

/** A recipe as a tool call: its description, the call as text, and the call itself. */
export interface ToolRecipe {
  description: string;
  command: string;
  call?: ToolCall;
}

/**
 * The descriptor an MCP client gets: commands become tool calls (their words are the client's no more). Its
 * `commands` keep their words, each line the tool call's text; like a descriptor's, they are not printed
 * (printedDescriptor).
 */
export type ToolDescriptor = Omit<Descriptor, 'jq_recipes'> & { jq_recipes: ToolRecipe[] };

/**
 * Rewrites a descriptor's commands as tool calls, each made from the words the descriptor gives it (a command no
 * tool makes, e.g. `lro cat`, stays as it is).
 */
export async function toolDescriptor(d: Descriptor, calls: CallReader): Promise<ToolDescriptor> {
  const made = new Map<string, ToolCall>(); // by the line printed
  for (const c of d.commands) {
    const call = await calls.fromWords(c.words);
    if (call) made.set(c.line, call);
  }
  const recipes: ToolRecipe[] = (d.jq_recipes as JqRecipe[]).map((r) => {
    const call = made.get(r.command);
    return call ? { description: r.description, command: formatCall(call), call } : { description: r.description, command: r.command };
  });
  // "… 28 more (lro info ID --full)"
  const fields = d.fields.map((f) => {
    for (const [line, call] of made) if (f.endsWith(`(${line})`)) return `${f.slice(0, -line.length - 2)}(${formatCall(call)})`;
    return f;
  });
  let guidance = d.guidance;
  for (const [line, call] of made) guidance = guidance.split(`\`${line}\``).join(`\`${formatCall(call)}\``);
  const commands = d.commands.map((c) => {
    const call = made.get(c.line);
    return call ? { words: c.words, line: formatCall(call) } : c;
  });
  return { ...d, commands, fields, jq_recipes: recipes, guidance: toolWords(guidance, d.id) };
}

/** The guidance's sentence on where and jq, as a tool user reads it (lro_where takes a list; lro_jq is a call). */
function toolWords(guidance: string, id: string): string {
  const call = formatCall({ tool: 'lro_jq', arguments: { id, filter: 'FILTER' } });
  return guidance.replace(whereHint(id), () => `lro_where takes a list of conditions FIELD=VALUE, FIELD>N, FIELD~REGEX (all must hold); ${call} for the rest.`);
}

/** The descriptor as a model reads it: prose (the default) or JSON. */
export function renderToolDescriptor(d: ToolDescriptor, form: 'text' | 'json'): string {
  // renderDescriptorText reads description and command only
  const asDescriptor = d as unknown as Descriptor;
  return form === 'json' ? renderDescriptorJson(asDescriptor) : renderDescriptorText(asDescriptor);
}
