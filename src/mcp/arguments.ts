// A tool call's arguments checked against the tool's definition and turned into the input of the command's
// `run`, exactly what the CLI would parse from the same command typed in a shell (`lro_read {"id": "X",
// "max_tokens": 150}` is `lro read --max-tokens=150 -- X`, toArgv), so the command runs with the same values.
import { attributeOf, longFlag, takesValue, type Input } from '../commands/command.js';
import { defaultInput } from '../commands/commander.js';
import { UsageError } from '../errors.js';
import type { OptionDef, ToolDef } from './definitions.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeError(tool: string, name: string, what: string, v: unknown): UsageError {
  const shown = JSON.stringify(v) ?? String(v);
  return new UsageError(`invalid arguments for ${tool}: ${name} must be ${what} (got ${shown.length > 60 ? `${shown.slice(0, 60)}…` : shown})`);
}

function checkOption(tool: string, o: OptionDef, v: unknown): void {
  const bad = (what: string) => typeError(tool, o.arg, what, v);
  switch (o.type) {
    case 'string':
      if (typeof v !== 'string') throw bad('a string');
      if (o.choices && !o.choices.includes(v)) throw bad(`one of ${o.choices.join(', ')}`);
      return;
    case 'integer':
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw bad('a whole number, 0 or more');
      return;
    case 'boolean':
      if (typeof v !== 'boolean') throw bad('true or false');
      return;
    case 'strings':
      if (!isObject(v) || !Object.values(v).every((x) => typeof x === 'string')) throw bad('an object of strings, e.g. {"name": "value"}');
      return;
    case 'json':
      if (!isObject(v)) throw bad('an object of JSON values, e.g. {"n": 3}');
      return;
    case 'list':
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw bad('an array of strings');
  }
}

/** Checks the arguments of a call; throws UsageError naming what is wrong. */
export function checkArguments(def: ToolDef, args: unknown): Record<string, unknown> {
  const tool = def.spec.name;
  if (args === undefined || args === null) args = {};
  if (!isObject(args)) throw new UsageError(`invalid arguments for ${tool}: expected an object of named arguments`);
  const known = new Set([...(def.spec.stdin ? [def.spec.stdin] : []), ...def.positionals.map((p) => p.name), ...def.options.map((o) => o.arg)]);
  for (const k of Object.keys(args)) {
    if (!known.has(k)) throw new UsageError(`invalid arguments for ${tool}: unknown argument ${k}: it takes ${[...known].join(', ')}`);
  }
  if (def.spec.stdin) {
    if (args[def.spec.stdin] === undefined) throw new UsageError(`invalid arguments for ${tool}: ${def.spec.stdin} is required`);
    if (typeof args[def.spec.stdin] !== 'string') throw typeError(tool, def.spec.stdin, 'a string', args[def.spec.stdin]);
  }
  for (const p of def.positionals) {
    const v = args[p.name];
    if (v === undefined && p.optional) continue;
    if (v === undefined) throw new UsageError(`invalid arguments for ${tool}: ${p.name} is required`);
    const list = Array.isArray(v) && (v.length > 0 || p.optional) && v.every((x) => typeof x === 'string');
    if (p.variadic ? !list : typeof v !== 'string') {
      throw typeError(tool, p.name, p.variadic ? 'a non-empty array of strings' : 'a string', v);
    }
  }
  for (const o of def.options) if (args[o.arg] !== undefined && args[o.arg] !== null) checkOption(tool, o, args[o.arg]);
  return args;
}

/**
 * The command line for checked arguments: options as --flag=value (a value may begin with a dash), then `--` and
 * the positional arguments (a pattern may too).
 */
export function toArgv(def: ToolDef, args: Record<string, unknown>): string[] {
  const argv = [def.spec.command, ...(def.spec.fixed ?? [])];
  for (const o of def.options) {
    const v = args[o.arg];
    if (v === undefined || v === null || v === false) continue;
    if (o.type === 'boolean') argv.push(o.flag);
    else if (o.type === 'strings') for (const [k, x] of Object.entries(v as Record<string, string>)) argv.push(`${o.flag}=${k}=${x}`);
    else if (o.type === 'list') for (const x of v as string[]) argv.push(`${o.flag}=${x}`);
    else if (o.type === 'json') for (const [k, x] of Object.entries(v as Record<string, unknown>)) argv.push(`${o.flag}=${k}=${JSON.stringify(x)}`);
    else argv.push(`${o.flag}=${String(v)}`);
  }
  const store = storeWide(def, args);
  if (store) argv.push('--all');
  const positionals = store ? def.positionals.slice(1) : def.positionals;
  argv.push('--', ...positionals.flatMap((p) => (args[p.name] ?? []) as string | string[]));
  return argv;
}

/** Whether a call asks for every stored result: the tool's `allId` given as its id (lro_grep's "*"). */
export function storeWide(def: ToolDef, args: Record<string, unknown>): boolean {
  return def.spec.allId !== undefined && args[def.positionals[0]?.name] === def.spec.allId;
}

/** An argument's value as commander would hold it after reading toArgv's command line. */
function optionValue(o: OptionDef, v: unknown): unknown {
  if (o.type === 'boolean') return !o.flag.startsWith('--no-'); // --no-dedupe sets dedupe to false
  if (o.type === 'strings') return Object.entries(v as Record<string, string>).map(([k, x]) => `${k}=${x}`);
  if (o.type === 'json') return Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}=${JSON.stringify(x)}`);
  if (o.type === 'list') return [...(v as string[])];
  return String(v);
}

/** The command's input for checked arguments: the options' defaults, the tool's fixed flags, then the arguments. */
export function toInput(def: ToolDef, args: Record<string, unknown>): Input {
  const input = defaultInput(def.command);
  const fixed = def.spec.fixed ?? [];
  for (let i = 0; i < fixed.length; i++) {
    const o = def.command.options.find((x) => longFlag(x) === fixed[i]);
    if (!o) throw new Error(`tool ${def.spec.name}: lro ${def.spec.command} has no option ${fixed[i]}`);
    input[attributeOf(o)] = takesValue(o) ? fixed[++i] : !fixed[i].startsWith('--no-');
  }
  for (const o of def.options) {
    const v = args[o.arg];
    if (v !== undefined && v !== null && v !== false) input[o.attribute] = optionValue(o, v);
  }
  for (const p of def.positionals) input[p.key] = args[p.name];
  if (storeWide(def, args)) {
    // the command's own form: `lro grep --all PATTERN`, the pattern in the id's place
    const [id, second] = def.positionals;
    input.all = true;
    input[id.key] = args[second.name];
    input[second.key] = undefined;
  }
  return input;
}
