// Each tool of tools.ts joined to its command's declaration in the command table (the one the CLI parses with):
// the positional arguments, every offered option's flag and description, and from those the input schema clients
// see. A call runs the declaration's `run` with these arguments as its input.
import { argumentKey, attributeOf, longFlag, type CommandDef } from '../commands/command.js';
import { loadCommand } from '../commands/table.js';
import { TOOLS, flagOf, outputSchemaOf, type ArgType, type ToolSpec } from './tools.js';

/** A positional argument of the command (id, pattern, filter). */
export interface PositionalDef {
  name: string;
  description: string;
  /** Takes one or more values (where's conditions): an array of strings. */
  variadic: boolean;
  /** Its key in the command's input. */
  key: string;
}

/** An offered option: the argument's name and type, the command's flag, and its key in the command's input. */
export interface OptionDef {
  arg: string;
  type: ArgType;
  flag: string;
  attribute: string;
  description: string;
  choices?: string[];
}

/** A tool as listed to clients (tools/list). */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required: string[]; additionalProperties: false };
  outputSchema: { type: 'object'; [k: string]: unknown };
  annotations: { readOnlyHint: boolean; openWorldHint: false };
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
  integer: { type: 'integer', minimum: 0 },
  boolean: { type: 'boolean' },
  strings: { type: 'object', additionalProperties: { type: 'string' } },
  json: { type: 'object' },
  list: { type: 'array', items: { type: 'string' } },
};

/** Joins a tool to its command; throws if the tool names an option the command does not have. */
function define(spec: ToolSpec, command: CommandDef): ToolDef {
  const positionals = (command.arguments ?? []).map((a) => ({ name: a.name, description: a.description, variadic: !!a.variadic, key: argumentKey(a) }));
  const options = Object.entries(spec.options).map(([arg, type]): OptionDef => {
    const flag = flagOf(arg);
    const o = command.options.find((x) => longFlag(x) === flag);
    if (!o) throw new Error(`tool ${spec.name}: lro ${spec.command} has no option ${flag}`);
    return { arg, type, flag, attribute: attributeOf(o), description: o.description, ...(o.choices ? { choices: [...o.choices] } : {}) };
  });
  const properties: Record<string, unknown> = {};
  if (spec.stdin) properties[spec.stdin] = { type: 'string', description: 'the text or JSON to store' };
  for (const p of positionals) {
    properties[p.name] = p.variadic ? { type: 'array', items: { type: 'string' }, minItems: 1, description: p.description } : { type: 'string', description: p.description };
  }
  for (const o of options) properties[o.arg] = { ...JSON_TYPES[o.type], description: o.description, ...(o.choices ? { enum: o.choices } : {}) };
  const required = [...(spec.stdin ? [spec.stdin] : []), ...positionals.map((p) => p.name)];
  return {
    spec,
    command,
    positionals,
    options,
    listed: {
      name: spec.name,
      description: spec.description,
      inputSchema: { type: 'object', properties, required, additionalProperties: false },
      outputSchema: outputSchemaOf(spec.result),
      annotations: { readOnlyHint: spec.result !== 'offload', openWorldHint: false },
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
