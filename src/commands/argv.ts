// The command table's inverse: a command's input (arguments by name, options by attribute, as its `run` takes
// them) back to the `lro …` line that parses to it. A cut output's next command is made as a value (budget.ts
// `Next`): the text shows this line, and the MCP server makes the tool call from the value itself, so nothing
// printed is parsed back.
import type { Next } from '../budget.js';
import { shellQuote } from '../shell-quote.js';
import { argumentKey, attributeOf, longFlag, shortFlag, takesTwoWords, takesValue, type ArgumentDef, type CommandDef, type Input, type OptionDef } from './command.js';

/**
 * The order a command's line shows its words in, when it is not the declaration's (its continuations printed it
 * so before they were values, and the text stays byte-identical): argument names and option flags, an option
 * printed with the flag named ('-i' its short flag, '--ignore-case' its long one). What the layout leaves out comes
 * after it, arguments then options, in the declaration's order, so no input is lost from the line.
 */
export type Layout = readonly string[];

type Word = { argument: ArgumentDef } | { option: OptionDef; flag: string };

/** The arguments and options of def in the order a line shows them. */
function ordered(def: CommandDef, layout: Layout): Word[] {
  const words: Word[] = [];
  const placed = new Set<ArgumentDef | OptionDef>();
  for (const name of layout) {
    const argument = def.arguments?.find((a) => a.name === name);
    const option = def.options.find((o) => longFlag(o) === name || shortFlag(o) === name);
    if (argument) words.push({ argument });
    else if (option) words.push({ option, flag: name });
    else throw new Error(`lro ${def.name} has no argument or option ${name}`); // a layout's typo, caught by its tests
    placed.add((argument ?? option)!);
  }
  for (const argument of def.arguments ?? []) if (!placed.has(argument)) words.push({ argument });
  for (const option of def.options) if (!placed.has(option)) words.push({ option, flag: longFlag(option) });
  return words;
}

/**
 * The command line for an input: `lro NAME`, the arguments, then the options in the order the declaration lists
 * them (long flags, each value quoted for a POSIX shell; a two-word value NAME=VALUE as its two words), or in the
 * order `layout` gives. An argument that begins with a dash goes after `--` with the arguments after it, the options
 * before it (`lro jq ID -c -- '-.a'`, as lro's usage errors tell to write it). Options the input does not set
 * (undefined, or false for a flag) are left out.
 */
export function commandLine(def: CommandDef, input: Input, layout: Layout = []): string {
  const positionals: string[] = [];
  const line: string[] = []; // the words in order, arguments and options together
  const options: string[] = [];
  for (const w of ordered(def, layout)) {
    if ('argument' in w) {
      const v = input[argumentKey(w.argument)];
      for (const word of Array.isArray(v) ? v : v === undefined ? [] : [v]) {
        positionals.push(String(word));
        line.push(shellQuote(String(word)));
      }
      continue;
    }
    const o = w.option;
    const v = input[attributeOf(o)];
    if (v === undefined || v === null) continue;
    const words: string[] = [];
    if (!takesValue(o)) {
      if (v === !longFlag(o).startsWith('--no-')) words.push(w.flag); // --no-dedupe sets dedupe to false
    } else {
      for (const value of Array.isArray(v) ? v : [v]) words.push(w.flag, ...valueWords(o, String(value)).map(shellQuote));
    }
    options.push(...words);
    line.push(...words);
  }
  const dashed = positionals.findIndex((w) => w.startsWith('-'));
  if (dashed < 0) return ['lro', def.name, ...line].join(' ');
  const before = positionals.slice(0, dashed).map(shellQuote);
  return ['lro', def.name, ...before, ...options, '--', ...positionals.slice(dashed).map(shellQuote)].join(' ');
}

/** The words of an option's value: one, or a two-word value's NAME and VALUE (NAME holds no "="). */
function valueWords(o: OptionDef, value: string): string[] {
  const eq = value.indexOf('=');
  return takesTwoWords(o) && eq > 0 ? [value.slice(0, eq), value.slice(eq + 1)] : [value];
}

/** The next command as a value, with the line the text shows (in `layout`'s order when given). */
export function nextCommand(def: CommandDef, input: Input, layout?: Layout): Next {
  return { command: def.name, input, text: commandLine(def, input, layout) };
}
