// admit's own MCP server (`admit mcp serve`: read, search, edit, write, run, each
// judged, confined and taped) published through VS Code's MCP server definition
// provider (VS Code 1.101+; 1.100 has it only as a proposed API, which a published
// extension may not use: there it is not offered, and the output says so). One server
// per workspace folder, run from the installed binary with --cwd the folder and
// ADMIT_SOCKET the editor's socket, so its asks come to the editor. It is resolved
// (started) only once the server's socket is listening.
import * as vscode from 'vscode';

/** The definition of one folder's server, before VS Code's class wraps it. */
export interface McpDefinition {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** mcpDefinitions are the servers to publish: one per folder on disk, from the installed binary. */
export function mcpDefinitions(folders: readonly { name: string; path: string }[], binary: string, socket: string | undefined): McpDefinition[] {
  return folders.map((f) => ({
    label: folders.length === 1 ? 'admit' : `admit: ${f.name}`,
    command: binary,
    args: ['mcp', 'serve', '--cwd', f.path],
    env: socket ? { ADMIT_SOCKET: socket } : ({} as Record<string, string>),
  }));
}

/** hasMcpProviderApi says whether this VS Code publishes MCP servers from extensions (finalized in 1.101). */
export function hasMcpProviderApi(version: string, lm: unknown, ctor: unknown): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version);
  const atLeast = !!m && (Number(m[1]) > 1 || (Number(m[1]) === 1 && Number(m[2]) >= 101));
  return atLeast && typeof (lm as { registerMcpServerDefinitionProvider?: unknown })?.registerMcpServerDefinitionProvider === 'function' && typeof ctor === 'function';
}

export interface McpHost {
  /** The installed binary, or undefined when the install failed. */
  binary(): Promise<string | undefined>;
  /** Resolves with the server's socket once it listens; undefined when it does not within the wait. */
  socket(waitMs: number): Promise<string | undefined>;
  log(line: string): void;
}

/** The provider's id, as package.json declares it (contributes.mcpServerDefinitionProviders). */
export const mcpProviderId = 'admit.mcp';

/** registerMcpProvider publishes the servers where VS Code can; the returned emitter says when they change (folders, socket). */
export function registerMcpProvider(host: McpHost): { disposable: vscode.Disposable; changed: () => void } | undefined {
  if (!hasMcpProviderApi(vscode.version, vscode.lm, (vscode as { McpStdioServerDefinition?: unknown }).McpStdioServerDefinition)) {
    host.log(`VS Code ${vscode.version} does not publish MCP servers from extensions (1.101+): admit's MCP server is not offered here; add \`admit mcp serve\` to your MCP configuration by hand (docs/agents.md)`);
    return undefined;
  }
  const emitter = new vscode.EventEmitter<void>();
  const folders = () => (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => ({ name: f.name, path: f.uri.fsPath }));
  try {
    const d = vscode.lm.registerMcpServerDefinitionProvider(mcpProviderId, {
      onDidChangeMcpServerDefinitions: emitter.event,
      provideMcpServerDefinitions: async () => {
        const bin = await host.binary();
        if (!bin) return [];
        return mcpDefinitions(folders(), bin, undefined).map((m) => new vscode.McpStdioServerDefinition(m.label, m.command, m.args, m.env));
      },
      resolveMcpServerDefinition: async (server) => {
        const socket = await host.socket(30_000);
        if (!socket) {
          host.log(`not starting the MCP server ${server.label}: the admit server is not listening on a socket, so its asks could not reach the editor`);
          void vscode.window.showWarningMessage('admit: its MCP server starts once the admit server runs (see the status bar).');
          return undefined;
        }
        server.env = { ...server.env, ADMIT_SOCKET: socket };
        return server;
      },
    });
    return { disposable: vscode.Disposable.from(d, emitter), changed: () => emitter.fire() };
  } catch (e) {
    emitter.dispose();
    host.log(`the MCP server definition provider could not be registered: ${(e as Error).message}`);
    return undefined;
  }
}
