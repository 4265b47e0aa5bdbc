/** The `hf-cache-lint: Fix All` command: applies the server's `source.fixAll.hf-cache-lint` action. */
import * as vscode from 'vscode';
import { logInfo } from './logging';

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
