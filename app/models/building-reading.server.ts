// The building's conditions as its sensors report them (temperature,
// humidity, WiFi status); the access service stores each valid reading.
import { buildingReadings } from "~/db/schema";
import { createId } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";

export async function insertBuildingReading({
  temperature,
  humidity,
  wifiStatus,
  recordedAt,
}: {
  temperature: number;
  humidity: number;
  wifiStatus: string;
  recordedAt: Date;
}) {
  await getDb().insert(buildingReadings).values({ id: createId(), temperature, humidity, wifiStatus, recordedAt });
}
