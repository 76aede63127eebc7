// The command table's inverse: a command's input (arguments by name, options by attribute, as its `run` takes
// them) back to the `lro …` line that parses to it. A cut output's next command is made as a value (budget.ts
// `Next`): the text shows this line, and the MCP server makes the tool call from the value itself, so nothing
// printed is parsed back.
import type { Next } from '../budget.js';
import { shellQuote } from '../shell-quote.js';
import { argumentKey, attributeOf, longFlag, takesValue, type CommandDef, type Input } from './command.js';

/**
 * The command line for an input: `lro NAME`, the arguments, then the options in the order the declaration lists
 * them (long flags, each value quoted for a POSIX shell). An argument that begins with a dash goes after `--`, the
 * options before it. Options the input does not set (undefined, or false for a flag) are left out.
 */
export function commandLine(def: CommandDef, input: Input): string {
  const positionals: string[] = [];
  for (const a of def.arguments ?? []) {
    const v = input[argumentKey(a)];
    for (const word of Array.isArray(v) ? v : v === undefined ? [] : [v]) positionals.push(String(word));
  }
  const options: string[] = [];
  for (const o of def.options ?? []) {
    const v = input[attributeOf(o)];
    const flag = longFlag(o);
    if (v === undefined || v === null) continue;
    if (!takesValue(o)) {
      if (v === !flag.startsWith('--no-')) options.push(flag); // --no-dedupe sets dedupe to false
      continue;
    }
    for (const value of Array.isArray(v) ? v : [v]) options.push(flag, shellQuote(String(value)));
  }
  const dashed = positionals.some((w) => w.startsWith('-'));
  const args = positionals.map(shellQuote);
  return ['lro', def.name, ...(dashed ? [...options, '--', ...args] : [...args, ...options])].join(' ');
}

/** The next command as a value, with the line the text shows. */
export function nextCommand(def: CommandDef, input: Input): Next {
  return { command: def.name, input, text: commandLine(def, input) };
}
