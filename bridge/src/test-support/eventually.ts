/**
 * The tests' one polling helper, for the bridge's tests and the app's
 * (tests/ imports it from here): calls check every 10 ms until it answers a
 * truthy value, and resolves with that value. Fails after timeoutMs with
 * "timed out waiting for <what>". Waits on a signal, never a fixed sleep: to
 * show that something did not happen, wait for a marker sent after it.
 */
export async function eventually<T>(check: () => T | Promise<T>, what = 'the condition', timeoutMs = 5000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${timeoutMs} ms)`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
