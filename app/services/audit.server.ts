// The audit trail (docs/audit.md): every change a person or the app makes
// through the services leaves one event, written in the change's own
// transaction (`audited`), with the actor the guards noted on the request,
// its secrets hidden (`redactSecrets`). Also: the admin's list and CSV
// export, the chain's verification and the retention purge.
import { AsyncLocalStorage } from "node:async_hooks";
import { setImmediate } from "node:timers/promises";
import { Gauge } from "prom-client";
import * as auditModel from "~/models/audit-event.server";
import { checkAuditChain, type AuditChainCheck } from "./audit-chain.server";
import type { AuditEvent, AuditCriteria } from "~/models/audit-event.server";
import {
  AUDIT_ACTION_LABELS,
  AUDIT_ENTITY_LABELS,
  AUDIT_ROLE_LABELS,
  type AuditAction,
  type AuditEntityType,
  type AuditFilters,
  type AuditRole,
} from "~/schemas/audit";
import { csvLine } from "~/utils/csv";
import { printableText } from "~/utils/log-value";
import { endOfMadridDay, formatDate, madridDateTimeFormatter, monthsBefore, startOfMadridDay, todayInMadrid } from "~/utils/dates";
import { inWriteTransaction, totalChanges } from "~/utils/db.server";
import type { Download } from "~/utils/download.server";
import { getEnv } from "~/utils/env.server";
import { auditChainKey, publishHead, readPublishedHead } from "~/utils/keys.server";
import { metricsRegistry } from "~/utils/metrics.server";
import { currentRequestContext } from "~/utils/request-context.server";
import { pageWindow } from "~/utils/paging";

export type AuditActor = { id: string | null; username: string; role: AuditRole };

/** The access service, scheduled jobs and anything run outside a request. */
export const SYSTEM_ACTOR: AuditActor = { id: null, username: "sistema", role: "sistema" };

/** A guest acting on their reservation through the public pages: known by its code. */
export function guestActor(reservationCode: string): AuditActor {
  return { id: null, username: reservationCode, role: "huesped" };
}

/** Someone without a session: a sign-in refused (the username typed), a visitor's form ("visitante"). */
export function anonymousActor(username: string): AuditActor {
  return { id: null, username: username.slice(0, 50) || "visitante", role: "anonimo" };
}

/** A field's value as an event keeps it: JSON, with Dates as ISO text. */
export type AuditValue = string | number | boolean | null | Date | undefined | AuditValue[] | { [key: string]: AuditValue };
export type AuditFields = Record<string, AuditValue>;

export type AuditEntry = {
  action: AuditAction;
  entityType: AuditEntityType;
  entityId: string | null;
  /** What was done, as it reads after the actor's username: "revocó el acceso de la tarjeta 0A1B2C3D a Gimnasio". */
  summary: string;
  /** The fields the change touched, as they were and as they are (secrets are hidden when stored). */
  before?: AuditFields | null;
  after?: AuditFields | null;
  /** Who did it, when it is not the request's user (a guest, someone signing in). */
  actor?: AuditActor;
};

/** Records an event of the change being made; it is stored when the change commits, and only then. */
export type Audit = (entry: AuditEntry) => void;

// ---- Secrets ----

export const HIDDEN = "[oculto]";
/**
 * Words of a key (camelCase, snake_case or kebab-case) that make its value a
 * secret. A stored secret's hash is named after its secret (passwordHash,
 * bridgeSecretHash, tokenHash); a hash of anything else (the chain's own) is not one.
 */
const SECRET_WORDS = new Set(["password", "passwords", "secret", "secrets", "token", "tokens", "pin", "pins", "credential", "credentials"]);

function isSecretKey(key: string) {
  return key
    .split(/[_\-\s]+|(?<=[a-z0-9])(?=[A-Z])/)
    .some((word) => SECRET_WORDS.has(word.toLowerCase()));
}

