// One way to give up waiting: the app side's timeout for a promise (the
// bridge, a package of its own, keeps its own copy in bridge/src/mqtt-link.ts).

/**
 * Settles as `promise` does, or rejects with "<what>: no answer within <ms> ms"
 * once `ms` have passed. The promise itself is not cancelled.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
