// The page side of `demonstration.rs`: reports what a person does in the page, from capture
// listeners on the window (they run before any listener of the page's own), through the
// binding `demonstration.rs` names. Runs in an isolated world of every document of the top
// frame, out of reach of the page's scripts. Times are milliseconds since the epoch, of the input itself
// (the event's time stamp), so the frame on the screen before it can be told from the frames
// after. Elements are described by `element.js`, the script replay's semantic check reads them
// with, at the moment of the input, before the page reacts.
(() => {
  if (window.top !== window || window.__retraceDemonstration) return;
  window.__retraceDemonstration = true;
  const element = (ELEMENT_JS);
  const describe = (op, arg) => { try { return element(op, arg); } catch (e) { return null; } };
  const report = (input) => { try { BINDING(JSON.stringify(input)); } catch (e) { /* gone */ } };
  const at = (e) => performance.timeOrigin + e.timeStamp;
  const point = (e) => ({x: e.clientX, y: e.clientY});
  const place = () => ({path: location.pathname, title: document.title});

  // Where the viewport is on the screen, once (pointer moves are not recorded), and where the
  // pointer is now (what a checkpoint marks).
  let located = false;
  let pointer = null;
  addEventListener('mousemove', (e) => {
    if (!e.isTrusted) return;
    pointer = point(e);
    if (located) return;
    located = true;
    report({kind: 'pointer', x: e.clientX, y: e.clientY, screen_x: e.screenX, screen_y: e.screenY});
  }, true);

  // A click is reported once complete (so the page has handled it when retrace looks at what
  // it changed), with what was under the pointer and focused when the button went down.
  let down = null;
  addEventListener('mousedown', (e) => {
    if (!e.isTrusted) return;
    down = {button: e.button, ...point(e), time: at(e),
      element: describe('at', point(e)), focused: describe('focused', null), place: place()};
  }, true);
  const clicked = (e) => {
    if (!e.isTrusted || !down || down.button !== e.button) return;
    report({kind: 'click', count: Math.max(1, e.detail || 1), ...down});
    down = null;
  };
  // A left button released away from where it went down is a drag (its click, if any, is
  // not one of its own).
  addEventListener('mouseup', (e) => {
    if (!e.isTrusted || !down || down.button !== 0 || e.button !== 0) return;
    if (Math.abs(e.clientX - down.x) <= 4 && Math.abs(e.clientY - down.y) <= 4) return;
    report({kind: 'drag', ...down, to_x: e.clientX, to_y: e.clientY});
    down = null;
  }, true);
  addEventListener('click', clicked, true);
  addEventListener('auxclick', clicked, true);
  addEventListener('contextmenu', clicked, true);

  addEventListener('keydown', (e) => {
    if (!e.isTrusted || e.isComposing) return;
    // Ctrl+Shift+K marks the element under the pointer as a checkpoint; the page never
    // sees the keys.
    if (e.ctrlKey && e.shiftKey && !e.altKey && !e.metaKey && e.key.toLowerCase() === 'k') {
      e.preventDefault();
      e.stopImmediatePropagation();
      if (pointer) report({kind: 'checkpoint', ...pointer, time: at(e),
        element: describe('at', pointer), place: place()});
      return;
    }
    report({kind: 'key', key: e.key, ctrl: e.ctrlKey, alt: e.altKey, shift: e.shiftKey,
      meta: e.metaKey, time: at(e), focused: describe('focused', null), place: place()});
  }, true);

  // A choice in a dropdown, whose list the browser draws outside the page: reported by the
  // `change` it makes, with the option's label, at the dropdown's centre.
  addEventListener('change', (e) => {
    const select = e.target;
    if (!e.isTrusted || !(select instanceof HTMLSelectElement) || select.multiple) return;
    const held = select.selectedOptions[0];
    if (!held) return;
    const box = select.getBoundingClientRect();
    const centre = {x: Math.round(box.left + box.width / 2), y: Math.round(box.top + box.height / 2)};
    report({kind: 'select', ...centre, time: at(e), label: held.label.replace(/\s+/g, ' ').trim(),
      element: describe('at', centre), place: place()});
  }, true);

  addEventListener('wheel', (e) => {
    if (!e.isTrusted) return;
    const scale = e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? innerHeight : 1;
    report({kind: 'wheel', ...point(e), dx: e.deltaX * scale, dy: e.deltaY * scale, time: at(e),
      element: describe('at', point(e)), focused: describe('focused', null), place: place()});
  }, {capture: true, passive: true});
})();
