// THE list of lro's MCP tools. Each entry names the CLI command it runs and which of that command's options it
// offers, as snake_case arguments (max_tokens is --max-tokens); the positional arguments, the flags and their
// descriptions come from the command's own definition, so a tool is the command, run the same way. Adding a tool
// for a new command is one entry here.

/**
 * The JSON type of a tool argument; `strings` and `json` are objects of NAME -> value (jq's --arg, --argjson);
 * `list` is an array of strings for an option given once per item (count's --by).
 */
export type ArgType = 'string' | 'integer' | 'boolean' | 'strings' | 'json' | 'list';

/** How a tool's output becomes its result (see result.ts). */
export type ResultKind = 'records' | 'descriptor' | 'listing' | 'offload';

// The outputSchema of each kind of result whose structuredContent holds more than its text (result.ts): a
// descriptor's id, a listing's results, an offload's id. A records result's structuredContent is its text, the exit
// code and the next call ({output, exit_code, next}): lro_read's description says so once, for the five tools that
// make one, as every client session pays for each schema listed (test/e2e/mcp-tool-list-budget.test.ts).
const OUTPUT_SCHEMAS: Record<ResultKind, { type: 'object'; [k: string]: unknown } | undefined> = {
  records: undefined,
  descriptor: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  listing: { type: 'object', properties: { results: { type: 'array' } }, required: ['results'] },
  offload: {
    type: 'object',
    properties: { offloaded: { type: 'boolean' }, id: { type: 'string' }, content: { type: 'string' } },
    required: ['offloaded'],
  },
};

/** The outputSchema of a kind of result (what result.ts makes of the output: structuredContent), if it has one. */
export function outputSchemaOf(kind: ResultKind): { type: 'object'; [k: string]: unknown } | undefined {
  return OUTPUT_SCHEMAS[kind];
}

/** One tool: its name, the command it runs, the options it offers, and how its output is returned. */
export interface ToolSpec {
  name: string;
  /** The lro command (a name in commands/table.ts). */
  command: string;
  description: string;
  /** Offered options: argument name -> type. The flag is the name with dashes (max_tokens -> --max-tokens). */
  options: Record<string, ArgType>;
  /** Flags the tool always passes (e.g. JSON output to parse). */
  fixed?: string[];
  /** An argument given to the command as its stdin rather than as a flag (lro_offload's content). */
  stdin?: string;
  result: ResultKind;
  /** Left out of the proxy, which adds only the tools that look inside stored results. */
  serverOnly?: boolean;
  /**
   * The id that asks for every stored result: the command then runs with --all and its first positional holds
   * the second's value (`lro grep --all PATTERN`), and a printed `lro grep --all … PATTERN` reads back as it.
   */
  allId?: string;
  /**
   * Its work is bounded by what it answers (a listing, a header, a page), never by a pattern or a filter: it may
   * run on the pool's quick worker while every other worker is held by long calls (tool-pool.ts).
   */
  bounded?: true;
}

// The descriptions are short because every client session pays for all of them (under 1,700 tokens with the
// schemas: test/e2e/mcp-tool-list-budget.test.ts). What the tools share is said once, in lro_read's, which the
// proxy lists too; an argument is described in its schema (the command table's `mcp` text) or named here.

