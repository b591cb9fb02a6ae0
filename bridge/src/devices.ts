import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { ContactConfig, DisplayConfig, LockConfig, ReaderConfig } from './config.js';
import type { Logger } from './logger.js';
import type { SerialPortFactory } from './serial.js';

// The door's devices as the controller and the door see them, and what every
// driver is given. Each kind has a folder (readers/, locks/, displays/): one
// file per driver exporting `open<Driver>(config, env)`, and an index.ts whose
// open function picks the driver named in the config.

/**
 * What a reader read: a canonical card id, a PIN entered on a keypad (digits
 * only), or a token a QR scanner read (`LC1-` + base32).
 */
export type Credential = { kind: 'card'; card: string } | { kind: 'pin'; pin: string } | { kind: 'qr'; qr: string };

/** Called with each credential a reader reads (repeats included; the controller filters them). */
export type CredentialListener = (credential: Credential) => void;

/** An open reader: it owns its port (or stdin) and hands each credential to the listener it was opened with. */
export interface Reader {
  readonly driver: ReaderConfig['driver'];
  close(): Promise<void>;
}

export interface Lock {
  readonly driver: LockConfig['driver'];
  unlock(): Promise<void>;
  lock(): Promise<void>;
  /** Locks, then releases the hardware: the door is left shut (fail-secure). */
  close(): Promise<void>;
}

export interface Display {
  readonly driver: DisplayConfig['driver'];
  /** Shows two lines; drivers fit the text to the 16x2 screen themselves. */
  show(line1: string, line2: string): Promise<void>;
  close(): Promise<void>;
}

export type SpawnFunction = (command: string, args: readonly string[]) => ChildProcess;

/** What every driver is given; each uses the parts it needs. */
export interface DeviceEnvironment {
  /** Builds serial ports (real ones, or SerialPortMock in tests). */
  serialPortFactory: SerialPortFactory;
  /** Runs gpioset (the gpio lock). */
  spawn: SpawnFunction;
  /** Input of the keyboard reader. */
  stdin: Readable;
  logger: Logger;
  /** Called once when a device is lost (a port closed under the bridge, gpioset died): the bridge stops. */
  onLost: (error: Error) => void;
}

/** What a door-position switch reports: the door leaf open or closed. */
export type ContactState = 'open' | 'closed';

/** Called with each reading of the contact (repeats included; the controller reports changes only). */
export type ContactListener = (state: ContactState) => void;

/** An open door-position input: it owns its port or GPIO line and hands each reading to its listener until closed. */
export interface Contact {
  readonly driver: ContactConfig['driver'];
  close(): Promise<void>;
}
