// Issue 40, point 12: the dashboard's alarm stream (GET /api/door-alarms/stream)
// lives no longer than its viewer's right to it. Each stream asks its guard
// again every recheckMs (30 s; 20 ms here) and closes once its admin has signed
// out or been demoted; streams are capped per user and in all (429).
// The streams are opened as the server opens them: in a read-only request
// context, whose reads of the signed-in user are made once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as streamRoute from "~/routes/api.door-alarms.stream";
import * as userRoute from "~/routes/api.users.$id";
import * as logout from "~/routes/logout";
import { doorAlarmStreamSettings, openDoorAlarmStreamCount, TOO_MANY_STREAMS, TOO_MANY_STREAMS_OF_USER } from "~/services/door-alarm-streams.server";
import { withRequestContext } from "~/utils/request-context.server";
import { issueApiToken } from "~/models/api-token.server";
import { eventually } from "../../bridge/src/test-support/eventually";
import { createTestUser, sessionCookie } from "../setup/fixtures";
import { callApi, callRoute, formPost, pageRequest } from "../setup/route";

const defaults = { ...doorAlarmStreamSettings };
beforeAll(() => {
  doorAlarmStreamSettings.recheckMs = 20;
});
afterAll(() => {
  Object.assign(doorAlarmStreamSettings, defaults);
});

/** GET /api/door-alarms/stream as EventSource asks for it; the response, whatever the loader answered or threw. */
async function openStream(cookie: string): Promise<Response> {
  const request = pageRequest("/api/door-alarms/stream", cookie);
  request.headers.set("Accept", "text/event-stream");
  try {
    return await withRequestContext({ rendersDocument: false, toasts: [], forwardedProto: null, readOnly: true }, () =>
      streamRoute.loader({ request, params: {}, context: {} }),
    );
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

/** An open stream, read past its first `alarms` event; `closed` resolves when the server ends it. */
async function liveStream(cookie: string) {
  const response = await openStream(cookie);
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let received = "";
  while (!received.includes("event: alarms")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the stream ended before its first event");
    received += value;
  }
  const closed = (async () => {
    for (;;) if ((await reader.read()).done) return true;
  })();
  return { reader, closed };
}

describe("the alarm stream", () => {
  it("closes once its admin signs out, or is demoted; another admin's stays open", async () => {
    const [staying, leaving, demoted] = await Promise.all([1, 2, 3].map(() => createTestUser({ role: "admin" })));
    const stayingStream = await liveStream(await sessionCookie(staying!.id));
    const leavingCookie = await sessionCookie(leaving!.id);
    const leavingStream = await liveStream(leavingCookie);
    const demotedStream = await liveStream(await sessionCookie(demoted!.id));

    expect((await callRoute(logout.action, formPost("/logout", leavingCookie, {}))).status).toBe(302);
    await leavingStream.closed;
    expect(openDoorAlarmStreamCount(leaving!.id)).toBe(0);

    const { token } = await issueApiToken(staying!.id);
    const demotion = await callApi(userRoute.action, `/api/users/${demoted!.id}`, { method: "PUT", token, params: { id: demoted!.id }, body: { username: demoted!.username, email: demoted!.email, firstName: demoted!.firstName, role: "user" } });
    expect(demotion.status).toBe(200);
    await demotedStream.closed;
    expect(openDoorAlarmStreamCount(demoted!.id)).toBe(0);
    // Reopening is refused by the guard (EventSource stops retrying on it).
    expect((await openStream(await sessionCookie(demoted!.id))).status).toBe(403);

    // The admin still signed in has been rechecked as often, and still streams.
    expect(openDoorAlarmStreamCount(staying!.id)).toBe(1);
    await stayingStream.reader.cancel();
    await eventually(() => openDoorAlarmStreamCount(staying!.id) === 0, "the cancelled stream to free its slot");
  });

  it("is capped per user and in all: past a cap a 429 with a Spanish message", async () => {
    const before = { ...doorAlarmStreamSettings };
    Object.assign(doorAlarmStreamSettings, { perUser: 2, total: openDoorAlarmStreamCount() + 3 });
    try {
      const [first, second] = await Promise.all([1, 2].map(() => createTestUser({ role: "admin" })));
      const firstCookie = await sessionCookie(first!.id);
      const secondCookie = await sessionCookie(second!.id);
      const firstStreams = [await liveStream(firstCookie), await liveStream(firstCookie)];
      const perUser = await openStream(firstCookie);
      expect(perUser.status).toBe(429);
      expect(perUser.headers.get("Retry-After")).toBe("60");
      expect((await perUser.json()).error.message).toBe(TOO_MANY_STREAMS_OF_USER);

      const secondStream = await liveStream(secondCookie);
      const inAll = await openStream(secondCookie);
      expect(inAll.status).toBe(429);
      expect((await inAll.json()).error.message).toBe(TOO_MANY_STREAMS);

      // A closed tab frees its slot.
      await firstStreams[0]!.reader.cancel();
      await eventually(() => openDoorAlarmStreamCount(first!.id) === 1, "the closed stream to free its slot");
      const again = await liveStream(firstCookie);
      await Promise.all([again, firstStreams[1]!, secondStream].map((stream) => stream.reader.cancel()));
    } finally {
      Object.assign(doorAlarmStreamSettings, { perUser: before.perUser, total: before.total });
    }
  });
});
