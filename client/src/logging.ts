/** The extension's log output channel (a LogOutputChannel: vscode-languageclient 11 requires one). */
import * as vscode from 'vscode';

let channel: vscode.LogOutputChannel | undefined;

export function createLogChannel(name: string): vscode.LogOutputChannel {
  // `{ log: true }` makes a LogOutputChannel; a plain OutputChannel makes languageclient 11 fail at start
  // (`outputChannel.error is not a function`).
  channel = vscode.window.createOutputChannel(name, { log: true });
  return channel;
}

export function logInfo(message: string): void {
  channel?.info(message);
}

export function logWarn(message: string): void {
  channel?.warn(message);
}

export function logError(message: string, error?: unknown): void {
  const detail = error instanceof Error ? `: ${error.stack ?? error.message}` : error ? `: ${String(error)}` : '';
  channel?.error(`${message}${detail}`);
}

export function showLogs(): void {
  channel?.show(true);
}
