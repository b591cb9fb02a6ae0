import type { LoaderFunctionArgs } from "@remix-run/node";
import { openDoorAlarmStream } from "~/services/door-alarm-streams.server";
import { refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";
import { refuse } from "~/utils/refusal.server";
import { withRequestContext } from "~/utils/request-context.server";

// GET /api/door-alarms/stream: server-sent events (services/door-alarm-streams.server.ts).
// `no-transform` keeps remix-serve's compression from buffering the stream.
// Only a client that asks for an event stream gets one (EventSource does):
// anything else, Remix's `.data` URL of this route included, would wait on a
// body that never ends, so it is refused with 406. The stream closes once
// this guard, run again, refuses its caller (signed out, demoted, made
// inactive); past the caps it is refused with a 429.
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireApiAdmin(request);
  if (!request.headers.get("Accept")?.includes("text/event-stream")) {
    refuseApi(refuse(406, "Este recurso es un flujo de eventos: pídelo con Accept: text/event-stream"));
  }
  const opened = await openDoorAlarmStream({ userId: admin.id, stillAllowed: () => stillAdmin(request), signal: request.signal });
  if (!opened.ok) refuseApi(opened);
  return new Response(opened.body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}

/**
 * The guard again, in a context of its own: a GET's context keeps what its
 * guards read once (memoInRequest), and the question is who the caller is now.
 */
async function stillAdmin(request: Request) {
  try {
    await withRequestContext({ rendersDocument: false, toasts: [], forwardedProto: null }, () => requireApiAdmin(request));
    return true;
  } catch (thrown) {
    if (thrown instanceof Response) return false;
    throw thrown;
  }
}
