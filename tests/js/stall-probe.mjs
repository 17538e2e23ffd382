// The event-loop probe of the off-thread tests (offthread.test.mjs, offverify.test.mjs):
// while a call runs, the gaps of a 5 ms timer longer than STALL_MS, with the CPU time the
// main thread spent in each, so that a gap the machine's scheduler made is not taken for
// the package's work.
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** The functional bound: the event loop never waits longer than this for the package. */
export const STALL_MS = 50;

/**
 * Milliseconds this thread (the main one) has spent on a CPU, from Linux's per-thread
 * schedstat (nanoseconds), or null elsewhere. A gap of the event loop during which the
 * thread was not on a CPU is the machine's scheduler, not the package's work.
 */
export function mainThreadCpuMs() {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return null;
  }
}

/**
 * Runs `fn()` with the event loop probed every 5 ms (and perf_hooks' histogram): returns
 * its value, the histogram's largest delay and the gaps longer than STALL_MS with the CPU
 * time the main thread spent in each (`blocking`: that CPU time, or the wall time where it
 * cannot be read, is above STALL_MS).
 */
export async function probed(fn) {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  await sleep(20); // the histogram samples from its first timer on
  const gaps = [];
  let last = performance.now();
  let lastCpu = mainThreadCpuMs();
  const probe = setInterval(() => {
    const now = performance.now();
    const cpu = mainThreadCpuMs();
    if (now - last > STALL_MS) {
      const onCpu = cpu === null ? now - last : cpu - lastCpu;
      gaps.push({ wallMs: Math.round(now - last), cpuMs: Math.round(onCpu), blocking: onCpu > STALL_MS });
    }
    last = now;
    lastCpu = cpu;
  }, 5);
  try {
    const value = await fn();
    await sleep(20); // one more probe after the end
    return { value, maxDelayMs: histogram.max / 1e6, gaps };
  } finally {
    clearInterval(probe);
    histogram.disable();
  }
}

/** The threads of this process (Linux), or null. */
export function threads() {
  try {
    return Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
  } catch {
    return null;
  }
}

/** `call()`'s value, and whether it was answered without a turn of the event loop (no worker's answer can be). */
export async function answered(call) {
  let turned = false;
  const check = setImmediate(() => { turned = true; });
  const value = await call();
  clearImmediate(check);
  return { value, here: !turned };
}
