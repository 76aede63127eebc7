// The commands lro gives as tool calls that do the same (`lro_read {"id":"ID","records":"13:20","max_tokens":150}`).
// A continuation made as a value (budget.ts `Next`: the command and its input) becomes its call from that value
// (`fromNext`), nothing printed read back. The commands lro only prints (the descriptor's recipes and guidance)
// are read back by the command's own definition (`read`).
import type { Next } from '../budget.js';
import { attributeOf, longFlag, type Input } from '../commands/command.js';
import { commanderCommand, joinTwoWordValues } from '../commands/commander.js';
import { shellWords } from '../shell-quote.js';
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

  constructor(defs: ToolDef[]) {
    this.byCommand = new Map(defs.map((d) => [d.spec.command, d]));
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

  /** The tool call a command line makes, or null when it is not one lro's tools can make. */
  async read(line: string): Promise<ToolCall | null> {
    const words = shellWords(line.trim());
    if (!words || words[0] !== 'lro' || words.length < 2) return null;
    const def = this.byCommand.get(words[1]);
    if (!def) return null;
    const argv = joinTwoWordValues(def.command, words.slice(2));
    let input: Input = {};
    const cmd = commanderCommand(def.command, async (_, parsed) => void (input = parsed)); // a fresh one: commander keeps state
    cmd.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined, outputError: () => undefined });
    try {
      await cmd.parseAsync(argv, { from: 'user' });
    } catch {
      return null;
    }
    const args: Record<string, unknown> = {};
    for (const p of def.positionals) {
      const v = input[p.key];
      if (!(p.optional && (v === undefined || (Array.isArray(v) && v.length === 0)))) args[p.name] = v; // none given
    }
    const storeWide = def.spec.allId !== undefined && input.all === true;
    if (storeWide) {
      // `lro grep --all … PATTERN`: the pattern stood in the id's place
      const [id, second] = def.positionals;
      args[second.name] = args[id.name];
      args[id.name] = def.spec.allId;
    }
    const values = cmd.opts();
    for (const [attribute, value] of Object.entries(values)) {
      if (cmd.getOptionValueSource(attribute) !== 'cli') continue; // a default, not in the command
      if (storeWide && attribute === 'all') continue;
      const o = def.options.find((x) => x.attribute === attribute);
      if (!o) {
        if (SERVER_OPTIONS.has(attribute)) continue;
        return null;
      }
      const v = argumentValue(o.type, value);
      if (v === undefined) return null;
      args[o.arg] = v;
    }
    return { tool: def.spec.name, arguments: args };
  }

  /** Each `lro …` command between backticks in a text, replaced by its tool call (the others kept). */
  async rewriteQuoted(text: string): Promise<string> {
    const parts = text.split(/(`lro [^`]+`)/);
    for (let i = 1; i < parts.length; i += 2) {
      const call = await this.read(parts[i].slice(1, -1));
      if (call) parts[i] = `\`${formatCall(call)}\``;
    }
    return parts.join('');
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
