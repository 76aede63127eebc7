// `lro completion bash|zsh|fish`: a completion script generated from the command table (the commands, their
// options and arguments, and the values each completes), so a new command or option is completed without anyone
// editing a list. Stored ids come from `lro __complete-ids`, which reads only directory entries.
import { longFlag, shortFlag, takesValue, type CommandDef, type OptionDef } from '../commands/command.js';
import COMPLETION_HELP from 'help:completion';

/** The shells lro writes completion scripts for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
/** One of SHELLS. */
export type Shell = (typeof SHELLS)[number];

/** An option as the scripts need it. */
export interface OptionSpec {
  short?: string;
  long?: string;
  description: string;
  takesValue: boolean;
  /** Values to offer: choices, a directory, a file, or nothing in particular. */
  value: { kind: 'choices'; choices: string[] } | { kind: 'dir' } | { kind: 'file' } | { kind: 'any' } | null;
}

/** A positional argument: a stored id, one of some words, a command line (run), or anything. */
export type ArgSpec = { kind: 'id' } | { kind: 'choices'; choices: string[] } | { kind: 'command' } | { kind: 'any' };

/**
 * A subcommand as the scripts need it. A subcommand's own subcommand (lro mcp proxy) is a spec of its own named
 * "mcp proxy"; its parent lists it in `subcommands` and offers it as its first argument.
 */
export interface CommandSpec {
  name: string;
  description: string;
  options: OptionSpec[];
  args: ArgSpec[];
  subcommands: string[];
}

/** The help option commander adds to every command, which the scripts complete too. */
const HELP: OptionSpec = { short: '-h', long: '--help', description: 'display help for command', takesValue: false, value: null };

/** One option as the scripts need it. */
function optionSpec(o: OptionDef): OptionSpec {
  const value: OptionSpec['value'] = !takesValue(o)
    ? null
    : o.choices
      ? { kind: 'choices', choices: [...o.choices] }
      : o.complete
        ? { kind: o.complete }
        : { kind: 'any' };
  return { short: shortFlag(o), long: longFlag(o), description: firstSentence(o.description), takesValue: takesValue(o), value };
}

/** One command as a spec, named by its path under the program. */
function commandSpec(def: CommandDef, name: string): CommandSpec {
  const subcommands = (def.subcommands ?? []).filter((c) => !c.hidden).map((c) => c.name);
  const args = (def.arguments ?? []).map((a): ArgSpec => {
    if (a.choices) return { kind: 'choices', choices: [...a.choices] };
    return a.complete ? { kind: a.complete } : { kind: 'any' };
  });
  return {
    name,
    description: firstSentence(def.description),
    options: [...def.options.map(optionSpec), HELP],
    args: subcommands.length && !args.length ? [{ kind: 'choices', choices: subcommands }] : args,
    subcommands,
  };
}

/** The visible commands, with their options and arguments, each followed by its own subcommands. */
export function commandSpecs(commands: CommandDef[]): CommandSpec[] {
  return commands
    .filter((c) => !c.hidden)
    .flatMap((c) => [commandSpec(c, c.name), ...(c.subcommands ?? []).filter((sub) => !sub.hidden).map((sub) => commandSpec(sub, `${c.name} ${sub.name}`))]);
}

/** Whether a spec is a subcommand's subcommand. */
const nested = (c: CommandSpec): boolean => c.name.includes(' ');

