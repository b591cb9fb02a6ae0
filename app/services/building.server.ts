// The building's conditions from its sensor (docs/mqtt.md, "Building sensors").
// - The portal (getBuildingConditions) shows the latest reading with its age,
//   marked stale past READING_STALE_AFTER_MS, or "Sin datos de sensores" when
//   there is none: it never shows a value nobody measured.
// - GET /api/user-portal/building-info (getBuildingInfo) keeps SPEC §3's
//   contract: the reading of the last hour, else the SPEC's defaults flagged
//   `isDefault: true`.
import { getLatestBuildingReading } from "~/models/building-reading.server";

export const BUILDING_DEFAULTS = { temperature: 22, humidity: 45, wifiStatus: "Conectado" } as const;

/** The API answers the defaults instead of a reading older than this. */
export const READING_MAX_AGE_MS = 3600_000;

/** The portal shows a reading older than this as stale ('Dato antiguo'). */
export const READING_STALE_AFTER_MS = 30 * 60_000;

/** SPEC §3 building info, plus when it was measured (null for the defaults) and whether these are the defaults. */
export async function getBuildingInfo(now = new Date()) {
  const reading = await getLatestBuildingReading();
  if (!reading || now.getTime() - reading.recordedAt.getTime() > READING_MAX_AGE_MS) {
    return { ...BUILDING_DEFAULTS, recordedAt: null, isDefault: true };
  }
  return {
    temperature: reading.temperature,
    humidity: reading.humidity,
    wifiStatus: reading.wifiStatus,
    recordedAt: reading.recordedAt.toISOString(),
    isDefault: false,
  };
}
export type BuildingInfo = Awaited<ReturnType<typeof getBuildingInfo>>;

/** The portal's building card: the sensor's latest reading, whether stale, or null when no sensor has sent one. */
export async function getBuildingConditions(now = new Date()) {
  const reading = await getLatestBuildingReading();
  if (!reading) return { reading: null };
  return {
    reading: {
      temperature: reading.temperature,
      humidity: reading.humidity,
      wifiStatus: reading.wifiStatus,
      recordedAt: reading.recordedAt.toISOString(),
      stale: now.getTime() - reading.recordedAt.getTime() > READING_STALE_AFTER_MS,
    },
  };
}
export type BuildingConditions = Awaited<ReturnType<typeof getBuildingConditions>>;
