// Audit-trail helpers for tests: run code as a request from a given user and
// address (as the guards note it), and read the events of an entity.
import { asc, eq } from "drizzle-orm";
import { auditEvents } from "~/db/schema";
import type { User } from "~/models/user.server";
import { audited, type AuditEntry } from "~/services/audit.server";
import { getDb } from "~/utils/db.server";
import { withRequestContext } from "~/utils/request-context.server";

/** Runs `work` inside a request made by `user` (none: a visitor) from `ip`. */
export function asRequester<T>(user: Pick<User, "id" | "username" | "role"> | null, ip: string, work: () => Promise<T>) {
  const requester = { ip, user: user ? { id: user.id, username: user.username, role: user.role } : undefined };
  return withRequestContext({ rendersDocument: false, toasts: [], forwardedProto: null, requester }, work);
}

/** Events recorded now, as `user` from `ip`, without a change of their own (the list's and export's data). */
export function recordTestEvents(user: Pick<User, "id" | "username" | "role"> | null, ip: string, entries: AuditEntry[]) {
  return asRequester(user, ip, () =>
    audited(async (audit) => {
      for (const entry of entries) audit(entry);
    }),
  );
}

/** The events about one entity, oldest first. */
export function auditEventsOf(entityId: string) {
  return getDb().select().from(auditEvents).where(eq(auditEvents.entityId, entityId)).orderBy(asc(auditEvents.id));
}
