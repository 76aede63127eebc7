// The summary at the end of each command's --help (after its examples) is written once, in the command's section
// of docs/commands.md, where its longer prose is (the man page's, faces/man-markdown.ts):
//
//   <!-- help: grep -->
//   The summary at the end of `lro grep --help`:
//
//   ```text
//   A record longer than 1000 characters is shown as windows …
//   ```
//
// The first ```text block after the marker is the summary, byte for byte. A declaration takes it as
// `import GREP_HELP from 'help:grep'` (`help:lro` is the program's own): scripts/build.mjs puts each into the bundle
// that imports it with helpPlugin (esbuild), vitest.config.ts with viteHelpPlugin, for the tests, which run the
// sources; src/docs-help.d.ts declares such an import to TypeScript. A name with no summary fails the build.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const DOCS = fileURLToPath(new URL('../docs/commands.md', import.meta.url));

const MARKER = /^<!-- help: (.+?) -->$/;

/** Each summary of the markdown, by the name its marker gives ('mcp proxy'). */
export function helpSummaries(markdown) {
  const out = new Map();
  const lines = markdown.split(/\r?\n/);
  let fenced = false; // inside a fenced block, where a marker is an example, not a marker
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith('```')) fenced = !fenced;
    const m = fenced ? null : MARKER.exec(lines[i]);
    if (!m) continue;
    const name = m[1];
    if (out.has(name)) throw new Error(`docs/commands.md: '<!-- help: ${name} -->' is there twice`);
    const open = lines.findIndex((l, j) => j > i && (l === '```text' || l.startsWith('#') || MARKER.test(l)));
    if (open < 0 || lines[open] !== '```text') throw new Error(`docs/commands.md: '<!-- help: ${name} -->' has no \`\`\`text block after it`);
    const close = lines.indexOf('```', open + 1);
    if (close < 0) throw new Error(`docs/commands.md: the \`\`\`text block of '<!-- help: ${name} -->' is not closed`);
    out.set(name, lines.slice(open + 1, close).join('\n'));
    i = close; // the block is not scanned for markers
  }
  return out;
}

/** The summary of `lro NAME --help` ('lro': the program's), from docs/commands.md. */
export function helpSummary(name) {
  const text = helpSummaries(readFileSync(DOCS, 'utf8')).get(name);
  if (text === undefined) throw new Error(`docs/commands.md: no summary for 'help:${name}': add '<!-- help: ${name} -->' and a \`\`\`text block to its section`);
  return text;
}

const PREFIX = 'help:';

/** esbuild: `import X from 'help:NAME'` is that summary (the default export, a string). */
export const helpPlugin = {
  name: 'docs-help',
  setup(b) {
    b.onResolve({ filter: /^help:/ }, (args) => ({ path: args.path.slice(PREFIX.length), namespace: 'docs-help' }));
    b.onLoad({ filter: /.*/, namespace: 'docs-help' }, (args) => ({ contents: helpSummary(args.path), loader: 'text', watchFiles: [DOCS] }));
  },
};

/** Vite (vitest): the same as helpPlugin. */
export const viteHelpPlugin = {
  name: 'docs-help',
  enforce: 'pre',
  resolveId(id) {
    return id.startsWith(PREFIX) ? `\0${id}` : null;
  },
  load(id) {
    if (!id.startsWith(`\0${PREFIX}`)) return null;
    this.addWatchFile?.(DOCS);
    return { code: `export default ${JSON.stringify(helpSummary(id.slice(PREFIX.length + 1)))};`, map: null };
  },
};
