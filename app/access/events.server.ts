// What the access service's modules tell each other (service.server.ts
// composes them): a module emits what happened, and the modules that care
// listen, so that no module is handed a callback into one built after it.
import type { BridgeStateMessage } from "~/doors/contract";
import type { DoorMode } from "~/doors/schedule";

export type AccessEvents = {
  /** A card or key was granted at this door, online or in a door's event (decisions.server.ts). */
  granted: [doorCode: string, at: Date];
  /** A recorded batch set these expired cards inactive (recording.server.ts): their doors' offline lists change. */
  cardsDeactivated: [cardIds: string[]];
  /** A door's mode (locked, unlocked by its timetable, lockdown) was published changed (door-publisher.server.ts). */
  doorModeChanged: [doorCode: string, mode: DoorMode];
  /** A known door's bridge state was recorded (door-state.server.ts). */
  bridgeStateRecorded: [doorCode: string, state: BridgeStateMessage];
};

type Listener<K extends keyof AccessEvents> = (...args: AccessEvents[K]) => void;

/** Synchronous, in order of subscription; a listener that throws is logged and the others still hear the event. */
export class AccessEventBus {
  private readonly listeners: { [K in keyof AccessEvents]?: Listener<K>[] } = {};

  on<K extends keyof AccessEvents>(event: K, listener: Listener<K>) {
    ((this.listeners[event] ??= []) as Listener<K>[]).push(listener);
  }

  emit<K extends keyof AccessEvents>(event: K, ...args: AccessEvents[K]) {
    for (const listener of (this.listeners[event] ?? []) as Listener<K>[]) {
      try {
        listener(...args);
      } catch (error) {
        console.error(`[access] a listener of ${event} failed`, error);
      }
    }
  }
}