/**
 * The value with every secret shown as `[oculto]`: any key naming a
 * password, secret, token, PIN or credential (passwordHash,
 * bridge_secret_hash, apiToken, pin…), at any depth. Dates become ISO text and
 * undefined fields go. The one gate between a change and its event.
 */
export function redactSecrets(value: AuditValue): unknown {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item) ?? null);
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const field = value[key];
    if (field === undefined) continue;
    result[key] = isSecretKey(key) && field !== null ? HIDDEN : redactSecrets(field);
  }
  return result;
}

function storedJson(fields: AuditFields | null | undefined) {
  if (!fields) return null;
  return JSON.stringify(redactSecrets(fields), (_key, value: unknown) => (typeof value === "string" ? printableText(value, { multiline: true }) : value));
}

// ---- Recording ----

/** An entry as the table stores it: the summary after the actor's username, before and after as redacted JSON. */
export function storedEvent(entry: AuditEntry, actor: AuditActor, ip: string | null, at = Date.now()): auditModel.NewAuditEvent {
  return {
    at,
    actorId: actor.id,
    actorUsername: printableText(actor.username),
    actorRole: actor.role,
    ip: ip === null ? null : printableText(ip),
    action: entry.action,
    entityType: entry.entityType,
    entityId: entry.entityId === null ? null : printableText(entry.entityId),
    summary: printableText(`${actor.username} ${entry.summary}`),
    before: storedJson(entry.before),
    after: storedJson(entry.after),
  };
}

type Unit = { entries: Array<AuditEntry & { at: number }> };
const units = new AsyncLocalStorage<Unit>();

/** The actor and address of the request being served (noted by the guards), or the system outside one. */
function requester(): { actor: AuditActor; ip: string | null } {
  const noted = currentRequestContext()?.requester;
  const user = noted?.user;
  return {
    actor: user ? { id: user.id, username: user.username, role: user.role === "admin" ? "admin" : "user" } : SYSTEM_ACTOR,
    ip: noted?.ip ?? null,
  };
}

/**
 * Runs a change and records its events in one write transaction
 * (inWriteTransaction): the change is never kept without its events, nor an
 * event without its change. `work` calls `audit(entry)` for what it changed;
 * the events are appended to the chain just before the commit. A change that
 * writes rows but records no event is a bug: it is rolled back and throws.
 * Nested calls join the outer change. Notifications to the access service,
 * mail and anything slow go after it returns.
 */
export function audited<T>(work: (audit: Audit) => Promise<T>, options: { actor?: AuditActor; ip?: string | null } = {}): Promise<T> {
  const outer = units.getStore();
  const record = (unit: Unit): Audit => (entry) => unit.entries.push({ ...entry, actor: entry.actor ?? options.actor, at: Date.now() });
  if (outer) return work(record(outer));
  let appended: Array<{ id: number; hash: string }> = [];
  return inWriteTransaction(async () => {
    const unit: Unit = { entries: [] };
    const changesBefore = await totalChanges();
    const result = await units.run(unit, () => work(record(unit)));
    if (unit.entries.length === 0) {
      const changed = (await totalChanges()) - changesBefore;
      if (changed > 0) throw new Error(`audited: the change wrote ${changed} rows but recorded no audit event`);
      return result;
    }
    const { actor: requestActor, ip: requestIp } = requester();
    appended = await auditModel.appendAuditEvents(
      unit.entries.map((entry) => storedEvent(entry, entry.actor ?? requestActor, options.ip !== undefined ? options.ip : requestIp, entry.at)),
    );
    return result;
  }).then(async (result) => {
    const head = appended.at(-1);
    if (head) await publishAuditHead(head);
    return result;
  });
}

/**
 * Writes the chain's new head beside the key (KEYS_DIR/audit-head.json)
 * after a commit, where the database cannot change it; the verification
 * compares the database with it. A failure is logged: the change is kept.
 */
