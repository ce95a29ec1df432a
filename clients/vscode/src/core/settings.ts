// What the extension sends the server as settings: the `assistant` section as VS Code holds it, less what VS Code cannot leave unset.
import { SETTINGS_SECTION } from './protocol.js';

/** The section, for `workspace.getConfiguration` and `synchronize.configurationSection`. */
export const SECTION = SETTINGS_SECTION;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The `assistant` section as the server should see it: without an empty `user.name` (a VS Code setting always has a
 * value, and "" would be recorded as the user, where the server's default is the OS user).
 * Accepts a plain object or VS Code's `WorkspaceConfiguration`; returns a fresh object.
 */
export function settingsForServer(section: unknown): Json {
  // A JSON round trip drops the methods VS Code's configuration object carries and copies the rest.
  const raw: unknown = section === undefined ? undefined : JSON.parse(JSON.stringify(section));
  if (!isObject(raw)) return {};
  if (isObject(raw.user) && (raw.user.name === '' || raw.user.name === null)) {
    const { name: _name, ...user } = raw.user;
    raw.user = user;
  }
  return raw;
}
