import { createHash } from 'node:crypto';
import { appendFile, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OfflineEvent } from './contract.js';
import type { Logger } from './logger.js';
import { OfflineStore } from './offline-store.js';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const tempDir = () => mkdtemp(path.join(tmpdir(), 'bridge-store-'));
const hash = (salt: string, card: string) => createHash('sha256').update(salt + card).digest('hex');
const event = (id: string): OfflineEvent => ({ id, card: '004E2B4E', at: new Date().toISOString(), granted: true, reason: 'granted', offline: true });

describe('OfflineStore', () => {
  it('checks cards against sha256(salt + card) with expiry', async () => {
    const store = await OfflineStore.open(await tempDir(), quiet);
    expect(store.checkCard('004E2B4E', new Date())).toBe('unknown_card');
    await store.saveCredentials({
      version: 1,
      generatedAt: new Date().toISOString(),
      salt: 'ab12',
      cards: [
        { h: hash('ab12', '004E2B4E'), exp: null },
        { h: hash('ab12', '0012D687'), exp: '2020-01-01T00:00:00Z' },
        { h: hash('ab12', '12345678'), exp: '2999-01-01T00:00:00Z' },
      ],
    });
    expect(store.checkCard('004E2B4E', new Date())).toBe('granted');
    expect(store.checkCard('12345678', new Date())).toBe('granted');
    expect(store.checkCard('0012D687', new Date())).toBe('card_expired');
    expect(store.checkCard('DEADBEEF', new Date())).toBe('unknown_card');
  });

  describe('booking windows', () => {
    const at = (iso: string) => new Date(iso);
    const listWith = (cards: Array<{ card: string; exp?: string | null; win?: Array<[string, string]> }>) => ({
      version: 1,
      generatedAt: new Date().toISOString(),
      salt: 'cd34',
      cards: cards.map(({ card, exp, win }) => ({ h: hash('cd34', card), exp: exp ?? null, ...(win === undefined ? {} : { win }) })),
    });
    const morning: [string, string] = ['2030-05-10T08:45:00.000Z', '2030-05-10T10:00:00.000Z'];
    const evening: [string, string] = ['2030-05-10T17:45:00.000Z', '2030-05-10T19:00:00.000Z'];

    it('grants inside a window, from its start up to (not including) its end', async () => {
      const store = await OfflineStore.open(await tempDir(), quiet);
      await store.saveCredentials(listWith([{ card: 'AA01', win: [morning] }]));
      expect(store.checkCard('AA01', at('2030-05-10T08:45:00.000Z'))).toBe('booking_window');
      expect(store.checkCard('AA01', at('2030-05-10T09:30:00.000Z'))).toBe('booking_window');
      expect(store.checkCard('AA01', at('2030-05-10T09:59:59.999Z'))).toBe('booking_window');
    });

    it('denies before and after the window', async () => {
      const store = await OfflineStore.open(await tempDir(), quiet);
      await store.saveCredentials(listWith([{ card: 'AA01', win: [morning] }]));
      expect(store.checkCard('AA01', at('2030-05-10T08:44:59.999Z'))).toBe('outside_booking_window');
      expect(store.checkCard('AA01', at('2030-05-10T10:00:00.000Z'))).toBe('outside_booking_window');
      expect(store.checkCard('AA01', at('2030-05-11T09:00:00.000Z'))).toBe('outside_booking_window');
    });

    it('grants inside any of several windows and denies between them', async () => {
      const dir = await tempDir();
      const store = await OfflineStore.open(dir, quiet);
      await store.saveCredentials(listWith([{ card: 'AA01', win: [morning, evening] }, { card: 'BB02' }]));
      expect(store.checkCard('AA01', at('2030-05-10T09:00:00.000Z'))).toBe('booking_window');
      expect(store.checkCard('AA01', at('2030-05-10T13:00:00.000Z'))).toBe('outside_booking_window');
      expect(store.checkCard('AA01', at('2030-05-10T18:00:00.000Z'))).toBe('booking_window');
      // A card without windows is granted whenever it is not expired.
      expect(store.checkCard('BB02', at('2030-05-10T13:00:00.000Z'))).toBe('granted');
      // The windows are kept on disk with the list.
      const reopened = await OfflineStore.open(dir, quiet);
      expect(reopened.checkCard('AA01', at('2030-05-10T18:00:00.000Z'))).toBe('booking_window');
      expect(reopened.checkCard('AA01', at('2030-05-10T13:00:00.000Z'))).toBe('outside_booking_window');
    });

    it('expiry still wins inside a window; an empty window list grants never', async () => {
      const store = await OfflineStore.open(await tempDir(), quiet);
      await store.saveCredentials(
        listWith([
          { card: 'AA01', exp: '2030-05-10T09:00:00.000Z', win: [morning] },
          { card: 'CC03', win: [] },
        ]),
      );
      expect(store.checkCard('AA01', at('2030-05-10T08:50:00.000Z'))).toBe('booking_window');
      expect(store.checkCard('AA01', at('2030-05-10T09:30:00.000Z'))).toBe('card_expired');
      expect(store.checkCard('CC03', at('2030-05-10T09:30:00.000Z'))).toBe('outside_booking_window');
    });
  });

  it('keeps only a newer credentials version, across restarts', async () => {
    const dir = await tempDir();
    const store = await OfflineStore.open(dir, quiet);
    const list = (version: number, card: string) => ({ version, generatedAt: new Date().toISOString(), salt: '00', cards: [{ h: hash('00', card), exp: null }] });
    expect(await store.saveCredentials(list(5, 'AA'))).toBe(true);
    expect(await store.saveCredentials(list(4, 'BB'))).toBe(false);
    expect(await store.saveCredentials(list(5, 'BB'))).toBe(false);
    const reopened = await OfflineStore.open(dir, quiet);
    expect(reopened.credentialsVersion).toBe(5);
    expect(reopened.checkCard('AA', new Date())).toBe('granted');
    expect(reopened.checkCard('BB', new Date())).toBe('unknown_card');
  });

  it('keeps unacknowledged events across restarts and drops acknowledged ones', async () => {
    const dir = await tempDir();
    const store = await OfflineStore.open(dir, quiet);
    await store.appendEvent(event('a'));
    await store.appendEvent(event('b'));
    await store.appendEvent(event('c'));
    await store.acknowledgeEvents(['b']);
    const reopened = await OfflineStore.open(dir, quiet);
    expect(reopened.pendingEvents().map((e) => e.id)).toEqual(['a', 'c']);
    await reopened.acknowledgeEvents(['a']);
    await reopened.acknowledgeEvents(['c']);
    expect(await readFile(path.join(dir, 'events.jsonl'), 'utf8')).toBe('');
    expect((await OfflineStore.open(dir, quiet)).pendingEvents()).toEqual([]);
  });

  it('acknowledges several ids at once and ignores ids it does not hold', async () => {
    const dir = await tempDir();
    const store = await OfflineStore.open(dir, quiet);
    for (const id of ['a', 'b', 'c', 'd']) await store.appendEvent(event(id));
    const journal = await readFile(path.join(dir, 'events.jsonl'), 'utf8');
    expect(await store.acknowledgeEvents(['zz', 'yy'])).toEqual([]);
    expect(await readFile(path.join(dir, 'events.jsonl'), 'utf8')).toBe(journal);
    expect(await store.acknowledgeEvents(['c', 'zz', 'a', 'a'])).toEqual(['c', 'a']);
    expect(store.pendingEvents().map((e) => e.id)).toEqual(['b', 'd']);
    expect(store.isPending('a')).toBe(false);
    expect(store.isPending('b')).toBe(true);
    expect((await OfflineStore.open(dir, quiet)).pendingEvents().map((e) => e.id)).toEqual(['b', 'd']);
  });

  it('survives a line torn by a power cut', async () => {
    const dir = await tempDir();
    const store = await OfflineStore.open(dir, quiet);
    await store.appendEvent(event('a'));
    await appendFile(path.join(dir, 'events.jsonl'), '{"add":{"id":"b","ca');
    const reopened = await OfflineStore.open(dir, quiet);
    expect(reopened.pendingEvents().map((e) => e.id)).toEqual(['a']);
    await reopened.appendEvent(event('c'));
    expect((await OfflineStore.open(dir, quiet)).pendingEvents().map((e) => e.id)).toEqual(['a', 'c']);
  });

  it('persists the display message', async () => {
    const dir = await tempDir();
    const store = await OfflineStore.open(dir, quiet);
    const message = { status: 'OPEN', welcome: 'HOLA', doorStatus: 'active' as const, updatedAt: new Date().toISOString() };
    expect(await store.saveDisplay(message)).toBe(true);
    expect(await store.saveDisplay(message)).toBe(false);
    expect((await OfflineStore.open(dir, quiet)).displayMessage).toEqual(message);
  });
});
