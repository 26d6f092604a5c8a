// The page side of `activity.rs`, in retrace's isolated world (see `world.rs`). The tracker
// part also runs at the start of every new document, so DOM changes are seen from the first
// node on; the probe installs it if it is not there yet (the document that was open when the
// page was set up) and reports what the document is doing. Called as `(THIS)(probe)`.
(probe) => {
  if (!globalThis.__retraceActivity) {
    const state = {last: performance.now(), count: 0, painted: performance.now()};
    globalThis.__retraceActivity = state;
    new MutationObserver((records) => { state.last = performance.now(); state.count += records.length; })
      .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
    // What changes the picture without changing the DOM: a scroll, an image or font that
    // finished loading, a focus move, a field's value, an animation or transition starting.
    // Listened to on the document in the capture phase, so events that do not bubble (an
    // element's scroll, an image's load, which never reaches the window) are seen too.
    const painted = () => { state.painted = performance.now(); };
    for (const type of ['scroll', 'load', 'error', 'focusin', 'focusout', 'input', 'change',
      'toggle', 'animationstart', 'transitionrun']) {
      document.addEventListener(type, painted, {capture: true, passive: true});
    }
    addEventListener('resize', painted, {passive: true});
    if (document.fonts) document.fonts.addEventListener('loadingdone', painted);
    // A navigation away from this document, announced as the page starts it (a form
    // submitted, a link followed, `location` set): the browser reports it only once its
    // process has begun loading, which on a loaded machine can be long after the click that
    // caused it. An intercepted (same-document) one ends with `navigatesuccess`/`-error`.
    if (globalThis.navigation) {
      navigation.addEventListener('navigate', (event) => {
        if (event.destination.sameDocument || event.downloadRequest !== null) return;
        state.leaving = {at: performance.now(), event};
      });
      const stayed = () => { state.leaving = null; };
      navigation.addEventListener('navigatesuccess', stayed);
      navigation.addEventListener('navigateerror', stayed);
    }
  }
  if (!probe) return null;
  const describe = (el) => {
    if (!el || !el.localName) return 'the page';
    if (el.id) return el.localName + '#' + el.id;
    const classes = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean) : [];
    return el.localName + (classes.length ? '.' + classes.slice(0, 3).join('.') : '');
  };
  const nameOf = (a) => a.animationName || a.transitionProperty || a.id || 'an animation';
  const leaving = globalThis.__retraceActivity.leaving;
  const running = document.getAnimations().filter((a) => a.playState === 'running');
  return {
    ready_state: document.readyState,
    fonts_ready: !document.fonts || document.fonts.status === 'loaded',
    animations_running: running.length,
    animations: running.slice(0, 3).map((a) => nameOf(a) + ' on ' + describe(a.effect && a.effect.target)),
    media_playing: Array.from(document.querySelectorAll('video, audio')).filter((m) => !m.paused && !m.ended).length,
    dom_quiet_ms: Math.max(0, performance.now() - globalThis.__retraceActivity.last),
    dom_mutations: globalThis.__retraceActivity.count,
    render_quiet_ms: Math.max(0, performance.now() - Math.max(globalThis.__retraceActivity.last, globalThis.__retraceActivity.painted)),
    // Elements that can paint with no DOM change or event this script sees.
    opaque_painters: document.querySelectorAll('canvas, iframe, frame, embed, object, video').length,
    // How long ago this document started a navigation away that the page did not cancel.
    leaving_ms: leaving && !leaving.event.defaultPrevented ? Math.max(0, performance.now() - leaving.at) : null,
  };
}
