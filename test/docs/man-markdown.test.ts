// The docs' markdown as the man page shows it (faces/man-markdown.ts): each construct of the subset, the markers
// that say which part of a section the page takes, and a refusal of what the subset does not have.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inlineRoff, manProse, markdownToRoff } from '../../src/faces/man-markdown.js';

describe('inlineRoff', () => {
  it('shows code in bold, emphasis in italics or bold, and a link as its text and the page it leads to', () => {
    expect(inlineRoff('run `lro gc --json` now')).toBe('run \\fBlro\\ gc\\ \\-\\-json\\fR now');
    expect(inlineRoff('an *ID* and **never**')).toBe('an \\fIID\\fR and \\fBnever\\fR');
    expect(inlineRoff('see [Sessions](#sessions), [the guide](mcp.md#tools), [jq](https://jqlang.org)')).toBe(
      'see Sessions (docs/commands.md), the guide (docs/mcp.md), jq (https://jqlang.org)',
    );
    expect(inlineRoff('``a ` b``')).toBe('\\fBa\\ `\\ b\\fR');
    expect(inlineRoff('joined by ` / `')).toBe('joined by \\fB/\\fR');
  });

  it('keeps a short code span on one line, and lets a long one break', () => {
    expect(inlineRoff('`== ID  TIME`')).toBe('\\fB==\\ ID\\ \\ TIME\\fR');
    const long = `lro grep ${'x'.repeat(40)} -C 2`;
    expect(inlineRoff(`\`${long}\``)).toBe(`\\fBlro grep ${'x'.repeat(40)} \\-C 2\\fR`);
  });

  it('escapes what roff would read: backslashes, dashes, double quotes; a markdown escape is its character', () => {
    expect(inlineRoff('`\'"status":"error"\'`')).toBe("\\fB'\\(dqstatus\\(dq:\\(dqerror\\(dq'\\fR");
    expect(inlineRoff('a\\b -x')).toBe('a\\eb \\-x');
    expect(inlineRoff('`json\\|text` 2 \\* 3 [not a link]')).toBe('\\fBjson\\e|text\\fR 2 * 3 [not a link]');
    expect(inlineRoff('a\\|b')).toBe('a|b');
  });

  it('refuses an unclosed code span', () => {
    expect(() => inlineRoff('a `b')).toThrow(/unclosed code span/);
  });
});

describe('markdownToRoff', () => {
  it('makes paragraphs, with no paragraph macro first, and never starts a line with a dot or a quote', () => {
    expect(markdownToRoff('One\ntwo.\n\n.hidden dot\n')).toBe('One\ntwo.\n.PP\n\\&.hidden dot');
    expect(markdownToRoff("'quoted' first")).toBe("\\&'quoted' first");
  });

  it('shows a fenced block with its tabs as a terminal sets them', () => {
    expect(markdownToRoff('```text\na\tb\nabcdefghi\tj\n```')).toBe('.RS\n.EX\na       b\nabcdefghi       j\n.EE\n.RE');
  });

  it('shows a fenced block as it is, indented, a leading dot kept literal', () => {
    expect(markdownToRoff('Text.\n\n```console\n$ lro gc --json\n.x \\n\n```\n')).toBe(
      'Text.\n.PP\n.RS\n.EX\n$ lro gc \\-\\-json\n\\&.x \\en\n.EE\n.RE',
    );
  });

  it('makes a list of bullets, continuation lines joined to their item', () => {
    expect(markdownToRoff('Kinds:\n- one\n  more\n- `two`\n\nAfter.')).toBe('Kinds:\n.IP \\(bu 2\none\nmore\n.IP \\(bu 2\n\\fBtwo\\fR\n.PP\nAfter.');
  });

  it('makes a table a tagged paragraph a row, columns past the second named', () => {
    expect(markdownToRoff('| a | b | c |\n|---|---|---|\n| `x\\|y` | one | two |\n')).toBe('.TP\n\\fBx\\e|y\\fR\none; c: two');
  });

  it('makes a ### heading a bold line', () => {
    expect(markdownToRoff('### The `--all` form\n\nText.')).toBe('.B "The \\-\\-all form"\n.PP\nText.');
  });

  it('refuses what is not in the subset', () => {
    expect(() => markdownToRoff('1. first')).toThrow(/not in the subset/);
    expect(() => markdownToRoff('> quoted')).toThrow(/not in the subset/);
    expect(() => markdownToRoff('<b>html</b>')).toThrow(/not in the subset/);
    expect(() => markdownToRoff('| a |\n| b |')).toThrow(/without its rule line/);
  });

  it('passes mandoc -T lint on every construct together', () => {
    const roff = markdownToRoff(
      'A `code` *it* **b** [l](#x).\n\n- one\n- two\n\n| o | m |\n|---|---|\n| `-x` | y |\n\n### Head\n\n```text\n.a\n-b\n```\n\nEnd.',
    );
    const dir = mkdtempSync(join(tmpdir(), 'lro-man-'));
    const file = join(dir, 't.1');
    writeFileSync(file, `.TH T 1 2026-01-01 t\n.SH NAME\nt \\- t\n.SH DESCRIPTION\n.SS "x"\n${roff}\n`);
    const lint = spawnSync('mandoc', ['-T', 'lint', '-W', 'warning', file], { encoding: 'utf8' });
    if (lint.error) throw new Error('mandoc is needed for this test: apt-get install mandoc');
    expect(lint.stdout + lint.stderr).toBe('');
  });
});

describe('manProse', () => {
  it('takes each marked part up to the next heading, marker, help summary or end marker, joining a name marked twice', () => {
    const docs = [
      '# Commands',
      '## `lro a`',
      '',
      '<!-- man: a -->',
      'A one.',
      '',
      '<!-- /man -->',
      '| table | left out |',
      '<!-- man: a -->',
      'A two.',
      '## `lro b` and `lro c`',
      'Shared, not taken.',
      '<!-- man: b -->',
      'B.',
      '<!-- man: c -->',
      'C.',
      '<!-- help: c -->',
      'The summary of lro c --help, not taken.',
      '## Other',
      'Not taken.',
    ].join('\n');
    expect([...manProse(docs)]).toEqual([
      ['a', 'A one.\n\n\nA two.'],
      ['b', 'B.'],
      ['c', 'C.'],
    ]);
  });
});
