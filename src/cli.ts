// The command line: registers one command per file in src/commands, and is the only place that turns errors
// into `lro: <message>` and exit codes (usage errors exit 2, not commander's 1, which would read as "no match").
import { Command, CommanderError } from 'commander';
import { EXIT, LroError, oneLine } from './errors.js';
import { FormatError } from './format/header.js';
import { BrokenPipe, processIO, type IO } from './io.js';
import { VERSION } from './version.js';

/** What every command gets: the IO, and where to leave its exit code. */
export interface Context {
  io: IO;
  exitCode: number;
}

export type CommandFactory = (ctx: Context) => Command;

/**
 * Each command's module, loaded only when that command runs (all of them for the help, completion and an
 * unknown command): start-up is paid on every agent tool call, and most commands need little of the rest.
 */
const COMMANDS: Record<string, () => Promise<CommandFactory>> = {
  offload: async () => (await import('./commands/offload.js')).offloadCommand,
  run: async () => (await import('./commands/run.js')).runCommand,
  read: async () => (await import('./commands/read.js')).readCommand,
  grep: async () => (await import('./commands/grep.js')).grepCommand,
  jq: async () => (await import('./commands/jq.js')).jqCommand,
  where: async () => (await import('./commands/where.js')).whereCommand,
  count: async () => (await import('./commands/count.js')).countCommand,
  cat: async () => (await import('./commands/cat.js')).catCommand,
  info: async () => (await import('./commands/info.js')).infoCommand,
  ls: async () => (await import('./commands/ls.js')).lsCommand,
  gc: async () => (await import('./commands/gc.js')).gcCommand,
  completion: async () => (await import('./commands/completion.js')).completionCommand,
  mcp: async () => (await import('./commands/mcp.js')).mcpCommand,
};
/** Commands for scripts, not people: left out of the help and of completion. */
const HIDDEN: Record<string, () => Promise<CommandFactory>> = {
  '__complete-ids': async () => (await import('./commands/completion.js')).completeIdsCommand,
};

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
 * needs no other: completion reads them all). Exported for the completion and man page tests.
 */
export async function buildProgram(ctx: Context, only?: string): Promise<Command> {
  const program = new Command('lro')
    .description('Large result offloading: small output passes through; large output becomes a stored result you can grep, jq and read.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addHelpCommand(false)
    .enablePositionalOptions() // lets `lro run` pass the command's own options through
    .addHelpText(
      'after',
      `
Examples:
  some-command | lro offload            small output passes, large output is stored and described
  lro run -- npm test                   the same for a command, keeping its exit status
  lro cat ID > original.txt             the exact original back
  lro where ID status=error 'ms>500'     records where every condition holds
  lro count ID --by status              records per value, most frequent first
  lro info ID                           the descriptor again
  lro ls                                stored results, newest first
  lro gc --max-total-size 2GB           remove expired results (cron: */15 * * * * lro gc --max-total-size 2GB)

Store: --dir, $LRO_DIR, or \${TMPDIR:-/tmp}/lro-<uid>. Exit codes: 0 ok, 1 no match (grep), 2 error.`,
    );
  if (only === '-V' || only === '--version') return configure(program, ctx.io); // the version needs no command
  const alone = only !== undefined && only !== 'completion' && (only in COMMANDS || only in HIDDEN);
  for (const [name, load] of Object.entries(COMMANDS)) if (!alone || name === only) program.addCommand((await load())(ctx));
  for (const [name, load] of Object.entries(HIDDEN)) if (!alone || name === only) program.addCommand((await load())(ctx), { hidden: true });
  return configure(program, ctx.io);
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
  try {
    if (argv[0] === 'jq') argv = (await import('./commands/jq.js')).preprocessJqArgv(argv);
    const program = await buildProgram(ctx, argv[0]);
    await program.parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (e) {
    return reportError(e, io, argv);
  }
}

async function reportError(e: unknown, io: IO, argv: string[]): Promise<number> {
  if (e instanceof BrokenPipe) return EXIT.ok;
  let message: string;
  let code: number = EXIT.error;
  if (e instanceof CommanderError) {
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT.ok;
    const sub = e.code === 'commander.unknownCommand' ? undefined : argv.find((a) => !a.startsWith('-'));
    message = `${commanderMessage(e)}: see lro ${sub && sub !== '--help' ? `${sub} ` : ''}--help`;
  } else if (e instanceof LroError || (e as Error)?.name === 'LroError') {
    // (by name too: `lro mcp` runs from a bundle of its own, dist/mcp.cjs, with its own LroError class)
    message = (e as LroError).message;
    code = (e as LroError).exitCode ?? EXIT.error;
  } else if (e instanceof FormatError) {
    message = `${e.message}: ${e.hint}`;
  } else {
    const err = e as NodeJS.ErrnoException;
    message = err.code ? `${err.code}: ${err.message}` : String(err?.message ?? err);
  }
  try {
    await io.stderr.write(`lro: ${oneLine(message)}\n`);
    if (io.env.LRO_DEBUG === '1' && e instanceof Error && e.stack) await io.stderr.write(`${e.stack}\n`);
  } catch {
    // stderr closed too
  }
  return code;
}

/** Entry point of bin/lro.js. */
export async function run(): Promise<void> {
  const io = processIO();
  process.exitCode = await main(process.argv.slice(2), io);
}
