// `lro grep ID PATTERN`: JavaScript regular expressions over each record's text (the line of a text result,
// the compact JSON of a JSON record), printed as `N:text` (matches) and `N-text` (context) like grep -n, within
// the output budget. Exit 0 if anything matched, 1 if nothing did, 2 on error.
import { Command } from 'commander';
import type { Context } from '../cli.js';
import { DEFAULT_STALL_SECONDS } from '../engines/watchdog.js';
import type { IO } from '../io.js';
import { OutputBatch } from '../render/batch.js';
import { LONG_RECORD, printGrep } from '../render/grep-output.js';
import { planGrep, type GrepOptions } from '../search/grep-plan.js';
import { damaged, resolveResult } from '../store/resolve.js';
import { parseTimeout } from '../units.js';

/** Runs the search and prints it; returns the exit code. A pattern that could run away is watched. */
export async function runGrep(ref: string, pattern: string, o: GrepOptions, io: IO): Promise<number> {
  const rf = resolveResult(ref, { dir: o.dir, env: io.env });
  const plan = planGrep(pattern, o, rf.header.count);
  const timeout = o.timeout !== undefined ? parseTimeout(o.timeout) : DEFAULT_STALL_SECONDS; // checked even when unused
  const out = new OutputBatch(io.stdout);
  try {
    // a pattern that matches in linear time needs no watching
    return await damaged(rf, () => printGrep(rf, plan, io.env, (s) => out.add(s), plan.query.matcher.linearTime ? undefined : timeout));
  } finally {
    await out.flush();
  }
}

export function grepCommand(ctx: Context): Command {
  return new Command('grep')
    .description('search the records of a stored result with a JavaScript regular expression (N:text, like grep -n)')
    .argument('<id>', "result id, 'last', or the path of a result file")
    .argument('<pattern>', 'JavaScript regular expression (or a fixed string with -F)')
    .option('-F, --fixed-strings', 'the pattern is a fixed string')
    .option('-i, --ignore-case', 'ignore case')
    .option('-w, --word-regexp', 'match whole words only')
    .option('-v, --invert-match', 'select records that do not match')
    .option('-c, --count', 'print only the number of selected records')
    .option('-m, --max-count <n>', 'stop after n selected records')
    .option('-A, --after-context <n>', 'print n records after each match')
    .option('-B, --before-context <n>', 'print n records before each match')
    .option('-C, --context <n>', 'print n records before and after each match')
    .option('--records <A:B>', 'search only records A to B (1-based, inclusive)')
    .option('--raw', 'search text as stored, terminal escapes and \\r redraws included (default: as a terminal shows it)')
    .option('--json', 'one JSON object per printed record: {type, record, text, offset, record_length, matches}')
    .option('--max-tokens <n>', 'output budget in tokens (default: $LRO_MAX_OUTPUT_TOKENS, else 2000; 0 = no limit)')
    .option('--timeout <seconds>', `stop a pattern that makes no progress for this long (default: ${DEFAULT_STALL_SECONDS}s)`)
    .option('--dir <dir>', 'store directory')
    .addHelpText(
      'after',
      `
Examples:
  lro grep 01JD2X3Y4Z5A6B7C8D9E0F1G2H 'ERROR|FATAL' -C 2
  lro grep last '"status":"error"' -c          JSON records are searched as compact JSON
  lro grep last -F 'Connection refused' -m 5
  lro grep last --raw '\x1b\[31m' -c          colour codes are searched only with --raw

A record longer than ${LONG_RECORD} characters is shown as windows around its matches: N:[start-end/length] text.
Exit status: 0 if a record was selected, 1 if none, 2 on error (a pattern that runs too long is stopped).`,
    )
    .action(async (id: string, pattern: string, opts: GrepOptions) => {
      ctx.exitCode = await runGrep(id, pattern, opts, ctx.io);
    });
}
