// Test-only probe: exercises hf-cache-lint through the public VS Code API and writes JSON for pytest.
// No blind sleeps: every wait is "until a condition holds", bounded by a deadline.
'use strict';
const fs = require('fs');
const vscode = require('vscode');

const RESULT = process.env.HFC_PROBE_RESULT;
const TIMEOUT_MS = Number(process.env.HFC_PROBE_TIMEOUT_MS || 120000);
const OURS = 'hf-cache-lint.hf-cache-lint';
const result = { steps: [], done: false };

function save() {
  if (RESULT) {
    fs.writeFileSync(`${RESULT}.tmp`, JSON.stringify(result, null, 2));
    fs.renameSync(`${RESULT}.tmp`, RESULT);
  }
}

function step(name) {
  result.steps.push(name);
  save();
}

/** Resolves with predicate()'s value once truthy; re-checks on every diagnostics change and every 250 ms. */
function waitFor(label, predicate, timeout = TIMEOUT_MS) {
  return new Promise((resolve, reject) => {
    const finish = (fn, value) => {
      clearTimeout(deadline);
      clearInterval(tick);
      sub.dispose();
      fn(value);
    };
    const check = () => {
      try {
        const value = predicate();
        if (value) finish(resolve, value);
      } catch (error) {
        finish(reject, error);
      }
    };
    const sub = vscode.languages.onDidChangeDiagnostics(check);
    const tick = setInterval(check, 250);
    const deadline = setTimeout(() => finish(reject, new Error(`timed out waiting for ${label}`)), timeout);
    check();
  });
}

const ours = (uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'hf-cache-lint');

function plain(d) {
  const code = typeof d.code === 'object' ? d.code.value : d.code;
  const href = typeof d.code === 'object' && d.code.target ? d.code.target.toString() : undefined;
  const r = d.range;
  return {
    message: d.message,
    code,
    href,
    source: d.source,
    severity: ['error', 'warning', 'information', 'hint'][d.severity],
    range: {
      start: { line: r.start.line, character: r.start.character },
      end: { line: r.end.line, character: r.end.character },
    },
  };
}

function hoverText(hovers) {
  return (hovers || [])
    .flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value)))
    .join('\n---\n');
}

async function copyOf(folder, from, to) {
  const text = fs.readFileSync(vscode.Uri.joinPath(folder, from).fsPath, 'utf8');
  const uri = vscode.Uri.joinPath(folder, to);
  fs.writeFileSync(uri.fsPath, text);
  return uri;
}

