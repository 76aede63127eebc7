// `lro grep ID PATTERN`: JavaScript regular expressions over each record's text (the line of a text result,
// the compact JSON of a JSON record), printed as `N:text` (matches) and `N-text` (context) like grep -n, within
// the output budget. Exit 0 if anything matched, 1 if nothing did, 2 on error. With --all (no id) every stored
// result is searched: commands/grep-all.ts.
import { DIR_OPTION, ID_ARGUMENT, MAX_TOKENS_OPTION, timeoutOption, type CommandDef } from './command.js';
import { DEFAULT_STALL_SECONDS } from '../watchdog.js';
import type { IO } from '../io.js';
import type { ResultFile } from '../format/reader.js';
import { OutputBatch } from '../render/batch.js';
import { GrepText } from '../render/grep-output.js';
import { walkGrep } from '../search/grep-values.js';
import { planGrep, type GrepOptions, type GrepPlan } from '../search/grep-plan.js';
import { explainSearch } from '../search/grep.js';
import { damaged, resolveResult } from '../store/resolve.js';
import { optimiseLater } from '../v8-flags.js';
import { parseTimeout } from '../units.js';
import { EXIT, UsageError } from '../errors.js';
import { runGrepAll, type GrepCommandOptions } from './grep-all.js';
import type { NextOf } from '../budget.js';
import { nextCommand } from './argv.js';
import { streamsOf } from '../format/streams.js';
import { streamFilter } from '../query/view.js';
import { STREAM_OPTION } from './stream-option.js';
import { printStrings } from '../render/grep-strings.js';
import { selectedStrings } from '../search/strings.js';
import { refuseBinary } from './binary-result.js';
import { readIn } from './read.js';
import GREP_HELP from 'help:grep';

const ALL_ONLY = ['filesWithMatches', 'session', 'since', 'source'] as const;
const ALL_FLAG: Record<(typeof ALL_ONLY)[number], string> = { filesWithMatches: '-l', session: '--session', since: '--since', source: '--source' };
const ALL_USAGE = 'lro grep --all [options] PATTERN searches every stored result; lro grep ID PATTERN searches one';

/**
 * How a grep continuation is printed: the id and pattern, the search's flags in grep's order (the short ones as
 * grep -F -i -w -v writes them), the output's options, --strings, then where the next part starts. With --all the
 * pattern (the id argument) comes last, after the flags that choose the results.
 */
export const GREP_LAYOUT = ['id', 'pattern', '-F', '-i', '-w', '-v', '-C', '-A', '-B', '-m', '--json', '--stream', '--raw', '--max-tokens', '--dir', '--strings', '--records', '--from'];
export const GREP_ALL_LAYOUT = ['--all', '-l', '-c', ...GREP_LAYOUT.slice(2, -3), '--session', '--since', '--source', '--from', 'id'];

/** The next part of a cut output as a value (commands/argv.ts). */
export const nextGrep: NextOf = (input) => nextCommand(grepCommand, input, input.all ? GREP_ALL_LAYOUT : GREP_LAYOUT);

/** Checks which form was asked (one result, or --all) and runs it; returns the exit code. */
export async function runGrepCommand(id: string, pattern: string | undefined, o: GrepCommandOptions, io: IO): Promise<number> {
  if (o.all) {
    if (o.strings) throw new UsageError('--strings does not go with --all: search one binary result, lro grep ID PATTERN --strings');
    if (o.stream !== undefined) throw new UsageError('--stream does not go with --all: search one result, lro grep ID PATTERN --stream stderr');
    if (pattern !== undefined) throw new UsageError(`--all takes a PATTERN and no result id (got '${id}' and '${pattern}'): ${ALL_USAGE}`);
    if (o.records !== undefined) throw new UsageError('--records does not go with --all (each result has its own records): use --from ID:N');
    return runGrepAll(id, o, io, { nextOf: nextGrep, readOf: readIn(o.dir) });
  }
  const alone = ALL_ONLY.find((k) => o[k] !== undefined && o[k] !== false);
  if (alone) throw new UsageError(`${ALL_FLAG[alone]} goes with --all: ${ALL_USAGE}`);
  if (pattern === undefined) throw new UsageError(`missing PATTERN after '${id}': ${ALL_USAGE}`);
  return runGrep(id, pattern, o, io, o.from !== undefined ? printFrom(o.from) : undefined);
}

/**
 * Results whose search is done before V8's optimised code for it would be ready (v8-flags.ts); a smaller one is
 * done before V8 would ask for it (and node:v8 is not loaded for nothing).
 */
const LATE_OPTIMISING_BYTES = { from: 256 << 10, to: 4 << 20 };

/** --from N of one result's search: a record number (a next: line writes it after a cut inside a match's context). */
function printFrom(text: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : 0;
  if (n < 1) throw new UsageError(`invalid --from '${text}': with one result, give a record number N (1 or more)`);
  return n;
}

/** The usage errors of a --strings search: a binary result, no context (each string stands alone). */
function checkStrings(rf: ResultFile, plan: GrepPlan): void {
  const q = plan.query;
  if (q.before > 0 || q.after > 0) throw new UsageError('context (-A, -B, -C) does not go with --strings: each string stands alone');
  if (rf.header.content_type !== 'binary') {
    throw new UsageError(`--strings searches a binary result, and ${rf.header.id} is ${rf.header.content_type}: drop --strings`);
  }
}

