// The access groups' timetables (group → door → timetable), kept in memory
// so that no swipe waits for a query of them: loaded at start, and again
// whenever a change notification names groups (or everything) and on the
// door publisher's periodic sweep. The holder's group ids come with the
// card's facts, read in the decision's one statement.
import { readAccessGroupIndex, type AccessGroupIndex } from "~/models/access-group.server";

export class AccessGroupsState {
  private index: Promise<AccessGroupIndex> | null = null;
  private loaded: AccessGroupIndex = new Map();

  /** The index; the first call (and any after a failed load) reads it. */
  current(): Promise<AccessGroupIndex> {
    this.index ??= this.read();
    return this.index;
  }

  /** The index as last loaded (empty before the first load). */
  snapshot(): AccessGroupIndex {
    return this.loaded;
  }

  /** Reads the index again; resolves with the one replaced and the new one. */
  async reload(): Promise<{ before: AccessGroupIndex; after: AccessGroupIndex }> {
    const before = this.loaded;
    const next = this.read();
    this.index = next;
    return { before, after: await next };
  }

  private read(): Promise<AccessGroupIndex> {
    const reading = readAccessGroupIndex().then((index) => {
      this.loaded = index;
      return index;
    });
    reading.catch(() => {
      if (this.index === reading) this.index = null;
    });
    return reading;
  }
}

/** Door row ids of these groups in an index. */
export function doorIdsOfGroups(index: AccessGroupIndex, groupIds: string[]) {
  return groupIds.flatMap((groupId) => [...(index.get(groupId)?.keys() ?? [])]);
}
