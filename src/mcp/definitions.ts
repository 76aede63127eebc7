// Each tool of tools.ts joined to its command's definition (commander's, the one the CLI parses with): the
// positional arguments, every offered option's flag and description, and from those the input schema clients see.
import type { Command } from 'commander';
import { buildProgram } from '../cli.js';
import type { IO } from '../io.js';
import { TOOLS, flagOf, type ArgType, type ToolSpec } from './tools.js';
import { outputSchemaOf } from './result.js';

/** A positional argument of the command (id, pattern, filter). */
export interface PositionalDef {
  name: string;
  description: string;
  /** Takes one or more values (where's conditions): an array of strings. */
  variadic: boolean;
}

/** An offered option: the argument's name and type, the command's flag, and commander's name for its value. */
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
  positionals: PositionalDef[];
  options: OptionDef[];
  listed: ListedTool;
}

const quiet = { write: async () => undefined, isTTY: false, color: false, columns: 0 };
const QUIET_IO: IO = { stdin: (async function* () {})(), stdinIsTTY: false, stdout: quiet, stderr: quiet, env: {}, now: () => new Date() };

/** The definition of one lro command, as the CLI builds it (a fresh object each time: commander keeps state). */
export async function commandDefinition(name: string): Promise<Command> {
  const program = await buildProgram({ io: QUIET_IO, exitCode: 0 }, name);
  const cmd = program.commands.find((c) => c.name() === name);
  if (!cmd) throw new Error(`lro has no command ${name}`);
  return cmd;
}

const JSON_TYPES: Record<ArgType, Record<string, unknown>> = {
  string: { type: 'string' },
  integer: { type: 'integer', minimum: 0 },
  boolean: { type: 'boolean' },
  strings: { type: 'object', additionalProperties: { type: 'string' } },
  json: { type: 'object' },
  list: { type: 'array', items: { type: 'string' } },
};

/** Joins a tool to its command; throws if the table names an option the command does not have. */
function define(spec: ToolSpec, cmd: Command): ToolDef {
  const positionals = cmd.registeredArguments.map((a) => ({ name: a.name(), description: a.description, variadic: a.variadic }));
  const options = Object.entries(spec.options).map(([arg, type]): OptionDef => {
    const flag = flagOf(arg);
    const o = cmd.options.find((x) => x.long === flag);
    if (!o) throw new Error(`tool ${spec.name}: lro ${spec.command} has no option ${flag}`);
    return { arg, type, flag, attribute: o.attributeName(), description: o.description, ...(o.argChoices ? { choices: o.argChoices } : {}) };
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
  for (const spec of TOOLS.filter(keep)) out.push(define(spec, await commandDefinition(spec.command)));
  return out;
}