/** lro's tools, in the order clients list them. */
export const TOOLS: ToolSpec[] = [
  {
    name: 'lro_read',
    command: 'read',
    description:
      'Records of a stored result, "N: text". All lro tools: id is a result id, "last" or a file path; records ' +
      '"A:B" is 1-based ("A:" to the end, ":B" from the start); output stops at max_tokens (default 2000, 0 or at ' +
      'most 50000) and its last line names the call for more; structuredContent {output, exit_code (1: no match), ' +
      'next {tool, arguments}}.',
    options: {
      records: 'string',
      head: 'integer',
      tail: 'integer',
      chars: 'string',
      columns: 'string',
      raw: 'boolean',
      stream: 'string',
      max_tokens: 'integer',
    },
    result: 'records',
    bounded: true,
  },
  {
    name: 'lro_grep',
    command: 'grep',
    description:
      "Search a stored result's records for a JavaScript regex, like grep -n; a JSON record is searched as compact " +
      'JSON (\'"status":"error"\'). id "*": every result, newest first.',
    allId: '*',
    options: {
      ignore_case: 'boolean',
      fixed_strings: 'boolean',
      word_regexp: 'boolean',
      invert_match: 'boolean',
      count: 'boolean',
      max_count: 'integer',
      context: 'integer',
      before_context: 'integer',
      after_context: 'integer',
      records: 'string',
      from: 'string',
      stream: 'string',
      strings: 'boolean',
      max_tokens: 'integer',
    },
    result: 'records',
  },
  {
    name: 'lro_jq',
    command: 'jq',
    description:
      "Run a jq 1.8 filter over a stored JSON result's records, each record one input (jq over JSON lines); " +
      "options as jq's.",
    options: {
      compact_output: 'boolean',
      raw_output: 'boolean',
      slurp: 'boolean',
      null_input: 'boolean',
      sort_keys: 'boolean',
      arg: 'strings',
      argjson: 'json',
      header: 'boolean',
      records: 'string',
      skip_lines: 'integer',
      max_tokens: 'integer',
    },
    result: 'records',
  },
  {
    name: 'lro_where',
    command: 'where',
    description:
      "A stored JSON result's records, or a table's rows (CSV, TSV, ps, lsof, df…), where all conditions hold: " +
      'condition ["status=error", "latency>500", "user.name~^adm", "retries?", "level in warn,error"] (also !=, <, ' +
      "<=, >=; ? not null); fields are jq paths (a.b, items[].c) or a table's column names.",
    options: {
      any: 'boolean',
      fields: 'string',
      count: 'boolean',
      max_count: 'integer',
      ignore_case: 'boolean',
      records: 'string',
      explain: 'boolean',
      max_tokens: 'integer',
    },
    result: 'records',
  },
  {
    name: 'lro_count',
    command: 'count',
    description:
      "Count a stored result's records by fields, most frequent first: by jq paths ([\"status\"]; several: " +
      'combinations; .items[].kind: each element), or for text "level", "template" (kinds of line) or a regex with ' +
      'a capture group; no by: the record count.',
    options: {
      by: 'list',
      distinct: 'boolean',
      records: 'string',
      groups: 'string',
      explain: 'boolean',
      max_tokens: 'integer',
    },
    result: 'records',
  },
  {
    name: 'lro_diff',
    command: 'diff',
    description:
      'What changed from result a to b ("last~1", "last"): tests newly failing or passing, JSON records changed, ' +
      'added, removed (matched by key), new kinds of line and errors; lines: a unified diff. exit_code 1: different.',
    options: { key: 'string', lines: 'boolean', from: 'integer', max_tokens: 'integer' },
    result: 'records',
  },
  {
    name: 'lro_info',
    command: 'info',
    description: "A stored result's descriptor again: fields, frequent values, preview, jq recipes.",
    options: { full: 'boolean', header: 'boolean', preview_tokens: 'integer' },
    fixed: ['--descriptor', 'json'],
    result: 'descriptor',
    bounded: true,
  },
  {
    name: 'lro_ls',
    command: 'ls',
    description: 'Stored results, newest first, filtered by session, operation or expired.',
    options: { session: 'string', operation: 'string', expired: 'boolean' },
    result: 'listing',
    bounded: true,
  },
  {
    name: 'lro_offload',
    command: 'offload',
    description:
      'Store a large text or JSON document (content); get a short descriptor (id, schema, preview, jq recipes) for ' +
      'the other lro tools. Up to threshold tokens (default 6400) comes back as is, unless force.',
    options: {
      force: 'boolean',
      threshold: 'integer',
      format: 'string',
      operation: 'string',
      query: 'string',
      session: 'string',
      meta: 'strings',
      ttl: 'string',
      preview_tokens: 'integer',
    },
    stdin: 'content',
    fixed: ['--json', '--descriptor', 'json'],
    result: 'offload',
    serverOnly: true,
  },
];

/** The spec of a tool, by name. */
export function toolSpec(name: string): ToolSpec | undefined {
  return TOOLS.find((t) => t.name === name);
}

/** The spec of the tool that runs a command, by the command's name. */
export function toolOfCommand(command: string): ToolSpec | undefined {
  return TOOLS.find((t) => t.command === command);
}

/** The flag of an option argument: max_tokens -> --max-tokens. */
export const flagOf = (arg: string): string => `--${arg.replace(/_/g, '-')}`;
