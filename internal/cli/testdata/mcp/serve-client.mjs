// An MCP client (the official SDK's Client over StdioClientTransport)
// that starts `$ADMIT_BIN mcp serve ...`, admit's own MCP server, and uses
// its tools as an agent would. It prints one JSON object: each step's
// outcome, for the Go test (internal/cli/mcp_test.go) to judge.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const transport = new StdioClientTransport({
  command: process.env.ADMIT_BIN,
  args: JSON.parse(process.env.ADMIT_ARGS),
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client({ name: "serve-test", version: "1.0.0" });
await client.connect(transport);

async function call(name, args) {
  try {
    const r = await client.callTool({ name, arguments: args });
    return { ok: true, isError: !!r.isError, text: r.content.map((c) => c.text).join("\n"), structured: r.structuredContent };
  } catch (e) {
    return { ok: false, code: e.code, message: e.message };
  }
}

const out = { server: client.getServerVersion(), protocol: transport._protocolVersion ?? null, instructions: client.getInstructions() };
out.tools = (await client.listTools()).tools.map((t) => ({ name: t.name, annotations: t.annotations, required: t.inputSchema.required }));
out.read = await call("read", { path: "notes.txt" });
out.readOutside = await call("read", { path: "/etc/passwd" });
out.readHome = await call("read", { path: "~/.ssh/id_rsa" });
out.list = await call("read", { path: "." });
out.write = await call("write", { path: "new.txt", content: "written by the model\n" });
out.edit = await call("edit", { path: "notes.txt", oldText: "a note", newText: "an edited note" });
out.writeOutside = await call("write", { path: "/tmp/admit-mcp-serve-outside.txt", content: "x" });
out.writeProtected = await call("write", { path: ".admit/policy.json", content: "{}" });
out.run = await call("run", { command: "cat notes.txt | wc -l" });
out.runOutside = await call("run", { command: "cat /proc/self/environ" });
out.search = await call("search", { pattern: "edited" });
out.searchNone = await call("search", { pattern: "no such text anywhere" });
out.badArgs = await call("read", { pathh: "notes.txt" });
out.unknownTool = await call("format_disk", {});
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
