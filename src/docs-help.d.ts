// A command's --help summary, written in its section of docs/commands.md and put into the code when it is bundled
// (scripts/docs-help.mjs): `import GREP_HELP from 'help:grep'`.
declare module 'help:*' {
  const summary: string;
  export default summary;
}
