// The widget's clock: every wait of the betting logic (poll schedule,
// replays, balance re-reads, stream reconnects) goes through it.
//
// Browser tests replace it through a hook that only the DevTools protocol
// can set: before any script of the page runs, the test evaluates
//   window.__foresightTestClock = { scale: 0.02 }
// (Page.addScriptToEvaluateOnNewDocument). The clock then keeps virtual
// time: sleep(ms) advances now() by exactly ms and resolves after
// ms × scale real milliseconds, and every wait is recorded in
// __foresightTestClock.waits as {label, ms}. The 60 s poll ceiling is then
// 60 virtual seconds, about 1.2 real ones. The served widget never sets
// the hook, and no server setting enables it.

function realClock() {
  return {
    now: () => performance.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}

function testClock(hook) {
  let virtual = 0;
  hook.waits = [];
  const scale = Number(hook.scale) > 0 ? Number(hook.scale) : 1;
  return {
    now: () => virtual,
    sleep: (ms, label = "") => {
      virtual += ms;
      hook.waits.push({ label, ms });
      return new Promise((resolve) => setTimeout(resolve, ms * scale));
    },
  };
}

const hook = globalThis.__foresightTestClock;

// clock is the clock in use.
export const clock = hook && typeof hook === "object" ? testClock(hook) : realClock();
