// A command's declaration as commander's Command: the parser of the command line and the source of --help. The
// declaration is the only place an option is written; this file only translates it.
import { Argument, Command, Option } from 'commander';
import { argumentKey, longFlag, takesTwoWords, type CommandDef, type Input } from './command.js';

/** What the parsed command line is handed to: the command and its input. */
export type Runner = (def: CommandDef, input: Input) => Promise<void>;

const collect = (v: string, acc: string[] = []): string[] => [...acc, v];

/** The text after the options in --help: the examples, then the notes. */
export function helpAfter(def: Pick<CommandDef, 'examples' | 'notes'>): string {
  const examples = def.examples?.length ? `\nExamples:\n${def.examples.map((l) => `  ${l}`).join('\n')}` : '';
  return def.notes ? `${examples}\n\n${def.notes}` : examples;
}

/** The commander Command of a declaration (and of its subcommands); `runner` gets the input when it is run. */
export function commanderCommand(def: CommandDef, runner: Runner): Command {
  const cmd = new Command(def.name).description(def.description);
  const args = def.arguments ?? [];
  for (const a of args) {
    const spelled = `${a.name}${a.variadic ? '...' : ''}`;
    const arg = new Argument(a.optional ? `[${spelled}]` : `<${spelled}>`, a.description);
    if (a.choices) arg.choices(a.choices);
    cmd.addArgument(arg);
  }
  if (def.passThrough) cmd.passThroughOptions();
  if (def.usage) cmd.usage(def.usage);
  for (const o of def.options) {
    const opt = new Option(o.flags, o.description);
    if (o.choices) opt.choices(o.choices);
    if (o.default !== undefined) opt.default(o.default);
    if (o.repeatable) opt.argParser(collect);
    cmd.addOption(opt);
  }
  const after = helpAfter(def);
  if (after) cmd.addHelpText('after', after);
  if (def.subcommands?.length) {
    cmd.enablePositionalOptions(); // so a subcommand can pass its command's options through
    for (const sub of def.subcommands) cmd.addCommand(commanderCommand(sub, runner), { hidden: !!sub.hidden });
  }
  if (def.beforeSubcommand) {
    const check = def.beforeSubcommand;
    cmd.hook('preSubcommand', (self) => check(Object.keys(self.opts()).filter((k) => self.getOptionValueSource(k) === 'cli')));
  }
  cmd.action(async (...parsed: unknown[]) => {
    const opts = parsed[args.length] as Input;
    const input: Input = { ...opts };
    args.forEach((a, i) => (input[argumentKey(a)] = parsed[i]));
    await runner(def, input);
  });
  return cmd;
}

/** The values commander gives the options that are not on the command line (defaults; a lone --no-x is true). */
export function defaultInput(def: CommandDef): Input {
  return { ...commanderCommand(def, async () => undefined).opts() };
}

/**
 * An option whose value is two words (jq's `--arg NAME VALUE`, declared as '--arg <name value>') gets them
 * joined as NAME=VALUE before parsing: commander takes one word per value (jq variable names cannot hold "=").
 */
export function joinTwoWordValues(def: CommandDef, argv: string[]): string[] {
  const twoWords = new Set(def.options.filter(takesTwoWords).map(longFlag));
  if (twoWords.size === 0) return argv;
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (twoWords.has(a) && i + 2 < argv.length) {
      out.push(a, `${argv[i + 1]}=${argv[i + 2]}`);
      i += 2;
    } else out.push(a);
  }
  return out;
}

/**
 * The input a command's words give (the words after its name, as a shell passes them), as its `run` takes it, with
 * only what the words say (no defaults); null when the declaration does not take them.
 */
export async function inputOfWords(def: CommandDef, words: string[]): Promise<Input | null> {
  let input: Input = {};
  const cmd = commanderCommand(def, async (_, parsed) => void (input = parsed)); // a fresh one: commander keeps state
  cmd.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined, outputError: () => undefined });
  try {
    await cmd.parseAsync(joinTwoWordValues(def, words), { from: 'user' });
  } catch {
    return null;
  }
  const given: Input = {};
  for (const a of def.arguments ?? []) given[argumentKey(a)] = input[argumentKey(a)];
  for (const key of Object.keys(cmd.opts())) if (cmd.getOptionValueSource(key) === 'cli') given[key] = input[key];
  return given;
}
