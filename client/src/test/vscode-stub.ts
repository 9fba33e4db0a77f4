// What the unit tests need of `vscode`: the names modules under test import (they touch them only
// inside functions the tests do not call), so that the bundle links.
export const workspace = {};
export const window = {};
export const commands = {};
export const languages = {};
export const StatusBarAlignment = {};
export const LanguageStatusSeverity = {};
export const LogLevel = {};
export class EventEmitter {}
// Set by the tests that call into them (install.test.ts: the Python extension, the settings, the notifications).
export const extensions = {};
export const ProgressLocation = {};
