// Change publishing: what the app keeps retained on the broker for each door,
// its display (idle texts and status) and its offline credentials list.
// Republished on every connection of the service, for the doors named by a
// change notification (the display at once, the lists debounced; the
// notification arrives through the service's notifier, or on the broker's
// changes topic from a web process elsewhere), and by a periodic sweep that
// also deactivates expired cards. One task at a time, so
// list versions reach the broker in order.
import crypto from "node:crypto";
import { setImmediate } from "node:timers/promises";
import type { Door } from "~/db/schema";
import { listGroupCardsForDoor } from "~/models/access-group.server";
import { deactivateExpiredCards, listDoorIdsForCards, listDoorIdsForUsers, listEmergencyCards, listGrantedCardsForDoor } from "~/models/card.server";
import { listDoors, listDoorsByIds, nextCredentialsVersion } from "~/models/door.server";
import { listHolidayDaysFrom } from "~/models/holiday.server";
import { listIssuerRightsOnDoor, listKeysForDoor, listPassDoorIdsOfIssuers } from "~/models/door-key.server";
import { listBookingDoorIdsForCards, listBookingDoorIdsForUsers, listBookingWindowCardsForDoor } from "~/models/facility-booking.server";
import { sha256 } from "~/utils/crypto.server";
import {
  accessChangeSchema,
  changesTopic,
  doorTopic,
  type AccessChange,
  type CredentialKey,
  type CredentialsMessage,
  type DisplayMessage,
} from "~/doors/contract";
import { BOOKING_WINDOW_LEAD_MS, doorDisplayTexts, OFFLINE_WINDOW_HORIZON_MS } from "~/doors/rules";
import { buildingLocalDay, doorModeAt, unionOfSchedules, windowsWithinRights, type DoorMode, type WeeklySchedule } from "~/doors/schedule";
import { TIME_ZONE } from "~/utils/dates";
import { doorIdsOfGroups, type AccessGroupsState } from "./access-groups.server";
import type { AccessEventBus } from "./events.server";
import { parseJsonPayload, type AccessContext, type AccessModule, type ModuleSubscription } from "./module.server";

export type DoorPublisherOptions = {
  /** Offline lists are republished this long after the first of a burst of changes. */
  credentialsDebounceMs: number;
  /** Safety net: expiry sweep and republish of what changed, this often. */
  refreshIntervalMs: number;
  /** The access groups' timetables the decisions use: reloaded here when groups change. */
  groups: AccessGroupsState;
};

/** A door's timetable facts, kept from its last published display, so a grant costs no query. */
type TimetableFacts = { id: string; firstPersonIn: boolean; hasTimetable: boolean };

/** What was last published for a door (to skip unchanged republishes and clear deleted doors). */
type PublishedDoor = { doorCode: string; display: string | null; credentials: string | null };

export class DoorPublisher implements AccessModule {
  readonly subscriptions: ModuleSubscription[];
  private stopped = false;
  private tasks: Promise<void> = Promise.resolve();
  private readonly published = new Map<string, PublishedDoor>();
  private readonly credentialsDue = new Set<string>();
  private credentialsTimer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private modeTimer: NodeJS.Timeout | null = null;
  /** Each door's mode as last published, by door code. */
  private readonly modes = new Map<string, DoorMode["mode"]>();
  /** By door code: its timetable facts as last published. */
  private readonly timetables = new Map<string, TimetableFacts>();
  /** By door row id: the building's day of the door's first granted card (first-person-in). */
  private readonly firstInDays = new Map<string, string>();
  /** The building's holidays from today on, read with each round of displays. */
  private holidayDays: string[] = [];

  constructor(
    private readonly context: AccessContext,
    /** Hears grants (first-person-in doors) and expired cards; tells of each door's mode published changed (`doorModeChanged`). */
    private readonly events: AccessEventBus,
    private readonly options: DoorPublisherOptions,
  ) {
    events.on("granted", (doorCode, at) => this.noteGrant(doorCode, at));
    events.on("cardsDeactivated", (cardIds) => this.scheduleCredentialsOfCards(cardIds));
    // Change notifications come over the broker only from processes that reach
    // this service no other way: web processes on the same external broker
    // (notify.server.ts). The embedded broker lets nobody else publish there.
    this.subscriptions = context.broker ? [] : [{ filter: changesTopic(context.prefix), shared: true }];
  }

