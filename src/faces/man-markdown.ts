// Each command's prose has one source: its section of docs/commands.md. The man page takes it from there
// (faces/man.ts), turned into roff by this file. The part of a section the page takes is marked in the markdown:
// `<!-- man: NAME -->` begins the prose of `lro NAME`, and it runs to the next `## ` heading, the next marker, a
// `<!-- help: NAME -->` line (the summary `lro NAME --help` ends with, scripts/docs-help.mjs, which the page leaves
// out) or a `<!-- /man -->` line (which leaves out what follows, such as an option table the page already has from
// the command table); a name marked twice has its parts joined.
//
// The markdown is the subset docs/commands.md is written in: paragraphs; `code`, *italic*, **bold** and links
// (their text, then the page of the docs they lead to); `- ` lists of one level; pipe tables; fenced blocks; `### `
// headings. Anything else is refused by name, so the page never shows markdown it did not understand.

const MARKER = /^<!-- man: (.+?) -->$/;
const END = '<!-- /man -->';
const HELP = /^<!-- help: .+ -->$/;

/** The prose docs give each command, as markdown, by the name the man page uses ('mcp proxy'). */
export function manProse(markdown: string): Map<string, string> {
  const parts = new Map<string, string[]>();
  let name: string | null = null;
  for (const line of markdown.split('\n')) {
    const m = MARKER.exec(line);
    if (m) name = m[1];
    else if (line === END || HELP.test(line) || line.startsWith('## ') || line.startsWith('# ')) name = null;
    else if (name !== null) {
      if (!parts.has(name)) parts.set(name, []);
      parts.get(name)!.push(line);
    }
    // a part's lines are kept with a blank line between parts, so paragraphs do not run together
    if (m && parts.has(m[1])) parts.get(m[1])!.push('');
  }
  return new Map([...parts].map(([n, lines]) => [n, lines.join('\n').trim()]));
}

