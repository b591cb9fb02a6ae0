// The dashboard's door alarms (forced, held open, offline): a badge with how
// many are open and their list. Rendered from the loader's list (without
// JavaScript, a reload shows the current ones); with JavaScript it follows
// GET /api/door-alarms/stream (server-sent events) and changes in place.
import { useEffect, useState } from "react";
import type { DoorAlarmJson } from "~/services/door-alarms.server";
import { formatDateTime } from "~/utils/dates";

export const DOOR_ALARMS_STREAM = "/api/door-alarms/stream";

export function DoorAlarmsPanel({ alarms: initial }: { alarms: DoorAlarmJson[] }) {
  const [alarms, setAlarms] = useState(initial);
  const [live, setLive] = useState(true);
  useEffect(() => setAlarms(initial), [initial]);
  useEffect(() => {
    const source = new EventSource(DOOR_ALARMS_STREAM);
    source.addEventListener("alarms", (event) => {
      const message = JSON.parse((event as MessageEvent<string>).data) as { alarms: DoorAlarmJson[] };
      setAlarms(message.alarms);
      setLive(true);
    });
    // A refused stream (signed out, no longer an admin, too many open) is not retried by EventSource.
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED) setLive(false);
    });
    return () => source.close();
  }, []);
  return (
    <section aria-labelledby="alarms-title" className={alarms.length > 0 ? "card alarm-panel alarm-panel-active" : "card alarm-panel"}>
      <h2 id="alarms-title">
        Alarmas de puertas{" "}
        <span className={alarms.length > 0 ? "badge badge-emergency" : "badge badge-closed"} data-testid="alarm-badge" aria-live="polite">
          {alarms.length}
        </span>
      </h2>
      {live ? null : (
        <p className="muted" role="status">
          Las alarmas ya no se actualizan solas: vuelve a cargar la página.
        </p>
      )}
      {alarms.length === 0 ? (
        <p className="muted">No hay alarmas activas.</p>
      ) : (
        <ul className="alarm-list" data-testid="alarm-list">
          {alarms.map((alarm) => (
            <li key={alarm._id} data-kind={alarm.kind}>
              <strong>{alarm.label}</strong>: {alarm.doorName} ({alarm.doorLocation}), desde {formatDateTime(alarm.raisedAt)}
              {alarm.repeats > 0 ? ` · se ha repetido ${alarm.repeats === 1 ? "1 vez" : `${alarm.repeats} veces`}` : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