  start() {
    this.sweepTimer = setInterval(() => this.sweep(), this.options.refreshIntervalMs);
    this.sweepTimer.unref();
    this.scheduleModes();
  }

  /**
   * Doors on a timetable change mode at minute boundaries: each minute the
   * displays of the doors with a timetable are recomputed and republished
   * when their mode changed (the bridges apply the timetable by their own
   * clock anyway; this keeps the retained `mode` true for everyone else).
   */
  private scheduleModes() {
    if (this.stopped) return;
    const wait = 60_000 - (Date.now() % 60_000) + 50;
    this.modeTimer = setTimeout(() => {
      this.run(() => this.refreshModes());
      this.scheduleModes();
    }, wait);
    this.modeTimer.unref();
  }

  private async refreshModes() {
    if (![...this.timetables.values()].some((door) => door.hasTimetable)) return;
    await this.readHolidays();
    for (const door of await listDoors()) {
      if (door.unlockSchedule.length === 0) continue;
      await setImmediate(); // as in refreshAllDoors
      await this.publishDisplay(door, false);
    }
  }

  /**
   * A card was granted at this door (online, or offline as its event says): a
   * first-person-in door's first grant of the day releases its timetable.
   * Costs no query unless it is that first grant.
   */
  noteGrant(doorCode: string, at: Date) {
    const facts = this.timetables.get(doorCode);
    if (!facts?.firstPersonIn || !facts.hasTimetable) return;
    const day = buildingLocalDay(at);
    // Only a later day counts: a door's old events (replayed after days offline) change nothing.
    const known = this.firstInDays.get(facts.id);
    if (known !== undefined && known >= day) return;
    this.firstInDays.set(facts.id, day);
    this.run(async () => {
      for (const door of await listDoorsByIds([facts.id])) await this.publishDisplay(door, false);
    });
  }

  /** Everything, on every (re)connection: the broker may have lost its retained messages. */
  onConnect() {
    this.republishAll();
  }

  onMessage(topic: string, payload: Buffer) {
    if (topic !== changesTopic(this.context.prefix)) return false;
    const change = accessChangeSchema.safeParse(parseJsonPayload(payload));
    if (change.success) void this.applyChange(change.data);
    else console.warn("[access] ignoring an invalid change notification");
    return true;
  }

  /** Queues a task behind the others; its failure is logged, not thrown. Resolves once it has run. */
  run(task: () => Promise<void>): Promise<void> {
    this.tasks = this.tasks.then(task).catch((error: unknown) => {
      if (!this.stopped) console.error("[access] republishing failed", error);
    });
    return this.tasks;
  }

  /** Every door, forced: after each connection (the broker may have lost its retained messages). */
  republishAll() {
    this.run(() => this.refreshAllDoors(true));
  }

  /** The periodic sweep: expired cards deactivated, then whatever differs from what was last published. Resolves once done. */
  sweep() {
    return this.run(async () => {
      const expired = await deactivateExpiredCards();
      if (expired.length > 0) console.info(`[access] ${expired.length} expired cards deactivated`);
      await this.refreshAllDoors(false);
    });
  }

  /** The doors a change notification names (notify.server.ts), republished. */
  /** Resolves once the displays are republished (the offline lists follow, debounced). */
  async applyChange(change: AccessChange) {
    if (this.stopped) return;
    await this.run(() => this.republishChanged(change));
  }

  /** The offline lists of these doors (row ids), debounced. */
  scheduleCredentials(doorIds: string[]) {
    if (this.stopped) return;
    for (const id of doorIds) this.credentialsDue.add(id);
    if (this.credentialsTimer || this.credentialsDue.size === 0) return;
    this.credentialsTimer = setTimeout(() => {
      this.credentialsTimer = null;
      const due = [...this.credentialsDue];
      this.credentialsDue.clear();
      this.run(async () => {
        for (const door of await listDoorsByIds(due)) await this.publishCredentials(door, true);
      });
    }, this.options.credentialsDebounceMs);
  }