/** Text made safe for roff: backslashes, dashes and double quotes escaped (a line's leading dot: see lines()). */
function escaped(s: string): string {
  return s.replace(/\\/g, '\\e').replace(/-/g, '\\-').replace(/"/g, '\\(dq');
}

/** Inline markdown as roff: code spans in bold, emphasis in italics or bold, links as their text. */
export function inlineRoff(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '`') {
      const ticks = /^`+/.exec(text.slice(i))![0];
      const end = text.indexOf(ticks, i + ticks.length);
      if (end < 0) throw new Error(`markdown: an unclosed code span in: ${text}`);
      let code = text.slice(i + ticks.length, end);
      if (/^ .*[^ ].* $/.test(code)) code = code.slice(1, -1); // markdown's padding, as in `` `x` ``
      // a short span is one word to roff, not broken across lines (`== ID  TIME  N records`)
      const shown = code.length <= UNBROKEN ? escaped(code).replace(/ /g, '\\ ') : escaped(code);
      out += `\\fB${shown}\\fR`;
      i = end + ticks.length;
    } else if (c === '\\' && i + 1 < text.length && /[\\`*_[\]()#|<>!.-]/.test(text[i + 1])) {
      out += escaped(text[i + 1]);
      i += 2;
    } else if (text.startsWith('**', i)) {
      const end = text.indexOf('**', i + 2);
      if (end < 0) throw new Error(`markdown: an unclosed ** in: ${text}`);
      out += `\\fB${inlineRoff(text.slice(i + 2, end))}\\fR`;
      i = end + 2;
    } else if (c === '*' && /\S/.test(text[i + 1] ?? '')) {
      const end = text.indexOf('*', i + 1);
      if (end < 0) throw new Error(`markdown: an unclosed * in: ${text}`);
      out += `\\fI${inlineRoff(text.slice(i + 1, end))}\\fR`;
      i = end + 1;
    } else if (c === '[') {
      const m = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(text.slice(i));
      if (!m) {
        out += '[';
        i++;
        continue;
      }
      // the page has no link: the docs' page it leads to is named instead (the section is the link's text)
      const page = m[2].startsWith('#') ? 'docs/commands.md' : /^[\w-]+\.md\b/.test(m[2]) ? `docs/${m[2].replace(/#.*/, '')}` : m[2];
      out += `${inlineRoff(m[1])} (${escaped(page)})`;
      i += m[0].length;
    } else {
      const next = text.slice(i).search(/[`\\*[]/);
      const plain = next < 0 ? text.slice(i) : next === 0 ? c : text.slice(i, i + next);
      out += escaped(plain);
      i += plain.length;
    }
  }
  return out;
}

/** Roff lines of running text: one per source line, none beginning with a request's dot or quote. */
function lines(text: string[]): string[] {
  return text.map((l) => inlineRoff(l.trim())).map((l) => (/^[.']/.test(l) ? `\\&${l}` : l));
}

/** A pipe table's row as its cells (a `\|` is a bar inside a cell). */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

/** The longest code span kept on one line. */
const UNBROKEN = 40;

/** A fenced block's line as it is shown: nothing in it read as a request or an escape, tabs as a terminal sets them. */
function literal(line: string): string {
  const l = expandTabs(line).replace(/\\/g, '\\e').replace(/-/g, '\\-');
  return /^[.']/.test(l) ? `\\&${l}` : l;
}

/** Tabs as spaces to the next multiple of 8 columns, as a terminal shows them (roff's tab stops differ). */
function expandTabs(line: string): string {
  let out = '';
  for (const c of line) out += c === '\t' ? ' '.repeat(8 - (out.length % 8)) : c;
  return out;
}

/** Markdown of the subset above as roff, to go under a heading of the man page (no paragraph macro first). */
export function markdownToRoff(markdown: string): string {
  const src = markdown.split('\n');
  const out: string[] = [];
  /** Starts a new block: a paragraph break, except at the top (a .PP right after .SS is a lint warning). */
  const block = (...requests: string[]) => {
    if (out.length > 0) out.push('.PP');
    out.push(...requests);
  };
  let i = 0;
  while (i < src.length) {
    const line = src[i];
    if (line.trim() === '') {
      i++;
    } else if (line.startsWith('```')) {
      const end = src.indexOf('```', i + 1);
      if (end < 0) throw new Error(`markdown: an unclosed fenced block at: ${line}`);
      block('.RS', '.EX', ...src.slice(i + 1, end).map(literal), '.EE', '.RE');
      i = end + 1;
    } else if (line.startsWith('### ')) {
      block(`.B "${escaped(line.slice(4).replace(/`/g, ''))}"`);
      i++;
    } else if (line.startsWith('|')) {
      const rows: string[][] = [];
      for (; i < src.length && src[i].startsWith('|'); i++) rows.push(cells(src[i]));
      const [head, rule, ...body] = rows;
      if (!rule || !rule.every((c) => /^:?-+:?$/.test(c))) throw new Error(`markdown: a table without its rule line at: ${line}`);
      // each row as a tagged paragraph: its first cell, then the others (named by their column past the second)
      const entries = body.flatMap((r) => {
        const rest = r.slice(1).map((c, k) => (k === 0 ? inlineRoff(c) : `${escaped(head[k + 1])}: ${inlineRoff(c)}`));
        return ['.TP', inlineRoff(r[0]).replace(/^[.']/, '\\&$&'), ...lines([rest.join('; ')])];
      });
      out.push(...entries); // .TP breaks the paragraph before it, and the next block's .PP ends the list
    } else if (line.startsWith('- ')) {
      for (; i < src.length && src[i].startsWith('- '); ) {
        const item = [src[i].slice(2)];
        for (i++; i < src.length && src[i].startsWith('  ') && src[i].trim() !== ''; i++) item.push(src[i]);
        out.push('.IP \\(bu 2', ...lines(item));
      }
    } else if (/^(#|>|\d+\. |\* |<)/.test(line)) {
      throw new Error(`markdown: not in the subset the man page takes: ${line}`);
    } else {
      const para: string[] = [];
      for (; i < src.length && src[i].trim() !== '' && !/^(```|\||- |#|>|<)/.test(src[i]); i++) para.push(src[i]);
      block(...lines(para));
    }
  }
  return out.join('\n');
}
