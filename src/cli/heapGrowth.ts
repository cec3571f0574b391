import * as v8 from 'node:v8';
import { namesNodeFlag } from './nodeFlags';

/**
 * How far V8 lets the heap grow past what survived the last full collection before it collects
 * again. The default lets a cold index's heap run well ahead of what it holds; at 30 % the heap is
 * collected sooner, for a little more collection work.
 */
export const heapGrowingPercent = 30;

const flag = `--heap-growing-percent=${heapGrowingPercent}`;

/**
 * Sets the heap growth flag for this process, unless the command line or `NODE_OPTIONS` already names
 * one. Called first thing in the CLI and the bench's index child, before the large allocations of an
 * index: V8 reads the flag whenever it sizes the next heap limit.
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if (namesNodeFlag(/^--heap[-_]growing[-_]percent\b/, execArgv, nodeOptions)) return false;
  v8.setFlagsFromString(flag);
  return true;
}
