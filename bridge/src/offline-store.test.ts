import { createHash } from 'node:crypto';
import { appendFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnsweredSwipeEvent, OfflineEvent } from './contract.js';
import type { Logger } from './logger.js';
import { OfflineStore } from './offline-store.js';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const tempDir = () => mkdtemp(path.join(tmpdir(), 'bridge-store-'));
const hash = (salt: string, card: string) => createHash('sha256').update(salt + card).digest('hex');
const event = (id: string): OfflineEvent => ({ id, card: '004E2B4E', at: new Date().toISOString(), granted: true, reason: 'granted', offline: true });
const answered = (id: string): AnsweredSwipeEvent => ({ id, card: '0012D687', at: new Date().toISOString(), granted: false, reason: 'no_permission', offline: false });

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
    const morning: [string, string] = ['2030-05-10T08:45:00.000Z', '2030-05-10T10:00:00.000Z'];
    const evening: [string, string] = ['2030-05-10T17:45:00.000Z', '2030-05-10T19:00:00.000Z'];
    /** A store holding a list of these cards (in dir, or a new temp dir). */
    const storeWith = async (cards: Array<{ card: string; exp?: string | null; win?: Array<[string, string]> }>, dir?: string) => {
      const store = await OfflineStore.open(dir ?? (await tempDir()), quiet);
      await store.saveCredentials({
        version: 1,
        generatedAt: new Date().toISOString(),
        salt: 'cd34',
        cards: cards.map(({ card, exp, win }) => ({ h: hash('cd34', card), exp: exp ?? null, ...(win === undefined ? {} : { win }) })),
      });
      return store;
    };
    /** The card's offline decision at each instant. */
    const checksAt = (store: OfflineStore, card: string, instants: string[]) => instants.map((iso) => store.checkCard(card, new Date(iso)));

    it('grants inside a window, from its start up to (not including) its end, and denies before and after it', async () => {
      const store = await storeWith([{ card: 'AA01', win: [morning] }]);
      const expected = {
        '2030-05-10T08:44:59.999Z': 'outside_booking_window',
        '2030-05-10T08:45:00.000Z': 'booking_window',
        '2030-05-10T09:30:00.000Z': 'booking_window',
        '2030-05-10T09:59:59.999Z': 'booking_window',
        '2030-05-10T10:00:00.000Z': 'outside_booking_window',
        '2030-05-11T09:00:00.000Z': 'outside_booking_window',
      };
      expect(checksAt(store, 'AA01', Object.keys(expected))).toEqual(Object.values(expected));
    });

    it('grants inside any of several windows and denies between them, also after a restart', async () => {
      const dir = await tempDir();
      const store = await storeWith([{ card: 'AA01', win: [morning, evening] }, { card: 'BB02' }], dir);
      const instants = ['2030-05-10T09:00:00.000Z', '2030-05-10T13:00:00.000Z', '2030-05-10T18:00:00.000Z'];
      expect(checksAt(store, 'AA01', instants)).toEqual(['booking_window', 'outside_booking_window', 'booking_window']);
      // A card without windows is granted whenever it is not expired.
      expect(checksAt(store, 'BB02', instants)).toEqual(['granted', 'granted', 'granted']);
      // The windows are kept on disk with the list.
      expect(checksAt(await OfflineStore.open(dir, quiet), 'AA01', instants)).toEqual(['booking_window', 'outside_booking_window', 'booking_window']);
    });

    it('expiry still wins inside a window; an empty window list grants never', async () => {
      const store = await storeWith([
        { card: 'AA01', exp: '2030-05-10T09:00:00.000Z', win: [morning] },
        { card: 'CC03', win: [] },
      ]);
      expect(checksAt(store, 'AA01', ['2030-05-10T08:50:00.000Z', '2030-05-10T09:30:00.000Z'])).toEqual(['booking_window', 'card_expired']);
      expect(checksAt(store, 'CC03', ['2030-05-10T09:30:00.000Z'])).toEqual(['outside_booking_window']);
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
    await store.acknowledge({ ids: ['b'] });
    const reopened = await OfflineStore.open(dir, quiet);
    expect(reopened.pendingEvents().map((e) => e.id)).toEqual(['a', 'c']);
    await reopened.acknowledge({ ids: ['a'] });
    await reopened.acknowledge({ ids: ['c'] });
    expect(await readFile(path.join(dir, 'events.jsonl'), 'utf8')).toBe('');
    expect((await OfflineStore.open(dir, quiet)).pendingEvents()).toEqual([]);
  });

  it('acknowledges several ids at once and ignores ids it does not hold', async () => {
    const dir = await tempDir();
    const store = await OfflineStore.open(dir, quiet);
    for (const id of ['a', 'b', 'c', 'd']) await store.appendEvent(event(id));
    const journal = await readFile(path.join(dir, 'events.jsonl'), 'utf8');
    expect(await store.acknowledge({ ids: ['zz', 'yy'] })).toEqual([]);
    expect(await readFile(path.join(dir, 'events.jsonl'), 'utf8')).toBe(journal);
    expect(await store.acknowledge({ ids: ['c', 'zz', 'a', 'a'] })).toEqual(['c', 'a']);
    expect(store.pendingEvents().map((e) => e.id)).toEqual(['b', 'd']);
    expect(store.isPending('a')).toBe(false);
    expect(store.isPending('b')).toBe(true);
    expect((await OfflineStore.open(dir, quiet)).pendingEvents().map((e) => e.id)).toEqual(['b', 'd']);
  });

  it('keeps answered swipes with offline events across restarts, in order, until acknowledged', async () => {
    const dir = await tempDir();
    const store = await OfflineStore.open(dir, quiet);
    const queued = [event('a'), answered('b'), event('c'), answered('d')];
    for (const entry of queued) await store.appendEvent(entry);
    await store.acknowledge({ ids: ['d'] });
    const reopened = await OfflineStore.open(dir, quiet);
    expect(reopened.pendingEvents()).toEqual(queued.slice(0, 3));
    await reopened.acknowledge({ ids: ['b'] });
    expect((await OfflineStore.open(dir, quiet)).pendingEvents()).toEqual([queued[0], queued[2]]);
  });

  it('a receipt removes answered swipes named under swipes, but not offline events; under ids, either kind', async () => {
    const dir = await tempDir();
    const store = await OfflineStore.open(dir, quiet);
    const queued = [event('a'), answered('b'), event('c'), answered('d'), event('e')];
    for (const entry of queued) await store.appendEvent(entry);
    expect(await store.acknowledge({ swipes: ['a', 'b', 'c', 'zz'] })).toEqual(['b']);
    expect(store.pendingEvents().map((e) => e.id)).toEqual(['a', 'c', 'd', 'e']);
    expect(await store.acknowledge({ ids: ['a', 'd'], swipes: ['d', 'e'] })).toEqual(['a', 'd']);
    expect(store.pendingEvents().map((e) => e.id)).toEqual(['c', 'e']);
    // The journal format is unchanged: the receipt's kinds only decide which ids get an ack line.
    const acks = (await readFile(path.join(dir, 'events.jsonl'), 'utf8'))
      .split('\n')
      .filter((line) => line.includes('"ack"'))
      .map((line) => JSON.parse(line));
    expect(acks).toEqual([{ ack: 'b' }, { ack: 'a' }, { ack: 'd' }]);
    expect((await OfflineStore.open(dir, quiet)).pendingEvents()).toEqual([queued[2], queued[4]]);
  });

  it('loads a journal written before answered swipes were queued (offline events only)', async () => {
    const dir = await tempDir();
    const old = (id: string, reason: string, granted: boolean) =>
      JSON.stringify({ add: { id, card: '004E2B4E', at: '2025-03-01T10:00:00.000Z', granted, reason, offline: true } });
    await writeFile(
      path.join(dir, 'events.jsonl'),
      [old('a', 'granted', true), old('b', 'unknown_card', false), JSON.stringify({ ack: 'a' }), old('c', 'offline_deny', false), ''].join('\n'),
    );
    const store = await OfflineStore.open(dir, quiet);
    expect(store.pendingEvents()).toEqual([
      { id: 'b', card: '004E2B4E', at: '2025-03-01T10:00:00.000Z', granted: false, reason: 'unknown_card', offline: true },
      { id: 'c', card: '004E2B4E', at: '2025-03-01T10:00:00.000Z', granted: false, reason: 'offline_deny', offline: true },
    ]);
    const swipe = answered('d');
    await store.appendEvent(swipe);
    expect((await OfflineStore.open(dir, quiet)).pendingEvents().map((e) => (e.offline ? e.id : `${e.id} answered`))).toEqual(['b', 'c', 'd answered']);
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

describe('OfflineStore keys (PINs and QR tokens)', () => {
  const stay: [string, string] = ['2030-05-10T14:00:00.000Z', '2030-05-14T10:00:00.000Z'];
  const later: [string, string] = ['2030-06-01T14:00:00.000Z', '2030-06-02T10:00:00.000Z'];
  const TOKEN = 'LC1-MFRGGZDFMZTWQ2LKNNWG23TPOA';
  const storeWithKeys = async (keys: Array<{ h: string; k: 'pin' | 'qr'; win: Array<[string, string]>; n: string }>) => {
    const store = await OfflineStore.open(await tempDir(), quiet);
    await store.saveCredentials({ version: 1, generatedAt: new Date().toISOString(), salt: 'ef56', cards: [], keys });
    return store;
  };

  it('finds a key by sha256(salt + "pin:" + PIN) or sha256(salt + "qr:" + token), only inside one of its windows', async () => {
    const store = await storeWithKeys([
      { h: hash('ef56', 'pin:482913'), k: 'pin', win: [stay], n: 'Ana' },
      { h: hash('ef56', `qr:${TOKEN}`), k: 'qr', win: [stay, later], n: '' },
    ]);
    const pinAt = (iso: string) => store.checkKey({ kind: 'pin', pin: '482913' }, new Date(iso));
    expect(pinAt('2030-05-10T13:59:59.999Z')).toEqual({ reason: 'outside_key_window' });
    expect(pinAt('2030-05-10T14:00:00.000Z')).toEqual({ reason: 'granted', name: 'Ana' });
    expect(pinAt('2030-05-14T09:59:59.999Z')).toEqual({ reason: 'granted', name: 'Ana' });
    // After check-out: expired, the key is still known but no longer opens.
    expect(pinAt('2030-05-14T10:00:00.000Z')).toEqual({ reason: 'outside_key_window' });
    expect(store.checkKey({ kind: 'qr', qr: TOKEN }, new Date('2030-06-01T20:00:00.000Z'))).toEqual({ reason: 'granted', name: '' });
    expect(store.checkKey({ kind: 'pin', pin: '482914' }, new Date('2030-05-11T12:00:00.000Z'))).toEqual({ reason: 'invalid_key' });
    // The kinds are kept apart: the same text as the other kind is no key.
    expect(store.checkKey({ kind: 'qr', qr: TOKEN }, new Date('2030-05-20T12:00:00.000Z'))).toEqual({ reason: 'outside_key_window' });
    expect(store.checkCard('482913', new Date('2030-05-11T12:00:00.000Z'))).toBe('unknown_card');
  });

  it('a PIN shared by keys whose windows do not overlap opens for each holder in turn; no list, no key', async () => {
    const store = await storeWithKeys([
      { h: hash('ef56', 'pin:111111'), k: 'pin', win: [stay], n: 'Ana' },
      { h: hash('ef56', 'pin:111111'), k: 'pin', win: [later], n: 'Bea' },
    ]);
    expect(store.checkKey({ kind: 'pin', pin: '111111' }, new Date('2030-05-11T12:00:00.000Z'))).toEqual({ reason: 'granted', name: 'Ana' });
    expect(store.checkKey({ kind: 'pin', pin: '111111' }, new Date('2030-06-01T20:00:00.000Z'))).toEqual({ reason: 'granted', name: 'Bea' });
    const empty = await OfflineStore.open(await tempDir(), quiet);
    expect(empty.checkKey({ kind: 'pin', pin: '111111' }, new Date('2030-05-11T12:00:00.000Z'))).toEqual({ reason: 'invalid_key' });
  });
});
