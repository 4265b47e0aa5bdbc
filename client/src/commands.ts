/** The commands: `Fix All` (the server's `source.fixAll.hf-cache-lint` action) and `What breaks if I upgrade`. */
import * as vscode from 'vscode';
import type { Controller } from './controller';
import { logInfo, showLogs } from './logging';

export const FIX_ALL_KIND = vscode.CodeActionKind.SourceFixAll.append('hf-cache-lint');

/** Applies the fix-all action to `uri` (default: the active editor's document); returns whether one applied. */
export async function fixAll(uri?: vscode.Uri): Promise<boolean> {
  const document = uri
    ? await vscode.workspace.openTextDocument(uri)
    : vscode.window.activeTextEditor?.document;
  if (!document) {
    void vscode.window.showInformationMessage('hf-cache-lint: open a Python file to fix.');
    return false;
  }
  const whole = new vscode.Range(0, 0, document.lineCount, 0);
  const actions =
    (await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      document.uri,
      whole,
      FIX_ALL_KIND.value,
      10,
    )) ?? [];
  const action = actions.find((a) => a.kind !== undefined && FIX_ALL_KIND.contains(a.kind));
  if (!action || (!action.edit && !action.command)) {
    logInfo(`Fix All: nothing to fix in ${document.uri.toString()}`);
    void vscode.window.setStatusBarMessage('hf-cache-lint: nothing to fix', 3000);
    return false;
  }
  if (action.edit && !(await vscode.workspace.applyEdit(action.edit))) {
    return false;
  }
  if (action.command) {
    await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
  }
  logInfo(`Fix All: applied "${action.title}" to ${document.uri.toString()}`);
  return true;
}

/** One finding the server's `hf-cache-lint.upgradeCheck` command reports (rows and columns 1-based). */
export interface UpgradeFinding {
  uri: string;
  code: string;
  severity: string;
  release: string;
  row: number;
  column: number;
  message: string;
}

/**
 * `hf-cache-lint: What breaks if I upgrade transformers...`: asks for a version (unless one is given, as a
 * keybinding's `args` or `executeCommand('hfCacheLint.upgradeCheck', '5.24.0')` pass it), lists the new findings
 * in the log and returns them.
 */
export async function upgradeCheck(ctl: Controller, given?: unknown): Promise<UpgradeFinding[] | undefined> {
  const document = vscode.window.activeTextEditor?.document;
  if (!document) {
    void vscode.window.showInformationMessage('hf-cache-lint: open a Python file to check.');
    return undefined;
  }
  const version =
    typeof given === 'string'
      ? given
      : await vscode.window.showInputBox({
          prompt: 'transformers version to upgrade to',
          value: '5.24.0',
          validateInput: (v) => (/^\d+\.\d+(\.\d+)?$/.test(v.trim()) ? undefined : 'a version such as 5.24.0'),
        });
  if (!version) {
    return undefined;
  }
  let found: UpgradeFinding[] | undefined;
  try {
    found = await ctl.executeServerCommand<UpgradeFinding[]>('hf-cache-lint.upgradeCheck', [
      document.uri.toString(),
      version.trim(),
    ]);
  } catch (error) {
    void vscode.window.showErrorMessage(`hf-cache-lint: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
  if (found === undefined) {
    void vscode.window.showWarningMessage('hf-cache-lint: the server is not running.');
    return undefined;
  }
  logInfo(`What breaks on transformers ${version} in ${document.uri.fsPath}: ${found.length} finding(s)`);
  for (const f of found) {
    logInfo(`  ${vscode.Uri.parse(f.uri).fsPath}:${f.row}:${f.column}: ${f.code} (${f.severity}) ${f.message}`);
  }
  // Not awaited: the command's result must not wait until the user dismisses the notification.
  void vscode.window
    .showInformationMessage(
      `hf-cache-lint: ${found.length} new finding(s) on transformers ${version}.`,
      ...(found.length ? ['Show'] : []),
    )
    .then((choice) => {
      if (choice === 'Show') {
        showLogs();
      }
    });
  return found;
}