/**
 * Runs the search and prints it; returns the exit code. A pattern that could run away is watched. `printFrom`
 * (--from N): the records before N are searched (for the context they start) but not printed.
 */
export async function runGrep(ref: string, pattern: string, o: GrepOptions, io: IO, printFrom?: number): Promise<number> {
  const rf = resolveResult(ref, { dir: o.dir, env: io.env });
  // with --strings, --records counts strings, not the result's records
  const plan = planGrep(pattern, o, o.strings ? Infinity : rf.header.count);
  const filter = streamFilter(rf.header, o.stream);
  if (filter) plan.query.only = (n) => filter.map.selects(filter.choice, n);
  const map = streamsOf(rf.header);
  if (map) plan.streamOf = (n) => map.streamOf(n);
  const timeout = o.timeout !== undefined ? parseTimeout(o.timeout) : DEFAULT_STALL_SECONDS; // checked even when unused
  const out = new OutputBatch(io.stdout);
  if (o.strings) {
    try {
      checkStrings(rf, plan);
      // the strings the search selects (search/strings.ts), as found; the text takes them (render/grep-strings.ts)
      return await damaged(rf, () => printStrings(rf, plan, selectedStrings(rf, plan.query), io, (s) => out.add(s), nextGrep));
    } finally {
      await out.flush();
    }
  }
  refuseBinary(rf, 'grep');
  if (o.explain) {
    out.add(`${explainSearch(rf.header, plan.query).join('\n')}\n`);
    await out.flush();
    return 0;
  }
  if (io.ownProcess && rf.size > LATE_OPTIMISING_BYTES.from && rf.size <= LATE_OPTIMISING_BYTES.to) optimiseLater();
  try {
    // a pattern that matches in linear time needs no watching
    const stall = plan.query.matcher.linearTime ? undefined : timeout;
    if (plan.query.maxCount === 0) return EXIT.noMatch; // -m 0: nothing asked, nothing printed (grep -c -m 0 too)
    return await damaged(rf, async () => {
      // the search gives its values (search/grep-values.ts walkGrep); the text takes them (render/grep-output.ts)
      const text = new GrepText(rf, plan, io, (s) => out.add(s), { nextOf: nextGrep, readOf: readIn(o.dir) }, printFrom);
      await walkGrep(rf, plan, text.walk(stall), text.take);
      return text.end();
    });
  } finally {
    await out.flush();
  }
}

/** `lro grep`. */
export const grepCommand: CommandDef<GrepCommandOptions & { id: string; pattern?: string }> = {
  name: 'grep',
  description: 'search the records of a stored result, or of all with --all, with a JavaScript regular expression (N:text, like grep -n)',
  arguments: [
    { ...ID_ARGUMENT, description: `${ID_ARGUMENT.description} (with --all: the pattern)` },
    { name: 'pattern', description: 'JavaScript regular expression (or a fixed string with -F)', optional: true, mcp: '' },
  ],
  usage: '[options] <id> <pattern>\n       lro grep --all [options] <pattern>',
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
    { flags: '--all', description: 'search every stored result, newest first, each under a heading line (no id: lro grep --all PATTERN)' },
    { flags: '-l, --files-with-matches', description: 'with --all: print only the ids of the results with a selected record' },
    { flags: '--session <session>', description: 'with --all: only results of this session' },
    { flags: '--since <when>', description: 'with --all: only results stored since then: a duration back (2h, 30m, 7d) or a time' },
    { flags: '--source <text>', description: "with --all: only results whose command contains this text (else the --query, else the operation)" },
    {
      flags: '--from <ID[:N]>',
      description:
        'with --all: start at this result (at its record N), then the older ones; with an ID: print from record N, ' +
        'the records before it searched for context (as a next: line writes them)',
      mcp: 'with id "*": where a next part starts',
    },
    { flags: '--raw', description: 'search text as stored, terminal escapes and \\r redraws included (default: as a terminal shows it)' },
    { flags: '--explain', description: 'say which engine runs the pattern (literal scan, lro\'s DFA, the JavaScript regex) and why, instead of searching' },
    { flags: '--json', description: 'one JSON object per printed record: {type, record, stream, text, offset, record_length, matches}' },
    STREAM_OPTION,
    { flags: '--strings', description: 'search the printable strings of a binary result, as strings(1) finds them: N:@OFFSET text (--records counts strings)', mcp: '' },
    MAX_TOKENS_OPTION,
    timeoutOption('a pattern', DEFAULT_STALL_SECONDS),
    DIR_OPTION,
  ],
  examples: [
    "lro grep 01JD2X3Y4Z5A6B7C8D9E0F1G2H 'ERROR|FATAL' -C 2",
    "lro grep last '\"status\":\"error\"' -c          JSON records are searched as compact JSON",
    "lro grep last -F 'Connection refused' -m 5",
    "lro grep last --raw '\\x1b\\[31m' -c          colour codes are searched only with --raw",
    "lro grep last --strings 'GLIBC_[0-9.]+'         a binary result: the printable strings that match",
    'lro grep last -i warn --stream stderr         an lro run result: its stderr lines only',
    'lro grep --all -F ECONNRESET --since 2h     every result of the last two hours, newest first',
    'lro grep --all -l -i timeout --session s1   the ids of that session\'s results that match',
    'lro grep --all -c "status=500"              records selected in each result',
  ],
  notes: GREP_HELP,
  run: ({ id, pattern, ...o }, io) => runGrepCommand(id, pattern, o, io),
};
