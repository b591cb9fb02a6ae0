// Building sensors' credentials: issued (or replaced) by an admin's
// provisioning script (scripts/provision-sensor.ts, `npm run sensor`).
import { generateBridgeSecret, mosquittoPasswordHash } from "~/utils/mosquitto-password.server";
import { SENSOR_ID_PATTERN, sensorUsername } from "~/doors/contract";
import { setSensorSecretHash } from "~/models/building-sensor.server";
import { audited } from "./audit.server";

/**
 * A fresh credential for the sensor (created when new). The secret is
 * returned once; only its hash is kept, so the previous one stops working
 * for new logins at once (on Mosquitto: after the files are regenerated).
 */
export async function provisionBuildingSensor(sensorId: string) {
  if (!SENSOR_ID_PATTERN.test(sensorId)) throw new Error(`sensor id must match ${SENSOR_ID_PATTERN}: ${JSON.stringify(sensorId)}`);
  const password = generateBridgeSecret();
  const secretHash = mosquittoPasswordHash(password);
  await audited(async (audit) => {
    await setSensorSecretHash(sensorId, secretHash);
    audit({
      action: "sensor.credential",
      entityType: "sensor",
      entityId: sensorId,
      summary: `renovó la credencial del sensor ${sensorId}`,
      after: { sensorSecretHash: secretHash },
    });
  });
  return { username: sensorUsername(sensorId), password };
}
