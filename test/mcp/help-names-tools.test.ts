// `lro mcp --help` and `lro mcp proxy --help` name lro's tools: every one the server lists, and every one the
// proxy adds (the tools that look inside stored results), so the help never names fewer tools than tools/list.
import { describe, expect, it } from 'vitest';
import { mcpCommand } from '../../src/faces/mcp-command.js';
import { TOOLS } from '../../src/mcp/tools.js';

const named = (text: string) => new Set(text.match(/\blro_\w+/g) ?? []);

describe("the mcp commands' help", () => {
  it("lro mcp's description names every tool of the server", () => {
    expect([...named(mcpCommand.description)].sort()).toEqual(TOOLS.map((t) => t.name).sort());
  });

  it("lro mcp proxy's notes name every tool the proxy adds", () => {
    const proxy = mcpCommand.subcommands!.find((c) => c.name === 'proxy')!;
    expect([...named(proxy.notes!)].sort()).toEqual(TOOLS.filter((t) => !t.serverOnly).map((t) => t.name).sort());
  });
});
