// What a command is: one declaration (name, arguments, options with their help and the values they complete,
// examples) and a `run(input, io)` that takes the parsed input and an IO and returns the exit code. Every face of
// lro is derived from these declarations alone: commander's program and its --help (faces/commander.ts), the
// shell completions (faces/completion.ts), the man page (faces/man.ts) and the MCP tools (mcp/definitions.ts),
// which call `run` directly with typed arguments.
import type { IO } from '../io.js';

/** A positional argument. */
export interface ArgumentDef {
  /** Its name in the help (`<id>`) and its key in the input (`input.id`). */
  name: string;
  description: string;
  /** Takes one or more values (an array). */
  variadic?: boolean;
  /** May be left out. */
  optional?: boolean;
  /** The words it takes (offered by completion, checked by the parser). */
  choices?: readonly string[];
  /** What completion offers: stored ids, or a command line (run, mcp proxy). */
  complete?: 'id' | 'command';
  /** Its description in the MCP tool, when it differs from the help's (see OptionDef.mcp). */
  mcp?: string;
}

/** An option. */
export interface OptionDef {
  /** The flags and value as the help shows them: '-F, --fixed-strings', '--max-tokens <n>', '--no-dedupe'. */
  flags: string;
  description: string;
  /** The value when the option is not given (shown in the help). */
  default?: string;
  /** The values it takes (offered by completion, checked by the parser, shown in the help). */
  choices?: readonly string[];
  /** May be given more than once; the values are collected in an array. */
  repeatable?: boolean;
  /** What completion offers for its value besides choices: a directory or a file. */
  complete?: 'dir' | 'file';
  /** More for the man page, after the description: what a reader of the manual needs and the help has no room for. */
  manual?: string;
  /**
   * Its description in the MCP tool that offers it, when the help's is longer than a tool list may be: every
   * client session pays for the whole list (test/e2e/mcp-tool-list-budget.test.ts keeps it under 1,500 tokens).
   * '' lists it with no description of its own: its name and type say it all (grep's ignore_case), or its tool's
   * description does (and lro_read's says, for every tool, what id, records and max_tokens are).
   */
  mcp?: string;
}

/** The parsed input of a command: its arguments by name and its options by attribute (max-tokens is maxTokens). */
export type Input = Record<string, unknown>;

/**
 * One command. `I` is the shape of its input as its `run` reads it; the faces hold commands of every shape
 * (CommandDef with no argument) and build the input from the declaration, so to them it is any.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface CommandDef<I = any> {
  name: string;
  /** One sentence (the command list shows it; completion shows its first clause). */
  description: string;
  arguments?: ArgumentDef[];
  options: OptionDef[];
  /** The usage line after `lro NAME`, when the one made from the arguments would mislead (lro run). */
  usage?: string;
  /** Lines of examples for the help and the man page, each as printed after two spaces. */
  examples?: string[];
  /** A paragraph after the examples in the help (exit status, what the output looks like). */
  notes?: string;
  /** Options after the first argument belong to it, not to lro (lro run -- cmd --flag). */
  passThrough?: boolean;
  /** Left out of the help, the completion and the man page (commands for scripts). */
  hidden?: boolean;
  subcommands?: CommandDef[];
  /** Checks the options given before a subcommand's name (throws a UsageError). */
  beforeSubcommand?(given: string[]): void;
  /** Runs the command; returns the exit code. Throws LroError for what the user must hear. */
  run(input: I, io: IO): Promise<number>;
}

/** The long flag of an option: '--max-tokens'. */
export function longFlag(o: OptionDef): string {
  const m = /(?:^|[ ,|])(--[\w-]+)/.exec(o.flags);
  if (!m) throw new Error(`option ${o.flags} has no long flag`);
  return m[1];
}

/** The short flag of an option, if any: '-m'. */
export function shortFlag(o: OptionDef): string | undefined {
  return /^(-\w)\b/.exec(o.flags)?.[1];
}

/** Whether an option takes a value. */
export function takesValue(o: OptionDef): boolean {
  return /[<[]/.test(o.flags);
}

/**
 * Whether an option's value is two words (jq's '--arg <name value>'): the input holds them as NAME=VALUE
 * (commander.ts joinTwoWordValues), the line as two words.
 */
export function takesTwoWords(o: OptionDef): boolean {
  return /<[^>]* [^>]*>/.test(o.flags);
}

/** The key of an option in the input, as commander names it: '--max-tokens' is maxTokens, '--no-dedupe' dedupe. */
export function attributeOf(o: OptionDef): string {
  return longFlag(o)
    .replace(/^--(no-)?/, '')
    .replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The key of an argument in the input: its name, camel-cased. */
export function argumentKey(a: ArgumentDef): string {
  return a.name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The help's one description of the result id argument, shared by every command that reads a result. */
export const ID_ARGUMENT: ArgumentDef = { name: 'id', description: "result id, 'last', or the path of a result file", complete: 'id', mcp: '' };

/** Options many commands share, so their help reads the same everywhere. */
export const DIR_OPTION: OptionDef = { flags: '--dir <dir>', description: 'store directory', complete: 'dir' };
export const MAX_TOKENS_OPTION: OptionDef = {
  flags: '--max-tokens <n>',
  description: 'output budget in tokens (default: $LRO_MAX_OUTPUT_TOKENS, else 2000; 0 = no limit)',
  mcp: '',
};

/** The --timeout option of the commands that run a user's pattern or filter (`what`: 'a pattern'). */
export function timeoutOption(what: string, defaultSeconds: number): OptionDef {
  return { flags: '--timeout <seconds>', description: `stop ${what} that makes no progress for this long (default: ${defaultSeconds}s)` };
}
