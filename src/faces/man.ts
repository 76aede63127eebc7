// The man page, made from the command table, each command's prose in docs/commands.md, and a template
// (man/lro.1.in) that holds the rest of the page: the template says where the synopsis goes (`.\" @synopsis`) and
// where each command's section goes (`.\" @command NAME`): its heading, its prose from the docs
// (faces/man-markdown.ts), then its options and examples from the declarations, so the page cannot document an
// option the program does not have, or miss one it has, and says of each command what the docs say.
// `npm run man` writes man/lro.1; the build and the tests check it equals what this makes.
import { manProse, markdownToRoff } from './man-markdown.js';
import { longFlag, shortFlag, takesValue, type CommandDef, type OptionDef } from '../commands/command.js';

/** Text made safe for roff: backslashes, dashes and double quotes escaped, a leading dot or quote kept literal. */
export function roffText(s: string): string {
  return s
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/"/g, '\\(dq')
    .replace(/^([.'])/gm, '\\&$1');
}

/**
 * The words after `lro NAME` in a synopsis: the arguments (or the declared usage), then [options]; one string a form
 * of the command (grep's usage has a second line, `lro grep --all [options] <pattern>`).
 */
export function synopsisForms(def: CommandDef): string[] {
  if (def.usage) {
    return def.usage.split('\n').map((form, i) =>
      (i === 0 ? form : form.trim().replace(`lro ${def.name} `, ''))
        .replace(/<([^>]+)>/g, '$1')
        .replace(/\.\.\.\]/g, ' ...]'),
    );
  }
  const args = (def.arguments ?? []).map((a) => {
    const name = a.choices ? a.choices.join('|') : a.name;
    const one = a.variadic ? `${name} [${name} ...]` : name;
    return a.optional ? `[${one}]` : one;
  });
  return [[...args, ...(def.options.length ? ['[options]'] : [])].join(' ')];
}

/** The visible commands, each followed by its visible subcommands, with the name the page gives them. */
function sections(commands: CommandDef[]): { name: string; def: CommandDef }[] {
  return commands
    .filter((c) => !c.hidden)
    .flatMap((c) => [{ name: c.name, def: c }, ...(c.subcommands ?? []).filter((s) => !s.hidden).map((s) => ({ name: `${c.name} ${s.name}`, def: s }))]);
}

/** One option as a tagged paragraph: the flags in bold, the value in italics, then its help. */
function optionEntry(o: OptionDef): string {
  const flags = [shortFlag(o), longFlag(o)].filter((f): f is string => !!f).join(', ');
  const value = /[<[]([^>\]]+)[>\]]/.exec(o.flags)?.[1];
  const tag = takesValue(o) && value ? `.BI "${roffText(flags)} " "${roffText(value)}"` : `.B "${roffText(flags)}"`;
  const extra = [o.choices ? `One of: ${o.choices.join(', ')}.` : '', o.default !== undefined ? `Default: ${o.default}.` : ''].filter(Boolean);
  const text = o.description.replace(/^./, (c) => c.toUpperCase());
  return ['.TP', tag, roffText([`${text}${text.endsWith('.') ? '' : '.'}`, ...extra, o.manual ?? ''].filter(Boolean).join(' '))].join('\n');
}

/** The options of a command, then its examples. */
function optionsBlock(def: CommandDef): string {
  const lines = def.options.map(optionEntry);
  if (def.examples?.length) lines.push('.PP', 'Examples:', '.RS', '.EX', ...def.examples.map(roffText), '.EE', '.RE');
  return lines.join('\n');
}

/** The synopsis: one line a command. */
function synopsis(commands: CommandDef[]): string {
  return sections(commands)
    .flatMap(({ name, def }) => synopsisForms(def).map((words) => `.B lro ${name}${words ? `\n${roffText(words)}` : ''}`))
    .join('\n.br\n');
}

/**
 * The page: the template with the markers replaced, each command's prose taken from `docs` (the text of
 * docs/commands.md); throws when a command has no place in the template or no prose in the docs, or when either
 * names one the table does not have.
 */
export function manPage(commands: CommandDef[], template: string, docs: string): string {
  const byName = new Map(sections(commands).map((s) => [s.name, s.def]));
  const prose = manProse(docs);
  const seen = new Set<string>();
  const page = template.replace(/^\.\\" @(synopsis|command)(?: (.+))?$/gm, (_, kind: 'synopsis' | 'command', name?: string) => {
    if (kind === 'synopsis') return synopsis(commands);
    const def = name !== undefined ? byName.get(name) : undefined;
    if (!def || name === undefined) throw new Error(`man/lro.1.in: @command ${name ?? ''} names no command of the table`);
    if (seen.has(name)) throw new Error(`man/lro.1.in: @command ${name} is there twice`);
    seen.add(name);
    const text = prose.get(name);
    if (text === undefined) throw new Error(`docs/commands.md: lro ${name} has no prose for the man page: add '<!-- man: ${name} -->' where it begins`);
    return [`.SS "lro ${roffText(name)} ${roffText(synopsisForms(def)[0])}"`, markdownToRoff(text), optionsBlock(def)].filter(Boolean).join('\n');
  });
  for (const name of byName.keys()) {
    if (!seen.has(name)) throw new Error(`man/lro.1.in: lro ${name} has no @command line: add '.\\" @command ${name}' where it goes`);
  }
  for (const name of prose.keys()) {
    if (!byName.has(name)) throw new Error(`docs/commands.md: '<!-- man: ${name} -->' names no command of the table`);
  }
  return page;
}

/** lro's man page from its template and the docs (the texts of man/lro.1.in and docs/commands.md). */
export async function lroManPage(template: string, docs: string): Promise<string> {
  const { allCommands } = await import('./program.js');
  return manPage(await allCommands(), template, docs);
}
