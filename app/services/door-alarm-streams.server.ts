// The dashboards' live alarm streams (GET /api/door-alarms/stream, server-sent
// events): an `alarms` event ({alarms, count}, as GET /api/door-alarms) at
// once and whenever the open alarms change.
//
// A stream lives no longer than its viewer's right to it: every
// `recheckMs` (30 s) it asks `stillAllowed` (the route's guard, run again)
// and closes when the session has ended, the user is no longer an active
// admin, or the token has expired. EventSource then reconnects, and the guard
// refuses it for good. Streams are capped per user and in this process, so a
// forgotten heap of tabs (or a script) cannot hold every socket: past a cap
// the stream is refused with a 429 and a Spanish message.
import { refuse, type Result } from "~/utils/refusal.server";
import { listDoorAlarms, watchDoorAlarms, type DoorAlarmJson } from "./door-alarms.server";

/** The streams' timings and caps; tests lower them. */
export const doorAlarmStreamSettings = {
  /** How often a stream checks that its viewer may still see it. */
  recheckMs: 30_000,
  /** A comment line this often keeps proxies from closing a quiet stream. */
  keepAliveMs: 25_000,
  /** Streams one user may hold open at once (a few tabs and screens). */
  perUser: 5,
  /** Streams this process holds open at once. */
  total: 50,
};

export const TOO_MANY_STREAMS_OF_USER =
  "Tienes demasiadas ventanas abiertas con las alarmas en directo. Cierra alguna y vuelve a cargar la página.";
export const TOO_MANY_STREAMS = "Hay demasiadas conexiones abiertas a las alarmas en directo. Vuelve a intentarlo dentro de un minuto.";

const openByUser = new Map<string, number>();
let openTotal = 0;

/** How many streams are open now, in all and for a user. */
export function openDoorAlarmStreamCount(userId?: string) {
  return userId === undefined ? openTotal : (openByUser.get(userId) ?? 0);
}

function claim(userId: string) {
  openTotal += 1;
  openByUser.set(userId, (openByUser.get(userId) ?? 0) + 1);
}

function release(userId: string) {
  openTotal -= 1;
  const left = (openByUser.get(userId) ?? 1) - 1;
  if (left > 0) openByUser.set(userId, left);
  else openByUser.delete(userId);
}

type StreamRequest = {
  userId: string;
  /** Whether the viewer may still see the stream (false or a throw closes it). */
  stillAllowed: () => Promise<boolean>;
  /** The request's signal: the client went away. */
  signal: AbortSignal;
};

/** Opens a stream for the user, or refuses it (429) past a cap. */
export async function openDoorAlarmStream({ userId, stillAllowed, signal }: StreamRequest): Promise<Result<{ body: ReadableStream<Uint8Array> }>> {
  const settings = doorAlarmStreamSettings;
  if (openTotal >= settings.total) return refuse(429, TOO_MANY_STREAMS, { retryAfterSeconds: 60 });
  if (openDoorAlarmStreamCount(userId) >= settings.perUser) return refuse(429, TOO_MANY_STREAMS_OF_USER, { retryAfterSeconds: 60 });
  // The slot is taken before the first await, so streams opened at once see each other.
  claim(userId);
  let initial: DoorAlarmJson[];
  try {
    initial = await listDoorAlarms();
  } catch (error) {
    release(userId);
    throw error;
  }
  const encoder = new TextEncoder();
  let end = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let ended = false;
      const write = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          end();
        }
      };
      const send = (alarms: DoorAlarmJson[]) => write(`event: alarms\ndata: ${JSON.stringify({ alarms, count: alarms.length })}\n\n`);
      write("retry: 3000\n\n");
      send(initial);
      const unwatch = watchDoorAlarms(send);
      const keepAlive = setInterval(() => write(": keep-alive\n\n"), settings.keepAliveMs);
      let checking = false;
      const recheck = setInterval(() => {
        if (checking) return;
        checking = true;
        stillAllowed()
          .then(
            (allowed) => {
              if (!allowed) end();
            },
            (error: unknown) => {
              console.error("[alarms] could not check a stream's session; closing it", error);
              end();
            },
          )
          .finally(() => {
            checking = false;
          });
      }, settings.recheckMs);
      end = () => {
        if (ended) return;
        ended = true;
        unwatch();
        clearInterval(keepAlive);
        clearInterval(recheck);
        release(userId);
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      if (signal.aborted) end();
      else signal.addEventListener("abort", () => end(), { once: true });
    },
    cancel() {
      end();
    },
  });
  return { ok: true, body };
}
