import type { LoaderFunctionArgs } from "@remix-run/node";
import { listDoorAlarms, watchDoorAlarms, type DoorAlarmJson } from "~/services/door-alarms.server";
import { refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";
import { refuse } from "~/utils/refusal.server";

/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEP_ALIVE_MS = 25_000;

// GET /api/door-alarms/stream: server-sent events. An `alarms` event
// ({alarms, count}, as GET /api/door-alarms) at once and whenever the open
// alarms change. `no-transform` keeps remix-serve's compression from
// buffering the stream. Only a client that asks for an event stream gets one
// (EventSource does): anything else, Remix's `.data` URL of this route
// included, would wait on a body that never ends, so it is refused with 406.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  if (!request.headers.get("Accept")?.includes("text/event-stream")) {
    refuseApi(refuse(406, "Este recurso es un flujo de eventos: pídelo con Accept: text/event-stream"));
  }
  const initial = await listDoorAlarms();
  const encoder = new TextEncoder();
  let end = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
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
      const keepAlive = setInterval(() => write(": keep-alive\n\n"), KEEP_ALIVE_MS);
      end = () => {
        end = () => {};
        unwatch();
        clearInterval(keepAlive);
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      request.signal.addEventListener("abort", () => end(), { once: true });
    },
    cancel() {
      end();
    },
  });
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}
