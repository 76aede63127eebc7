// Each tool of tools.ts joined to its command's declaration in the command table (the one the CLI parses with):
// the positional arguments, every offered option's flag and description, and from those the input schema clients
// see. A call runs the declaration's `run` with these arguments as its input.
import { argumentKey, attributeOf, longFlag, type CommandDef } from '../commands/command.js';
import { loadCommand } from '../commands/table.js';
import { TOOLS, flagOf, outputSchemaOf, type ArgType, type ToolSpec } from './tools.js';

/** A positional argument of the command (id, pattern, filter). */
export interface PositionalDef {
  name: string;
  /** As the tool lists it: '' for none of its own. */
  description: string;
  /** Takes one or more values (where's conditions): an array of strings. */
  variadic: boolean;
  /** May be left out: an optional list (count's conditions); one optional word (grep's pattern, which -e can give
   * on a command line) is still required of a tool call. */
  optional: boolean;
  /** Its key in the command's input. */
  key: string;
  /** It names a result (an id, `last`, or a path): confined to the store (confine.ts). */
  result: boolean;
}

/** An offered option: the argument's name and type, the command's flag, and its key in the command's input. */
export interface OptionDef {
  arg: string;
  type: ArgType;
  flag: string;
  attribute: string;
  /** As the tool lists it: '' for none of its own. */
  description: string;
  choices?: string[];
}

/**
 * A tool as listed to clients (tools/list). Every client session pays for the whole list, so it holds only what
 * tells something: no `additionalProperties: false` (a call naming an unknown argument is refused all the same,
 * with the list of those it takes), no empty `required`, no `minimum: 0` (a call is told that too), and of the
 * hints only readOnlyHint: true (false is the default; openWorldHint's default, true, only makes a client warier).
 */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
  outputSchema?: { type: 'object'; [k: string]: unknown };
  annotations?: { readOnlyHint: true };
}

/** A tool with everything needed to call it and to read its commands back. */
export interface ToolDef {
  spec: ToolSpec;
  /** The command it runs. */
  command: CommandDef;
  positionals: PositionalDef[];
  options: OptionDef[];
  listed: ListedTool;
}

const JSON_TYPES: Record<ArgType, Record<string, unknown>> = {
  string: { type: 'string' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  strings: { type: 'object', additionalProperties: { type: 'string' } },
  json: { type: 'object' },
  list: { type: 'array', items: { type: 'string' } },
};

/** A property's schema with its description, if it has one of its own. */
function described(schema: Record<string, unknown>, description: string): Record<string, unknown> {
  return description ? { ...schema, description } : schema;
}

/** The input schema: the stdin argument (named in the tool's description), the positionals, then the options. */
function inputSchemaOf(spec: ToolSpec, positionals: PositionalDef[], options: OptionDef[]): ListedTool['inputSchema'] {
  const properties: Record<string, unknown> = {};
  if (spec.stdin) properties[spec.stdin] = { type: 'string' };
  for (const p of positionals) {
    const list = { type: 'array', items: { type: 'string' }, ...(p.optional ? {} : { minItems: 1 }) };
    const schema = p.variadic ? list : { type: 'string' };
    properties[p.name] = described(schema, p.description);
  }
  for (const o of options) {
    properties[o.arg] = described({ ...JSON_TYPES[o.type], ...(o.choices ? { enum: o.choices } : {}) }, o.description);
  }
  const required = [...(spec.stdin ? [spec.stdin] : []), ...positionals.filter((p) => !p.optional).map((p) => p.name)];
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

/** Joins a tool to its command; throws if the tool names an option the command does not have. */
function define(spec: ToolSpec, command: CommandDef): ToolDef {
  const positionals = (command.arguments ?? []).map((a) => {
    const optional = !!a.optional && !!a.variadic;
    return { name: a.name, description: a.mcp ?? a.description, variadic: !!a.variadic, optional, key: argumentKey(a), result: a.complete === 'id' };
  });
  const options = Object.entries(spec.options).map(([arg, type]): OptionDef => {
    const flag = flagOf(arg);
    const o = command.options.find((x) => longFlag(x) === flag);
    if (!o) throw new Error(`tool ${spec.name}: lro ${spec.command} has no option ${flag}`);
    const choices = o.choices ? { choices: [...o.choices] } : {};
    return { arg, type, flag, attribute: attributeOf(o), description: o.mcp ?? o.description, ...choices };
  });
  const outputSchema = outputSchemaOf(spec.result);
  return {
    spec,
    command,
    positionals,
    options,
    listed: {
      name: spec.name,
      description: spec.description,
      inputSchema: inputSchemaOf(spec, positionals, options),
      ...(outputSchema ? { outputSchema } : {}),
      // lro_offload stores: readOnlyHint false, the default
      ...(spec.result !== 'offload' ? { annotations: { readOnlyHint: true as const } } : {}),
    },
  };
}

/** Every tool of the table (or those `keep` accepts), defined from the commands they run. */
export async function loadToolDefs(keep: (t: ToolSpec) => boolean = () => true): Promise<ToolDef[]> {
  const out: ToolDef[] = [];
  for (const spec of TOOLS.filter(keep)) {
    const command = await loadCommand(spec.command);
    if (!command) throw new Error(`tool ${spec.name}: lro has no command ${spec.command}`);
    out.push(define(spec, command));
  }
  return out;
}