  /** The doors of these cards get new offline lists (e.g. cards deactivated by a swipe). */
  scheduleCredentialsOfCards(cardIds: string[]) {
    listDoorIdsForCards(cardIds).then(
      (doorIds) => this.scheduleCredentials(doorIds),
      (error: unknown) => console.error("[access] could not find the doors of expired cards", error),
    );
  }

  /** Waits for the queued tasks; nothing new is scheduled after this. */
  async stop() {
    this.stopped = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.credentialsTimer) clearTimeout(this.credentialsTimer);
    if (this.modeTimer) clearTimeout(this.modeTimer);
    await this.tasks;
  }

  private async republishChanged(change: AccessChange) {
    // Groups changed: their timetables are read again, and the doors they had or have get new lists.
    const groupDoorIds: string[] = [];
    if (change.groupIds?.length || change.all) {
      const { before, after } = await this.options.groups.reload();
      const groupIds = change.groupIds ?? [];
      groupDoorIds.push(...doorIdsOfGroups(before, groupIds), ...doorIdsOfGroups(after, groupIds));
    }
    if (change.all) {
      await this.refreshAllDoors(true);
      await this.revalidateDoors([...this.published.values()].map((door) => door.doorCode));
      return;
    }
    const doorIds = change.doorIds ?? [];
    const rows = await listDoorsByIds(doorIds);
    await this.readHolidays();
    const doorCodes = rows.map((door) => door.code);
    for (const door of rows) await this.publishDisplay(door, true);
    for (const id of doorIds) {
      if (rows.some((door) => door.id === id)) continue;
      const gone = this.published.get(id);
      if (gone) {
        doorCodes.push(gone.doorCode);
        await this.clearDoor(id, gone.doorCode);
      }
    }
    await this.revalidateDoors(doorCodes);
    const related = [
      ...(await listDoorIdsForCards(change.cardIds ?? [])),
      ...(await listDoorIdsForUsers(change.userIds ?? [])),
      ...(await listBookingDoorIdsForCards(change.cardIds ?? [])),
      ...(await listBookingDoorIdsForUsers(change.userIds ?? [])),
      // The doors of the visitor passes these users, cards' holders or groups' members gave (issue 40).
      ...(await listPassDoorIdsOfIssuers({ userIds: change.userIds, cardIds: change.cardIds, groupIds: change.groupIds })),
    ];
    this.scheduleCredentials([...rows.map((door) => door.id), ...related, ...groupDoorIds]);
  }

  private async refreshAllDoors(force: boolean) {
    await this.options.groups.reload();
    await this.readHolidays();
    const all = await listDoors();
    const present = new Set(all.map((door) => door.id));
    // Doors deleted since they were last published: their bridges logged in
    // under a name that is gone (renamed doors: followRename).
    const goneCodes: string[] = [];
    for (const [id, door] of this.published) {
      if (present.has(id)) continue;
      goneCodes.push(door.doorCode);
      await this.clearDoor(id, door.doorCode);
    }
    for (const door of all) {
      // libsql answers synchronously: without a turn of the event loop between
      // doors, a round over every door (each minute's sweep) held the swipes'
      // decisions until its end (~0.6 s with 70 doors and 5,000 cards:
      // `bench:access --scenario web`).
      await setImmediate();
      await this.publishDisplay(door, force);
      await this.publishCredentials(door, force);
    }
    if (goneCodes.length > 0) await this.revalidateDoors(goneCodes);
  }

  private remember(door: Door, fields: Partial<PublishedDoor>) {
    const previous = this.published.get(door.id);
    this.published.set(door.id, {
      doorCode: door.code,
      display: previous?.doorCode === door.code ? previous.display : null,
      credentials: previous?.doorCode === door.code ? previous.credentials : null,
      ...fields,
    });
  }

  /**
   * A door published under another code was renamed: its old topics are
   * cleared and the bridge still logged in under the old name is dropped.
   * Both publish paths call this first, whichever sees the new code first
   * (the sweep, a change notice or a debounced offline list).
   */
  private async followRename(door: Door) {
    const previous = this.published.get(door.id);
    if (!previous || previous.doorCode === door.code) return;
    await this.revalidateDoors([previous.doorCode]);
    await this.clearTopics(previous.doorCode);
    this.published.set(door.id, { doorCode: door.code, display: null, credentials: null });
  }

  /** The holidays the doors' timetables need: from today (the building's) on. */
  private async readHolidays() {
    this.holidayDays = await listHolidayDaysFrom(buildingLocalDay(this.context.clock()));
  }

  private async publishDisplay(door: Door, force: boolean) {
    await this.followRename(door);
    const previous = this.published.get(door.id);
    const texts = doorDisplayTexts(door);
    const hasTimetable = door.unlockSchedule.length > 0;
    this.timetables.set(door.code, { id: door.id, firstPersonIn: door.firstPersonIn, hasTimetable });
    const firstInDay = this.firstInDays.get(door.id) ?? null;
    const mode = doorModeAt(door, this.context.clock(), new Set(this.holidayDays), firstInDay);
    const timetable = hasTimetable
      ? {
          tz: TIME_ZONE,
          sch: door.unlockSchedule,
          holidays: this.holidayDays,
          onHolidays: door.unlockOnHolidays,
          firstPersonIn: door.firstPersonIn,
          firstInDay: door.firstPersonIn ? firstInDay : null,
        }
      : undefined;
    const fingerprint = JSON.stringify([texts, door.status, mode, timetable ?? null]);
    if (!force && previous?.doorCode === door.code && previous.display === fingerprint) return;
    const message: DisplayMessage = {
      ...texts,
      doorStatus: door.status,
      updatedAt: door.updatedAt.toISOString(),
      ...mode,
      ...(timetable ? { timetable } : {}),
    };
    await this.publishRetained(doorTopic(this.context.prefix, door.code, "display"), JSON.stringify(message));
    this.remember(door, { display: fingerprint });
    if (this.modes.get(door.code) !== mode.mode) {
      this.modes.set(door.code, mode.mode);
      this.events.emit("doorModeChanged", door.code, mode);
    }
  }

  private async publishCredentials(door: Door, force: boolean) {
    await this.followRename(door);
    const now = new Date();
    // A door in maintenance grants nobody, offline included; one in emergency (a lockdown) only emergency cards.
    const active = door.status === "active";
    /** By card number: its expiry, its timetables (an empty one: always) and its booking windows. */
    const entries = new Map<string, { expiresAt: Date | null; schedules: WeeklySchedule[]; windows: { from: number; to: number }[] }>();
    const entry = (cardNumber: string, expiresAt: Date | null) => {
      const found = entries.get(cardNumber) ?? { expiresAt, schedules: [], windows: [] };
      entries.set(cardNumber, found);
      return found;
    };
    if (active) {
      // Its own permissions (with or without a timetable), its holder's groups, and
      // its holder's facility bookings when the door leads to a facility.
      for (const card of await listGrantedCardsForDoor(door.id, now)) entry(card.cardNumber, card.expiresAt).schedules.push(card.schedule ?? []);
      for (const card of await listGroupCardsForDoor(door.id, now)) entry(card.cardNumber, card.expiresAt).schedules.push(card.schedule);
      if (door.facilityId) {
        const windowed = await listBookingWindowCardsForDoor(door.id, {
          from: now.getTime(),
          to: now.getTime() + OFFLINE_WINDOW_HORIZON_MS,
          leadMs: BOOKING_WINDOW_LEAD_MS,
        });
        for (const card of windowed) entry(card.cardNumber, card.expiresAt).windows.push(...card.windows);
      }
    } else if (door.status === "emergency") {
      for (const card of await listEmergencyCards(now)) entry(card.cardNumber, card.expiresAt).schedules.push([]);
    }
    const cards = [...entries]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([cardNumber, card]) => {
        const always = card.schedules.length > 0 && unionOfSchedules(card.schedules).length === 0;
        return {
          cardNumber,
          expiresAt: card.expiresAt,
          schedule: always || card.schedules.length === 0 ? null : unionOfSchedules(card.schedules),
          windows: always ? [] : card.windows,
        };
      });
    // Door keys (PIN and QR) valid here, with their windows within the horizon; none in maintenance or emergency.
    const keys = active ? await this.keysForDoor(door.id, now) : [];
    const fingerprint =
      cards
        .map(
          (card) =>
            `${card.cardNumber}:${card.expiresAt?.getTime() ?? ""}:${card.windows.map((w) => `${w.from}-${w.to}`).join("+")}:${JSON.stringify(card.schedule)}`,
        )
        .join(",") +
      "|" +
      keys.map((key) => `${key.pinOffline ? key.pin : ""}:${key.qrToken}:${JSON.stringify(key.windows)}:${key.holderFirstName}`).join(",");
    const previous = this.published.get(door.id);
    if (!force && previous?.doorCode === door.code && previous.credentials === fingerprint) return;
    const salt = crypto.randomBytes(16).toString("hex");
    const message: CredentialsMessage = {
      version: await nextCredentialsVersion(door.id),
      generatedAt: now.toISOString(),
      salt,
      tz: TIME_ZONE,
      cards: cards.map((card) => ({
        h: sha256(`${salt}${card.cardNumber}`),
        exp: card.expiresAt?.toISOString() ?? null,
        ...(card.windows.length > 0
          ? { win: card.windows.map((w): [string, string] => [new Date(w.from).toISOString(), new Date(w.to).toISOString()]) }
          : {}),
        ...(card.schedule ? { sch: card.schedule } : {}),
      })),
      keys: keys.flatMap((key) => {
        const win = key.windows.map(([from, to]): [string, string] => [new Date(from).toISOString(), new Date(to).toISOString()]);
        const entry = (k: CredentialKey["k"], secret: string): CredentialKey => ({ h: sha256(`${salt}${k}:${secret}`), k, win, n: key.holderFirstName });
        // A PIN only where it opens nothing else (listKeysForDoor); the QR token (160 bits) everywhere.
        return key.pinOffline ? [entry("pin", key.pin), entry("qr", key.qrToken)] : [entry("qr", key.qrToken)];
      }),
    };
    await this.publishRetained(doorTopic(this.context.prefix, door.code, "credentials"), JSON.stringify(message));
    this.remember(door, { credentials: fingerprint });
  }

  /**
   * The door keys on a door's list, with their windows within the horizon. A
   * visitor pass keeps only the parts of its windows in which its resident
   * could open this door themselves (issue 40): none while they are
   * suspended, inactive or without a card or right here; their timetable's
   * hours; until their card expires. A pass left with no window is left off.
   */
  private async keysForDoor(doorId: string, now: Date) {
    const keys = await listKeysForDoor(doorId, { from: now.getTime(), to: now.getTime() + OFFLINE_WINDOW_HORIZON_MS });
    const issuers = keys.flatMap((key) => (key.kind === "visitor" && key.createdBy ? [key.createdBy] : []));
    const rights = await listIssuerRightsOnDoor(doorId, issuers, now);
    return keys.flatMap((key) => {
      if (key.kind !== "visitor") return [key];
      const windows = windowsWithinRights(key.windows, (key.createdBy && rights.get(key.createdBy)) || []);
      return windows.length > 0 ? [{ ...key, windows }] : [];
    });
  }

  /** A deleted door: its retained display and offline list are removed from the broker. */
  private async clearDoor(id: string, doorCode: string) {
    await this.clearTopics(doorCode);
    this.published.delete(id);
  }

  private async clearTopics(doorCode: string) {
    await this.publishRetained(doorTopic(this.context.prefix, doorCode, "display"), "");
    await this.publishRetained(doorTopic(this.context.prefix, doorCode, "credentials"), "");
  }

  /** Drops connected bridges whose credential changed or whose door is gone (embedded broker). */
  private async revalidateDoors(doorCodes: string[]) {
    await this.context.broker?.revalidateDoors(doorCodes);
  }

  private async publishRetained(topic: string, payload: string) {
    await this.context.client.publishAsync(topic, payload, { qos: 1, retain: true });
  }
}
