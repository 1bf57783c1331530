// The few VS Code API shapes newer than the @types/vscode the extension builds with
// (~1.90: vsce refuses @types newer than engines.vscode, which must accept 1.100).
// Language-model tools are VS Code 1.95's; the MCP server definition provider is
// 1.101's (a proposed API in 1.100, which refuses it). Every use is guarded at run
// time (lmTools.ts, mcpProvider.ts): on an older VS Code these are undefined.
import 'vscode';

declare module 'vscode' {
  /** A text part of a tool result (1.95). */
  export class LanguageModelTextPart {
    value: string;
    constructor(value: string);
  }

  /** What a tool returns to the model (1.95). */
  export class LanguageModelToolResult {
    content: Array<LanguageModelTextPart | unknown>;
    constructor(content: Array<LanguageModelTextPart | unknown>);
  }

  /** Opaque: the chat request a tool call belongs to; undefined outside a chat. */
  export type ChatParticipantToolToken = never;

  export interface LanguageModelToolInvocationOptions<T> {
    toolInvocationToken: ChatParticipantToolToken | undefined;
    input: T;
  }

  export interface LanguageModelToolInvocationPrepareOptions<T> {
    input: T;
  }

  export interface LanguageModelToolConfirmationMessages {
    title: string;
    message: string | MarkdownString;
  }

  export interface PreparedToolInvocation {
    invocationMessage?: string | MarkdownString;
    confirmationMessages?: LanguageModelToolConfirmationMessages;
  }

  export interface LanguageModelTool<T> {
    invoke(options: LanguageModelToolInvocationOptions<T>, token: CancellationToken): ProviderResult<LanguageModelToolResult>;
    prepareInvocation?(options: LanguageModelToolInvocationPrepareOptions<T>, token: CancellationToken): ProviderResult<PreparedToolInvocation>;
  }

  export interface LanguageModelToolInformation {
    readonly name: string;
    readonly description: string;
    readonly inputSchema: object | undefined;
    readonly tags: readonly string[];
  }

  /** An MCP server VS Code starts as a process (1.101). */
  export class McpStdioServerDefinition {
    label: string;
    command: string;
    args: string[];
    env: Record<string, string | number | null>;
    version?: string;
    cwd?: Uri;
    constructor(label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string);
  }

  export interface McpServerDefinitionProvider<T extends McpStdioServerDefinition = McpStdioServerDefinition> {
    readonly onDidChangeMcpServerDefinitions?: Event<void>;
    provideMcpServerDefinitions(token: CancellationToken): ProviderResult<T[]>;
    /** Called when VS Code is about to start the server; undefined: do not start it. */
    resolveMcpServerDefinition?(server: T, token: CancellationToken): ProviderResult<T>;
  }

  export namespace lm {
    /** The tools every extension registered (1.95). */
    export const tools: readonly LanguageModelToolInformation[];
    export function registerTool<T>(name: string, tool: LanguageModelTool<T>): Disposable;
    export function invokeTool(name: string, options: LanguageModelToolInvocationOptions<object>, token?: CancellationToken): Thenable<LanguageModelToolResult>;
    export function registerMcpServerDefinitionProvider(id: string, provider: McpServerDefinitionProvider): Disposable;
  }
}
