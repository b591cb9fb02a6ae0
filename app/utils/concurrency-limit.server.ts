// A cap on how many of some costly job run at once in this process: at most
// `running` at a time, the others waiting their turn in order; with
// `waiting`, a job that would have to wait behind that many is refused at
// once (`busy()`), so a burst cannot queue up minutes of work.

export type ConcurrencyLimit = {
  /** Runs `work` as soon as a place is free. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Whether a job started now would be refused (every place taken, the queue full). */
  busy(): boolean;
  load(): { running: number; waiting: number };
};

export function concurrencyLimit({ running, waiting = Infinity }: { running: number; waiting?: number }): ConcurrencyLimit {
  let active = 0;
  const queue: (() => void)[] = [];
  return {
    async run(work) {
      if (active < running) active += 1;
      else await new Promise<void>((resolve) => queue.push(resolve)); // the place is handed over, not freed
      try {
        return await work();
      } finally {
        const next = queue.shift();
        if (next) next();
        else active -= 1;
      }
    },
    busy: () => active >= running && queue.length >= waiting,
    load: () => ({ running: active, waiting: queue.length }),
  };
}
