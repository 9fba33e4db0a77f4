// What the unit tests need of `vscode`: nothing. Modules under test only touch it inside functions
// the tests do not call.
export const workspace = {};
export const window = {};
export const commands = {};
export const languages = {};
export const StatusBarAlignment = {};
