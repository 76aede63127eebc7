// `lro grep ID PATTERN`: JavaScript regular expressions over each record's text (the line of a text result,
// the compact JSON of a JSON record), printed as `N:text` (matches) and `N-text` (context) like grep -n, within
// the output budget. Exit 0 if anything matched, 1 if nothing did, 2 on error.
import { DIR_OPTION, ID_ARGUMENT, MAX_TOKENS_OPTION, timeoutOption, type CommandDef } from './command.js';
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

/** `lro grep`. */
export const grepCommand: CommandDef<GrepOptions & { id: string; pattern: string }> = {
  name: 'grep',
  description: 'search the records of a stored result with a JavaScript regular expression (N:text, like grep -n)',
  arguments: [ID_ARGUMENT, { name: 'pattern', description: 'JavaScript regular expression (or a fixed string with -F)', mcp: '' }],
  options: [
    { flags: '-F, --fixed-strings', description: 'the pattern is a fixed string', mcp: '' },
    { flags: '-i, --ignore-case', description: 'ignore case', mcp: '' },
    { flags: '-w, --word-regexp', description: 'match whole words only', mcp: '' },
    { flags: '-v, --invert-match', description: 'select records that do not match', mcp: '' },
    { flags: '-c, --count', description: 'print only the number of selected records', mcp: '' },
    { flags: '-m, --max-count <n>', description: 'stop after n selected records', mcp: '' },
    { flags: '-A, --after-context <n>', description: 'print n records after each match', mcp: '' },
    { flags: '-B, --before-context <n>', description: 'print n records before each match', mcp: '' },
    { flags: '-C, --context <n>', description: 'print n records before and after each match', mcp: '' },
    { flags: '--records <A:B>', description: 'search only records A to B (1-based, inclusive)', mcp: '' },
    { flags: '--raw', description: 'search text as stored, terminal escapes and \\r redraws included (default: as a terminal shows it)' },
    { flags: '--json', description: 'one JSON object per printed record: {type, record, text, offset, record_length, matches}' },
    MAX_TOKENS_OPTION,
    timeoutOption('a pattern', DEFAULT_STALL_SECONDS),
    DIR_OPTION,
  ],
  examples: [
    "lro grep 01JD2X3Y4Z5A6B7C8D9E0F1G2H 'ERROR|FATAL' -C 2",
    "lro grep last '\"status\":\"error\"' -c          JSON records are searched as compact JSON",
    "lro grep last -F 'Connection refused' -m 5",
    "lro grep last --raw '\\x1b\\[31m' -c          colour codes are searched only with --raw",
  ],
  notes: `A record longer than ${LONG_RECORD} characters is shown as windows around its matches: N:[start-end/length] text.
Exit status: 0 if a record was selected, 1 if none, 2 on error (a pattern that runs too long is stopped).`,
  run: ({ id, pattern, ...o }, io) => runGrep(id, pattern, o, io),
};