async function scenario() {
  const extension = vscode.extensions.getExtension(OURS);
  if (!extension) throw new Error(`${OURS} is not installed`);
  const api = await extension.activate();
  step('activated');
  const folder = vscode.workspace.workspaceFolders[0].uri;

  // 1. Diagnostic, hover and quick fixes on a copy of the conflicting script (conflict.py stays for screenshots).
  const target = await copyOf(folder, 'conflict.py', 'quickfix_target.py');
  const doc = await vscode.workspace.openTextDocument(target);
  await vscode.window.showTextDocument(doc);
  const [diagnostic] = await waitFor('a diagnostic on quickfix_target.py', () => {
    const found = ours(target);
    return found.length ? found : undefined;
  });
  result.diagnostics = ours(target).map(plain);
  result.statusText = api.statusText();
  result.serverState = api.state();
  // The language status items follow this file's findings (one error here).
  result.status = await waitFor('the language status to count the error', () => {
    const s = api.status();
    return s.problems.text.includes('1 error') ? s : undefined;
  });
  step('diagnostic');

  const hovers = await vscode.commands.executeCommand('vscode.executeHoverProvider', target, diagnostic.range.start);
  result.hover = hoverText(hovers);
  step('hover');

  // Completion of the cache_implementation value (inside "static"): the server answers with the valid names.
  const quote = doc.getText().split('\n')[3].indexOf('"static"');
  const completions = await vscode.commands.executeCommand(
    'vscode.executeCompletionItemProvider', target, new vscode.Position(3, quote + 1));
  result.completionLabels = ((completions && completions.items) || []).map((i) =>
    typeof i.label === 'string' ? i.label : i.label.label);
  step('completion');

  const actions =
    (await vscode.commands.executeCommand('vscode.executeCodeActionProvider', target, diagnostic.range, undefined, 10)) ||
    [];
  result.actions = actions.map((a) => ({ title: a.title, kind: a.kind && a.kind.value, isPreferred: !!a.isPreferred }));
  step('code actions');

  const preferred = actions.find((a) => a.isPreferred && a.kind && a.kind.value === 'quickfix');
  if (!preferred || !preferred.edit) throw new Error('no preferred quick fix with an edit');
  result.appliedTitle = preferred.title;
  result.applied = await vscode.workspace.applyEdit(preferred.edit);
  result.textAfterFix = doc.getText();
  await waitFor('the diagnostic to clear after the quick fix', () => ours(target).length === 0);
  result.clearedAfterFix = true;
  step('quick fix');

  // 2. Fix All (the command runs source.fixAll.hf-cache-lint) on another copy.
  const fixAllUri = await copyOf(folder, 'conflict.py', 'fixall_target.py');
  const fixAllDoc = await vscode.workspace.openTextDocument(fixAllUri);
  await vscode.window.showTextDocument(fixAllDoc);
  await waitFor('a diagnostic on fixall_target.py', () => ours(fixAllUri).length > 0);
  result.fixAllApplied = await vscode.commands.executeCommand('hfCacheLint.fixAll', fixAllUri);
  result.textAfterFixAll = fixAllDoc.getText();
  await waitFor('the diagnostic to clear after Fix All', () => ours(fixAllUri).length === 0);
  result.clearedAfterFixAll = true;
  step('fix all');

  // 2b. Fix on save: the README's `editor.codeActionsOnSave` block (HFC_ONSAVE_SETTINGS, read from the README by
  // the test) set in the user settings, an edit, an explicit save: the saved file is the fixed one.
  const onSaveUri = await copyOf(folder, 'conflict.py', 'onsave_target.py');
  const onSaveDoc = await vscode.workspace.openTextDocument(onSaveUri);
  await vscode.window.showTextDocument(onSaveDoc);
  await waitFor('a diagnostic on onsave_target.py', () => ours(onSaveUri).length > 0);
  const onSave = JSON.parse(process.env.HFC_ONSAVE_SETTINGS || '{}');
  const root = vscode.workspace.getConfiguration();
  for (const [key, value] of Object.entries(onSave)) await root.update(key, value, vscode.ConfigurationTarget.Global);
  const edit = new vscode.WorkspaceEdit();
  edit.insert(onSaveUri, new vscode.Position(0, 0), '# saved with fix on save\n');
  await vscode.workspace.applyEdit(edit);
  await vscode.commands.executeCommand('workbench.action.files.save');
  await waitFor('onsave_target.py to be saved', () => !onSaveDoc.isDirty);
  result.textAfterSave = fs.readFileSync(onSaveUri.fsPath, 'utf8');
  await waitFor('the diagnostic to clear after the save', () => ours(onSaveUri).length === 0);
  result.clearedAfterSave = true;
  for (const key of Object.keys(onSave)) await root.update(key, undefined, vscode.ConfigurationTarget.Global);
  step('fix on save');

  // The copies were only for the edits: save, close and delete them (no dialogs, a tidy explorer for screenshots).
  await vscode.commands.executeCommand('workbench.action.files.saveAll');
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  for (const uri of [target, fixAllUri, onSaveUri]) await vscode.workspace.fs.delete(uri);

  // 3. Notebook: the conflict spans two cells; the diagnostic lands on the cell with the call.
  const notebook = await vscode.workspace.openNotebookDocument(vscode.Uri.joinPath(folder, 'demo.ipynb'));
  await vscode.window.showNotebookDocument(notebook);
  const cells = notebook.getCells();
  result.notebookCells = cells.map((c) => ({ kind: c.kind, language: c.document.languageId, scheme: c.document.uri.scheme }));
  const cellWithDiagnostic = await waitFor('a diagnostic in a notebook cell', () =>
    cells.find((c) => ours(c.document.uri).length > 0),
  );
  result.notebookDiagnostics = cells.map((c) => ours(c.document.uri).map(plain));
  result.notebookCellIndex = cellWithDiagnostic.index;
  step('notebook');

  // 4. The clean script: the server has analysed it once it answers a code-action request for it (the
  // same analysis the diagnostics come from); then nothing may appear within a short bounded window.
  const clean = vscode.Uri.joinPath(folder, 'clean.py');
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(clean));
  const cleanActions =
    (await vscode.commands.executeCommand('vscode.executeCodeActionProvider', clean, new vscode.Range(0, 0, 4, 0))) || [];
  result.cleanQuickFixes = cleanActions.filter((a) => a.kind && a.kind.value === 'quickfix').length;
  const appeared = await waitFor('a diagnostic on clean.py', () => ours(clean).length > 0, 3000).catch(() => false);
  result.cleanDiagnostics = appeared ? ours(clean).map(plain) : [];
  result.statusClean = await waitFor('the language status to say no problems', () => {
    const s = api.status();
    return s.problems.text.includes('no problems') ? s : undefined;
  });
  step('clean');

  // 5. A settings change restarts the server with the new settings: the message names the new target version.
  const conflict = vscode.Uri.joinPath(folder, 'conflict.py');
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(conflict));
  const message = () => (ours(conflict).find((d) => plain(d).code === 'HFC001') || {}).message || '';
  const settings = vscode.workspace.getConfiguration('hfCacheLint');
  const before = settings.get('transformersVersion');
  await waitFor('the HFC001 diagnostic on conflict.py', () => message().includes(`transformers ${before}`));
  await settings.update('transformersVersion', '4.57.0', vscode.ConfigurationTarget.Global);
  await waitFor('a message for transformers 4.57.0 after the settings change', () => message().includes('transformers 4.57.0'));
  result.messageAfterSettingsChange = message();
  result.statusAfterSettingsChange = await waitFor('the status bar to show 4.57.0', () =>
    api.statusText().includes('4.57.0') ? api.statusText() : undefined,
  );
  await settings.update('transformersVersion', before, vscode.ConfigurationTarget.Global);
  await waitFor('the message for the restored version', () => message().includes(`transformers ${before}`));
  step('settings change');

  // 6. Leave conflict.py open with its squiggle for the browser's screenshots.
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(conflict), { preview: false });
  await vscode.commands.executeCommand('workbench.action.files.saveAll');
  await vscode.commands.executeCommand('workbench.action.closeOtherEditors');
  await waitFor('a diagnostic on conflict.py', () => ours(conflict).length > 0);
  result.statusTextEnd = api.statusText();
  result.statusEnd = api.status();
  result.done = true;
  step('ready for screenshots');
}

