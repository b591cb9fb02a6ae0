import { DEFAULT_TIME_ZONE, type DisplayMessage } from './contract.js';
import { localDay, localTime, unlockedUntil } from './schedule.js';

/** What the lock does: shut (cards as usual), held released until `until`, or lockdown. */
export type DoorMode = { mode: 'locked' } | { mode: 'unlocked'; until: string } | { mode: 'lockdown' };

/**
 * The door's mode at an instant by the bridge's own clock, from the app's
 * retained display (docs/mqtt.md, "Doors on a timetable"): lockdown while the
 * door is in emergency; released inside the timetable when active, not on a
 * holiday (unless `onHolidays`) and, with first-person-in, once a card was
 * granted that day (`firstInDay`: the later of the bridge's own grants and
 * the app's word). The app's twin is app/doors/schedule.ts (doorModeAt).
 */
export function doorModeAt(display: DisplayMessage | null, at: Date, firstInDay: string | null): DoorMode {
  if (display?.doorStatus === 'emergency') return { mode: 'lockdown' };
  const timetable = display?.timetable;
  if (display?.doorStatus !== 'active' || timetable === undefined || timetable.sch.length === 0) return { mode: 'locked' };
  const timeZone = timetable.tz ?? DEFAULT_TIME_ZONE;
  const day = localDay(at, timeZone);
  if (timetable.holidays.includes(day) && !timetable.onHolidays) return { mode: 'locked' };
  if (timetable.firstPersonIn && firstInDay !== day && timetable.firstInDay !== day) return { mode: 'locked' };
  const until = unlockedUntil(timetable.sch, localTime(at, timeZone));
  return until === null ? { mode: 'locked' } : { mode: 'unlocked', until };
}

/** The idle screen while the timetable holds the door released. */
export function unlockedLines(until: string): [string, string] {
  return ['PUERTA ABIERTA', `hasta las ${until}`];
}
