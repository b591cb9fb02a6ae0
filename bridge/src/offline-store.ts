import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import {
  credentialsListSchema,
  DEFAULT_TIME_ZONE,
  displayMessageSchema,
  type CredentialsList,
  type DisplayMessage,
  type DoorEvent,
  type OfflineReason,
  type Receipt,
} from './contract.js';
import { errorMessage, type Logger } from './logger.js';
import { isWithinSchedule, localTime, type ScheduleRange } from './schedule.js';

const CREDENTIALS_FILE = 'credentials.json';
const DISPLAY_FILE = 'display.json';
/**
 * Append-only journal of the event queue: `{"add": event}` lines (offline
 * decisions, `offline: true`, and swipes the app answered, `offline: false`;
 * journals from before answered swipes hold only the former), then
 * `{"ack": id}` once the app's receipt named the event. Compacted at start and
 * whenever nothing is left to send.
 */
const EVENTS_FILE = 'events.jsonl';

export type OfflineCardCheck = Exclude<OfflineReason, 'offline_deny' | 'invalid_key' | 'outside_key_window' | 'keypad_locked'>;

/** The offline decision for a key: granted (greeting its holder by `name`), or why not. */
export type OfflineKeyCheck = { reason: 'granted'; name: string } | { reason: 'invalid_key' | 'outside_key_window' };

/** One key of the offline list: its periods [from, to) in ms since the epoch, its holder's first name. */
interface OfflineKey {
  windows: Array<[number, number]>;
  name: string;
}

/** One card of the offline list, times in ms since the epoch. */
interface OfflineCard {
  expiresAt: number | null;
  /** Booking windows [from, to); null: none. */
  windows: Array<[number, number]> | null;
  /** Weekly timetable in the list's time zone; null: none. */
  schedule: ScheduleRange[] | null;
}

/**
 * What the bridge keeps on disk to work without the app: the newest offline
 * credentials list, the last display message and the queue of events (offline
 * decisions and answered swipes) the app has not yet receipted. Survives
 * restarts.
 */
