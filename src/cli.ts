// The command line: commander's program made from the command table (faces/program.ts), and the only place that
// turns a parse error into `lro: <message>` and exit 2 (not commander's 1, which would read as "no match").
import { Command, CommanderError } from 'commander';
import type { CommandDef, Input } from './commands/command.js';
import { commanderCommand, helpAfter, joinTwoWordValues } from './commands/commander.js';
import { failureOf, reportFailure, runReported } from './commands/failure.js';
import { shellQuote } from './shell-quote.js';
import { EXIT } from './errors.js';
import { processIO, type IO } from './io.js';
import { COMMANDS, PROGRAM } from './faces/program.js';
import { PROGRAM_OPTIONS } from './faces/completion.js';
import { VERSION } from './version.js';

export { lroManPage } from './faces/man.js'; // for the build, which checks man/lro.1 (npm run man writes it)

/** What the program runs with: the IO, and where the command leaves its exit code. */
export interface Context {
  io: IO;
  exitCode: number;
}

function configure(cmd: Command, io: IO): Command {
  cmd.exitOverride();
  cmd.configureOutput({
    writeOut: (s) => void io.stdout.write(s).catch(() => undefined),
    writeErr: (s) => void io.stderr.write(s).catch(() => undefined),
    outputError: () => undefined, // printed by main() in lro's own format
  });
  cmd.showSuggestionAfterError(true);
  for (const sub of cmd.commands) configure(sub, io);
  return cmd;
}

/**
 * Builds the program with every command, or with only the one about to run (`only`, when it names one that
 * needs no other: completion reads them all). Exported for the help, completion and man page tests.
 */
export async function buildProgram(ctx: Context, only?: string): Promise<Command> {
  const [version, help] = PROGRAM_OPTIONS;
  const program = new Command(PROGRAM.name)
    .description(PROGRAM.description)
    .version(VERSION, `${version.short}, ${version.long}`, version.description)
    .helpOption(`${help.short}, ${help.long}`, help.description)
    .addHelpCommand(false)
    .enablePositionalOptions() // lets `lro run` pass the command's own options through
    .addHelpText('after', helpAfter(PROGRAM));
  if (only === '-V' || only === '--version') return configure(program, ctx.io); // the version needs no command
  const alone = only !== undefined && only !== 'completion' && COMMANDS.some((c) => c.name === only);
  const run = async (def: CommandDef, input: Input) => {
    ctx.exitCode = await runReported(def, input, ctx.io);
  };
  for (const entry of COMMANDS) {
    if (alone && entry.name !== only) continue;
    program.addCommand(commanderCommand(await entry.load(), run), { hidden: !!entry.hidden });
  }
  return configure(program, ctx.io);
}

/**
 * For an unknown option of a command that takes arguments: how to give that word as its last argument instead
 * (a jq filter such as `-.a` or `--seq`, a grep pattern starting with "-"), as with jq and grep: after `--`.
 */
function dashArgumentHint(e: CommanderError, def: CommandDef | undefined): string {
  const word = /unknown option '(.*)'/.exec(e.message)?.[1];
  const args = def?.arguments ?? [];
  if (e.code !== 'commander.unknownOption' || word === undefined || args.length === 0) return '';
  const before = args.slice(0, -1).map((a) => `${a.name.toUpperCase()} `);
  return ` (if it is the ${args.at(-1)!.name}, write it after --: lro ${def!.name} ${before.join('')}[options] -- ${shellQuote(word)})`;
}

function commanderMessage(e: CommanderError): string {
  return e.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ').replace(/\.$/, '');
}

/** Runs lro with argv (without node and script) and returns the exit code. */
export async function main(argv: string[], io: IO): Promise<number> {
  const ctx: Context = { io, exitCode: EXIT.ok };
  if (argv.length === 0 && io.stdinIsTTY) argv = ['--help'];
  else if (argv.length === 0 || (argv[0].startsWith('-') && !['-h', '--help', '-V', '--version'].includes(argv[0]))) {
    argv = ['offload', ...argv]; // `cmd | lro` offloads
  }
  let def: CommandDef | undefined;
  try {
    def = await COMMANDS.find((c) => c.name === argv[0])?.load();
    if (def) argv = joinTwoWordValues(def, argv);
    const program = await buildProgram(ctx, argv[0]);
    await program.parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (e) {
    return reportError(e, io, argv, def);
  }
}

async function reportError(e: unknown, io: IO, argv: string[], def?: CommandDef): Promise<number> {
  if (e instanceof CommanderError) {
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT.ok;
    const sub = e.code === 'commander.unknownCommand' ? undefined : argv.find((a) => !a.startsWith('-'));
    const message = `${commanderMessage(e)}${dashArgumentHint(e, def)}`;
    return reportFailure(e, `${message}: see lro ${sub && sub !== '--help' ? `${sub} ` : ''}--help`, EXIT.error, io);
  }
  const failure = failureOf(e); // a subcommand's check (lro mcp --http proxy), or the program's own failure
  return failure ? reportFailure(e, failure.message, failure.code, io, failure.mentions) : EXIT.ok;
}

/** Entry point of bin/lro.js; `stdinHead`: what bin/passthrough.js read of stdin before handing on. */
export async function run(stdinHead?: Buffer): Promise<void> {
  const io = processIO(stdinHead);
  process.exitCode = await main(process.argv.slice(2), io);
}
