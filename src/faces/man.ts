// The man page, made from the command table and a template (man/lro.1.in) that holds only prose: the template
// says where each command's heading and options go (`.\" @command NAME`, `.\" @options NAME`) and where the
// synopsis goes (`.\" @synopsis`); the flags, their help, their values and the examples come from the
// declarations, so the page cannot document an option the program does not have, or miss one it has.
// `npm run man` writes man/lro.1; the build and the tests check it equals what this makes.
import { longFlag, shortFlag, takesValue, type CommandDef, type OptionDef } from '../commands/command.js';

/** Text made safe for roff: backslashes, dashes and double quotes escaped, a leading dot or quote kept literal. */
export function roffText(s: string): string {
  return s
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/"/g, '\\(dq')
    .replace(/^([.'])/gm, '\\&$1');
}

/** The words after `lro NAME` in a synopsis: the arguments (or the declared usage), then [options]. */
export function synopsisWords(def: CommandDef): string {
  if (def.usage) return def.usage.replace(/<([^>]+)>/g, '$1').replace(/\.\.\.\]/g, ' ...]');
  const args = (def.arguments ?? []).map((a) => {
    const name = a.choices ? a.choices.join('|') : a.name;
    const one = a.variadic ? `${name} [${name} ...]` : name;
    return a.optional ? `[${one}]` : one;
  });
  return [...args, ...(def.options.length ? ['[options]'] : [])].join(' ');
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
    .map(({ name, def }) => `.B lro ${name}${synopsisWords(def) ? `\n${roffText(synopsisWords(def))}` : ''}`)
    .join('\n.br\n');
}

/** The page: the template with the markers replaced; throws when a command has no place in it, or a place no command. */
export function manPage(commands: CommandDef[], template: string): string {
  const byName = new Map(sections(commands).map((s) => [s.name, s.def]));
  const seen = { command: new Set<string>(), options: new Set<string>() };
  const page = template.replace(/^\.\\" @(synopsis|command|options)(?: (.+))?$/gm, (_, kind: 'synopsis' | 'command' | 'options', name?: string) => {
    if (kind === 'synopsis') return synopsis(commands);
    const def = name !== undefined ? byName.get(name) : undefined;
    if (!def || name === undefined) throw new Error(`man/lro.1.in: @${kind} ${name ?? ''} names no command of the table`);
    if (seen[kind].has(name)) throw new Error(`man/lro.1.in: @${kind} ${name} is there twice`);
    seen[kind].add(name);
    return kind === 'command' ? `.SS "lro ${roffText(name)} ${roffText(synopsisWords(def))}"` : optionsBlock(def);
  });
  for (const name of byName.keys()) {
    for (const kind of ['command', 'options'] as const) {
      if (!seen[kind].has(name)) throw new Error(`man/lro.1.in: lro ${name} has no @${kind} line: add '.\\" @${kind} ${name}' where it goes`);
    }
  }
  return page;
}

/** lro's man page from its template (the text of man/lro.1.in). */
export async function lroManPage(template: string): Promise<string> {
  const { allCommands } = await import('./program.js');
  return manPage(await allCommands(), template);
}