// HFC_PROBE_MODE=untrusted: the folder is open in restricted mode. Lint still works, the status says the
// server runs no interpreter, and nothing the workspace names (.vscode/settings.json, pyproject.toml) ran.
async function untrustedScenario() {
  const extension = vscode.extensions.getExtension(OURS);
  if (!extension) throw new Error(`${OURS} is not installed`);
  const api = await extension.activate();
  step('activated');
  result.isTrusted = vscode.workspace.isTrusted;
  const folder = vscode.workspace.workspaceFolders[0].uri;
  const conflict = vscode.Uri.joinPath(folder, 'conflict.py');
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(conflict));
  await waitFor('a diagnostic on conflict.py', () => ours(conflict).length > 0);
  result.diagnostics = ours(conflict).map(plain);
  result.statusText = await waitFor('the status bar to say restricted', () =>
    api.statusText().includes('(restricted)') ? api.statusText() : undefined,
  );
  result.serverState = api.state();
  // The server's notes on the settings (window/showMessage: the pyproject `interpreter` is ignored) are
  // notifications; open the notification centre so the browser can read them all (toasts hide after a while).
  await vscode.commands.executeCommand('notifications.showList');
  result.showNotifications = true;
  result.done = true;
  step('untrusted');
}

// HFC_PROBE_MODE=upgrade: the command `hfCacheLint.upgradeCheck` on upgrade.py, linted for 4.57.6 (the setting),
// asked about 5.24.0: what it returns, next to the diagnostics the editor shows for the current target.
async function upgradeScenario() {
  const extension = vscode.extensions.getExtension(OURS);
  if (!extension) throw new Error(`${OURS} is not installed`);
  const api = await extension.activate();
  step('activated');
  const folder = vscode.workspace.workspaceFolders[0].uri;
  const file = vscode.Uri.joinPath(folder, 'upgrade.py');
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file));
  // The server has the document once it answers a code-action request for it (as in the clean step above).
  await vscode.commands.executeCommand('vscode.executeCodeActionProvider', file, new vscode.Range(0, 0, 5, 0));
  result.statusText = await waitFor('the status bar to show 4.57.6', () =>
    api.statusText().includes('4.57.6') ? api.statusText() : undefined,
  );
  result.diagnostics = ours(file).map(plain);
  step('opened');
  result.upgrade = await vscode.commands.executeCommand('hfCacheLint.upgradeCheck', '5.24.0');
  step('upgrade check');
  // An older version is refused by the server; the command shows the error and returns nothing.
  result.downgrade = (await vscode.commands.executeCommand('hfCacheLint.upgradeCheck', '4.46.0')) ?? null;
  result.done = true;
  step('done');
}

const SCENARIOS = { untrusted: untrustedScenario, upgrade: upgradeScenario };

function activate() {
  const run = SCENARIOS[process.env.HFC_PROBE_MODE] || scenario;
  run().catch((error) => {
    result.error = String((error && error.stack) || error);
    save();
  });
}

module.exports = { activate, deactivate() {} };
