// Runs before every test file. Preact runs effects after the next animation
// frame: with a 100 ms timer beside requestAnimationFrame, whose callback
// calls cancelAnimationFrame. A test file's DOM environment (jsdom) is torn
// down when its last test ends, so an effect queued by a late state change
// (a fetch answered after the test's last flush) fired that timer into a
// global that no longer existed and failed the whole run with an unhandled
// ReferenceError. Scheduling effects on a plain timer keeps them off the
// animation-frame globals; act() still flushes them synchronously.
import { options } from "preact";

options.requestAnimationFrame = (cb: () => void) => {
  setTimeout(cb, 0);
};