function firstSentence(s: string): string {
  const cut = s.replace(/\s+/g, ' ').split(/[;(]/)[0].trim();
  return cut.length > 70 ? `${cut.slice(0, 69)}…` : cut;
}

const flags = (o: OptionSpec): string[] => [o.short, o.long].filter((f): f is string => !!f);
const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The options of the program itself (lro --version, lro --help). */
export const PROGRAM_OPTIONS: { short: string; long: string; description: string }[] = [
  { short: '-V', long: '--version', description: 'print the version' },
  { short: '-h', long: '--help', description: 'show help' },
];

/** The completion script for a shell, for these commands. */
export function completionScript(shell: Shell, commands: CommandDef[]): string {
  const specs = commandSpecs(commands);
  const top = PROGRAM_OPTIONS;
  const topFlags = top.flatMap((o) => [o.short, o.long]);
  if (shell === 'bash') return bashScript(specs, topFlags);
  if (shell === 'zsh') return zshScript(specs, top.map((o) => ({ flags: [o.short, o.long], description: o.description })));
  return fishScript(specs, top);
}

/** The case of one command in _lro: its options, those that take a value, its arguments, and what each value completes. */
function bashCase(c: CommandSpec): string {
  const valueCases = c.options
    .filter((o) => o.takesValue)
    .map((o) => {
      const v = o.value!;
      const action =
        v.kind === 'choices'
          ? `COMPREPLY=($(compgen -W ${sq(v.choices.join(' '))} -- "$cur"))`
          : v.kind === 'dir'
            ? 'COMPREPLY=($(compgen -d -- "$cur"))'
            : v.kind === 'file'
              ? 'COMPREPLY=($(compgen -f -- "$cur"))'
              : 'COMPREPLY=()';
      return `        ${flags(o).join('|')}) ${action}; return ;;`;
    });
  return [
    `    ${sq(c.name)})`,
    `      opts=${sq(c.options.flatMap(flags).join(' '))}`,
    `      vals=${sq(` ${c.options.filter((o) => o.takesValue).flatMap(flags).join(' ')} `)}`,
    `      args=(${c.args.map((a) => sq(a.kind === 'choices' ? `choices:${a.choices.join(' ')}` : a.kind)).join(' ')})`,
    ...(valueCases.length ? ['      case "$prev" in', ...valueCases, '      esac'] : []),
    '      ;;',
  ].join('\n');
}

/** The fixed part of the bash script: its header, and the functions that read ids and split the line into words. */
const BASH_HELPERS = `# bash completion for lro (generated by \`lro completion bash\`)
# Load it now:  source <(lro completion bash)
# Or for good:  lro completion bash > ~/.local/share/bash-completion/completions/lro

_lro_ids() {
  local line
  while IFS= read -r line; do
    [[ "$line" == "$cur"* ]] && COMPREPLY+=("\${line%%$'\\t'*}")
  done < <(command lro __complete-ids \${1:+--dir "$1"} 2>/dev/null)
}

# COMP_WORDS splits "1:3" and "--opt=value" at ':' and '=' (COMP_WORDBREAKS): join the pieces that the line
# shows without a space between. Sets words, cword, and at[] (the COMP_WORDS index where each word starts).
_lro_words() {
  local i w pos=0 line="\${COMP_LINE:0:COMP_POINT}"
  words=() at=()
  for ((i = 0; i <= COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((i > 0)) && { { ((pos < \${#line})) && [[ "\${line:pos:1}" != [[:space:]] ]]; } || [[ -z "$w" && "\${line: -1}" == [=:] ]]; }; then
      words[\${#words[@]}-1]+="$w"
    else
      while [[ "\${line:pos:1}" == [[:space:]] ]]; do ((pos++)); done
      words+=("$w")
      at+=("$i")
    fi
    pos=$((pos + \${#w}))
  done
  cword=$((\${#words[@]} - 1))
}

`;

function bashScript(specs: CommandSpec[], topFlags: string[]): string {
  const nestedCases = specs
    .filter((c) => c.subcommands.length)
    .map((c) => `    ${sq(c.name)}) if ((subi + 1 < cword)) && [[ " ${c.subcommands.join(' ')} " == *" \${words[subi+1]} "* ]]; then sub="$sub \${words[subi+1]}"; subi=$((subi + 1)); fi ;;`)
    .join('\n');
  const cases = specs.map(bashCase);
  return `${BASH_HELPERS}_lro() {
  local words at cword
  _lro_words
  local cur="\${words[cword]}" prev="\${words[cword-1]}"
  local i w sub="" subi=0
  COMPREPLY=()
  for ((i = 1; i < cword; i++)); do
    w="\${words[i]}"
    case "$w" in -*) ;; *) sub="$w"; subi=$i; break ;; esac
  done
  if [[ -z "$sub" ]]; then
    if [[ "$cur" == -* ]]; then
      COMPREPLY=($(compgen -W ${sq(topFlags.join(' '))} -- "$cur"))
    else
      COMPREPLY=($(compgen -W ${sq(specs.filter((c) => !nested(c)).map((c) => c.name).join(' '))} -- "$cur"))
    fi
    return
  fi
  # the subcommand's own subcommand, right after it (lro mcp proxy)
  case "$sub" in
${nestedCases}
  esac
  # --opt=value: complete the value (bash replaces only what follows the '=')
  if [[ "$cur" == --*=* ]]; then
    prev="\${cur%%=*}"
    cur="\${cur#*=}"
  fi
  local opts="" vals=" " args=()
  case "$sub" in
${cases.join('\n')}
    *) return ;;
  esac
  # which argument is being completed: skip options and the values of those that take one
  local n=0 dashdash=0 dir=""
  for ((i = subi + 1; i < cword; i++)); do
    w="\${words[i]}"
    if ((dashdash == 0)) && [[ "$w" == -* ]]; then
      if [[ "$w" == -- ]]; then dashdash=1; continue; fi
      if [[ "$vals" == *" $w "* ]]; then
        [[ "$w" == --dir ]] && dir="\${words[i+1]}"
        ((i++))
      fi
      [[ "$w" == --dir=* ]] && dir="\${w#--dir=}"
      continue
    fi
    if [[ "\${args[n]:-}" == command ]]; then
      # the rest is a command line of its own: complete it as bash would (bash-completion), else files
      if declare -F _command_offset >/dev/null; then _command_offset "\${at[i]}"; else COMPREPLY=($(compgen -f -- "$cur")); fi
      return
    fi
    ((n++))
  done
  if ((dashdash == 0)) && [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  local kind="\${args[n]:-}"
  case "$kind" in
    id) _lro_ids "$dir" ;;
    command) COMPREPLY=($(compgen -c -- "$cur")) ;;
    choices:*) COMPREPLY=($(compgen -W "\${kind#choices:}" -- "$cur")) ;;
  esac
}

complete -F _lro lro
`;
}

/** Escapes text for the inside of an _arguments description or message: brackets and colons are syntax there. */
const zshText = (s: string): string => s.replace(/\\/g, '\\\\').replace(/([[\]:])/g, '\\$1').replace(/'/g, `'\\''`);

function zshOption(o: OptionSpec): string {
  const v = o.value;
  const action = !v
    ? ''
    : v.kind === 'choices'
      ? `:value:(${v.choices.join(' ')})`
      : v.kind === 'dir'
        ? ':directory:_directories'
        : v.kind === 'file'
          ? ':file:_files'
          : ':value: ';
  const desc = `[${zshText(o.description)}]${action.replace(/'/g, `'\\''`)}`;
  const fs = flags(o).map((f) => (o.takesValue ? (f.startsWith('--') ? `${f}=` : `${f}+`) : f));
  return fs.length === 1 ? `'${fs[0]}${desc}'` : `{${fs.join(',')}}'${desc}'`;
}

function zshArg(a: ArgSpec, i: number): string {
  switch (a.kind) {
    case 'id':
      return `'${i + 1}:result id:_lro_ids'`;
    case 'choices':
      return `'${i + 1}:value:(${a.choices.join(' ')})'`;
    case 'command':
      return `'(-)${i + 1}:command:_command_names -e' '*::arguments:_normal'`;
    default:
      return `'${i + 1}:value: '`;
  }
}

function zshScript(specs: CommandSpec[], top: { flags: string[]; description: string }[]): string {
  const commands = specs
    .filter((c) => !nested(c))
    .map((c) => `        ${sq(`${c.name.replace(/:/g, '\\:')}:${c.description}`)}`)
    .join('\n');
  const args = (c: CommandSpec, indent: string) => `_arguments -s -S \\\n${indent}  ${[...c.options.map(zshOption), ...c.args.map(zshArg)].join(` \\\n${indent}  `)} && ret=0`;
  const cases = specs.filter((c) => !nested(c)).map((c) => {
    if (!c.subcommands.length) return `        ${c.name})\n          ${args(c, '          ')}\n          ;;`;
    // its own subcommand (lro mcp proxy): complete from there on as that command
    const subs = specs
      .filter((s) => s.name.startsWith(`${c.name} `))
      .map((s) => `              ${s.name.slice(c.name.length + 1)}) ${args(s, '                ')} ;;`);
    return [
      `        ${c.name})`,
      `          if (( CURRENT > 2 )) && [[ $words[2] == (${c.subcommands.join('|')}) ]]; then`,
      '            local sub=$words[2]',
      '            shift words',
      '            (( CURRENT-- ))',
      '            case $sub in',
      ...subs,
      '            esac',
      '          else',
      `            ${args(c, '            ')}`,
      '          fi',
      '          ;;',
    ].join('\n');
  });
  const topLines = top.map((o) => `'(- *)'${o.flags.length > 1 ? `{${o.flags.join(',')}}` : o.flags[0]}'[${zshText(o.description)}]'`);
  return `#compdef lro
# zsh completion for lro (generated by \`lro completion zsh\`)
# Load it now:  source <(lro completion zsh)      (after compinit)
# Or for good:  lro completion zsh > "\${fpath[1]}/_lro"

_lro_ids() {
  local -a ids
  local line
  for line in \${(f)"$(command lro __complete-ids \${opt_args[--dir]:+--dir "\${opt_args[--dir]}"} 2>/dev/null)"}; do
    ids+=("\${line%%$'\\t'*}:\${line#*$'\\t'}")
  done
  _describe -t ids 'result id' ids
}

_lro() {
  local curcontext="$curcontext" state line ret=1
  typeset -A opt_args
  _arguments -C \\
    ${topLines.join(' \\\n    ')} \\
    '1: :->command' \\
    '*:: :->args' && ret=0
  case $state in
    command)
      local -a commands
      commands=(
${commands}
      )
      _describe -t commands 'lro command' commands && ret=0
      ;;
    args)
      curcontext="\${curcontext%:*:*}:lro-$line[1]:"
      case $line[1] in
${cases.join('\n')}
      esac
      ;;
  esac
  return ret
}

if [[ "\${funcstack[1]}" == _lro ]]; then
  _lro "$@"
elif (( \${+functions[compdef]} )); then
  compdef _lro lro
else
  print -u2 "lro completion: run 'autoload -Uz compinit && compinit' before loading it"
fi
`;
}

const fishText = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

type FishOption = { short?: string; long?: string; description: string };

/** A fish `complete` line for an option, offered where `cond` holds. */
function fishOption(cond: string, o: FishOption, extra = ''): string {
  const parts = [`complete -c lro -n ${fishText(cond)}`];
  if (o.short) parts.push(`-s ${o.short.replace(/^-/, '')}`);
  if (o.long) parts.push(`-l ${o.long.replace(/^--/, '')}`);
  if (extra) parts.push(extra);
  parts.push(`-d ${fishText(o.description)}`);
  return parts.join(' ');
}

/** The `complete` lines of one command: its options with what their values complete, then its arguments. */
function fishCommandLines(c: CommandSpec): string[] {
  const lines: string[] = [];
  const is = `__lro_is ${fishText(c.name)}`;
  for (const o of c.options) {
    const v = o.value;
    const extra = !v
      ? ''
      : v.kind === 'choices'
        ? `-x -a ${fishText(v.choices.join(' '))}`
        : v.kind === 'dir'
          ? `-x -a '(__fish_complete_directories)'`
          : v.kind === 'file'
            ? '-r -F'
            : '-x';
    lines.push(fishOption(is, o, extra));
  }
  c.args.forEach((a, i) => {
    const at = `${is}; and test (__lro_arg_index) -eq ${i + 1}`;
    if (a.kind === 'id') lines.push(`complete -c lro -n ${fishText(at)} -k -x -a '(__lro_ids)'`);
    else if (a.kind === 'choices') lines.push(`complete -c lro -n ${fishText(at)} -x -a ${fishText(a.choices.join(' '))}`);
    else if (a.kind === 'command') {
      lines.push(`complete -c lro -n ${fishText(at)} -x -a '(__fish_complete_command)'`);
      lines.push(`complete -c lro -n ${fishText(`${is}; and test (__lro_arg_index) -gt ${i + 1}`)} -F`);
    }
  });
  return lines;
}

/** The fixed functions of the fish script: where the arguments are, and the stored ids. */
const FISH_HELPERS = `
# which argument of the subcommand is being completed (1 = the first)
function __lro_arg_index
    set -l words (commandline -opc)
    set -l sub (__lro_subcommand)
    set -l vals (string split ' ' -- (__lro_value_options "$sub"))
    set -l depth (count (string split ' ' -- $sub))
    set -l n 0
    set -l seen 0
    set -l skip 0
    set -l dashdash 0
    for w in $words[2..-1]
        if test $skip -eq 1
            set skip 0
            continue
        end
        if test $seen -lt $depth
            if not string match -q -- '-*' $w
                set seen (math $seen + 1)
            end
            continue
        end
        if test $dashdash -eq 0; and string match -q -- '-*' $w
            if test "$w" = --
                set dashdash 1
            else if contains -- $w $vals
                set skip 1
            end
            continue
        end
        set n (math $n + 1)
    end
    echo (math $n + 1)
end

function __lro_ids
    set -l words (commandline -opc)
    set -l dir
    set -l i (contains -i -- --dir $words)
    and set dir --dir $words[(math $i + 1)]
    command lro __complete-ids $dir 2>/dev/null
end

`;

function fishScript(specs: CommandSpec[], top: FishOption[]): string {
  const lines: string[] = [];
  for (const o of top) lines.push(fishOption('__lro_no_subcommand', o));
  for (const c of specs.filter((x) => !nested(x))) lines.push(`complete -c lro -n '__lro_no_subcommand' -a ${c.name} -d ${fishText(c.description)}`);
  const valueTable: string[] = [];
  for (const c of specs) {
    valueTable.push(`        case ${fishText(c.name)}\n            echo ${c.options.filter((o) => o.takesValue).flatMap(flags).join(' ') || "''"}`);
    lines.push(...fishCommandLines(c));
  }
  return `# fish completion for lro (generated by \`lro completion fish\`)
# Load it now:  lro completion fish | source
# Or for good:  lro completion fish > ~/.config/fish/completions/lro.fish

complete -c lro -f

# the subcommand: the first word that is not an option, with its own subcommand right after it (mcp proxy)
function __lro_subcommand
    set -l found
    for w in (commandline -opc)[2..-1]
        if string match -q -- '-*' $w
            test -n "$found"; and break
            continue
        end
        if test -z "$found"
            set found $w
            contains -- $w ${specs.filter((c) => c.subcommands.length).map((c) => c.name).join(' ') || "''"}; or break
        else
            contains -- "$found $w" ${specs.filter(nested).map((c) => fishText(c.name)).join(' ') || "''"}; and set found "$found $w"
            break
        end
    end
    test -n "$found"; or return 1
    echo $found
end

function __lro_no_subcommand
    not __lro_subcommand >/dev/null
end

function __lro_is
    test "$(__lro_subcommand)" = "$argv[1]"
end

# options of each subcommand that take a value
function __lro_value_options
    switch $argv[1]
${valueTable.join('\n')}
    end
end
${FISH_HELPERS}${lines.join('\n')}
`;
}

/** `lro completion`, completing `commands()` (every command of the program, this one among them). */
export function completionCommand(commands: () => Promise<CommandDef[]>): CommandDef<{ shell: Shell }> {
  return {
    name: 'completion',
    description: 'print a shell completion script (subcommands, options and stored ids)',
    arguments: [{ name: 'shell', description: 'the shell', choices: SHELLS }],
    options: [],
    examples: [
      'source <(lro completion bash)                                     bash, now (add it to ~/.bashrc to keep it)',
      'lro completion bash > ~/.local/share/bash-completion/completions/lro',
      'lro completion zsh > "${fpath[1]}/_lro"                           zsh (with compinit)',
      'lro completion fish > ~/.config/fish/completions/lro.fish',
    ],
    notes: COMPLETION_HELP,
    run: async ({ shell }, io) => {
      await io.stdout.write(completionScript(shell, await commands()));
      return 0;
    },
  };
}
