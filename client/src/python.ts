/**
 * Which Python to analyse and which to run the server with.
 *
 * Analysed: the `hfCacheLint.interpreter` setting when set (user-level only in an untrusted workspace),
 * else the Python extension's active environment when that extension is installed, else `python3` on PATH.
 * Runner: the analysed interpreter when it is Python >= 3.10 (the server's floor), else `python3` on PATH.
 * The Python extension is optional (no extensionDependencies): editors without a marketplace (code-server
 * installs offline) must still work.
 */
import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import { PythonExtension } from '@vscode/python-extension';
import { logInfo, logWarn } from './logging';
import { interpreterSetting } from './settings';

const PYTHON_EXTENSION_ID = 'ms-python.python';
const FALLBACK = process.platform === 'win32' ? 'python' : 'python3';
const MIN_SERVER_PYTHON = [3, 10];

export type InterpreterSource = 'setting' | 'python-extension' | 'PATH';

export interface Interpreters {
  /** Interpreter of the environment the server analyses (its transformers version, jedi inference). */
  analysed: string;
  source: InterpreterSource;
  /** Interpreter that runs the server itself, with the bundled libraries on PYTHONPATH. */
  runner: string;
  /** The runner's `major.minor`, or undefined when it could not be run. */
  runnerVersion: string | undefined;
}

async function pythonExtension(): Promise<PythonExtension | undefined> {
  if (!vscode.extensions.getExtension(PYTHON_EXTENSION_ID)) {
    return undefined;
  }
  try {
    return await PythonExtension.api();
  } catch (error) {
    logWarn(`Python extension present but its API is unavailable: ${String(error)}`);
    return undefined;
  }
}

async function fromPythonExtension(resource?: vscode.Uri): Promise<string | undefined> {
  const api = await pythonExtension();
  if (!api) {
    return undefined;
  }
  const active = api.environments.getActiveEnvironmentPath(resource);
  const resolved = await api.environments.resolveEnvironment(active);
  return resolved?.executable.uri?.fsPath;
}

/** `major.minor` of `python`, or undefined when it does not run. */
export function pythonVersion(python: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { timeout: 15000 }, (err, out) =>
      resolve(err ? undefined : out.trim()),
    );
  });
}

function atLeast(version: string | undefined, floor: number[]): boolean {
  if (!version) {
    return false;
  }
  const [major, minor] = version.split('.').map(Number);
  return major > floor[0] || (major === floor[0] && minor >= floor[1]);
}

export async function resolveInterpreters(resource?: vscode.Uri): Promise<Interpreters> {
  let analysed = interpreterSetting(resource);
  let source: InterpreterSource = 'setting';
  if (!analysed) {
    const fromExtension = await fromPythonExtension(resource);
    analysed = fromExtension ?? FALLBACK;
    source = fromExtension ? 'python-extension' : 'PATH';
  }
  let runner = analysed;
  let runnerVersion = await pythonVersion(analysed);
  if (!atLeast(runnerVersion, MIN_SERVER_PYTHON) && analysed !== FALLBACK) {
    logWarn(`${analysed} (Python ${runnerVersion ?? 'not runnable'}) cannot run the server; using ${FALLBACK}`);
    runner = FALLBACK;
    runnerVersion = await pythonVersion(FALLBACK);
  }
  logInfo(`Analysed interpreter: ${analysed} (from ${source}); server runs on ${runner} (Python ${runnerVersion ?? '?'})`);
  return { analysed, source, runner, runnerVersion };
}

/** Calls `listener` when the Python extension's active environment changes (no-op without that extension). */
export async function onDidChangeInterpreter(listener: () => void): Promise<vscode.Disposable> {
  const api = await pythonExtension();
  return api ? api.environments.onDidChangeActiveEnvironmentPath(() => listener()) : new vscode.Disposable(() => {});
}

/** The transformers version installed for `python` (read from its metadata; transformers is not imported). */
export function installedTransformers(python: string): Promise<string | undefined> {
  const script = [
    'import importlib.metadata as m',
    'try: print(m.version("transformers"))',
    'except m.PackageNotFoundError: pass',
  ].join('\n');
  return new Promise((resolve) => {
    execFile(python, ['-c', script], { timeout: 15000 }, (err, out) => resolve(err ? undefined : out.trim() || undefined));
  });
}
