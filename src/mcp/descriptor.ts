// The descriptor for an MCP client: the same facts, with every command it names (recipes, guidance, "more
// fields") rewritten as the tool call that does it, since such a client has tools, not a shell. The plain
// `tail -n +2 FILE | jq` forms are left out for the same reason.
import type { Descriptor } from '../describe/descriptor.js';
import type { JqRecipe } from '../describe/recipes.js';
import { renderDescriptorJson } from '../describe/descriptor.js';
import { renderDescriptorText } from '../render/descriptor-text.js';
import { formatCall, type CallReader, type ToolCall } from './calls.js';

/** A recipe as a tool call: its description, the call as text, and the call itself. */
export interface ToolRecipe {
  description: string;
  command: string;
  call?: ToolCall;
}

/** The descriptor an MCP client gets: commands become tool calls. */
export type ToolDescriptor = Omit<Descriptor, 'jq_recipes'> & { jq_recipes: ToolRecipe[] };

/** Rewrites a descriptor's commands as tool calls (a command no tool makes, e.g. `lro cat`, stays as it is). */
export async function toolDescriptor(d: Descriptor, calls: CallReader): Promise<ToolDescriptor> {
  const recipes: ToolRecipe[] = [];
  for (const r of d.jq_recipes as JqRecipe[]) {
    const call = await calls.read(r.command);
    recipes.push(call ? { description: r.description, command: formatCall(call), call } : { description: r.description, command: r.command });
  }
  const fields: string[] = [];
  for (const f of d.fields) {
    // "… 28 more (lro info ID --full)"
    const m = /^(.*)\((lro [^()]+)\)$/.exec(f);
    const call = m ? await calls.read(m[2]) : null;
    fields.push(m && call ? `${m[1]}(${formatCall(call)})` : f);
  }
  return { ...d, fields, jq_recipes: recipes, guidance: toolWords(await calls.rewriteQuoted(d.guidance)) };
}

/** The guidance's words about commands, as a tool user reads them ("lro jq … (-s: …)" is lro_jq and slurp). */
function toolWords(guidance: string): string {
  return guidance
    .replace('lro jq feeds jq one record at a time (-s: all at once)', 'lro_jq feeds jq one record at a time (slurp: true, all at once)')
    .replace(/where takes FIELD=VALUE, 'FIELD>N', FIELD~REGEX \(several: all must hold\); lro jq (\S+) 'FILTER' for the rest\./, (_, id: string) =>
      `lro_where takes a list of conditions FIELD=VALUE, FIELD>N, FIELD~REGEX (all must hold); ${formatCall({ tool: 'lro_jq', arguments: { id, filter: 'FILTER' } })} for the rest.`,
    );
}

/** The descriptor as a model reads it: prose (the default) or JSON. */
export function renderToolDescriptor(d: ToolDescriptor, form: 'text' | 'json'): string {
  // renderDescriptorText reads description and command only
  const asDescriptor = d as unknown as Descriptor;
  return form === 'json' ? renderDescriptorJson(asDescriptor) : renderDescriptorText(asDescriptor);
}
