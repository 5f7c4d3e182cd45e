// A client method's refusal as the tests read it: the JSON-RPC error it threw.
import * as assert from 'node:assert/strict';

export interface Refusal {
  code: number;
  message: string;
  data?: { reason?: string };
}

/** The error `work` was refused with; fails the test when it was served instead. */
export async function refusal(work: Promise<unknown>): Promise<Refusal> {
  try {
    await work;
  } catch (error) {
    return error as Refusal;
  }
  assert.fail('expected the request to be refused');
}
