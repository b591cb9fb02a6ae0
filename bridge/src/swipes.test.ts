import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Decision, SwipeMessage } from './contract.js';
import type { Door } from './door.js';
import type { Logger } from './logger.js';
import type { MqttLink } from './mqtt-link.js';
import { OfflineEvents } from './offline-events.js';
import { OfflineStore } from './offline-store.js';
import { keyGreeting, Swipes } from './swipes.js';
import { eventually } from './test-support/eventually.js';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const SWIPE_TOPIC = 'coliving/doors/d1/swipe';
const EVENTS_TOPIC = 'coliving/doors/d1/events';

/** Swipes with a real store and event queue, a link that records what it publishes and a door that does nothing. */
async function setUp(decisionTimeoutMs = 2000) {
  const store = await OfflineStore.open(await mkdtemp(path.join(tmpdir(), 'bridge-swipes-')), quiet);
  const published: Array<{ topic: string; json: unknown }> = [];
  const link = {
    connected: true,
    publish: async (topic: string, payload: string) => void published.push({ topic, json: JSON.parse(payload) }),
  } as unknown as MqttLink;
  const door = { unlockFor: async () => {}, showDecision: async () => {} } as unknown as Door;
  const events = new OfflineEvents({ store, link, topic: EVENTS_TOPIC, resendMs: 30_000, logger: quiet });
  const config = { decisionTimeoutMs, unlockMs: undefined, offline: 'cache' as const };
  const swipes = new Swipes({ config, door, link, store, events, swipeTopic: SWIPE_TOPIC, logger: quiet, clock: () => new Date() });
  /** Waits for the swipe on the link and answers it with this decision. */
  const answer = async (decision: Omit<Decision, 'id'>): Promise<SwipeMessage> => {
    await eventually(() => published.some((message) => message.topic === SWIPE_TOPIC), 'the swipe');
    const swipe = published.find((message) => message.topic === SWIPE_TOPIC)?.json as SwipeMessage;
    swipes.receiveDecision({ id: swipe.id, ...decision });
    return swipe;
  };
  return { store, events, swipes, published, answer, stop: () => events.stop() };
}

const denial = { granted: false, reason: 'card_suspended', display: { line1: 'ACCESS DENIED', line2: 'SUSPENDED' }, unlockMs: 0 };

describe('Swipes: answered swipes in the event queue', () => {
  it('queues the swipe the app answered, with its decision, and does not publish it', async () => {
    const { store, swipes, published, answer, stop } = await setUp();
    const outcome = swipes.handleCard('004E2B4E');
    const swipe = await answer(denial);
    expect(await outcome).toMatchObject({ id: swipe.id, granted: false, reason: 'card_suspended', offline: false });
    expect(store.pendingEvents()).toEqual([
      { id: swipe.id, card: '004E2B4E', at: swipe.at, granted: false, reason: 'card_suspended', offline: false },
    ]);
    expect(published.map((message) => message.topic)).toEqual([SWIPE_TOPIC]);
    stop();
  });

  it('a receipt handled right after the decision, before the swipe goes on, removes it', async () => {
    const { store, events, swipes, answer, stop } = await setUp();
    const appends = vi.spyOn(store, 'appendEvent');
    const outcome = swipes.handleCard('004E2B4E');
    const swipe = await answer(denial);
    // Two messages from one read: mqtt.js hands over the second before any promise continuation runs.
    const receipted = events.receive({ swipes: [swipe.id] });
    await outcome;
    await receipted;
    expect(appends).toHaveBeenCalledWith(expect.objectContaining({ id: swipe.id, offline: false }));
    expect(store.pendingCount).toBe(0);
    stop();
  });

  it('a receipt for the swipe under swipes leaves the offline event decided under its id: it stays queued and is sent again', async () => {
    const { store, events, swipes, published, stop } = await setUp(20);
    // No decision within the timeout: the door decides offline, under the swipe's id.
    const outcome = await swipes.handleCard('004E2B4E');
    expect(outcome).toMatchObject({ offline: true, reason: 'unknown_card' });
    const id = outcome?.id ?? '';
    const sent = () => published.filter((message) => message.topic === EVENTS_TOPIC && (message.json as { id: string }).id === id).length;
    await eventually(() => sent() === 1, 'the offline event');

    const answered = { id: 'answered-1', card: '0012D687', at: new Date().toISOString(), granted: true, reason: 'granted', offline: false as const };
    await events.recordAnswered(answered);

    // The app stored its own decisions' rows: the late one for this swipe is not the door's event.
    await events.receive({ swipes: [id, answered.id] });
    expect(store.pendingEvents()).toEqual([expect.objectContaining({ id, offline: true, reason: 'unknown_card' })]);
    events.onConnect();
    await eventually(() => sent() === 2, 'the offline event to be sent again');

    await events.receive({ ids: [id] });
    expect(store.pendingCount).toBe(0);
    stop();
  });
});

describe('keyGreeting (offline grants by a key)', () => {
  it('greets by the name when it fits the LCD line, else by its first word, cut to 16; no name, no greeting', () => {
    expect(keyGreeting('Ana')).toBe('Hola, Ana');
    expect(keyGreeting('Ana María López')).toBe('Hola, Ana');
    expect(keyGreeting('Maximilianoandrés')).toBe('Hola, Maximilian');
    expect(keyGreeting('  ')).toBeNull();
  });
});
