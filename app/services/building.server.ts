// The building's conditions for the portal (SPEC §3 Building info): the
// sensor's latest reading when it is at most an hour old, else the SPEC's
// defaults, saying so.
import { getLatestBuildingReading } from "~/models/building-reading.server";
import { isoString } from "~/utils/dates";

export const BUILDING_DEFAULTS = { temperature: 22, humidity: 45, wifiStatus: "Conectado" } as const;

/** A reading older than this is not shown: the defaults are, instead. */
export const READING_MAX_AGE_MS = 3600_000;

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
    recordedAt: isoString(reading.recordedAt),
    isDefault: false,
  };
}
export type BuildingInfo = Awaited<ReturnType<typeof getBuildingInfo>>;
