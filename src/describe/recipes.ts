// jq recipes built from the fields a result really has, each printed two ways: `lro jq ID '...'` and the plain
// `tail -n +2 FILE | jq '...'`. Few and concrete, because models compose multi-condition filters badly and
// mostly run what they are shown.
import type { Header } from '../format/header.js';
import type { FieldValues, RecordStats } from './record-stats.js';
import type { TextStats } from './text-stats.js';
import { ERROR_PATTERN } from './text-stats.js';
import { shellQuote } from '../shell-quote.js';
import type { Say } from './commands.js';

export interface JqRecipe {
  description: string;
  command: string;
  plain: string;
}

interface Recipe {
  description: string;
  flags: string[];
  filter: string;
  /** jq filter prefix that drops records `lro jq` skips (non-JSON lines of a jsonl result) in the plain form. */
  slurps?: boolean;
}

/** Renders recipes for a stored result; `say` gives a command's line (and keeps it among the descriptor's commands). */
export function renderRecipes(recipes: Recipe[], id: string, path: string, header: Header, say: Say): JqRecipe[] {
  const guard = header.content_type === 'jsonl' && (header.invalid_records?.length ?? 0) > 0;
  return recipes.map((r) => {
    const flags = r.flags.length ? `${r.flags.join(' ')} ` : '';
    let plainFilter = r.filter;
    if (guard) plainFilter = r.slurps ? `map(select(type != "string")) | ${r.filter}` : `select(type != "string") | ${r.filter}`;
    return {
      description: r.description,
      command: say(['jq', id, ...r.flags, r.filter]),
      plain: `${plainRecords(path)} | jq ${flags}${shellQuote(plainFilter)}`,
    };
  });
}

/** The shell command that prints a result's records without lro: of its file, or of its object on S3. */
function plainRecords(path: string): string {
  return path.startsWith('s3://') ? `aws s3 cp ${shellQuote(path)} - | tail -n +2` : `tail -n +2 ${shellQuote(path)}`;
}

/** A value as a jq literal. */
function jqLiteral(v: string | number | boolean | null): string {
  return JSON.stringify(v);
}

/** The value most worth filtering on: an error-like one if any, else the rarest. */
export function interestingValue(f: FieldValues): FieldValues['values'][number] {
  const errorish = f.values.find(([v]) => typeof v === 'string' && /err|fail|fatal|crit|denied|invalid|timeout|panic|abort|reject/i.test(v));
  if (errorish) return errorish;
  const falsy = f.values.find(([v]) => v === false);
  if (falsy && /success|ok|passed/i.test(f.path)) return falsy;
  return f.values[f.values.length - 1];
}

const KEY_FIELD = /^\.(id|name|title|key|uid|uuid|slug|login|email|url|path|file|host|ts|time|timestamp|date|created_at|message|msg)$/i;

/** Recipes for JSON records (json, jsonl). */
export function recordRecipes(stats: RecordStats, fields: string[]): Recipe[] {
  const recipes: Recipe[] = [];
  const top = stats.topValues[0];
  const schemaTypes = [...stats.schema.types];
  const objects = schemaTypes.length === 1 && schemaTypes[0] === 'object';
  if (top) {
    const [value, count] = interestingValue(top);
    recipes.push({
      description: `Records where ${top.path} is ${jqLiteral(value)} (${stats.sampled ? '~' : ''}${count} of ${stats.count})`,
      flags: ['-c'],
      filter: `select(${top.path} == ${jqLiteral(value)})`,
    });
    recipes.push({
      description: `Count records by ${top.path}`,
      flags: ['-s', '-c'],
      filter: `group_by(${top.path}) | map({value: (.[0] | ${top.path}), count: length}) | sort_by(-.count)`,
      slurps: true,
    });
  }
  if (objects) {
    const scalarTop = fields.filter((f) => !f.slice(1).includes('.') || stats.topValues.some((t) => t.path === f));
    const picked = [...scalarTop.filter((f) => KEY_FIELD.test(f)), ...stats.topValues.map((t) => t.path)]
      .filter((f, i, all) => all.indexOf(f) === i)
      .slice(0, 3);
    if (picked.length < 2) picked.push(...fields.filter((f) => !picked.includes(f) && !f.slice(1).includes('.')).slice(0, 3 - picked.length));
    if (picked.length > 0) {
      const obj = picked.map((p) => (/^\.[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? p.slice(1) : `${JSON.stringify(lastKey(p))}: ${p}`)).join(', ');
      recipes.push({ description: `Only the fields ${picked.join(', ')} of each record`, flags: ['-c'], filter: `{${obj}}` });
    }
  } else if (schemaTypes.includes('array')) {
    recipes.push({ description: 'First three items of each record', flags: ['-c'], filter: '.[0:3]' });
  }
  if (recipes.length === 0) recipes.push({ description: 'Each record, compact', flags: ['-c'], filter: '.' });
  return recipes;
}

function lastKey(path: string): string {
  const m = /\.(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_][A-Za-z0-9_]*))$/.exec(path);
  return m ? (m[1] !== undefined ? (JSON.parse(`"${m[1]}"`) as string) : m[2]) : path;
}

/**
 * Recipes for text: each record is one line as a JSON string. Lines per level are in the summary already, and
 * `lro count ID --by level` recounts them, so there is no jq recipe for that.
 */
export function textRecipes(_stats: TextStats): Recipe[] {
  // the error words anywhere: more lines than the descriptor counts as errors (failureWord leaves out a word in a
  // name, a topic, a count of none), and the description says so, so the two numbers never seem to disagree
  const description = 'Lines holding an error word (a wider net than the error lines counted: names and topics too)';
  return [{ description, flags: ['-r'], filter: `select(test(${JSON.stringify(ERROR_PATTERN)}; "i"))` }];
}