export class OfflineStore {
  private credentials: CredentialsList | null = null;
  /** The offline list's cards by hash. */
  private cards = new Map<string, OfflineCard>();
  /** The offline list's keys by hash (a PIN may belong to several keys whose periods do not overlap). */
  private keys = new Map<string, OfflineKey[]>();
  private display: DisplayMessage | null = null;
  /** Events by id, oldest first. */
  private pending = new Map<string, DoorEvent>();
  /** Disk writes run one at a time, in call order. */
  private writes: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly dataDir: string,
    private readonly logger: Logger,
  ) {}

  static async open(dataDir: string, logger: Logger): Promise<OfflineStore> {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const store = new OfflineStore(dataDir, logger);
    const credentials = await store.readJson(CREDENTIALS_FILE, credentialsListSchema);
    if (credentials !== null) store.useCredentials(credentials);
    store.display = await store.readJson(DISPLAY_FILE, displayMessageSchema);
    store.pending = new Map((await store.readJournal()).map((event) => [event.id, event]));
    await store.rewriteJournal();
    return store;
  }

  get credentialsVersion(): number | null {
    return this.credentials?.version ?? null;
  }

  get displayMessage(): DisplayMessage | null {
    return this.display;
  }

  /** Events the app has not receipted yet, oldest first. */
  pendingEvents(): readonly DoorEvent[] {
    return [...this.pending.values()];
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  isPending(id: string): boolean {
    return this.pending.has(id);
  }

  /**
   * The offline decision for a card at `now` (the bridge's clock): not on the
   * list → unknown_card; past its expiry → card_expired (whatever its windows);
   * with neither timetable nor booking windows → granted; inside its
   * timetable → granted; inside a booking window → booking_window; else
   * outside_schedule when it has a timetable, outside_booking_window when not.
   */
  checkCard(card: string, now: Date): OfflineCardCheck {
    if (this.credentials === null) return 'unknown_card';
    const hash = createHash('sha256').update(`${this.credentials.salt}${card}`, 'utf8').digest('hex');
    const entry = this.cards.get(hash);
    if (entry === undefined) return 'unknown_card';
    const time = now.getTime();
    if (entry.expiresAt !== null && entry.expiresAt <= time) return 'card_expired';
    if (entry.windows === null && entry.schedule === null) return 'granted';
    if (entry.schedule !== null && isWithinSchedule(entry.schedule, localTime(now, this.credentials.tz ?? DEFAULT_TIME_ZONE))) return 'granted';
    if (entry.windows?.some(([from, to]) => from <= time && time < to)) return 'booking_window';
    return entry.schedule !== null ? 'outside_schedule' : 'outside_booking_window';
  }

  /**
   * The offline decision for a PIN or a QR token at `now` (the bridge's
   * clock): a key of the list with a period holding now → granted; a key of
   * the list, but none of its periods holds now (not yet, or over) →
   * outside_key_window; not on the list (or no list yet) → invalid_key.
   */
  checkKey(key: { kind: 'pin'; pin: string } | { kind: 'qr'; qr: string }, now: Date): OfflineKeyCheck {
    if (this.credentials === null) return { reason: 'invalid_key' };
    const secret = key.kind === 'pin' ? `pin:${key.pin}` : `qr:${key.qr}`;
    const entries = this.keys.get(`${key.kind}:${createHash('sha256').update(`${this.credentials.salt}${secret}`, 'utf8').digest('hex')}`);
    if (entries === undefined) return { reason: 'invalid_key' };
    const time = now.getTime();
    const valid = entries.find((entry) => entry.windows.some(([from, to]) => from <= time && time < to));
    return valid === undefined ? { reason: 'outside_key_window' } : { reason: 'granted', name: valid.name };
  }

  /** Keeps the list if it is newer than the one held; returns whether it was kept. */
  async saveCredentials(list: CredentialsList): Promise<boolean> {
    if (this.credentials !== null && list.version <= this.credentials.version) return false;
    this.useCredentials(list);
    await this.serialized(() => this.writeAtomically(CREDENTIALS_FILE, JSON.stringify(list)));
    return true;
  }

  /** Returns whether the message differed from the one held. */
  async saveDisplay(message: DisplayMessage): Promise<boolean> {
    if (JSON.stringify(message) === JSON.stringify(this.display)) return false;
    this.display = message;
    await this.serialized(() => this.writeAtomically(DISPLAY_FILE, JSON.stringify(message)));
    return true;
  }

  async appendEvent(event: DoorEvent): Promise<void> {
    this.pending.set(event.id, event);
    await this.serialized(() => this.appendJournal([{ add: event }]));
  }

  /**
   * Removes what a receipt names and returns the ids removed: an id in `ids`
   * whatever its kind, an id in `swipes` only if it is an answered swipe (an
   * offline event under that id is the door's own decision, not the app's
   * row). Ids it does not hold are ignored.
   */
  async acknowledge({ ids = [], swipes = [] }: Receipt): Promise<string[]> {
    const removed = new Set<string>();
    for (const id of ids) if (this.pending.delete(id)) removed.add(id);
    for (const id of swipes) if (this.pending.get(id)?.offline === false && this.pending.delete(id)) removed.add(id);
    if (removed.size === 0) return [];
    await this.serialized(() => (this.pending.size === 0 ? this.rewriteJournal() : this.appendJournal([...removed].map((id) => ({ ack: id })))));
    return [...removed];
  }

  /** Waits for the writes in progress. */
  async close(): Promise<void> {
    await this.writes;
  }

  private useCredentials(list: CredentialsList): void {
    this.credentials = list;
    this.cards = new Map(
      list.cards.map((card) => [
        card.h,
        {
          expiresAt: card.exp === null ? null : Date.parse(card.exp),
          windows: card.win?.map(([from, to]): [number, number] => [Date.parse(from), Date.parse(to)]) ?? null,
          schedule: card.sch ?? null,
        },
      ]),
    );
    this.keys = new Map();
    for (const key of list.keys ?? []) {
      const id = `${key.k}:${key.h}`;
      const entry = { windows: key.win.map(([from, to]): [number, number] => [Date.parse(from), Date.parse(to)]), name: key.n };
      this.keys.set(id, [...(this.keys.get(id) ?? []), entry]);
    }
  }

  private serialized(write: () => Promise<void>): Promise<void> {
    const next = this.writes.then(write);
    this.writes = next.catch(() => {});
    return next;
  }

  private async readJson<T>(file: string, schema: { safeParse(data: unknown): { success: true; data: T } | { success: false } }): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(path.join(this.dataDir, file), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    try {
      const result = schema.safeParse(JSON.parse(text));
      if (result.success) return result.data;
    } catch {
      // fall through: reported below
    }
    this.logger.warn(`offline store: ignoring unreadable ${file}`);
    return null;
  }

  private async readJournal(): Promise<DoorEvent[]> {
    let text: string;
    try {
      text = await readFile(path.join(this.dataDir, EVENTS_FILE), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const events = new Map<string, DoorEvent>();
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const entry = JSON.parse(line) as { add?: DoorEvent; ack?: string };
        if (typeof entry.add?.id === 'string') events.set(entry.add.id, entry.add);
        else if (typeof entry.ack === 'string') events.delete(entry.ack);
      } catch {
        // A line torn by a power cut while it was being written.
        this.logger.warn(`offline store: skipping a damaged line in ${EVENTS_FILE}`);
      }
    }
    return [...events.values()];
  }

  private async appendJournal(entries: Array<{ add: DoorEvent } | { ack: string }>): Promise<void> {
    const handle = await open(path.join(this.dataDir, EVENTS_FILE), 'a', 0o600);
    try {
      await handle.writeFile(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  private rewriteJournal(): Promise<void> {
    return this.writeAtomically(EVENTS_FILE, this.pendingEvents().map((event) => `${JSON.stringify({ add: event })}\n`).join(''));
  }

  /** Temp file, fsync, rename, fsync the directory: a crash leaves the old or the new file, never half of one. */
  private async writeAtomically(file: string, content: string): Promise<void> {
    const target = path.join(this.dataDir, file);
    const temp = `${target}.tmp`;
    const handle = await open(temp, 'w', 0o600);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
    await this.syncDirectory();
  }

  private async syncDirectory(): Promise<void> {
    try {
      const directory = await open(this.dataDir, 'r');
      try {
        await directory.sync();
      } finally {
        await directory.close();
      }
    } catch (error) {
      this.logger.debug(`offline store: directory fsync not supported: ${errorMessage(error)}`);
    }
  }
}