async function publishAuditHead(head: { id: number; hash: string }) {
  try {
    await publishHead(head);
  } catch (error) {
    console.error(`[audit] could not publish the chain's head (event ${head.id}): ${(error as Error).message}`);
  }
}

/** Who is acting now (the request's user, or the system): kept by a download to record it once it is over. */
export function currentRequester(): { actor: AuditActor; ip: string | null } {
  return requester();
}

/**
 * The fields that differ between two shapes of an entity, each as it was and
 * as it is (for an entry's before and after). Dates compare by instant.
 */
export function changedFields<K extends string>(before: Partial<Record<K, AuditValue>>, after: Partial<Record<K, AuditValue>>, keys: readonly K[]) {
  const was: AuditFields = {};
  const is: AuditFields = {};
  const comparable = (value: AuditValue) => (value instanceof Date ? value.getTime() : JSON.stringify(value ?? null));
  for (const key of keys) {
    if (comparable(before[key]) === comparable(after[key])) continue;
    was[key] = before[key] ?? null;
    is[key] = after[key] ?? null;
  }
  return { before: was, after: is, changed: Object.keys(is) };
}

// ---- Reading ----

function parseStored(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** An event as the API and the screen see it. */
export function toAuditEventJson(event: AuditEvent) {
  return {
    _id: event.id,
    at: new Date(event.at).toISOString(),
    actor: { id: event.actorId, username: event.actorUsername, role: event.actorRole },
    ip: event.ip,
    action: event.action,
    entityType: event.entityType,
    entityId: event.entityId,
    summary: event.summary,
    before: parseStored(event.before),
    after: parseStored(event.after),
  };
}
export type AuditEventJson = ReturnType<typeof toAuditEventJson>;

function toInstant(value: string, end: boolean) {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return (end ? endOfMadridDay(value) : startOfMadridDay(value)).getTime();
  return Date.parse(value);
}

function criteriaOf(filters: AuditFilters): AuditCriteria {
  return {
    actor: filters.actor,
    entityType: filters.entityType,
    action: filters.action,
    from: filters.from ? toInstant(filters.from, false) : undefined,
    to: filters.to ? toInstant(filters.to, true) : undefined,
    search: filters.search,
  };
}

/** One page, newest first. With `clamp` (the screen), a page past the last gives the last. */
export async function listAuditEventsPage(filters: AuditFilters, paging: { page: number; limit: number; clamp?: boolean }) {
  const criteria = criteriaOf(filters);
  const total = await auditModel.countAuditEvents(criteria);
  const window = pageWindow(total, paging);
  const rows = total > 0 ? await auditModel.listAuditEvents(criteria, window) : [];
  return { events: rows.map(toAuditEventJson), total, page: window.page, pages: window.pages, limit: window.limit };
}

/** One event (the details modal); null for an id that is not one. */
export async function getAuditEvent(id: string | null): Promise<AuditEventJson | null> {
  const number = Number(id);
  if (!id || !Number.isSafeInteger(number) || number < 1) return null;
  const event = await auditModel.getAuditEventById(number);
  return event ? toAuditEventJson(event) : null;
}

/** The filters as a query string (links and the export), without the empty ones. */
export function auditFiltersQuery(filters: AuditFilters) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value) params.set(key, String(value));
  return params.toString();
}

// ---- Exports ----

/** "1 evento", "12 eventos". */
export function countOf(n: number, one: string, many: string) {
  return `${n.toLocaleString("es-ES")} ${n === 1 ? one : many}`;
}

/** The filters an export was asked for, without the empty ones (its event's `after`). */
export function presentFilters(filters: Record<string, unknown>): AuditFields {
  const present: AuditFields = {};
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined || value === null || value === "") continue;
    present[key] = typeof value === "object" ? JSON.stringify(value) : (value as AuditValue);
  }
  return present;
}

/**
 * A download's chunks that leave one event in the trail when the download is
 * over: all of it sent (`complete`), or the client went away first, with
 * the rows sent until then (`count` them as they are produced). The actor
 * and address are the request's, taken now: the chunks are read later,
 * outside it.
 */
