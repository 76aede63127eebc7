// The commands lro prints (`next: lro read ID --records 13:20 --max-tokens 150`, the descriptor's recipes and
// guidance) read back as the tool calls that do the same (`lro_read {"id":"ID","records":"13:20","max_tokens":150}`),
// parsed by the command's own definition, so the CLI's printing stays the one source of these commands.
import type { Input } from '../commands/command.js';
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
