// An MCP client (the official SDK's Client over StdioClientTransport)
// that starts `$ADMIT_BIN mcp ... -- node fake-server.mjs` and exercises
// every kind of request through the gateway. It prints one JSON object:
// each step's outcome, for the Go test (internal/cli/mcp_test.go) to judge.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const ws = process.env.WS;
const transport = new StdioClientTransport({
  command: process.env.ADMIT_BIN,
  args: JSON.parse(process.env.ADMIT_ARGS),
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client({ name: "gateway-test", version: "1.0.0" }, { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: false } } });
const asked = [];
client.setRequestHandler(CreateMessageRequestSchema, async () => {
  asked.push("sampling");
  return { role: "assistant", content: { type: "text", text: "yes" }, model: "test-model" };
});
client.setRequestHandler(ElicitRequestSchema, async () => {
  asked.push("elicitation");
  return { action: "accept", content: { name: "Ada" } };
});
client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file://" + ws, name: "ws" }] }));
await client.connect(transport);

// outcome runs one step: its result, or the error it ended in.
async function outcome(f) {
  try {
    const r = await f();
    return { ok: true, isError: !!r.isError, text: textOf(r), result: r };
  } catch (e) {
    return { ok: false, code: e.code, message: e.message, data: e.data };
  }
}
function textOf(r) {
  if (r.content) return r.content.map((c) => c.text).join("\n");
  if (r.contents) return r.contents.map((c) => c.text).join("\n");
  if (r.messages) return r.messages.map((m) => m.content.text).join("\n");
  if (r.completion) return r.completion.values.join(" ");
  return JSON.stringify(r);
}

const out = {};
out.tools = (await client.listTools()).tools.map((t) => t.name);
out.callInside = await outcome(() => client.callTool({ name: "read_note", arguments: { path: "notes.txt" } }));
out.callOutside = await outcome(() => client.callTool({ name: "read_note", arguments: { path: "/etc/passwd" } }));
out.schemaPathOutside = await outcome(() => client.callTool({ name: "git_status", arguments: { repo_path: "/etc" } }));
out.resourceInside = await outcome(() => client.readResource({ uri: "file://" + ws + "/notes.txt" }));
out.resourceOutside = await outcome(() => client.readResource({ uri: "file:///etc/passwd" }));
out.resourceOther = await outcome(() => client.readResource({ uri: "note://today" }));
out.promptInside = await outcome(() => client.getPrompt({ name: "review", arguments: { file: "notes.txt" } }));
out.promptOutside = await outcome(() => client.getPrompt({ name: "review", arguments: { file: "/etc/passwd" } }));
out.complete = await outcome(() => client.complete({ ref: { type: "ref/prompt", name: "review" }, argument: { name: "file", value: "no" } }));
out.sampling = await outcome(() => client.callTool({ name: "ask_model", arguments: {} }));
out.elicitation = await outcome(() => client.callTool({ name: "ask_person", arguments: {} }));
out.roots = await outcome(() => client.callTool({ name: "list_roots", arguments: {} }));

// Many calls in one session: past the 64 steps a session used to have.
out.many = 0;
for (let i = 0; i < 80; i++) {
  const r = await outcome(() => client.callTool({ name: "read_note", arguments: { path: "notes.txt" } }));
  if (r.ok && !r.isError) out.many++;
  else { out.manyFailed = r; break; }
}

// A request whose params repeat a key, written to the gateway as it
// came: the SDK would never send one, an attacker's client would.
const deliver = transport.onmessage;
const dup = new Promise((resolve) => {
  transport.onmessage = (m) => (m.id === "dup-1" ? resolve(m) : deliver(m));
});
transport._process.stdin.write('{"jsonrpc":"2.0","id":"dup-1","method":"tools/call","params":{"name":"read_note","arguments":{"path":"notes.txt","path":"/etc/passwd"}}}\n');
out.duplicate = await dup;
transport.onmessage = deliver;

out.asked = asked;
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
