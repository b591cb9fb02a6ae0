import { describe, expect, it } from 'vitest';
import { withTimeout } from './timeout.js';

describe('withTimeout', () => {
  it('settles like the promise when it settles in time', async () => {
    await expect(withTimeout(Promise.resolve(7), 1000, 'seven')).resolves.toBe(7);
    await expect(withTimeout(Promise.reject(new Error('refused')), 1000, 'answer')).rejects.toThrow('refused');
  });

  it('rejects, naming what it waited for, when the promise does not settle in time', async () => {
    await expect(withTimeout(new Promise<never>(() => {}), 20, 'the PUBACK')).rejects.toThrow('the PUBACK: timed out after 20 ms');
  });
});
