// How a page follows the fight: the server pushes a line whenever it changes (server-sent events). The browser
// reopens a stream the server ended by itself (every minute), but one answered with an error (a server
// restarting, a proxy's 502) it closes for good, and a reopening can hang on a phone's lost network: so a
// stream closed is opened again after a pause (1 s, doubling to 30 s), and while it has been down longer than
// a reconnection the page asks the server itself (`poll`) every 2 s, so a change made meanwhile still reaches
// it. Without EventSource the page only polls.
"use strict";
window.followFight = function (url, on) {
  const QUIET_MS = 2500; // a stream down this long (not a reconnection) is said, and polled around
  const POLL_MS = 2000;
  let down = null; // the timer that says "down"
  let polling = null;
  let pause = 1000;

  function answering() {
    clearTimeout(down);
    down = null;
    clearTimeout(polling);
    polling = null;
    pause = 1000;
    on.up();
  }

  async function poll() {
    polling = null;
    try {
      await on.poll();
    } catch (e) {
      on.down();
    }
    if (down !== null || !window.EventSource) polling = setTimeout(poll, POLL_MS);
  }

  function notAnswering() {
    if (down !== null) return;
    down = setTimeout(() => {
      on.down();
      if (polling === null) poll();
    }, QUIET_MS);
  }

  function open() {
    const stream = new EventSource(url);
    stream.onopen = answering;
    stream.onmessage = (ev) => { answering(); on.message(JSON.parse(ev.data)); };
    stream.onerror = () => {
      if (stream.readyState === EventSource.OPEN) return;
      notAnswering();
      if (stream.readyState === EventSource.CLOSED) { // refused: the browser will not try again by itself
        stream.close();
        setTimeout(open, pause);
        pause = Math.min(2 * pause, 30000);
      }
    };
  }

  if (window.EventSource) open();
  else polling = setTimeout(poll, POLL_MS);
};
