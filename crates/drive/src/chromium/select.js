// The page side of `select.rs`: chooses an option of the dropdown (`<select>`) hit at a
// point, as choosing it in the list the browser draws outside the page does: the option is
// selected, then `input` and `change` are dispatched (bubbling), as Playwright's selectOption
// does. Runs in retrace's isolated world; answers {label} once the dropdown holds the option,
// or {error, options} saying what is there instead.
(({x, y, option}) => {
  const norm = (text) => (text || '').replace(/\s+/g, ' ').trim();
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  const select = hit && (hit.closest('select') || (hit.tagName === 'LABEL' && hit.control));
  if (!select || select.tagName !== 'SELECT') {
    return {error: `no dropdown at (${x}, ${y}): found ${hit ? hit.tagName.toLowerCase() : 'nothing'}`};
  }
  const options = Array.from(select.options);
  const wanted = norm(option);
  const chosen = options.find((o) => norm(o.label) === wanted) || options.find((o) => o.value === option);
  if (!chosen) return {error: 'no such option', options: options.map((o) => norm(o.label))};
  if (chosen.disabled || select.disabled) return {error: 'the option is disabled', options: []};
  select.focus();
  if (!chosen.selected) {
    chosen.selected = true;
    select.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    select.dispatchEvent(new Event('change', {bubbles: true}));
  }
  const held = select.selectedOptions[0];
  return held === chosen ? {label: norm(held.label)} :
    {error: 'the page chose another option', options: [norm(held ? held.label : '')]};
})
