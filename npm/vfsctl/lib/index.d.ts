import type { ChildProcessWithoutNullStreams } from "node:child_process";

export interface Options {
  /** The workspace root (the child's working folder too). */
  root?: string;
  /** The journal's session name; rewind goes back by its turns. */
  session?: string;
  /** The tool set: native, anthropic, codex, search-replace, all, or a comma-separated list. */
  tools?: string;
  /** refuse (default), warn or off. */
  guard?: string;
  /** file (default) or journal. */
  durability?: string;
}

export interface Reply {
  ok: boolean;
  /** The refusal's stable kind (text_not_found, file_exists, ...); null on success. */
  kind: string | null;
  /** What the model reads: the tool result's content. */
  text: string;
  /** The journal's number for the call; null when it has none. */
  txn: number | null;
  tool: string;
}

export interface CallOptions {
  /** The runtime's label of the conversation turn; vfsctl rewind goes back by it. */
  turn?: string | number;
  /** W3C trace context of the runtime's span for this call, which parents the call's span (an invalid one is ignored). */
  traceparent?: string;
  /** Its W3C tracestate, sent only with a traceparent. */
  tracestate?: string;
}

export interface Session {
  /** The journal's session name of every call: Options.session, or, when it is left out or empty, one made up by open() (node-...). */
  readonly session: string;
  call(tool: string, args: unknown, opts?: CallOptions): Promise<Reply>;
  close(): Promise<void>;
}

export function binaryPath(): string;
export function serveCommand(opts?: Options): { command: string; args: string[] };
export function spawnServe(opts?: Options): ChildProcessWithoutNullStreams;
export function open(opts?: Options): Session;
export function call(tool: string, args: unknown, opts?: Options & CallOptions): Promise<Reply>;
