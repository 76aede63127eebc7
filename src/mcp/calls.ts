// The commands lro gives as tool calls that do the same (`lro_read {"id":"ID","records":"13:20","max_tokens":150}`).
// A continuation made as a value (budget.ts `Next`: the command and its input) becomes its call from that value
// (`fromNext`); a command a descriptor names, from its words (`fromWords`, read by the command's own declaration as
// the command line is). Nothing printed is read back.
import type { Next } from '../budget.js';
import { attributeOf, longFlag } from '../commands/command.js';
import { inputOfWords } from '../commands/commander.js';
import type { ToolDef } from './definitions.js';

/** A tool call: what a client sends as tools/call params. */
export interface ToolCall {
  tool: string;
  arguments: Record<string, unknown>;
}

/** Options that belong to the server, not to a call (the store is the server's): dropped when reading back. */
const SERVER_OPTIONS = new Set(['dir']);

/** A call as a model reads it: `lro_read {"id":"…","records":"13:20"}`. */
export function formatCall(call: ToolCall): string {
  return `${call.tool} ${JSON.stringify(call.arguments)}`;
}

/** Reads back printed commands as tool calls, for the tools it was given (others stay commands). */
export class CallReader {
  private readonly byCommand: Map<string, ToolDef>;
  private readonly flags: Map<string, string>;

  constructor(defs: ToolDef[]) {
    this.byCommand = new Map(defs.map((d) => [d.spec.command, d]));
    this.flags = new Map(defs.flatMap((d) => d.options.map((o) => [o.flag, o.arg])));
  }

  /** The argument a tool takes for a command's flag (`--max-tokens`: max_tokens); null when no tool takes it. */
  argumentOf(flag: string): string | null {
    return this.flags.get(flag) ?? null;
  }

  /**
   * The tool call of a next command made as a value, or null when no tool of these makes it (a command no tool
   * runs, or an option its tool does not offer).
   */
  fromNext(next: Next): ToolCall | null {
    const def = this.byCommand.get(next.command);
    if (!def) return null;
    const input = next.input;
    const args: Record<string, unknown> = {};
    for (const p of def.positionals) {
      const v = input[p.key];
      if (v !== undefined && !(p.optional && Array.isArray(v) && v.length === 0)) args[p.name] = v;
    }
    const storeWide = def.spec.allId !== undefined && input.all === true;
    if (storeWide) {
      const [id, second] = def.positionals;
      args[second.name] = args[id.name];
      args[id.name] = def.spec.allId;
    }
    const fixed = new Set(def.command.options.filter((o) => def.spec.fixed?.includes(longFlag(o))).map(attributeOf)); // the tool's own
    const positional = new Set(def.positionals.map((p) => p.key));
    for (const [attribute, value] of Object.entries(input)) {
      if (value === undefined || value === null || positional.has(attribute) || fixed.has(attribute)) continue;
      if (Array.isArray(value) && value.length === 0) continue; // a repeatable option not given (the line shows none)
      if (storeWide && attribute === 'all') continue;
      const o = def.options.find((x) => x.attribute === attribute);
      if (!o) {
        if (SERVER_OPTIONS.has(attribute) || value === false) continue;
        return null;
      }
      const v = argumentValue(o.type, typeof value === 'number' ? String(value) : value);
      if (v === undefined) {
        if (value === false) continue; // a flag not given
        return null;
      }
      args[o.arg] = v;
    }
    return { tool: def.spec.name, arguments: args };
  }

  /**
   * The tool call a command the descriptor names makes, from its words (describe/commands.ts), or null when it is
   * not one lro's tools can make.
   */
  async fromWords(words: string[]): Promise<ToolCall | null> {
    const def = this.byCommand.get(words[0]);
    const input = def ? await inputOfWords(def.command, words.slice(1)) : null;
    return input ? this.fromNext({ command: words[0], input, text: '' }) : null;
  }
}

/** An option's value as commander parsed it, as the tool argument of that type. */
function argumentValue(type: ToolDef['options'][number]['type'], value: unknown): unknown {
  switch (type) {
    case 'boolean':
      return value === true ? true : undefined;
    case 'integer':
      return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
    case 'string':
      return typeof value === 'string' ? value : undefined;
    case 'list':
      return Array.isArray(value) && value.every((x) => typeof x === 'string') ? value : undefined;
    case 'strings':
    case 'json': {
      if (!Array.isArray(value)) return undefined;
      const out: Record<string, unknown> = {};
      for (const pair of value as string[]) {
        const eq = pair.indexOf('=');
        if (eq <= 0) return undefined;
        const text = pair.slice(eq + 1);
        if (type === 'strings') out[pair.slice(0, eq)] = text;
        else {
          try {
            out[pair.slice(0, eq)] = JSON.parse(text);
          } catch {
            return undefined;
          }
        }
      }
      return out;
    }
  }
}