export function auditedExport(
  source: (counter: { rows: number }) => AsyncGenerator<string, void, undefined>,
  entry: (rows: number, complete: boolean) => AuditEntry,
): AsyncGenerator<string, void, undefined> {
  const who = requester();
  const counter = { rows: 0 };
  return (async function* () {
    let complete = false;
    try {
      yield* source(counter);
      complete = true;
    } finally {
      await audited(async (audit) => audit(entry(counter.rows, complete)), who).catch((error: unknown) =>
        console.error(`[audit] could not record an export: ${(error as Error).message}`),
      );
    }
  })();
}

export const AUDIT_CSV_HEADERS = ["Fecha", "Usuario", "Rol", "IP", "Acción", "Tipo", "ID", "Resumen", "Antes", "Después"];

function labelOf<T extends Record<string, string>>(labels: T, key: string) {
  return (labels as Record<string, string>)[key] ?? key;
}

/**
 * The filtered events as a CSV download, newest first: a keyset batch of
 * lines per chunk, each read once the client took the one before (UTF-8 BOM
 * first, so spreadsheets read the accents).
 */
export function auditCsv(filters: AuditFilters, now = new Date()): Download {
  const chunks = auditedExport(
    (counter) => auditCsvChunks(filters, counter),
    (rows, complete) => ({
      action: "audit.export",
      entityType: "audit",
      entityId: null,
      summary: `exportó ${countOf(rows, "evento", "eventos")} de auditoría en CSV${complete ? "" : " (descarga interrumpida)"}`,
      after: { format: "csv", rows, complete, filters: presentFilters(filters) },
    }),
  );
  return { filename: `auditoria-${todayInMadrid(now)}.csv`, contentType: "text/csv; charset=utf-8", chunks };
}

async function* auditCsvChunks(filters: AuditFilters, counter: { rows: number }): AsyncGenerator<string, void, undefined> {
  const formatInstant = madridDateTimeFormatter();
  yield `\uFEFF${csvLine(AUDIT_CSV_HEADERS)}`;
  for await (const batch of auditModel.streamAuditEvents(criteriaOf(filters))) {
    counter.rows += batch.length;
    yield batch
      .map((event) =>
        csvLine([
          formatInstant(event.at),
          event.actorUsername,
          labelOf(AUDIT_ROLE_LABELS, event.actorRole),
          event.ip ?? "",
          labelOf(AUDIT_ACTION_LABELS, event.action),
          labelOf(AUDIT_ENTITY_LABELS, event.entityType),
          event.entityId ?? "",
          event.summary,
          event.before ?? "",
          event.after ?? "",
        ]),
      )
      .join("");
    // libsql answers synchronously: let other requests in between batches.
    await setImmediate();
  }
}

// ---- The chain ----

export type AuditVerification = { ok: boolean; checked: number; firstBadId: number | null };

/** The app's database as a source of events for the verification. */
const databaseChain = { lastOfAction: auditModel.getLastAuditEventOfAction, walk: () => auditModel.walkAuditChain() };

/**
 * The whole check (audit-chain.server.ts) of the app's database against its
 * key and the published head; null when there is no key to check with
 * (audit:verify run where the app never ran, or without its KEYS_DIR).
 */
export async function checkAuditTrail(): Promise<AuditChainCheck | null> {
  const key = auditChainKey({ create: false });
  if (!key) return (await auditModel.getLastAuditEvent()) ? null : { ok: true, checked: 0, firstBadId: null, problem: null, head: null };
  return checkAuditChain(databaseChain, { key, published: readPublishedHead() });
}

/**
 * Walks the chain from its oldest event (audit-chain.server.ts): ids
 * consecutive, each event's previous hash the hash of the one before it (for
 * the oldest, the genesis or the anchor the latest purge recorded), each
 * hash the keyed hash of its content, the newest event keyed and the
 * published head still in the database. Stops at the first event that
 * fails: `checked` counts the events read up to there, `firstBadId` names
 * it. Without a key, nothing can be checked: it throws.
 */
