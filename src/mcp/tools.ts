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

const NEXT = { type: 'object', properties: { tool: { type: 'string' }, arguments: { type: 'object' } }, required: ['tool', 'arguments'] };

const OUTPUT_SCHEMAS: Record<ResultKind, { type: 'object'; [k: string]: unknown }> = {
  records: {
    type: 'object',
    properties: {
      output: { type: 'string', description: 'what the command printed' },
      exit_code: { type: 'integer', description: '0, or 1 when nothing matched' },
      next: { ...NEXT, description: 'the call that shows the next part, when the output was cut' },
    },
    required: ['output', 'exit_code'],
  },
  descriptor: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  listing: {
    type: 'object',
    properties: { results: { type: 'array', items: { type: 'object' } } },
    required: ['results'],
  },
  offload: {
    type: 'object',
    properties: { offloaded: { type: 'boolean' }, id: { type: 'string' }, content: { type: 'string' } },
    required: ['offloaded'],
  },
};

/** The outputSchema of a kind of result (what result.ts makes of the output: structuredContent). */
export function outputSchemaOf(kind: ResultKind): { type: 'object'; [k: string]: unknown } {
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
}

const BUDGET = 'Output is cut at max_tokens (default 2000; at most 50000, which 0 means too) at a record boundary, and sooner if it would make a result over 1 MB; then its last line names the next call (`next: lro_… {…}`): make that call to see more.';

/** lro's tools, in the order clients list them. */
export const TOOLS: ToolSpec[] = [
  {
    name: 'lro_read',
    command: 'read',
    description: `Read records of a stored result (a large output lro stored; its id is in the descriptor that replaced it), numbered "N: text". For text, record N is line N; for JSON, one record per array element or JSON line. Pick a range: records "200:260" ("A:" to the end, ":B" from the start), head, tail, or chars "0:4000" (character offsets into the original). columns "0:2000" shows a window of each very long record. ${BUDGET}`,
    options: { records: 'string', head: 'integer', tail: 'integer', chars: 'string', columns: 'string', raw: 'boolean', max_tokens: 'integer' },
    result: 'records',
  },
  {
    name: 'lro_grep',
    command: 'grep',
    description: `Search the records of a stored result with a JavaScript regular expression, like grep -n: matches print as "N:text", context records as "N-text". A JSON record is searched as its compact JSON, so '"status":"error"' works. ignore_case, fixed_strings, word_regexp, invert_match, count, max_count, context/before_context/after_context, records "A:B" to search a range. "No records matched" is an ordinary answer, not an error. ${BUDGET}`,
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
      max_tokens: 'integer',
    },
    result: 'records',
  },
  {
    name: 'lro_jq',
    command: 'jq',
    description: `Run a jq filter (jq 1.8) over the records of a stored JSON result: each record is one input, as \`jq FILTER\` over JSON lines; slurp: true gives all records as one array (for group_by, sort_by, length). compact_output for one line per value, raw_output for strings without quotes, arg/argjson to pass variables ({"user": "alice"} is $user), header: true to run on the result's header instead, records "A:B" for a range. A compile error or a runtime error is returned as an error with jq's message. ${BUDGET}`,
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
    description: `Records of a stored JSON result where every condition holds, with no jq to write: condition is a list such as ["status=error", "latency>500", "user.name~^adm", "retries?", "level in warn,error"] (FIELD=VALUE, !=, <, <=, >, >= compare numbers as numbers, big integers exactly; ~ a regular expression; FIELD? present and not null; in a comma list). Fields are jq paths (.a.b, items[].status). any: true for OR instead of AND; fields "id,status" prints only those fields; count: true the number of matches; explain: true the equivalent lro_jq filter. A field no record has is an error that lists the fields that exist. "No records matched" is an ordinary answer. ${BUDGET}`,
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
    description: `Count the records of a stored result grouped by fields, most frequent first (like group_by + length, with no jq to write): by ["status"] or several fields for combinations ([".user.lang", ".type"]; .items[].kind counts each element; a missing field counts as null). For text (logs): by ["level"], ["template"] (kinds of line, variable parts as <*>), or a regular expression with a capture group. No by: the number of records. records "A:B" counts a range. ${BUDGET}`,
    options: { by: 'list', records: 'string', groups: 'string', explain: 'boolean', max_tokens: 'integer' },
    result: 'records',
  },
  {
    name: 'lro_info',
    command: 'info',
    description:
      'The descriptor of a stored result again: what it holds (records, tokens, content type, most frequent values, fields), a preview of its head, tail and error-like lines, jq recipes and what to call next. full: true for every field and value; header: true for the stored header line itself (without the statistics kept for the descriptor).',
    options: { full: 'boolean', header: 'boolean', preview_tokens: 'integer' },
    fixed: ['--descriptor', 'json'],
    result: 'descriptor',
  },
  {
    name: 'lro_ls',
    command: 'ls',
    description:
      'List the stored results, newest first: id, operation (the tool or command that produced it), records, tokens, bytes, when stored, when it expires, session. Filter by session, operation, or expired: true.',
    options: { session: 'string', operation: 'string', expired: 'boolean' },
    result: 'listing',
  },
  {
    name: 'lro_offload',
    command: 'offload',
    description:
      'Store a large text or JSON document (content) and get back a compact descriptor (id, summary, schema, preview, jq recipes) instead of keeping it in context; read it later with lro_read, lro_grep and lro_jq. Content at or below the threshold (6400 tokens unless threshold says otherwise) comes back unchanged and is not stored; force: true stores it anyway. JSON arrays become one record per element. operation names it (e.g. the tool that produced it), ttl sets how long it is kept ("30m", "24h", "7d").',
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
