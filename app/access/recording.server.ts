// Recording and receipts: the swipes the decisions module answered, and the
// doors' events, are written in batches (record-batch.server.ts): whatever
// arrived while the previous batch was being written goes into the next one,
// and each committed batch sends the doors a receipt, so their bridges drop
// what they kept of it. A quiet door gets a batch of one at once; a busy
// building shares each transaction and its fsync. build/access.js records in
// a thread of its own (recorder-thread.server.ts), so the main thread keeps
// reading swipes and sending decisions while a batch commits; recorded on
// the main thread (tests, scripts), commits under load are spaced by a short
// pause instead. The building sensors' readings (sensor-readings.server.ts)
// ride along in the next batch's transaction: they cost no commit of their own.
import type { NewBuildingReading } from "~/models/building-reading.server";
import { doorTopic, receiptMessages } from "~/doors/contract";
import type { DecisionSender } from "./decision-sender.server";
import type { AccessEventBus } from "./events.server";
import type { AccessContext, AccessModule, ModuleSubscription } from "./module.server";
import { recordAccessBatch, swipeAnswers, type AccessInput, type SwipeAnswer } from "./record-batch.server";
import { startRecorderThread, type RecorderThread } from "./recorder-thread.server";

/**
 * A swipe or event on its way to the log; answer: the decision published for
 * a swipe, before its commit; receivedAt: a swipe's arrival (performance.now()).
 */
export type QueuedInput = { input: AccessInput; correlationData?: Buffer; answer?: SwipeAnswer; receivedAt?: number };

export type RecordingOptions = {
  /** The bundle that runs the recorder thread (build/access.js); unset: record on this thread. */
  recorderThread?: string | URL;
  /** Another thread runs the WAL checkpoints (checkpointer.server.ts). */
  checkpointsElsewhere: boolean;
  /** A swipe that reached its batch unanswered is answered after the commit. */
  sender: DecisionSender;
  /** Told of the cards a batch set inactive because they had expired (`cardsDeactivated`). */
  events: AccessEventBus;
};

/** Largest batch recorded in one transaction. */
const MAX_BATCH = 500;
/**
 * Recording on the service's own thread, commits under load are at least this
 * far apart (each holds the thread for its fsync); see flush(). With the
 * recorder thread, the next batch starts as soon as the last one is done.
 */
const MIN_COMMIT_INTERVAL_MS = 8;

export class Recording implements AccessModule {
  readonly subscriptions: ModuleSubscription[] = [];
  /** Answered (swipes) or received (events), waiting for their batch. */
  private readonly queue: QueuedInput[] = [];
  /** The batch being recorded. */
  private recording: QueuedInput[] = [];
  /** Sensor readings for the next batch. */
  private readings: NewBuildingReading[] = [];
  private flushing: Promise<void> | null = null;
  private lastCommitAt = -Infinity;
  private recorder: RecorderThread | null = null;
  private readonly commitSpacingMs: number;

  constructor(
    private readonly context: AccessContext,
    private readonly options: RecordingOptions,
  ) {
    this.commitSpacingMs = options.recorderThread ? 0 : MIN_COMMIT_INTERVAL_MS;
  }

  start() {
    if (this.options.recorderThread) {
      this.recorder = startRecorderThread(this.options.recorderThread, { checkpointsElsewhere: this.options.checkpointsElsewhere });
    }
  }

  /** Received but not yet committed, in arrival order: decisions plan these first. */
  pending(): QueuedInput[] {
    return [...this.recording, ...this.queue];
  }

  add(items: QueuedInput[]) {
    this.queue.push(...items);
    this.flushing ??= this.flush();
  }

  /** Stored with the next batch (one of its own when no swipe comes). */
  addReadings(readings: NewBuildingReading[]) {
    this.readings.push(...readings);
    this.flushing ??= this.flush();
  }

  /** Resolves once everything added is recorded. */
  async stop() {
    while (this.flushing) await this.flushing;
  }

  async close() {
    await this.recorder?.stop();
  }

  private async flush() {
    while (this.queue.length > 0 || this.readings.length > 0) {
      // Group commit: every commit waits for its fsync, so under load commits
      // are spaced by at least commitSpacingMs and each takes
      // everything that arrived meanwhile. A lone swipe goes at once.
      const wait = this.lastCommitAt + this.commitSpacingMs - performance.now();
      await new Promise((resolve) => (wait > 0 ? setTimeout(resolve, wait) : setImmediate(resolve)));
      this.lastCommitAt = performance.now();
      this.recording = this.queue.splice(0, MAX_BATCH);
      const readings = this.readings.splice(0);
      await this.recordBatch(this.recording, readings);
      this.recording = [];
    }
    this.flushing = null;
  }

  private async recordBatch(batch: QueuedInput[], readings: NewBuildingReading[]) {
    let result;
    try {
      const inputs = batch.map((item) => item.input);
      const answers = swipeAnswers(batch);
      const now = new Date();
      result = await (this.recorder ? this.recorder.record(inputs, answers, now, readings) : recordAccessBatch(inputs, now, answers, readings));
    } catch (error) {
      // Nothing was committed and no receipt goes out: the bridges send their
      // events and answered swipes again; an unanswered swipe gets no
      // decision, so its door decides offline and reports it as an event.
      // The readings are lost (the sensor's next one follows within seconds).
      console.error(`[access] could not record ${batch.length} swipes/events and ${readings.length} sensor readings`, error);
      return;
    }
    const { counters } = this.context;
    counters.batches += 1;
    counters.events += batch.filter((item) => item.input.kind === "event").length;
    // Decisions before receipts: a bridge keeps a swipe once it has its decision.
    const received = new Map(batch.map((item) => [item.input.id, item]));
    for (const decision of result.decisions) {
      const item = received.get(decision.id);
      this.options.sender.send(decision, item?.correlationData, item?.receivedAt);
    }
    this.publishReceipts(batch);
    if (result.deactivatedCardIds.length > 0) this.options.events.emit("cardsDeactivated", result.deactivatedCardIds);
  }

  /**
   * Tells each door's bridge which of its swipes and events this committed
   * batch holds (duplicates too), so that it can drop them from its queue.
   */
  private publishReceipts(batch: QueuedInput[]) {
    const storedByDoor = new Map<string, { ids: string[]; swipes: string[] }>();
    for (const { input } of batch) {
      const stored = storedByDoor.get(input.doorCode) ?? { ids: [], swipes: [] };
      (input.kind === "swipe" ? stored.swipes : stored.ids).push(input.id);
      storedByDoor.set(input.doorCode, stored);
    }
    const { client, prefix } = this.context;
    for (const [doorCode, stored] of storedByDoor) {
      for (const message of receiptMessages(stored)) {
        client.publish(doorTopic(prefix, doorCode, "receipt"), JSON.stringify(message), { qos: 1 }, (error) => {
          if (error && !this.context.stopping()) console.warn(`[access] receipt for door ${doorCode}: ${error.message}`);
        });
      }
    }
  }
}
