// The workspaces of one editor session, by folder, over the editor's open documents: what the core asks for a workspace's state.
import type { DocumentSource } from './documentSnapshot.js';
import { resolvePath } from './documentSnapshot.js';
import { Workspace } from './workspace.js';

/**
 * One editor connection's view of the disk, in the manner of a gopls session: the editor's open documents (the
 * overlays) and one `Workspace` per folder, made when first asked for and kept until the session closes. The core
 * (`assistant.ts`) owns it; an evaluation run makes its own over a scratch copy.
 */
export class Session {
  private readonly workspaces = new Map<string, Workspace>();

  /** `overlays`: the editor's open documents (none for a session nobody edits). */
  constructor(private readonly overlays?: DocumentSource) {}

  /** The workspace of a folder, made on first use. */
  workspace(root: string): Workspace {
    const key = resolvePath(root);
    let found = this.workspaces.get(key);
    if (!found) {
      found = new Workspace(key, this.overlays ? { overlays: this.overlays } : {});
      this.workspaces.set(key, found);
    }
    return found;
  }

  /** Every workspace made so far. */
  all(): Workspace[] {
    return [...this.workspaces.values()];
  }

  /** Saves what each workspace keeps between processes. */
  async close(): Promise<void> {
    await Promise.all(this.all().map((workspace) => workspace.close()));
  }
}
