// A small MCP server built with the official SDK's McpServer, which the
// Go tests put behind `admit mcp --`. It offers tools (one that asks the
// client's model, one that asks the client's person), resources (files by
// file:// URI, read from disk for real, and a note:// one), a prompt with
// a completable argument. Every message it receives is appended to
// $FAKE_LOG as one JSON line, so the test can tell what reached it.
import { appendFileSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import { z } from "zod";

const server = new McpServer({ name: "fake", version: "1.0.0" });

server.registerTool("read_note", {
  description: "Read a note",
  inputSchema: { path: z.string() },
  annotations: { readOnlyHint: true },
}, async ({ path }) => ({ content: [{ type: "text", text: "ran read_note " + path }] }));

server.registerTool("git_status", {
  description: "Status of a repository",
  inputSchema: { repo_path: z.string() },
  annotations: { readOnlyHint: true },
}, async ({ repo_path }) => ({ content: [{ type: "text", text: "clean " + repo_path }] }));

server.registerTool("ask_model", {
  description: "Ask the client's model",
  annotations: { readOnlyHint: true },
}, async () => {
  try {
    const r = await server.server.createMessage({ messages: [{ role: "user", content: { type: "text", text: "say yes" } }], maxTokens: 5 });
    return { content: [{ type: "text", text: "sampled: " + r.content.text }] };
  } catch (e) {
    return { content: [{ type: "text", text: "sampling failed: " + e.message }] };
  }
});

server.registerTool("ask_person", {
  description: "Ask the client's person",
  annotations: { readOnlyHint: true },
}, async () => {
  try {
    const r = await server.server.elicitInput({ message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } });
    return { content: [{ type: "text", text: "elicited: " + r.action }] };
  } catch (e) {
    return { content: [{ type: "text", text: "elicitation failed: " + e.message }] };
  }
});

server.registerTool("list_roots", {
  description: "The client's roots",
  annotations: { readOnlyHint: true },
}, async () => {
  try {
    const r = await server.server.listRoots();
    return { content: [{ type: "text", text: "roots: " + r.roots.map((x) => x.uri).join(" ") }] };
  } catch (e) {
    return { content: [{ type: "text", text: "roots failed: " + e.message }] };
  }
});

server.registerResource("file", new ResourceTemplate("file://{+path}", { list: undefined }), { description: "A file of this machine" },
  async (uri) => ({ contents: [{ uri: uri.href, text: readFileSync(fileURLToPath(uri), "utf8") }] }));

server.registerResource("today", "note://today", { description: "Today's note" },
  async (uri) => ({ contents: [{ uri: uri.href, text: "a note for today" }] }));

server.registerPrompt("review", {
  description: "Review a file",
  argsSchema: { file: completable(z.string(), (value) => ["notes.txt", "notes.md"].filter((f) => f.startsWith(value))) },
}, ({ file }) => ({ messages: [{ role: "user", content: { type: "text", text: "Review " + file } }] }));

const transport = new StdioServerTransport();
await server.connect(transport);
const deliver = transport.onmessage;
transport.onmessage = (message, extra) => {
  appendFileSync(process.env.FAKE_LOG, JSON.stringify(message) + "\n");
  deliver(message, extra);
};
console.error("fake MCP server: ready");
