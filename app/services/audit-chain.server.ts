// The audit chain's verification (docs/audit.md, "What the verification
// finds"), over any source of events: the app's database (audit.server.ts,
// `npm run audit:verify`, GET /api/audit/verify) or an archive's before a
// restore (backup-restore.server.ts).
import { GENESIS_HASH, auditEventHash, unkeyedAuditEventHash, type AuditEvent } from "~/models/audit-event.server";

/** Where events come from: the newest one of an action, and all of them oldest first, in batches. */
export type AuditChainSource = {
  lastOfAction(action: string): Promise<AuditEvent | undefined>;
  walk(): AsyncIterable<AuditEvent[]>;
};

/**
 * Why the chain failed, at `firstBadId`:
 * - `anchor`: the oldest event is not the one the genesis or the latest purge names;
 * - `gap`: an id is not the previous one + 1 (an event deleted, or ids renumbered);
 * - `link`: its previous hash is not the hash of the event before it (reordered, deleted, inserted);
 * - `hash`: its hash is not the keyed hash of its content (edited, inserted, re-chained);
 * - `unkeyed`: the newest event is not signed with the key (the keyed tail removed, or the key changed);
 * - `truncated`: the published head is past the newest event (events removed from the newest end);
 * - `head`: the event at the published head's id is not the one published.
 */
export type AuditChainProblem = "anchor" | "gap" | "link" | "hash" | "unkeyed" | "truncated" | "head";

export type AuditChainCheck = {
  ok: boolean;
  checked: number;
  firstBadId: number | null;
  problem: AuditChainProblem | null;
  /** The newest event, as a head to publish. */
  head: { id: number; hash: string } | null;
};

export const RESTORE_ACTION = "backup.restore";
/** Where the key starts signing: after an unkeyed trail (first start with a key) or a foreign archive's (`foreign`). */
export const KEY_ACTION = "audit.key";

function parsed(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const signed = (event: AuditEvent, key: Buffer) => {
  const { hash, ...content } = event;
  return auditEventHash(content, key) === hash;
};

/**
 * Walks the chain from its oldest event. Each event must follow the one
 * before it (id + 1, previous hash = its hash; the oldest: the genesis or the
 * anchor the latest purge recorded) and carry the keyed hash of its content.
 * Events written before the trail had a key may carry the plain SHA-256 one,
 * and only before the first keyed event; the keyed event after them signs
 * the last one's hash, so they cannot be edited either. Before the latest
 * `audit.key` event with `foreign` (signed; a `--foreign` restore writes it)
 * only the ids and links are checked: they were signed with another
 * installation's key. The newest event must be keyed, and the
 * database must hold the published head.
 */
export async function checkAuditChain(
  source: AuditChainSource,
  {
    key,
    published,
    linksOnly = false,
  }: {
    key: Buffer;
    published: { id: number; hash: string } | null;
    /** Only ids and links (an archive of another installation, before a `--foreign` restore). */
    linksOnly?: boolean;
  },
): Promise<AuditChainCheck> {
  const purge = await source.lastOfAction("audit.purge");
  const purgeAfter = purge ? parsed(purge.after) : null;
  const anchor = purgeAfter
    ? { id: Number(purgeAfter.firstKeptId), prevHash: String(purgeAfter.firstKeptPrevHash) }
    : { id: null, prevHash: GENESIS_HASH };
  const keyAnchor = await source.lastOfAction(KEY_ACTION);
  const foreignFrom = keyAnchor && parsed(keyAnchor.after)?.foreign === true && signed(keyAnchor, key) ? keyAnchor.id : null;

  let checked = 0;
  let previous: AuditEvent | null = null;
  let keyed = false;
  let atPublished: string | null = null;
  const bad = (event: { id: number }, problem: AuditChainProblem): AuditChainCheck => ({ ok: false, checked, firstBadId: event.id, problem, head: null });
  for await (const batch of source.walk()) {
    for (const event of batch) {
      checked += 1;
      if (previous === null) {
        if ((anchor.id !== null && anchor.id !== event.id) || event.prevHash !== anchor.prevHash) return bad(event, "anchor");
      } else {
        if (event.id !== previous.id + 1) return bad(event, "gap");
        if (event.prevHash !== previous.hash) return bad(event, "link");
      }
      if (linksOnly || (foreignFrom !== null && event.id < foreignFrom)) {
        // Another installation's key: links only.
      } else if (signed(event, key)) {
        keyed = true;
      } else {
        const { hash, ...content } = event;
        if (keyed || unkeyedAuditEventHash(content) !== hash) return bad(event, "hash");
      }
      if (published && event.id === published.id) atPublished = event.hash;
      previous = event;
    }
  }
  if (previous && !keyed && !linksOnly) return bad(previous, "unkeyed");
  if (published) {
    if (!previous || published.id > previous.id) return { ok: false, checked, firstBadId: (previous?.id ?? published.id - 1) + 1, problem: "truncated", head: null };
    if (atPublished !== null && atPublished !== published.hash) return bad({ id: published.id }, "head");
  }
  return { ok: true, checked, firstBadId: null, problem: null, head: previous && { id: previous.id, hash: previous.hash } };
}