export async function verifyAuditChain(): Promise<AuditVerification> {
  const check = await checkAuditTrail();
  if (!check) throw new Error("the audit trail has no key here (AUDIT_KEY or KEYS_DIR/audit-key): it cannot be verified");
  return { ok: check.ok, checked: check.checked, firstBadId: check.firstBadId };
}

/**
 * The first start with a key on a trail written without one (or a fresh
 * key after `--foreign`): one event `audit.key`, signed, whose previous hash
 * is the unkeyed head's. From it on every event is keyed; the events before
 * it are checked with plain SHA-256, and the keyed event pins the last one.
 * Nothing when the head is keyed already or the trail is empty.
 */
export async function anchorAuditKey() {
  return audited(
    async (audit) => {
      // Inside the write transaction: two processes starting together anchor once.
      const head = await auditModel.getLastAuditEvent();
      if (!head) return false;
      const { hash, ...content } = head;
      if (auditModel.auditEventHash(content) === hash || auditModel.unkeyedAuditEventHash(content) !== hash) return false;
      audit({
        action: "audit.key",
        entityType: "audit",
        entityId: null,
        summary: `empezó a firmar la auditoría con su clave tras el evento ${head.id}`,
        after: { unkeyedHeadId: head.id, unkeyedHeadHash: head.hash },
      });
      return true;
    },
    { actor: SYSTEM_ACTOR, ip: null },
  );
}

// The chain's head in GET /metrics (docs/metrics.md): a scraper keeps its
// history where the database cannot reach it, so a head that goes back (the
// newest events removed) or changes hash at an id shows there.
let headReading: Promise<AuditEvent | undefined> | null = null;
function readHeadForMetrics() {
  headReading ??= auditModel.getLastAuditEvent().finally(() => globalThis.setImmediate(() => (headReading = null)));
  return headReading;
}

new Gauge({
  name: "audit_chain_head_id",
  help: "The id of the audit trail's newest event (the chain's head); 0 when empty. It never goes down but by a restore.",
  registers: [metricsRegistry],
  async collect() {
    this.set((await readHeadForMetrics())?.id ?? 0);
  },
});

new Gauge({
  name: "audit_chain_head_info",
  help: "The audit trail's newest event: its id and hash (HMAC-SHA256) as labels, value 1.",
  labelNames: ["id", "hash"],
  registers: [metricsRegistry],
  async collect() {
    const head = await readHeadForMetrics();
    this.reset();
    if (head) this.set({ id: String(head.id), hash: head.hash }, 1);
  },
});

/**
 * Retention: deletes the events older than AUDIT_RETENTION_MONTHS from the
 * oldest end (never the newest), and records a purge event holding the id
 * and previous hash of the first event kept, which the verification starts
 * from. Idempotent; runs at start and then daily (first anchoring the key
 * on a trail written without one: anchorAuditKey).
 */
export async function purgeAuditTrail(now = new Date()) {
  await anchorAuditKey();
  const before = monthsBefore(now, getEnv().AUDIT_RETENTION_MONTHS);
  return audited(
    async (audit) => {
      const { deleted, firstKept } = await auditModel.deleteAuditEventsBefore(before);
      if (deleted === 0 || !firstKept) return { deleted: 0 };
      audit({
        action: "audit.purge",
        entityType: "audit",
        entityId: null,
        summary: `eliminó ${deleted === 1 ? "1 evento de auditoría anterior" : `${deleted} eventos de auditoría anteriores`} al ${formatDate(before)}`,
        after: { deleted, before, firstKeptId: firstKept.id, firstKeptPrevHash: firstKept.prevHash },
      });
      return { deleted };
    },
    { actor: SYSTEM_ACTOR, ip: null },
  );
}
